package io.superspark.parquet.thrift

import io.superspark.parquet.thrift.{ThriftFormatReason => R}

/**
 * Apache Thrift's compact protocol, read side, over `bytes[0, end)`: a cursor that never
 * builds objects and never allocates from a size it has not checked against the bytes that
 * remain (a list of n elements needs at least n bytes, a binary of n bytes n bytes). Errors
 * are [[MalformedThriftFooterException]]s with the offset. Pure codec, no I/O.
 *
 * Structs: `structBegin()`, then `nextField()` until it returns false (the stop byte), reading
 * each field's value by `fieldType` or `skip()`ping it.
 */
private[superspark] final class ThriftCompactReader(val bytes: Array[Byte], val end: Int) {
  import ThriftCompactReader._
  import ThriftCompactWriter.{Binary, Double, False, I16, I32, I64, I8, List, Map, Set, Stop, Struct, True, Uuid}

  def this(bytes: Array[Byte]) = this(bytes, bytes.length)

  var pos: Int = 0
  /** The current field's id and compact type (after `nextField`). */
  var fieldId: Int = 0
  var fieldType: Int = 0
  /** Offset of the current field's header. */
  var fieldAt: Int = 0
  /** The last list header's size and element type. */
  var listSize: Int = 0
  var listType: Int = 0

  private var lastId = 0
  private var stack = new Array[Int](16)
  private var depth = 0

  /** Reads ahead with `f`, then returns to where the reader was (position and struct state). */
  def peek[A](f: => A): A = {
    val (p, id, d) = (pos, lastId, depth)
    try f finally { pos = p; lastId = id; depth = d }
  }

  def fail(reason: ThriftFormatReason): Nothing = throw new MalformedThriftFooterException(reason)

  private def need(n: Long): Unit = if (n > end - pos) fail(R.Truncated(pos, n, end - pos))

  def byte(): Int = { need(1); val b = bytes(pos); pos += 1; b }

  def varint(): Long = {
    val at = pos
    var shift = 0
    var v = 0L
    while (true) {
      if (pos >= end) fail(R.Truncated(pos, 1, 0))
      val b = bytes(pos)
      pos += 1
      v |= (b & 0x7FL) << shift
      if (b >= 0) return v
      shift += 7
      if (shift > 63) fail(R.BadVarint(at))
    }
    v
  }

  /** An i32: a zigzag varint of at most 32 bits (longer ones are refused, as Thrift's reader does). */
  def i32(): Int = {
    val at = pos
    val v = varint()
    if ((v >>> 32) != 0) fail(R.BadVarint(at))
    val i = v.toInt
    (i >>> 1) ^ -(i & 1)
  }
  def i64(): Long = { val v = varint(); (v >>> 1) ^ -(v & 1) }

  def double(): Double = {
    need(8)
    val v = ThriftCompactReader.littleEndian(bytes, pos, 8)
    pos += 8
    java.lang.Double.longBitsToDouble(v)
  }

  /** A binary's length, checked against the bytes left; its bytes start at `pos`. */
  def binaryLength(): Int = {
    val at = pos
    val n = varint()
    if (n < 0 || n > end - pos) fail(R.BadSize(at, n))
    n.toInt
  }

  /** Skips a binary; returns where its bytes start (its length: `pos` minus that). */
  def binary(): Int = { val n = binaryLength(); val at = pos; pos += n; at }

  def structBegin(): Unit = {
    if (depth == MaxDepth) fail(R.TooDeep(pos, MaxDepth))
    if (depth == stack.length) stack = java.util.Arrays.copyOf(stack, depth * 2)
    stack(depth) = lastId
    depth += 1
    lastId = 0
  }

  /** Reads the next field header: false at the struct's stop byte (the struct is then ended). */
  def nextField(): Boolean = {
    fieldAt = pos
    val h = byte() & 0xFF
    val tpe = h & 0x0F
    if (tpe == Stop) {
      if (h != 0) fail(R.BadType(fieldAt, h))
      depth -= 1
      lastId = stack(depth)
      false
    } else {
      val delta = h >>> 4
      fieldId = if (delta != 0) lastId + delta else i32().toShort
      if (tpe > MaxType) fail(R.BadType(fieldAt, tpe))
      fieldType = tpe
      lastId = fieldId
      true
    }
  }

  def isBool: Boolean = fieldType == True || fieldType == False
  /** A bool field's value (carried in its header). */
  def boolValue: Boolean = fieldType == True

  /** Reads a list header (after checking its size against the bytes left). */
  def listHeader(): Unit = {
    val at = pos
    val h = byte() & 0xFF
    val n: Long = if ((h >>> 4) == 15) varint() else (h >>> 4).toLong
    if (n < 0 || n > end - pos) fail(R.BadSize(at, n))
    listSize = n.toInt
    listType = h & 0x0F
    if (listType == Stop || listType > MaxType) fail(R.BadType(at, listType))
  }

  /** Fails unless the current field has compact type `tpe` (bools: True or False). */
  def expect(struct: String, tpe: Int): Unit = {
    val ok = if (tpe == True) isBool else fieldType == tpe
    if (!ok) fail(R.UnexpectedType(fieldAt, struct, fieldId, fieldType))
  }

  /** Skips the current field's value. */
  def skip(): Unit = skip(fieldType, 0)

  /** Skips a value of compact type `tpe` at `pos`. */
  def skipValue(tpe: Int): Unit = skip(tpe, 0)

  private def skip(tpe: Int, nested: Int): Unit = {
    if (nested > MaxDepth) fail(R.TooDeep(pos, MaxDepth))
    tpe match {
      case True | False => () // in the field header
      case I8 => need(1); pos += 1
      case I16 | I32 | I64 => varint()
      case Double => need(8); pos += 8
      case Binary => binary()
      case List | Set =>
        listHeader()
        val (n, t) = (listSize, listType)
        var i = 0
        while (i < n) { element(t, nested + 1); i += 1 }
      case Map =>
        val at = pos
        val n = varint()
        if (n < 0 || n > end - pos) fail(R.BadSize(at, n))
        if (n > 0) {
          val kv = byte() & 0xFF
          var i = 0L
          while (i < n) { element(kv >>> 4, nested + 1); element(kv & 0x0F, nested + 1); i += 1 }
        }
      case Struct =>
        structBegin()
        while (nextField()) skip(fieldType, nested + 1)
      case Uuid => need(16); pos += 16
      case other => fail(R.BadType(pos, other))
    }
  }

  /** Skips a list, set or map element: there a bool takes one byte. */
  private def element(tpe: Int, nested: Int): Unit =
    if (tpe == True || tpe == False) { need(1); pos += 1 } else skip(tpe, nested)
}

private[superspark] object ThriftCompactReader {
  /** The little-endian integer in `bytes(from until from + len)` (len <= 8). */
  private[parquet] def littleEndian(bytes: Array[Byte], from: Int, len: Int): Long = {
    var v = 0L
    var i = len - 1
    while (i >= 0) {
      v = (v << 8) | (bytes(from + i) & 0xFFL)
      i -= 1
    }
    v
  }

  private val MaxType = ThriftCompactWriter.Uuid
  /** Struct nesting allowed (parquet-java's Thrift reader allows 64). */
  val MaxDepth = 64
}
