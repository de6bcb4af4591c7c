package io.superspark.bsup.spark

import java.io.{ByteArrayOutputStream, File, FileInputStream}
import java.nio.file.Files

import scala.collection.mutable.ArrayBuffer

import io.superspark.SparkSessionSuite
import io.superspark.bsup.{BsupReader, BsupWriter, BsupWriterOptions, Evidence, NamedType, RecordType, SuperType, UnionType, UnionValue, Value}
import org.apache.spark.{SparkException, SparkThrowable}
import org.apache.spark.sql.{DataFrame, Row}
import org.apache.spark.sql.types._

/**
 * Super Binary that SuperDB reads back (issue #22): nullable columns as `T|null` unions at
 * version 5, decimals as named types, the type map of docs/bsup-superdb.md checked cell by cell
 * against what SuperDB wrote for the `spark_like` table (../shared/interop/superdb).
 */
class BsupSuperdbSuite extends SparkSessionSuite {
  import BsupSuperdbSuite._

  override protected def extraConf: Map[String, String] = Map("spark.sql.session.timeZone" -> "UTC")

  private def evidence(v: Int, name: String): File = {
    assume(Evidence.available.isDefined, Evidence.missing)
    new File(Evidence.dir, s"v$v/$name")
  }

  private def sparkLike: DataFrame = spark.read.parquet(evidence(5, "inputs/spark_like.parquet").getPath)

  private def tmp(): File = { val d = Files.createTempDirectory("bsup-superdb").toFile; d.deleteOnExit(); d }

  /** Writes `df` as one bsup file with `opts`; returns its bytes. */
  private def writeOne(df: DataFrame, opts: (String, String)*): (File, Array[Byte]) = {
    val out = new File(tmp(), "out")
    df.coalesce(1).write.format("bsup").options(opts.toMap).save(out.getPath)
    val f = out.listFiles().filter(_.getName.endsWith(".bsup")).head
    (out, Files.readAllBytes(f.toPath))
  }

  private def condition(e: Throwable): String = Iterator.iterate(e)(_.getCause).takeWhile(_ != null)
    .collectFirst { case t: SparkThrowable if Option(t.getCondition).exists(_.startsWith("BSUP_")) => t.getCondition }
    .getOrElse(throw e)

  private def bsupCause(e: Throwable): Throwable = Iterator.iterate(e)(_.getCause).takeWhile(_ != null)
    .collectFirst { case t: SparkThrowable if Option(t.getCondition).exists(_.startsWith("BSUP_")) => t }.get

  test("spark_like at version 5: our frames equal SuperDB's but for the decimal float64s (documented)") {
    val theirs = Files.readAllBytes(evidence(5, "spark_like.nocomp.bsup").toPath)
    val (_, ours) = writeOne(sparkLike, "version" -> "5", "compression" -> "none")
    val (tf, of) = (frames(theirs), frames(ours))
    assert(tf.map(_._1) == Seq(0x85, 0x85, 0xff) && of.map(_._1) == tf.map(_._1))
    // The types frame: byte for byte (unions with null at every depth, SuperDB's member order,
    // the named decimal with its 4-byte inner id).
    assert(hex(of(0)._2) == hex(tf(0)._2))
    // The values frame: the same length; every differing byte lies in the body of a value of
    // column `dec` (SuperDB computes 1.2345000000000002 where we write the nearest float64, 1.2345).
    assert(of(1)._2.length == tf(1)._2.length)
    val (tv, ov) = (values(theirs), values(ours))
    assert(tv.size == 12 && ov.size == 12)
    val decIndex = 6
    tv.zip(ov).foreach { case (a, b) =>
      assert(a.typ == b.typ)
      val (ra, rb) = (a.value.asInstanceOf[IndexedSeq[Any]], b.value.asInstanceOf[IndexedSeq[Any]])
      assert(ra.patch(decIndex, Nil, 1) == rb.patch(decIndex, Nil, 1))
      (ra(decIndex), rb(decIndex)) match {
        case (UnionValue(0, x: Double), UnionValue(0, y: Double)) =>
          assert(math.abs(x - y) <= math.ulp(y), s"$x vs $y")
          assert(SuperTypes.NamedDecimal.fromDouble(x, DecimalType(18, 4)) == SuperTypes.NamedDecimal.fromDouble(y, DecimalType(18, 4)))
        case (x, y) => assert(x == y)
      }
    }
    val diffs = of(1)._2.indices.filter(i => of(1)._2(i) != tf(1)._2(i))
    assert(diffs.nonEmpty)
    val decBodies = floatBodies(of(1)._2)
    assert(diffs.forall(i => decBodies.exists(s => i >= s && i < s + 8)))
  }

