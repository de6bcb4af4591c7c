package io.superspark.parquet.footer

import java.nio.charset.StandardCharsets
import java.util.UUID
import java.util.zip.CRC32

/**
 * The wire layout of superspark's FlatBuffers footer extension (its "private form", see
 * docs/parquet-footer.md). Pure byte codecs, no I/O. A Parquet file ends with
 *
 * {{{
 *   N-1 bytes | Thrift compact FileMetaData without its stop byte
 *   4 bytes   | 08 FF FF 01           field header: binary, long form, id ULEB128(32767)
 *   1-5 bytes | ULEB128(K + 28)       size of the binary field
 *   K bytes   | FlatBuffer (io.superspark.parquet.footer.fbs.FileMetaData)
 *   4 bytes   | crc32(FlatBuffer), little-endian
 *   4 bytes   | K, little-endian
 *   4 bytes   | crc32(the 4 bytes of K), little-endian
 *   16 bytes  | ExtensionUuid
 *   1 byte    | 00                    Thrift stop byte
 *   4 bytes   | footer length (everything above), little-endian
 *   4 bytes   | PAR1
 * }}}
 *
 * "Footer" below means the bytes the Parquet footer length covers (Thrift plus extension).
 */
object FooterLayout {

  /** The UUID that names this extension (v0): bb020e68-d327-4698-a215-465ff5dc7e44. */
  val ExtensionUuid: UUID = UUID.fromString("bb020e68-d327-4698-a215-465ff5dc7e44")

  /** The UUID's 16 bytes as written: RFC 4122 order (most significant byte first). */
  val UuidBytes: Array[Byte] = {
    val b = java.nio.ByteBuffer.allocate(16)
    b.putLong(ExtensionUuid.getMostSignificantBits).putLong(ExtensionUuid.getLeastSignificantBits)
    b.array()
  }

  /** Thrift compact field header of field 32767 (binary), long form, as the spec writes it. */
  val FieldHeader: Array[Byte] = Array(0x08, 0xFF, 0xFF, 0x01).map(_.toByte)

  /** crc32(fb) + K + crc32(K) + UUID: the bytes after the FlatBuffer, before the stop byte. */
  val TrailerSize: Int = 28

  val Magic: Array[Byte] = "PAR1".getBytes(StandardCharsets.US_ASCII)
  val EncryptedMagic: Array[Byte] = "PARE".getBytes(StandardCharsets.US_ASCII)

  /** Smallest footer that can hold the extension: header, 1-byte size, trailer, stop. */
  val MinExtendedFooter: Int = FieldHeader.length + 1 + TrailerSize + 1

  /** ULEB128 of a non-negative value (1 to 10 bytes). */
  def uleb128(value: Long): Array[Byte] = {
    require(value >= 0, s"ULEB128 of a negative value: $value")
    val out = new Array[Byte](10)
    var x = value
    var n = 0
    while (x >= 0x80) {
      out(n) = ((x & 0x7F) | 0x80).toByte
      x >>>= 7
      n += 1
    }
    out(n) = x.toByte
    java.util.Arrays.copyOf(out, n + 1)
  }

  def crc32(bytes: Array[Byte], offset: Int, length: Int): Int = {
    val c = new CRC32()
    c.update(bytes, offset, length)
    c.getValue.toInt
  }

  def putIntLE(out: Array[Byte], at: Int, v: Int): Unit = {
    out(at) = v.toByte
    out(at + 1) = (v >>> 8).toByte
    out(at + 2) = (v >>> 16).toByte
    out(at + 3) = (v >>> 24).toByte
  }

  def getIntLE(in: Array[Byte], at: Int): Int =
    (in(at) & 0xFF) | (in(at + 1) & 0xFF) << 8 | (in(at + 2) & 0xFF) << 16 | (in(at + 3) & 0xFF) << 24

  /** The extension's field payload: FlatBuffer then the 28-byte trailer. */
  def extensionPayload(flatbuffer: Array[Byte]): Array[Byte] = {
    val k = flatbuffer.length
    val out = new Array[Byte](k + TrailerSize)
    System.arraycopy(flatbuffer, 0, out, 0, k)
    putIntLE(out, k, crc32(flatbuffer, 0, k))
    putIntLE(out, k + 4, k)
    putIntLE(out, k + 8, crc32(out, k + 4, 4))
    System.arraycopy(UuidBytes, 0, out, k + 12, 16)
    out
  }

