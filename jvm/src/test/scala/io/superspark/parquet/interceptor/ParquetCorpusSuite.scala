package io.superspark.parquet.interceptor

import java.nio.file.{Files, Path, Paths}
import java.util.concurrent.{Executors, TimeUnit, TimeoutException}

import scala.concurrent.{Await, ExecutionContext, Future}
import scala.concurrent.duration._
import scala.jdk.CollectionConverters._
import scala.util.Try

import org.apache.spark.SparkThrowable
import org.apache.spark.sql.{DataFrame, Row}
import org.apache.spark.sql.functions.{col, lit}
import org.apache.spark.sql.types._

import io.superspark.{SparkSessionSuite, TestTags}
import io.superspark.parquet.footer.tools.FooterTool

/**
 * The interceptor against Spark's own reader over a corpus of Parquet files from writers we
 * did not write: apache/parquet-testing (`data`, `shredded_variant`, `variant`, `bad_data`,
 * read in place from `../shared/corpus/parquet-testing`), files written here by pyarrow,
 * DuckDB and Polars (tests/parquet_corpus/write_files.py) and by Spark (V1/V2 pages,
 * dictionary, legacy layouts, INT96, bloom filters, small row groups and pages).
 *
 * Per file, in one session, with `spark.superspark.parquet.footer.read` false (Spark's reader)
 * and true (the interceptor): the same schema and rows, or the same error class; a filter on
 * a column (row-group pruning by statistics) gives the same rows; `footer add` -> `verify`
 * -> read -> `strip` gives the same rows and the original bytes. Every read is bounded in
 * time. The counts are printed (docs/parquet-interceptor.md, "Corpus test").
 */
class ParquetCorpusSuite extends SparkSessionSuite {
  private val ReadKey = FooterInterceptorConf.ReadKey
  private val PerReadTimeout = 120.seconds

  /** `$PARQUET_TESTING`, else `../shared/corpus/parquet-testing` from the repository root (or a worktree below it). */
  private lazy val corpusRoot: Option[Path] = io.superspark.SharedData.parquetTesting

  private def parquetFiles(dir: Path): Seq[Path] =
    if (!Files.isDirectory(dir)) Nil
    else Files.walk(dir).iterator.asScala.filter(Files.isRegularFile(_))
      .filter { f =>
        val n = f.getFileName.toString
        n.endsWith(".parquet") || n.endsWith(".parquet.encrypted")
      }.toSeq.sortBy(_.toString)

  // ---- reading and comparing ----

  private sealed trait Outcome
  private final case class Rows(schema: StructType, rows: Seq[String])(val filter: Option[DataFrame => DataFrame])
      extends Outcome
  private final case class Failed(errorClass: String, message: String) extends Outcome
  private case object Hung extends Outcome

  /** A canonical text of a collected value (bytes as hex, maps sorted, NaN as NaN). */
  private def canon(v: Any): String = v match {
    case null => "null"
    case b: Array[Byte] => b.map("%02x".format(_)).mkString("0x", "", "")
    case r: Row => r.toSeq.map(canon).mkString("{", ",", "}")
    case m: scala.collection.Map[_, _] => m.toSeq.map { case (k, x) => canon(k) + "->" + canon(x) }.sorted
      .mkString("<", ",", ">")
    case s: scala.collection.Seq[_] => s.map(canon).mkString("[", ",", "]")
    case other => other.toString
  }

  /** The error class: the first Spark error condition in the chain and the root cause's class. */
  private def errorClass(t: Throwable): String = {
    val chain = Iterator.iterate(t)(_.getCause).takeWhile(_ != null).toSeq
    val condition = chain.collectFirst { case s: SparkThrowable if s.getCondition != null => s.getCondition }
    s"${condition.getOrElse("-")}/${chain.last.getClass.getSimpleName}"
  }

  private val pool = ExecutionContext.fromExecutorService(Executors.newCachedThreadPool())

  private def bounded(body: => Outcome): Outcome = {
    val group = s"corpus-${System.nanoTime()}"
    val f = Future {
      spark.sparkContext.setJobGroup(group, "corpus read", interruptOnCancel = true)
      try body finally spark.sparkContext.clearJobGroup()
    }(pool)
    try Await.result(f, PerReadTimeout) catch {
      case _: TimeoutException =>
        spark.sparkContext.cancelJobGroup(group)
        Hung
    }
  }

  /** The footer counters (FlatBuffer, Thrift, fallbacks) of the scan nodes of the last [[read]] with the extension on. */
  @volatile private var lastFooterCounts: (Long, Long, Long) = (0L, 0L, 0L)

