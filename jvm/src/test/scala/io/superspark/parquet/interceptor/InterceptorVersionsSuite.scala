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
import io.superspark.parquet.footer.{FooterFiles, FooterLayout}

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
    System.setProperty(InterceptorVersions.OverrideProperty, "spark=4.2.1")
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

  test("supported versions: Spark 4.3.x with parquet-java 1.17.x only") {
    import InterceptorVersions.{Found, supports}
    assert(supports(Found("4.3.0", "1.17.0")) && supports(Found("4.3.2", "1.17.1")))
    assert(!supports(Found("4.2.1", "1.17.0")) && !supports(Found("4.4.0", "1.17.0")))
    assert(!supports(Found("4.3.0", "1.16.0")) && !supports(Found("4.3.0", "1.18.0")) && !supports(Found("5.3.0", "1.17.0")))
    // The real versions of this build are supported; the faked one is not.
    val real = Found(org.apache.spark.SPARK_VERSION, InterceptorVersions.parquetVersion)
    assert(real == Found("4.3.0", "1.17.0"))
    assert(InterceptorVersions.found() == Found("4.2.1", "1.17.0"))
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
    assert(w.contains("Spark 4.2.1") && w.contains("parquet-java 1.17.0"))
    assert(w.contains("Spark 4.3.x") && w.contains("parquet-java 1.17.x"))
  }
}
