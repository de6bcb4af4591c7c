package io.superspark.bsup.functions

import java.io.ByteArrayOutputStream

import io.superspark.SparkSessionSuite
import io.superspark.bsup._
import org.apache.spark.SparkException
import org.apache.spark.sql.{AnalysisException, Row}
import org.apache.spark.sql.functions.col
import org.apache.spark.sql.types._

class SbFunctionsSuite extends SparkSessionSuite {
  override protected def extraConf: Map[String, String] = Map("spark.sql.session.timeZone" -> "UTC")

  private def hex(s: String): Array[Byte] =
    s.split("\\s+").filter(_.nonEmpty).map(Integer.parseInt(_, 16).toByte)

  /** A cell written by the shared BsupWriter. */
  private def cell(values: Value*)(compress: Boolean = false, endStream: Boolean = true): Array[Byte] = {
    val out = new ByteArrayOutputStream()
    val w = new BsupWriter(out, BsupWriterOptions(compress = compress))
    values.foreach(w.write)
    if (endStream) w.close() else { w.flush(); out.close() }
    out.toByteArray
  }

  private def one(sql: String): Any = spark.sql(sql).head().get(0)

  private def decodeCell(bytes: Array[Byte], args: String): Row = {
    val df = spark.createDataFrame(java.util.List.of(Row(bytes)), StructType(Seq(StructField("b", BinaryType))))
    df.selectExpr(s"sb_decode(b$args)").head()
  }

  // ------------------------------------------------------------ round trips

  // Every Spark type of the mapping table: sb_decode(sb_encode(x), schema_of_x) = x.
  private val sparkValues = Seq(
    "true", "cast(-7 as tinyint)", "cast(-300 as smallint)", "-70000", "-5000000000L", "cast(1.5 as float)",
    "cast(-2.25 as double)", "cast(12345.67 as decimal(10,2))", "cast('12345678901234567890123456789012345678' as decimal(38,0))",
    "'héllo'", "X'00FF10'", "date'2024-02-29'", "timestamp'2024-01-02 03:04:05.123456'",
    "timestamp_ntz'2024-01-02 03:04:05.5'", "interval '1 02:03:04.5' day to second", "null",
    "array(1, null, 3)", "array('a', 'b')", "array(array(1L), array())", "map('a', 1, 'b', null)",
    "map(1, 'x', 2, 'y')", "named_struct('a', 1, 'b', named_struct('c', 'x', 'd', array(1.5d)))",
    "array(named_struct('k', 'v', 'n', cast(null as int)))")

  test("sb_decode(sb_encode(x), schema of x) = x for every Spark type of the mapping") {
    sparkValues.foreach { v =>
      val df = spark.sql(s"SELECT $v AS x")
      val ddl = df.schema("x").dataType.sql
      val back = df.selectExpr(s"sb_decode(sb_encode(x), '$ddl') AS y", "x")
      assert(back.schema("y").dataType.sql == df.schema("x").dataType.sql, v)
      val r = back.head()
      assert(r.get(0) == r.get(1) || (r.get(0), r.get(1)).productIterator.forall(_.isInstanceOf[Array[Byte]]) &&
        r.getAs[Array[Byte]](0).sameElements(r.getAs[Array[Byte]](1)), s"$v: ${r.get(0)} != ${r.get(1)}")
    }
  }

