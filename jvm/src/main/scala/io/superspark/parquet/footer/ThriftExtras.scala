package io.superspark.parquet.footer

import java.io.ByteArrayInputStream

import shaded.parquet.org.apache.thrift.TConfiguration
import shaded.parquet.org.apache.thrift.protocol.{TCompactProtocol, TProtocolUtil}
import shaded.parquet.org.apache.thrift.transport.TIOStreamTransport

/**
 * Footer fields newer than the parquet-format classes of parquet-java 1.17 (which drop them
 * when parsing) but kept by the FlatBuffer so that the Thrift footer rebuilds byte for byte:
 *  - `Statistics.nan_count` (field 9, i64), written by DuckDB and Arrow C++ for float columns;
 *  - the `ColumnOrder` member `IEEE_754_TOTAL_ORDER` (field 2, an empty struct).
 * Read from the Thrift compact bytes by walking only the structs that hold them.
 */
final case class ThriftExtras(nanCounts: Map[(Int, Int), Long], columnOrderIds: IndexedSeq[Short]) {
  def isEmpty: Boolean = nanCounts.isEmpty && !columnOrderIds.exists(_ != ThriftExtras.TypeOrderId)
}

object ThriftExtras {
  val Empty: ThriftExtras = ThriftExtras(Map.empty, IndexedSeq.empty)
  val TypeOrderId: Short = 1
  val Ieee754TotalOrderId: Short = 2

  // Thrift compact type ids as TProtocol reports them (TType is not in the shaded jar).
  private val Stop: Byte = 0
  private val I64: Byte = 10
  private val Struct: Byte = 12
  private val List: Byte = 15

  def scan(thrift: Array[Byte]): ThriftExtras = {
    val conf = new TConfiguration(Int.MaxValue, TConfiguration.DEFAULT_MAX_FRAME_SIZE,
      TConfiguration.DEFAULT_RECURSION_DEPTH)
    val p = new TCompactProtocol(new TIOStreamTransport(conf, new ByteArrayInputStream(thrift)))
    val nan = Map.newBuilder[(Int, Int), Long]
    val orders = IndexedSeq.newBuilder[Short]

    def fields(each: (Short, Byte) => Boolean): Unit = {
      p.readStructBegin()
      var done = false
      while (!done) {
        val f = p.readFieldBegin()
        if (f.`type` == Stop) done = true
        else {
          if (!each(f.id, f.`type`)) TProtocolUtil.skip(p, f.`type`)
          p.readFieldEnd()
        }
      }
      p.readStructEnd()
    }
    def structs(each: Int => Unit): Unit = {
      val l = p.readListBegin()
      var i = 0
      while (i < l.size) { each(i); i += 1 }
      p.readListEnd()
    }

    fields {
      case (4, List) => // row_groups
        structs { r =>
          fields {
            case (1, List) => // columns
              structs { c =>
                fields {
                  case (3, Struct) => // meta_data
                    fields {
                      case (12, Struct) => // statistics
                        fields {
                          case (9, I64) => nan += ((r, c) -> p.readI64()); true
                          case _ => false
                        }
                        true
                      case _ => false
                    }
                    true
                  case _ => false
                }
              }
              true
            case _ => false
          }
        }
        true
      case (7, List) => // column_orders
        structs { _ =>
          var id: Short = 0
          fields { (fid, _) => id = fid; false }
          orders += id
        }
        true
      case _ => false
    }
    ThriftExtras(nan.result(), orders.result())
  }
}
