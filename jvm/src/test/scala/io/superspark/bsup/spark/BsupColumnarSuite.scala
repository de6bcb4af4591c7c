package io.superspark.bsup.spark

import java.io.File
import java.nio.file.Files

import scala.util.Random

import io.superspark.{SparkSessionSuite, TestTags}
import io.superspark.bsup.{BsupFuzz, BsupVersionsSuite, Evidence, SuperType, Value}
import org.apache.spark.SparkThrowable
import org.apache.spark.sql.{DataFrame, Row}
import org.apache.spark.sql.execution.FileSourceScanExec
import org.apache.spark.sql.types._

/**
 * The columnar `bsup` reader (BsupBatchReader) against the row reader (BsupRowIterator): every
 * case is read both ways, `spark.superspark.bsup.vectorized.enabled` off and on, and must give
 * the same rows (the same error in FAILFAST); the plan shows which reader ran. Cases: every file
 * SuperDB's CLIs wrote at versions 0 and 5 (the type map's Super types), Spark's own types
 * written at both versions with nulls at every depth (version 5: `T|null` unions at every depth),
 * user schemas that convert, column pruning, pushed filters, partition columns, batches that
 * end inside the data, and mutated files in PERMISSIVE (with the corrupt-record column),
 * DROPMALFORMED and FAILFAST.
 */
class BsupColumnarSuite extends SparkSessionSuite {
  override protected def extraConf: Map[String, String] =
    Map("spark.sql.session.timeZone" -> "UTC", "spark.sql.adaptive.enabled" -> "false")

  private val Vectorized = "spark.superspark.bsup.vectorized.enabled"
  private val Modes = Seq("PERMISSIVE", "DROPMALFORMED", "FAILFAST")

  private def tmp(): File = { val d = Files.createTempDirectory("bsup-columnar").toFile; d.deleteOnExit(); d }

  /** Rows as plain nested values: binary as a Seq, floats by their bits (NaN equals NaN). */
  private def plain(x: Any): Any = x match {
    case r: Row => r.toSeq.map(plain)
    case b: Array[Byte] => b.toSeq
    case d: Double => ("double", java.lang.Double.doubleToLongBits(d))
    case f: Float => ("float", java.lang.Float.floatToIntBits(f))
    case m: scala.collection.Map[_, _] => m.toSeq.map { case (k, v) => (plain(k), plain(v)) }.toSet
    case s: scala.collection.Seq[_] => s.toSeq.map(plain)
    case other => other
  }

  private def columnar(df: DataFrame): Boolean =
    df.queryExecution.executedPlan.collectFirst { case s: FileSourceScanExec => s.supportsColumnar }
      .getOrElse(fail("no file scan in the plan"))

  /** The outcome of a query: its rows, or the message of its error. */
  private def outcome(df: => DataFrame): Either[String, Seq[Any]] =
    try Right(df.collect().toSeq.map(plain)) catch {
      case e: Exception =>
        val t = Iterator.iterate[Throwable](e)(_.getCause).takeWhile(_ != null)
          .collectFirst { case t: SparkThrowable if t.getCondition != null => t }.getOrElse(throw e)
        Left(s"${t.getCondition}: ${Option(t.asInstanceOf[Throwable].getCause).map(_.getMessage).getOrElse("")}")
    }

  private var compared = 0
  private var columnarRuns = 0

  /**
   * Reads `df` with the row reader and the columnar one; asserts the same outcome and, when
   * `expectColumnar`, that the columnar reader ran. Returns the row reader's outcome.
   */
  private def same(what: String, expectColumnar: Boolean = true)(df: => DataFrame): Either[String, Seq[Any]] = {
    val rows = withSQLConf(Vectorized -> "false") {
      assert(!columnar(df), s"$what: the row reader")
      outcome(df)
    }
    val cols = withSQLConf(Vectorized -> "true") {
      assert(columnar(df) == expectColumnar, s"$what: columnar=${!expectColumnar}")
      outcome(df)
    }
    assert(cols == rows, s"$what: the columnar reader disagrees")
    compared += 1
    if (expectColumnar) columnarRuns += 1
    rows
  }

  private def batchable(s: StructType): Boolean = s.forall(f => VectorReaders.supports(f.dataType))

