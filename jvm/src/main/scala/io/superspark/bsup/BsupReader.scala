package io.superspark.bsup

import java.io.{BufferedInputStream, EOFException, InputStream}

import net.jpountz.lz4.{LZ4Exception, LZ4Factory}

/** A control frame's message: its encoding byte (0 BSUP, 1 JSON, 2 SUP, 3 text, 4 binary) and body. */
final case class ControlMessage(encoding: Int, body: Array[Byte], offset: Long)

/**
 * A streaming Super Binary reader. [[next]] advances to the next value; the value is then
 * available *undecoded* as `buf[valueOffset, valueOffset + valueLength)` (a length of -1 is a
 * null) with its type [[valueType]], so callers decode only what they need ([[decode]] decodes
 * all of it). Types frames update the stream's [[TypeContext]]; an end-of-stream marker resets
 * it; control frames go to [[onControl]] (skipped when it is null); frames with the version
 * bit set are skipped by their length.
 *
 * @param startOffset the offset in the file of the first byte of `input` (for messages)
 * @param fileLength  the file's length when known: frame lengths are checked against it
 * @param stopAt      stop at the first stream that starts at or after this offset (splits)
 */
final class BsupReader(
    input: InputStream,
    val source: String,
    startOffset: Long = 0L,
    fileLength: Long = -1L,
    stopAt: Long = Long.MaxValue) extends AutoCloseable {

  import BsupReader._

  private val in = input match {
    case b: BufferedInputStream => b
    case other => new BufferedInputStream(other, 1 << 16)
  }

  /** Offset in the file of the next byte to read from `in`. */
  private var pos: Long = startOffset

  val context = new TypeContext
  var onControl: ControlMessage => Unit = null

  private var raw: Array[Byte] = new Array[Byte](1 << 16)
  private var payload: Array[Byte] = new Array[Byte](1 << 16)
  private var values: Cursor = null
  private var atStreamStart = true
  private var done = false

  // The current value.
  var buf: Array[Byte] = _
  var valueType: SuperType = _
  var typeId: Int = -1
  var valueOffset: Int = 0
  var valueLength: Int = -1
  /** Incremented at each end of stream: stream-local type ids are only valid within one. */
  var streamNumber: Int = 0

  /** Offset in the file of the current stream's first frame. */
  var streamStart: Long = startOffset

  private var frameStart: Long = 0L
  private var frameCompressed = false
  private var payloadFileOffset: Long = 0L

  val where: Cursor.Where = new Cursor.Where {
    def error(p: Int, msg: String): BsupException =
      if (frameCompressed) {
        new BsupException(source, frameStart, s"$msg (at byte $p of the frame's decompressed payload)")
      } else new BsupException(source, payloadFileOffset + p, msg)
    override def version: Int = context.version
  }

  /** Offset in the file of the current value (or of its compressed frame). */
  def valueFileOffset: Long = if (frameCompressed) frameStart else payloadFileOffset + valueOffset

  /** A cursor over the current value's body (only when it is not null). */
  def valueCursor: Cursor = new Cursor(buf, valueOffset, valueOffset + math.max(valueLength, 0), where)

  /** A cursor for error reporting positioned at the current value. */
  def errorCursor: Cursor = new Cursor(buf, valueOffset, valueOffset, where)

  /** The cursor over the current values frame (its buffer and error positions; not its pos). */
  def frameCursor: Cursor = values

  /** Decodes the current value to the generic model (see `Values.scala`). */
  def decode(): Any =
    if (valueLength < 0) null else ValueCodec.decodeBody(valueType, buf, valueOffset, valueLength, valueCursor)

  def value(): Value = Value(valueType, decode())

  private def fail(at: Long, msg: String): Nothing = throw new BsupException(source, at, msg)

  private def readByte(): Int = {
    val b = in.read()
    if (b >= 0) pos += 1
    b
  }

  private def readUvarint(what: String): Long = {
    val start = pos
    var result = 0L
    var shift = 0
    while (true) {
      val b = readByte()
      if (b < 0) fail(start, s"truncated $what")
      if (shift == 63 && (b & 0x80) != 0) fail(start, s"$what is a uvarint longer than 10 bytes")
      if (shift == 63 && b > 1) fail(start, s"$what overflows 64 bits")
      result |= (b & 0x7fL) << shift
      if ((b & 0x80) == 0) return result
      shift += 7
    }
    result
  }

  /** Reads exactly `n` bytes into `raw`, growing it only as far as bytes actually arrive. */
  private def readFully(n: Int): Unit = {
    val start = pos
    if (raw.length < math.min(n, 1 << 20)) raw = new Array[Byte](math.min(n, 1 << 20))
    var got = 0
    while (got < n) {
      if (got == raw.length) raw = java.util.Arrays.copyOf(raw, math.min(n.toLong, raw.length * 2L).toInt)
      val r = in.read(raw, got, math.min(n, raw.length) - got)
      if (r < 0) fail(start, s"truncated frame: expected $n bytes, found $got")
      got += r
      pos += r
    }
  }

  /** Advances to the next value; false at the end of the input (or of the split). */
  def next(): Boolean = {
    while (!done) {
      if (values != null && values.hasMore) {
        val at = values.pos
        typeId = values.id()
        valueType = context.resolve(values, typeId, at)
        valueLength = ValueCodec.readTag(values)
        valueOffset = values.pos
        if (valueLength > 0) values.pos += valueLength
        buf = values.buf
        return true
      }
      values = null
      readFrame()
    }
    false
  }

  private def readFrame(): Unit = {
    frameStart = pos
    frameCompressed = false
    if (atStreamStart && frameStart >= stopAt) { done = true; return }
    var code = readByte()
    if (code < 0) { done = true; return }
    if (code == EndOfStream) {
      context.reset()
      streamNumber += 1
      atStreamStart = true
      streamStart = pos
      return
    }
    val version = if ((code & 0x80) != 0) code & 0x7f else 0
    BsupVersion.checkFrame(version, atStreamStart, context, fail(frameStart, _))
    if (version > 0) {
      code = readByte()
      if (code < 0) fail(frameStart, s"truncated frame after the version byte of version $version")
    }
    val frameType = (code >> 4) & 3
    if ((code & 0x80) != 0 || frameType == 3) fail(frameStart, f"bad frame code 0x$code%02x")
    val high = readUvarint("frame length")
    if (high > (Int.MaxValue >> 4)) fail(frameStart, s"frame length ${high * 16} is too large")
    val length = (high << 4 | (code & 0xf)).toInt
    if (fileLength >= 0 && pos + length > fileLength) {
      fail(frameStart, s"frame length $length runs past the end of the file (${fileLength - pos} bytes left)")
    }
    atStreamStart = false
    readFully(length)
    payloadFileOffset = pos - length
    var data = raw
    var size = length
    if ((code & 0x40) != 0) {
      frameCompressed = true
      val c = new Cursor(raw, 0, length, where)
      val format = c.byte()
      if (format != 0) c.fail(f"unknown compression format 0x$format%02x", 0)
      val sizeAt = c.pos
      val usize = c.uvarint()
      val zlen = c.remaining
      // LZ4 expands at most ~255:1: never allocate more than the compressed bytes can back.
      if (usize > 255L * zlen + 64 || usize > Int.MaxValue - 16) {
        c.fail(s"declared uncompressed size $usize is impossible for $zlen compressed bytes", sizeAt)
      }
      size = usize.toInt
      if (payload.length < size) payload = new Array[Byte](math.max(size, payload.length * 2).min(Int.MaxValue - 16))
      val n =
        try lz4.safeDecompressor().decompress(raw, c.pos, zlen, payload, 0, size)
        catch { case e: LZ4Exception => fail(frameStart, s"corrupt LZ4 block: ${e.getMessage}") }
      if (n != size) fail(frameStart, s"LZ4 block decompressed to $n bytes, its header says $size")
      data = payload
    }
    val cursor = new Cursor(data, 0, size, where)
    frameType match {
      case 0 => context.readTypedefs(cursor)
      case 1 => values = cursor
      case 2 =>
        val enc = cursor.byte()
        if (onControl != null) {
          onControl(ControlMessage(enc, java.util.Arrays.copyOfRange(data, 1, size), frameStart))
        }
    }
  }

  private def skipBytes(n: Long): Unit = {
    val skipped = BsupReader.skipUpTo(in, n)
    pos += skipped
    if (skipped < n) fail(pos, "truncated frame")
  }

  override def close(): Unit = in.close()
}