  private def footerCounts(df: DataFrame): (Long, Long, Long) = {
    object Walk extends org.apache.spark.sql.execution.adaptive.AdaptiveSparkPlanHelper
    val scans = Walk.collectWithSubqueries(df.queryExecution.executedPlan) { case s: FooterScanExec => s }
    def sum(k: String) = scans.map(_.metrics(k).value).sum
    (sum("footersFlatBuffer"), sum("footersThrift"), sum("footerFallbacks"))
  }

  private def read(path: String, on: Boolean, query: DataFrame => DataFrame = identity): Outcome = bounded {
    withSQLConf(ReadKey -> on.toString) {
      try {
        val df = query(spark.read.parquet(path))
        val rows = df.collect().toSeq
        if (on) lastFooterCounts = footerCounts(df)
        Rows(df.schema, rows.map(canon))(filterFor(df.schema, rows))
      } catch {
        case e: Exception => Failed(errorClass(e), String.valueOf(e.getMessage).take(300))
      }
    }
  }

  /** A filter on the first top-level column Spark can push down, at a value in the middle of the rows. */
  private def filterFor(schema: StructType, rows: Seq[Row]): Option[DataFrame => DataFrame] = {
    val pushable: DataType => Boolean = {
      case _: NumericType | StringType | DateType | TimestampType | TimestampNTZType | BooleanType => true
      case _ => false
    }
    schema.fields.indexWhere(f => pushable(f.dataType)) match {
      case -1 => None
      case i =>
        val values = rows.map(_.get(i)).filter(_ != null)
        val name = schema.fields(i).name
        values.lift(values.size / 2).map(v => (d: DataFrame) => d.where(col(s"`$name`") >= lit(v)))
    }
  }

  private final case class Verdict(file: String, kind: String, detail: String, interceptorRead: Outcome = Hung)

  /**
   * Interceptor on vs off for one file: "same", "better" (only the interceptor reads it),
   * "error-class" (both fail alike), for bad_data also "clearer" (another error, naming the file),
 * and "clearer" where Spark's parquet-java cannot parse the footer and the interceptor gets to
 * Spark's own refusal of a column type (Spark 4.0's parquet-java 1.15).
   */
  private def compare(path: String, badData: Boolean): Verdict = {
    val off = read(path, on = false)
    val on = read(path, on = true)
    (off, on) match {
      case (_, Hung) | (Hung, _) => Verdict(path, "MISMATCH", s"hang: off=$off on=$on")
      case (a: Rows, b: Rows) if a == b =>
        a.filter match {
          case None => Verdict(path, "same", "", b)
          case Some(q) =>
            val (fo, fn) = (read(path, on = false, q), read(path, on = true, q))
            if (fo == fn) Verdict(path, "same", "", b) else Verdict(path, "MISMATCH", s"filter: off=$fo on=$fn")
        }
      case (a: Rows, b: Rows) => Verdict(path, "MISMATCH",
        s"off=${a.schema.simpleString} ${a.rows.take(3)} on=${b.schema.simpleString} ${b.rows.take(3)}")
      case (_: Failed, b: Rows) => Verdict(path, "better", "", b)
      case (a: Failed, b: Failed) if a.errorClass == b.errorClass => Verdict(path, "error-class", a.errorClass)
      case (a: Failed, b: Failed) if badData && b.message.contains(Paths.get(path).getFileName.toString) =>
        Verdict(path, "clearer", s"Spark: ${a.errorClass}; interceptor: ${b.errorClass}: ${b.message.take(200)}")
      // Spark 4.0 (parquet-java 1.15): parquet-java cannot parse the footer (a logical type it
      // does not know, e.g. VARIANT, fails its converter with a NullPointerException); the
      // interceptor reads that column as its physical type, as FooterReader.thrift does, and
      // Spark then refuses another column's type on this line with its own error.
      case (a: Failed, b: Failed) if a.errorClass == "FAILED_READ_FILE.CANNOT_READ_FILE_FOOTER/NullPointerException" &&
          b.errorClass == "PARQUET_TYPE_ILLEGAL/AnalysisException" =>
        Verdict(path, "clearer", s"Spark: ${a.errorClass}; interceptor: ${b.errorClass}: ${b.message.take(200)}")
      case (a: Failed, b: Failed) => Verdict(path, "MISMATCH", s"errors: off=$a on=$b")
      case (a: Rows, b: Failed) => Verdict(path, "MISMATCH", s"interceptor fails where Spark reads: $b")
    }
  }