  /**
   * Appends a binary field 32767 holding `payload` to a Thrift compact struct by byte
   * surgery, exactly as the spec's `AppendExtension`: the stop byte becomes the field header.
   */
  def appendField(thrift: Array[Byte], payload: Array[Byte]): Array[Byte] = {
    require(thrift.nonEmpty && thrift(thrift.length - 1) == 0,
      "the Thrift struct does not end with a stop byte")
    val size = uleb128(payload.length.toLong)
    val n = thrift.length - 1
    val out = new Array[Byte](n + FieldHeader.length + size.length + payload.length + 1)
    System.arraycopy(thrift, 0, out, 0, n)
    System.arraycopy(FieldHeader, 0, out, n, FieldHeader.length)
    System.arraycopy(size, 0, out, n + FieldHeader.length, size.length)
    System.arraycopy(payload, 0, out, n + FieldHeader.length + size.length, payload.length)
    out(out.length - 1) = 0
    out
  }

  /** A Thrift footer (ending with its stop byte) with the FlatBuffer appended. */
  def appendExtension(thrift: Array[Byte], flatbuffer: Array[Byte]): Array[Byte] =
    appendField(thrift, extensionPayload(flatbuffer))

  /** Where the extension sits in a footer, once its sizes, header and CRCs checked out. */
  final case class Extension(thriftPrefixLength: Int, flatBufferOffset: Int, flatBufferLength: Int) {
    /** The original Thrift footer: the prefix plus a stop byte. */
    def thriftFooter(footer: Array[Byte]): Array[Byte] = {
      val out = java.util.Arrays.copyOf(footer, thriftPrefixLength + 1)
      out(thriftPrefixLength) = 0
      out
    }
  }

  /** What reading a footer backwards found. */
  sealed trait Located
  /** No extension of ours (no UUID match): use the Thrift footer as it is. */
  case object Absent extends Located
  /** Our UUID, but sizes, header or CRCs do not check out: fall back to Thrift. */
  final case class Corrupt(reason: FallbackReason) extends Located
  final case class Present(extension: Extension) extends Located

  /**
   * Finds the extension by reading `footer` backwards (stop byte, UUID, size CRC, size,
   * header, FlatBuffer CRC) without parsing any Thrift. Never reads outside `footer` and
   * never allocates from a size in it.
   */
  def locate(footer: Array[Byte]): Located = {
    val f = footer.length
    if (f < MinExtendedFooter || footer(f - 1) != 0) return Absent
    val uuidAt = f - 1 - 16
    if (!java.util.Arrays.equals(footer, uuidAt, uuidAt + 16, UuidBytes, 0, 16)) return Absent
    val sizeCrcAt = uuidAt - 4
    val sizeAt = sizeCrcAt - 4
    val fbCrcAt = sizeAt - 4
    if (crc32(footer, sizeAt, 4) != getIntLE(footer, sizeCrcAt)) {
      return Corrupt(FallbackReason.SizeCrcMismatch(sizeAt))
    }
    val k = getIntLE(footer, sizeAt).toLong & 0xFFFFFFFFL
    val sizeBytes = uleb128(k + TrailerSize)
    val fbAt = fbCrcAt.toLong - k
    val headerAt = fbAt - sizeBytes.length - FieldHeader.length
    if (k == 0 || headerAt < 0) {
      return Corrupt(FallbackReason.SizeOutOfBounds(sizeAt, k, fbCrcAt.toLong))
    }
    val h = headerAt.toInt
    val headerOk = java.util.Arrays.equals(footer, h, h + FieldHeader.length, FieldHeader, 0, FieldHeader.length) &&
      java.util.Arrays.equals(footer, h + FieldHeader.length, fbAt.toInt, sizeBytes, 0, sizeBytes.length)
    if (!headerOk) return Corrupt(FallbackReason.HeaderMismatch(h))
    if (crc32(footer, fbAt.toInt, k.toInt) != getIntLE(footer, fbCrcAt)) {
      return Corrupt(FallbackReason.FlatBufferCrcMismatch(fbAt.toInt, k.toInt))
    }
    Present(Extension(h, fbAt.toInt, k.toInt))
  }

  /** Parquet tail: the last 8 bytes are the footer length (LE) and the magic. */
  def tail(footerLength: Int, magic: Array[Byte] = Magic): Array[Byte] = {
    val out = new Array[Byte](8)
    putIntLE(out, 0, footerLength)
    System.arraycopy(magic, 0, out, 4, 4)
    out
  }
}
