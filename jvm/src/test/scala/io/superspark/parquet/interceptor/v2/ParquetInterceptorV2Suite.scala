package io.superspark.parquet.interceptor.v2

import java.nio.file.{Files, Path}

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.DataFrame
import org.apache.spark.sql.execution.adaptive.AdaptiveSparkPlanHelper
import org.apache.spark.sql.execution.datasources.v2.{BatchScanExec, DataSourceV2Relation}
import org.apache.spark.sql.execution.datasources.v2.parquet.ParquetScan

import org.scalatest.concurrent.Eventually._
import org.scalatest.time.{Seconds, Span}

import io.superspark.SparkSessionSuite
import io.superspark.parquet.footer.files.FooterFiles
import io.superspark.parquet.footer.codec.FooterLayout
import io.superspark.parquet.interceptor.FooterInterceptorConf

class ParquetInterceptorV2Suite extends SparkSessionSuite with AdaptiveSparkPlanHelper {

  override protected def extraConf: Map[String, String] =
    Map("spark.sql.sources.useV1SourceList" -> "avro,csv,json,kafka,orc,text")

  private def withTempDir(f: Path => Unit): Unit = {
    val dir = Files.createTempDirectory("interceptor-v2")
    try f(dir) finally org.apache.commons.io.FileUtils.deleteDirectory(dir.toFile)
  }

  private def withConf[T](kv: (String, String)*)(body: => T): T = {
    kv.foreach { case (k, v) => spark.conf.set(k, v) }
    try body finally kv.foreach { case (k, _) => spark.conf.unset(k) }
  }

  private def batchScans(df: DataFrame): Seq[BatchScanExec] =
    collect(df.queryExecution.executedPlan) { case b: BatchScanExec => b }

  private def hasExtension(file: Path): Boolean =
    FooterLayout.locate(FooterFiles.readFooter(file).footer).isInstanceOf[FooterLayout.Present]

  private def parquetFiles(dir: Path): Seq[Path] =
    Files.walk(dir).iterator().asScala.filter(_.toString.endsWith(".parquet")).toSeq.sorted

  test("DSv2 reads use FooterParquetTable and FooterParquetScan; BatchScan carries the footer metrics") {
    withTempDir { dir =>
      val p = dir.resolve("t").toString
      withConf(FooterInterceptorConf.WriteKey -> "true") {
        spark.range(0, 200, 1, 4).selectExpr("id", "id % 2 AS k", "named_struct('a', id) AS s")
          .write.partitionBy("k").parquet(p)
      }
      val files = parquetFiles(dir)
      assert(files.size == 8)
      assert(files.forall(hasExtension))

      val df = spark.read.parquet(p).where("s.a >= 10")
      val tables = df.queryExecution.analyzed.collect { case r: DataSourceV2Relation => r.table }
      assert(tables.map(_.getClass) == Seq(classOf[FooterParquetTable]))
      assert(df.collect().length == 190)
      val Seq(scan) = batchScans(df)
      assert(scan.scan.getClass == classOf[FooterParquetScan])
      assert(FooterCustomMetrics.supported.map(_.name).forall(scan.metrics.contains))
      def value(name: String) = scan.metrics(name).value
      assert(value(FooterCustomMetrics.FlatBuffer) == files.size)
      assert(value(FooterCustomMetrics.Thrift) == 0 && value(FooterCustomMetrics.Fallbacks) == 0)
      assert(value(FooterCustomMetrics.DecodeTime) > 0)
      // The SQL UI's value of the node: the listener aggregates the task values with our metric classes.
      val store = spark.sharedState.statusStore
      eventually(timeout(Span(30, Seconds))) {
        val shown = store.executionsList().flatMap(e => store.executionMetrics(e.executionId)).toMap
        assert(shown.get(scan.metrics(FooterCustomMetrics.FlatBuffer).id).contains(files.size.toString))
        assert(shown.get(scan.metrics(FooterCustomMetrics.DecodeTime).id).exists(_.matches("""[0-9]+\.[0-9] ms""")))
      }
      assert(FooterCustomMetrics.of(df.queryExecution.executedPlan) == Map(
        "footers_flatbuffer" -> files.size.toLong, "footers_thrift" -> 0L, "fallbacks" -> 0L,
        "decode_ns" -> value(FooterCustomMetrics.DecodeTime)))

      withConf(FooterInterceptorConf.ReadKey -> "false") {
        val vanilla = spark.read.parquet(p).where("s.a >= 10")
        assert(vanilla.collect().map(_.toString).sorted.toSeq == df.collect().map(_.toString).sorted.toSeq)
        val Seq(theirs) = batchScans(vanilla)
        assert(theirs.scan.getClass == classOf[ParquetScan])
        assert(!theirs.metrics.contains(FooterCustomMetrics.FlatBuffer))
      }
    }
  }

  test("files without the extension count as Thrift footers on the scan node") {
    withTempDir { dir =>
      val p = dir.resolve("plain").toString
      spark.range(0, 30, 1, 3).write.parquet(p)
      val files = parquetFiles(dir)
      assert(!files.exists(hasExtension))
      val df = spark.read.parquet(p)
      assert(df.collect().map(_.getLong(0)).sorted.toSeq == (0L until 30L))
      val Seq(scan) = batchScans(df)
      assert(scan.metrics(FooterCustomMetrics.Thrift).value == files.size)
      assert(scan.metrics(FooterCustomMetrics.FlatBuffer).value == 0)
    }
  }

  test("decode time metric is shown in milliseconds") {
    assert(new FooterDecodeTimeMetric().aggregateTaskMetrics(Array(1500000L, 2500000L)) == "4.0 ms")
    assert(new FootersFlatBufferMetric().aggregateTaskMetrics(Array(2L, 3L)) == "5")
  }
}
