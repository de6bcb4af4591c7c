package io.superspark.bsup

import java.io.{ByteArrayInputStream, ByteArrayOutputStream}
import java.net.InetAddress

import scala.collection.mutable.ArrayBuffer

import org.scalatest.funsuite.AnyFunSuite
import io.superspark.bsup.spark.SuperTypes

class BsupCodecSuite extends AnyFunSuite {
  import BsupCodecSuite._

  private val S = SuperType

  test("reference vector: two streams each holding {a:1}") {
    val bytes = hex("05 00 00 01 01 61 09 14 00 1e 03 02 02 ff 05 00 00 01 01 61 09 14 00 1e 03 02 02 ff")
    val r = new BsupReader(new ByteArrayInputStream(bytes), "vec1")
    val vals = readAll(r)
    val rec = S.record("a" -> S.int64)
    assert(vals == Seq(Value(rec, IndexedSeq(1L)), Value(rec, IndexedSeq(1L))))
    assert(r.streamNumber == 2)
    val out = new ByteArrayOutputStream()
    val w = new BsupWriter(out, BsupWriterOptions(compress = false))
    w.write(vals(0)); w.endStream(); w.write(vals(1)); w.close()
    assert(toHex(out.toByteArray) == toHex(bytes))
  }

  test("reference vector: _path, ts, d records in two values frames") {
    val bytes = hex("00 01 00 03 05 5f 70 61 74 68 19 02 74 73 0d 01 64 10 13 01 1e 12 02 61 06 00 c8 17 a8 04 " +
      "09 00 00 00 00 00 00 f0 3f 15 01 1e 14 04 78 79 7a 06 00 90 2f 50 09 09 00 00 00 00 00 00 f8 3f ff")
    val vals = readAll(new BsupReader(new ByteArrayInputStream(bytes), "vec2"))
    val rec = S.record("_path" -> S.string, "ts" -> S.time, "d" -> S.float64)
    assert(vals == Seq(
      Value(rec, IndexedSeq("a", Time(10000000000L), 1.0)),
      Value(rec, IndexedSeq("xyz", Time(20000000000L), 1.5))))
    val out = new ByteArrayOutputStream()
    val w = new BsupWriter(out, BsupWriterOptions(compress = false, frameSize = 1))
    vals.foreach(w.write)
    w.close()
    assert(toHex(out.toByteArray) == toHex(bytes))
  }

  test("counted integers follow NOTES.md") {
    def enc(t: SuperType, v: Any) = toHex(ValueCodec.encodeToArray(t, v))
    assert(enc(S.int64, -1L) == "02 03")
    assert(enc(S.int64, 1L) == "02 02")
    assert(enc(S.int64, 0L) == "01")
    assert(enc(S.uint64, BigInt(0)) == "01")
    assert(enc(S.int64, Long.MinValue) == "02 01")
    assert(enc(S.int64, Long.MaxValue) == "09 fe ff ff ff ff ff ff ff")
    assert(enc(S.uint64, BigInt("18446744073709551615")) == "09 ff ff ff ff ff ff ff ff")
    assert(enc(UnionType(IndexedSeq(S.int64, S.string)), UnionValue(0, 5L)) == "04 01 02 0a")
    assert(enc(EnumType(IndexedSeq("a", "b", "c")), EnumValue(2)) == "02 02")
  }

  private def roundTrip(t: SuperType, vs: Seq[Any], compress: Boolean = false): Seq[Any] = {
    val out = new ByteArrayOutputStream()
    val w = new BsupWriter(out, BsupWriterOptions(compress = compress))
    vs.foreach(v => w.write(t, v))
    w.close()
    val got = readAll(new BsupReader(new ByteArrayInputStream(out.toByteArray), "rt"))
    got.foreach(g => assert(g.typ == t))
    got.map(_.value)
  }

  private def assertRoundTrip(t: SuperType, vs: Any*): Unit = {
    val got = roundTrip(t, vs)
    assert(got.size == vs.size)
    got.zip(vs).foreach { case (g, v) => assert(same(g, v), s"$t: $g != $v") }
    assert(roundTrip(t, vs, compress = true).zip(vs).forall { case (g, v) => same(g, v) })
  }

