package io.superspark.parquet.interceptor

import java.nio.file.{Files, Path}

import scala.collection.mutable.ArrayBuffer
import scala.jdk.CollectionConverters._

import org.apache.logging.log4j.{Level, LogManager}
import org.apache.logging.log4j.core.{LogEvent, Logger}
import org.apache.logging.log4j.core.appender.AbstractAppender
import org.apache.spark.sql.SparkSessionExtensions
import org.apache.spark.sql.execution.FileSourceScanExec
import org.apache.spark.sql.execution.datasources.{HadoopFsRelation, InsertIntoHadoopFsRelationCommand, LogicalRelation}
import org.apache.spark.sql.execution.datasources.parquet.ParquetFileFormat
import org.apache.spark.sql.execution.datasources.v2.BatchScanExec
import org.apache.spark.sql.execution.datasources.v2.parquet.ParquetScan

import io.superspark.{SparkSessionSuite, SuperSparkExtensions}
import io.superspark.parquet.footer.files.FooterFiles
import io.superspark.parquet.footer.codec.FooterLayout

/**
 * The version guard: the session is started with a faked Spark version, so the extension must
 * leave Parquet entirely to Spark (reads DSv1 and DSv2, writes, schema inference) while bsup
 * and the sb_* functions work, and say so once in the log.
 */
class InterceptorVersionsSuite extends SparkSessionSuite {

  private val warnings = ArrayBuffer.empty[String]
  private val appender = new AbstractAppender("versions-test", null, null, true, null) {
    override def append(event: LogEvent): Unit = if (event.getLevel == Level.WARN) warnings.synchronized {
      warnings += event.getMessage.getFormattedMessage
    }
  }
  private def logger = LogManager.getLogger(InterceptorVersions.getClass.getName.stripSuffix("$")).asInstanceOf[Logger]

  override def beforeAll(): Unit = {
    appender.start()
    logger.addAppender(appender)
    System.setProperty(InterceptorVersions.OverrideProperty, "spark=5.9.1")
    super.beforeAll()
  }

  override def afterAll(): Unit = {
    try super.afterAll() finally {
      System.clearProperty(InterceptorVersions.OverrideProperty)
      logger.removeAppender(appender)
    }
  }

  private def guardWarnings = warnings.synchronized(warnings.filter(_.contains("interceptor is off")).toList)

  private def withTempDir(f: Path => Unit): Unit = {
    val dir = Files.createTempDirectory("versions")
    try f(dir) finally org.apache.commons.io.FileUtils.deleteDirectory(dir.toFile)
  }

  test("supported versions: this jar's Spark line with its parquet-java line only") {
    import InterceptorVersions.{Found, SupportedParquet => P, SupportedSpark => S, supports}
    assert(supports(Found(s"$S.0", s"$P.0")) && supports(Found(s"$S.7", s"$P.3")))
    assert(!supports(Found("3.5.4", s"$P.0")) && !supports(Found("4.4.0", s"$P.0")) && !supports(Found(s"5.$S", s"$P.0")))
    InterceptorVersions.SupportedLines.filterNot(_ == S).foreach(l => assert(!supports(Found(s"$l.1", s"$P.0"))))
    assert(!supports(Found(s"$S.0", "1.14.0")) && !supports(Found(s"$S.0", "1.99.0")))
    // The real versions of this build are supported; the faked one is not.
    val real = Found(org.apache.spark.SPARK_VERSION, InterceptorVersions.parquetVersion)
    assert(supports(real), real)
    assert(InterceptorVersions.found() == Found("5.9.1", real.parquet))
  }

