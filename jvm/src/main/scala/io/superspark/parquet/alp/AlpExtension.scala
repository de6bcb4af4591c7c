package io.superspark.parquet.alp

import java.nio.{ByteBuffer, ByteOrder}
import java.util.UUID

import io.superspark.parquet.alp.AlpChunkErrorReason.BadExtension

/**
 * Where the private form's ALP chunk of one column chunk lives: the payload of the Thrift field
 * 32767 appended to that column's `ColumnMetaData` (docs/alp.md, "Private form"). 50 bytes,
 * little-endian:
 *
 * {{{
 *   1 byte   | layout version (1)
 *   1 byte   | physical type: 4 FLOAT, 5 DOUBLE (Parquet's Type values)
 *   8 bytes  | offset of the ALP chunk's first page header in the file
 *   8 bytes  | size of the ALP chunk (page headers + compressed bodies)
 *   4 bytes  | page count
 *   8 bytes  | value count (rows, nulls included)
 *   4 bytes  | crc32 of the chunk's bytes
 *   16 bytes | Uuid (RFC 4122 byte order), last so the payload is recognized from its end
 * }}}
 *
 * The pages use the column's codec (ColumnMetaData.codec).
 */
final case class AlpExtension(physicalType: Int, offset: Long, size: Long, pages: Int, values: Long, crc32: Int) {
  def alpType: AlpType = if (physicalType == AlpExtension.FloatType) AlpType.Float else AlpType.Double

  def toBytes: Array[Byte] = {
    val b = ByteBuffer.allocate(AlpExtension.Size).order(ByteOrder.LITTLE_ENDIAN)
    b.put(AlpExtension.Version.toByte).put(physicalType.toByte).putLong(offset).putLong(size).putInt(pages)
      .putLong(values).putInt(crc32)
    b.put(AlpExtension.UuidBytes)
    b.array()
  }
}

object AlpExtension {
  /** The UUID that names superspark's ALP column extension: 1b374f12-4bb3-405f-a2e3-503ffde822bb. */
  val Uuid: UUID = UUID.fromString("1b374f12-4bb3-405f-a2e3-503ffde822bb")
  val UuidBytes: Array[Byte] = {
    val b = ByteBuffer.allocate(16)
    b.putLong(Uuid.getMostSignificantBits).putLong(Uuid.getLeastSignificantBits)
    b.array()
  }
  val Version = 1
  val Size = 50
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
    if (payload.length != Size) bad(0, s"${payload.length} bytes, expected $Size")
    val b = ByteBuffer.wrap(payload).order(ByteOrder.LITTLE_ENDIAN)
    val version = b.get() & 0xff
    if (version != Version) bad(0, s"layout version $version is unknown (this reader knows $Version)")
    val tpe = b.get() & 0xff
    if (tpe != FloatType && tpe != DoubleType) bad(1, s"physical type $tpe is not FLOAT (4) or DOUBLE (5)")
    val e = AlpExtension(tpe, b.getLong(), b.getLong(), b.getInt(), b.getLong(), b.getInt())
    if (e.offset < 4 || e.size <= 0 || e.offset > dataEnd - e.size || e.size > Int.MaxValue - 16) {
      bad(2, s"chunk [${e.offset}, +${e.size}) lies outside the file's data [4, $dataEnd)")
    }
    if (e.pages <= 0 || e.pages > e.size) bad(18, s"page count ${e.pages} for a ${e.size}-byte chunk")
    if (e.values <= 0) bad(22, s"value count ${e.values}")
    e
  }
}