  test("primitive edge values round trip") {
    assertRoundTrip(S.int64, Long.MinValue, Long.MaxValue, 0L, -1L, 1L, null)
    assertRoundTrip(S.primitive(S.Int8), -128L, 127L, 0L)
    assertRoundTrip(S.primitive(S.Int16), -32768L, 32767L)
    assertRoundTrip(S.int32, Int.MinValue.toLong, Int.MaxValue.toLong)
    assertRoundTrip(S.uint8, 0L, 255L)
    assertRoundTrip(S.uint16, 0L, 65535L)
    assertRoundTrip(S.uint32, 0L, 4294967295L)
    assertRoundTrip(S.uint64, BigInt(0), BigInt("18446744073709551615"))
    assertRoundTrip(S.primitive(S.Uint128), BigInt(0), BigInt(2).pow(128) - 1)
    assertRoundTrip(S.primitive(S.Uint256), BigInt(2).pow(256) - 1)
    assertRoundTrip(S.primitive(S.Int128), BigInt(2).pow(127) - 1, -(BigInt(2).pow(127) - 1), BigInt(0))
    assertRoundTrip(S.primitive(S.Int256), -(BigInt(2).pow(255) - 1))
    assertRoundTrip(S.duration, Duration(Long.MinValue), Duration(Long.MaxValue), Duration(0))
    assertRoundTrip(S.time, Time(-1L), Time(1700000000123456789L))
    assertRoundTrip(S.float64, Double.NaN, Double.PositiveInfinity, Double.NegativeInfinity, -0.0, Double.MinPositiveValue, Double.MaxValue)
    assertRoundTrip(S.float32, Float.NaN, Float.PositiveInfinity, 1.5f, Float.MinPositiveValue)
    assertRoundTrip(S.float16, 1.5f, -2.0f, 65504f, Float.PositiveInfinity, Float.NaN, 5.9604645e-8f)
    assertRoundTrip(S.primitive(S.Float128), 1.5, -0.0, Double.MaxValue, Double.MinPositiveValue, Double.NegativeInfinity)
    assertRoundTrip(S.primitive(S.Float256), 3.25, Double.MinPositiveValue, Double.NaN)
    assertRoundTrip(S.primitive(S.Decimal32), new java.math.BigDecimal("1.25"), new java.math.BigDecimal("-9999999"))
    assertRoundTrip(S.primitive(S.Decimal64), new java.math.BigDecimal("12345678.90123456"))
    assertRoundTrip(S.primitive(S.Decimal128), new java.math.BigDecimal("9999999999999999999999999999999999"),
      new java.math.BigDecimal("-0.000000000000000000000000000000000001"))
    assertRoundTrip(S.primitive(S.Decimal256), new java.math.BigDecimal("1234567890123456789012345678901234567890.5"))
    assertRoundTrip(S.bool, true, false)
    assertRoundTrip(S.bytes, Bytes(Array[Byte]()), Bytes(Array[Byte](0, -1, 7)))
    assertRoundTrip(S.string, "", "héllo wörld ✓ 𝄞", "a" * 70000)
    assertRoundTrip(S.ip, InetAddress.getByName("10.0.0.1"), InetAddress.getByName("::1"),
      InetAddress.getByName("2001:db8::ff00:42:8329"))
    assertRoundTrip(S.net, IpNet(InetAddress.getByName("10.1.0.0"), 16), IpNet(InetAddress.getByName("2001:db8::"), 32),
      IpNet(InetAddress.getByName("0.0.0.0"), 0))
    assertRoundTrip(S.typeType, S.int64, S.record("a" -> ArrayType(S.string)),
      NamedType("port", S.uint16), RecordType(IndexedSeq(Field("x", NamedType("n", S.int64)), Field("y", NamedType("n", S.int64)))))
    assertRoundTrip(S.nullType, null)
  }

