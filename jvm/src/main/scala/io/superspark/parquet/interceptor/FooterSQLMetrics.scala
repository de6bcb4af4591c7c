package io.superspark.parquet.interceptor

import java.util.concurrent.atomic.AtomicLong

import org.apache.spark.SparkContext
import org.apache.spark.sql.execution.SparkPlan
import org.apache.spark.sql.execution.adaptive.AdaptiveSparkPlanHelper
import org.apache.spark.sql.execution.metric.{SQLMetric, SQLMetrics}
import org.apache.spark.sql.superspark.TotalingSQLMetric

import io.superspark.parquet.footer.files.{FooterReadResult, FooterSource}

/**
 * Footer counters of one scan (or one schema inference), as SQL metrics. A scan's counters
 * are the SQL metrics of its [[FooterScanExec]] node, so they show on the scan node of the
 * Spark UI's SQL tab next to Spark's own ("footers read via FlatBuffers", ...), and live as
 * long as the plan does. Every value they receive on the driver also goes to the driver-wide
 * totals, a fixed set of counters (`FooterSQLMetrics.snapshot`): nothing is kept per scan.
 * `dataEnds` is no metric: the footers the scan's executors cached, reported to the driver for
 * the next scan's split packing ([[DataEndReports]]).
 */
private[superspark] final class FooterSQLMetrics private (
    val flatBuffer: SQLMetric,
    val thrift: SQLMetric,
    val fallbacks: SQLMetric,
    val decodeTime: SQLMetric,
    val alpChunks: SQLMetric,
    val alpFallbacks: SQLMetric,
    val cacheHits: SQLMetric,
    val cacheMisses: SQLMetric,
    val bytesRead: SQLMetric,
    val dataEnds: DataEndReports) extends Serializable {

  /**
   * One footer open's cache outcome and the footer bytes it read from storage (the tail, the
   * extension part or the whole footer; 0 on a hit). `cached`: None when the cache is off.
   */
  def recordRead(cached: Option[Boolean], bytes: Long): Unit = {
    cached.foreach(hit => if (hit) cacheHits.add(1) else cacheMisses.add(1))
    bytesRead.add(bytes)
  }

  def record(result: FooterReadResult, nanos: Long): Unit = {
    result.source match {
      case FooterSource.FlatBuffer => flatBuffer.add(1)
      case FooterSource.Thrift => thrift.add(1)
    }
    if (result.fallback.isDefined) fallbacks.add(1)
    decodeTime.add(nanos)
  }

  /** The node's SQL metrics, by the keys [[FooterSQLMetrics.Keys]] names. */
  def sqlMetrics: Map[String, SQLMetric] = FooterSQLMetrics.Keys.zip(Seq(flatBuffer, thrift, fallbacks, decodeTime)).toMap ++
    Map(FooterSQLMetrics.AlpChunksKey -> alpChunks, FooterSQLMetrics.AlpFallbacksKey -> alpFallbacks) ++
    FooterSQLMetrics.CacheKeys.zip(Seq(cacheHits, cacheMisses, bytesRead))
}

