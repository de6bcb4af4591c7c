package io.superspark.bsup.functions

import io.superspark.bsup._
import net.jpountz.lz4.{LZ4Exception, LZ4Factory}

/**
 * Walks the frames of Super Binary streams held in memory (one binary cell), one value at a
 * time, like [[BsupReader]] does for files: typedefs go to the shared [[TypeContext]], values
 * are left undecoded as `buf[valueOffset, valueOffset + valueLength)` (-1: null) for the
 * shared value readers. Error offsets are byte offsets in the cell.
 *
 * One decoder serves every cell of a column: [[reset]] points it at the next cell. The type
 * context is kept between cells; when a cell's first types frame is byte for byte the one of
 * the previous cell (a column of values of one type), its typedefs are not decoded again, the
 * types stay the same objects and [[contextVersion]] does not change, so callers keep the
 * value readers they compiled per type id.
 */
final class CellDecoder(source: String) {
  import CellDecoder._

  val context = new TypeContext

  /** Changes whenever the type ids of [[context]] may mean other types. */
  var contextVersion: Int = 0

  // The (decompressed) payload of the first types frame the context was built from, if the
  // context holds exactly its typedefs.
  private var typesKey: Array[Byte] = null

  private var cell: Array[Byte] = Array.emptyByteArray
  private var pos = 0
  private var end = 0
  private var values: Cursor = null
  private var streamStart = 0
  private var typesFrames = 0
  private var frameStart = 0
  private var frameCompressed = false

  // The current value.
  var buf: Array[Byte] = _
  var valueType: SuperType = _
  var typeId: Int = -1
  var valueOffset: Int = 0
  var valueLength: Int = -1
  /** Streams ended so far in this cell (its end-of-stream markers). */
  var streamNumber: Int = 0
  /** True when the cell's last stream ended with an end-of-stream marker. */
  var endedStream: Boolean = false

  val where: Cursor.Where = new Cursor.Where {
    def error(p: Int, msg: String): BsupException =
      if (frameCompressed) {
        new BsupException(source, frameStart, s"$msg (at byte $p of the frame's decompressed payload)")
      } else new BsupException(source, p, msg)
    override def version: Int = context.version
  }

  /** Offset in the cell of the current value (or of its compressed frame). */
  def valueCellOffset: Int = if (frameCompressed) frameStart else valueOffset

  /** The cursor over the current values frame (its buffer and error positions). */
  def frameCursor: Cursor = values

  def reset(bytes: Array[Byte]): Unit = {
    cell = bytes
    pos = 0
    end = bytes.length
    values = null
    streamStart = 0
    typesFrames = 0
    streamNumber = 0
    endedStream = false
    frameCompressed = false
  }

  private def fail(at: Int, msg: String): Nothing = throw new BsupException(source, at, msg)

  /** Advances to the next value of the cell; false at its end. */
  def next(): Boolean = {
    while (true) {
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
      if (pos >= end) return false
      readFrame()
    }
    false
  }

  private def readFrame(): Unit = {
    frameStart = pos
    frameCompressed = false
    var code = cell(pos) & 0xff
    pos += 1
    if (code == EndOfStream) {
      streamNumber += 1
      streamStart = pos
      typesFrames = 0
      endedStream = true
      return
    }
    endedStream = false
    val version = if ((code & 0x80) != 0) code & 0x7f else 0
    if (frameStart == streamStart && version != context.version) clearContext()
    BsupVersion.checkFrame(version, frameStart == streamStart, context, fail(frameStart, _))
    if (version > 0) {
      if (pos >= end) fail(frameStart, s"truncated frame after the version byte of version $version")
      code = cell(pos) & 0xff
      pos += 1
    }
    val frameType = (code >> 4) & 3
    if ((code & 0x80) != 0 || frameType == 3) fail(frameStart, f"bad frame code 0x$code%02x")
    val high = frameLengthHigh()
    if (high > (Int.MaxValue >> 4)) fail(frameStart, s"frame length ${high * 16} is too large")
    val length = (high << 4 | (code & 0xf)).toInt
    if (length > end - pos) {
      fail(frameStart, s"frame length $length runs past the end of the cell (${end - pos} bytes left)")
    }
    val payloadStart = pos
    pos += length
    // The usual cell of a column of one type: the same typedefs as the previous cell.
    if (frameType == 0 && (code & 0x40) == 0 && typesFrames == 0 && typesKey != null && typesKey.length == length &&
        java.util.Arrays.equals(typesKey, 0, length, cell, payloadStart, payloadStart + length)) {
      typesFrames = 1
      return
    }
    var cursor = new Cursor(cell, payloadStart, payloadStart + length, where)
    if ((code & 0x40) != 0) {
      val format = cursor.byte()
      if (format != 0) cursor.fail(f"unknown compression format 0x$format%02x", payloadStart)
      val sizeAt = cursor.pos
      val usize = cursor.uvarint()
      val zlen = cursor.remaining
      // LZ4 expands at most ~255:1: never allocate more than the compressed bytes can back.
      if (usize > 255L * zlen + 64 || usize > Int.MaxValue - 16) {
        cursor.fail(s"declared uncompressed size $usize is impossible for $zlen compressed bytes", sizeAt)
      }
      frameCompressed = true
      // A new array per compressed frame: decoded strings may point into it.
      val out = new Array[Byte](usize.toInt)
      val n =
        try lz4.safeDecompressor().decompress(cell, cursor.pos, zlen, out, 0, out.length)
        catch { case e: LZ4Exception => fail(frameStart, s"corrupt LZ4 block: ${e.getMessage}") }
      if (n != out.length) fail(frameStart, s"LZ4 block decompressed to $n bytes, its header says ${out.length}")
      cursor = new Cursor(out, 0, out.length, where)
    }
    frameType match {
      case 0 => readTypes(cursor)
      case 1 =>
        // A stream without types frames so far has an empty context.
        if (typesFrames == 0 && context.size > 0) clearContext()
        values = cursor
      case 2 => // Control frames carry no values.
    }
  }

  /** The high bits of a frame length: a uvarint of at most 10 bytes at `pos`. */
  private def frameLengthHigh(): Long = {
    var result = 0L
    var shift = 0
    while (true) {
      if (pos >= end) fail(frameStart, "bad frame length: truncated uvarint")
      val b = cell(pos) & 0xff
      pos += 1
      if (shift == 63 && b > 1) fail(frameStart, "bad frame length: uvarint longer than 10 bytes or over 64 bits")
      result |= (b & 0x7fL) << shift
      if ((b & 0x80) == 0) return result
      shift += 7
    }
    result
  }

  private def clearContext(): Unit = {
    context.reset()
    typesKey = null
    contextVersion += 1
  }

  private def readTypes(c: Cursor): Unit = {
    typesFrames += 1
    if (typesFrames == 1) {
      val len = c.remaining
      if (typesKey != null && typesKey.length == len &&
          java.util.Arrays.equals(typesKey, 0, len, c.buf, c.pos, c.end)) {
        c.pos = c.end
        return
      }
      clearContext()
      context.readTypedefs(c)
      typesKey = java.util.Arrays.copyOfRange(c.buf, c.end - len, c.end)
    } else {
      // The context now holds more than one frame's typedefs.
      typesKey = null
      contextVersion += 1
      context.readTypedefs(c)
    }
  }
}

object CellDecoder {
  final val EndOfStream = 0xff

  private lazy val lz4 = LZ4Factory.fastestInstance()
}
