package io.superspark.parquet.footer.codec

import java.nio.charset.StandardCharsets
import java.util.UUID
import java.util.zip.CRC32
import io.superspark.parquet.footer.FallbackReason

/**
 * The forms of a Parquet footer (docs/parquet-footer.md, "Forms"): `plain` (Thrift only),
 * `private` (Thrift + FlatBuffer extension, UUID1), `intermediate` (the same layout with
 * UUID2 and a v1 FlatBuffer) and `final` (FlatBuffer only, `PAR3` tail, no Thrift).
 */
private[superspark] sealed abstract class FooterForm(val name: String) { override def toString: String = name }

private[superspark] object FooterForm {
  case object Plain extends FooterForm("plain")
  case object Private extends FooterForm("private")
  case object Intermediate extends FooterForm("intermediate")
  case object Final extends FooterForm("final")

  val all: Seq[FooterForm] = Seq(Plain, Private, Intermediate, Final)

  def parse(name: String): Option[FooterForm] = all.find(_.name == name.trim.toLowerCase(java.util.Locale.ROOT))
}

/**
 * The wire layouts of superspark's FlatBuffers footer (docs/parquet-footer.md). Pure byte
 * codecs, no I/O. A Parquet file in the private or intermediate form ends with
 *
 * {{{
 *   N-1 bytes | Thrift compact FileMetaData without its stop byte
 *   4 bytes   | 08 FF FF 01           field header: binary, long form, id ULEB128(32767)
 *   1-5 bytes | ULEB128(K + 28)       size of the binary field
 *   K bytes   | FlatBuffer (io.superspark.parquet.footer.fbs.FileMetaData)
 *   4 bytes   | crc32(FlatBuffer), little-endian
 *   4 bytes   | K, little-endian
 *   4 bytes   | crc32(the 4 bytes of K), little-endian
 *   16 bytes  | ExtensionUuid (private form) or IntermediateUuid
 *   1 byte    | 00                    Thrift stop byte
 *   4 bytes   | footer length (everything above), little-endian
 *   4 bytes   | PAR1
 * }}}
 *
 * and in the final form with
 *
 * {{{
 *   K bytes   | FlatBuffer (v1)
 *   4 bytes   | crc32(FlatBuffer), little-endian
 *   4 bytes   | K, little-endian
 *   4 bytes   | crc32(the 4 bytes of K), little-endian
 *   4 bytes   | PAR3
 * }}}
 *
 * "Footer" below means the bytes the Parquet footer length covers (Thrift plus extension);
 * in the final form, the FlatBuffer and the 12 bytes after it.
 */
