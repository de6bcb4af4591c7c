package io.superspark.parquet.alp

import java.lang.management.ManagementFactory

import scala.collection.mutable.ArrayBuffer
import scala.util.Random

/**
 * Seeded mutation fuzzer of the ALP page decoder (`make fuzz-alp`; a slice runs in CI through
 * AlpFuzzSuite). Inputs: valid pages encoded by [[AlpCodec]] from doubles and floats of many
 * shapes (2-decimal prices, 1 to 3 decimal sensor readings, random values, any bit pattern,
 * edge values: NaN payloads, -0.0, infinities, subnormals, extremes), page lengths 0 to 5,000
 * and vector sizes 2^3 to 2^15. Each input gets one to three mutations, chosen by the seed:
 *
 *  - a bit flip or a byte set anywhere;
 *  - truncation, or random bytes appended;
 *  - a header field set to a boundary value: compression mode, integer encoding, log vector size,
 *    num_elements (0, +-1, doubled, the most
 *    the page's bytes could describe, negative, Int.MaxValue), a vector offset, exponent and factor
 *    (at and past their limits), num_exceptions, the frame of reference, the bit width (the
 *    type's maximum, one more, 255) or an exception position.
 *
 * The page is decoded twice: alone (`decodeDoubles(bytes)`, which sizes its output from the
 * page) and from inside a larger buffer into a caller's array (the reader's path). Outcomes
 * that pass: both decode the same values, and encoding those values again decodes to them bit
 * for bit; or both throw an [[AlpDecodeException]] with the same reason, whose offset lies
 * inside the input (at its end for a truncation). The caller's array holds as many values as
 * the original page, so a page whose num_elements grew is refused there (bad_element_count)
 * whatever the other outcome. Failures: any other exception, a difference
 * between the two decodes, a re-encoding that does not round-trip, an input over one second,
 * or an allocation beyond the decoded output plus 1 MiB (an untrusted count used before it
 * was checked against the bytes that remain).
 */
object AlpFuzz {

  final case class Counts(var inputs: Int = 0, var decoded: Int = 0, var errors: Int = 0,
      reasons: collection.mutable.TreeMap[String, Int] = collection.mutable.TreeMap.empty,
      var maxAllocated: Long = 0, var maxMillis: Long = 0,
      failures: ArrayBuffer[String] = ArrayBuffer.empty) {
    override def toString: String =
      s"inputs=$inputs decoded=$decoded clear_errors=$errors failures=${failures.size} " +
        s"max_alloc_over_output=${maxAllocated / 1024}KiB max_ms=$maxMillis reasons=" +
        reasons.map { case (k, v) => s"$k:$v" }.mkString(",")
  }

  /** A valid page, its type and where its fields are (for boundary-value mutations). */
  private final case class Page(name: String, t: AlpType, bytes: Array[Byte], fields: Seq[Field])
  /** A field of `width` bytes at `at` and its interesting values. */
  private final case class Field(name: String, at: Int, width: Int, values: Seq[Long])

  // ---------------------------------------------------------------- inputs

  private def doubles(shape: Int, n: Int, r: Random): Array[Double] = Array.fill(n) {
    shape match {
      case 0 => r.nextInt(10000000) / 100.0 // prices, 2 decimals
      case 1 => math.round((20 + 5 * r.nextGaussian()) * 1000) / 1000.0 // sensor, up to 3 decimals
      case 2 => math.round(r.nextGaussian() * 1e4) / 10.0 // sensor, 1 decimal, negatives
      case 3 => r.nextDouble() // random, not decimal-like
      case 4 => java.lang.Double.longBitsToDouble(r.nextLong()) // any bit pattern
      case 5 => EdgeDoubles(r.nextInt(EdgeDoubles.length))
      case _ => if (r.nextInt(8) == 0) EdgeDoubles(r.nextInt(EdgeDoubles.length)) else r.nextInt(1000) / 10.0
    }
  }

  private def floats(shape: Int, n: Int, r: Random): Array[Float] = Array.fill(n) {
    shape match {
      case 0 => r.nextInt(1000000) / 100.0f
      case 1 => (math.round((20 + 5 * r.nextGaussian()) * 1000) / 1000.0).toFloat
      case 2 => (r.nextGaussian() * 100).toFloat // float32 measurements
      case 3 => r.nextFloat()
      case 4 => java.lang.Float.intBitsToFloat(r.nextInt())
      case 5 => EdgeFloats(r.nextInt(EdgeFloats.length))
      case _ => if (r.nextInt(8) == 0) EdgeFloats(r.nextInt(EdgeFloats.length)) else r.nextInt(1000) / 10.0f
    }
  }