  // Every Super type of the mapping table, through columns carrying it in their metadata.
  private val superValues = Seq(
    "uint8" -> "cast(200 as smallint)", "uint16" -> "60000", "uint32" -> "4000000000L",
    "uint64" -> "cast('18446744073709551615' as decimal(20,0))", "int8" -> "cast(-1 as tinyint)",
    "int16" -> "cast(-2 as smallint)", "int32" -> "-3", "int64" -> "-4L",
    "int128" -> "cast('-99999999999999999999999999999999999999' as decimal(38,0))",
    "uint128" -> "cast('99999999999999999999999999999999999999' as decimal(38,0))",
    "int256" -> "'-12345678901234567890123456789012345678901234567890'",
    "uint256" -> "'12345678901234567890123456789012345678901234567890'",
    "float16" -> "cast(1.5 as float)", "float32" -> "cast(2.5 as float)", "float64" -> "3.25d",
    "decimal32" -> "'1.25'", "decimal64" -> "'-12345.678'", "decimal128" -> "'3.14159'",
    "bool" -> "false", "bytes" -> "X'CAFE'", "string" -> "'x'", "ip" -> "'10.0.0.1'", "net" -> "'10.0.0.0/8'",
    "type" -> "'{a:int64,b:[string]}'", "time" -> "timestamp'2024-01-02 03:04:05'", "duration" -> "1500000000L",
    "null" -> "null", "enum(a,b,c)" -> "'b'", "error(string)" -> "'boom'", "{a:int64,b:[ip]}" ->
      "named_struct('a', 1L, 'b', array('::1', '192.168.0.1'))", "[uint8]" -> "array(cast(1 as smallint))",
    "|[string]|" -> "array('a', 'b')", "|{string:int64}|" -> "map('a', 1L)",
    "(int64|string)" -> "named_struct('selector', 1, 'int64', cast(null as bigint), 'string', 'hi')",
    "port=uint16" -> "8080")

  test("every Super type of the mapping round-trips through sb_encode and sb_decode with a Super type schema") {
    superValues.foreach { case (t, v) =>
      val df = spark.sql(s"SELECT $v AS x").select(col("x").as("x", new MetadataBuilder().putString("super.type", t).build()))
      val r = df.selectExpr(s"sb_decode(sb_encode(x), '$t') AS y", "x", "sb_typeof(sb_encode(x)) AS t").head()
      // NULL in, NULL out: a null of any type encodes to no cell.
      if (t == "null") assert(r.isNullAt(2)) else assert(r.getString(2) == t, t)
      val (y, x) = (r.get(0), r.get(1))
      val same = (y, x) match {
        case (a: Array[Byte], b: Array[Byte]) => a.sameElements(b)
        case _ => y == x
      }
      assert(same, s"$t: $y != $x")
    }
  }

  test("sb_decode without a schema gives a VARIANT, so heterogeneous cells decode") {
    val df = spark.sql(
      """SELECT * FROM VALUES (sb_encode(1L)), (sb_encode('x')), (sb_encode(named_struct('a', 1, 'b', array(true)))),
        |  (sb_encode(map('k', 2.5d))), (sb_encode(cast(null as string))) AS t(b)""".stripMargin)
    val v = df.selectExpr("sb_decode(b) AS v")
    assert(v.schema("v").dataType == VariantType)
    assert(v.selectExpr("to_json(v)").collect().map(r => Option(r.getString(0)).orNull).toSeq ==
      Seq("1", "\"x\"", """{"a":1,"b":[true]}""", """{"k":2.5}""", null))
  }

  test("sb_decode_all returns every value; sb_decode the first; a missing end-of-stream marker is accepted") {
    val rec = SuperType.record("a" -> SuperType.int64)
    val two = cell(Value(rec, IndexedSeq(1L)), Value(rec, IndexedSeq(2L)))()
    assert(decodeCell(two, ", 'a bigint'").get(0) == Row(1L))
    val df = spark.createDataFrame(java.util.List.of(Row(two)), StructType(Seq(StructField("b", BinaryType))))
    assert(df.selectExpr("sb_decode_all(b, 'a bigint')").head().getSeq[Row](0) == Seq(Row(1L), Row(2L)))
    assert(df.selectExpr("sb_to_sup(b)").head().getString(0) == "{a:1}\n{a:2}")
    val noEos = cell(Value(rec, IndexedSeq(3L)))(endStream = false)
    assert(noEos.last != 0xff.toByte)
    assert(decodeCell(noEos, ", '{a:int64}'").get(0) == Row(3L))
    // Two streams in one cell: each with its own type context.
    val twoStreams = cell(Value(rec, IndexedSeq(4L)))() ++ cell(Value(SuperType.string, "s"))()
    val all = spark.createDataFrame(java.util.List.of(Row(twoStreams)), StructType(Seq(StructField("b", BinaryType))))
    assert(all.selectExpr("to_json(sb_decode_all(b))").head().getString(0) == """[{"a":4},"s"]""")
    // Compressed frames decode too.
    val big = Value(SuperType.string, "z" * 5000)
    val z = cell(big)(compress = true)
    assert(z.length < 200)
    assert(decodeCell(z, ", 'string'").getString(0) == "z" * 5000)
  }

