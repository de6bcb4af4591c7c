package io.superspark.bsup

import java.math.{BigDecimal => JBigDecimal, BigInteger}

/** Bit-level conversions for float16, float128/256 and the IEEE 754 BID decimals. */
private[superspark] object Numbers {
  // ---- float16 (IEEE binary16) ----

  def halfToFloat(h: Int): Float = {
    val sign = if ((h & 0x8000) != 0) -1f else 1f
    val exp = (h >>> 10) & 0x1f
    val mant = h & 0x3ff
    if (exp == 0) sign * mant * math.pow(2, -24).toFloat
    else if (exp == 31) {
      if (mant == 0) sign * Float.PositiveInfinity
      else java.lang.Float.intBitsToFloat(((h & 0x8000) << 16) | 0x7f800000 | (mant << 13))
    } else java.lang.Float.intBitsToFloat(((h & 0x8000) << 16) | ((exp - 15 + 127) << 23) | (mant << 13))
  }

  /** Rounds to the nearest binary16 (ties to even). */
  def floatToHalf(f: Float): Int = {
    val bits = java.lang.Float.floatToRawIntBits(f)
    val sign = (bits >>> 16) & 0x8000
    val v = bits & 0x7fffffff
    if (v > 0x7f800000) return sign | 0x7e00 | ((v >>> 13) & 0x3ff)
    if (v == 0x7f800000) return sign | 0x7c00
    val exp = (v >>> 23) - 127 + 15
    if (exp >= 31) return sign | 0x7c00
    if (exp <= 0) {
      if (exp < -10) return sign
      val mant = (v & 0x7fffff) | 0x800000
      val shift = 14 - exp
      var h = mant >>> shift
      val rem = mant & ((1 << shift) - 1)
      val halfway = 1 << (shift - 1)
      if (rem > halfway || (rem == halfway && (h & 1) == 1)) h += 1
      sign | h
    } else {
      val mant = v & 0x7fffff
      var h = (exp << 10) | (mant >>> 13)
      val rem = mant & 0x1fff
      if (rem > 0x1000 || (rem == 0x1000 && (h & 1) == 1)) h += 1
      sign | math.min(h, 0x7c00)
    }
  }

  // ---- float128 / float256 (IEEE binary128, binary256), via double ----

  private def floatExpBits(width: Int): Int = if (width == 128) 15 else 19

  private def littleEndianBig(b: Array[Byte], off: Int, len: Int): BigInteger = Varint.decodeBigUnsigned(b, off, len)

  private def toLittleEndian(v: BigInteger, len: Int): Array[Byte] = {
    val out = new Array[Byte](len)
    val le = Varint.bigUnsignedBytes(v)
    System.arraycopy(le, 0, out, 0, le.length)
    out
  }

  /** Decodes binary128/binary256 (little endian) to the nearest-below double. */
  def wideFloatToDouble(b: Array[Byte], off: Int, width: Int): Double = {
    val x = littleEndianBig(b, off, width / 8)
    val ebits = floatExpBits(width)
    val fbits = width - 1 - ebits
    val negative = x.testBit(width - 1)
    val biased = x.shiftRight(fbits).intValue() & ((1 << ebits) - 1)
    val frac = x.and(BigInteger.ONE.shiftLeft(fbits).subtract(BigInteger.ONE))
    val bias = (1 << (ebits - 1)) - 1
    val r =
      if (biased == (1 << ebits) - 1) { if (frac.signum == 0) Double.PositiveInfinity else Double.NaN }
      else if (biased == 0) 0.0
      else {
        val top52 = frac.shiftRight(fbits - 52).longValue()
        val m = 1.0 + top52.toDouble / (1L << 52).toDouble
        val e = biased - bias
        if (e > 1023) Double.PositiveInfinity else if (e < -1100) 0.0 else java.lang.Math.scalb(m, e)
      }
    if (negative) -r else r
  }

  /** Encodes `d` exactly as binary128 / binary256 (little endian). */
  def doubleToWideFloat(d: Double, width: Int): Array[Byte] = {
    val ebits = floatExpBits(width)
    val fbits = width - 1 - ebits
    val bias = (1 << (ebits - 1)) - 1
    val bits = java.lang.Double.doubleToRawLongBits(d)
    var x = BigInteger.ZERO
    if (bits < 0) x = x.setBit(width - 1)
    val e = ((bits >>> 52) & 0x7ff).toInt
    val f = bits & ((1L << 52) - 1)
    if (e == 0x7ff) {
      x = x.or(BigInteger.valueOf((1L << ebits) - 1).shiftLeft(fbits))
      if (f != 0) x = x.or(BigInteger.valueOf(f).shiftLeft(fbits - 52).setBit(fbits - 1))
    } else if (e != 0 || f != 0) {
      var m = if (e == 0) f else f | (1L << 52)
      var exp = if (e == 0) -1022 else e - 1023
      while ((m & (1L << 52)) == 0) { m <<= 1; exp -= 1 }
      x = x.or(BigInteger.valueOf(exp + bias).shiftLeft(fbits))
        .or(BigInteger.valueOf(m & ((1L << 52) - 1)).shiftLeft(fbits - 52))
    }
    toLittleEndian(x, width / 8)
  }

  // ---- IEEE 754 decimals, binary integer decimal (BID) encoding ----

  private final case class DecimalFormat(width: Int, ebits: Int, bias: Int, digits: Int) {
    val coeffBits: Int = width - 1 - ebits
    val maxCoeff: BigInteger = BigInteger.TEN.pow(digits).subtract(BigInteger.ONE)
    val maxExp: Int = 3 * (1 << (ebits - 2)) - 1
  }

  private def decimalFormat(width: Int): DecimalFormat = width match {
    case 32 => DecimalFormat(32, 8, 101, 7)
    case 64 => DecimalFormat(64, 10, 398, 16)
    case 128 => DecimalFormat(128, 14, 6176, 34)
    case 256 => DecimalFormat(256, 22, 1572932, 70)
  }

  private def mask(n: Int): BigInteger = BigInteger.ONE.shiftLeft(n).subtract(BigInteger.ONE)

  /** Decodes a BID decimal; NaN and infinities return `None`. */
  def decodeDecimal(b: Array[Byte], off: Int, width: Int): Option[JBigDecimal] = {
    val fmt = decimalFormat(width)
    val x = littleEndianBig(b, off, width / 8)
    val negative = x.testBit(width - 1)
    val c = fmt.coeffBits
    val (exp, coeff0) =
      if (x.testBit(width - 2) && x.testBit(width - 3)) {
        if (x.testBit(width - 4) && x.testBit(width - 5)) return None
        (x.shiftRight(c - 2).and(mask(fmt.ebits)).intValue(), x.and(mask(c - 2)).setBit(c))
      } else (x.shiftRight(c).and(mask(fmt.ebits)).intValue(), x.and(mask(c)))
    val coeff = if (coeff0.compareTo(fmt.maxCoeff) > 0) BigInteger.ZERO else coeff0
    val v = new JBigDecimal(if (negative) coeff.negate() else coeff, fmt.bias - exp)
    Some(v)
  }

  /** Encodes `v` as a BID decimal of `width` bits; fails if it needs more digits. */
  def encodeDecimal(v: JBigDecimal, width: Int): Array[Byte] = {
    val fmt = decimalFormat(width)
    var coeff = v.unscaledValue().abs()
    var exp = fmt.bias - v.scale()
    while (exp < 0 && coeff.mod(BigInteger.TEN).signum == 0 && coeff.signum != 0) {
      coeff = coeff.divide(BigInteger.TEN); exp += 1
    }
    if (coeff.signum == 0) exp = math.max(0, math.min(exp, fmt.maxExp))
    while (coeff.compareTo(fmt.maxCoeff) > 0 && coeff.mod(BigInteger.TEN).signum == 0) {
      coeff = coeff.divide(BigInteger.TEN); exp += 1
    }
    while (exp > fmt.maxExp && coeff.multiply(BigInteger.TEN).compareTo(fmt.maxCoeff) <= 0) {
      coeff = coeff.multiply(BigInteger.TEN); exp -= 1
    }
    if (coeff.compareTo(fmt.maxCoeff) > 0 || exp < 0 || exp > fmt.maxExp) {
      throw new ArithmeticException(s"$v does not fit decimal$width")
    }
    val c = fmt.coeffBits
    var x =
      if (coeff.bitLength() <= c) BigInteger.valueOf(exp).shiftLeft(c).or(coeff)
      else BigInteger.valueOf(3).shiftLeft(width - 3).or(BigInteger.valueOf(exp).shiftLeft(c - 2))
        .or(coeff.and(mask(c - 2)))
    if (v.signum < 0) x = x.setBit(width - 1)
    toLittleEndian(x, width / 8)
  }
}