  private def read(path: String, mode: String, schema: Option[StructType] = None): DataFrame = {
    val r = spark.read.format("bsup").option("mode", mode)
    schema.fold(r)(r.schema).load(path)
  }

  private def withCorrupt(s: StructType): StructType =
    if (s.fieldNames.contains("_corrupt_record")) s else s.add("_corrupt_record", StringType)

  test("the setting is registered, documented in SET -v, on by default") {
    val row = spark.sql("SET -v").collect().find(_.getString(0) == Vectorized)
    assert(row.isDefined, "not in SET -v")
    assert(row.get.getString(1) == "true")
    assert(row.get.getString(2).contains("column vectors"))
  }

  for (v <- Seq(0, 5)) {
    test(s"SuperDB's files at version $v: the same rows both ways, in every mode", TestTags.LineIndependent) {
      assume(Evidence.available.isDefined, Evidence.missing)
      var batched = 0
      for (c <- Evidence.cases(v); f <- Evidence.files(v, c)) {
        val schema = spark.read.format("bsup").load(f.getPath).schema
        for (mode <- Modes) {
          val s = if (mode == "PERMISSIVE") withCorrupt(schema) else schema
          val rows = same(s"v$v/${f.getName} $mode", batchable(s))(read(f.getPath, mode, Some(s)))
          assert(rows.isRight, s"v$v/${f.getName} $mode: $rows")
        }
        if (batchable(schema)) batched += 1
        // Pruned (the first file of each case): each top-level column alone, and the count.
        if (f == Evidence.files(v, c).head) {
          schema.fieldNames.foreach { n =>
            same(s"v$v/${f.getName} column $n", batchable(schema(Set(n))))(
              read(f.getPath, "PERMISSIVE").select(org.apache.spark.sql.functions.col("`" + n.replace("`", "``") + "`")))
          }
          same(s"v$v/${f.getName} count")(read(f.getPath, "PERMISSIVE").groupBy().count())
        }
      }
      // Most of the cases are read by the columnar reader (the others hold VARIANT or void columns).
      assert(batched >= Evidence.cases(v).size / 2, s"only $batched files batched")
    }
  }

  /** Spark's types, nulls at every depth. */
  private def sparkTypes(rows: Int): DataFrame = spark.range(0, rows, 1, 1).selectExpr(
    "id",
    "IF(id % 7 = 3, NULL, id % 2 = 0) AS b",
    "CAST(IF(id % 5 = 1, NULL, id % 128) AS TINYINT) AS i8",
    "CAST(IF(id % 5 = 2, NULL, id * 3) AS SMALLINT) AS i16",
    "CAST(IF(id % 5 = 3, NULL, id * 1000) AS INT) AS i32",
    "IF(id % 6 = 0, NULL, id * 1000000007) AS i64",
    "CAST(IF(id % 4 = 0, NULL, id / 3.0) AS FLOAT) AS f32",
    "IF(id % 4 = 1, NULL, IF(id % 9 = 0, CAST('NaN' AS DOUBLE), id / 7.0)) AS f64",
    "CAST(IF(id % 3 = 0, NULL, id * 1.25) AS DECIMAL(12,2)) AS dec",
    "CAST(IF(id % 3 = 1, NULL, id * 1.5) AS DECIMAL(30,1)) AS bigdec",
    "IF(id % 8 = 0, NULL, concat('s', id, repeat('é', CAST(id % 5 AS INT)))) AS str",
    "IF(id % 8 = 1, NULL, CAST(concat('b', id) AS BINARY)) AS bin",
    "IF(id % 9 = 2, NULL, date_add(DATE '1969-12-25', CAST(id AS INT))) AS d",
    "IF(id % 9 = 3, NULL, TIMESTAMP '1969-12-31 23:59:59.123456' + make_interval(0, 0, 0, 0, 0, 0, id)) AS ts",
    "IF(id % 9 = 4, NULL, TIMESTAMP_NTZ '2024-02-29 12:00:00' + make_interval(0, 0, 0, 0, 0, id, 0)) AS ntz",
    "IF(id % 9 = 5, NULL, make_dt_interval(CAST(id AS INT), 1, 2, 3.5)) AS dt",
    "IF(id % 9 = 6, NULL, make_ym_interval(1, CAST(id % 12 AS INT))) AS ym",
    "IF(id % 10 = 0, NULL, transform(sequence(0, CAST(id % 4 AS INT)), x -> IF(x = 2, NULL, id + x))) AS arr",
    "IF(id % 10 = 1, NULL, transform(sequence(0, CAST(id % 3 AS INT)), x -> IF(x = 1, NULL, CAST(x AS DOUBLE) / 2))) AS dbls",
    "IF(id % 10 = 2, NULL, transform(sequence(0, CAST(id % 3 AS INT)), x -> IF(x = 0, NULL, concat('e', x)))) AS strs",
    "IF(id % 10 = 3, NULL, named_struct('a', IF(id % 4 = 0, NULL, id), 'b', IF(id % 4 = 1, NULL, " +
      "named_struct('c', concat('c', id), 'd', IF(id % 3 = 0, NULL, array(id, id + 1)))))) AS st",
    "IF(id % 10 = 4, NULL, map_from_arrays(transform(sequence(0, CAST(id % 3 AS INT)), x -> concat('k', x)), " +
      "transform(sequence(0, CAST(id % 3 AS INT)), x -> IF(x = 1, NULL, array(x, id))))) AS m",
    "IF(id % 10 = 5, NULL, transform(sequence(0, CAST(id % 3 AS INT)), x -> IF(x = 2, NULL, " +
      "named_struct('x', x, 'y', IF(x = 0, NULL, concat('y', id)))))) AS structs",
    "IF(id % 10 = 6, NULL, array(array(id), CAST(NULL AS ARRAY<BIGINT>), array())) AS nested")

