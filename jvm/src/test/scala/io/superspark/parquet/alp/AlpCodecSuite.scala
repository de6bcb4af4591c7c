package io.superspark.parquet.alp

import scala.util.Random

import org.scalatest.funsuite.AnyFunSuite

/** The ALP page codec against the spec's worked examples, edge values and generated data. */
class AlpCodecSuite extends AnyFunSuite {

  private def hex(s: String): Array[Byte] =
    s.split("\\s+").filter(_.nonEmpty).map(Integer.parseInt(_, 16).toByte)
  private def show(b: Array[Byte]): String = b.map(x => f"${x & 0xFF}%02x").mkString(" ")

  private def dbits(a: Array[Double]) = a.map(java.lang.Double.doubleToRawLongBits).toSeq
  private def fbits(a: Array[Float]) = a.map(java.lang.Float.floatToRawIntBits).toSeq

  private def roundTripD(a: Array[Double]): Array[Byte] = {
    val page = AlpCodec.encodeDoubles(a)
    assert(dbits(AlpCodec.decodeDoubles(page)) == dbits(a))
    page
  }
  private def roundTripF(a: Array[Float]): Array[Byte] = {
    val page = AlpCodec.encodeFloats(a)
    assert(fbits(AlpCodec.decodeFloats(page)) == fbits(a))
    page
  }

  // The spec's "Worked Example: Exceptions and Non-Zero Factor" (AlpEncoding.md), as a page:
  // header (mode 0, FOR 0, log 10, 4 values), one offset (4), then the 31-byte vector.
  private val workedExample = hex(
    "00 00 0a 04 00 00 00" + " 04 00 00 00" +
      " 04 03 01 00" + // AlpInfo: e=4, f=3, 1 exception
      " 07 0d 00 00 00 00 00 00 0f" + // ForInfo: frame 3335, bit width 15
      " 91 ad c8 56 28 15 00 00" + // [11665, 11665, 21665, 0] at 15 bits, LSB first
      " 01 00" + // exception position 1
      " 00 00 00 00 00 00 f8 7f") // NaN, its exact bits

  test("spec worked example decodes to { 1500.0, NaN, 2500.0, 333.5 }") {
    val out = AlpCodec.decodeDoubles(workedExample)
    assert(dbits(out) == dbits(Array(1500.0, Double.NaN, 2500.0, 333.5)))
    assert(workedExample.length == 7 + 4 + 31)
  }

  test("spec worked example: encoding with (e=4, f=3) gives the spec's bytes") {
    val page = AlpCodec.encodeDoublesWith(Array(1500.0, Double.NaN, 2500.0, 333.5), 4, 3)
    assert(show(page) == show(workedExample))
  }

  test("spec FOR example: [111, 444, 777, 0] at 10 bits is 5 bytes") {
    val out = new Array[Byte](5)
    assert(AlpBitPacking.pack(Array(111L, 444L, 777L, 0L), 4, 10, out, 0) == 5)
    assert(show(out) == "6f f0 96 30 00")
    assert(AlpBitPacking.bitWidth(777) == 10)
    val back = new Array[Long](4)
    AlpBitPacking.unpack(out, 0, 4, 10, back)
    assert(back.toSeq == Seq(111L, 444L, 777L, 0L))
  }

  test("bit packing round trips every width 0..64") {
    val r = new Random(7)
    for (w <- 0 to 64; n <- Seq(1, 7, 8, 33)) {
      val mask = if (w == 64) -1L else (1L << w) - 1
      val v = Array.fill(n)(r.nextLong() & mask)
      val buf = new Array[Byte](AlpBitPacking.packedBytes(n, w))
      AlpBitPacking.pack(v, n, w, buf, 0)
      val back = new Array[Long](n)
      AlpBitPacking.unpack(buf, 0, n, w, back)
      assert(back.toSeq == v.toSeq, s"width $w n $n")
    }
  }

  test("bit packing: the word-wise and the byte-wise unpacking agree at every width and start") {
    val r = new Random(8)
    for (w <- 0 to 64; start <- 0 to 9; n <- Seq(1, 9, 200)) {
      val mask = if (w == 64) -1L else (1L << w) - 1
      val v = Array.fill(n)(r.nextLong() & mask)
      // garbage before and after the packed data: the word-wise loads read it and must mask it off
      val buf = Array.fill(start + AlpBitPacking.packedBytes(n, w) + r.nextInt(12))(r.nextInt(256).toByte)
      val end = start + AlpBitPacking.packedBytes(n, w)
      val tail = buf.slice(end, buf.length)
      AlpBitPacking.pack(v, n, w, buf, start)
      assert(buf.slice(end, buf.length).toSeq == tail.toSeq, s"pack wrote past its end at width $w")
      val back = new Array[Long](n)
      AlpBitPacking.unpack(buf, start, n, w, back)
      assert(back.toSeq == v.toSeq, s"width $w start $start n $n")
    }
  }

