package io.superspark.parquet.alp

import io.superspark.parquet.alp.AlpChunkErrorReason._
import io.superspark.parquet.thrift.{ThriftCompactWriter, ThriftWalker}

/**
 * The values of one flat FLOAT or DOUBLE column over some rows: `doubles` or `floats` (per
 * `t`), and `nulls` (true = null; absent for a required column). The value at a null row is 0.
 */
private[superspark] final class AlpValues(val t: AlpType, val rows: Int, val doubles: Array[Double], val floats: Array[Float],
    val nulls: Array[Boolean]) {
  require(rows >= 0, s"negative row count $rows")
  require((if (t == AlpType.Double) doubles else floats) != null && (nulls == null || nulls.length >= rows),
    "value arrays missing")
  def isOptional: Boolean = nulls != null
  def nullCount: Int = { var c = 0; if (nulls != null) { var i = 0; while (i < rows) { if (nulls(i)) c += 1; i += 1 } }; c }
}

private[superspark] object AlpValues {
  /** Zeroed arrays for `rows` values. */
  def allocate(t: AlpType, rows: Int, optional: Boolean): AlpValues = new AlpValues(t, rows,
    if (t == AlpType.Double) new Array[Double](rows) else null, if (t == AlpType.Float) new Array[Float](rows) else null,
    if (optional) new Array[Boolean](rows) else null)
}

/** The page compression of a column chunk (the column's codec; [[AlpChunk.Uncompressed]] for none). */
private[superspark] trait PageCompression {
  def compress(body: Array[Byte]): Array[Byte]
  /** Decompresses `len` bytes at `off`, which must give exactly `uncompressedSize` bytes. */
  def decompress(in: Array[Byte], off: Int, len: Int, uncompressedSize: Int): Array[Byte]
  /** Whether stored bodies are the bodies themselves (UNCOMPRESSED): a reader decodes them in place. */
  def isIdentity: Boolean = false
}

/**
 * An encoded ALP column chunk: its bytes (page headers and page bodies) and counts;
 * `compressed`: whether the bodies went through the caller's codec (else they are UNCOMPRESSED).
 */
private[superspark] final case class AlpChunkBytes(bytes: Array[Byte], pages: Int, rows: Int, uncompressedSize: Long,
    compressed: Boolean = true, plainPages: Int = 0) {
  /** Pages whose values are ALP (the others are PLAIN). */
  def alpPages: Int = pages - plainPages
}

/**
 * One ALP column chunk, the layout shared by the private and the ratified form
 * (docs/alp.md, "Chunk layout"): ordinary Parquet V1 data pages, each
 *
 * {{{
 *   Thrift compact PageHeader { 1: type = DATA_PAGE, 2: uncompressed_page_size,
 *     3: compressed_page_size, 5: DataPageHeader { 1: num_values (rows, nulls included),
 *     2: encoding = ALP (10), 3: definition_level_encoding = RLE, 4: repetition_level_encoding = RLE } }
 *   body, compressed with the column's codec:
 *     optional column: 4-byte little-endian length + RLE/bit-packed hybrid definition levels (bit width 1)
 *     the ALP page ([[AlpCodec]]) of the page's non-null values
 * }}}
 *
 * Pure: bytes in, values out; every length is checked against the bytes that remain before
 * anything is allocated from it. Errors: [[AlpChunkException]] with the offset in the chunk.
 */