  for (v <- Seq(0, 5)) {
    test(s"Spark's types written at version $v (nulls at every depth): the same rows both ways, every mode, " +
        "pruned, filtered, partitioned, batches ending inside the data") {
      val dir = new File(tmp(), "t").getPath
      // 10,000 rows: three batches of 4,096, the last one partly filled.
      sparkTypes(10000).withColumn("part", org.apache.spark.sql.functions.expr("id % 2"))
        .write.format("bsup").option("version", v.toString).partitionBy("part").save(dir)
      val schema = spark.read.format("bsup").load(dir).schema
      assert(batchable(schema))
      val back = same(s"v$v all")(read(dir, "PERMISSIVE"))
      assert(back.toOption.get.size == 10000)
      for (mode <- Modes) same(s"v$v $mode")(read(dir, mode, Some(withCorrupt(schema))))
      // The values are Spark's own (the row reader is checked against them in the other bsup suites).
      // (Columns whose Super type reads back as their own Spark type: dates, timestamps and
      // intervals come back as the type map's time and duration forms.)
      val kept = Seq("id", "b", "i8", "i16", "i32", "i64", "f32", "f64", "dec", "bigdec", "str", "bin", "arr", "dbls",
        "strs", "st", "m", "structs", "nested")
      val want = sparkTypes(10000).select(kept.map(org.apache.spark.sql.functions.col): _*).collect().toSeq.map(plain).toSet
      val got = spark.read.format("bsup").load(dir).select(kept.map(org.apache.spark.sql.functions.col): _*)
        .collect().toSeq.map(plain).toSet
      assert(got == want)
      for (cols <- Seq(Seq("str"), Seq("m", "i8"), Seq("structs", "part"), Seq("st"), Seq("nested", "dt", "ym")))
        same(s"v$v pruned to $cols")(read(dir, "PERMISSIVE").select(cols.map(org.apache.spark.sql.functions.col): _*))
      same(s"v$v nested field")(read(dir, "PERMISSIVE").selectExpr("st.b.c", "structs.y"))
      for (f <- Seq("i32 > 5000", "str LIKE 's1%'", "i64 IS NULL", "b = true AND d < DATE '1970-02-01'", "part = 1"))
        same(s"v$v where $f")(read(dir, "PERMISSIVE").where(f))
      same(s"v$v aggregate")(read(dir, "PERMISSIVE").groupBy("part").agg(
        org.apache.spark.sql.functions.sum("i32"), org.apache.spark.sql.functions.count("str")))
      // User schemas that convert: widened integers, everything as a string, a narrower decimal.
      val user = StructType(Seq(StructField("i8", LongType), StructField("i32", DoubleType), StructField("ts", StringType),
        StructField("arr", ArrayType(StringType)), StructField("dec", DecimalType(6, 1)), StructField("st", StringType),
        StructField("_corrupt_record", StringType)))
      for (mode <- Modes) same(s"v$v user schema $mode")(read(dir, mode, Some(user)))
    }
  }

