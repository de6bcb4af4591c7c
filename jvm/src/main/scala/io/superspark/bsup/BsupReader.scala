package io.superspark.bsup

import java.io.{BufferedInputStream, InputStream}

/** A control frame's message: its encoding byte (0 BSUP, 1 JSON, 2 SUP, 3 text, 4 binary) and body. */
private[superspark] final case class ControlMessage(encoding: Int, body: Array[Byte], offset: Long)

/**
 * A streaming Super Binary reader over a file (see [[ValueStream]]). Control frames go to
 * [[onControl]] (skipped when it is null).
 *
 * @param startOffset the offset in the file of the first byte of `input` (for messages)
 * @param fileLength  the file's length when known: frame lengths are checked against it
 * @param stopAt      stop at the first stream that starts at or after this offset (splits)
 */
private[superspark] final class BsupReader(
    input: InputStream,
    source: String,
    startOffset: Long = 0L,
    fileLength: Long = -1L,
    stopAt: Long = Long.MaxValue)
  extends ValueStream(new FrameReader(new StreamSource(input, startOffset, fileLength), source, stopAt))
  with AutoCloseable {

  var onControl: ControlMessage => Unit = null

  /** Offset in the file of the current stream's first frame. */
  def streamStart: Long = frames.streamStart

  /** Offset in the file of the current value (or of its compressed frame). */
  def valueFileOffset: Long = valueInputOffset

  override protected def onControl(c: Cursor): Unit = {
    val enc = c.byte()
    if (onControl != null) {
      onControl(ControlMessage(enc, java.util.Arrays.copyOfRange(c.buf, c.pos, c.end), frames.frameStart))
    }
  }

  override def close(): Unit = frames.src.close()
}

private[superspark] object BsupReader {
  /**
   * The offset of the first stream that starts at or after `from`, walking frame headers
   * from the beginning of `in` (positioned at offset 0) without reading payloads; -1 when
   * there is none. A stream starts at offset 0 and right after each end-of-stream marker.
   */
  def firstStreamStart(input: InputStream, from: Long, source: String, fileLength: Long): Long = {
    if (from <= 0) return 0L
    val frames = new FrameReader(new StreamSource(new BufferedInputStream(input, 1 << 12), 0L, fileLength), source)
    while (true) {
      frames.nextHeader() match {
        case FrameReader.End => return -1L
        case FrameReader.EndOfStream =>
          val pos = frames.src.offset
          if (pos >= from) return if (fileLength >= 0 && pos >= fileLength) -1L else pos
        case _ => frames.skipPayload()
      }
    }
    -1L
  }
}