private[superspark] object AlpChunk {
  final val AlpEncoding = 10
  final val PlainEncoding = 0
  final val RleEncoding = 3
  final val DataPage = 0
  final val DataPageV2 = 3
  /** Rows per page written (64 ALP vectors of 1024). */
  final val DefaultPageRows = 65536

  object Uncompressed extends PageCompression {
    override def isIdentity: Boolean = true
    def compress(body: Array[Byte]): Array[Byte] = body
    def decompress(in: Array[Byte], off: Int, len: Int, uncompressedSize: Int): Array[Byte] =
      java.util.Arrays.copyOfRange(in, off, off + len)
  }

  // ---------------------------------------------------------------- writing

  /**
   * A chunk's ALP pages go through the column's codec only when it saves at least
   * 1/`MinCodecSaving` of their bytes (an eighth): ALP pages are dense already, and a codec
   * that shaves off a few percent costs a decompression of every page on every scan.
   */
  final val MinCodecSaving = 8

  /**
   * The values as ALP pages: UNCOMPRESSED (`compressed` = false) unless `compression` saves
   * [[MinCodecSaving]] of the page bodies' bytes.
   */
  def encode(v: AlpValues, compression: PageCompression, pageRows: Int = DefaultPageRows): AlpChunkBytes =
    encodeChosen(v, compression, pageRows, (_, _) => true)

  /**
   * The values as pages of [[pageRows]] rows, each ALP where `alp(from, n)` says so and PLAIN
   * otherwise (the ratified form's per-page choice, [[AlpEncodingChoice]]); the chunk's pages
   * go through `compression` only when it saves [[MinCodecSaving]] of their bytes.
   */
  def encodeChosen(v: AlpValues, compression: PageCompression, pageRows: Int, alp: (Int, Int) => Boolean): AlpChunkBytes =
    encodePages(v, compression, pageRows, (v, from, n) =>
      if (alp(from, n)) (AlpEncoding, alpBody(v, from, n)) else (PlainEncoding, plainBody(v, from, n)), rawOrCodec = true)

  /**
   * The same values as ordinary PLAIN V1 data pages (what `alp-decode` writes): the layout
   * above with encoding PLAIN (0) and the page's non-null values as little-endian IEEE-754.
   */
  def encodePlain(v: AlpValues, compression: PageCompression, pageRows: Int = DefaultPageRows): AlpChunkBytes =
    encodePages(v, compression, pageRows, (v, from, n) => (PlainEncoding, plainBody(v, from, n)))

  private def plainBody(v: AlpValues, from: Int, n: Int): Array[Byte] = withLevels(v, from, n, plainValues(v, from, n))

  private def encodePages(v: AlpValues, compression: PageCompression, pageRows: Int,
      body: (AlpValues, Int, Int) => (Int, Array[Byte]), rawOrCodec: Boolean = false): AlpChunkBytes = {
    require(pageRows > 0, "pageRows must be positive")
    val pages = scala.collection.mutable.ArrayBuffer.empty[(Int, Int, Array[Byte], Array[Byte])] // rows, encoding, body, compressed
    var from = 0
    while (from < v.rows) {
      val n = math.min(pageRows, v.rows - from)
      val (encoding, b) = body(v, from, n)
      pages += ((n, encoding, b, if (compression eq Uncompressed) b else compression.compress(b)))
      from += n
    }
    val (packed, raw) = (pages.map(_._4.length.toLong).sum, pages.map(_._3.length.toLong).sum)
    val compressed = (compression ne Uncompressed) &&
      !(rawOrCodec && packed > raw - raw / MinCodecSaving)
    val out = new java.io.ByteArrayOutputStream(math.max(64, v.rows * v.t.valueBytes / 2))
    var uncompressed = 0L
    pages.foreach { case (n, encoding, b, c) =>
      val stored = if (compressed) c else b
      val header = pageHeader(n, b.length, stored.length, encoding)
      out.write(header)
      out.write(stored)
      uncompressed += header.length + b.length
    }
    AlpChunkBytes(out.toByteArray, pages.size, v.rows, uncompressed, compressed, pages.count(_._2 == PlainEncoding))
  }

  private def plainValues(v: AlpValues, from: Int, n: Int): Array[Byte] = {
    val b = java.nio.ByteBuffer.allocate(n * v.t.valueBytes).order(java.nio.ByteOrder.LITTLE_ENDIAN)
    var i = from
    while (i < from + n) {
      if (v.nulls == null || !v.nulls(i)) {
        if (v.t == AlpType.Double) b.putLong(java.lang.Double.doubleToRawLongBits(v.doubles(i)))
        else b.putInt(java.lang.Float.floatToRawIntBits(v.floats(i)))
      }
      i += 1
    }
    java.util.Arrays.copyOf(b.array(), b.position())
  }

  /** `values` preceded by the page's definition levels when the column is optional. */
  private def withLevels(v: AlpValues, from: Int, n: Int, values: Array[Byte]): Array[Byte] =
    if (!v.isOptional) values
    else {
      val levels = definitionLevels(v.nulls, from, n)
      val out = new Array[Byte](4 + levels.length + values.length)
      putIntLE(out, 0, levels.length)
      System.arraycopy(levels, 0, out, 4, levels.length)
      System.arraycopy(values, 0, out, 4 + levels.length, values.length)
      out
    }

  private def alpBody(v: AlpValues, from: Int, n: Int): Array[Byte] = {
    val alp = if (v.t == AlpType.Double) {
      if (v.isOptional) AlpCodec.encodeDoubles(dense(v.doubles, v.nulls, from, n))
      else AlpCodec.encodeDoubles(v.doubles, from, n)
    } else {
      if (v.isOptional) AlpCodec.encodeFloats(dense(v.floats, v.nulls, from, n))
      else AlpCodec.encodeFloats(v.floats, from, n)
    }
    withLevels(v, from, n, alp)
  }

  private def dense(a: Array[Double], nulls: Array[Boolean], from: Int, n: Int): Array[Double] =
    (from until from + n).iterator.filterNot(nulls(_)).map(a(_)).toArray
  private def dense(a: Array[Float], nulls: Array[Boolean], from: Int, n: Int): Array[Float] =
    (from until from + n).iterator.filterNot(nulls(_)).map(a(_)).toArray

  /** Definition levels (0 = null, 1 = value) as RLE runs of the hybrid encoding, bit width 1. */
  private def definitionLevels(nulls: Array[Boolean], from: Int, n: Int): Array[Byte] = {
    val w = new ThriftCompactWriter(16)
    var i = from
    val end = from + n
    while (i < end) {
      val value = nulls(i)
      var j = i + 1
      while (j < end && nulls(j) == value) j += 1
      w.varint((j - i).toLong << 1)
      w.byte(if (value) 0 else 1)
      i = j
    }
    w.toByteArray
  }

  private def pageHeader(rows: Int, uncompressed: Int, compressed: Int, encoding: Int): Array[Byte] = {
    val w = new ThriftCompactWriter(32)
    w.structBegin()
    w.i32Field(1, DataPage)
    w.i32Field(2, uncompressed)
    w.i32Field(3, compressed)
    w.structField(5)
    w.i32Field(1, rows)
    w.i32Field(2, encoding)
    w.i32Field(3, RleEncoding)
    w.i32Field(4, RleEncoding)
    w.structEnd()
    w.structEnd()
    w.toByteArray
  }

  // ---------------------------------------------------------------- reading

  /** The fields of a page header this layout uses (-1: absent). */
  private final case class Header(size: Int, pageType: Int, uncompressed: Long, compressed: Long, numValues: Long,
      encoding: Int, defEncoding: Int, v2: PageV2 = null)

  /**
   * A DATA_PAGE_V2 header's layout fields (other writers' ratified chunks, e.g. arrow-rs with
   * PARQUET_2_0): the levels lie uncompressed before the values, without a length prefix;
   * only the values section goes through the codec, and only when `isCompressed`.
   */
  private final case class PageV2(numNulls: Long, numRows: Long, defLen: Long, repLen: Long, isCompressed: Boolean)

  /**
   * Decodes the chunk `buf[off, off + len)` into `out` (all its rows); `pages`: the page count
   * the caller expects (-1: any). Returns the number of pages.
   */
  def decode(buf: Array[Byte], off: Int, len: Int, out: AlpValues, compression: PageCompression, pages: Int = -1): Int = {
    val cursor = new PageCursor(buf, off, len, out.t, out.isOptional, out.rows, compression, pages)
    while (cursor.rowsLeft > 0) {
      val at = cursor.rowsDone
      cursor.nextRows()
      cursor.decodeInto(out, at)
    }
    if (out.rows == 0) cursor.checkEnd()
    cursor.pagesDone
  }

  /**
   * The pages of the chunk `buf[off, off + len)` of `rows` rows, one at a time: [[nextRows]]
   * reads and checks the next page's header, [[decodeInto]] decodes that page into a caller's
   * buffer (a page's rows at most, so a scan holds one decoded page, not a row group). After
   * the last page the chunk's end and page count (`pages`, -1: any) are checked.
   */
  final class PageCursor(buf: Array[Byte], off: Int, len: Int, t: AlpType, optional: Boolean, rows: Int,
      compression: PageCompression, pages: Int = -1) {
    require(off >= 0 && len >= 0 && off.toLong + len <= buf.length, "chunk outside the buffer")
    require(rows >= 0, s"negative row count $rows")
    private val end = off + len
    private var pos = off
    private var done = 0
    private var page = 0
    private var header: Header = _

    def rowsDone: Int = done
    def rowsLeft: Int = rows - done
    def pagesDone: Int = page

    /** Reads and checks the next page's header; returns the page's row count (nulls included). */
    def nextRows(): Int = {
      require(header == null, "the page whose header was read is not decoded yet")
      val at = (pos - off).toLong
      if (done >= rows) throw new IllegalStateException("no rows left in the chunk")
      if (pos >= end) fail(CountMismatch(at, "rows in the chunk", done, rows))
      val h = readHeader(buf, pos, end - pos, at)
      if (h.pageType != DataPage && h.pageType != DataPageV2) {
        fail(UnexpectedPage(at, s"page type ${h.pageType}, expected DATA_PAGE (0) or DATA_PAGE_V2 (3)"))
      }
      if (h.encoding != AlpEncoding && h.encoding != PlainEncoding) {
        fail(UnexpectedPage(at, s"page encoding ${h.encoding}, expected ALP (10) or PLAIN (0)"))
      }
      if (h.numValues <= 0 || h.numValues > rows - done) fail(CountMismatch(at, "num_values", h.numValues, rows - done))
      if (h.v2 != null) checkV2(h, at)
      else if (optional && h.defEncoding != RleEncoding) {
        fail(UnexpectedPage(at, s"definition_level_encoding ${h.defEncoding}, expected RLE (3)"))
      }
      val bodyAt = pos + h.size
      if (h.compressed < 0 || h.compressed > end - bodyAt) fail(Truncated(bodyAt - off, h.compressed, end - bodyAt))
      val maxBody = maxBodyBytes(h.numValues.toInt, t)
      if (h.uncompressed < 0 || h.uncompressed > maxBody) {
        fail(BadPageSize(at, "uncompressed_page_size", h.uncompressed, maxBody))
      }
      header = h
      h.numValues.toInt
    }

    /**
     * Decodes the page [[nextRows]] read into `out` from row `at` (nulls into `out.nulls`);
     * returns the page's non-null count.
     */
    def decodeInto(out: AlpValues, at: Int): Int = {
      require(out.t == t && out.isOptional == optional, "buffer of another column shape")
      val n = pendingRows
      require(at >= 0 && at.toLong + n <= out.rows, s"page of $n rows does not fit a buffer of ${out.rows} at $at")
      val p = open(out.nulls, at)
      p.decodeInto(out, at)
      p.present
    }

    /** Rows of the page whose header [[nextRows]] read. */
    def pendingRows: Int = { require(header != null, "nextRows() first"); header.numValues.toInt }

    /**
     * Opens the page [[nextRows]] read: its definition levels go into `nulls[at...]` (optional
     * columns), its values' layout is checked, and the cursor moves past it. The returned
     * [[Page]] decodes the values in any ranges (straight into a column vector's array).
     */
    def open(nulls: Array[Boolean], at: Int): Page = {
      val h = header
      require(h != null, "nextRows() first")
      val n = h.numValues.toInt
      require(!optional || (nulls != null && at >= 0 && at.toLong + n <= nulls.length), "no room for the page's nulls")
      val bodyAt = pos + h.size
      val p = if (h.v2 != null) openV2(h, bodyAt, n, nulls, at) else openV1(h, bodyAt, n, nulls, at)
      header = null
      done += n
      page += 1
      pos = bodyAt + h.compressed.toInt
      if (done == rows) checkEnd()
      p
    }

    /** A DATA_PAGE_V2 header's counts and lengths against the page (flat column: no repetition levels). */
    private def checkV2(h: Header, at: Long): Unit = {
      val v = h.v2
      if (v.repLen != 0) fail(UnexpectedPage(at, s"repetition levels (${v.repLen} bytes) in a flat column"))
      if (!optional && (v.defLen != 0 || v.numNulls != 0)) {
        fail(UnexpectedPage(at, s"definition levels (${v.defLen} bytes, ${v.numNulls} nulls) in a required column"))
      }
      if (v.numRows != h.numValues) fail(CountMismatch(at, "DATA_PAGE_V2 num_rows", v.numRows, h.numValues))
      if (v.numNulls < 0 || v.numNulls > h.numValues) fail(CountMismatch(at, "DATA_PAGE_V2 num_nulls", v.numNulls, h.numValues))
      if (v.defLen < 0 || v.defLen > h.compressed || v.defLen > h.uncompressed) {
        fail(BadPageSize(at, "definition_levels_byte_length", v.defLen, math.min(h.compressed, h.uncompressed)))
      }
    }

    /** V2: levels in place, then the values section, decompressed when the page says so. */
    private def openV2(h: Header, bodyAt: Int, n: Int, nulls: Array[Boolean], at: Int): Page = {
      val v = h.v2
      val levels = v.defLen.toInt
      val valuesAt = bodyAt + levels
      val stored = h.compressed.toInt - levels
      val size = h.uncompressed.toInt - levels
      val present = if (optional) {
        readLevels(buf, bodyAt, levels, n, nulls, at, -off.toLong)
      } else n
      if (optional && n - present != v.numNulls) fail(CountMismatch(bodyAt - off, "DATA_PAGE_V2 num_nulls", n - present, v.numNulls))
      if (!v.isCompressed || compression.isIdentity) {
        if (stored != size) {
          fail(Decompression(valuesAt - off, s"$stored bytes stored uncompressed, the header says $size"))
        }
        openValues(h.encoding, buf, valuesAt, stored, n, present, valuesAt - off)
      } else {
        val body = decompress(valuesAt, stored, size)
        openValues(h.encoding, body, 0, body.length, n, present, valuesAt - off)
      }
    }

    private def decompress(from: Int, stored: Int, size: Int): Array[Byte] = {
      val body = try compression.decompress(buf, from, stored, size) catch {
        case e: java.io.IOException => fail(Decompression(from - off, String.valueOf(e.getMessage)))
        case e: RuntimeException =>
          fail(Decompression(from - off, s"${e.getClass.getSimpleName}: ${e.getMessage}"))
      }
      if (body.length != size) fail(Decompression(from - off, s"${body.length} bytes, the header says $size"))
      body
    }

    private def openV1(h: Header, bodyAt: Int, n: Int, nulls: Array[Boolean], at: Int): Page = {
      // UNCOMPRESSED pages (the writer's usual choice) are decoded in place, without a copy
      val (body, from, len) = if (compression.isIdentity) {
        if (h.compressed != h.uncompressed) {
          fail(Decompression(bodyAt - off, s"${h.compressed} bytes stored uncompressed, the header says ${h.uncompressed}"))
        }
        (buf, bodyAt, h.compressed.toInt)
      } else {
        val b = decompress(bodyAt, h.compressed.toInt, h.uncompressed.toInt)
        (b, 0, b.length)
      }
      val bodyOffset = (bodyAt - off).toLong
      var valuesAt = from
      var present = n
      if (optional) {
        if (len < 4) fail(Truncated(bodyOffset, 4, len))
        val levelsLen = getIntLE(body, from).toLong & 0xffffffffL
        if (levelsLen > len - 4) fail(Truncated(bodyOffset + 4, levelsLen, len - 4))
        present = readLevels(body, from + 4, levelsLen.toInt, n, nulls, at, bodyOffset - from)
        valuesAt = from + 4 + levelsLen.toInt
      }
      openValues(h.encoding, body, valuesAt, from + len - valuesAt, n, present, bodyOffset + (valuesAt - from))
    }

    /** The values section `body[at, at + len)` of a page of `n` rows, `present` of them non-null. */
    private def openValues(encoding: Int, body: Array[Byte], at: Int, len: Int, n: Int, present: Int, offset: Long): Page =
      if (encoding == PlainEncoding) {
        val expected = present.toLong * t.valueBytes
        if (len != expected) fail(BadPageSize(offset, "PLAIN values bytes", len, expected))
        new PlainPage(t, n, present, body, at)
      } else {
        val index = page
        val decoder = try {
          val d = new AlpCodec.PageDecoder(body, at, len, t)
          if (d.numElements != present) fail(CountMismatch(offset + 3, "ALP num_elements", d.numElements, present))
          d
        } catch { case e: AlpDecodeException => fail(BadAlpBody(offset, index, e.reason)) }
        new AlpPage(t, n, present, decoder, offset, index)
      }

    /** After the last page: no bytes left, the expected page count. */
    private[AlpChunk] def checkEnd(): Unit = {
      if (pos != end) fail(TrailingBytes(pos - off, end - pos))
      if (pages >= 0 && page != pages) fail(CountMismatch(0, "page count", page, pages))
    }
  }

  /**
   * One opened data page of `rows` rows (its nulls already read), `present` of them non-null:
   * [[doubles]] / [[floats]] decode its non-null values [from, from + count) into a caller's
   * array at `pos`, in any ranges and order.
   */
  sealed abstract class Page(val t: AlpType, val rows: Int, val present: Int) {
    def hasNulls: Boolean = present < rows
    def doubles(from: Int, count: Int, out: Array[Double], pos: Int): Unit
    def floats(from: Int, count: Int, out: Array[Float], pos: Int): Unit

    /** All its rows into `out` from row `at` (nulls already there): the values spread over the non-null rows. */
    def decodeInto(out: AlpValues, at: Int): Unit =
      if (!hasNulls) {
        if (t == AlpType.Double) doubles(0, present, out.doubles, at) else floats(0, present, out.floats, at)
      } else {
        val dense = AlpValues.allocate(t, present, optional = false)
        if (t == AlpType.Double) doubles(0, present, dense.doubles, 0) else floats(0, present, dense.floats, 0)
        var i = 0; var j = 0
        while (i < rows) {
          if (!out.nulls(at + i)) {
            if (t == AlpType.Double) out.doubles(at + i) = dense.doubles(j) else out.floats(at + i) = dense.floats(j)
            j += 1
          }
          i += 1
        }
      }
  }

  private final class AlpPage(t: AlpType, rows: Int, present: Int, d: AlpCodec.PageDecoder, offset: Long, index: Int)
      extends Page(t, rows, present) {
    def doubles(from: Int, count: Int, out: Array[Double], pos: Int): Unit =
      try d.doubles(from, count, out, pos) catch { case e: AlpDecodeException => fail(BadAlpBody(offset, index, e.reason)) }
    def floats(from: Int, count: Int, out: Array[Float], pos: Int): Unit =
      try d.floats(from, count, out, pos) catch { case e: AlpDecodeException => fail(BadAlpBody(offset, index, e.reason)) }
  }

  /** PLAIN values: little-endian IEEE-754, copied with the bits as they are (NaN payloads kept). */
  private final class PlainPage(t: AlpType, rows: Int, present: Int, body: Array[Byte], at: Int) extends Page(t, rows, present) {
    private def view(from: Int) =
      java.nio.ByteBuffer.wrap(body).order(java.nio.ByteOrder.LITTLE_ENDIAN).position(at + from * t.valueBytes)
    def doubles(from: Int, count: Int, out: Array[Double], pos: Int): Unit = {
      require(from >= 0 && count >= 0 && from.toLong + count <= present, s"values [$from, +$count) outside a page of $present")
      view(from).asInstanceOf[java.nio.ByteBuffer].asDoubleBuffer().get(out, pos, count)
    }
    def floats(from: Int, count: Int, out: Array[Float], pos: Int): Unit = {
      require(from >= 0 && count >= 0 && from.toLong + count <= present, s"values [$from, +$count) outside a page of $present")
      view(from).asInstanceOf[java.nio.ByteBuffer].asFloatBuffer().get(out, pos, count)
    }
  }

  /** Largest page body this writer could produce for `n` rows (bounds allocation). */
  private def maxBodyBytes(n: Int, t: AlpType): Long =
    4L + 2L * n + 16 + AlpCodec.HeaderBytes + (n / 8L + 1) * (4 + t.vectorHeaderBytes) + n.toLong * (2 * t.valueBytes + 2)

  /** Reads `n` definition levels (bit width 1) into `nulls[at...]`; returns the non-null count. */
  private def readLevels(b: Array[Byte], start: Int, len: Int, n: Int, nulls: Array[Boolean], at: Int,
      bodyOffset: Long): Int = {
    val end = start + len
    var p = start
    var i = 0
    var present = 0
    def where = bodyOffset + p
    while (i < n) {
      if (p >= end) fail(BadLevels(where, s"${n - i} of $n levels missing"))
      var header = 0L
      var shift = 0
      var more = true
      while (more) {
        if (p >= end || shift > 28) fail(BadLevels(where, "run header overruns the levels"))
        val x = b(p) & 0xff
        header |= (x & 0x7fL) << shift
        shift += 7
        p += 1
        more = (x & 0x80) != 0
      }
      if ((header & 1) == 0) { // RLE run: count, one byte value
        val count = header >>> 1
        if (count == 0 || count > n - i) fail(BadLevels(where, s"RLE run of $count levels, ${n - i} remain"))
        if (p >= end) fail(BadLevels(where, "RLE run value missing"))
        val v = b(p) & 0xff
        p += 1
        if (v > 1) fail(BadLevels(where - 1, s"level $v exceeds the maximum 1"))
        java.util.Arrays.fill(nulls, at + i, at + i + count.toInt, v == 0)
        if (v == 1) present += count.toInt
        i += count.toInt
      } else { // bit-packed: groups of 8 levels, one byte each at bit width 1
        val groups = header >>> 1
        if (groups == 0 || groups > end - p) fail(BadLevels(where, s"$groups bit-packed groups, ${end - p} bytes remain"))
        var g = 0L
        while (g < groups) {
          val x = b(p) & 0xff
          var k = 0
          while (k < 8 && i < n) {
            val v = (x >>> k) & 1
            nulls(at + i) = v == 0
            present += v
            i += 1
            k += 1
          }
          p += 1
          g += 1
        }
      }
    }
    present
  }

  private def readHeader(buf: Array[Byte], pos: Int, avail: Int, at: Long): Header = {
    import ThriftWalker.{I32, Struct}
    val BoolTrue: Byte = 1 // compact protocol: a bool field's value is its type id
    val BoolFalse: Byte = 2
    val w = new ThriftWalker(buf, pos, avail)
    var pageType = -1
    var uncompressed = -1L
    var compressed = -1L
    var numValues = -1L
    var encoding = -1
    var defEncoding = -1
    var v2: PageV2 = null
    try {
      w.fields {
        case (1, I32) => pageType = w.i32(); true
        case (2, I32) => uncompressed = w.i32().toLong; true
        case (3, I32) => compressed = w.i32().toLong; true
        case (5, Struct) =>
          w.fields {
            case (1, I32) => numValues = w.i32().toLong; true
            case (2, I32) => encoding = w.i32(); true
            case (3, I32) => defEncoding = w.i32(); true
            case _ => false
          }
          true
        case (8, Struct) => // DataPageHeaderV2
          var numNulls, numRows, defLen, repLen = -1L
          var isCompressed = true // the field's default
          w.fields {
            case (1, I32) => numValues = w.i32().toLong; true
            case (2, I32) => numNulls = w.i32().toLong; true
            case (3, I32) => numRows = w.i32().toLong; true
            case (4, I32) => encoding = w.i32(); true
            case (5, I32) => defLen = w.i32().toLong; true
            case (6, I32) => repLen = w.i32().toLong; true
            case (7, BoolTrue) => isCompressed = true; true
            case (7, BoolFalse) => isCompressed = false; true
            case _ => false
          }
          if (numNulls < 0 || numRows < 0 || defLen < 0 || repLen < 0) {
            fail(BadPageHeader(at, "data_page_header_v2 lacks a required field"))
          }
          v2 = PageV2(numNulls, numRows, defLen, repLen, isCompressed)
          true
        case _ => false
      }
    } catch {
      case e: io.superspark.parquet.thrift.MalformedThriftFooterException =>
        fail(BadPageHeader(at, s"${e.reason.code} at header byte ${e.reason.offset - pos}: ${e.reason.message}"))
    }
    if (pageType < 0 || uncompressed < 0 || compressed < 0) fail(BadPageHeader(at, "a required field is missing"))
    if (pageType == DataPage && (numValues < 0 || encoding < 0)) fail(BadPageHeader(at, "data_page_header is missing"))
    if (pageType == DataPageV2 && v2 == null) fail(BadPageHeader(at, "data_page_header_v2 is missing"))
    Header(w.pos, pageType, uncompressed, compressed, numValues, encoding, defEncoding, if (pageType == DataPageV2) v2 else null)
  }

  private def fail(reason: AlpChunkErrorReason): Nothing = throw new AlpChunkException(reason)

  private[alp] def putIntLE(b: Array[Byte], p: Int, v: Int): Unit = {
    b(p) = v.toByte; b(p + 1) = (v >>> 8).toByte; b(p + 2) = (v >>> 16).toByte; b(p + 3) = (v >>> 24).toByte
  }
  private[alp] def getIntLE(b: Array[Byte], p: Int): Int =
    (b(p) & 0xff) | ((b(p + 1) & 0xff) << 8) | ((b(p + 2) & 0xff) << 16) | ((b(p + 3) & 0xff) << 24)
}