  test("nulls in give nulls out; an empty cell gives null") {
    Seq("sb_decode", "sb_decode_all", "sb_typeof", "sb_to_sup", "sb_schema_of", "try_sb_decode").foreach { f =>
      assert(one(s"SELECT $f(cast(null as binary))") == null, f)
      assert(one(s"SELECT $f(X'')") == null || f.endsWith("_all"), f)
    }
    assert(one("SELECT sb_encode(cast(null as int))") == null)
    assert(one("SELECT size(sb_decode_all(X''))") == 0)
    // A null value inside a cell is a null result.
    assert(one("SELECT sb_decode(sb_encode(named_struct('a', cast(null as int))), 'a int').a") == null)
  }

  test("sb_typeof, sb_schema_of and sb_to_sup describe the value; sb_schema_of feeds sb_decode") {
    val e = "sb_encode(named_struct('a', 1L, 'b', array('x'), 'c', cast(2 as int), 'd', cast(null as string)))"
    assert(one(s"SELECT sb_typeof($e)") == "{a:int64,b:[string],c:int32,d:string}")
    assert(one(s"SELECT sb_schema_of($e)") == "STRUCT<a: BIGINT, b: ARRAY<STRING>, c: INT, d: STRING>")
    assert(one(s"SELECT sb_to_sup($e)") == """{a:1,b:["x"],c:2::int32,d:null::string}""")
    val schema = one(s"SELECT sb_schema_of($e)").toString
    assert(one(s"SELECT to_json(sb_decode($e, '$schema'))") == """{"a":1,"b":["x"],"c":2}""")
    assert(one("SELECT hex(sb_encode(1L))") == "1300090202FF")
  }

  test("SUP text: decorations for types the text does not imply") {
    val cases = Seq(
      "sb_encode(1L)" -> "1", "sb_encode(1.5d)" -> "1.5", "sb_encode(2d)" -> "2.", "sb_encode(cast(1 as tinyint))" -> "1::int8",
      "sb_encode(array())" -> "[]", "sb_encode(filter(array(1L), x -> false))" -> "[]::[int64]",
      "sb_encode(array(cast(1 as int)))" -> "[1]::[int32]", "sb_encode(array(1L, 2L))" -> "[1,2]",
      "sb_encode(map('a', true))" -> """|{"a":true}|""", "sb_encode(timestamp'2024-01-02 03:04:05')" -> "2024-01-02T03:04:05Z",
      "sb_encode(X'00ff')" -> "0x00ff")
    cases.foreach { case (e, sup) => assert(one(s"SELECT sb_to_sup($e)") == sup, e) }
    assert(SupText.duration(1500000000L) == "1.5s")
    assert(SupText.duration(3723000000000L) == "1h2m3s")
    assert(SupText.duration(-1500L) == "-1.5us")
    assert(SupText.format(UnionType(IndexedSeq(SuperType.int64, SuperType.string)), UnionValue(1, "a")) ==
      "\"a\"::(int64|string)")
    assert(SupText.format(NamedType("port", SuperType.primitive(SuperType.Uint16)), 80L) == "80::(port=uint16)")
    assert(SupText.format(EnumType(IndexedSeq("a", "b")), EnumValue(1)) == "\"b\"::enum(a,b)")
  }

