package io.superspark.parquet.alp

import java.io.ByteArrayOutputStream

import scala.util.Random

import org.apache.hadoop.conf.Configuration
import org.apache.parquet.format.Util
import org.apache.parquet.hadoop.metadata.CompressionCodecName
import org.scalatest.funsuite.AnyFunSuite

import io.superspark.parquet.thrift.ThriftCompactWriter

/** The ALP column-chunk layout, its checks, the private-form extension and the footer surgery (no Spark). */
class AlpChunkSuite extends AnyFunSuite {

  private def doubles(rows: Int, optional: Boolean, seed: Int = 1): AlpValues = {
    val r = new Random(seed)
    val v = AlpValues.allocate(AlpType.Double, rows, optional)
    for (i <- 0 until rows) {
      if (optional && r.nextInt(5) == 0) v.nulls(i) = true
      else v.doubles(i) = r.nextInt(1000000) / 100.0
    }
    v.doubles(0) = Double.NaN; v.doubles(1) = -0.0 // edge values survive (row 0/1 never null)
    if (optional) { v.nulls(0) = false; v.nulls(1) = false }
    v
  }

  private def floats(rows: Int, optional: Boolean): AlpValues = {
    val v = AlpValues.allocate(AlpType.Float, rows, optional)
    for (i <- 0 until rows) { if (optional && i % 3 == 0) v.nulls(i) = true else v.floats(i) = i / 10.0f }
    v
  }

  private def same(a: AlpValues, b: AlpValues): Unit = {
    assert(a.rows == b.rows && a.isOptional == b.isOptional)
    for (i <- 0 until a.rows) {
      val na = a.nulls != null && a.nulls(i)
      assert(na == (b.nulls != null && b.nulls(i)), s"null at $i")
      if (!na) {
        if (a.t == AlpType.Double) assert(java.lang.Double.doubleToRawLongBits(a.doubles(i)) ==
          java.lang.Double.doubleToRawLongBits(b.doubles(i)), s"value at $i")
        else assert(java.lang.Float.floatToRawIntBits(a.floats(i)) == java.lang.Float.floatToRawIntBits(b.floats(i)))
      }
    }
  }

  private def roundTrip(v: AlpValues, c: PageCompression, pageRows: Int = AlpChunk.DefaultPageRows): AlpChunkBytes = {
    val chunk = AlpChunk.encode(v, c, pageRows)
    val out = AlpValues.allocate(v.t, v.rows, v.isOptional)
    val pagesCodec = if (chunk.compressed) c else AlpChunk.Uncompressed
    assert(AlpChunk.decode(chunk.bytes, 0, chunk.bytes.length, out, pagesCodec, chunk.pages) == chunk.pages)
    same(v, out)
    chunk
  }

  test("round trips: DOUBLE and FLOAT, required and optional, several pages, every codec") {
    val conf = new Configuration()
    for (codec <- Seq(CompressionCodecName.UNCOMPRESSED, CompressionCodecName.SNAPPY, CompressionCodecName.ZSTD,
        CompressionCodecName.GZIP)) {
      val c = new ParquetPageCompression(codec, conf)
      try {
        for (optional <- Seq(false, true)) {
          val chunk = roundTrip(doubles(5000, optional), c, pageRows = 1500)
          assert(chunk.pages == 4 && chunk.rows == 5000)
          roundTrip(floats(3000, optional), c)
        }
      } finally c.close()
    }
  }

