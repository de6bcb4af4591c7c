package io.superspark.parquet.alp

import java.nio.{ByteBuffer, ByteOrder}
import java.util.UUID

import io.superspark.parquet.alp.AlpChunkErrorReason.BadExtension

/**
 * Where the private form's ALP chunk of one column chunk lives: the payload of the Thrift field
 * 32767 appended to that column's `ColumnMetaData` (docs/alp.md, "Private form"), little-endian:
 *
 * {{{
 *   1 byte   | layout version (2; 1 in files written before the page codec was recorded)
 *   1 byte   | physical type: 4 FLOAT, 5 DOUBLE (Parquet's Type values)
 *   8 bytes  | offset of the ALP chunk's first page header in the file
 *   8 bytes  | size of the ALP chunk (page headers + page bodies)
 *   4 bytes  | page count
 *   8 bytes  | value count (rows, nulls included)
 *   4 bytes  | crc32 of the chunk's bytes
 *   1 byte   | version 2 only: the pages' codec (Parquet's CompressionCodec value, 0 = UNCOMPRESSED)
 *   16 bytes | Uuid (RFC 4122 byte order), last so the payload is recognized from its end
 * }}}
 *
 * Version 1 (50 bytes) has no codec byte: its pages use the column's codec (ColumnMetaData.codec).
 * Version 2 is 51 bytes. `codec`: None for version 1.
 */
private[superspark] final case class AlpExtension(physicalType: Int, offset: Long, size: Long, pages: Int, values: Long, crc32: Int,
    codec: Option[Int] = None) {
  def alpType: AlpType = if (physicalType == AlpExtension.FloatType) AlpType.Float else AlpType.Double

  def toBytes: Array[Byte] = {
    val b = ByteBuffer.allocate(if (codec.isDefined) AlpExtension.Size else AlpExtension.SizeV1)
      .order(ByteOrder.LITTLE_ENDIAN)
    b.put((if (codec.isDefined) AlpExtension.Version else 1).toByte).put(physicalType.toByte).putLong(offset)
      .putLong(size).putInt(pages).putLong(values).putInt(crc32)
    codec.foreach { c => require(c >= 0 && c < 256, s"codec $c"); b.put(c.toByte) }
    b.put(AlpExtension.UuidBytes)
    b.array()
  }
}

private[superspark] object AlpExtension {
  /** The UUID that names superspark's ALP column extension: 1b374f12-4bb3-405f-a2e3-503ffde822bb. */
  val Uuid: UUID = UUID.fromString("1b374f12-4bb3-405f-a2e3-503ffde822bb")
  val UuidBytes: Array[Byte] = {
    val b = ByteBuffer.allocate(16)
    b.putLong(Uuid.getMostSignificantBits).putLong(Uuid.getLeastSignificantBits)
    b.array()
  }
  /** The layout version written (2: with the pages' codec). */
  val Version = 2
  /** Payload bytes of version 2 and of version 1. */
  val Size = 51
  val SizeV1 = 50
  def sizeOf(version: Int): Option[Int] = version match { case 1 => Some(SizeV1); case 2 => Some(Size); case _ => None }
  val FloatType = 4
  val DoubleType = 5

  /** True when `payload` ends with this extension's UUID (someone else's extension otherwise). */
  def isOurs(payload: Array[Byte]): Boolean =
    payload.length >= 16 && java.util.Arrays.equals(payload, payload.length - 16, payload.length, UuidBytes, 0, 16)

  /**
   * Parses a payload that [[isOurs]], checking it against the file: the chunk must lie in
   * `[4, dataEnd)` (the bytes before the footer). Errors are [[AlpChunkException]]s whose offset
   * is in the payload.
   */
  def parse(payload: Array[Byte], dataEnd: Long): AlpExtension = {
    def bad(at: Long, why: String): Nothing = throw new AlpChunkException(BadExtension(at, why))
    if (payload.isEmpty) bad(0, "empty payload")
    val b = ByteBuffer.wrap(payload).order(ByteOrder.LITTLE_ENDIAN)
    val version = b.get() & 0xff
    val size = sizeOf(version).getOrElse(bad(0, s"layout version $version is unknown (this reader knows 1 and 2)"))
    if (payload.length != size) bad(0, s"${payload.length} bytes, layout version $version has $size")
    val tpe = b.get() & 0xff
    if (tpe != FloatType && tpe != DoubleType) bad(1, s"physical type $tpe is not FLOAT (4) or DOUBLE (5)")
    val e = AlpExtension(tpe, b.getLong(), b.getLong(), b.getInt(), b.getLong(), b.getInt(),
      if (version >= 2) Some(b.get() & 0xff) else None)
    if (e.offset < 4 || e.size <= 0 || e.offset > dataEnd - e.size || e.size > Int.MaxValue - 16) {
      bad(2, s"chunk [${e.offset}, +${e.size}) lies outside the file's data [4, $dataEnd)")
    }
    if (e.pages <= 0 || e.pages > e.size) bad(18, s"page count ${e.pages} for a ${e.size}-byte chunk")
    if (e.values <= 0) bad(22, s"value count ${e.values}")
    e
  }
}
