package io.superspark.parquet.interceptor.v2

import org.apache.spark.sql.connector.metric.CustomTaskMetric

import io.superspark.parquet.interceptor.FooterReadSink
import io.superspark.parquet.footer.files.{FooterReadResult, FooterSource}

/** One task's value of a footer custom metric ([[FooterCustomMetrics]]). */
private[superspark] final case class FooterTaskMetric(name: String, value: Long) extends CustomTaskMetric

/**
 * The footer counts of one DSv2 partition reader (all files of its input partition). While a
 * file's reader is being built inside [[during]], every footer `FooterOpener` decodes on this
 * thread is counted here (besides the scan's accumulators).
 */
private[superspark] final class FooterTaskCounters extends FooterReadSink {
  private var flatBuffer = 0L
  private var thrift = 0L
  private var fallbacks = 0L
  private var decodeNanos = 0L

  override def record(result: FooterReadResult, nanos: Long): Unit = {
    result.source match {
      case FooterSource.FlatBuffer => flatBuffer += 1
      case FooterSource.Thrift => thrift += 1
    }
    if (result.fallback.isDefined) fallbacks += 1
    decodeNanos += nanos
  }

  /** Runs `body` with this object as the sink of the current thread's footer reads. */
  def during[T](body: => T): T = {
    FooterReadSink.during(this)(body)
  }

  def values: Array[CustomTaskMetric] = Array(
    FooterTaskMetric(FooterCustomMetrics.FlatBuffer, flatBuffer),
    FooterTaskMetric(FooterCustomMetrics.Thrift, thrift),
    FooterTaskMetric(FooterCustomMetrics.Fallbacks, fallbacks),
    FooterTaskMetric(FooterCustomMetrics.DecodeTime, decodeNanos))
}