  private val EdgeDoubles = Array(0.0, -0.0, Double.PositiveInfinity, Double.NegativeInfinity, Double.NaN,
    java.lang.Double.longBitsToDouble(0x7ff8000000abcdefL), java.lang.Double.longBitsToDouble(0x7ff0000000000001L),
    java.lang.Double.longBitsToDouble(0xfff8000000000123L), Double.MinPositiveValue, -Double.MinPositiveValue,
    java.lang.Double.MIN_NORMAL, Double.MaxValue, Double.MinValue, 9.223372036854775807e18, -9.223372036854775808e18,
    1e18, 1e-18, 0.1, 12.34)

  private val EdgeFloats = Array(0.0f, -0.0f, Float.PositiveInfinity, Float.NegativeInfinity, Float.NaN,
    java.lang.Float.intBitsToFloat(0x7fc01234), java.lang.Float.intBitsToFloat(0x7f800001), Float.MinPositiveValue,
    -Float.MinPositiveValue, java.lang.Float.MIN_NORMAL, Float.MaxValue, Float.MinValue, 2.1474836e9f, -2.1474836e9f,
    1e10f, 1e-10f, 0.1f, 12.34f)

  private val Shapes = 7
  private val Lengths = Seq(0, 1, 7, 8, 100, 1023, 1025, 2500, 5000)
  private val LogVectorSizes = Seq(3, 5, 8, 10, 15)

  /** Every shape x type, with lengths and vector sizes drawn from `r`. */
  private def corpus(r: Random): Seq[Page] =
    for (t <- Seq(AlpType.Double, AlpType.Float); shape <- 0 until Shapes; k <- 0 until 3) yield {
      val n = Lengths(r.nextInt(Lengths.size))
      val log = LogVectorSizes(r.nextInt(LogVectorSizes.size))
      val bytes =
        if (t == AlpType.Double) AlpCodec.encodeDoubles(doubles(shape, n, r), 0, n, log)
        else AlpCodec.encodeFloats(floats(shape, n, r), 0, n, log)
      Page(s"${t.name}/shape$shape/n$n/log$log", t, bytes, fields(bytes, t))
    }

  /** The page's fields, found by walking its (valid) layout. */
  private def fields(b: Array[Byte], t: AlpType): Seq[Field] = {
    def u16(p: Int) = (b(p) & 0xff) | ((b(p + 1) & 0xff) << 8)
    def i32(p: Int) = (b(p) & 0xff) | ((b(p + 1) & 0xff) << 8) | ((b(p + 2) & 0xff) << 16) | ((b(p + 3) & 0xff) << 24)
    val f = ArrayBuffer(
      Field("compression_mode", 0, 1, Seq(1, 255)),
      Field("integer_encoding", 1, 1, Seq(1, 255)),
      Field("log_vector_size", 2, 1, Seq(0, 2, 3, 15, 16, 255)))
    val n = i32(3)
    val log = b(2)
    val vs = 1 << log
    // the most values whose offsets and vector headers fit the page's bytes: passes the header's
    // size check, so only the layout check stands before an output array of that size
    val fits = math.min(Int.MaxValue.toLong, (b.length - AlpCodec.HeaderBytes).toLong / (4 + t.vectorHeaderBytes) * vs)
    f += Field("num_elements", 3, 4, Seq(0, n - 1L, n + 1L, 2L * n, n + 1024L, fits, -1, Int.MinValue, Int.MaxValue))
    val vectors = (n + vs - 1) / vs
    val body = AlpCodec.HeaderBytes
    for (v <- 0 until vectors) {
      val o = i32(body + 4 * v)
      f += Field(s"offset[$v]", body + 4 * v, 4, Seq(0, o - 1L, o + 1L, o + 13L, 0xffffffffL, Int.MaxValue))
      val p = body + o
      val count = math.min(vs, n - v * vs)
      val e = b(p) & 0xff
      f += Field(s"exponent[$v]", p, 1, Seq(0, t.maxExponent, t.maxExponent + 1L, 255))
      f += Field(s"factor[$v]", p + 1, 1, Seq(0, e, e + 1L, 255))
      val exc = u16(p + 2)
      f += Field(s"num_exceptions[$v]", p + 2, 2, Seq(0, exc + 1L, count, count + 1L, 0xffff))
      f += Field(s"frame[$v]", p + 4, t.valueBytes, Seq(0, -1, Long.MaxValue, Long.MinValue))
      val wAt = p + 4 + t.valueBytes
      val w = b(wAt) & 0xff
      f += Field(s"bit_width[$v]", wAt, 1, Seq(0, w - 1L, w + 1L, t.maxBitWidth, t.maxBitWidth + 1L, 64, 65, 255))
      val positions = wAt + 1 + AlpBitPacking.packedBytes(count, w)
      for (j <- 0 until math.min(exc, 4))
        f += Field(s"exception_position[$v][$j]", positions + 2 * j, 2, Seq(0, count - 1L, count, 0xffff))
    }
    f.toSeq
  }

