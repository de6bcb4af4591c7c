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
