package io.superspark.parquet.thrift

/**
 * Footer fields newer than the parquet-format classes of parquet-java 1.17 (which drop them
 * when parsing) but kept by the FlatBuffer so that the Thrift footer rebuilds byte for byte:
 *  - `Statistics.nan_count` (field 9, i64), written by DuckDB and Arrow C++ for float columns;
 *  - the `ColumnOrder` member `IEEE_754_TOTAL_ORDER` (field 2, an empty struct).
 * Read from the Thrift compact bytes by walking only the structs that hold them.
 */
private[superspark] final case class ThriftExtras(nanCounts: Map[(Int, Int), Long], columnOrderIds: IndexedSeq[Short]) {
  def isEmpty: Boolean = nanCounts.isEmpty && !columnOrderIds.exists(_ != ThriftExtras.TypeOrderId)
}

private[superspark] object ThriftExtras {
  val Empty: ThriftExtras = ThriftExtras(Map.empty, IndexedSeq.empty)
  val TypeOrderId: Short = 1
  val Ieee754TotalOrderId: Short = 2

  import ThriftWalker.{I64, List, Struct}

  def scan(thrift: Array[Byte]): ThriftExtras = {
    val w = new ThriftWalker(thrift)
    val nan = Map.newBuilder[(Int, Int), Long]
    val orders = IndexedSeq.newBuilder[Short]
    def fields(each: (Short, Byte) => Boolean): Unit = w.fields(each)
    def structs(each: Int => Unit): Unit = w.list(each)

    w.columnMetaData({ (r, c) =>
      fields {
        case (12, Struct) => // statistics
          fields {
            case (9, I64) => nan += ((r, c) -> w.i64()); true
            case _ => false
          }
          true
        case _ => false
      }
    }, {
      case (7, List) => // column_orders
        structs { _ =>
          var id: Short = 0
          fields { (fid, _) => id = fid; false }
          orders += id
        }
        true
      case _ => false
    })
    ThriftExtras(nan.result(), orders.result())
  }
}