object BsupReader {
  final val EndOfStream = 0xff

  private lazy val lz4 = LZ4Factory.fastestInstance()

  /** Skips `n` bytes of `in`; returns how many it could skip (less than `n` only at its end). */
  private def skipUpTo(in: InputStream, n: Long): Long = {
    var left = n
    while (left > 0) {
      val s = in.skip(left)
      if (s > 0) left -= s
      else if (in.read() >= 0) left -= 1
      else return n - left
    }
    n
  }

  /**
   * The offset of the first stream that starts at or after `from`, walking frame headers
   * from the beginning of `in` (positioned at offset 0) without reading payloads; -1 when
   * there is none. A stream starts at offset 0 and right after each end-of-stream marker.
   */
  def firstStreamStart(input: InputStream, from: Long, source: String, fileLength: Long): Long = {
    if (from <= 0) return 0L
    val in = new BufferedInputStream(input, 1 << 12)
    var pos = 0L
    def fail(at: Long, msg: String): Nothing = throw new BsupException(source, at, msg)
    while (true) {
      val frame = pos
      val code = in.read()
      if (code < 0) return -1L
      pos += 1
      if (code == EndOfStream) {
        if (pos >= from) return if (pos >= fileLength && fileLength >= 0) -1L else pos
      } else {
        // A version byte (version 1 on) precedes the frame's code byte.
        val frameCode = if ((code & 0x80) == 0) code else {
          val c = in.read()
          if (c < 0) fail(frame, "truncated frame after its version byte")
          pos += 1
          c
        }
        var high = 0L; var shift = 0; var more = true
        while (more) {
          val b = in.read()
          if (b < 0) fail(frame, "truncated frame length")
          pos += 1
          high |= (b & 0x7fL) << shift
          more = (b & 0x80) != 0
          shift += 7
          if (shift > 63) fail(frame, "frame length is a uvarint longer than 10 bytes")
        }
        if (high < 0 || high > (Long.MaxValue >> 5)) fail(frame, "frame length too large")
        val left = (high << 4) | (frameCode & 0xf)
        if (fileLength >= 0 && pos + left > fileLength) fail(frame, s"frame length $left runs past the end of the file")
        val skipped = skipUpTo(in, left)
        pos += skipped
        if (skipped < left) fail(pos, "truncated frame")
      }
    }
    -1L
  }
}