  test("decimal BID encodings match IEEE 754 examples") {
    // 1 in decimal32 (BID): exponent 101 (biased) << 23 | 1.
    assert(toHex(Numbers.encodeDecimal(new java.math.BigDecimal("1"), 32)) == "01 00 80 32")
    assert(toHex(Numbers.encodeDecimal(new java.math.BigDecimal("1"), 64)) == "01 00 00 00 00 00 c0 31")
    assert(Numbers.decodeDecimal(hex("01 00 80 32"), 0, 32).contains(new java.math.BigDecimal("1")))
  }

  test("float16 conversions round to nearest even") {
    assert(Numbers.floatToHalf(1.0f) == 0x3c00)
    assert(Numbers.floatToHalf(65504f) == 0x7bff)
    assert(Numbers.floatToHalf(65520f) == 0x7c00)
    assert(Numbers.floatToHalf(-0.0f) == 0x8000)
    assert(Numbers.halfToFloat(0x0001) == 5.9604645e-8f)
    assert(Numbers.halfToFloat(0xc000) == -2.0f)
  }

  test("every complex kind nested in every other, empty containers and nulls at every level") {
    val rec = S.record("a" -> S.int64, "b" -> S.string)
    val kinds: Seq[(SuperType, Any)] = Seq(
      rec -> IndexedSeq(1L, null),
      ArrayType(S.int64) -> IndexedSeq(1L, null, 3L),
      SetType(S.string) -> IndexedSeq("a", "b"),
      MapType(S.string, S.int64) -> IndexedSeq("k" -> 1L, "z" -> null),
      UnionType(IndexedSeq(S.int64, S.string)) -> UnionValue(1, "x"),
      EnumType(IndexedSeq("red", "green")) -> EnumValue(1),
      ErrorType(S.string) -> ErrorValue("boom"),
      NamedType("thing", S.int64) -> 7L)
    for ((outerT, _) <- kinds; (innerT, innerV) <- kinds) {
      val (t, v): (SuperType, Any) = outerT match {
        case _: RecordType => (S.record("x" -> innerT, "y" -> innerT), IndexedSeq(innerV, null))
        case _: ArrayType => (ArrayType(innerT), IndexedSeq(innerV, null))
        case _: SetType => (SetType(innerT), IndexedSeq(innerV))
        case _: MapType => (MapType(S.string, innerT), IndexedSeq("k" -> innerV, "l" -> null))
        case _: UnionType => (UnionType(IndexedSeq(S.int64, innerT)), UnionValue(1, innerV))
        case _: EnumType => (ArrayType(innerT), IndexedSeq.empty)
        case _: ErrorType => (ErrorType(innerT), ErrorValue(innerV))
        case _: NamedType => (NamedType("wrap", innerT), innerV)
      }
      assertRoundTrip(t, v, null)
    }
    assertRoundTrip(RecordType(IndexedSeq.empty), IndexedSeq.empty)
    assertRoundTrip(ArrayType(S.int64), IndexedSeq.empty)
  }

  test("sets and maps are written in byte order without duplicates") {
    val got = roundTrip(SetType(S.int64), Seq(IndexedSeq(300L, 1L, 300L, -5L)))
    assert(got.head.asInstanceOf[Seq[Any]].toSet == Set(1L, 300L, -5L))
    assert(got.head.asInstanceOf[Seq[Any]].size == 3)
  }

  test("named types redefined after an end of stream and within a stream") {
    val out = new ByteArrayOutputStream()
    val w = new BsupWriter(out, BsupWriterOptions(compress = false))
    w.write(NamedType("port", S.uint16), 80L)
    w.endStream()
    w.write(NamedType("port", S.string), "http")
    w.write(NamedType("port", S.int64), 8080L)
    w.close()
    val vals = readAll(new BsupReader(new ByteArrayInputStream(out.toByteArray), "named"))
    assert(vals == Seq(Value(NamedType("port", S.uint16), 80L), Value(NamedType("port", S.string), "http"),
      Value(NamedType("port", S.int64), 8080L)))
  }