  test("ALP pages are written UNCOMPRESSED unless the codec saves an eighth of their bytes") {
    val c = new ParquetPageCompression(CompressionCodecName.ZSTD, new Configuration())
    val snappy = new ParquetPageCompression(CompressionCodecName.SNAPPY, new Configuration())
    try {
      // any bit pattern: stored as exceptions, nothing for snappy to gain
      val bits = new scala.util.Random(3)
      val noise = new AlpValues(AlpType.Double, 20000, Array.fill(20000)(java.lang.Double.longBitsToDouble(bits.nextLong())),
        null, null)
      val raw = roundTrip(noise, snappy)
      assert(!raw.compressed)
      assert(raw.bytes.toSeq == AlpChunk.encode(noise, AlpChunk.Uncompressed).bytes.toSeq)
      // the same 1024 irregular values over and over: identical ALP vectors, which zstd shrinks
      val rnd = new scala.util.Random(7)
      val block = Array.fill(1024)(rnd.nextDouble())
      val repeated = new AlpValues(AlpType.Double, 20480, Array.tabulate(20480)(i => block(i % 1024)), null, null)
      val chunk = roundTrip(repeated, c)
      assert(chunk.compressed)
      assert(chunk.bytes.length < AlpChunk.encode(repeated, AlpChunk.Uncompressed).bytes.length / 2)
      // pages decoded with the wrong codec fail as a decompression error, not silently
      val out = AlpValues.allocate(AlpType.Double, 20480, optional = false)
      val e = intercept[AlpChunkException](AlpChunk.decode(chunk.bytes, 0, chunk.bytes.length, out, AlpChunk.Uncompressed))
      assert(Set("bad_alp_body", "bad_page_size", "decompression")(e.reason.code), e.reason)
    } finally { c.close(); snappy.close() }
  }

  test("decimal-like doubles take a fraction of PLAIN") {
    val v = doubles(65536, optional = false)
    val alp = AlpChunk.encode(v, AlpChunk.Uncompressed).bytes.length
    val plain = AlpChunk.encodePlain(v, AlpChunk.Uncompressed).bytes.length
    assert(alp < plain / 2, s"ALP $alp vs PLAIN $plain bytes")
  }

  test("bit-packed definition levels (as other writers write them) decode") {
    // one page of 8 rows, levels 1,0,1,1,0,1,1,1 bit-packed: header (1 group << 1 | 1), byte 0b11101101
    val values = Array(1.5, 2.5, 3.5, 4.5, 5.5, 6.5)
    val alp = AlpCodec.encodeDoubles(values)
    val body = new ByteArrayOutputStream()
    body.write(Array[Byte](2, 0, 0, 0, 3, 0xED.toByte)); body.write(alp)
    val w = new ThriftCompactWriter(32)
    w.structBegin(); w.i32Field(1, 0); w.i32Field(2, body.size); w.i32Field(3, body.size)
    w.structField(5); w.i32Field(1, 8); w.i32Field(2, 10); w.i32Field(3, 3); w.i32Field(4, 3); w.structEnd(); w.structEnd()
    val chunk = w.toByteArray ++ body.toByteArray
    val out = AlpValues.allocate(AlpType.Double, 8, optional = true)
    AlpChunk.decode(chunk, 0, chunk.length, out, AlpChunk.Uncompressed)
    assert(out.nulls.toSeq == Seq(false, true, false, false, true, false, false, false))
    assert(out.doubles.toSeq == Seq(1.5, 0, 2.5, 3.5, 0, 4.5, 5.5, 6.5))
  }

  private def decodeError(bytes: Array[Byte], rows: Int, optional: Boolean = false): AlpChunkErrorReason = {
    val out = AlpValues.allocate(AlpType.Double, rows, optional)
    intercept[AlpChunkException](AlpChunk.decode(bytes, 0, bytes.length, out, AlpChunk.Uncompressed)).reason
  }

  test("damaged chunks fail with a reason and an offset, never silently") {
    val v = doubles(3000, optional = true)
    val chunk = AlpChunk.encode(v, AlpChunk.Uncompressed, pageRows = 1000)
    val b = chunk.bytes
    // every truncation fails
    for (cut <- Seq(0, 1, 5, b.length / 3, b.length - 1)) {
      val r = decodeError(java.util.Arrays.copyOf(b, cut), 3000, optional = true)
      assert(Set("count_mismatch", "truncated", "bad_page_header", "bad_alp_body", "bad_levels")(r.code), r.toString)
    }
    // trailing garbage, too many rows, too few rows
    assert(decodeError(b ++ Array[Byte](1, 2, 3), 3000, optional = true).code == "trailing_bytes")
    assert(decodeError(b, 3001, optional = true).code == "count_mismatch")
    assert(decodeError(b, 2999, optional = true).code == "count_mismatch")
    // a wrong page count
    val out = AlpValues.allocate(AlpType.Double, 3000, optional = true)
    assert(intercept[AlpChunkException](AlpChunk.decode(b, 0, b.length, out, AlpChunk.Uncompressed, 4)).reason.code ==
      "count_mismatch")
    // byte flips anywhere: an error or (for value bits) other values, never an exception of another kind
    val r = new Random(3)
    for (_ <- 0 until 2000) {
      val m = b.clone()
      m(r.nextInt(m.length)) = r.nextInt(256).toByte
      val o = AlpValues.allocate(AlpType.Double, 3000, optional = true)
      try AlpChunk.decode(m, 0, m.length, o, AlpChunk.Uncompressed) catch { case _: AlpChunkException => }
    }
  }