  test("the type map in docs/bsup-superdb.md holds cell by cell for spark_like (both versions, both directions)") {
    val rows = typeMapRows()
    val df = sparkLike
    assert(rows.map(_.column) == df.schema.fieldNames.toSeq, "one row per spark_like column, in order")
    val ourTypes = Seq(0, 5).map { v =>
      val (_, b) = writeOne(df, "version" -> v.toString, "compression" -> "none")
      v -> values(b).head.typ.asInstanceOf[RecordType]
    }.toMap
    val theirTypes = Seq(0, 5).map(v => v -> values(Files.readAllBytes(evidence(v, "spark_like.nocomp.bsup").toPath))
      .head.typ.asInstanceOf[RecordType]).toMap
    val printed = Seq(0, 5).map(v => v -> Evidence.lines(evidence(v, "spark_like.expected.sup")).find(_.startsWith("{i8:null")).get).toMap
    val inferred = Seq(0, 5).map(v => v -> spark.read.format("bsup").load(evidence(v, "spark_like.nocomp.bsup").getPath).schema).toMap
    rows.foreach { r =>
      val f = df.schema(r.column)
      def ours(v: Int) = fmt(ourTypes(v).fields.find(_.name == r.column).get.typ, v)
      def theirs(v: Int) = fmt(theirTypes(v).fields.find(_.name == r.column).get.typ, v)
      assert(f.dataType.catalogString == r.spark, r.column)
      assert(ours(0) == r.ourV0, r.column)
      assert(ours(5) == r.ourV5, r.column)
      assert(theirs(0) == r.superdbV0, r.column)
      assert(theirs(5) == r.superdbV5, r.column)
      // What the CLI prints for the column's null in the first row: the same type text.
      Seq(0 -> r.superdbV0, 5 -> r.superdbV5).foreach { case (v, t) =>
        assert(printed(v).contains(s"${r.column}:null::$t") || printed(v).contains(s"${r.column}:null::($t)"), s"${r.column} v$v")
      }
      assert(inferred(0)(r.column).dataType.catalogString == r.readV0, r.column)
      assert(inferred(5)(r.column).dataType.catalogString == r.readV5, r.column)
    }
  }

  test("SuperDB's spark_like reads with the Parquet values: T|null as nullable T, named decimals as decimals") {
    val expected = sparkLike.collect()
    val v5 = spark.read.format("bsup").load(evidence(5, "spark_like.bsup").getPath)
    // A user schema (the Parquet's) and inference give the same rows.
    val withSchema = spark.read.format("bsup").schema(sparkLike.schema).load(evidence(5, "spark_like.bsup").getPath)
    assert(v5.select("dec", "s", "arr", "m", "st").collect().toSeq ==
      expected.toSeq.map(r => Row(r.getAs[Any]("dec"), r.getAs[Any]("s"), r.getAs[Any]("arr"), r.getAs[Any]("m"), r.getAs[Any]("st"))))
    assert(withSchema.collect().toSeq == expected.toSeq)
    assert(v5.schema("dec").dataType == DecimalType(18, 4))
    assert(v5.schema("arr").dataType == ArrayType(LongType, containsNull = true))
    assert(v5.schema("i64").metadata.getString(SuperTypes.MetadataKey) == "(int64|null)")
  }

  test("version 5 round trip: every Spark type, nullable and not, nulls at every depth") {
    val (schema, rows) = allTypes
    val df = spark.createDataFrame(spark.sparkContext.parallelize(rows, 1), schema)
    val (dir, bytes) = writeOne(df, "version" -> "5", "compression" -> "none")
    assert((bytes(0) & 0xff) == 0x85)
    val back = spark.read.format("bsup").schema(schema).load(dir.getPath)
    assert(back.collect().toSeq.map(comparable) == rows.map(comparable))
    // Nullable fields are unions with null, not-nullable ones plain, at every depth.
    val t = values(bytes).head.typ.asInstanceOf[RecordType]
    def typ(n: String) = fmt(t.fields.find(_.name == n).get.typ, 5)
    assert(typ("l") == "int64|null")
    assert(typ("l_nn") == "int64")
    assert(typ("dec") == "deciaml_2_10|null")
    assert(typ("arr") == "null|[int32|null]")
    assert(typ("arr_nn") == "[int32]")
    assert(typ("m") == "null|map{string:int64|null}")
    assert(typ("st") == "null|{a:int64|null,b:{c:string|null,d:string}}")
    // Inference gives the same Spark types where the Super type has one Spark type.
    val inferred = spark.read.format("bsup").load(dir.getPath).schema
    Seq("b", "s", "i", "l", "f", "d", "dec", "str", "bin", "bool", "ts", "arr", "m", "st").foreach { n =>
      assert(SuperTypes.sameShape(inferred(n).dataType, schema(n).dataType), n)
    }
    // Version 0 reads back the same rows too (typed nulls).
    val (dir0, _) = writeOne(df, "compression" -> "none")
    assert(spark.read.format("bsup").schema(schema).load(dir0.getPath).collect().toSeq.map(comparable) == rows.map(comparable))
  }