  test("control frames are skipped, and readable through onControl") {
    val out = new ByteArrayOutputStream()
    val w = new BsupWriter(out, BsupWriterOptions(compress = true))
    w.write(S.int64, 1L)
    w.writeControl(1, "{\"hello\":1}".getBytes("UTF-8"))
    w.write(S.int64, 2L)
    w.close()
    val r = new BsupReader(new ByteArrayInputStream(out.toByteArray), "ctl")
    val msgs = ArrayBuffer[ControlMessage]()
    r.onControl = msgs += _
    assert(readAll(r).map(_.value) == Seq(1L, 2L))
    assert(msgs.map(m => (m.encoding, new String(m.body, "UTF-8"))) == Seq((1, "{\"hello\":1}")))
  }

  test("version bytes: 6 or later, and a version change inside a stream, are errors naming the version") {
    // a version 0 stream, then a frame with a version 3 byte
    val change = hex("05 00 00 01 01 61 09 83 14 00 1e 03 02 02 ff")
    val e1 = intercept[BsupException](readAll(new BsupReader(new ByteArrayInputStream(change), "mix.bsup")))
    assert(e1.getMessage.contains("version changes from 0 to 3") && e1.offset == 7, e1.getMessage)
    val e2 = intercept[BsupException](readAll(new BsupReader(new ByteArrayInputStream(hex("86 13 00 1e 02 ff")), "v6.bsup")))
    assert(e2.getMessage.contains("unsupported Super Binary version 6") && e2.offset == 0, e2.getMessage)
    // each stream has its own version: the frame core reports it to the layer above
    val frames = FrameReader.overArray(hex("13 00 09 02 02 ff 85 13 00 09 02 02 ff"), "f")
    assert(frames.next() == FrameReader.Values && frames.version == 0)
    assert(frames.next() == FrameReader.EndOfStream && frames.version == -1)
    assert(frames.next() == FrameReader.Values && frames.version == 5 && frames.frameStart == 6)
    assert(frames.payload.remaining == 3)
  }

  test("a version byte of an unsupported version (1 to 4) at the start of a stream is a clear error") {
    val e = intercept[BsupException](readAll(new BsupReader(new ByteArrayInputStream(hex("81 13 00 09 02 02")), "v1.bsup")))
    assert(e.getMessage.contains("Super Binary version 1 ") && e.getMessage.contains("not supported") && e.offset == 0,
      e.getMessage)
  }

  test("LZ4 frames compress and decompress, large values and many frames") {
    val t = S.record("i" -> S.int64, "s" -> S.string)
    val vs = (0 until 20000).map(i => IndexedSeq(i.toLong, s"value-$i-" + ("x" * (i % 50))))
    val out = new ByteArrayOutputStream()
    val w = new BsupWriter(out, BsupWriterOptions(frameSize = 4096, streamSize = 100000))
    vs.foreach(w.write(t, _))
    w.close()
    val bytes = out.toByteArray
    val plain = new ByteArrayOutputStream()
    val pw = new BsupWriter(plain, BsupWriterOptions(compress = false, frameSize = 4096, streamSize = 100000))
    vs.foreach(pw.write(t, _))
    pw.close()
    assert(bytes.length < plain.size() / 2, s"lz4 ${bytes.length} vs plain ${plain.size()}")
    val r = new BsupReader(new ByteArrayInputStream(bytes), "big")
    assert(readAll(r).map(_.value) == vs)
    assert(r.streamNumber > 5)
  }

