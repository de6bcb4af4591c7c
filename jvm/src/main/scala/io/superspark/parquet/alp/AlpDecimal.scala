package io.superspark.parquet.alp

/**
 * The decimal step of ALP: the power-of-10 constants (correctly rounded literals, as the spec
 * requires; never computed with pow) and the normative decode `encoded * 10^f * 10^-e`.
 * The encode direction (round to nearest, then check the round trip) is this encoder's choice.
 */
private[superspark] object AlpDecimal {
  val MaxDoubleExponent = 18
  val MaxFloatExponent = 10

  val DoublePow10: Array[Double] = Array(1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
    1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18)
  val DoubleNegPow10: Array[Double] = Array(1e0, 1e-1, 1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9,
    1e-10, 1e-11, 1e-12, 1e-13, 1e-14, 1e-15, 1e-16, 1e-17, 1e-18)
  val FloatPow10: Array[Float] = Array(1e0f, 1e1f, 1e2f, 1e3f, 1e4f, 1e5f, 1e6f, 1e7f, 1e8f, 1e9f, 1e10f)
  val FloatNegPow10: Array[Float] = Array(1e0f, 1e-1f, 1e-2f, 1e-3f, 1e-4f, 1e-5f, 1e-6f, 1e-7f, 1e-8f,
    1e-9f, 1e-10f)

  @inline def decodeDouble(encoded: Long, e: Int, f: Int): Double =
    encoded.toDouble * DoublePow10(f) * DoubleNegPow10(e)

  @inline def decodeFloat(encoded: Int, e: Int, f: Int): Float =
    encoded.toFloat * FloatPow10(f) * FloatNegPow10(e)

  // 2^63 as a double: scaled values at or beyond it (or below -2^63) do not fit an int64.
  private final val TwoPow63 = 9.223372036854775807e18

  /**
   * Encodes `v[from until from + n]` with (e, f) into `enc`; marks values that do not round-trip
   * bit for bit in `exc`. Returns the number of exceptions.
   */
  def encodeDoubles(v: Array[Double], from: Int, n: Int, e: Int, f: Int, enc: Array[Long],
      exc: Array[Boolean]): Int = {
    val pe = DoublePow10(e)
    val nf = DoubleNegPow10(f)
    var count = 0
    var i = 0
    while (i < n) {
      val x = v(from + i)
      val r = Math.rint(x * pe * nf)
      var ok = r > -TwoPow63 && r < TwoPow63 // false for NaN and the infinities
      if (ok) {
        val l = r.toLong
        ok = java.lang.Double.doubleToRawLongBits(decodeDouble(l, e, f)) ==
          java.lang.Double.doubleToRawLongBits(x)
        enc(i) = l
      }
      exc(i) = !ok
      if (!ok) count += 1
      i += 1
    }
    count
  }

  def encodeFloats(v: Array[Float], from: Int, n: Int, e: Int, f: Int, enc: Array[Long],
      exc: Array[Boolean]): Int = {
    val pe = FloatPow10(e)
    val nf = FloatNegPow10(f)
    var count = 0
    var i = 0
    while (i < n) {
      val x = v(from + i)
      val r = Math.rint((x * pe * nf).toDouble)
      var ok = r >= Int.MinValue.toDouble && r <= Int.MaxValue.toDouble
      if (ok) {
        val l = r.toInt
        ok = java.lang.Float.floatToRawIntBits(decodeFloat(l, e, f)) == java.lang.Float.floatToRawIntBits(x)
        enc(i) = l.toLong
      }
      exc(i) = !ok
      if (!ok) count += 1
      i += 1
    }
    count
  }
}