  test("heterogeneous version 5 data: a nullable multi-type union gets a null member and reads back the same") {
    val src = spark.read.format("bsup").option("mode", "FAILFAST").load(evidence(5, "complex.bsup").getPath)
    // The merged record's field `a` is the union ({b:...}|[uint32]); rows without `a` hold a null
    // there: written as the union's `null` member, which SuperDB's order puts first.
    val (dir, bytes) = writeOne(src, "compression" -> "none", "version" -> "5")
    val rt = values(bytes).head.typ.asInstanceOf[RecordType]
    val a = rt.fields.head.typ.underlying match {
      case u: UnionType => u.types.collectFirst { case r: RecordType => r.fields.find(_.name == "a").get.typ }.get
      case r: RecordType => r.fields.find(_.name == "a").get.typ
    }
    val au = a.asInstanceOf[UnionType]
    assert(au.types.head == SuperType.nullType && au.types.size == 3, fmt(a, 5))
    assert(au.types(1).isInstanceOf[RecordType] && au.types(2).isInstanceOf[io.superspark.bsup.ArrayType], fmt(a, 5))
    // With the source's schema the rows are the same (members found by their type without the
    // null unions the version 5 writer gave their slots).
    val back = spark.read.format("bsup").option("mode", "FAILFAST").schema(src.schema).load(dir.getPath)
    assert(back.collect().toSeq == src.collect().toSeq)
    // Inference: the same rows once the union struct's members are taken in the source's order
    // (the file has them in SuperDB's order); no field for the null member.
    val inferred = spark.read.format("bsup").option("mode", "FAILFAST").load(dir.getPath)
    // Members compared without null unions and with nested unions in SuperDB's order.
    def members(st: DataType) = st.asInstanceOf[StructType].fieldNames.toSeq.drop(1)
      .map(n => SuperTypes.withoutNullUnions(SuperType.parse(n)).toString).sorted
    assert(members(inferred.schema("value").dataType) == members(src.schema("value").dataType))
    assert(inferred.count() == src.count())
  }

  test("nullable multi-type unions at version 5: SuperDB's bytes for null::(int64|string|null), nulls at every depth") {
    val u = StructType(Seq(StructField("selector", IntegerType), StructField("int64", LongType), StructField("string", StringType)))
    val md = new MetadataBuilder().putString(SuperTypes.MetadataKey, "(int64|string)").build()
    val schema = StructType(Seq(StructField("u", u, nullable = true, md)))
    val rows = Seq(Row(Row(0, 1L, null)), Row(Row(1, null, "a")), Row(null))
    val df = spark.createDataFrame(spark.sparkContext.parallelize(rows, 1), schema)
    val (dir, ours) = writeOne(df, "version" -> "5", "compression" -> "none")
    val ut = values(ours).head.typ.asInstanceOf[RecordType].fields.head.typ
    assert(fmt(ut, 5) == "int64|string|null")
    // SuperDB's `unions` case writes these three values of the same union type: the union
    // typedef and each union value body are the same bytes.
    val theirs = Files.readAllBytes(evidence(5, "unions.nocomp.bsup").toPath)
    val theirValues = values(theirs).filter(_.typ == ut).map(_.value)
    assert(theirValues == Seq(UnionValue(2, null)))
    assert(values(ours).map(_.value.asInstanceOf[IndexedSeq[Any]].head) ==
      Seq(UnionValue(0, 1L), UnionValue(1, "a"), UnionValue(2, null)))
    Seq("04 03 09 19 1d", "04 01 02 02", "05 02 01 02 61", "04 02 02 00").foreach { h =>
      assert(hex(theirs).contains(h) && hex(ours).contains(h), h)
    }
    // Read back: the same rows, by inference (no field for `null`) and with the schema.
    val inferred = spark.read.format("bsup").load(dir.getPath)
    assert(inferred.schema("u").dataType == u)
    assert(inferred.collect().toSeq == rows)
    assert(spark.read.format("bsup").schema(schema).load(dir.getPath).collect().toSeq == rows)

    // Members not in SuperDB's order, a member with its own nullable slot, the union inside a
    // struct and as an array element: written in SuperDB's order, every slot nullable.
    val rec = StructType(Seq(StructField("a", LongType)))
    val u2 = StructType(Seq(StructField("selector", IntegerType), StructField("string", StringType), StructField("{a:int64}", rec)))
    def kept(t: String) = new MetadataBuilder().putString(SuperTypes.MetadataKey, t).build()
    val schema2 = StructType(Seq(
      StructField("u", u2, nullable = true, kept("(string|{a:int64})")),
      StructField("s", StructType(Seq(StructField("v", u2))), nullable = true, kept("{v:(string|{a:int64})}")),
      StructField("arr", ArrayType(u2, containsNull = true), nullable = true, kept("[(string|{a:int64})]"))))
    val x = Row(0, "x", null)
    val r5 = Row(1, null, Row(5L))
    val rNull = Row(1, null, Row(null))
    val rows2 = Seq(
      Row(x, Row(r5), Seq(x, null, rNull)),
      Row(r5, Row(null), null),
      Row(rNull, null, Seq(null)),
      Row(null, Row(x), Seq.empty))
    val df2 = spark.createDataFrame(spark.sparkContext.parallelize(rows2, 1), schema2)
    val (dir2, b2) = writeOne(df2, "version" -> "5", "compression" -> "none")
    val t2 = values(b2).head.typ.asInstanceOf[RecordType]
    def typ(n: String) = fmt(t2.fields.find(_.name == n).get.typ, 5)
    assert(typ("u") == "string|null|{a:int64|null}")
    assert(typ("s") == "null|{v:string|null|{a:int64|null}}")
    assert(typ("arr") == "null|[string|null|{a:int64|null}]")
    // Selectors follow the written order: "x" is member 0, {a:5} member 2, a null member 1.
    val sels = values(b2).map(_.value.asInstanceOf[IndexedSeq[Any]].head.asInstanceOf[UnionValue].selector)
    assert(sels == Seq(0, 2, 2, 1))
    val back2 = spark.read.format("bsup").option("mode", "FAILFAST").schema(schema2).load(dir2.getPath)
    assert(back2.collect().toSeq == rows2)
    val inf2 = spark.read.format("bsup").option("mode", "FAILFAST").load(dir2.getPath)
    assert(inf2.schema("u").dataType.asInstanceOf[StructType].fieldNames.toSeq == Seq("selector", "string", "{a:(int64|null)}"))
    assert(inf2.collect().toSeq == rows2)
    // Written again from the inferred columns: the same bytes.
    val (_, b3) = writeOne(inf2, "version" -> "5", "compression" -> "none")
    assert(hex(b3) == hex(b2))
    // Version 0 keeps typed nulls and the union as it was.
    val (dir0, b0) = writeOne(df2, "version" -> "0", "compression" -> "none")
    assert(fmt(values(b0).head.typ.asInstanceOf[RecordType].fields.head.typ, 0) == "string|{a:int64}")
    assert(spark.read.format("bsup").schema(schema2).load(dir0.getPath).collect().toSeq == rows2)
  }