  test("stream starts for splits") {
    val out = new ByteArrayOutputStream()
    val w = new BsupWriter(out, BsupWriterOptions(frameSize = 1000, streamSize = 5000))
    (0 until 5000).foreach(i => w.write(S.int64, i.toLong))
    w.close()
    val bytes = out.toByteArray
    val mid = bytes.length / 2
    val s1 = BsupReader.firstStreamStart(new ByteArrayInputStream(bytes), mid, "s", bytes.length)
    assert(s1 >= mid && bytes(s1.toInt - 1) == -1.toByte)
    def part(from: Long, to: Long): Seq[Any] = {
      val in = new ByteArrayInputStream(bytes)
      in.skip(from)
      readAll(new BsupReader(in, "s", from, bytes.length, to)).map(_.value)
    }
    val a = part(0, s1)
    val b = part(s1, bytes.length)
    assert(a.nonEmpty && b.nonEmpty)
    assert(a ++ b == (0 until 5000).map(_.toLong))
  }

  test("SuperType format and parse are inverse") {
    val types = Seq[SuperType](
      S.record("a" -> S.int64, "b c" -> ArrayType(S.string), "enum" -> SetType(S.ip)),
      MapType(S.string, UnionType(IndexedSeq(S.int64, ErrorType(S.string)))),
      EnumType(IndexedSeq("x", "y z")), NamedType("my.name", S.record("p" -> NamedType("port", S.uint16))),
      RecordType(IndexedSeq.empty), S.nullType, S.typeType)
    types.foreach(t => assert(SuperType.parse(t.toString) == t, t.toString))
    assert(S.record("a" -> S.int64, "b" -> ArrayType(S.string)).toString == "{a:int64,b:[string]}")
    assert(intercept[IllegalArgumentException](SuperType.parse("{a:nosuch}")).getMessage.contains("unknown type"))
  }

  test("values in SUP-like text") {
    val t = SuperType.parse("{a:int64,\"b c\":[string],s:|[ip]|,m:|{string:time}|,u:(int64|bytes),e:enum(x,y),r:error(string),ty:type,n:null}")
    val v = IndexedSeq(1L, IndexedSeq("q\"", null), IndexedSeq(InetAddress.getByName("::1")),
      IndexedSeq("k" -> Time(1500000000123456789L)), UnionValue(1, Bytes(Array[Byte](0, -1))), EnumValue(1),
      ErrorValue("boom"), S.int64, null)
    assert(ValueText.format(t, v) == "{a:1,\"b c\":[\"q\\\"\",null],s:|[::1]|,m:|{\"k\":2017-07-14T02:40:00.123456789Z}|," +
      "u:0x00ff,e:y,r:error(\"boom\"),ty:<int64>,n:null}")
  }

  // ------------------------------------------------------------ bad input

  private def bad(hexBytes: String, expect: String, fileLength: Boolean = true): BsupException = {
    val b = hex(hexBytes)
    val e = intercept[BsupException] {
      val r = new BsupReader(new ByteArrayInputStream(b), "bad.bsup", 0, if (fileLength) b.length else -1)
      while (r.next()) r.decode()
    }
    assert(e.getMessage.contains(expect), e.getMessage)
    assert(e.text.startsWith("bad.bsup: byte offset ") && e.text.contains(expect), e.text)
    e
  }

  test("bad input is the error condition BSUP_MALFORMED_INPUT (SQLSTATE 22023); its text is what records carry") {
    val e = bad("05 00 00 01 01", "runs past the end of the file")
    assert(e.getCondition == "BSUP_MALFORMED_INPUT" && e.getSqlState == "22023")
    assert(e.getMessageParameters.get("source") == "bad.bsup" && e.getMessageParameters.get("offset") == e.offset.toString)
    assert(e.getMessage == s"[BSUP_MALFORMED_INPUT] ${e.text} SQLSTATE: 22023")
    assert(e.text == s"bad.bsup: byte offset ${e.offset}: ${e.detail}")
  }

  test("bad input: truncated frames and values") {
    bad("05 00 00 01 01", "runs past the end of the file")
    bad("05 00 00 01 01", "truncated frame", fileLength = false)
    // value tag says 4 bytes, frame holds 2
    val e = bad("05 00 00 01 01 61 09 14 00 1e 05 02 02 ff", "runs past the end of its container")
    assert(e.offset == 10)
    // a record with a missing field
    bad("08 00 00 02 01 61 09 01 62 09 14 00 1e 03 02 02 ff", "record value has 1 fields")
  }