  test("UNCOMPRESSED pages decode in place, from inside a larger buffer, with offsets in the chunk") {
    for (optional <- Seq(false, true)) {
      val v = doubles(5000, optional)
      val chunk = AlpChunk.encode(v, AlpChunk.Uncompressed, pageRows = 1500)
      assert(!chunk.compressed)
      val buf = Array.fill[Byte](7)(0x55) ++ chunk.bytes ++ Array.fill[Byte](9)(0x55)
      for (c <- Seq[PageCompression](AlpChunk.Uncompressed,
          new ParquetPageCompression(CompressionCodecName.UNCOMPRESSED, new Configuration()))) {
        assert(c.isIdentity)
        val out = AlpValues.allocate(AlpType.Double, 5000, optional)
        assert(AlpChunk.decode(buf, 7, chunk.bytes.length, out, c, chunk.pages) == 4)
        same(v, out)
      }
    }
    // a page stored uncompressed whose two sizes disagree: a decompression error at the body
    val b = AlpChunk.encode(doubles(100, optional = false), AlpChunk.Uncompressed).bytes
    val walker = new io.superspark.parquet.thrift.ThriftWalker(b)
    walker.fields((_, _) => false)
    val body = b.drop(walker.pos)
    val w = new io.superspark.parquet.thrift.ThriftCompactWriter(32)
    w.structBegin()
    w.i32Field(1, AlpChunk.DataPage)
    w.i32Field(2, body.length + 1)
    w.i32Field(3, body.length)
    w.structField(5)
    w.i32Field(1, 100)
    w.i32Field(2, AlpChunk.AlpEncoding)
    w.i32Field(3, AlpChunk.RleEncoding)
    w.i32Field(4, AlpChunk.RleEncoding)
    w.structEnd()
    w.structEnd()
    val header = w.toByteArray
    val r = decodeError(header ++ body, 100)
    assert(r.code == "decompression" && r.offset == header.length, r.toString)
  }

  test("PLAIN pages (kept where ALP loses) decode bit for bit; other encodings are refused") {
    for (optional <- Seq(false, true)) {
      val v = doubles(3000, optional)
      val plain = AlpChunk.encodePlain(v, AlpChunk.Uncompressed, pageRows = 1000).bytes
      val out = AlpValues.allocate(AlpType.Double, 3000, optional)
      assert(AlpChunk.decode(plain, 0, plain.length, out, AlpChunk.Uncompressed, pages = 3) == 3)
      same(v, out)
    }
    // a BYTE_STREAM_SPLIT (9) page: the same body under another encoding
    val body = new Array[Byte](8 * 8)
    val w = new ThriftCompactWriter(32)
    w.structBegin(); w.i32Field(1, 0); w.i32Field(2, body.length); w.i32Field(3, body.length)
    w.structField(5); w.i32Field(1, 8); w.i32Field(2, 9); w.i32Field(3, 3); w.i32Field(4, 3); w.structEnd(); w.structEnd()
    val reason = decodeError(w.toByteArray ++ body, 8)
    assert(reason.code == "unexpected_page" && reason.offset == 0 && reason.message.contains("encoding 9"))
    // PLAIN values whose byte count does not match the page's non-null values
    val bad = AlpChunk.encodePlain(doubles(10, optional = false), AlpChunk.Uncompressed).bytes
    assert(decodeError(bad.dropRight(8), 10).code == "truncated")
  }

