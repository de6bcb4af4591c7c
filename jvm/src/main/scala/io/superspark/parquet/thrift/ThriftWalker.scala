package io.superspark.parquet.thrift

import java.nio.charset.StandardCharsets.UTF_8

/**
 * Walks Thrift compact structs in `bytes[from, from + length)` without building objects, on
 * the one compact reader ([[ThriftCompactReader]]): `fields` visits a struct's fields (the
 * callback reads the ones it wants with `i32`, `i64`, `string`, `binary` or a nested walk and
 * returns true; the others are skipped), `list` a list's elements; `pos` is the offset (from
 * `from`) of the next byte. Reads are bounded by `length` and by the reader's depth limit;
 * malformed bytes raise [[MalformedThriftFooterException]] with the absolute offset.
 *
 * The callbacks see compact type ids (the constants below), as the bytes carry them.
 */
private[superspark] final class ThriftWalker(bytes: Array[Byte], from: Int = 0, length: Int = -1) {
  private val r = new ThriftCompactReader(bytes, if (length < 0) bytes.length else from + length)
  r.pos = from

  /** Offset (from `from`) of the next unread byte. */
  def pos: Int = r.pos - from

  def i32(): Int = r.i32()
  def i64(): Long = r.i64()
  def string(): String = { val at = r.binary(); new String(bytes, at, r.pos - at, UTF_8) }
  def binary(): Array[Byte] = { val at = r.binary(); java.util.Arrays.copyOfRange(bytes, at, r.pos) }

  /** Walks one struct; returns the offset (from `from`) of its stop byte. */
  def fields(each: (Short, Byte) => Boolean): Int = {
    r.structBegin()
    while (r.nextField()) {
      if (!each(r.fieldId.toShort, r.fieldType.toByte)) r.skip()
    }
    r.fieldAt - from
  }

  /** Walks a list: `each(i)` reads element i. */
  def list(each: Int => Unit): Unit = {
    r.listHeader()
    val n = r.listSize
    var i = 0
    while (i < n) { each(i); i += 1 }
  }

  /**
   * Walks a `FileMetaData` struct: `meta(rowGroup, column)` is called at each
   * `ColumnChunk.meta_data` (`ColumnMetaData`) and must walk it (with `fields`); `other`
   * reads or skips (false) the other top-level fields.
   */
  def columnMetaData(meta: (Int, Int) => Unit, other: (Short, Byte) => Boolean = (_, _) => false): Unit = {
    import ThriftWalker.{List, Struct}
    fields {
      case (4, List) => // row_groups
        list { rg =>
          fields {
            case (1, List) => // columns
              list { col =>
                fields {
                  case (3, Struct) => meta(rg, col); true
                  case _ => false
                }
              }
              true
            case _ => false
          }
        }
        true
      case (id, tpe) => other(id, tpe)
    }
  }
}

private[superspark] object ThriftWalker {
  // Compact type ids, as the field headers carry them (ThriftCompactWriter's).
  val I32: Byte = ThriftCompactWriter.I32.toByte
  val I64: Byte = ThriftCompactWriter.I64.toByte
  val Binary: Byte = ThriftCompactWriter.Binary.toByte
  val Struct: Byte = ThriftCompactWriter.Struct.toByte
  val List: Byte = ThriftCompactWriter.List.toByte
}
