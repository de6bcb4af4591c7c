package io.superspark.parquet.alp

import io.superspark.parquet.alp.AlpErrorReason._

/** The two physical types ALP encodes, with their sizes in the page layout. */
private[superspark] sealed abstract class AlpType(val name: String, val maxExponent: Int, val valueBytes: Int) {
  /** AlpInfo (4 bytes) + ForInfo (frame of reference + bit width). */
  val vectorHeaderBytes: Int = 4 + valueBytes + 1
  val maxBitWidth: Int = valueBytes * 8
}
private[superspark] object AlpType {
  case object Float extends AlpType("FLOAT", AlpDecimal.MaxFloatExponent, 4)
  case object Double extends AlpType("DOUBLE", AlpDecimal.MaxDoubleExponent, 8)
}

/**
 * ALP page codec (parquet-format `AlpEncoding.md`): a 7-byte header, an offset array and
 * self-describing vectors (AlpInfo, ForInfo, bit-packed FOR deltas, exception positions and
 * exact IEEE-754 exception values). Pure: bytes in, values out.
 *
 * Encoding picks (exponent, factor) per page by sampling (up to 8 vectors x 256 values, the best
 * 5 pairs kept as the page's preset), then per vector the preset pair with the smallest size on
 * a 256-value sample. Any value that does not decode back bit for bit is stored as an exception.
 */
