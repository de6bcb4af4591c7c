package io.superspark.parquet.interceptor

import java.nio.file.Files

import org.apache.spark.sql.superspark.SuperSparkSQLConf

import io.superspark.SparkSessionSuite
import io.superspark.parquet.footer.codec.FooterForm

/** The interceptor's settings are registered SQL config entries; its driver state is bounded. */
class InterceptorSettingsSuite extends SparkSessionSuite {

  private val keys = Seq(FooterInterceptorConf.ReadKey, FooterInterceptorConf.WriteKey,
    FooterInterceptorConf.StrictKey, FooterInterceptorConf.FormKey)

  test("SET -v lists the settings with their defaults and docs") {
    val rows = spark.sql("SET -v").collect().map(r => r.getString(0) -> (r.getString(1), r.getString(2))).toMap
    assert(rows(FooterInterceptorConf.ReadKey)._1 == "true")
    assert(rows(FooterInterceptorConf.WriteKey)._1 == "false")
    assert(rows(FooterInterceptorConf.StrictKey)._1 == "false")
    assert(rows(FooterInterceptorConf.FormKey)._1 == "private")
    keys.foreach(k => assert(rows(k)._2.length > 40, s"$k has no doc"))
    assert(rows(FooterInterceptorConf.FormKey)._2.contains("private, intermediate, final"))
  }

  test("everyWriter's settings are static, listed by SET -v with their docs; off, no file system is wrapped") {
    val every = Seq(SuperSparkSQLConf.EveryWriter, SuperSparkSQLConf.EveryWriterMaxTailBytes, SuperSparkSQLConf.EveryWriterSchemes)
    val rows = spark.sql("SET -v").collect().map(r => r.getString(0) -> (r.getString(1), r.getString(2))).toMap
    assert(rows(SuperSparkSQLConf.EveryWriter.key)._1 == "false")
    assert(rows(SuperSparkSQLConf.EveryWriterMaxTailBytes.key)._1 == "64m")
    every.foreach(e => assert(rows(e.key)._2.length > 40, s"${e.key} has no doc"))
    val e = intercept[Exception](spark.conf.set(SuperSparkSQLConf.EveryWriter.key, "true"))
    // refused at run time: "static config" (4.1+), CANNOT_MODIFY_CONFIG on Spark 4.0
    assert(e.getMessage.contains(SuperSparkSQLConf.EveryWriter.key) &&
      Seq("static", "cannot_modify_config").exists(e.getMessage.toLowerCase.contains), e.getMessage)
    val fs = new org.apache.hadoop.fs.Path("file:///").getFileSystem(spark.sparkContext.hadoopConfiguration)
    assert(!fs.isInstanceOf[io.superspark.parquet.footer.writers.EveryWriterLocalFileSystem])
  }

  test("a bad value fails with Spark's error naming the key; good values are read typed") {
    val e = intercept[IllegalArgumentException](spark.sql(s"SET ${FooterInterceptorConf.WriteKey}=yes please"))
    assert(e.getMessage.contains(FooterInterceptorConf.WriteKey) && e.getMessage.contains("boolean"), e.getMessage)
    val e2 = intercept[IllegalArgumentException](spark.conf.set(FooterInterceptorConf.StrictKey, "2"))
    assert(e2.getMessage.contains(FooterInterceptorConf.StrictKey), e2.getMessage)
    val e3 = intercept[IllegalArgumentException](spark.conf.set(FooterInterceptorConf.FormKey, "public"))
    assert(e3.getMessage.contains(FooterInterceptorConf.FormKey) && e3.getMessage.contains("intermediate"), e3.getMessage)
    val conf = spark.sessionState.conf
    withSQLConf(FooterInterceptorConf.WriteKey -> " TRUE ", FooterInterceptorConf.FormKey -> "Final") {
      assert(FooterInterceptorConf.writeEnabled(conf) && FooterInterceptorConf.form(conf) == FooterForm.Final)
    }
    assert(!FooterInterceptorConf.writeEnabled(conf) && FooterInterceptorConf.form(conf) == FooterForm.Private)
    assert(FooterInterceptorConf.readEnabled(conf) && !FooterInterceptorConf.strict(conf))
    assert(SuperSparkSQLConf.FooterRead.key == FooterInterceptorConf.ReadKey)
  }

  test("driver-wide footer totals are a fixed set of counters: no state per scan or inference") {
    val dir = Files.createTempDirectory("totals")
    try {
      val p = dir.resolve("t").toString
      withSQLConf(FooterInterceptorConf.WriteKey -> "true") {
        spark.range(30).selectExpr("id", "id % 3 AS k").repartition(3).write.parquet(p)
      }
      def stateSize: Int = FooterSQLMetrics.getClass.getDeclaredFields.map { f =>
        f.setAccessible(true)
        f.get(FooterSQLMetrics) match {
          case c: java.util.Collection[_] => c.size
          case m: java.util.Map[_, _] => m.size
          case i: Iterable[_] => i.size
          case _ => 0
        }
      }.sum
      FooterSQLMetrics.reset()
      val df0 = spark.read.parquet(p).where("k = 1") // one schema inference (3 files, one read on the driver)
      df0.collect()
      val perScan = FooterSQLMetrics.ofPlan(df0.queryExecution.executedPlan)
      assert(perScan("footers_flatbuffer") == 3)
      val afterOne = FooterSQLMetrics.snapshot()
      val before = stateSize
      val rounds = 40
      (1 to rounds).foreach { _ =>
        val df = spark.read.parquet(p).where("k = 1")
        assert(df.collect().length == 10)
      }
      assert(stateSize == before)
      val after = FooterSQLMetrics.snapshot()
      // Each round: one inference footer plus the scan's three, all through the FlatBuffer.
      val perRound = afterOne("footers_flatbuffer")
      assert(perRound == 4)
      assert(after("footers_flatbuffer") == perRound * (rounds + 1))
      assert(after("footers_thrift") == 0 && after("fallbacks") == 0 && after("decode_ns") > afterOne("decode_ns"))
      FooterSQLMetrics.reset()
      assert(FooterSQLMetrics.snapshot().values.forall(_ == 0))
    } finally org.apache.commons.io.FileUtils.deleteDirectory(dir.toFile)
  }
}