  test("a chunk choosing per page: ALP where it wins, PLAIN where it loses, decoded as one column") {
    // page 0 and 2 decimal prices, page 1 random bits: ALP, PLAIN, ALP
    val r = new Random(7)
    for (optional <- Seq(false, true)) {
      val v = AlpValues.allocate(AlpType.Double, 3 * 4096, optional)
      for (i <- 0 until v.rows) {
        if (optional && i % 11 == 0) v.nulls(i) = true
        else v.doubles(i) = if (i / 4096 == 1) r.nextDouble() else r.nextInt(100000) / 100.0
      }
      val codec = new ParquetPageCompression(CompressionCodecName.SNAPPY, new Configuration(false))
      try {
        val chosen = AlpChunk.encodeChosen(v, codec, 4096,
          (from, n) => AlpEncodingChoice.estimate(v, from, n, codec, "PLAIN+SNAPPY").alp)
        assert(chosen.pages == 3 && chosen.plainPages == 1 && chosen.alpPages == 2)
        val out = AlpValues.allocate(AlpType.Double, v.rows, optional)
        val compression = if (chosen.compressed) codec else AlpChunk.Uncompressed
        AlpChunk.decode(chosen.bytes, 0, chosen.bytes.length, out, compression, pages = 3)
        same(v, out)
        // the ALP pages are smaller than PLAIN, the random page is not made larger than PLAIN
        val plain = AlpChunk.encodePlain(v, AlpChunk.Uncompressed, 4096).bytes.length
        assert(chosen.bytes.length < plain * 2 / 3, s"${chosen.bytes.length} vs PLAIN $plain")
      } finally codec.close()
    }
  }

  test("the sample's estimate: random doubles keep PLAIN, decimal-like and periodic doubles get ALP") {
    val codec = new ParquetPageCompression(CompressionCodecName.SNAPPY, new Configuration(false))
    try {
      val r = new Random(3)
      def est(f: Int => Double, rows: Int = 100000) = {
        val v = AlpValues.allocate(AlpType.Double, rows, optional = false)
        for (i <- 0 until rows) v.doubles(i) = f(i)
        AlpEncodingChoice.estimate(v, 0, rows, codec, "PLAIN+SNAPPY")
      }
      val random = est(_ => r.nextDouble())
      assert(!random.alp && random.alpBits > 64 && random.ordinaryBits > 63, random)
      assert(random.reason.startsWith("ALP estimate ") && random.reason.contains(" > PLAIN+SNAPPY "), random.reason)
      assert(random.sampled == AlpEncodingChoice.SampleRuns * AlpEncodingChoice.RunValues)
      val prices = est(_ => r.nextInt(1000000) / 100.0)
      assert(prices.alp && prices.alpBits < 24, prices)
      // every 4th value a whole number: a fixed-stride sample once saw integers only (exponent 0)
      val quarters = est(i => i * 0.25, 5000)
      assert(quarters.alp && quarters.alpBits < 20 && quarters.sampled == 5000, quarters)
    } finally codec.close()
  }

  test("pages decode in any ranges straight into a caller's array, the same as whole") {
    val r = new Random(11)
    val values = Array.tabulate(5000)(i => if (i % 97 == 0) r.nextDouble() else r.nextInt(100000) / 100.0)
    val page = AlpCodec.encodeDoubles(values)
    val d = new AlpCodec.PageDecoder(page, 0, page.length, AlpType.Double)
    for ((from, n) <- Seq((0, 5000), (0, 1024), (1000, 2000), (4095, 905), (17, 1), (4999, 1), (3000, 0))) {
      val out = Array.fill(n + 3)(-1.0)
      d.doubles(from, n, out, 2)
      assert(out(0) == -1.0 && out(1) == -1.0 && out(n + 2) == -1.0)
      for (i <- 0 until n) assert(java.lang.Double.doubleToRawLongBits(out(2 + i)) ==
        java.lang.Double.doubleToRawLongBits(values(from + i)), s"value ${from + i} of [$from, +$n)")
    }
    val fv = Array.tabulate(3000)(i => i / 8.0f)
    val fp = AlpCodec.encodeFloats(fv)
    val fd = new AlpCodec.PageDecoder(fp, 0, fp.length, AlpType.Float)
    val fo = new Array[Float](1500)
    fd.floats(1000, 1500, fo, 0)
    assert(fo.toSeq == fv.slice(1000, 2500).toSeq)
  }