private[superspark] object AlpCodec {
  final val HeaderBytes = 7
  final val DefaultLogVectorSize = 10
  private final val SampleValues = 256
  private final val SampleVectors = 8
  private final val PresetSize = 5

  // ---------------------------------------------------------------- encoding

  def encodeDoubles(values: Array[Double]): Array[Byte] = encodeDoubles(values, 0, values.length)
  def encodeDoubles(values: Array[Double], from: Int, count: Int,
      logVectorSize: Int = DefaultLogVectorSize): Array[Byte] =
    encodePage(new DoubleSource(values, from, count), logVectorSize)

  def encodeFloats(values: Array[Float]): Array[Byte] = encodeFloats(values, 0, values.length)
  def encodeFloats(values: Array[Float], from: Int, count: Int,
      logVectorSize: Int = DefaultLogVectorSize): Array[Byte] =
    encodePage(new FloatSource(values, from, count), logVectorSize)

  /** Values to encode: one type's array slice, decimal-encoded by [[AlpDecimal]]. */
  private abstract class Source(val t: AlpType, val length: Int) {
    def encode(from: Int, n: Int, e: Int, f: Int, enc: Array[Long], exc: Array[Boolean]): Int
    def rawBits(i: Int): Long
    /** `count` values of [from, from + n) at an even stride, as a new source. */
    def sample(from: Int, n: Int, count: Int): Source
  }

  private final class DoubleSource(v: Array[Double], base: Int, n: Int) extends Source(AlpType.Double, n) {
    require(base >= 0 && n >= 0 && base + n <= v.length, "slice outside the array")
    def encode(from: Int, k: Int, e: Int, f: Int, enc: Array[Long], exc: Array[Boolean]): Int =
      AlpDecimal.encodeDoubles(v, base + from, k, e, f, enc, exc)
    def rawBits(i: Int): Long = java.lang.Double.doubleToRawLongBits(v(base + i))
    def sample(from: Int, k: Int, count: Int): Source = {
      val s = Array.tabulate(count)(j => v(base + from + sampleIndex(j, k, count)))
      new DoubleSource(s, 0, count)
    }
  }

  private final class FloatSource(v: Array[Float], base: Int, n: Int) extends Source(AlpType.Float, n) {
    require(base >= 0 && n >= 0 && base + n <= v.length, "slice outside the array")
    def encode(from: Int, k: Int, e: Int, f: Int, enc: Array[Long], exc: Array[Boolean]): Int =
      AlpDecimal.encodeFloats(v, base + from, k, e, f, enc, exc)
    def rawBits(i: Int): Long = java.lang.Float.floatToRawIntBits(v(base + i)).toLong & 0xffffffffL
    def sample(from: Int, k: Int, count: Int): Source = {
      val s = Array.tabulate(count)(j => v(base + from + sampleIndex(j, k, count)))
      new FloatSource(s, 0, count)
    }
  }

  /**
   * The `j`-th of `count` sampled positions of `n` values: one position in each of `count`
   * equal buckets, at a fixed pseudo-random place in the bucket. A fixed stride would alias
   * with periodic data (every 4th of `id * 0.25` is a whole number: a stride-4 sample saw only
   * integers, chose exponent 0, and stored three values in four as exceptions).
   */
  private def sampleIndex(j: Int, n: Int, count: Int): Int = {
    val lo = (j.toLong * n / count).toInt
    val hi = ((j + 1).toLong * n / count).toInt
    if (hi - lo <= 1) lo else lo + Integer.remainderUnsigned(j * 0x9E3779B1 + 0x7F4A7C15, hi - lo)
  }

  /** Estimated bits of `n` values encoded with (e, f): packed deltas plus exceptions. */
  private def cost(src: Source, from: Int, n: Int, e: Int, f: Int, enc: Array[Long], exc: Array[Boolean]): Long = {
    val exceptions = src.encode(from, n, e, f, enc, exc)
    var min = Long.MaxValue
    var max = Long.MinValue
    var i = 0
    while (i < n) {
      if (!exc(i)) { if (enc(i) < min) min = enc(i); if (enc(i) > max) max = enc(i) }
      i += 1
    }
    val width = if (exceptions == n) 0 else AlpBitPacking.bitWidth(max - min)
    n.toLong * width + exceptions.toLong * (16 + src.t.maxBitWidth)
  }

  private def allPairs(t: AlpType): Seq[(Int, Int)] =
    for (e <- 0 to t.maxExponent; f <- 0 to e) yield (e, f)

  /** The page's candidate (e, f) pairs: the ones that win most often on sampled vectors. */
  private def preset(src: Source, vectorSize: Int, vectors: Int): Seq[(Int, Int)] = {
    val pairs = allPairs(src.t)
    val wins = scala.collection.mutable.HashMap.empty[(Int, Int), (Int, Long)]
    val picked = math.min(SampleVectors, vectors)
    val enc = new Array[Long](SampleValues)
    val exc = new Array[Boolean](SampleValues)
    for (k <- 0 until picked) {
      val vec = (k.toLong * vectors / picked).toInt
      val from = vec * vectorSize
      val n = math.min(vectorSize, src.length - from)
      val s = src.sample(from, n, math.min(n, SampleValues))
      var best = pairs.head
      var bestCost = Long.MaxValue
      for ((e, f) <- pairs) {
        val c = cost(s, 0, s.length, e, f, enc, exc)
        // prefer the smaller exponent on ties: fewer digits, same bits
        if (c < bestCost) { best = (e, f); bestCost = c }
      }
      val (w, total) = wins.getOrElse(best, (0, 0L))
      wins(best) = (w + 1, total + bestCost)
    }
    if (wins.isEmpty) Seq((0, 0))
    else wins.toSeq.sortBy { case (p, (w, total)) => (-w, total, p) }.take(PresetSize).map(_._1)
  }

  /** One page with every vector encoded by the given (e, f): for tests of the layout. */
  private[alp] def encodeDoublesWith(values: Array[Double], e: Int, f: Int): Array[Byte] =
    encodePage(new DoubleSource(values, 0, values.length), DefaultLogVectorSize, Some((e, f)))

  private def encodePage(src: Source, logVectorSize: Int, forced: Option[(Int, Int)] = None): Array[Byte] = {
    require(logVectorSize >= 3 && logVectorSize <= 15, s"log_vector_size $logVectorSize outside [3, 15]")
    val t = src.t
    val n = src.length
    val vectorSize = 1 << logVectorSize
    val vectors = (n + vectorSize - 1) / vectorSize
    val candidates = forced.map(Seq(_)).getOrElse(preset(src, vectorSize, vectors))
    val worst = HeaderBytes.toLong + 4L * vectors + vectors.toLong * t.vectorHeaderBytes +
      n.toLong * (t.valueBytes + 2 + t.valueBytes)
    require(worst <= Int.MaxValue - 8, s"$n values do not fit one ALP page")
    val out = new Array[Byte](worst.toInt)
    out(0) = 0; out(1) = 0; out(2) = logVectorSize.toByte
    putInt(out, 3, n)
    val offsets = HeaderBytes
    var pos = HeaderBytes + 4 * vectors
    val enc = new Array[Long](vectorSize)
    val exc = new Array[Boolean](vectorSize)
    val sampleEnc = new Array[Long](SampleValues)
    val sampleExc = new Array[Boolean](SampleValues)
    var v = 0
    while (v < vectors) {
      putInt(out, offsets + 4 * v, pos - HeaderBytes)
      val from = v * vectorSize
      val len = math.min(vectorSize, n - from)
      val (e, f) =
        if (candidates.size == 1) candidates.head
        else {
          val s = src.sample(from, len, math.min(len, SampleValues))
          candidates.minBy { case (e, f) => cost(s, 0, s.length, e, f, sampleEnc, sampleExc) }
        }
      pos = encodeVector(src, from, len, e, f, enc, exc, out, pos)
      v += 1
    }
    java.util.Arrays.copyOf(out, pos)
  }

  private def encodeVector(src: Source, from: Int, n: Int, e: Int, f: Int, enc: Array[Long],
      exc: Array[Boolean], out: Array[Byte], start: Int): Int = {
    val t = src.t
    var exceptions = src.encode(from, n, e, f, enc, exc)
    // placeholder for exceptions: the first non-exception encoded value, or 0
    var placeholder = 0L
    var i = 0
    while (i < n && exc(i)) i += 1
    if (i < n) placeholder = enc(i)
    var min = Long.MaxValue
    i = 0
    while (i < n) {
      if (exc(i)) enc(i) = placeholder
      if (enc(i) < min) min = enc(i)
      i += 1
    }
    if (n == 0) min = 0
    var maxDelta = 0L
    i = 0
    while (i < n) {
      val d = enc(i) - min // unsigned, wrapping
      if (java.lang.Long.compareUnsigned(d, maxDelta) > 0) maxDelta = d
      enc(i) = d
      i += 1
    }
    var width = AlpBitPacking.bitWidth(maxDelta)
    // A few values that happen to round-trip among many that do not (random doubles) widen
    // every value's bits: when storing every value as an exception is smaller, do that.
    if (AlpBitPacking.packedBytes(n, width).toLong + exceptions.toLong * (2 + t.valueBytes) >
        n.toLong * (2 + t.valueBytes)) {
      java.util.Arrays.fill(exc, 0, n, true)
      java.util.Arrays.fill(enc, 0, n, 0L)
      exceptions = n
      min = 0
      width = 0
    }
    var pos = start
    out(pos) = e.toByte; out(pos + 1) = f.toByte
    putShort(out, pos + 2, exceptions)
    pos += 4
    if (t == AlpType.Double) { putLong(out, pos, min); pos += 8 } else { putInt(out, pos, min.toInt); pos += 4 }
    out(pos) = width.toByte
    pos += 1
    pos = AlpBitPacking.pack(enc, n, width, out, pos)
    val valuesAt = pos + 2 * exceptions
    var j = 0
    i = 0
    while (i < n) {
      if (exc(i)) {
        putShort(out, pos + 2 * j, i)
        if (t == AlpType.Double) putLong(out, valuesAt + 8 * j, src.rawBits(from + i))
        else putInt(out, valuesAt + 4 * j, src.rawBits(from + i).toInt)
        j += 1
      }
      i += 1
    }
    valuesAt + exceptions * t.valueBytes
  }

  // ---------------------------------------------------------------- decoding

  /** The parsed 7-byte page header. */
  final case class PageHeader(logVectorSize: Int, numElements: Int) {
    def vectorSize: Int = 1 << logVectorSize
    def vectors: Int = ((numElements.toLong + vectorSize - 1) / vectorSize).toInt
  }

  /** Reads and checks the page header against the `len` bytes of ALP data at `off`. */
  def readHeader(buf: Array[Byte], off: Int, len: Int, t: AlpType): PageHeader = {
    if (len < HeaderBytes) fail(Truncated(0, HeaderBytes, len))
    val mode = buf(off) & 0xff
    if (mode != 0) fail(UnsupportedMode(0, "compression_mode", mode))
    val ie = buf(off + 1) & 0xff
    if (ie != 0) fail(UnsupportedMode(1, "integer_encoding", ie))
    val log = buf(off + 2) & 0xff
    if (log < 3 || log > 15) fail(BadVectorSize(2, log))
    val n = getInt(buf, off + 3)
    if (n < 0) fail(BadElementCount(3, n, "negative"))
    val h = PageHeader(log, n)
    // every vector needs its offset and its header: bounds the values before any allocation
    val minBytes = HeaderBytes.toLong + h.vectors.toLong * (4 + t.vectorHeaderBytes)
    if (minBytes > len) fail(Truncated(HeaderBytes, minBytes - HeaderBytes, len - HeaderBytes))
    h
  }

  /**
   * Checks the whole page layout (header, every vector's offset, header and size) against the
   * `len` bytes at `off` without decoding a value. A page that passes cannot make a decoder
   * read outside it, so its num_elements is safe to size an output array from.
   */
  def checkLayout(buf: Array[Byte], off: Int, len: Int, t: AlpType): PageHeader = {
    require(off >= 0 && len >= 0 && off.toLong + len <= buf.length, "ALP data outside the buffer")
    val h = readHeader(buf, off, len, t)
    walk(buf, off, len, h, t, null)
    h
  }

  def decodeDoubles(buf: Array[Byte]): Array[Double] = {
    val h = checkLayout(buf, 0, buf.length, AlpType.Double)
    val out = new Array[Double](h.numElements)
    decodeDoubles(buf, 0, buf.length, out, 0)
    out
  }

  def decodeFloats(buf: Array[Byte]): Array[Float] = {
    val h = checkLayout(buf, 0, buf.length, AlpType.Float)
    val out = new Array[Float](h.numElements)
    decodeFloats(buf, 0, buf.length, out, 0)
    out
  }

  /** Decodes the ALP data `buf[off, off + len)` into `out` from `outPos`; returns the count. */
  def decodeDoubles(buf: Array[Byte], off: Int, len: Int, out: Array[Double], outPos: Int): Int =
    decodePage(buf, off, len, new DoubleSink(out, outPos))

  def decodeFloats(buf: Array[Byte], off: Int, len: Int, out: Array[Float], outPos: Int): Int =
    decodePage(buf, off, len, new FloatSink(out, outPos))

  /**
   * Where decoded values go: one type's array, decimal-decoded by [[AlpDecimal]]. `decode`
   * unpacks `n` values of `width` bits at `buf(pos)` and decodes them into rows `at` on: in one
   * pass (one 64-bit load a value) when [[AlpBitPacking.wordReadable]], else through `deltas`.
   */
  private abstract class Sink(val t: AlpType, val capacity: Int) {
    def decode(buf: Array[Byte], pos: Int, n: Int, width: Int, frame: Long, e: Int, f: Int, at: Int,
        deltas: Array[Long]): Unit
    def patch(at: Int, bits: Long): Unit
  }

  private final class DoubleSink(out: Array[Double], base: Int) extends Sink(AlpType.Double, out.length - base) {
    def decode(buf: Array[Byte], pos: Int, n: Int, width: Int, frame: Long, e: Int, f: Int, at: Int,
        deltas: Array[Long]): Unit = {
      val pf = AlpDecimal.DoublePow10(f)
      val ne = AlpDecimal.DoubleNegPow10(e)
      val o = base + at
      var i = 0
      if (AlpBitPacking.wordReadable(buf, pos, n, width)) {
        val mask = (1L << width) - 1
        var bit = pos.toLong << 3
        while (i < n) {
          out(o + i) = (AlpBitPacking.valueAt(buf, bit, mask) + frame).toDouble * pf * ne
          bit += width
          i += 1
        }
      } else {
        AlpBitPacking.unpack(buf, pos, n, width, deltas)
        while (i < n) { out(o + i) = (deltas(i) + frame).toDouble * pf * ne; i += 1 }
      }
    }
    def patch(at: Int, bits: Long): Unit = out(base + at) = java.lang.Double.longBitsToDouble(bits)
  }

  private final class FloatSink(out: Array[Float], base: Int) extends Sink(AlpType.Float, out.length - base) {
    def decode(buf: Array[Byte], pos: Int, n: Int, width: Int, frame: Long, e: Int, f: Int, at: Int,
        deltas: Array[Long]): Unit = {
      val pf = AlpDecimal.FloatPow10(f)
      val ne = AlpDecimal.FloatNegPow10(e)
      val fr = frame.toInt
      val o = base + at
      var i = 0
      if (AlpBitPacking.wordReadable(buf, pos, n, width)) {
        val mask = (1L << width) - 1
        var bit = pos.toLong << 3
        while (i < n) {
          out(o + i) = (AlpBitPacking.valueAt(buf, bit, mask).toInt + fr).toFloat * pf * ne
          bit += width
          i += 1
        }
      } else {
        AlpBitPacking.unpack(buf, pos, n, width, deltas)
        while (i < n) { out(o + i) = (deltas(i).toInt + fr).toFloat * pf * ne; i += 1 }
      }
    }
    def patch(at: Int, bits: Long): Unit = out(base + at) = java.lang.Float.intBitsToFloat(bits.toInt)
  }

  private def decodePage(buf: Array[Byte], off: Int, len: Int, sink: Sink): Int = {
    require(off >= 0 && len >= 0 && off.toLong + len <= buf.length, "ALP data outside the buffer")
    val t = sink.t
    val h = readHeader(buf, off, len, t)
    val n = h.numElements
    if (n > sink.capacity) fail(BadElementCount(3, n, s"more than the ${sink.capacity} values expected"))
    // the layout first: a page with a bad vector anywhere writes nothing into `out`, and fails
    // with the same reason as the convenience decoders that check it before allocating
    walk(buf, off, len, h, t, null)
    walk(buf, off, len, h, t, sink)
    n
  }

  /** Checks every vector of the page in order and, when `sink` is not null, decodes it into `sink`. */
  private def walk(buf: Array[Byte], off: Int, len: Int, h: PageHeader, t: AlpType, sink: Sink): Unit = {
    val n = h.numElements
    val vectors = h.vectors
    val body = off + HeaderBytes // offsets are relative to here
    val bodyLen = len - HeaderBytes
    val deltas = if (sink == null) null else new Array[Long](math.min(h.vectorSize, n))
    var expected = 4L * vectors
    var v = 0
    while (v < vectors) {
      val o = getInt(buf, body + 4 * v) & 0xffffffffL
      if (o != expected) fail(BadVectorOffset(HeaderBytes + 4L * v, v, o, expected))
      val at = v * h.vectorSize
      val count = math.min(h.vectorSize, n - at)
      expected = o + vector(buf, body, bodyLen, o.toInt, count, t, sink, at, deltas)
      v += 1
    }
    if (expected != bodyLen) fail(TrailingBytes(HeaderBytes + expected, bodyLen - expected))
  }

  /**
   * Checks the header and size of the vector at `body + start` and, when `sink` is not null,
   * decodes it; returns its size in bytes.
   */
  private def vector(buf: Array[Byte], body: Int, bodyLen: Int, start: Int, n: Int, t: AlpType,
      sink: Sink, at: Int, deltas: Array[Long]): Int = {
    val abs = HeaderBytes.toLong + start // offset reported in errors
    val avail = bodyLen - start
    if (avail < t.vectorHeaderBytes) fail(Truncated(abs, t.vectorHeaderBytes, avail))
    val p = body + start
    val e = buf(p) & 0xff
    val f = buf(p + 1) & 0xff
    if (e > t.maxExponent || f > e) fail(BadExponent(abs, e, f, t.maxExponent))
    val exceptions = getShort(buf, p + 2)
    if (exceptions > n) fail(BadExceptionCount(abs + 2, exceptions, n))
    val frame = if (t == AlpType.Double) getLong(buf, p + 4) else getInt(buf, p + 4).toLong
    val width = buf(p + 4 + t.valueBytes) & 0xff
    if (width > t.maxBitWidth) fail(BadBitWidth(abs + 4 + t.valueBytes, width, t.maxBitWidth))
    val packed = AlpBitPacking.packedBytes(n, width)
    val size = t.vectorHeaderBytes.toLong + packed + exceptions.toLong * (2 + t.valueBytes)
    if (size > avail) fail(Truncated(abs, size, avail))
    if (sink == null) return size.toInt
    val data = p + t.vectorHeaderBytes
    sink.decode(buf, data, n, width, frame, e, f, at, deltas)
    val positions = data + packed
    val values = positions + 2 * exceptions
    var j = 0
    while (j < exceptions) {
      val i = getShort(buf, positions + 2 * j)
      if (i >= n) fail(BadExceptionPosition(abs + (positions - p) + 2L * j, i, n))
      val bits = if (t == AlpType.Double) getLong(buf, values + 8 * j) else getInt(buf, values + 4 * j).toLong
      sink.patch(at + i, bits)
      j += 1
    }
    size.toInt
  }

  /**
   * One page whose whole layout was checked ([[checkLayout]]) when it was made, decoded in any
   * ranges of its values straight into a caller's array (a column vector's own array: no
   * intermediate page buffer). Vectors wholly inside a range are decoded in place; the ends of
   * a range that cut a vector go through one reused vector of scratch. Errors found only while
   * decoding (an exception position) are [[AlpDecodeException]]s, as [[decodeDoubles]] throws.
   */
  final class PageDecoder(buf: Array[Byte], off: Int, len: Int, t: AlpType) {
    val header: PageHeader = checkLayout(buf, off, len, t)
    private val n = header.numElements
    private val vs = header.vectorSize
    private val body = off + HeaderBytes
    private var deltas: Array[Long] = _
    private lazy val scratch: AnyRef =
      if (t == AlpType.Double) new Array[Double](math.min(vs, n)) else new Array[Float](math.min(vs, n))

    def numElements: Int = n

    /** Values [from, from + count) into `out` from `pos` (DOUBLE pages). */
    def doubles(from: Int, count: Int, out: Array[Double], pos: Int): Unit = range(from, count, out, pos)

    /** Values [from, from + count) into `out` from `pos` (FLOAT pages). */
    def floats(from: Int, count: Int, out: Array[Float], pos: Int): Unit = range(from, count, out, pos)

    /** A sink writing the sink's row `at` into `out(base + at)`. */
    private def sink(out: AnyRef, base: Int): Sink = out match {
      case d: Array[Double] if t == AlpType.Double => new DoubleSink(d, base)
      case f: Array[Float] if t == AlpType.Float => new FloatSink(f, base)
      case _ => throw new IllegalArgumentException(s"an output array of another type than the page's ${t.name}")
    }

    private def range(from: Int, count: Int, out: AnyRef, pos: Int): Unit = {
      require(from >= 0 && count >= 0 && from.toLong + count <= n, s"values [$from, +$count) outside a page of $n")
      if (count == 0) return
      if (deltas == null) deltas = new Array[Long](math.min(vs, n))
      val bodyLen = len - HeaderBytes
      val end = from + count
      var v = from / vs
      while (v.toLong * vs < end) {
        val start = v * vs
        val k = math.min(vs, n - start)
        val o = getInt(buf, body + 4 * v)
        if (start >= from && start + k <= end) {
          // the sink's row `start` lands at pos + (start - from)
          vector(buf, body, bodyLen, o, k, t, sink(out, pos - from), start, deltas)
        } else {
          vector(buf, body, bodyLen, o, k, t, sink(scratch, 0), 0, deltas)
          val lo = math.max(from, start)
          val hi = math.min(end, start + k)
          System.arraycopy(scratch, lo - start, out, pos + (lo - from), hi - lo)
        }
        v += 1
      }
    }
  }

  private def fail(reason: AlpErrorReason): Nothing = throw new AlpDecodeException(reason)

  // ---------------------------------------------------------------- little-endian helpers

  private def putShort(b: Array[Byte], p: Int, v: Int): Unit = { b(p) = v.toByte; b(p + 1) = (v >>> 8).toByte }
  private def putInt(b: Array[Byte], p: Int, v: Int): Unit = {
    b(p) = v.toByte; b(p + 1) = (v >>> 8).toByte; b(p + 2) = (v >>> 16).toByte; b(p + 3) = (v >>> 24).toByte
  }
  private def putLong(b: Array[Byte], p: Int, v: Long): Unit = { putInt(b, p, v.toInt); putInt(b, p + 4, (v >>> 32).toInt) }
  private def getShort(b: Array[Byte], p: Int): Int = (b(p) & 0xff) | ((b(p + 1) & 0xff) << 8)
  private def getInt(b: Array[Byte], p: Int): Int =
    (b(p) & 0xff) | ((b(p + 1) & 0xff) << 8) | ((b(p + 2) & 0xff) << 16) | ((b(p + 3) & 0xff) << 24)
  private def getLong(b: Array[Byte], p: Int): Long = (getInt(b, p) & 0xffffffffL) | (getInt(b, p + 4).toLong << 32)
}
