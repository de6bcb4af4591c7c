package io.superspark.bsup.functions

import io.superspark.bsup._

/**
 * The Super Binary streams held in one binary cell, one value at a time, read by the shared
 * [[FrameReader]] and [[ValueStream]] (error offsets are byte offsets in the cell).
 *
 * One decoder serves every cell of a column: [[reset]] points it at the next cell. The type
 * context is kept between cells; when a cell's first types frame is byte for byte the one of
 * the previous cell (a column of values of one type), its typedefs are not decoded again, the
 * types stay the same objects and [[contextVersion]] does not change, so callers keep the
 * value readers they compiled per type id.
 */
private[superspark] final class CellDecoder(source: String, cells: ArraySource = new ArraySource(Array.emptyByteArray))
  extends ValueStream(new FrameReader(cells, source, freshBuffers = true)) {

  /** Changes whenever the type ids of [[context]] may mean other types. */
  var contextVersion: Int = 0

  // The (decompressed) payload of the first types frame the context was built from, if the
  // context holds exactly its typedefs.
  private var typesKey: Array[Byte] = null
  private var typesFrames = 0

  /** True when the cell's last stream ended with an end-of-stream marker. */
  var endedStream: Boolean = false

  /** Offset in the cell of the current value (or of its compressed frame). */
  def valueCellOffset: Long = valueInputOffset

  def reset(bytes: Array[Byte]): Unit = {
    cells.reset(bytes)
    restart()
    typesFrames = 0
    endedStream = false
    prefix = null
  }

  // The first-value shortcut. `prefix`: the bytes before the first values frame of the last
  // cell read by [[first]], when they were exactly one types frame (whose typedefs the context
  // holds) and the values frame that followed was not compressed; else null.
  private var prefix: Array[Byte] = null
  private var typesStart = -1L
  private var typesEnd = -1L

  /**
   * [[reset]] to `bytes` and [[next]]: true when the cell has a first value. A cell that
   * starts with the same bytes as the last one up to its first values frame (a column of
   * values of one type: the same types frame in every cell) is not read frame by frame: its
   * values frame header is parsed here, and anything but a plain values frame holding a value
   * goes the general way. The decoder is left in the state [[next]] would leave it in.
   */
  def first(bytes: Array[Byte]): Boolean = {
    val p = prefix
    if (p != null && bytes.length > p.length &&
        java.util.Arrays.equals(bytes, 0, p.length, p, 0, p.length) && firstShortcut(bytes, p.length)) {
      return true
    }
    reset(bytes)
    val found = next()
    if (found && typesFrames == 1 && typesKey != null && streamNumber == 0 && typesStart == 0 &&
        !frames.compressed && frames.frameStart == typesEnd && typesEnd <= Int.MaxValue) {
      prefix = java.util.Arrays.copyOfRange(bytes, 0, typesEnd.toInt)
    }
    found
  }

  /** The values frame at `bytes[at]` and its first value, when plain (see [[first]]). */
  private def firstShortcut(bytes: Array[Byte], at: Int): Boolean = {
    val end = bytes.length
    var p = at
    val v = frames.version
    if (v > 0) {
      if ((bytes(p) & 0xff) != (0x80 | v)) return false
      p += 1
      if (p >= end) return false
    }
    val code = bytes(p)
    // Not a version byte, a values frame, not compressed.
    if ((code & 0x80) != 0 || ((code >> 4) & 3) != FrameReader.Values || (code & 0x40) != 0) return false
    val n = Varint.uvarintLength(bytes, p + 1, end)
    if (n < 0) return false
    val high = Varint.uvarintValue(bytes, p + 1, n)
    if (!Varint.fits(high, FrameReader.MaxFrameLength >> 4)) return false
    val length = (high << 4) | (code & 0xf)
    val start = p + 1 + n
    if (length <= 0 || length > end - start) return false
    val stop = start + length.toInt
    // As the general way: the frame's cursor, its first value's type and tag.
    val c = new Cursor(bytes, start, stop, frames.where)
    cells.reset(bytes)
    cells.skip(stop)
    values = c
    typesFrames = 1
    endedStream = false
    typeId = c.id()
    valueType = context.resolve(c, typeId, start)
    valueLength = c.tag()
    valueOffset = c.pos
    if (valueLength > 0) c.pos += valueLength
    buf = bytes
    true
  }

  override protected def onEndOfStream(): Unit = {
    // The context is kept: the next stream's first types frame may be the same.
    typesFrames = 0
    endedStream = true
  }

  override protected def onValues(): Unit = {
    endedStream = false
    // A stream without types frames so far has an empty context.
    if (typesFrames == 0 && context.size > 0) clearContext()
  }

  override protected def onControl(c: Cursor): Unit = endedStream = false

  // Type ids of another version mean other types: the kept context is dropped.
  override protected def onVersionChange(v: Int): Unit = { clearContext(); context.version = v }

  private def clearContext(): Unit = {
    context.reset()
    typesKey = null
    contextVersion += 1
  }

  override protected def onTypes(c: Cursor): Unit = {
    endedStream = false
    typesFrames += 1
    if (typesFrames == 1) {
      typesStart = frames.frameStart
      typesEnd = cells.offset
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
