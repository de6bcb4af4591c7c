package io.superspark.parquet.footer.writers

import java.net.URI

import scala.jdk.CollectionConverters._

import org.apache.hadoop.fs.FileSystem
import org.apache.spark.SparkContext
import org.apache.spark.sql.superspark.{SparkInternals, SuperSparkSQLConf}
import org.slf4j.LoggerFactory

import io.superspark.parquet.footer.codec.FooterForm

/**
 * Turns [[EveryWriter]] on for an application when `spark.superspark.parquet.footer.everyWriter`
 * is true in its Spark conf: sets the wrapped schemes' `fs.<scheme>.impl` and the settings in the
 * driver's Hadoop configuration, from which every job's configuration (and so every task's, on
 * every executor) is copied. Called by the extension when a session starts.
 */
private[superspark] object EveryWriterSetup {
  private val log = LoggerFactory.getLogger(getClass)

  /** The application runs with `spark.superspark.parquet.footer.everyWriter`. */
  def enabled(sc: SparkContext): Boolean = sc.getConf.getBoolean(SuperSparkSQLConf.EveryWriter.key, false)

  def install(): Unit = SparkInternals.activeContext.foreach(install)

  def install(sc: SparkContext): Unit = if (enabled(sc)) synchronized {
    val conf = sc.getConf
    val formName = conf.get(SuperSparkSQLConf.FooterForm.key, "private").trim.toLowerCase(java.util.Locale.ROOT)
    val form = FooterForm.parse(formName).filter(_ != FooterForm.Plain).getOrElse(throw new IllegalArgumentException(
      s"${SuperSparkSQLConf.FooterForm.key}=$formName: expected one of ${SuperSparkSQLConf.FooterFormValues.mkString(", ")}"))
    val maxTail = conf.getSizeAsBytes(SuperSparkSQLConf.EveryWriterMaxTailBytes.key, "64m")
    val schemes = conf.get(SuperSparkSQLConf.EveryWriterSchemes.key, SuperSparkSQLConf.EveryWriterSchemesDefault)
      .split(",").map(_.trim.toLowerCase(java.util.Locale.ROOT)).filter(_.nonEmpty).toSeq
    EveryWriter.configure(sc.hadoopConfiguration, schemes, form, maxTail)
    // A local file system made before this (Spark's start-up) sits in Hadoop's cache, which is
    // keyed by scheme, not by class: close it so the next `FileSystem.get` makes the wrapper.
    val local = FileSystem.get(URI.create("file:///"), sc.hadoopConfiguration)
    if (!local.isInstanceOf[EveryWriterLocalFileSystem]) local.close()
    log.info(s"every writer: Parquet files written through ${schemes.mkString(", ")} get the $form footer form " +
      s"(held tail at most $maxTail bytes per open file)")
  }

  /** [[EveryWriter.applicationCounts]] as JSON, for Python; `jvm`: this JVM's own counts only. */
  def countsJson(jvm: Boolean): String = jsonObject(if (jvm) EveryWriter.counts else EveryWriter.applicationCounts)

  private def jsonObject(counts: Map[String, Long]): String =
    counts.toSeq.sortBy(_._1).map { case (k, v) => s""""$k": $v""" }.mkString("{", ", ", "}")
  def reset(): Unit = EveryWriter.reset()

  /**
   * The SQL metrics of the write commands' `EveryWriterFooter` nodes ([[EveryWriterQueryMetrics]]),
   * as the SQL tab shows them, once the listener bus has delivered the events posted so far: a
   * JSON list of `{"execution": id, "description": "...", "counts": {...}}` (counters above zero),
   * one per SQL execution with the node, by execution id.
   */
  def queryCountsJson(): String = SparkInternals.activeContext.fold("[]") { sc =>
    SparkInternals.drainListenerBus(sc, 60000L)
    val store = SparkInternals.sqlStatusStore(sc)
    val counterOf = EveryWriterQueryMetrics.Descriptions.map(_.swap).toMap
    val entries = store.executionsList().sortBy(_.executionId).flatMap { e =>
      val metrics = scala.util.Try(store.planGraph(e.executionId)).toOption.toSeq
        .flatMap(_.allNodes).filter(_.name == EveryWriterQueryMetrics.NodeName).flatMap(_.metrics)
      if (metrics.isEmpty) None
      else {
        val values = store.executionMetrics(e.executionId)
        val counts = metrics.flatMap { m =>
          counterOf.get(m.name).map(_ -> values.get(m.accumulatorId).fold(0L)(v => v.replaceAll("[^0-9]", "").toLong))
        }.groupMapReduce(_._1)(_._2)(_ + _).filter(_._2 > 0)
        val entry = new java.util.LinkedHashMap[String, Any]()
        entry.put("execution", e.executionId)
        entry.put("description", e.description)
        entry.put("counts", new java.util.TreeMap[String, Long](counts.asJava))
        Some(entry)
      }
    }
    new com.fasterxml.jackson.databind.ObjectMapper().writeValueAsString(entries.asJava)
  }

  /**
   * The write metrics summed per stage ([[EveryWriterPlugin.StageCounts]]) as a JSON list of
   * `{"stage": id, "attempt": n, "counts": {...}}`, once the listener bus has delivered the events
   * posted so far; an empty list without the plugin.
   */
  def stageCountsJson(): String = {
    SparkInternals.activeContext.foreach(sc => SparkInternals.drainListenerBus(sc, 60000L))
    EveryWriterPlugin.driverStages.fold(Seq.empty[(Int, Int, Map[String, Long])])(_.snapshot).map { case (s, a, m) =>
      s"""{"stage": $s, "attempt": $a, "counts": ${jsonObject(m)}}"""
    }.mkString("[", ", ", "]")
  }
}