  test("SuperDB's union order: named first, primitives by id (null among them), then records (by size, names), arrays, sets, maps") {
    val order = Seq("n=int64", "int64", "string", "null", "{a:int64}", "{b:int64}", "{a:int64,b:int64}", "[int64]",
      "[string]", "|[int64]|", "|{string:int64}|").map(SuperType.parse)
    assert(scala.util.Random.shuffle(order).sortWith((a, b) => SuperTypes.compareSuperdb(a, b) < 0) == order)
    assert(SuperTypes.orNull(SuperType.parse("n={a:int64}")).types.last == SuperType.nullType)
    assert(SuperTypes.orNull(SuperType.parse("{a:int64}")).types.head == SuperType.nullType)
    // A union's null is one more member, never a union inside a union.
    assert(SuperTypes.orNull(SuperType.parse("(uint64|uint32)")).types == SuperType.parse("(uint32|uint64|null)").asInstanceOf[UnionType].types)
    assert(SuperTypes.nullableSlots(SuperType.parse("n={a:(string|int64)}")) == SuperType.parse("n={a:(int64|string|null)}"))
  }

  test("version 5 write of a named record with a union field (kept types): null joins the union, rows read back") {
    // Found by fuzz-bsup (seed 4): the named type's nullable union slot became `null|(int64|string)`.
    val b = new ByteArrayOutputStream()
    val w = new BsupWriter(b, BsupWriterOptions(compress = false, version = 0))
    val rt = SuperType.record("r" -> SuperType.parse("n={a:(string|int64)}"))
    val u = SuperType.parse("(string|int64)").asInstanceOf[UnionType]
    Seq(UnionValue(u.types.indexOf(SuperType.int64), 7L), UnionValue(u.types.indexOf(SuperType.string), "x"), null)
      .foreach(v => w.write(Value(rt, IndexedSeq(IndexedSeq(v)))))
    w.close()
    val dir = tmp(); Files.write(new File(dir, "v0.bsup").toPath, b.toByteArray)
    val df = spark.read.format("bsup").option("mode", "FAILFAST").load(dir.getPath)
    // A null union is a null union struct.
    def members(rows: Seq[Row]) = rows.map(_.getStruct(0).getStruct(0)).map(r =>
      if (r == null) null else (r.getAs[Any]("int64"), r.getAs[Any]("string")))
    assert(members(df.collect().toSeq) == Seq((7L, null), (null, "x"), null))
    val (d5, b5) = writeOne(df, "version" -> "5", "compression" -> "none", "superdbReadable" -> "false")
    assert(values(b5).head.typ.asInstanceOf[RecordType].fields.head.typ == SuperType.parse("(n={a:(int64|string|null)}|null)"))
    val back = spark.read.format("bsup").option("mode", "FAILFAST").schema(df.schema).load(d5.getPath).collect().toSeq
    assert(members(back) == Seq((7L, null), (null, "x"), null))
  }