  /**
   * `footer add` -> `verify` -> read -> `strip`: the read gives `expected` (the interceptor's
   * read of the original), strip gives the original bytes back (for a file that already has
   * the extension: strip, then add gives them back). None when fine.
   */
  private def footerRoundTrip(path: Path, dir: Path, expected: Outcome): Option[String] = {
    val copy = dir.resolve(path.getFileName.toString)
    Files.copy(path, copy)
    val original = Files.readAllBytes(copy)
    def one = java.util.List.of(copy.toString)
    val first = FooterTool.add(one, null)
    val hadExtension = first.contains("\"status\":\"unchanged\"")
    if (!hadExtension && !first.contains("\"status\":\"added\"")) {
      // refused (a footer the extension cannot represent): the file must be left as it was
      return Some(if (java.util.Arrays.equals(Files.readAllBytes(copy), original)) s"refused: $first"
        else s"add failed and changed the file: $first")
    }
    if (hadExtension) {
      FooterTool.strip(one, null)
      val added = FooterTool.add(one, null)
      if (!added.contains("\"status\":\"added\"")) return Some(s"add after strip: $added")
    }
    val verified = FooterTool.verify(one)
    if (!verified.contains("\"status\":\"valid\"")) return Some(s"verify: $verified")
    // The footer cache is emptied so the scan opens the new footer itself, and its metrics say which one it used.
    FooterCache.clear()
    val after = read(copy.toString, on = true)
    if (after != expected) return Some(s"read with the extension differs: $after vs $expected")
    val (flat, thrift, fallbacks) = lastFooterCounts
    if (flat < 1 || thrift != 0 || fallbacks != 0)
      return Some(s"the read after add did not use the FlatBuffer footer: flatbuffer=$flat thrift=$thrift fallbacks=$fallbacks")
    if (!hadExtension) FooterTool.strip(one, null)
    if (!java.util.Arrays.equals(Files.readAllBytes(copy), original)) Some("strip/add did not restore the bytes")
    else None
  }

  // ---- generated files ----

  private def sparkFiles(dir: Path): Seq[Path] = {
    val df = spark.range(0, 3000).selectExpr(
      "cast(id % 2 = 0 as boolean) b", "cast(id % 100 as byte) i8", "cast(id as short) i16", "cast(id as int) i32",
      "id * 1000000007 i64", "cast(id / 3 as float) f32", "id / 7.0d f64", "cast(id / 100 as decimal(9, 2)) dec9",
      "cast(id * 1000 as decimal(18, 4)) dec18", "cast(id * 1000000 as decimal(38, 10)) dec38",
      "concat('s', id % 50) s", "cast(concat('b', id) as binary) bin", "date_add(date'2020-01-01', cast(id as int)) d",
      "timestamp'2021-01-01 00:00:00' + make_interval(0, 0, 0, 0, 0, 0, id) ts",
      "cast(timestamp'2021-01-01 00:00:00' + make_interval(0, 0, 0, 0, 0, cast(id as int), 0) as timestamp_ntz) ntz",
      "if(id % 7 = 3, null, id) nullable", "array(id, id + 1) arr", "map(concat('k', id % 3), id) m",
      "named_struct('x', id, 'y', array(named_struct('z', cast(id as string)))) st")
      .repartition(1)
    val configs = Seq(
      "spark_v1" -> Map.empty[String, String],
      "spark_v2_pages" -> Map("parquet.writer.version" -> "PARQUET_2_0"),
      "spark_plain" -> Map("parquet.enable.dictionary" -> "false"),
      "spark_legacy" -> Map("spark.sql.parquet.writeLegacyFormat" -> "true"),
      "spark_int96" -> Map("spark.sql.parquet.outputTimestampType" -> "INT96"),
      "spark_millis" -> Map("spark.sql.parquet.outputTimestampType" -> "TIMESTAMP_MILLIS"),
      "spark_bloom" -> Map("parquet.bloom.filter.enabled#i32" -> "true", "parquet.bloom.filter.enabled#s" -> "true"),
      "spark_extension" -> Map(FooterInterceptorConf.WriteKey -> "true"))
    configs.flatMap { case (name, conf) =>
      val (sqlConf, options) = conf.partition(_._1.startsWith("spark."))
      val out = dir.resolve(name)
      withSQLConf(sqlConf.toSeq: _*) {
        df.write.options(options ++ Map("parquet.block.size" -> "65536", "parquet.page.size" -> "4096"))
          .parquet(out.toString)
      }
      parquetFiles(out)
    }
  }

