package io.superspark.bsup

/**
 * The values of Super Binary streams, one at a time, over the one [[FrameReader]]: types
 * frames update [[context]], an end-of-stream marker resets it, and each value is left
 * *undecoded* as `buf[valueOffset, valueOffset + valueLength)` (a length of -1 is a null)
 * with its type [[valueType]], so callers decode only what they need. The file reader
 * ([[BsupReader]]) and the cell decoder (`functions.CellDecoder`) are the two kinds.
 */
private[superspark] abstract class ValueStream(val frames: FrameReader) {
  val context = new TypeContext

  /** The current values frame (a subclass may point it at a frame it parsed itself). */
  protected var values: Cursor = null

  // The current value.
  var buf: Array[Byte] = _
  var valueType: SuperType = _
  var typeId: Int = -1
  var valueOffset: Int = 0
  var valueLength: Int = -1
  /** Incremented at each end of stream: stream-local type ids are only valid within one. */
  var streamNumber: Int = 0

  def source: String = frames.source
  def where: Cursor.Where = frames.where

  /** The cursor over the current values frame (its buffer and error positions; not its pos). */
  def frameCursor: Cursor = values

  /** A cursor over the current value's body (only when it is not null). */
  def valueCursor: Cursor = new Cursor(buf, valueOffset, valueOffset + math.max(valueLength, 0), where)

  /** Offset in the input of the current value (or of its compressed frame). */
  def valueInputOffset: Long = frames.inputOffset(valueOffset)

  /** Decodes the current value to the generic model (see `Values.scala`). */
  def decode(): Any =
    if (valueLength < 0) null else ValueCodec.decodeBody(valueType, buf, valueOffset, valueLength, valueCursor)

  def value(): Value = Value(valueType, decode())

  /**
   * Checks the current value by every rule [[decode]] applies, with the same errors, without
   * building it ([[ValueCodec.checkBody]]).
   */
  def check(): Unit =
    if (valueLength >= 0) ValueCodec.checkBody(valueType, buf, valueOffset, valueLength, values)

  /** Forgets the current frame (the source was pointed at new bytes). */
  protected def restart(): Unit = { values = null; streamNumber = 0; frames.restart() }

  /** Advances to the next value; false at the end of the input (or of the split). */
  def next(): Boolean = {
    while (true) {
      if (values != null && values.hasMore) {
        val at = values.pos
        typeId = values.id()
        valueType = context.resolve(values, typeId, at)
        valueLength = values.tag()
        valueOffset = values.pos
        if (valueLength > 0) values.pos += valueLength
        buf = values.buf
        return true
      }
      values = null
      frames.next() match {
        case FrameReader.End => return false
        case FrameReader.EndOfStream =>
          streamNumber += 1
          onEndOfStream()
        case FrameReader.Types =>
          checkVersion()
          onTypes(frames.payload)
        case FrameReader.Values =>
          checkVersion()
          onValues()
          values = frames.payload
        case FrameReader.Control =>
          checkVersion()
          onControl(frames.payload)
      }
    }
    false
  }

  /**
   * The versions this reader decodes ([[BsupVersion]]): 0 and 5. The frame core recognises
   * versions 0 to 5 and refuses a change inside a stream; the type context takes the rules
   * of the stream's version.
   */
  protected def checkVersion(): Unit = {
    val v = frames.version
    if (v != context.version) {
      BsupVersion.unsupportedReason(v).foreach(frames.fail(frames.frameStart, _))
      onVersionChange(v)
    }
  }

  /** A stream of another version than the previous one starts. */
  protected def onVersionChange(v: Int): Unit = { context.reset(); context.version = v }

  protected def onEndOfStream(): Unit = context.reset()
  protected def onTypes(c: Cursor): Unit = context.readTypedefs(c)
  protected def onValues(): Unit = ()
  protected def onControl(c: Cursor): Unit = ()
}