  for (v <- Seq(0, 5)) {
    test(s"values that are not records (the value column) at version $v, nulls and malformed ones among them, " +
        "in every mode") {
      // Found by the fuzzer: the value column was set null before its value was written.
      val ints = (0 until 5000).map(i => Value(SuperType.int64, if (i % 7 == 3) null else i.toLong))
      val mixed = Seq(Value(SuperType.int64, 1L), Value(SuperType.string, "x"), Value(SuperType.int64, 2L),
        Value(SuperType.int64, null), Value(SuperType.string, "y"), Value(SuperType.int64, 3L))
      for ((name, vals) <- Seq("ints" -> ints, "mixed" -> mixed)) {
        val f = new File(tmp(), s"$name.bsup")
        Files.write(f.toPath, BsupVersionsSuite.write(vals, v, compress = v == 0))
        val schema = StructType(Seq(StructField("value", LongType), StructField("_corrupt_record", StringType)))
        for (mode <- Modes) {
          val rows = same(s"v$v $name $mode")(read(f.getPath, mode, Some(schema)))
          if (name == "mixed" && mode == "PERMISSIVE") {
            val got = rows.toOption.get.map { case Seq(x, c) => (x, c != null) }
            assert(got == Seq((1L, false), (null, true), (2L, false), (null, false), (null, true), (3L, false)))
          }
        }
        same(s"v$v $name inferred")(spark.read.format("bsup").load(f.getPath))
      }
    }
  }

  test("schemas the vectors cannot hold keep the row reader: VARIANT (variant=true), void") {
    val dir = new File(tmp(), "t").getPath
    sparkTypes(50).write.format("bsup").save(dir)
    same("variant", expectColumnar = false)(spark.read.format("bsup").option("variant", "true").load(dir))
    same("void", expectColumnar = false)(read(dir, "PERMISSIVE", Some(StructType(Seq(StructField("n", NullType),
      StructField("id", LongType))))))
    // The same data in batches, asked with batchable types.
    same("batchable")(read(dir, "PERMISSIVE", Some(StructType(Seq(StructField("id", LongType))))))
  }

  test("mutated files (each of the fuzzer's seeds mutated once, seeded): the same rows or error both ways in every mode",
    TestTags.LineIndependent) {
    val seeds = BsupFuzz.seeds()
    val rnd = new Random(20261127L)
    val dir = tmp()
    var corruptRows = 0
    var failFastErrors = 0
    var inputs = 0
    seeds.zipWithIndex.foreach { case (seed, i) =>
      val orig = new File(dir, s"seed$i.bsup")
      Files.write(orig.toPath, seed.bytes)
      val schema = try Some(spark.read.format("bsup").load(orig.getPath).schema) catch { case _: Exception => None }
      schema.filter(s => s.nonEmpty && batchable(s)).foreach { s0 =>
        // one mutated input a seed, through both readers in every mode (BsupFuzzSuite mutates each
        // seed thousands of times through the codec alone)
        val (b, what) = BsupFuzz.mutate(seed, rnd)
        val f = new File(dir, s"m$i.bsup")
        Files.write(f.toPath, b)
        inputs += 1
        for (mode <- Modes) {
          val s = if (mode == "PERMISSIVE") withCorrupt(s0) else s0
          same(s"${seed.name} ($what) $mode")(read(f.getPath, mode, Some(s))) match {
            case Right(rows) if mode == "PERMISSIVE" =>
              corruptRows += rows.count { case r: Seq[_] => r.last != null; case _ => false }
            case Left(_) if mode == "FAILFAST" => failFastErrors += 1
            case _ =>
          }
        }
      }
    }
    info(s"$inputs mutated inputs, $corruptRows corrupt rows (PERMISSIVE), $failFastErrors FAILFAST errors")
    // The modes' malformed paths are reached.
    assert(inputs > 20 && corruptRows > 0 && failFastErrors > 0)
  }

  override def afterAll(): Unit = {
    info(s"$compared cases compared, $columnarRuns through the columnar reader")
    super.afterAll()
  }
}