  test("schema argument: DDL or Super type; bad schemas and modes are analysis errors") {
    val e = "sb_encode(named_struct('a', 1L, 'b', 'x'))"
    assert(one(s"SELECT sb_decode($e, 'b STRING').b") == "x")
    assert(one(s"SELECT sb_decode($e, '{b:string}').b") == "x")
    assert(one(s"SELECT sb_decode($e, 'struct<a:int>').a") == 1)
    val bad = intercept[AnalysisException](spark.sql(s"SELECT sb_decode($e, 'not a type <')").collect())
    assert(bad.getCondition == "INVALID_SCHEMA.PARSE_ERROR")
    val nonLiteral = intercept[AnalysisException](spark.sql(s"SELECT sb_decode($e, string(rand()))").collect())
    assert(nonLiteral.getCondition == "INVALID_SCHEMA.NON_STRING_LITERAL")
    val mode = intercept[AnalysisException](
      spark.sql(s"SELECT sb_decode($e, 'a bigint', map('mode', 'DROPMALFORMED'))").collect())
    assert(mode.getCondition == "PARSE_MODE_UNSUPPORTED")
    val notBinary = intercept[AnalysisException](spark.sql("SELECT sb_decode('x')").collect())
    assert(notBinary.getCondition == "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE")
    assert(intercept[AnalysisException](spark.sql("SELECT sb_decode()").collect())
      .getCondition == "WRONG_NUM_ARGS.WITHOUT_SUGGESTION")
    // A value that does not fit the schema is a malformed cell.
    val err = intercept[SparkException](spark.sql(s"SELECT sb_decode($e, 'a boolean')").collect())
    assert(err.getMessage.contains("cannot be read as Spark type boolean"))
    assert(one(s"SELECT sb_decode($e, 'a boolean', map('mode', 'PERMISSIVE'))") == null)
    // Type options as for the data source.
    assert(one("SELECT sb_decode(sb_encode(timestamp'1970-01-01 00:00:01'), 'time', map('timeAsLong', 'true'))") ==
      1000000000L)
  }

  // ------------------------------------------------------------ bad input

  private val good = cell(Value(SuperType.record("a" -> SuperType.int64, "s" -> SuperType.string), IndexedSeq(1L, "hi")))()

  // name -> (cell, expected text in the error, byte offset)
  private val badCells: Seq[(String, Array[Byte], String, Int)] = Seq(
    ("truncated", good.take(good.length - 4), "runs past the end", -1),
    ("truncated typedefs", hex("04 00 00 02 01 61"), "record field count 2 is larger than the 2 bytes left", 3),
    ("bad uvarint", hex("10 ff ff ff ff ff ff ff ff ff ff ff"), "bad frame length", 0),
    ("unknown type id", hex("12 00 63 00 ff"), "type id 99 is not defined", 2),
    ("absurd frame length", hex("10 ff ff ff ff 07 00"), "too large", 0),
    ("absurd value length", hex("15 00 19 ff ff ff 7f ff"), "runs past the end of its container", 3),
    ("bad LZ4", hex("56 00 00 0a 01 02 03 04 ff"), "corrupt LZ4 block", 0),
    ("impossible LZ4 size", hex("56 00 00 ff ff ff 7f 01 ff"), "impossible", 3),
    ("bad UTF-8", hex("14 00 19 03 c3 28 ff"), "invalid UTF-8", 4),
    ("unsupported version", hex("81 13 00 09 02 02"), "Super Binary version 1 ", 0),
    ("later version", hex("86 00"), "Super Binary version 6", 0),
    ("bad frame code", hex("30 00"), "bad frame code", 0))

  test("bad cells: FAILFAST errors name the byte offset and the problem, PERMISSIVE and try_ give null") {
    val schema = StructType(Seq(StructField("b", BinaryType)))
    badCells.foreach { case (name, bytes, problem, offset) =>
      val df = spark.createDataFrame(java.util.List.of(Row(bytes)), schema)
      Seq("b", "b, '{a:int64,s:string}'", "b, 'string'").foreach { args =>
        val e = intercept[SparkException](df.selectExpr(s"sb_decode($args)").collect())
        assert(e.getCondition.startsWith("MALFORMED_RECORD_IN_PARSING"), s"$name: ${e.getMessage}")
        if (args == "b") {
          assert(e.getMessage.contains(problem), s"$name: ${e.getMessage}")
          if (offset >= 0) assert(e.getMessage.contains(s"cell: byte offset $offset:"), s"$name: ${e.getMessage}")
        }
        assert(df.selectExpr(s"sb_decode($args, map('mode', 'PERMISSIVE'))").head().isNullAt(0), s"$name $args")
        assert(df.selectExpr(s"try_sb_decode($args)").head().isNullAt(0), s"$name $args")
        assert(df.selectExpr(s"try_sb_decode_all($args)").head().isNullAt(0), name)
      }
      Seq("sb_to_sup", "sb_typeof", "sb_schema_of").foreach { f =>
        val isError = try { df.selectExpr(s"$f(b)").collect(); false } catch {
          case e: SparkException => e.getCondition.startsWith("MALFORMED_RECORD_IN_PARSING")
        }
        // typeof/schema_of look only at the first value's type: a bad body may go unnoticed.
        if (f == "sb_to_sup") assert(isError, s"$f $name")
        if (isError) assert(df.selectExpr(s"try_$f(b)").head().isNullAt(0), s"try_$f $name")
      }
    }
  }

