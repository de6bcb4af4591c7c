package io.superspark.bsup

import java.nio.charset.{CharacterCodingException, CodingErrorAction, StandardCharsets}

/**
 * A bounds-checked reader over `buf[pos, end)`. Every failure throws [[BsupException]] with
 * the position translated by `where` (a file offset, or a frame offset plus a payload offset).
 */
private[superspark] final class Cursor(val buf: Array[Byte], var pos: Int, var end: Int, val whereOf: Cursor.Where) {
  /** How many containers deep the bytes lie inside the value being decoded (see `ValueCodec.sub`). */
  var depth: Int = 0
  /** The cursor `ValueCodec.sub` reuses for this one's containers (one per level, not one per value). */
  var child: Cursor = null

  def remaining: Int = end - pos
  def hasMore: Boolean = pos < end

  def fail(msg: String, at: Int = pos): Nothing = throw whereOf.error(at, msg)

  def byte(): Int = {
    if (pos >= end) fail("unexpected end of data")
    val b = buf(pos) & 0xff
    pos += 1
    b
  }

  /** A uvarint ([[Varint.uvarintLength]]'s rule); unsigned: negative means 2^63 or more. */
  def uvarint(): Long = {
    // One byte (most ids and tags): a uvarint by every rule.
    if (pos < end && buf(pos) >= 0) { val v = buf(pos).toLong; pos += 1; return v }
    val n = Varint.uvarintLength(buf, pos, end)
    if (n < 0) fail(Varint.uvarintProblem(n))
    val v = Varint.uvarintValue(buf, pos, n)
    pos += n
    v
  }

  /** A value tag: returns the body length (checked against the bytes left), or -1 for null. */
  def tag(): Int = {
    val start = pos
    val v = uvarint()
    val len = Varint.tagBodyLength(v, remaining)
    if (len == Varint.TagTooLong) {
      fail(s"value length ${java.lang.Long.toUnsignedString(v - 1)} runs past the end of its container " +
        s"($remaining bytes left)", start)
    }
    len
  }

  /**
   * A uvarint length or count, checked against the bytes that are left: each of the `n`
   * items takes at least `minBytes` bytes, so nothing is ever sized from an unchecked number.
   */
  def count(what: String, minBytes: Int = 1): Int = {
    val start = pos
    val n = uvarint()
    if (!Varint.fits(n, remaining.toLong / minBytes)) {
      fail(s"$what ${java.lang.Long.toUnsignedString(n)} is larger than the $remaining bytes left", start)
    }
    n.toInt
  }

  def id(): Int = {
    val start = pos
    val n = uvarint()
    if (!Varint.fits(n, Int.MaxValue)) fail(s"type id ${java.lang.Long.toUnsignedString(n)} out of range", start)
    n.toInt
  }

  def skip(n: Int): Unit = {
    if (n < 0 || n > remaining) fail(s"length $n runs past the end of its frame")
    pos += n
  }

  /** A counted UTF-8 string (field, enum symbol or type name), validated. */
  def countedString(what: String): String = {
    val start = pos
    val n = count(s"$what length")
    val s = Cursor.utf8(buf, pos, n).getOrElse(fail(s"invalid UTF-8 in $what", start))
    pos += n
    s
  }
}

private[superspark] object Cursor {
  /** Maps a position in a buffer to an error message with a byte offset. */
  trait Where {
    def error(pos: Int, msg: String): BsupException
    /** The Super Binary version of the stream the bytes come from (its value rules differ). */
    def version: Int = 0
  }

  /** Strict UTF-8 decoding; None on malformed input. */
  def utf8(b: Array[Byte], off: Int, len: Int): Option[String] = {
    // Fast path for ASCII.
    var i = 0
    while (i < len && b(off + i) >= 0) i += 1
    if (i == len) return Some(new String(b, off, len, StandardCharsets.ISO_8859_1))
    val dec = StandardCharsets.UTF_8.newDecoder()
      .onMalformedInput(CodingErrorAction.REPORT).onUnmappableCharacter(CodingErrorAction.REPORT)
    try Some(dec.decode(java.nio.ByteBuffer.wrap(b, off, len)).toString)
    catch { case _: CharacterCodingException => None }
  }

  /** True when `b[off, off+len)` is valid UTF-8. */
  def isValidUtf8(b: Array[Byte], off: Int, len: Int): Boolean = {
    val end = off + len
    // ASCII fast path, eight bytes at a time.
    var i = ByteWords.asciiPrefixEnd(b, off, end)
    while (i < end) {
      val c = b(i) & 0xff
      if (c < 0x80) i += 1
      else {
        val (n, min) =
          if ((c & 0xe0) == 0xc0) (1, 0x80)
          else if ((c & 0xf0) == 0xe0) (2, 0x800)
          else if ((c & 0xf8) == 0xf0) (3, 0x10000)
          else return false
        if (i + n >= end) return false
        var cp = c & (0x3f >> n)
        var k = 1
        while (k <= n) {
          val cc = b(i + k) & 0xff
          if ((cc & 0xc0) != 0x80) return false
          cp = (cp << 6) | (cc & 0x3f)
          k += 1
        }
        if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return false
        i += n + 1
      }
    }
    true
  }
}
