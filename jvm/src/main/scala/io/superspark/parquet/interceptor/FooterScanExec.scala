package io.superspark.parquet.interceptor

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.TableIdentifier
import org.apache.spark.sql.catalyst.expressions.{Attribute, Expression}
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.connector.read.streaming.SparkDataStream
import org.apache.spark.sql.execution.{ColumnarRule, FileSourceScanExec, SparkPlan}
import org.apache.spark.sql.execution.datasources.HadoopFsRelation
import org.apache.spark.sql.execution.metric.SQLMetric
import org.apache.spark.sql.types.StructType
import org.apache.spark.util.collection.BitSet

/**
 * Spark's `FileSourceScanExec` (Spark 4.3.0 constructor) over a [[FooterParquetFileFormat]]
 * that carries `footerMetrics`, with those counters added to the node's SQL metrics. Only the
 * metrics differ: planning, execution and codegen are Spark's. Tree copies keep the node
 * (`otherCopyArgs`); an explicit `copy` gives back a plain scan that still counts, unseen.
 */
class FooterScanExec(
    relation: HadoopFsRelation,
    stream: Option[SparkDataStream],
    output: Seq[Attribute],
    requiredSchema: StructType,
    partitionFilters: Seq[Expression],
    optionalBucketSet: Option[BitSet],
    optionalNumCoalescedBuckets: Option[Int],
    dataFilters: Seq[Expression],
    tableIdentifier: Option[TableIdentifier],
    disableBucketedScan: Boolean,
    markedForSingleTaskExecution: Boolean)(val footerMetrics: FooterMetrics)
  extends FileSourceScanExec(relation, stream, output, requiredSchema, partitionFilters, optionalBucketSet,
    optionalNumCoalescedBuckets, dataFilters, tableIdentifier, disableBucketedScan, markedForSingleTaskExecution) {

  override protected def otherCopyArgs: Seq[AnyRef] = footerMetrics :: Nil

  override lazy val metrics: Map[String, SQLMetric] = super.metrics ++ footerMetrics.sqlMetrics

  // Never equal to Spark's own node, or tree transforms would keep the original child.
  override def canEqual(other: Any): Boolean = other.isInstanceOf[FooterScanExec]

  override def equals(other: Any): Boolean = other match {
    case o: FooterScanExec => super.equals(o)
    case _ => false
  }

  override def hashCode(): Int = super.hashCode()
}

object FooterScanExec {
  /** The scan with a fresh set of counters, given to its file format and to its metrics. */
  def apply(scan: FileSourceScanExec): FooterScanExec = {
    val metrics = FooterMetrics.create(scan.session.sparkContext)
    val relation = scan.relation.copy(fileFormat = new FooterParquetFileFormat(Some(metrics)))(scan.relation.sparkSession)
    new FooterScanExec(relation, scan.stream, scan.output, scan.requiredSchema, scan.partitionFilters,
      scan.optionalBucketSet, scan.optionalNumCoalescedBuckets, scan.dataFilters, scan.tableIdentifier,
      scan.disableBucketedScan, scan.markedForSingleTaskExecution)(metrics)
  }
}

/**
 * Physical rule (before columnar transitions): scans of [[FooterParquetFileFormat]] become
 * [[FooterScanExec]] while the read path is on, so their footer counters are SQL metrics.
 */
case class InstrumentFooterScans(session: SparkSession) extends Rule[SparkPlan] {
  override def apply(plan: SparkPlan): SparkPlan = {
    if (!FooterInterceptorConf.readEnabled(conf)) plan
    else plan.transformUp {
      case s: FileSourceScanExec if s.getClass == classOf[FileSourceScanExec] &&
          s.relation.fileFormat.isInstanceOf[FooterParquetFileFormat] => FooterScanExec(s)
    }
  }
}

/** [[InstrumentFooterScans]] as the extension's columnar rule. */
case class FooterScanColumnarRule(session: SparkSession) extends ColumnarRule {
  override def preColumnarTransitions: Rule[SparkPlan] = InstrumentFooterScans(session)
}
