package io.superspark.parquet.interceptor.v2

import java.util.Locale

import org.apache.spark.sql.connector.metric.{CustomMetric, CustomSumMetric}
import org.apache.spark.sql.execution.SparkPlan
import org.apache.spark.sql.execution.adaptive.AdaptiveSparkPlanHelper
import org.apache.spark.sql.execution.datasources.v2.BatchScanExec

/**
 * The footer counters of a DSv2 Parquet scan as Spark custom metrics: they appear on the
 * `BatchScan` node of the SQL UI and in `BatchScanExec.metrics` (summed over tasks).
 * The classes need a public no-argument constructor: the SQL UI instantiates them by name.
 */
private[superspark] object FooterCustomMetrics {
  val FlatBuffer = "footersFlatBuffer"
  val Thrift = "footersThrift"
  val Fallbacks = "footerFallbacks"
  val DecodeTime = "footerDecodeTime"

  /** Metric name -> the key used by `FooterSQLMetrics.snapshot` and the Python helpers. */
  val Keys: Seq[(String, String)] = Seq(FlatBuffer -> "footers_flatbuffer", Thrift -> "footers_thrift",
    Fallbacks -> "fallbacks", DecodeTime -> "decode_ns")

  def supported: Array[CustomMetric] =
    Array(new FootersFlatBufferMetric, new FootersThriftMetric, new FooterFallbacksMetric, new FooterDecodeTimeMetric)

  private object Plans extends AdaptiveSparkPlanHelper

  /**
   * The footer metrics of an executed plan (e.g. `df.queryExecution.executedPlan` after an
   * action), summed over its `BatchScan` nodes that read through [[FooterParquetScan]]
   * (adaptive plans and subqueries included). DSv1 scan nodes: `FooterSQLMetrics.ofPlan`.
   */
  def of(plan: SparkPlan): Map[String, Long] = {
    val scans = Plans.collectWithSubqueries(plan) {
      case b: BatchScanExec if b.scan.isInstanceOf[FooterParquetScan] => b
    }
    Keys.map { case (metric, key) => key -> scans.map(_.metrics.get(metric).map(_.value).getOrElse(0L)).sum }.toMap
  }

  /** [[of]] as a JSON object (for Python). */
  def json(plan: SparkPlan): String =
    of(plan).toSeq.sorted.map { case (k, v) => s"\"$k\": $v" }.mkString("{", ", ", "}")
}

private[superspark] class FootersFlatBufferMetric extends CustomSumMetric {
  override def name(): String = FooterCustomMetrics.FlatBuffer
  override def description(): String = "footers read via FlatBuffers"
}

private[superspark] class FootersThriftMetric extends CustomSumMetric {
  override def name(): String = FooterCustomMetrics.Thrift
  override def description(): String = "footers read via Thrift"
}

private[superspark] class FooterFallbacksMetric extends CustomSumMetric {
  override def name(): String = FooterCustomMetrics.Fallbacks
  override def description(): String = "footer extension fallbacks"
}

/** Nanoseconds per task; shown as the total in milliseconds. */
private[superspark] class FooterDecodeTimeMetric extends CustomMetric {
  override def name(): String = FooterCustomMetrics.DecodeTime
  override def description(): String = "footer decode time"
  override def aggregateTaskMetrics(taskMetrics: Array[Long]): String =
    "%.1f ms".formatLocal(Locale.ROOT, taskMetrics.sum / 1e6)
}