  test("a jar of another Spark line refuses to start, naming the jar to use or the supported lines") {
    InterceptorVersions.requireJarLine(org.apache.spark.SPARK_VERSION) // this line: fine
    val other = InterceptorVersions.SupportedLines.find(_ != InterceptorVersions.SupportedSpark).get
    val e = intercept[org.apache.spark.SparkException](InterceptorVersions.requireJarLine(s"$other.2"))
    assert(e.getCondition == "SUPERSPARK_SPARK_LINE_MISMATCH")
    assert(e.getMessage.contains(s"built for Spark ${InterceptorVersions.SupportedSpark}.x") &&
      e.getMessage.contains(s"superspark-spark${other}_2.13"))
    Seq("3.5.4", "4.4.0", "5.0.0").foreach { v =>
      val e = intercept[org.apache.spark.SparkException](InterceptorVersions.requireJarLine(v))
      assert(e.getCondition == "SUPERSPARK_SPARK_LINE_MISMATCH" &&
        e.getMessage.contains("supported lines: 4.0, 4.1, 4.2, 4.3"), e.getMessage)
    }
  }

  test("on an unsupported version Parquet is Spark's: DSv1, DSv2, writes, schema inference") {
    withTempDir { dir =>
      val p = dir.resolve("t").toString
      spark.conf.set(FooterInterceptorConf.WriteKey, "true")
      try {
        spark.range(10).selectExpr("id", "id % 3 AS k").write.parquet(p)
        spark.range(3).write.mode("append").parquet(p)
      } finally spark.conf.unset(FooterInterceptorConf.WriteKey)
      val files = Files.walk(dir).iterator().asScala.filter(_.toString.endsWith(".parquet")).toSeq
      assert(files.nonEmpty)
      files.foreach(f => assert(!FooterLayout.locate(FooterFiles.readFooter(f).footer).isInstanceOf[FooterLayout.Present],
        s"$f has the footer extension although the interceptor is off"))

      val df = spark.read.parquet(p).where("id > 4")
      assert(df.queryExecution.analyzed.collect { case LogicalRelation(r: HadoopFsRelation, _, _, _, _) =>
        r.fileFormat.getClass } == Seq(classOf[ParquetFileFormat]))
      assert(df.collect().map(_.getLong(0)).sorted.toSeq == (5L until 10L))
      val scans = df.queryExecution.executedPlan.collect { case s: FileSourceScanExec => s }
      assert(scans.size == 1 && scans.head.getClass == classOf[FileSourceScanExec])

      spark.sql(s"CREATE TABLE guard_t (id BIGINT) USING parquet LOCATION '${dir.resolve("tbl")}'")
      try {
        val insert = spark.sql("INSERT INTO guard_t VALUES (1)").queryExecution.analyzed.collect {
          case i: InsertIntoHadoopFsRelationCommand => i.fileFormat.getClass
        }
        assert(insert == Seq(classOf[ParquetFileFormat]))
      } finally spark.sql("DROP TABLE guard_t")

      withSQLConf("spark.sql.sources.useV1SourceList" -> "") {
        val v2 = spark.read.parquet(p)
        assert(v2.collect().length == 13)
        val batch = v2.queryExecution.executedPlan.collect { case b: BatchScanExec => b.scan.getClass }
        assert(batch == Seq(classOf[ParquetScan]))
      }
    }
  }

  test("bsup and the sb_* functions still work") {
    withTempDir { dir =>
      val p = dir.resolve("b").toString
      spark.range(5).selectExpr("id", "concat('v', id) AS s").write.format("bsup").save(p)
      val back = spark.read.format("bsup").load(p).orderBy("id").collect().map(r => (r.getLong(0), r.getString(1)))
      assert(back.toSeq == (0L until 5L).map(i => (i, s"v$i")))
      val r = spark.sql("SELECT sb_decode(sb_encode(named_struct('a', 7L, 'b', 'x')), 'a BIGINT, b STRING') AS v").head()
      assert(r.getStruct(0).getLong(0) == 7L && r.getStruct(0).getString(1) == "x")
    }
  }

  test("the guard warns once per JVM, naming the versions found and supported") {
    new SuperSparkExtensions().apply(new SparkSessionExtensions) // a second session's extensions
    val Seq(w) = guardWarnings
    assert(w.contains("Spark 5.9.1") && w.contains(s"parquet-java ${InterceptorVersions.parquetVersion}"))
    assert(w.contains(s"Spark ${InterceptorVersions.SupportedSpark}.x") &&
      w.contains(s"parquet-java ${InterceptorVersions.SupportedParquet}.x"))
  }
}