  test("extension payload: 51 bytes (50 in layout version 1) ending with the UUID, checked against the file") {
    val e = AlpExtension(AlpExtension.DoubleType, 4, 1000, 2, 5000, 0x12345678)
    val b = e.toBytes
    assert(b.length == 50 && AlpExtension.isOurs(b))
    assert(AlpExtension.parse(b, 2000) == e)
    assert(intercept[AlpChunkException](AlpExtension.parse(b, 1003)).reason.code == "bad_extension")
    val v3 = b.clone(); v3(0) = 3
    assert(intercept[AlpChunkException](AlpExtension.parse(v3, 2000)).reason.message.contains("version 3"))
    val v2 = b.clone(); v2(0) = 2 // a version-2 header on a version-1 payload: its size is wrong
    assert(intercept[AlpChunkException](AlpExtension.parse(v2, 2000)).reason.message.contains("version 2 has 51"))
    // version 2 (what superspark writes): the pages' codec before the UUID
    val withCodec = e.copy(codec = Some(0))
    val b2 = withCodec.toBytes
    assert(b2.length == 51 && b2(0) == 2 && b2(34) == 0 && AlpExtension.isOurs(b2))
    assert(AlpExtension.parse(b2, 2000) == withCodec && AlpExtension.parse(b, 2000).codec.isEmpty)
    assert(intercept[AlpChunkException](AlpExtension.parse(b.drop(1), 2000)).reason.code == "bad_extension")
    assert(!AlpExtension.isOurs(b.dropRight(1) :+ 0.toByte))
  }

  /** A small real footer: parquet-format objects serialized by parquet-java. */
  private def footer(): Array[Byte] = {
    import org.apache.parquet.format._
    import scala.jdk.CollectionConverters._
    def col(name: String, off: Long) = {
      val md = new ColumnMetaData(Type.DOUBLE, Seq(Encoding.PLAIN).asJava, Seq(name).asJava, CompressionCodec.SNAPPY,
        10, 100, 80, off)
      val c = new ColumnChunk(off); c.setMeta_data(md); c
    }
    val schema = Seq(new SchemaElement("root").setNum_children(2),
      new SchemaElement("a").setType(Type.DOUBLE).setRepetition_type(FieldRepetitionType.REQUIRED),
      new SchemaElement("b").setType(Type.DOUBLE).setRepetition_type(FieldRepetitionType.OPTIONAL))
    val rgs = Seq(new RowGroup(Seq(col("a", 4), col("b", 84)).asJava, 200, 10),
      new RowGroup(Seq(col("a", 164), col("b", 244)).asJava, 200, 10))
    val md = new FileMetaData(1, schema.asJava, 20, rgs.asJava)
    val out = new ByteArrayOutputStream()
    Util.writeFileMetaData(md, out)
    out.toByteArray
  }

  test("footer surgery: field 32767 appended to chosen ColumnMetaData, parquet-java still reads the footer") {
    val thrift = footer()
    val payload = AlpExtension(AlpExtension.DoubleType, 4, 10, 1, 10, 7).toBytes
    val patched = AlpFooter.withExtensions(thrift, Map((0, 1) -> payload, (1, 1) -> payload))
    assert(patched.length == thrift.length + 2 * (4 + 1 + 50))
    val refs = AlpFooter.scan(patched)
    assert(refs.map(r => (r.rowGroup, r.column, r.ourExtension.isDefined)) ==
      Seq((0, 0, false), (0, 1, true), (1, 0, false), (1, 1, true)))
    assert(refs(1).ourExtension.get.toSeq == payload.toSeq && refs(3).startingPos == 244)
    val md = Util.readFileMetaData(new java.io.ByteArrayInputStream(patched))
    assert(md.getRow_groups.get(1).getColumns.get(1).getMeta_data.getData_page_offset == 244)
    intercept[IllegalArgumentException](AlpFooter.withExtensions(patched, Map((0, 1) -> payload)))
  }

  test("ratified encodings: marked ALP = 10, masked back to PLAIN for parquet-java") {
    val thrift = footer()
    val marked = AlpFooter.markAlpEncodings(thrift, Set((0, 1), (1, 1)))
    assert(marked.length == thrift.length)
    val refs = AlpFooter.scan(marked)
    assert(refs.map(_.isRatified) == Seq(false, true, false, true))
    assert(AlpFooter.maskAlpEncodings(marked).get.toSeq == thrift.toSeq)
    assert(AlpFooter.maskAlpEncodings(thrift).isEmpty)
  }
}
