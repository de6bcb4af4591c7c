package io.superspark.parquet.interceptor

import org.apache.spark.sql.execution.FileSourceScanExec
import org.apache.spark.sql.execution.metric.SQLMetric

/**
 * What every line's [[FooterScanExec]] adds to Spark's `FileSourceScanExec` (whose constructor
 * differs between Spark lines, so the class itself lives in `jvm/src/main/spark-<line>/`): the
 * footer counters as SQL metrics, and a `FooterLibrary` entry in `EXPLAIN`. Planning, execution
 * and codegen are Spark's. Tree copies keep the node (`otherCopyArgs`); an explicit `copy` gives back a plain
 * scan that still counts, unseen.
 */
private[superspark] trait FooterScanExecBase extends FileSourceScanExec {
  def footerMetrics: FooterSQLMetrics

  override protected def otherCopyArgs: Seq[AnyRef] = footerMetrics :: Nil

  override lazy val metrics: Map[String, SQLMetric] = super.metrics ++ footerMetrics.sqlMetrics

  // EXPLAIN: the footer library reads this scan's footers, with or without the footer cache
  // (after Spark's entries; `metadata` is a lazy val, which an override cannot extend).
  override def simpleString(maxFields: Int): String =
    s"${super.simpleString(maxFields)}, FooterLibrary: ${FooterInterceptorConf.explain(conf)}"

  // Never equal to Spark's own node, or tree transforms would keep the original child.
  override def canEqual(other: Any): Boolean = other.isInstanceOf[FooterScanExecBase]

  override def equals(other: Any): Boolean = other match {
    case o: FooterScanExecBase => super.equals(o)
    case _ => false
  }

  override def hashCode(): Int = super.hashCode()
}