  test("decimals round trip exactly: float64 when exact (else a named error), string and spec on request") {
    val session = spark
    import session.implicits._
    val small = Seq("0.0001", "-12345678901.2345", "99999999999.9999", "3.1416", "0").map(BigDecimal(_))
    val df = small.map(Option(_)).toDF("x").select($"x".cast(DecimalType(15, 4)).as("x"))
    val (dir, _) = writeOne(df, "version" -> "5")
    val back = spark.read.format("bsup").load(dir.getPath)
    assert(back.schema("x").dataType == DecimalType(15, 4))
    assert(back.collect().map(_.getDecimal(0)).toSeq == df.collect().map(_.getDecimal(0)).toSeq)

    val wide = Seq("12345678901234567890.123456789012345678", "-0.000000000000000001").map(BigDecimal(_))
    val wdf = wide.toDF("w").select($"w".cast(DecimalType(38, 18)).as("w"))
    val e = intercept[SparkException](writeOne(wdf, "version" -> "5"))
    assert(condition(e) == "BSUP_NOT_READABLE_BY_SUPERDB.DECIMAL_NOT_EXACT")
    assert(bsupCause(e).getMessage.contains("`w`") && bsupCause(e).getMessage.contains("decimal(38,18)") &&
      bsupCause(e).getMessage.contains("deciaml_18_38"))
    Seq("string" -> "decimal_38_18|null", "spec" -> "decimal256|null").foreach { case (form, superType) =>
      val (d, b) = writeOne(wdf, "version" -> "5", "decimalAs" -> form)
      assert(fmt(values(b).head.typ.asInstanceOf[RecordType].fields(0).typ, 5) == superType)
      val r = spark.read.format("bsup").schema(wdf.schema).load(d.getPath)
      assert(r.collect().map(_.getDecimal(0)).toSeq == wdf.collect().map(_.getDecimal(0)).toSeq, form)
    }
    // Inference: our exact form is a decimal again; the spec's decimal128 its exact text.
    val (d, _) = writeOne(wdf, "version" -> "5", "decimalAs" -> "string")
    assert(spark.read.format("bsup").load(d.getPath).schema("w").dataType == DecimalType(38, 18))
  }

  test("no silent damage: dates and timestamps outside Super's time range fail with a named error class") {
    val session = spark
    import session.implicits._
    // Super's time is int64 nanoseconds: 1677-09-21 to 2262-04-11. Before, a date after 2262
    // wrapped around silently and a timestamp failed with a bare ArithmeticException.
    Seq(
      ("d", Seq(java.sql.Date.valueOf("2300-01-01")).toDF("d"), "2300-01-01"),
      ("ts", Seq(java.sql.Timestamp.valueOf("9999-12-31 00:00:00")).toDF("ts"), "9999-12-3")).foreach { case (col, df, text) =>
      Seq("0", "5").foreach { v =>
        val e = intercept[SparkException](writeOne(df, "version" -> v))
        assert(condition(e) == "BSUP_VALUE_OUT_OF_RANGE", s"$col v$v")
        val m = bsupCause(e).getMessage
        assert(m.contains(s"`$col`") && m.contains(text) && m.contains("1677-09-21T00:12:43.145224192Z"), m)
        assert(bsupCause(e).asInstanceOf[SparkThrowable].getSqlState == "22003")
      }
    }
    // The range's ends round trip: the last nanosecond's microsecond, and the first one's (which
    // starts before the range: the reader floors the first nanosecond to it).
    val ends = Seq(Long.MinValue, Long.MaxValue).map(n => Math.floorDiv(n, 1000L))
    val df = ends.toDF("us").selectExpr("timestamp_micros(us) AS ts")
    val (dir, _) = writeOne(df, "version" -> "5")
    val back = spark.read.format("bsup").load(dir.getPath).selectExpr("unix_micros(ts)").collect().map(_.getLong(0)).toSeq
    assert(back == ends)
  }

