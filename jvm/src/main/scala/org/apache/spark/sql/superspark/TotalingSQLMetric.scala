package org.apache.spark.sql.superspark

import java.util.concurrent.atomic.AtomicLong

import org.apache.spark.SparkContext
import org.apache.spark.sql.execution.metric.SQLMetric
import org.apache.spark.util.AccumulatorV2

/**
 * A SQL metric (shown on its plan node like Spark's own) that also adds every value it receives
 * on the driver to a driver-wide counter `total`: the task updates Spark merges into it at task
 * end, and values added on the driver itself. Executors get a plain `SQLMetric` copy (Spark's
 * `copy`), so nothing is counted twice. Registered as `SQLMetrics.createMetric` /
 * `createNanoTimingMetric` register theirs (`register` is `private[spark]`).
 */
final class TotalingSQLMetric private (metricType: String, initValue: Long, total: AtomicLong)
  extends SQLMetric(metricType, initValue) {

  override def add(v: Long): Unit = {
    super.add(v)
    if (v > 0) total.addAndGet(v)
  }

  override def merge(other: AccumulatorV2[Long, Long]): Unit = {
    super.merge(other)
    other match {
      case o: SQLMetric if !o.isZero => total.addAndGet(o.value)
      case _ =>
    }
  }
}

object TotalingSQLMetric {
  /** Spark 4.3.0's `SumMetric` and `NS_TIMING_METRIC` (private there). */
  private val SumMetric = "sum"
  private val NsTimingMetric = "nsTiming"

  /** A sum metric, as `SQLMetrics.createMetric(sc, name)`. */
  def sum(sc: SparkContext, name: String, total: AtomicLong): SQLMetric =
    registered(new TotalingSQLMetric(SumMetric, 0L, total), sc, name)

  /** A nanosecond timing metric, as `SQLMetrics.createNanoTimingMetric(sc, name)`. */
  def nanoTiming(sc: SparkContext, name: String, total: AtomicLong): SQLMetric =
    registered(new TotalingSQLMetric(NsTimingMetric, -1L, total), sc, name)

  private def registered(m: SQLMetric, sc: SparkContext, name: String): SQLMetric = {
    m.register(sc, Some(name), countFailedValues = false)
    m
  }
}
