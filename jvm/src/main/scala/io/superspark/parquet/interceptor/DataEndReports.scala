package io.superspark.parquet.interceptor

import scala.collection.mutable.ArrayBuffer

import org.apache.spark.{SparkContext, SparkEnv}
import org.apache.spark.util.AccumulatorV2

/**
 * A scan's reports, from the executors to the driver, of the footers their caches hold: each
 * file's path, length and data end ([[FooterCache.dataEnd]]), added by a task that opened the
 * footer through the cache. Spark merges each task's reports into the driver's instance as the
 * task ends, and that merge notes them in the driver's [[FooterCache]] (`noteReported`), where
 * [[FooterSplitPacking]] weighs the next scan's splits by them. So on a cluster a scan after the
 * first is packed as in local mode, where the driver's cache is the executors'. A task in the
 * driver's JVM (local mode) reports nothing: its cache is the driver's.
 *
 * A report says the footer was cached when the task opened it; the executor may evict it later, and
 * a packed task may run where it is not cached: it then reads that footer again, the same bytes
 * its file's own task would have read (a hint for packing, never for reading). A footer read
 * again by a later scan is reported again, which keeps it among the driver's most recent.
 */
private[superspark] final class DataEndReports extends AccumulatorV2[(String, Long, Long), Int] {
  private val reports = ArrayBuffer.empty[(String, Long, Long)]

  override def isZero: Boolean = synchronized(reports.isEmpty)
  override def copy(): DataEndReports = {
    val c = new DataEndReports
    synchronized(c.reports ++= reports)
    c
  }
  override def reset(): Unit = synchronized(reports.clear())
  override def add(v: (String, Long, Long)): Unit = synchronized(reports += v)
  /** On the driver, a task's reports: noted in the driver's cache, not kept here. */
  override def merge(other: AccumulatorV2[(String, Long, Long), Int]): Unit = other match {
    case o: DataEndReports => o.synchronized(o.reports.toList).foreach { case (path, length, end) =>
      FooterCache.noteReported(path, length, end)
    }
    case _ =>
  }
  /** The reports this instance holds: a task's own, before they reach the driver. */
  override def value: Int = synchronized(reports.size)

  /** In a task: reports the footer of `path` of `length` bytes if this executor's cache holds it. */
  def report(path: String, length: Long): Unit = {
    val env = SparkEnv.get
    // "driver": SparkContext.DRIVER_IDENTIFIER (private to Spark)
    if (env != null && env.executorId != "driver") {
      FooterCache.dataEnd(path, length).foreach(end => add((path, length, end)))
    }
  }
}

private[superspark] object DataEndReports {
  /** A scan's reports, registered with the SparkContext (call on the driver; unnamed: not shown). */
  def create(sc: SparkContext): DataEndReports = {
    val r = new DataEndReports
    sc.register(r)
    r
  }
}