  test("values and types the column's Super type cannot take fail with named error classes, naming the column") {
    val session = spark
    import session.implicits._
    def kept(t: String) = new MetadataBuilder().putString(SuperTypes.MetadataKey, t).build()
    def refusal(df: DataFrame): (String, String, String) = {
      val e = intercept[SparkException](writeOne(df, "version" -> "5", "superdbReadable" -> "false"))
      val c = bsupCause(e)
      (condition(e), c.getMessage, c.asInstanceOf[SparkThrowable].getSqlState)
    }
    // Text that is not the kept type's value (before: a bare IllegalArgumentException, no column).
    val ip = Seq("10.0.0.1", "nope").toDF("a").select($"a".as("addr", kept("ip")))
    val (c1, m1, s1) = refusal(ip)
    assert(c1 == "BSUP_INVALID_VALUE" && s1 == "22018", m1)
    assert(m1.contains("`addr`") && m1.contains("'nope'") && m1.contains("an IP address") && m1.contains("ip"), m1)
    val net = Seq("10.0.0.0/8", "10.0.0.0/99").toDF("n").select($"n".as("n", kept("net")))
    assert(refusal(net)._1 == "BSUP_INVALID_VALUE")
    // A number beyond the kept type's range (before: a `require` failure from the codec).
    val u64 = Seq("1", "-1").toDF("u").select($"u".cast(DecimalType(20, 0)).as("u", kept("uint64")))
    val (c2, m2, s2) = refusal(u64)
    assert(c2 == "BSUP_VALUE_OUT_OF_RANGE" && s2 == "22003", m2)
    assert(m2.contains("`u`") && m2.contains("holds -1") && m2.contains("0 to 18446744073709551615"), m2)
    // A recursive kept type over a VARIANT column: refused with the way out.
    val rec = Seq("""{"v":1,"next":null}""").toDF("j").selectExpr("parse_json(j) AS j")
      .select($"j".as("node", kept("node={v:int64,next:(null|node)}")))
    val (c3, m3, s3) = refusal(rec)
    assert(c3 == "BSUP_CANNOT_WRITE_TYPE.RECURSIVE" && s3 == "42846" && m3.contains("`node`"), m3)
    // A Spark type that cannot hold the Super type's values: the column path names the nested field.
    val mismatch = intercept[BsupErrors.BsupWriteException](SparkWriters.compile(
      SuperType.record("s" -> SuperType.record("x" -> SuperType.int64)),
      StructType(Seq(StructField("s", StructType(Seq(StructField("x", ArrayType(LongType))))))), 5))
    assert(mismatch.getCondition == "BSUP_CANNOT_WRITE_TYPE.MISMATCH" && mismatch.getMessage.contains("`s.x`") &&
      mismatch.getMessage.contains("array<bigint>") && mismatch.getMessage.contains("int64"), mismatch.getMessage)
  }

  test("no silent damage: types SuperDB lacks and nulls without a union fail with a named error class") {
    val session = spark
    import session.implicits._
    // A column kept as int128 (read from such data): refused on the driver unless allowed.
    val md = new MetadataBuilder().putString(SuperTypes.MetadataKey, "int128").build()
    val df = Seq(Option(BigDecimal(5)), None).toDF("big").select($"big".cast(DecimalType(38, 0)).as("big", md))
    val e = intercept[SparkException](writeOne(df, "version" -> "5"))
    assert(condition(e) == "BSUP_NOT_READABLE_BY_SUPERDB.TYPE")
    assert(bsupCause(e).getMessage.contains("`big`") && bsupCause(e).getMessage.contains("int128"))
    assert(bsupCause(e).asInstanceOf[SparkThrowable].getSqlState == "0A000")
    val (d, _) = writeOne(df, "version" -> "0", "superdbReadable" -> "false")
    assert(spark.read.format("bsup").load(d.getPath).collect().toSeq == Seq(Row(BigDecimal(5).bigDecimal), Row(null)))

    // A file of today's version 5 writer (a null tag in an int64 slot, no union) still reads as
    // before; written again at version 5 its nullable columns become unions with null.
    val old = new ByteArrayOutputStream()
    val w = new BsupWriter(old, BsupWriterOptions(compress = false, version = 5))
    val rt = SuperType.record("a" -> SuperType.int64, "s" -> SuperType.record("x" -> SuperType.string))
    Seq(IndexedSeq(1L, IndexedSeq("x")), IndexedSeq(null, IndexedSeq(null)), IndexedSeq(2L, IndexedSeq(null)))
      .foreach(v => w.write(Value(rt, v)))
    w.close()
    val oldDir = tmp(); Files.write(new File(oldDir, "old.bsup").toPath, old.toByteArray)
    val read = spark.read.format("bsup").load(oldDir.getPath)
    assert(read.collect().toSeq == Seq(Row(1L, Row("x")), Row(null, Row(null)), Row(2L, Row(null))))
    assert(read.schema("a").metadata.getString(SuperTypes.MetadataKey) == "int64")
    val (d3, b3) = writeOne(read, "compression" -> "none")
    assert((b3(0) & 0xff) == 0x85, "the columns' super.version (5) is kept")
    assert(fmt(values(b3).head.typ, 5) == "{a:int64|null,s:null|{x:string|null}}")
    assert(spark.read.format("bsup").load(d3.getPath).collect().toSeq == read.collect().toSeq)

    // A null where the Super type has no null member: a union struct in a non-nullable field
    // (no `null` member is added) that selects no member. Fails, naming the column path.
    val u = StructType(Seq(StructField("selector", IntegerType), StructField("int64", LongType), StructField("string", StringType)))
    val umd = new MetadataBuilder().putString(SuperTypes.MetadataKey, "(int64|string)").build()
    val smd = new MetadataBuilder().putString(SuperTypes.MetadataKey, "{u:(int64|string)}").build()
    val uschema = StructType(Seq(StructField("u", u, nullable = false, umd),
      StructField("s", StructType(Seq(StructField("u", u, nullable = false))), nullable = true, smd)))
    def unionRows(rows: Row*) = spark.createDataFrame(spark.sparkContext.parallelize(rows, 1), uschema)
    val one = Row(0, 5L, null)
    val none = Row(null, null, null)
    val e2 = intercept[SparkException](writeOne(unionRows(Row(one, Row(one)), Row(none, Row(one))), "version" -> "5"))
    assert(condition(e2) == "BSUP_NOT_READABLE_BY_SUPERDB.NULL_WITHOUT_UNION")
    assert(bsupCause(e2).getMessage.contains("Column `u`") && bsupCause(e2).getMessage.contains("int64|string"))
    val e3 = intercept[SparkException](writeOne(unionRows(Row(one, Row(none))), "version" -> "5"))
    assert(bsupCause(e3).getMessage.contains("Column `s.u`"))
    // Allowed: the typed null is written (version 0 has typed nulls anyway) and reads back as null.
    val nullableU = StructType(Seq(StructField("u", u), StructField("s", StructType(Seq(StructField("u", u))))))
    val (d5, _) = writeOne(unionRows(Row(none, Row(one))), "version" -> "5", "superdbReadable" -> "false")
    assert(spark.read.format("bsup").schema(nullableU).load(d5.getPath).collect().toSeq == Seq(Row(null, Row(one))))
    val (d0, _) = writeOne(unionRows(Row(none, Row(one))), "version" -> "0")
    assert(spark.read.format("bsup").schema(nullableU).load(d0.getPath).collect().toSeq == Seq(Row(null, Row(one))))
  }