private[superspark] object FooterLayout {

  /** The UUID that names this extension (v0): bb020e68-d327-4698-a215-465ff5dc7e44. */
  val ExtensionUuid: UUID = UUID.fromString("bb020e68-d327-4698-a215-465ff5dc7e44")

  /** UUID2, the intermediate form (a v1 FlatBuffer): 0bf05d6e-a6b1-4680-8f44-7ab52410a75f. */
  val IntermediateUuid: UUID = UUID.fromString("0bf05d6e-a6b1-4680-8f44-7ab52410a75f")

  /** A UUID's 16 bytes as written: RFC 4122 order (most significant byte first). */
  def uuidBytes(u: UUID): Array[Byte] = {
    val b = java.nio.ByteBuffer.allocate(16)
    b.putLong(u.getMostSignificantBits).putLong(u.getLeastSignificantBits)
    b.array()
  }

  val UuidBytes: Array[Byte] = uuidBytes(ExtensionUuid)
  val IntermediateUuidBytes: Array[Byte] = uuidBytes(IntermediateUuid)

  /** The UUID of a form that keeps the Thrift footer. */
  def uuidOf(form: FooterForm): UUID = form match {
    case FooterForm.Private => ExtensionUuid
    case FooterForm.Intermediate => IntermediateUuid
    case other => throw new IllegalArgumentException(s"the $other form has no extension UUID")
  }

  /** The form a trailing UUID names (private or intermediate), if any. */
  def formOfUuid(footer: Array[Byte], at: Int): Option[FooterForm] =
    if (java.util.Arrays.equals(footer, at, at + 16, UuidBytes, 0, 16)) Some(FooterForm.Private)
    else if (java.util.Arrays.equals(footer, at, at + 16, IntermediateUuidBytes, 0, 16)) Some(FooterForm.Intermediate)
    else None

  /** Thrift compact field header of field 32767 (binary), long form, as the spec writes it. */
  val FieldHeader: Array[Byte] = Array(0x08, 0xFF, 0xFF, 0x01).map(_.toByte)

  /** crc32(fb) + K + crc32(K) + UUID: the bytes after the FlatBuffer, before the stop byte. */
  val TrailerSize: Int = 28

  val Magic: Array[Byte] = "PAR1".getBytes(StandardCharsets.US_ASCII)
  /** Tail magic of the final form. */
  val FinalMagic: Array[Byte] = "PAR3".getBytes(StandardCharsets.US_ASCII)
  /** crc32(fb) + K + crc32(K) + PAR3: what follows the FlatBuffer in the final form. */
  val FinalTrailerSize: Int = 16
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

  /** FlatBuffer, crc32(fb), K, crc32(K) and then `after` (a UUID or PAR3). */
  private def withCrcs(flatbuffer: Array[Byte], after: Array[Byte]): Array[Byte] = {
    val out = new Array[Byte](flatbuffer.length + 12 + after.length)
    putWithCrcs(out, 0, flatbuffer, after)
    out
  }

  /** Writes [[withCrcs]]'s bytes into `out` at `at`; returns where they end. */
  private def putWithCrcs(out: Array[Byte], at: Int, flatbuffer: Array[Byte], after: Array[Byte]): Int = {
    val k = flatbuffer.length
    System.arraycopy(flatbuffer, 0, out, at, k)
    putIntLE(out, at + k, crc32(flatbuffer, 0, k))
    putIntLE(out, at + k + 4, k)
    putIntLE(out, at + k + 8, crc32(out, at + k + 4, 4))
    System.arraycopy(after, 0, out, at + k + 12, after.length)
    at + k + 12 + after.length
  }

  /** The extension's field payload: FlatBuffer then the 28-byte trailer naming `form`. */
  def extensionPayload(flatbuffer: Array[Byte], form: FooterForm = FooterForm.Private): Array[Byte] =
    withCrcs(flatbuffer, uuidBytes(uuidOf(form)))

  /** The whole tail of a final-form file after its data: FlatBuffer, CRCs, size, PAR3. */
  def finalTail(flatbuffer: Array[Byte]): Array[Byte] = withCrcs(flatbuffer, FinalMagic)

  /**
   * Appends a binary field 32767 holding `payload` to a Thrift compact struct by byte
   * surgery, exactly as the spec's `AppendExtension`: the stop byte becomes the field header.
   */
  def appendField(thrift: Array[Byte], payload: Array[Byte]): Array[Byte] =
    appended(thrift, payload.length, extra = 0)((out, at) => System.arraycopy(payload, 0, out, at, payload.length))

  /**
   * [[appendField]] with a payload of `payloadLength` bytes that `put` writes at the offset it
   * is given, into an array with `extra` bytes left free at its end.
   */
  private def appended(thrift: Array[Byte], payloadLength: Int, extra: Int)(put: (Array[Byte], Int) => Unit): Array[Byte] = {
    require(thrift.nonEmpty && thrift(thrift.length - 1) == 0,
      "the Thrift struct does not end with a stop byte")
    val size = uleb128(payloadLength.toLong)
    val n = thrift.length - 1
    val length = appendedLength(thrift.length, payloadLength)
    require(length + extra <= Int.MaxValue - 16, s"a footer of $length bytes")
    val out = new Array[Byte](length.toInt + extra)
    System.arraycopy(thrift, 0, out, 0, n)
    System.arraycopy(FieldHeader, 0, out, n, FieldHeader.length)
    System.arraycopy(size, 0, out, n + FieldHeader.length, size.length)
    put(out, n + FieldHeader.length + size.length)
    out(length.toInt - 1) = 0
    out
  }

  /** A Thrift footer (ending with its stop byte) with the FlatBuffer appended. */
  def appendExtension(thrift: Array[Byte], flatbuffer: Array[Byte], form: FooterForm = FooterForm.Private): Array[Byte] =
    extended(thrift, flatbuffer, form, withTail = false)

  /** The footer length [[appendExtension]] gives (without building it). */
  def extendedLength(thrift: Array[Byte], flatbuffer: Array[Byte]): Long =
    appendedLength(thrift.length, flatbuffer.length.toLong + TrailerSize)

  /** A struct of `thriftLength` bytes with a binary field 32767 of `payloadLength` bytes appended. */
  private def appendedLength(thriftLength: Int, payloadLength: Long): Long =
    thriftLength - 1L + FieldHeader.length + uleb128(payloadLength).length + payloadLength + 1

  /**
   * [[appendExtension]] followed by the footer length and PAR1: a file's whole tail in the
   * private or intermediate form, written into one array (the FlatBuffer is copied once).
   */
  def extendedTail(thrift: Array[Byte], flatbuffer: Array[Byte], form: FooterForm = FooterForm.Private): Array[Byte] =
    extended(thrift, flatbuffer, form, withTail = true)

  /** [[appendField]] of [[extensionPayload]], in one array, with the tail (length + PAR1) when asked. */
  private def extended(thrift: Array[Byte], flatbuffer: Array[Byte], form: FooterForm, withTail: Boolean): Array[Byte] = {
    val out = appended(thrift, flatbuffer.length + TrailerSize, if (withTail) 8 else 0) { (out, at) =>
      putWithCrcs(out, at, flatbuffer, uuidBytes(uuidOf(form)))
    }
    if (withTail) System.arraycopy(tail(out.length - 8), 0, out, out.length - 8, 8)
    out
  }

  /**
   * Where the FlatBuffer sits in a footer, once its sizes, header and CRCs checked out.
   * `thriftPrefixLength` is -1 in the final form (no Thrift).
   */
  final case class Extension(thriftPrefixLength: Int, flatBufferOffset: Int, flatBufferLength: Int,
      form: FooterForm = FooterForm.Private) {
    /** The original Thrift footer: the prefix plus a stop byte. */
    def thriftFooter(footer: Array[Byte]): Array[Byte] = {
      require(form != FooterForm.Final, "a final-form footer has no Thrift part")
      val out = java.util.Arrays.copyOf(footer, thriftPrefixLength + 1)
      out(thriftPrefixLength) = 0
      out
    }
  }

  /** What reading a footer backwards found. */
  sealed trait Located
  /** No extension of ours (no UUID match): use the Thrift footer as it is. */
  case object Absent extends Located
  /** Our UUID (or PAR3), but sizes, header or CRCs do not check out. */
  final case class Corrupt(reason: FallbackReason, form: FooterForm = FooterForm.Private) extends Located
  final case class Present(extension: Extension) extends Located

  /**
   * Finds the extension by reading `footer` backwards (stop byte, UUID, size CRC, size,
   * header, FlatBuffer CRC) without parsing any Thrift. Never reads outside `footer` and
   * never allocates from a size in it.
   */
  def locate(footer: Array[Byte]): Located = locate(footer, footer.length)

  /** [[locate]] on the footer `footer(0 until length)` (e.g. a tail, whose last 8 bytes are not the footer's). */
  def locate(footer: Array[Byte], length: Int): Located = {
    val f = length
    if (f < MinExtendedFooter || footer(f - 1) != 0) return Absent
    val uuidAt = f - 1 - 16
    val form = formOfUuid(footer, uuidAt) match {
      case Some(form) => form
      case None => return Absent
    }
    val sizeCrcAt = uuidAt - 4
    val sizeAt = sizeCrcAt - 4
    val fbCrcAt = sizeAt - 4
    if (crc32(footer, sizeAt, 4) != getIntLE(footer, sizeCrcAt)) {
      return Corrupt(FallbackReason.SizeCrcMismatch(sizeAt), form)
    }
    val k = getIntLE(footer, sizeAt).toLong & 0xFFFFFFFFL
    val sizeBytes = uleb128(k + TrailerSize)
    val fbAt = fbCrcAt.toLong - k
    val headerAt = fbAt - sizeBytes.length - FieldHeader.length
    if (k == 0 || headerAt < 0) {
      return Corrupt(FallbackReason.SizeOutOfBounds(sizeAt, k, fbCrcAt.toLong), form)
    }
    val h = headerAt.toInt
    val headerOk = java.util.Arrays.equals(footer, h, h + FieldHeader.length, FieldHeader, 0, FieldHeader.length) &&
      java.util.Arrays.equals(footer, h + FieldHeader.length, fbAt.toInt, sizeBytes, 0, sizeBytes.length)
    if (!headerOk) return Corrupt(FallbackReason.HeaderMismatch(h), form)
    if (crc32(footer, fbAt.toInt, k.toInt) != getIntLE(footer, fbCrcAt)) {
      return Corrupt(FallbackReason.FlatBufferCrcMismatch(fbAt.toInt, k.toInt), form)
    }
    Present(Extension(h, fbAt.toInt, k.toInt, form))
  }

  /**
   * Checks a final-form footer: `footer` is the FlatBuffer plus crc32(fb), K, crc32(K) (the
   * file's last 16 bytes less PAR3, and the K bytes before them). Size CRC, K against the
   * bytes available, FlatBuffer CRC; never reads outside `footer`.
   */
  def locateFinal(footer: Array[Byte]): Located = locateFinal(footer, footer.length)

  /** [[locateFinal]] on `footer(0 until length)`. */
  def locateFinal(footer: Array[Byte], length: Int): Located = {
    val f = length
    if (f < 12) return Corrupt(FallbackReason.SizeOutOfBounds(0, f.toLong, f.toLong), FooterForm.Final)
    val sizeAt = f - 8
    if (crc32(footer, sizeAt, 4) != getIntLE(footer, f - 4)) {
      return Corrupt(FallbackReason.SizeCrcMismatch(sizeAt), FooterForm.Final)
    }
    val k = getIntLE(footer, sizeAt).toLong & 0xFFFFFFFFL
    if (k == 0 || k != f - 12) {
      return Corrupt(FallbackReason.SizeOutOfBounds(sizeAt, k, (f - 12).toLong), FooterForm.Final)
    }
    if (crc32(footer, 0, k.toInt) != getIntLE(footer, f - 12)) {
      return Corrupt(FallbackReason.FlatBufferCrcMismatch(0, k.toInt), FooterForm.Final)
    }
    Present(Extension(-1, 0, k.toInt, FooterForm.Final))
  }

  /** Parquet tail: the last 8 bytes are the footer length (LE) and the magic. */
  def tail(footerLength: Int, magic: Array[Byte] = Magic): Array[Byte] = {
    val out = new Array[Byte](8)
    putIntLE(out, 0, footerLength)
    System.arraycopy(magic, 0, out, 4, 4)
    out
  }
}