  // ---------------------------------------------------------------- mutations

  private def mutate(p: Page, r: Random): (Array[Byte], String) = {
    var b = p.bytes.clone()
    val what = ArrayBuffer.empty[String]
    for (_ <- 0 until 1 + r.nextInt(3)) {
      r.nextInt(6) match {
        case 0 if b.nonEmpty =>
          val at = r.nextInt(b.length); val bit = r.nextInt(8)
          b(at) = (b(at) ^ (1 << bit)).toByte; what += s"flip $at.$bit"
        case 1 if b.nonEmpty =>
          val at = r.nextInt(b.length); val v = r.nextInt(256)
          b(at) = v.toByte; what += s"set $at=$v"
        case 2 =>
          val keep = r.nextInt(b.length + 1); b = java.util.Arrays.copyOf(b, keep); what += s"truncate $keep"
        case 3 =>
          val extra = Array.fill(1 + r.nextInt(40))(r.nextInt(256).toByte); b = b ++ extra
          what += s"append ${extra.length}"
        case _ =>
          val live = p.fields.filter(f => f.at + f.width <= b.length)
          if (live.nonEmpty) {
            val f = live(r.nextInt(live.size))
            val v = f.values(r.nextInt(f.values.size))
            for (k <- 0 until f.width) b(f.at + k) = (v >>> (8 * k)).toByte
            what += s"${f.name}=$v"
          }
      }
    }
    (b, what.mkString(" "))
  }

  // ---------------------------------------------------------------- one input

  private val threads = ManagementFactory.getThreadMXBean.asInstanceOf[com.sun.management.ThreadMXBean]
  private def allocated(): Long = threads.getThreadAllocatedBytes(Thread.currentThread().getId)

  /**
   * Decoded values as raw bits (bit-exact comparison), or the decode error; and the bytes the
   * decoder allocated beyond its output array (measured around the codec call alone).
   */
  private def decodeAlone(b: Array[Byte], t: AlpType): (Either[AlpDecodeException, Array[Long]], Long) = {
    val before = allocated()
    val decoded: Either[AlpDecodeException, AnyRef] =
      try Right(if (t == AlpType.Double) AlpCodec.decodeDoubles(b) else AlpCodec.decodeFloats(b))
      catch { case e: AlpDecodeException => Left(e) }
    val grown = allocated() - before
    decoded match {
      case Right(d: Array[Double]) => (Right(d.map(java.lang.Double.doubleToRawLongBits)), grown - 8L * d.length)
      case Right(f: Array[Float]) => (Right(f.map(x => java.lang.Float.floatToRawIntBits(x).toLong)), grown - 4L * f.length)
      case Right(other) => throw new IllegalStateException(s"unexpected ${other.getClass}")
      case Left(e) => (Left(e), grown)
    }
  }

  /** The reader's path: the page at `pad` inside a larger buffer, into a caller's array of `capacity`. */
  private def decodeEmbedded(b: Array[Byte], t: AlpType, pad: Int, capacity: Int, r: Random)
      : Either[AlpDecodeException, Array[Long]] = {
    val buf = new Array[Byte](pad + b.length + pad)
    r.nextBytes(buf)
    System.arraycopy(b, 0, buf, pad, b.length)
    try Right(t match {
      case AlpType.Double =>
        val out = new Array[Double](capacity + 1)
        val n = AlpCodec.decodeDoubles(buf, pad, b.length, out, 1)
        out.slice(1, 1 + n).map(java.lang.Double.doubleToRawLongBits)
      case AlpType.Float =>
        val out = new Array[Float](capacity + 1)
        val n = AlpCodec.decodeFloats(buf, pad, b.length, out, 1)
        out.slice(1, 1 + n).map(x => java.lang.Float.floatToRawIntBits(x).toLong)
    }) catch { case e: AlpDecodeException => Left(e) }
  }

