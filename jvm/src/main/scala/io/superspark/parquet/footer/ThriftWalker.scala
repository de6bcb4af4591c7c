package io.superspark.parquet.footer

import java.io.ByteArrayInputStream

import shaded.parquet.org.apache.thrift.TConfiguration
import shaded.parquet.org.apache.thrift.protocol.{TCompactProtocol, TProtocolUtil}
import shaded.parquet.org.apache.thrift.transport.TIOStreamTransport

/**
 * Walks Thrift compact structs in `bytes[from, from + length)` without building objects:
 * `fields` visits a struct's fields (the callback reads the ones it wants and returns true,
 * the others are skipped), `list` a list's elements; `pos` is the offset of the next byte.
 * Reads are bounded by `length` (a message-size limit) and the recursion depth.
 */
final class ThriftWalker(bytes: Array[Byte], from: Int = 0, length: Int = -1) {
  private val len = if (length < 0) bytes.length - from else length
  private val in = new ByteArrayInputStream(bytes, from, len)
  val protocol: TCompactProtocol = new TCompactProtocol(new TIOStreamTransport(
    new TConfiguration(math.max(len, 1), TConfiguration.DEFAULT_MAX_FRAME_SIZE, TConfiguration.DEFAULT_RECURSION_DEPTH), in))

  /** Offset (from `from`) of the next unread byte. */
  def pos: Int = len - in.available()

  /** Walks one struct; returns the offset of its stop byte. */
  def fields(each: (Short, Byte) => Boolean): Int = {
    protocol.readStructBegin()
    var stop = -1
    while (stop < 0) {
      val at = pos
      val f = protocol.readFieldBegin()
      if (f.`type` == ThriftWalker.Stop) stop = at
      else { if (!each(f.id, f.`type`)) TProtocolUtil.skip(protocol, f.`type`); protocol.readFieldEnd() }
    }
    protocol.readStructEnd()
    stop
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

  def list(each: Int => Unit): Unit = {
    val l = protocol.readListBegin()
    var i = 0
    while (i < l.size) { each(i); i += 1 }
    protocol.readListEnd()
  }
}

object ThriftWalker {
  // Thrift type ids as TProtocol reports them (TType is not in the shaded jar).
  val Stop: Byte = 0
  val I32: Byte = 8
  val I64: Byte = 10
  val Binary: Byte = 11
  val Struct: Byte = 12
  val List: Byte = 15
}