  test("bad cells: the issue's fuzzer findings are malformed-cell errors with an offset inside the cell, or null") {
    val schema = StructType(Seq(StructField("b", BinaryType)))
    BadInputs.all.foreach { case (name, bytes, problem) =>
      val df = spark.createDataFrame(java.util.List.of(Row(bytes)), schema)
      // These two inputs go bad after an intact first value: sb_decode reads the first value
      // only, so the error must come from sb_decode_all (schema-less: the first value would
      // fail the given schemas first).
      val secondValueBad = Set("value tag 2^63 or more", "version change inside a stream")(name)
      val argSets = if (secondValueBad) Seq("b") else Seq("b", "b, '{a:int64,s:string}'", "b, 'string'")
      val fns = if (secondValueBad) Seq("sb_decode_all") else Seq("sb_decode", "sb_decode_all")
      for (args <- argSets; f <- fns) {
        val e = withClue(s"$f($args) on $name: ")(intercept[SparkException](df.selectExpr(s"$f($args)").collect()))
        assert(e.getCondition.startsWith("MALFORMED_RECORD_IN_PARSING"), s"$name: ${e.getMessage}")
        val cause = Iterator.iterate[Throwable](e)(_.getCause).takeWhile(_ != null).collectFirst { case b: BsupException => b }
        assert(cause.exists(c => c.offset >= 0 && c.offset < bytes.length && c.getMessage.contains(problem)),
          s"$f $name: ${e.getMessage}")
        assert(df.selectExpr(s"try_$f($args)").head().isNullAt(0), s"try_$f $name $args")
      }
    }
  }

  test("random garbage never hangs or fails with anything but a malformed-cell error") {
    val rnd = new scala.util.Random(7)
    val cells = (0 until 300).map { i =>
      val b = good.clone()
      (0 until 1 + i % 3).foreach(_ => b(rnd.nextInt(b.length)) = rnd.nextInt(256).toByte)
      Row(if (i % 5 == 0) b.take(rnd.nextInt(b.length)) else b)
    }
    val df = spark.createDataFrame(java.util.List.of(cells: _*), StructType(Seq(StructField("b", BinaryType))))
    df.selectExpr("try_sb_decode(b)", "try_sb_decode(b, '{a:int64,s:string}')", "try_sb_to_sup(b)",
      "try_sb_decode_all(b)").collect()
    cells.foreach { r =>
      val one = spark.createDataFrame(java.util.List.of(r), df.schema)
      try one.selectExpr("sb_decode(b, '{a:int64,s:string}')").collect()
      catch { case e: SparkException => assert(e.getCondition.startsWith("MALFORMED_RECORD_IN_PARSING"), e.getMessage) }
    }
  }

  test("the decoder keeps one type context for a column of one type") {
    val d = new CellDecoder("cell")
    val rec = SuperType.record("a" -> SuperType.int64, "b" -> SuperType.string)
    d.reset(cell(Value(rec, IndexedSeq(1L, "x")))())
    assert(d.next())
    val (t1, v1) = (d.valueType, d.contextVersion)
    d.reset(cell(Value(rec, IndexedSeq(2L, "yy")))())
    assert(d.next())
    assert(d.valueType eq t1)
    assert(d.contextVersion == v1)
    // Another type: the context is rebuilt.
    d.reset(cell(Value(SuperType.record("z" -> SuperType.bool), IndexedSeq(true)))())
    assert(d.next())
    assert(d.contextVersion != v1)
    assert(d.valueType == SuperType.record("z" -> SuperType.bool))
    // A cell without typedefs does not see the previous cell's types.
    d.reset(hex("12 00 1e 00 ff"))
    val e = intercept[BsupException](d.next())
    assert(e.detail.contains("type id 30 is not defined"))
  }

