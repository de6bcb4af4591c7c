package io.superspark.bsup

/**
 * The integer encodings of Super Binary: LEB128 `uvarint`s (frame lengths, ids, tags) and
 * counted integers (value bodies: minimal little-endian bytes; signed ones sign-magnitude,
 * `u = |v| << 1 | sign`).
 */
private[superspark] object Varint {
  /** The longest uvarint: 10 bytes (64 bits). */
  final val MaxUvarintBytes = 10
  /** [[uvarintLength]]: the input ends inside the uvarint. */
  final val Truncated = -1
  /** [[uvarintLength]]: more than 10 bytes, or a 10th byte that overflows 64 bits. */
  final val TooLong = -2

  /**
   * The one uvarint rule of the project: the number of bytes (1 to 10) of the LEB128 uvarint
   * at `b[pos, end)`, or [[Truncated]] or [[TooLong]]. Read its value with [[uvarintValue]].
   * The value is an unsigned 64-bit number: a negative Long means 2^63 or more.
   */
  def uvarintLength(b: Array[Byte], pos: Int, end: Int): Int = {
    val stop = if (end - pos > MaxUvarintBytes) pos + MaxUvarintBytes else end
    var p = pos
    while (p < stop) {
      val x = b(p)
      if (x >= 0) return if (p - pos == MaxUvarintBytes - 1 && x > 1) TooLong else p - pos + 1
      p += 1
    }
    if (p - pos == MaxUvarintBytes) TooLong else Truncated
  }

  /** The value of the `n`-byte uvarint at `b[pos]` (`n` from [[uvarintLength]]). */
  def uvarintValue(b: Array[Byte], pos: Int, n: Int): Long = {
    var v = 0L; var i = 0
    while (i < n) { v |= (b(pos + i) & 0x7fL) << (7 * i); i += 1 }
    v
  }

  /** The problem named by a negative [[uvarintLength]]. */
  def uvarintProblem(code: Int): String =
    if (code == Truncated) "truncated uvarint" else "uvarint longer than 10 bytes or over 64 bits"

  /** True when the unsigned uvarint value `v` is at most `limit` (>= 0). */
  def fits(v: Long, limit: Long): Boolean = v >= 0 && v <= limit

  /** [[tagBodyLength]]: the tag's length does not fit the bytes left. */
  final val TagTooLong = Int.MinValue

  /** The body length of a value tag `v` (-1: null), or [[TagTooLong]] when over `left` bytes. */
  def tagBodyLength(v: Long, left: Int): Int =
    if (v == 0) -1 else if (fits(v - 1, left)) (v - 1).toInt else TagTooLong

  /** Number of bytes of the uvarint encoding of `v`. */
  def uvarintSize(v: Long): Int = {
    var x = v; var n = 1
    while ((x & ~0x7fL) != 0) { x >>>= 7; n += 1 }
    n
  }

  def putUvarint(dst: Array[Byte], off: Int, v: Long): Int = {
    var x = v; var p = off
    while ((x & ~0x7fL) != 0) { dst(p) = ((x & 0x7f) | 0x80).toByte; p += 1; x >>>= 7 }
    dst(p) = x.toByte
    p + 1 - off
  }

  /** Unsigned counted integer of `len` (0..8) little-endian bytes. */
  def decodeCountedUnsigned(b: Array[Byte], off: Int, len: Int): Long = ByteWords.unsignedLE(b, off, len)

  def decodeCountedSigned(b: Array[Byte], off: Int, len: Int): Long = {
    val u = decodeCountedUnsigned(b, off, len)
    if ((u & 1) != 0) {
      val m = u >>> 1
      if (m == 0) Long.MinValue else -m
    } else u >>> 1
  }

  def signedToUnsigned(v: Long): Long = if (v >= 0) v << 1 else ((-v) << 1) | 1

  /** Bytes of the counted encoding of the unsigned 64-bit `u`. */
  def countedSize(u: Long): Int = if (u == 0) 0 else 8 - (java.lang.Long.numberOfLeadingZeros(u) >>> 3)

  def putCounted(buf: ByteBuf, u: Long): Unit = {
    val n = countedSize(u)
    buf.ensure(n)
    var x = u; var i = 0
    while (i < n) { buf.bytes(buf.size + i) = x.toByte; x >>>= 8; i += 1 }
    buf.size += n
  }

  /** A big unsigned integer of `len` little-endian bytes. */
  def decodeBigUnsigned(b: Array[Byte], off: Int, len: Int): java.math.BigInteger = {
    val be = new Array[Byte](len + 1) // leading zero keeps it positive
    var i = 0
    while (i < len) { be(len - i) = b(off + i); i += 1 }
    new java.math.BigInteger(be)
  }

  def decodeBigSigned(b: Array[Byte], off: Int, len: Int): java.math.BigInteger = {
    val u = decodeBigUnsigned(b, off, len)
    val m = u.shiftRight(1)
    if (u.testBit(0)) m.negate() else m
  }

  /** Minimal little-endian bytes of the non-negative `u`. */
  def bigUnsignedBytes(u: java.math.BigInteger): Array[Byte] = {
    require(u.signum >= 0)
    val be = u.toByteArray
    var start = 0
    while (start < be.length && be(start) == 0) start += 1
    val n = be.length - start
    val out = new Array[Byte](n)
    var i = 0
    while (i < n) { out(i) = be(be.length - 1 - i); i += 1 }
    out
  }

  def bigSignedBytes(v: java.math.BigInteger): Array[Byte] = {
    val u = if (v.signum >= 0) v.shiftLeft(1) else v.negate().shiftLeft(1).setBit(0)
    bigUnsignedBytes(u)
  }
}