  test("bad input: uvarint longer than 10 bytes") {
    bad("05 ff ff ff ff ff ff ff ff ff ff 01", "longer than 10 bytes")
    bad("05 00 00 01 81 80 80 80 80 80 80 80 80 80 80 01", "uvarint")
  }

  test("bad input: undefined type id") {
    val e = bad("13 00 1f 01 00 ff", "type id 31 is not defined")
    assert(e.offset == 2)
    bad("02 00 01 28 ff", "type id 40 is not defined") // array of undefined type
  }

  test("bad input: lengths far larger than the file never allocate") {
    bad("10 ff ff 3f", "runs past the end of the file")
    bad("10 ff ff 3f", "truncated frame", fileLength = false)
    bad("10 ff ff ff ff 07", "too large")
    // a record with 2^60 fields
    bad("0a 00 00 80 80 80 80 80 80 80 80 10", "record field count")
    // a compressed frame declaring 1 GB uncompressed from 3 bytes
    bad("46 00 00 80 80 80 80 04 00", "impossible")
  }

  test("bad input: LZ4 block that does not decompress to its declared size") {
    // literal-only block "abc" (token 0x30) but header declares 5 bytes
    bad("56 00 00 05 30 61 62 63", "LZ4 block decompressed to 3 bytes")
    bad("55 00 00 03 ff ff ff ff", "LZ4")
  }

  test("bad input: invalid UTF-8 in strings and field names") {
    bad("14 00 19 03 c3 28 ff", "invalid UTF-8 in a string")
    bad("05 00 00 01 01 ff 09 ff", "invalid UTF-8 in field name")
  }

  test("bad input: union selector and enum index out of range") {
    // union (int64,string); selector 2 (counted signed 04)
    bad("04 00 04 02 09 19 16 00 1e 05 02 04 02 02 ff", "union selector 2 out of range")
    // enum(a,b); index 5
    bad("06 00 05 02 01 61 01 62 13 00 1e 02 05 ff", "enum index 5 out of range")
  }

  test("bad input: set and map elements out of order") {
    // set of int64 with elements 2, 1
    bad("02 00 02 09 16 00 1e 05 02 04 02 02 ff", "set element is not in increasing order")
    // set with a duplicate
    bad("02 00 02 09 16 00 1e 05 02 04 02 04 ff", "set element")
    // map int64:int64 with keys 2, 1
    bad("03 00 03 09 09 18 00 1e 07 02 04 01 02 02 01 ff", "map key is not in increasing order")
  }

  test("bad input: types nested too deeply are refused (no stack overflow)") {
    val defs = new ByteBuf()
    defs.put(1); defs.putUvarint(9) // 30: [int64]
    (31 until 31 + 300).foreach { id => defs.put(1); defs.putUvarint(id - 1) }
    val frame = new ByteBuf()
    frame.put(defs.size & 0xf); frame.putUvarint(defs.size >> 4); frame.put(defs.toArray)
    val e = intercept[BsupException](readAll(new BsupReader(new ByteArrayInputStream(frame.toArray), "deep.bsup")))
    assert(e.getMessage.contains("nested more than 200 levels"))
  }

  test("bad input: the issue's fuzzer findings are errors with an offset inside the input, on every path") {
    BadInputs.all.foreach { case (name, b, problem) =>
      Seq(b.length.toLong, -1L).foreach { fileLength =>
        val e = intercept[BsupException] {
          val r = new BsupReader(new ByteArrayInputStream(b), "bad.bsup", 0, fileLength)
          while (r.next()) r.decode()
        }
        assert(e.getMessage.contains(problem), s"$name: ${e.getMessage}")
        assert(e.offset >= 0 && e.offset < b.length, s"$name: ${e.getMessage}")
        assert(e.source == "bad.bsup")
      }
      val d = new functions.CellDecoder("cell")
      d.reset(b)
      val e = intercept[BsupException] { while (d.next()) d.decode() }
      assert(e.getMessage.contains(problem), s"$name (cell): ${e.getMessage}")
      assert(e.offset >= 0 && e.offset < b.length, s"$name (cell): ${e.getMessage}")
      // The split finder walks frame headers only: it fails on a bad header or finds no stream.
      try assert(BsupReader.firstStreamStart(new ByteArrayInputStream(b), 1, "bad.bsup", b.length) == -1L)
      catch { case e: BsupException => assert(e.offset >= 0 && e.offset < b.length, s"$name (split): ${e.getMessage}") }
    }
  }