  test("sb_encode honours the Super type kept in column metadata and rejects values that do not fit it") {
    val ip = spark.sql("SELECT '10.1.2.3' AS a").select(col("a").as("a", new MetadataBuilder().putString("super.type", "ip").build()))
    assert(ip.selectExpr("sb_typeof(sb_encode(a))", "sb_to_sup(sb_encode(a))").head() == Row("ip", "10.1.2.3"))
    val bad = spark.sql("SELECT 'nope' AS a").select(col("a").as("a", new MetadataBuilder().putString("super.type", "ip").build()))
    val e = intercept[Exception](bad.selectExpr("sb_encode(a)").collect())
    // The column is the input's SQL (here the literal the optimizer folded `a` into).
    assert(e.getMessage.contains("[BSUP_INVALID_VALUE] Column `") &&
      e.getMessage.contains("(Spark type string) holds 'nope', which is not an IP address"), e.getMessage)
    // A type without a Super mapping is an analysis error.
    assert(intercept[AnalysisException](spark.sql("SELECT sb_encode(interval '1' month + interval '1' day)").collect())
      .getCondition.startsWith("DATATYPE_MISMATCH"))
  }

  test("sb_encode of a VARIANT writes the Super type of each value's structure") {
    val df = spark.sql(
      """SELECT parse_json(j) AS v FROM VALUES ('{"a":1,"b":[1,"x",null],"c":{"d":2.5e0}}'), ('[true,null]'),
        |  ('"s"'), ('12.5'), ('null'), ('[]') AS t(j)""".stripMargin)
    val r = df.selectExpr("sb_typeof(sb_encode(v))", "to_json(sb_decode(sb_encode(v)))", "to_json(v)").collect()
    assert(r.map(_.getString(0)).toSeq == Seq("{a:int64,b:[(int64|string)],c:{d:float64}}", "[bool]", "string",
      "decimal128", "null", "[null]"))
    // A JSON null is a Super null value, which decodes to SQL NULL.
    r.foreach(x => assert(x.getString(1) == (if (x.getString(0) == "null") null else x.getString(2)), x))
    assert(one("""SELECT sb_to_sup(sb_encode(parse_json('{"a":[1,"x"]}')))""") == """{a:[1,"x"]::[(int64|string)]}""")
  }

  test("DESCRIBE FUNCTION EXTENDED documents every function") {
    SuperBinaryFunctions.all.map(_._1.funcName).foreach { f =>
      val text = spark.sql(s"DESCRIBE FUNCTION EXTENDED $f").collect().map(_.getString(0)).mkString("\n")
      assert(text.contains(s"Function: $f"), text)
      assert(text.contains("Usage:") && text.contains("bin") || f == "sb_encode", text)
      assert(text.contains("Examples:") && text.contains("Since: 0.1.0"), text)
    }
  }

  // A struct of flat fields is decoded straight into an UnsafeRow, and cells whose types frame
  // is the one of the cell before skip the frame-by-frame read (CellDecoder.first).
  // sb_decode_all's elements take the general path (typed rows, every frame read): both must
  // give the values encoded, which come from Spark itself.
  private val flatColumns = Seq(
    "b" -> "id % 3 = 0", "y" -> "cast(id % 100 - 50 as tinyint)", "h" -> "cast(id * 37 % 30000 as smallint)",
    "i" -> "cast(id * 7919 as int)", "l" -> "id * 1000003 - 5000000000L", "f" -> "cast(id / 7.0 as float)",
    "d" -> "id / 3.0d", "m" -> "cast(id * 1.25 as decimal(10,2))",
    "w" -> "cast(concat(cast(id as string), '12345678901234567890123456789') as decimal(38,0))",
    "s" -> "concat('héllo-', cast(id as string))", "x" -> "unhex(hex(id * 977))", "e" -> "date_add(date'2024-02-29', cast(id as int))",
    "t" -> "timestamp_micros(1700000000123456L + id * 1000001)", "n" -> "cast(timestamp_micros(id * 999) as timestamp_ntz)",
    "v" -> "make_dt_interval(0, 0, 0, id * 1.5)", "u" -> "make_ym_interval(0, cast(id as int))")