  test("bad option values are BSUP_INVALID_OPTION errors naming the option") {
    Seq("decimalAs" -> "float", "superdbReadable" -> "maybe", "version" -> "3", "compression" -> "zstd").foreach { case (k, v) =>
      val e = intercept[IllegalArgumentException](new BsupOptions(Map(k -> v), "_corrupt_record"))
      assert(e.asInstanceOf[SparkThrowable].getCondition == "BSUP_INVALID_OPTION")
      assert(e.getMessage.contains(s"'$k'") && e.getMessage.contains(s"'$v'"), e.getMessage)
    }
    assert(BsupOptions.isValidOption("decimalAs") && BsupOptions.isValidOption("superdbReadable"))
  }
}

object BsupSuperdbSuite {
  /** A row with binary values as sequences, so that rows compare by value. */
  def comparable(r: Row): Seq[Any] = r.toSeq.map {
    case b: Array[Byte] => b.toSeq
    case x: Row => comparable(x)
    // By bits: NaN equals itself, -0.0 differs from 0.0.
    case d: Double => java.lang.Double.doubleToRawLongBits(d)
    case f: Float => java.lang.Float.floatToRawIntBits(f)
    case x => x
  }

  /**
   * Type text as SuperDB's CLI prints it in the SUP of `version`: unions without parentheses
   * (but for a union inside a union), names alone in version 5 and with their definition in
   * version 0, `map{k:v}` or `|{k:v}|`.
   */
  def fmt(t: SuperType, version: Int): String = t match {
    case UnionType(ts) => ts.map {
      case u: UnionType => s"(${fmt(u, version)})"
      case m => fmt(m, version)
    }.mkString("|")
    case RecordType(fs) => fs.map(f => s"${f.name}:${fmt(f.typ, version)}").mkString("{", ",", "}")
    case io.superspark.bsup.ArrayType(e) => s"[${fmt(e, version)}]"
    case io.superspark.bsup.MapType(k, v) =>
      if (version > 0) s"map{${fmt(k, version)}:${fmt(v, version)}}" else s"|{${fmt(k, version)}:${fmt(v, version)}}|"
    case NamedType(n, inner) => if (version > 0) n else s"$n=${fmt(inner, version)}"
    case other => SuperType.format(other, version)
  }

  def hex(b: Array[Byte]): String = b.map(x => f"${x & 0xff}%02x").mkString(" ")

