package io.superspark.parquet.interceptor

import java.util.concurrent.ConcurrentLinkedQueue

import scala.jdk.CollectionConverters._

import org.apache.spark.SparkContext
import org.apache.spark.util.LongAccumulator

import io.superspark.parquet.footer.{FooterReadResult, FooterSource}

/**
 * Counters of one scan (or one schema inference): named accumulators, so they show in the
 * Spark UI's stage pages ("superspark footer ..."), and registered in [[FooterMetrics]] so
 * the totals can be queried from the driver (`FooterMetrics.snapshot`).
 */
final class FooterMetrics private (
    val flatBuffer: LongAccumulator,
    val thrift: LongAccumulator,
    val fallbacks: LongAccumulator,
    val decodeNanos: LongAccumulator) extends Serializable {

  def record(result: FooterReadResult, nanos: Long): Unit = {
    result.source match {
      case FooterSource.FlatBuffer => flatBuffer.add(1)
      case FooterSource.Thrift => thrift.add(1)
    }
    if (result.fallback.isDefined) fallbacks.add(1)
    decodeNanos.add(nanos)
  }
}

object FooterMetrics {
  private val all = new ConcurrentLinkedQueue[FooterMetrics]()

  /** New counters for one scan, registered with the SparkContext (call on the driver). */
  def create(sc: SparkContext): FooterMetrics = {
    def acc(name: String) = sc.longAccumulator(s"superspark footer $name")
    val m = new FooterMetrics(acc("via FlatBuffers"), acc("via Thrift"), acc("fallbacks"), acc("decode time (ns)"))
    all.add(m)
    m
  }

  /** Totals since the last reset: footers_flatbuffer, footers_thrift, fallbacks, decode_ns. */
  def snapshot(): Map[String, Long] = {
    val ms = all.asScala.toSeq
    Map(
      "footers_flatbuffer" -> ms.map(_.flatBuffer.value.longValue).sum,
      "footers_thrift" -> ms.map(_.thrift.value.longValue).sum,
      "fallbacks" -> ms.map(_.fallbacks.value.longValue).sum,
      "decode_ns" -> ms.map(_.decodeNanos.value.longValue).sum)
  }

  /** The same as a JSON object (for Python). */
  def snapshotJson(): String = snapshot().map { case (k, v) => s""""$k": $v""" }.mkString("{", ", ", "}")

  def reset(): Unit = all.clear()
}