  test("T|null and null|T read by the Spark readers in both versions (selectors compared in place), alone and in arrays") {
    import io.superspark.bsup.spark.{Src, SparkReaders}
    import io.superspark.bsup.spark.SuperTypes
    import org.apache.spark.sql.catalyst.util.ArrayData
    import org.apache.spark.sql.types.{ArrayType => SArrayType, DataType}
    val int32 = SuperType.primitive(SuperType.Int32)
    val opt = UnionType(IndexedSeq(SuperType.int64, SuperType.nullType)) // the member's selector is 0
    val optLast = UnionType(IndexedSeq(SuperType.nullType, SuperType.int64)) // 1: its bytes differ by version
    val ints = ArrayType(UnionType(IndexedSeq(int32, SuperType.nullType)))
    val doubles = ArrayType(UnionType(IndexedSeq(SuperType.nullType, SuperType.float64)))
    val cases: Seq[(SuperType, Any, Any)] = Seq(
      (opt, UnionValue(0, 5L), 5L), (opt, UnionValue(0, -300L), -300L), (opt, UnionValue(1, null), null),
      (optLast, UnionValue(1, Long.MinValue), Long.MinValue), (optLast, UnionValue(0, null), null),
      (ints, Seq(UnionValue(0, 1L), UnionValue(0, -2L), UnionValue(0, 0L)), Seq(1, -2, 0)),
      (ints, Seq(UnionValue(0, 1L), UnionValue(1, null)), Seq(1, null)),
      (ints, Seq.empty, Seq.empty),
      (doubles, Seq(UnionValue(1, 1.5), UnionValue(1, -0.25)), Seq(1.5, -0.25)),
      (doubles, Seq(UnionValue(0, null), UnionValue(1, 2.0)), Seq(null, 2.0)))
    def spark(v: Any, dt: DataType): Any = (v, dt) match {
      case (a: ArrayData, SArrayType(et, _)) => a.toSeq[Any](et)
      case _ => v
    }
    for (version <- Seq(0, 5); (t, value, expected) <- cases) {
      val out = new ByteArrayOutputStream()
      val w = new BsupWriter(out, BsupWriterOptions(compress = false, version = version))
      w.write(t, value); w.close()
      val r = new BsupReader(new ByteArrayInputStream(out.toByteArray), "opt.bsup")
      assert(r.next())
      val dt = SuperTypes.toSpark(t)
      val reader = SparkReaders.compile(r.valueType, dt, SuperTypes.DefaultOptions)
      assert(spark(reader.read(new Src(r.frameCursor), r.valueOffset, r.valueLength), dt) == expected, s"$t $value v$version")
    }
  }