  test("flat structs decode into UnsafeRows like the general path, every type, nulls, both versions") {
    // Every field null in some rows (a different set per row), the whole struct null in others.
    val fields = flatColumns.zipWithIndex.map { case ((n, e), k) => s"'$n', if(id % 17 = $k, null, $e)" }
    val df = spark.range(400).selectExpr(s"if(id % 53 = 5, null, named_struct(${fields.mkString(", ")})) AS x").cache()
    val ddl = df.schema("x").dataType.sql
    Seq(0, 5).foreach { v =>
      val r = df.selectExpr("x", s"sb_encode(x, map('version', '$v')) AS c")
        .selectExpr("x", s"sb_decode(c, '$ddl') AS y", s"sb_decode_all(c, '$ddl')[0] AS z").collect()
      assert(r.length == 400 && r.count(_.isNullAt(0)) > 0)
      r.foreach(row => assert(same(row.get(1), row.get(0)) && same(row.get(2), row.get(0)), s"v$v: $row"))
    }
    df.unpersist()
  }

  /** Rows equal field by field (binary fields by content). */
  private def same(a: Any, b: Any): Boolean = (a, b) match {
    case (x: Row, y: Row) => x.length == y.length && (0 until x.length).forall(i => same(x.get(i), y.get(i)))
    case (x: Array[Byte], y: Array[Byte]) => x.sameElements(y)
    case _ => a == b
  }

  test("a flat struct's result is an UnsafeRow; mixed cells (compression, other types, bad ones) keep their results") {
    val st = StructType(Seq(StructField("a", LongType), StructField("s", StringType)))
    def decoder(failFast: Boolean) = SbDecode(org.apache.spark.sql.catalyst.expressions.BoundReference(0, BinaryType,
      nullable = true), st, Map.empty, all = false, failFast, "sb_decode")
    val dec = decoder(failFast = false)
    val rec = (a: Long, s: String) => Value(RecordType(IndexedSeq(Field("a", SuperType.primitive(SuperType.Int64)),
      Field("s", SuperType.primitive(SuperType.String)))), IndexedSeq(a, s))
    def eval(b: Array[Byte]): Any = dec.eval(org.apache.spark.sql.catalyst.InternalRow(b))
    val plain = cell(rec(1L, "x"))()
    val compressed = cell(rec(2L, "yy"))(compress = true)
    // The same types frame, then a truncated values frame: an error, never a stale value.
    val truncated = plain.dropRight(3)
    val other = cell(Value(RecordType(IndexedSeq(Field("s", SuperType.primitive(SuperType.String)))), IndexedSeq("only")))()
    val cells = Seq(plain, plain, compressed, plain, truncated, plain, other, plain, plain)
    val expected = Seq(Row(1L, "x"), Row(1L, "x"), Row(2L, "yy"), Row(1L, "x"), null, Row(1L, "x"),
      Row(null, "only"), Row(1L, "x"), Row(1L, "x"))
    cells.zip(expected).zipWithIndex.foreach { case ((c, want), k) =>
      val got = eval(c)
      if (want == null) assert(got == null, k)
      else {
        assert(got.isInstanceOf[org.apache.spark.sql.catalyst.expressions.UnsafeRow], k)
        val r = got.asInstanceOf[org.apache.spark.sql.catalyst.InternalRow]
        assert(Row(if (r.isNullAt(0)) null else r.getLong(0), r.getUTF8String(1).toString) == want, k)
      }
    }
    // A bad value after a cell of the same types frame fails as it does read frame by frame.
    val badUtf8 = plain.clone()
    badUtf8(plain.lastIndexOf('x'.toByte)) = 0xff.toByte
    def error(d: SbDecode, b: Array[Byte]): String =
      intercept[SparkException](d.eval(org.apache.spark.sql.catalyst.InternalRow(b))).getMessage
    val warm = decoder(failFast = true)
    warm.eval(org.apache.spark.sql.catalyst.InternalRow(plain))
    val fresh = error(decoder(failFast = true), badUtf8)
    assert(error(warm, badUtf8) == fresh && fresh.contains("invalid UTF-8"), fresh)
  }

  test("many rows of one type decode in a tight loop (reused context and readers)") {
    val n = 200000
    val df = spark.range(n).selectExpr("sb_encode(named_struct('id', id, 's', concat('u', id), 'd', cast(id as double) / 2)) AS b")
      .cache()
    df.count()
    val sum = df.selectExpr("sb_decode(b, 'id bigint, s string, d double') AS r").selectExpr("sum(r.id)", "max(r.s)")
      .head()
    assert(sum.getLong(0) == n.toLong * (n - 1) / 2)
    assert(sum.getString(1) == "u99999")
    df.unpersist()
  }
}
