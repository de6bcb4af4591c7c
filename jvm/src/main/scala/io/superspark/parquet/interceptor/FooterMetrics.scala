package io.superspark.parquet.interceptor

import java.util.concurrent.ConcurrentLinkedQueue

import scala.jdk.CollectionConverters._

import org.apache.spark.SparkContext
import org.apache.spark.sql.execution.SparkPlan
import org.apache.spark.sql.execution.adaptive.AdaptiveSparkPlanHelper
import org.apache.spark.sql.execution.metric.{SQLMetric, SQLMetrics}

import io.superspark.parquet.footer.{FooterReadResult, FooterSource}

/**
 * Footer counters of one scan (or one schema inference), as SQL metrics. A scan's counters
 * are the SQL metrics of its [[FooterScanExec]] node, so they show on the scan node of the
 * Spark UI's SQL tab next to Spark's own ("footers read via FlatBuffers", ...). Every set is
 * also registered here, so the driver-wide totals can be queried (`FooterMetrics.snapshot`).
 */
final class FooterMetrics private (
    val flatBuffer: SQLMetric,
    val thrift: SQLMetric,
    val fallbacks: SQLMetric,
    val decodeTime: SQLMetric) extends Serializable {

  def record(result: FooterReadResult, nanos: Long): Unit = {
    result.source match {
      case FooterSource.FlatBuffer => flatBuffer.add(1)
      case FooterSource.Thrift => thrift.add(1)
    }
    if (result.fallback.isDefined) fallbacks.add(1)
    decodeTime.add(nanos)
  }

  /** The node's SQL metrics, by the keys [[FooterMetrics.Keys]] names. */
  def sqlMetrics: Map[String, SQLMetric] = FooterMetrics.Keys.zip(Seq(flatBuffer, thrift, fallbacks, decodeTime)).toMap
}

object FooterMetrics {
  /** Metric keys on the scan node (Spark style). */
  val Keys: Seq[String] = Seq("footersFlatBuffer", "footersThrift", "footerFallbacks", "footerDecodeTime")

  /** The same counters in `snapshot`/`ofPlan` and for Python (decode time in nanoseconds). */
  private val ReportNames = Keys.zip(Seq("footers_flatbuffer", "footers_thrift", "fallbacks", "decode_ns")).toMap

  private val all = new ConcurrentLinkedQueue[FooterMetrics]()

  /** New counters for one scan, registered with the SparkContext (call on the driver). */
  def create(sc: SparkContext): FooterMetrics = {
    val m = new FooterMetrics(
      SQLMetrics.createMetric(sc, "footers read via FlatBuffers"),
      SQLMetrics.createMetric(sc, "footers read via Thrift"),
      SQLMetrics.createMetric(sc, "footer extension fallbacks"),
      SQLMetrics.createNanoTimingMetric(sc, "footer decode time"))
    all.add(m)
    m
  }

  private def totals(ms: Seq[FooterMetrics]): Map[String, Long] =
    Keys.map(k => ReportNames(k) -> ms.map(_.sqlMetrics(k).value).sum).toMap

  /** Totals over every scan and schema inference since the last `reset` (decode time in ns). */
  def snapshot(): Map[String, Long] = totals(all.asScala.toSeq)

  /** The footer metrics of the scan nodes of an executed plan (AQE stages and subqueries too). */
  def ofPlan(plan: SparkPlan): Map[String, Long] = totals(PlanWalker.footerScans(plan).map(_.footerMetrics))

  def snapshotJson(): String = toJson(snapshot())

  def ofPlanJson(plan: SparkPlan): String = toJson(ofPlan(plan))

  private def toJson(m: Map[String, Long]): String =
    Keys.map(ReportNames).map(k => s""""$k": ${m(k)}""").mkString("{", ", ", "}")

  def reset(): Unit = all.clear()

  private object PlanWalker extends AdaptiveSparkPlanHelper {
    def footerScans(plan: SparkPlan): Seq[FooterScanExec] = collectWithSubqueries(plan) { case s: FooterScanExec => s }
  }
}
