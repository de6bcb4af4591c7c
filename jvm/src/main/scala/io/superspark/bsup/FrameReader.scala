package io.superspark.bsup

import net.jpountz.lz4.{LZ4Exception, LZ4Factory}

/**
 * The one reader of Super Binary frames, over a file or a binary cell ([[ByteSource]]).
 * [[next]] reads the next frame: its kind ([[FrameReader.Types]], [[FrameReader.Values]],
 * [[FrameReader.Control]], [[FrameReader.EndOfStream]] or [[FrameReader.End]]) and, except
 * for the last two, its (decompressed) payload as [[payload]]. Every problem is a
 * [[BsupException]] naming `source` and a byte offset inside the input.
 *
 * Versions: a version 0 frame starts with its code byte (bit 7 clear); later versions put a
 * byte `0x80 | v` (v = 1 to 5) before every frame. [[version]] is the version of the current
 * stream (-1 before its first frame); the layer above decides which versions it reads.
 * Version 6 or later, and a version that changes inside a stream, are errors.
 *
 * @param stopAt       at a stream start at or after this offset, [[next]] returns `End` (splits)
 * @param freshBuffers decompress every compressed frame into a new array (values decoded from
 *                     a cell may point into it); otherwise one buffer is reused
 */
private[superspark] final class FrameReader(val src: ByteSource, val source: String, stopAt: Long = Long.MaxValue,
    freshBuffers: Boolean = false) {
  import FrameReader._

  /** The Super Binary version of the current stream, -1 before its first frame. */
  var version: Int = -1
  /** Offset in the input of the current frame (of its version byte when it has one). */
  var frameStart: Long = 0L
  /** Offset in the input of the current stream's first frame. */
  var streamStart: Long = src.offset
  var compressed: Boolean = false
  /** The kind of the current frame. */
  var kind: Int = End
  /** The current frame's payload length on the wire (after the header). */
  var length: Int = 0
  /** The current frame's (decompressed) payload; for control frames it includes the encoding byte. */
  var payload: Cursor = _

  private var lowBits = 0
  private var codeByte = 0
  private var payloadBase = 0L // offset in the input of payload.buf(0) (uncompressed frames)
  private var inflated = new Array[Byte](0)
  private val header = new Array[Byte](Varint.MaxUvarintBytes)

  /** Offset in the input of position `p` of [[payload]]'s buffer (of the frame, when compressed). */
  def inputOffset(p: Int): Long = if (compressed) frameStart else payloadBase + p

  /** Errors at a position of [[payload]]'s buffer. */
  val where: Cursor.Where = new Cursor.Where {
    def error(p: Int, msg: String): BsupException =
      if (compressed) new BsupException(source, frameStart, s"$msg (at byte $p of the frame's decompressed payload)")
      else new BsupException(source, payloadBase + p, msg)
    /** Values are decoded by the rules of the stream's version (a union's selector, type values). */
    override def version: Int = math.max(FrameReader.this.version, 0)
  }

  def fail(at: Long, msg: String): Nothing = throw new BsupException(source, at, msg)

  /** Starts over at the beginning of the source (after it was reset). */
  def restart(): Unit = { version = -1; streamStart = src.offset; kind = End; payload = null }

  /** Reads the next frame and its payload; returns its kind. */
  def next(): Int = {
    nextHeader()
    if (kind == Types || kind == Values || kind == Control) readPayload()
    kind
  }

  /**
   * Reads the next frame's header only (its kind, [[version]] and [[length]]); then call
   * [[readPayload]] or [[skipPayload]].
   */
  def nextHeader(): Int = {
    frameStart = src.offset
    compressed = false
    payload = null
    if (version < 0 && frameStart >= stopAt) { kind = End; return kind }
    var code = src.read()
    if (code < 0) { kind = End; return kind }
    if (code == EndOfStreamByte) {
      version = -1
      streamStart = src.offset
      kind = EndOfStream
      return kind
    }
    var frameVersion = 0
    if ((code & 0x80) != 0) {
      frameVersion = code & 0x7f
      if (frameVersion == 0 || frameVersion > MaxVersion) {
        fail(frameStart, s"unsupported Super Binary version $frameVersion (byte 0x${Integer.toHexString(code)}; " +
          s"versions 0 to $MaxVersion exist)")
      }
      code = src.read()
      if (code < 0) fail(frameStart, s"truncated frame: version byte $frameVersion without a frame")
      if ((code & 0x80) != 0) fail(frameStart + 1, f"bad frame code 0x$code%02x after a version byte")
    }
    if (version >= 0 && frameVersion != version) {
      fail(frameStart, s"Super Binary version changes from $version to $frameVersion inside a stream " +
        s"(the stream starts at byte $streamStart)")
    }
    val frameType = (code >> 4) & 3
    if (frameType == 3) fail(frameStart, f"bad frame code 0x$code%02x")
    codeByte = code
    val high = headerUvarint()
    if (!Varint.fits(high, MaxFrameLength >> 4)) {
      fail(frameStart, s"frame length ${java.lang.Long.toUnsignedString(high)}*16 is too large")
    }
    length = ((high << 4) | (code & 0xf)).toInt
    val left = src.remaining
    if (left >= 0 && length > left) {
      fail(frameStart, s"frame length $length runs past the end of the ${src.what} ($left bytes left)")
    }
    version = frameVersion
    kind = frameType
    kind
  }

  /** The frame length's high bits: a uvarint read byte by byte, by the one uvarint rule. */
  private def headerUvarint(): Long = {
    var n = 0
    var more = true
    while (more && n < header.length) {
      val b = src.read()
      if (b < 0) fail(frameStart, "bad frame length: truncated uvarint")
      header(n) = b.toByte
      n += 1
      more = (b & 0x80) != 0
    }
    val len = Varint.uvarintLength(header, 0, n)
    if (len < 0) fail(frameStart, s"bad frame length: ${Varint.uvarintProblem(len)}")
    Varint.uvarintValue(header, 0, len)
  }

  def skipPayload(): Unit = {
    val at = src.offset
    val s = src.skip(length)
    if (s < length) fail(at, s"truncated frame: expected $length bytes, found $s")
  }

  /** Reads (and decompresses) the current frame's payload into [[payload]]. */
  def readPayload(): Unit = {
    val at = src.offset
    val got = src.take(length)
    if (got < length) fail(frameStart, s"truncated frame: expected $length bytes, found $got")
    val raw = src.buffer
    val start = src.takenAt
    payloadBase = at - start
    payload = new Cursor(raw, start, start + length, where)
    if ((codeByte & 0x40) != 0) inflate()
  }

  private def inflate(): Unit = {
    val c = payload
    val format = c.byte()
    if (format != 0) c.fail(f"unknown compression format 0x$format%02x", c.pos - 1)
    val sizeAt = c.pos
    val usize = c.uvarint()
    val zlen = c.remaining
    // LZ4 expands at most ~255:1: never allocate more than the compressed bytes can back.
    if (!Varint.fits(usize, math.min(255L * zlen + 64, MaxFrameLength))) {
      c.fail(s"declared uncompressed size ${java.lang.Long.toUnsignedString(usize)} is impossible for $zlen " +
        "compressed bytes", sizeAt)
    }
    val size = usize.toInt
    val out =
      if (freshBuffers) new Array[Byte](size)
      else {
        if (inflated.length < size) inflated = new Array[Byte](math.max(size.toLong, inflated.length * 2L).min(MaxFrameLength).toInt)
        inflated
      }
    val n =
      try lz4.safeDecompressor().decompress(c.buf, c.pos, zlen, out, 0, size)
      catch { case e: LZ4Exception => fail(frameStart, s"corrupt LZ4 block: ${e.getMessage}") }
    if (n != size) fail(frameStart, s"LZ4 block decompressed to $n bytes, its header says $size")
    compressed = true
    payload = new Cursor(out, 0, size, where)
  }
}

private[superspark] object FrameReader {
  final val Types = 0
  final val Values = 1
  final val Control = 2
  final val EndOfStream = 3
  final val End = 4

  final val EndOfStreamByte = 0xff
  /** The latest Super Binary version (SuperDB's current code). */
  final val MaxVersion = 5
  /** Largest frame payload, on the wire or decompressed. */
  final val MaxFrameLength: Long = Int.MaxValue - 16

  private lazy val lz4 = LZ4Factory.fastestInstance()

  /** A frame reader over the bytes of one cell (offsets are offsets in the cell). */
  def overArray(bytes: Array[Byte], source: String): FrameReader =
    new FrameReader(new ArraySource(bytes), source, freshBuffers = true)
}