  test("special doubles round trip bit for bit") {
    val quietNaNPayload = java.lang.Double.longBitsToDouble(0x7ff8000000abcdefL)
    val signalingNaN = java.lang.Double.longBitsToDouble(0x7ff0000000000001L)
    val negNaN = java.lang.Double.longBitsToDouble(0xfff8000000000123L)
    val a = Array(0.0, -0.0, Double.PositiveInfinity, Double.NegativeInfinity, Double.NaN, quietNaNPayload,
      signalingNaN, negNaN, Double.MinPositiveValue, -Double.MinPositiveValue, java.lang.Double.MIN_NORMAL,
      Double.MaxValue, Double.MinValue, 1.0 / 3, math.Pi, 9.223372036854775807e18, -9.223372036854775808e18,
      1e300, 1e-300, 12.34, -56.78, 0.1, 0.2, 0.30000000000000004)
    val page = roundTripD(a)
    assert(page(0) == 0 && page(2) == 10)
  }

  test("special floats round trip bit for bit") {
    val nanPayload = java.lang.Float.intBitsToFloat(0x7fc01234)
    val sNaN = java.lang.Float.intBitsToFloat(0x7f800001)
    val a = Array(0.0f, -0.0f, Float.PositiveInfinity, Float.NegativeInfinity, Float.NaN, nanPayload, sNaN,
      Float.MinPositiveValue, -Float.MinPositiveValue, java.lang.Float.MIN_NORMAL, Float.MaxValue, Float.MinValue,
      2.1474836e9f, -2.1474836e9f, 1.0f / 3, 12.34f, -5.5f, 0.1f)
    roundTripF(a)
  }

  test("empty page and all-exception vectors") {
    assert(AlpCodec.decodeDoubles(roundTripD(Array.empty)).isEmpty)
    assert(show(AlpCodec.encodeDoubles(Array.empty[Double])) == "00 00 0a 00 00 00 00")
    roundTripD(Array.fill(2000)(Double.NaN))
    roundTripF(Array.fill(1500)(-0.0f))
  }

  test("decimal-like doubles compress: 2-decimal prices take far fewer than 8 bytes a value") {
    val r = new Random(11)
    val prices = Array.fill(100000)((r.nextInt(1000000) / 100.0))
    val page = roundTripD(prices)
    assert(page.length < prices.length * 8 / 3, s"${page.length} bytes")
    // a constant column packs to width 0: header + offsets + 13-byte vector headers only
    val const = roundTripD(Array.fill(4096)(42.5))
    assert(const.length == 7 + 4 * 4 + 4 * 13)
  }

  test("random doubles fall back to exceptions: at most 10 bytes a value plus the vector headers") {
    val r = new Random(3)
    val a = Array.fill(1 << 17)(r.nextDouble())
    val page = roundTripD(a)
    val vectors = a.length / 1024
    assert(page.length <= 7 + vectors * (4 + 13) + a.length * 10, s"${page.length} bytes")
    val f = Array.fill(1 << 17)(java.lang.Float.intBitsToFloat(r.nextInt()))
    assert(roundTripF(f).length <= 7 + vectors * (4 + 9) + f.length * 6)
  }

  test("property: generated doubles of many shapes round trip, any vector size") {
    val r = new Random(20261123)
    for (round <- 0 until 200) {
      val n = r.nextInt(5000)
      val decimals = r.nextInt(6)
      val scale = math.pow(10, decimals)
      val shape = round % 5
      val a = Array.fill(n) {
        shape match {
          case 0 => math.round(r.nextGaussian() * 1e6) / scale
          case 1 => r.nextDouble()
          case 2 => java.lang.Double.longBitsToDouble(r.nextLong())
          case 3 => if (r.nextInt(10) == 0) Double.NaN else (r.nextInt(100000) - 50000) / scale
          case _ => r.nextLong().toDouble
        }
      }
      val log = 3 + r.nextInt(13)
      val page = AlpCodec.encodeDoubles(a, 0, n, log)
      assert(dbits(AlpCodec.decodeDoubles(page)) == dbits(a), s"round $round")
    }
  }