  private def externalFiles(dir: Path): Seq[Path] = {
    val python = Paths.get(".venv/bin/python")
    if (!Files.isExecutable(python)) {
      fail("no .venv/bin/python: the pyarrow/DuckDB/Polars files cannot be written (run dev/setup.sh)")
    } else {
      val proc = new ProcessBuilder(python.toString, "tests/parquet_corpus/write_files.py", dir.toString)
        .redirectErrorStream(true).start()
      val output = new String(proc.getInputStream.readAllBytes())
      assert(proc.waitFor(300, TimeUnit.SECONDS) && proc.exitValue == 0, s"write_files.py failed: $output")
      if (output.nonEmpty) info(output.trim)
      parquetFiles(dir)
    }
  }

  // ---- the test ----

  test("parquet-testing and generated files: interceptor reads as Spark does (or better), footer round trip",
    TestTags.OncePerParquetJava) {
    val tmp = Files.createTempDirectory("parquet-corpus")
    try {
      val started = System.nanoTime()
      val corpus = corpusRoot match {
        case None => cancel(io.superspark.SharedData.ParquetTestingMissing)
        case Some(root) => Seq("data", "shredded_variant", "variant", "bad_data").flatMap { d =>
          parquetFiles(root.resolve(d)).map(p => d -> p)
        }
      }
      val generated = sparkFiles(tmp.resolve("spark")).map("spark" -> _) ++
        externalFiles(tmp.resolve("external")).map(p => p.getFileName.toString.takeWhile(_ != '_') -> p)
      val files = corpus ++ generated
      val verdicts = files.map { case (group, p) => group -> compare(p.toString, badData = group == "bad_data") }
      val roundTrips = tmp.resolve("roundtrip")
      Files.createDirectories(roundTrips)
      val readable = verdicts.collect { case (g, v) if v.kind == "same" || v.kind == "better" => (g, v) }
        .filterNot(_._1 == "bad_data")
      val roundTrips0 = readable.flatMap { case (_, v) =>
        footerRoundTrip(Paths.get(v.file), Files.createTempDirectory(roundTrips, "f"), v.interceptorRead)
          .map(why => (v, why))
      }
      // `add` may refuse (file unchanged) only a file vanilla Spark cannot read either.
      val (refused, roundTripFailures) = roundTrips0.partition { case (v, why) =>
        why.startsWith("refused: ") && v.kind == "better"
      }
      val seconds = (System.nanoTime() - started) / 1e9
      val counts = verdicts.groupBy(_._1).toSeq.sortBy(_._1).map { case (g, vs) =>
        val byKind = vs.groupBy(_._2.kind).map { case (k, xs) => k -> xs.size }
        f"$g%-17s files=${vs.size}%4d same=${byKind.getOrElse("same", 0)}%4d better=${byKind.getOrElse("better", 0)}%3d " +
          f"error-class=${byKind.getOrElse("error-class", 0)}%3d clearer=${byKind.getOrElse("clearer", 0)} mismatch=${byKind.getOrElse("MISMATCH", 0)}"
      }
      val summary = (counts :+ f"footer round trips: ${readable.size - roundTrips0.size}/${readable.size} " +
        f"identical, ${refused.size} refused by add; ${files.size} files in $seconds%.0f s").mkString("\n")
      println(s"ParquetCorpusSuite\n$summary")
      verdicts.filter(_._2.kind == "better").foreach { case (_, v) => println(s"better: ${v.file}") }
      verdicts.filter(v => v._2.kind == "error-class" || v._2.kind == "clearer")
        .foreach { case (_, v) => println(s"${v.kind}: ${v.file}: ${v.detail}") }
      roundTrips0.foreach { case (v, why) => println(s"round trip: ${v.file}: $why") }
      info(summary)
      val mismatches = verdicts.map(_._2).filter(_.kind == "MISMATCH")
      assert(mismatches.isEmpty, mismatches.map(v => s"${v.file}: ${v.detail}").mkString("\n"))
      assert(roundTripFailures.isEmpty, roundTripFailures.map { case (v, why) => s"${v.file}: $why" }.mkString("\n"))
      // Every writer's files are there: Spark's configurations and the other writers' files.
      val byWriter = generated.groupBy(_._1).map { case (w, fs) => w -> fs.size }
      assert(byWriter.getOrElse("spark", 0) >= 8, s"too few Spark files: $byWriter")
      Seq("pyarrow", "duckdb", "polars").foreach(w => assert(byWriter.getOrElse(w, 0) > 0, s"no $w files: $byWriter"))
    } finally org.apache.commons.io.FileUtils.deleteDirectory(tmp.toFile)
  }

  override def afterAll(): Unit = {
    try pool.shutdownNow() finally super.afterAll()
  }
}