  test("bad input: encodings that would re-encode differently are errors on the reader and the Spark readers (fuzz-bsup)") {
    import io.superspark.bsup.spark.{Src, SparkReaders}
    import io.superspark.bsup.spark.SuperTypes
    val cases = Seq(
      ("13 00 09 02 00 ff", "int64 value is not minimally encoded", 4),
      ("13 00 0a 02 01 ff", "int128 value is a negative zero", 4),
      ("12 00 1d 01 ff", "a value of type null must be null", 4),
      ("1a 00 1b 09 0a 00 00 01 ff 00 00 00 ff", "net value is not a network", 4), // 10.0.0.1/8
      ("1a 00 1b 09 0a 00 00 00 ff 00 ff 00 ff", "net value is not a network", 4), // mask not a prefix
      ("04 00 04 02 09 19 16 00 1e 05 02 00 02 02 ff", "union selector value is not minimally encoded", 11))
    cases.foreach { case (h, problem, offset) =>
      assert(bad(h, problem).offset == offset, h)
      // The Spark reader of the type's own column type fails alike.
      val r = new BsupReader(new ByteArrayInputStream(hex(h)), "bad.bsup", 0, hex(h).length)
      assert(r.next())
      val reader = SparkReaders.compile(r.valueType, SuperTypes.toSpark(r.valueType), SuperTypes.DefaultOptions)
      val e = intercept[BsupException](reader.read(new Src(r.frameCursor), r.valueOffset, r.valueLength))
      assert(e.getMessage.contains(problem) && e.offset == offset, e.getMessage)
    }
    // Minimal encodings of the same values decode.
    assert(readAll(new BsupReader(new ByteArrayInputStream(hex("12 00 09 01 ff")), "ok.bsup")) == Seq(Value(SuperType.int64, 0L)))
    assert(readAll(new BsupReader(new ByteArrayInputStream(hex("13 00 09 02 01 ff")), "ok.bsup")) ==
      Seq(Value(SuperType.int64, Long.MinValue)))
    assert(readAll(new BsupReader(new ByteArrayInputStream(hex("1a 00 1b 09 0a 00 00 00 ff 00 00 00 ff")), "ok.bsup")) ==
      Seq(Value(SuperType.primitive(SuperType.Net), IpNet(java.net.InetAddress.getByName("10.0.0.0"), 8))))
  }

  test("VARIANT: a map with string keys is an object, unless a key is null (an array of {key, value})") {
    import io.superspark.bsup.spark.{Src, VariantReader}
    def json(h: String): String = {
      val r = new BsupReader(new ByteArrayInputStream(hex(h)), "m.bsup")
      assert(r.next())
      new VariantReader(r.valueType).read(new Src(r.frameCursor), r.valueOffset, r.valueLength)
        .asInstanceOf[org.apache.spark.unsafe.types.VariantVal].toJson(java.time.ZoneOffset.UTC)
    }
    assert(json("03 00 03 19 09 16 00 1e 05 02 6b 02 02 ff") == """{"k":1}""")
    assert(json("03 00 03 19 09 15 00 1e 04 00 02 02 ff") == """[{"key":null,"value":1}]""")
  }

  test("bad input: fixed-size primitives with the wrong size") {
    bad("13 00 10 02 00 ff", "float64 value has 1 bytes")
    bad("13 00 1a 02 00 ff", "ip value has 1 bytes")
    bad("13 00 17 02 07 ff", "bool value byte is 7")
    bad("14 00 06 03 00 01 ff", "int8 value 128 out of range")
  }
}

object BsupCodecSuite {
  def hex(s: String): Array[Byte] = s.split("\\s+").filter(_.nonEmpty).map(x => Integer.parseInt(x, 16).toByte)
  def toHex(b: Array[Byte]): String = b.map(x => f"${x & 0xff}%02x").mkString(" ")

  def readAll(r: BsupReader): Seq[Value] = {
    val out = ArrayBuffer[Value]()
    while (r.next()) out += r.value()
    out.toSeq
  }

  /** Equality that treats NaN as equal to NaN. */
  def same(a: Any, b: Any): Boolean = (a, b) match {
    case (x: Double, y: Double) => java.lang.Double.compare(x, y) == 0 || (x.isNaN && y.isNaN)
    case (x: Float, y: Float) => java.lang.Float.compare(x, y) == 0 || (x.isNaN && y.isNaN)
    case (x: java.math.BigDecimal, y: java.math.BigDecimal) => x.compareTo(y) == 0
    case (x: Seq[_], y: Seq[_]) => x.size == y.size && x.zip(y).forall { case (p, q) => same(p, q) }
    case (x: Product, y: Product) if x.productArity == y.productArity && x.getClass == y.getClass =>
      x.productIterator.zip(y.productIterator).forall { case (p, q) => same(p, q) }
    case _ => a == b
  }
}