  private def reencode(bits: Array[Long], t: AlpType, log: Int): Array[Long] = t match {
    case AlpType.Double =>
      val v = bits.map(java.lang.Double.longBitsToDouble)
      AlpCodec.decodeDoubles(AlpCodec.encodeDoubles(v, 0, v.length, log)).map(java.lang.Double.doubleToRawLongBits)
    case AlpType.Float =>
      val v = bits.map(x => java.lang.Float.intBitsToFloat(x.toInt))
      AlpCodec.decodeFloats(AlpCodec.encodeFloats(v, 0, v.length, log)).map(x => java.lang.Float.floatToRawIntBits(x).toLong)
  }

  /** Checks one mutated page; returns the failure, if any. */
  private def check(p: Page, b: Array[Byte], c: Counts, r: Random): Option[String] = {
    val (alone, overhead) = decodeAlone(b, p.t)
    c.maxAllocated = math.max(c.maxAllocated, overhead)
    if (overhead > (1 << 20)) return Some(s"allocated $overhead bytes beyond the output for a ${b.length}-byte page")
    // the reader's path, into a caller's array sized like the original page's num_elements
    val capacity = AlpCodec.readHeader(p.bytes, 0, p.bytes.length, p.t).numElements
    val embedded = decodeEmbedded(b, p.t, 1 + r.nextInt(16), capacity, r)
    // a caller's array sized from the original page refuses a page whose num_elements grew
    val refusedAsTooMany = embedded match {
      case Left(e) => e.reason.code == "bad_element_count" && e.reason.offset == 3 &&
        b.length >= AlpCodec.HeaderBytes && java.nio.ByteBuffer.wrap(b, 3, 4).order(java.nio.ByteOrder.LITTLE_ENDIAN)
          .getInt() > capacity
      case Right(_) => false
    }
    alone match {
      case Right(v) =>
        c.decoded += 1
        embedded match {
          case Right(w) if !java.util.Arrays.equals(v, w) => return Some("the two decodes differ")
          case Left(e2) if !refusedAsTooMany => return Some(s"decodes only alone: ${e2.reason}")
          case _ =>
        }
        val log = 3 + r.nextInt(13)
        if (!java.util.Arrays.equals(reencode(v, p.t, log), v)) return Some(s"re-encoding (log $log) does not round-trip")
        None
      case Left(e) =>
        c.errors += 1
        c.reasons(e.reason.code) = c.reasons.getOrElse(e.reason.code, 0) + 1
        val off = e.reason.offset
        val inside = off >= 0 && (off < b.length || (off == b.length && e.reason.isInstanceOf[AlpErrorReason.Truncated]))
        if (!inside) return Some(s"offset $off outside the ${b.length}-byte input: ${e.getMessage}")
        embedded match {
          case Left(e2) if e2.reason == e.reason || refusedAsTooMany => None
          case Left(e2) => Some(s"the two decodes fail differently: ${e.reason} vs ${e2.reason}")
          case Right(_) => Some(s"decodes only from the caller's array: ${e.reason}")
        }
    }
  }

  def run(n: Int, seed: Long, log: String => Unit = println): Counts = {
    // One generator for the run (corpus and mutations): java.util.Random's first outputs for
    // nearby seeds are correlated, so a generator per input would not spread the inputs.
    val r = new Random(seed)
    val pages = corpus(r)
    val c = Counts()
    val clock = new io.superspark.FuzzClock()
    for (i <- 0 until n) {
      val p = pages(r.nextInt(pages.size))
      val (b, what) = mutate(p, r)
      val (failure, ms, over) = clock.time {
        try check(p, b, c, r)
        catch { case e: Exception => Some(s"unchecked ${e.getClass.getName}: ${e.getMessage}") }
      }
      c.maxMillis = math.max(c.maxMillis, ms)
      failure.orElse(if (over) Some(s"took $ms ms of CPU time") else None)
        .foreach(f => c.failures += s"${p.name} input $i ($what): $f")
      c.inputs += 1
    }
    c.failures.take(20).foreach(f => log(s"FAIL $f"))
    c
  }

  def main(args: Array[String]): Unit = io.superspark.FuzzMain.run("fuzz-alp", args) { (n, seed) =>
    val c = run(n, seed)
    (c.toString, c.failures.nonEmpty)
  }
}