  /** The frames of an uncompressed stream: (version byte or 0xff, frame bytes without the version byte). */
  def frames(b: Array[Byte]): Seq[(Int, Array[Byte])] = {
    val out = ArrayBuffer[(Int, Array[Byte])]()
    var p = 0
    while (p < b.length) {
      val v = b(p) & 0xff
      if (v == 0xff) { out += ((v, Array.emptyByteArray)); p += 1 }
      else {
        val start = p + 1
        val code = b(start) & 0xff
        assert((code & 0x40) == 0, "uncompressed frames only")
        var len = code & 0x0f
        var q = start + 1; var shift = 4
        var more = true
        while (more) { val x = b(q) & 0xff; len |= (x & 0x7f) << shift; shift += 7; q += 1; more = (x & 0x80) != 0 }
        out += ((v, java.util.Arrays.copyOfRange(b, start, q + len)))
        p = q + len
      }
    }
    out.toSeq
  }

  def values(b: Array[Byte]): Seq[Value] = {
    val r = new BsupReader(new java.io.ByteArrayInputStream(b), "x.bsup", fileLength = b.length)
    val out = ArrayBuffer[Value]()
    while (r.next()) out += r.value()
    out.toSeq
  }

  /** Start offsets of 8-byte bodies with tag 09 in a values frame (float64 candidates). */
  def floatBodies(frame: Array[Byte]): Seq[Int] = frame.indices.filter(i => frame(i) == 9 && i + 9 <= frame.length).map(_ + 1)

  final case class TypeMapRow(column: String, spark: String, ourV0: String, ourV5: String, superdbV0: String,
      superdbV5: String, readV0: String, readV5: String)

  /** The rows of the spark_like type map in docs/bsup-superdb.md (between its two marker comments). */
  def typeMapRows(): Seq[TypeMapRow] = {
    val doc = new String(Files.readAllBytes(new File("docs/bsup-superdb.md").toPath), "UTF-8")
    val body = doc.split("<!-- type-map:start -->", 2)(1).split("<!-- type-map:end -->", 2)(0)
    body.linesIterator.map(_.trim).filter(l => l.startsWith("| `")).map { l =>
      val cells = l.stripPrefix("|").stripSuffix("|").split("(?<!\\\\)\\|").map(_.trim.replace("\\|", "|").stripPrefix("`").stripSuffix("`"))
      assert(cells.length == 8, l)
      TypeMapRow(cells(0), cells(1), cells(2), cells(3), cells(4), cells(5), cells(6), cells(7))
    }.toSeq
  }

  /** A schema of every Spark type bsup writes, nullable and not, and rows with nulls at every depth. */
  def allTypes: (StructType, Seq[Row]) = {
    val inner = StructType(Seq(StructField("c", StringType, nullable = true), StructField("d", StringType, nullable = false)))
    val schema = StructType(Seq(
      StructField("b", ByteType), StructField("s", ShortType), StructField("i", IntegerType),
      StructField("l", LongType), StructField("l_nn", LongType, nullable = false),
      StructField("f", FloatType), StructField("d", DoubleType), StructField("dec", DecimalType(10, 2)),
      StructField("str", StringType), StructField("bin", BinaryType), StructField("bool", BooleanType),
      StructField("date", DateType), StructField("ts", TimestampType), StructField("ntz", TimestampNTZType),
      StructField("dti", DayTimeIntervalType()), StructField("ymi", YearMonthIntervalType()),
      StructField("arr", ArrayType(IntegerType, containsNull = true)),
      StructField("arr_nn", ArrayType(IntegerType, containsNull = false), nullable = false),
      StructField("m", MapType(StringType, LongType, valueContainsNull = true)),
      StructField("st", StructType(Seq(StructField("a", LongType), StructField("b", inner, nullable = false))))))
    val full = Row(1.toByte, 2.toShort, 3, 4L, 5L, 1.5f, 2.25, new java.math.BigDecimal("12345678.91"),
      "héllo", Array[Byte](1, 2), true, java.sql.Date.valueOf("2024-01-02"),
      java.sql.Timestamp.valueOf("2024-03-04 05:06:07.123456"), java.time.LocalDateTime.parse("2024-03-04T05:06:07.654321"),
      java.time.Duration.ofMillis(123456), java.time.Period.of(1, 2, 0),
      Seq(1, null, 3), Seq(4, 5), Map("k" -> 1L, "z" -> null), Row(7L, Row("c", "d")))
    val nulls = Row(null, null, null, null, -1L, null, null, null, null, null, null, null, null, null, null, null,
      null, Seq.empty[Int], null, null)
    val nested = Row(-1.toByte, -2.toShort, -3, -4L, Long.MinValue, Float.NaN, -0.0, new java.math.BigDecimal("-0.01"),
      "", Array.emptyByteArray, false, java.sql.Date.valueOf("1969-12-31"),
      java.sql.Timestamp.valueOf("1960-01-01 00:00:00"), java.time.LocalDateTime.parse("1960-01-01T00:00:00"),
      java.time.Duration.ofMillis(-1), java.time.Period.ofMonths(-1),
      Seq(null, null), Seq(0), Map("a" -> null), Row(null, Row(null, "")))
    (schema, Seq(full, nulls, nested))
  }
}