  test("property: generated floats round trip") {
    val r = new Random(5)
    for (round <- 0 until 200) {
      val n = r.nextInt(5000)
      val scale = math.pow(10, r.nextInt(4)).toFloat
      val a = Array.fill(n) {
        round % 3 match {
          case 0 => (r.nextInt(200000) - 100000) / scale
          case 1 => java.lang.Float.intBitsToFloat(r.nextInt())
          case _ => r.nextFloat() * 1000
        }
      }
      val page = AlpCodec.encodeFloats(a, 0, n, 3 + r.nextInt(13))
      assert(fbits(AlpCodec.decodeFloats(page)) == fbits(a), s"round $round")
    }
  }

  test("a page decodes to the same bits at the end of its buffer (per-vector delta array) and inside one (one pass)") {
    val r = new Random(77)
    for (round <- 0 until 60; lead <- Seq(0, 3); trail <- Seq(0, 1, 9)) {
      val n = 1 + r.nextInt(3000)
      val scale = math.pow(10, r.nextInt(4))
      val d = Array.fill(n)(if (round % 3 == 0) r.nextDouble() else math.round(r.nextGaussian() * 1e5) / scale)
      val f = Array.fill(n)((r.nextInt(200000) - 100000) / scale.toFloat)
      // garbage around the page: the one-pass loads read past a vector and must mask it off
      def placed(page: Array[Byte]) = {
        val buf = Array.fill(lead + page.length + trail)(r.nextInt(256).toByte)
        System.arraycopy(page, 0, buf, lead, page.length)
        buf
      }
      val dp = AlpCodec.encodeDoubles(d, 0, n, 3 + r.nextInt(8))
      val dOut = new Array[Double](n + 2)
      assert(AlpCodec.decodeDoubles(placed(dp), lead, dp.length, dOut, 2) == n)
      assert(dbits(dOut.drop(2)) == dbits(d), s"doubles, round $round lead $lead trail $trail")
      val fp = AlpCodec.encodeFloats(f, 0, n, 3 + r.nextInt(8))
      val fOut = new Array[Float](n)
      assert(AlpCodec.decodeFloats(placed(fp), lead, fp.length, fOut, 0) == n)
      assert(fbits(fOut) == fbits(f), s"floats, round $round lead $lead trail $trail")
    }
  }

  private def reason(b: Array[Byte]): AlpErrorReason =
    intercept[AlpDecodeException](AlpCodec.decodeDoubles(b)).reason

  test("bad input: clear errors with codes and offsets") {
    import AlpErrorReason._
    val good = workedExample
    def patched(at: Int, v: Int) = { val c = good.clone(); c(at) = v.toByte; c }
    assert(reason(good.take(5)) == Truncated(0, 7, 5))
    assert(reason(patched(0, 1)) == UnsupportedMode(0, "compression_mode", 1))
    assert(reason(patched(1, 2)) == UnsupportedMode(1, "integer_encoding", 2))
    assert(reason(patched(2, 16)) == BadVectorSize(2, 16))
    assert(reason(patched(6, 0x80)) == BadElementCount(3, Int.MinValue + 4, "negative"))
    assert(reason(patched(7, 8)) == BadVectorOffset(7, 0, 8, 4))
    assert(reason(patched(11, 19)) == BadExponent(11, 19, 3, 18))
    assert(reason(patched(12, 5)) == BadExponent(11, 4, 5, 18))
    assert(reason(patched(14, 1)) == BadExceptionCount(13, 257, 4))
    assert(reason(patched(23, 65)) == BadBitWidth(23, 65, 64))
    assert(reason(patched(32, 4)) == BadExceptionPosition(32, 4, 4))
    assert(reason(good.dropRight(1)) == Truncated(11, 31, 30))
    assert(reason(good :+ 0.toByte) == TrailingBytes(42, 1))
    // a huge element count in a tiny page is refused before anything is allocated
    val huge = good.clone(); huge(6) = 0x7f
    assert(reason(huge).code == "truncated")
    val e = intercept[AlpDecodeException](AlpCodec.decodeDoubles(patched(0, 1))).at("f.parquet column x page 3")
    assert(e.getMessage.contains("f.parquet column x page 3") && e.getMessage.contains("unsupported_mode at ALP offset 0"))
  }

  test("bad input: a caller's output smaller than num_elements is refused") {
    val out = new Array[Double](3)
    val r = intercept[AlpDecodeException](AlpCodec.decodeDoubles(workedExample, 0, workedExample.length, out, 0)).reason
    assert(r.code == "bad_element_count")
  }
}