private[superspark] object FooterSQLMetrics {
  /** Metric keys on the scan node (Spark style). */
  val Keys: Seq[String] = Seq("footersFlatBuffer", "footersThrift", "footerFallbacks", "footerDecodeTime")

  /** ALP column chunks decoded into the scan's batches, and ALP columns read from their ordinary chunks instead. */
  val AlpChunksKey = "alpColumnChunks"
  val AlpFallbacksKey = "alpFallbacks"

  /**
   * The footer cache's counters ([[FooterCache]]) and the footer bytes read from storage, on the
   * scan node next to the keys above; reported apart from them (`cacheSnapshot`, `cacheOfPlan`).
   */
  val CacheKeys: Seq[String] = Seq("footerCacheHits", "footerCacheMisses", "footerBytesRead")
  private val CacheReportNames = CacheKeys.zip(Seq("cache_hits", "cache_misses", "bytes_read")).toMap

  /** The same counters in `snapshot`/`ofPlan` and for Python (decode time in nanoseconds). */
  private val ReportNames = Keys.zip(Seq("footers_flatbuffer", "footers_thrift", "fallbacks", "decode_ns")).toMap

  /** Driver-wide totals since the last `reset`, one counter per key: bounded whatever the number of scans. */
  private val flatBufferTotal = new AtomicLong
  private val thriftTotal = new AtomicLong
  private val fallbacksTotal = new AtomicLong
  private val decodeNanosTotal = new AtomicLong
  private val cacheHitsTotal = new AtomicLong
  private val cacheMissesTotal = new AtomicLong
  private val bytesReadTotal = new AtomicLong
  private val totals = Keys.zip(Seq(flatBufferTotal, thriftTotal, fallbacksTotal, decodeNanosTotal)).toMap ++
    CacheKeys.zip(Seq(cacheHitsTotal, cacheMissesTotal, bytesReadTotal))

  /** New counters for one scan, registered with the SparkContext (call on the driver). */
  def create(sc: SparkContext): FooterSQLMetrics = new FooterSQLMetrics(
    TotalingSQLMetric.sum(sc, "footers read via FlatBuffers", flatBufferTotal),
    TotalingSQLMetric.sum(sc, "footers read via Thrift", thriftTotal),
    TotalingSQLMetric.sum(sc, "footer extension fallbacks", fallbacksTotal),
    TotalingSQLMetric.nanoTiming(sc, "footer decode time", decodeNanosTotal),
    SQLMetrics.createMetric(sc, "ALP column chunks decoded"),
    SQLMetrics.createMetric(sc, "ALP columns read from ordinary chunks"),
    TotalingSQLMetric.sum(sc, "footer cache hits", cacheHitsTotal),
    TotalingSQLMetric.sum(sc, "footer cache misses", cacheMissesTotal),
    TotalingSQLMetric.sum(sc, "footer bytes read", bytesReadTotal),
    DataEndReports.create(sc))

  /** The ALP counters of the scan nodes of an executed plan: (column chunks decoded, fallbacks). */
  def alpOfPlan(plan: SparkPlan): (Long, Long) = {
    val scans = PlanWalker.footerScans(plan).map(_.footerMetrics)
    (scans.map(_.alpChunks.value).sum, scans.map(_.alpFallbacks.value).sum)
  }

  def alpOfPlanJson(plan: SparkPlan): String = {
    val (chunks, fallbacks) = alpOfPlan(plan)
    s"""{"alp_column_chunks": $chunks, "alp_fallbacks": $fallbacks}"""
  }

  /**
   * Totals over every scan and schema inference of the driver since the last `reset` (decode
   * time in ns). Task updates count once their task has finished.
   */
  def snapshot(): Map[String, Long] = Keys.map(k => ReportNames(k) -> totals(k).get).toMap

  /** The footer metrics of the scan nodes of an executed plan (AQE stages and subqueries too). */
  def ofPlan(plan: SparkPlan): Map[String, Long] = {
    val scans = PlanWalker.footerScans(plan).map(_.footerMetrics)
    Keys.map(k => ReportNames(k) -> scans.map(_.sqlMetrics(k).value).sum).toMap
  }

  def snapshotJson(): String = toJson(snapshot())

  /**
   * The cache counters and footer bytes read: driver-wide totals since the last `reset`, plus
   * the bytes and entries the driver JVM's cache holds now (`held_bytes`, `entries`, `evictions`).
   */
  def cacheSnapshot(): Map[String, Long] = CacheKeys.map(k => CacheReportNames(k) -> totals(k).get).toMap ++
    Map("held_bytes" -> FooterCache.heldBytes, "entries" -> FooterCache.size.toLong,
      "evictions" -> FooterCache.evictionCount)

  /** The cache counters and footer bytes read of the scan nodes of an executed plan. */
  def cacheOfPlan(plan: SparkPlan): Map[String, Long] = {
    val scans = PlanWalker.footerScans(plan).map(_.footerMetrics)
    CacheKeys.map(k => CacheReportNames(k) -> scans.map(_.sqlMetrics(k).value).sum).toMap
  }

  def cacheSnapshotJson(): String = plainJson(cacheSnapshot())

  def cacheOfPlanJson(plan: SparkPlan): String = plainJson(cacheOfPlan(plan))

  private def plainJson(m: Map[String, Long]): String =
    m.toSeq.sortBy(_._1).map { case (k, v) => s""""$k": $v""" }.mkString("{", ", ", "}")

  def ofPlanJson(plan: SparkPlan): String = toJson(ofPlan(plan))

  private def toJson(m: Map[String, Long]): String =
    Keys.map(ReportNames).map(k => s""""$k": ${m(k)}""").mkString("{", ", ", "}")

  def reset(): Unit = totals.values.foreach(_.set(0))

  private object PlanWalker extends AdaptiveSparkPlanHelper {
    def footerScans(plan: SparkPlan): Seq[FooterScanExec] = collectWithSubqueries(plan) { case s: FooterScanExec => s }
  }
}
