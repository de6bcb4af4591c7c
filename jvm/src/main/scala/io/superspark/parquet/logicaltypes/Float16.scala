package io.superspark.parquet.logicaltypes

/**
 * IEEE 754 half precision (binary16) <-> float, the Parquet FLOAT16 logical type's values
 * (a FIXED_LEN_BYTE_ARRAY(2), little-endian). Pure functions: every half is exactly a float;
 * float -> half rounds to nearest, ties to even, as pyarrow and Java 20's
 * `Float.floatToFloat16` do (NaN stays NaN, overflow gives infinity).
 */
private[superspark] object Float16 {
  /** The float of the half whose bits are `h` (low 16 bits). */
  def toFloat(h: Int): Float = {
    val sign = (h & 0x8000) << 16
    val exp = (h >>> 10) & 0x1f
    val mant = h & 0x3ff
    val bits =
      if (exp == 0x1f) sign | 0x7f800000 | (mant << 13) // infinity, NaN (payload kept)
      else if (exp != 0) sign | ((exp + 112) << 23) | (mant << 13)
      else if (mant == 0) sign // +-0
      else { // subnormal: normalise
        var e = 113
        var m = mant
        while ((m & 0x400) == 0) { m <<= 1; e -= 1 }
        sign | (e << 23) | ((m & 0x3ff) << 13)
      }
    java.lang.Float.intBitsToFloat(bits)
  }

  /** The half (low 16 bits) nearest to `f`, ties to even. */
  def fromFloat(f: Float): Int = {
    val bits = java.lang.Float.floatToRawIntBits(f)
    val sign = (bits >>> 16) & 0x8000
    val exp = (bits >>> 23) & 0xff
    val mant = bits & 0x7fffff
    if (exp == 0xff) {
      if (mant == 0) sign | 0x7c00 else sign | 0x7e00 | (mant >>> 13) // inf; NaN stays quiet NaN
    } else {
      val e = exp - 127 + 15
      if (e >= 0x1f) sign | 0x7c00 // overflow
      else if (e <= 0) { // subnormal half or zero
        if (e < -10) sign
        else {
          val m = mant | 0x800000
          val shift = 14 - e
          val half = m >>> shift
          val rest = m & ((1 << shift) - 1)
          val mid = 1 << (shift - 1)
          sign | (if (rest > mid || (rest == mid && (half & 1) == 1)) half + 1 else half)
        }
      } else {
        val half = (e << 10) | (mant >>> 13)
        val rest = mant & 0x1fff
        // a carry out of the mantissa rounds up the exponent, up to infinity: still correct
        sign | (if (rest > 0x1000 || (rest == 0x1000 && (half & 1) == 1)) half + 1 else half)
      }
    }
  }

  /** The float of a FLOAT16 value's two little-endian bytes at `offset`. */
  def fromBytes(b: Array[Byte], offset: Int): Float = toFloat((b(offset) & 0xff) | ((b(offset + 1) & 0xff) << 8))

  /** A float as a FLOAT16 value's two little-endian bytes. */
  def toBytes(f: Float): Array[Byte] = {
    val h = fromFloat(f)
    Array((h & 0xff).toByte, ((h >>> 8) & 0xff).toByte)
  }
}
