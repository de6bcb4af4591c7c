package io.superspark.parquet.interceptor

import org.apache.spark.sql.catalyst.TableIdentifier
import org.apache.spark.sql.catalyst.expressions.{Attribute, Expression}
import org.apache.spark.sql.connector.read.streaming.SparkDataStream
import org.apache.spark.sql.execution.FileSourceScanExec
import org.apache.spark.sql.execution.datasources.HadoopFsRelation
import org.apache.spark.sql.types.StructType
import org.apache.spark.util.collection.BitSet

/**
 * Spark's `FileSourceScanExec` (the Spark 4.3 constructor) over a [[FooterScanFormat]]
 * that carries `footerMetrics`, with those counters among the node's SQL metrics
 * ([[FooterScanExecBase]]).
 */
private[superspark] class FooterScanExec(
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
    markedForSingleTaskExecution: Boolean)(val footerMetrics: FooterSQLMetrics)
  extends FileSourceScanExec(relation, stream, output, requiredSchema, partitionFilters, optionalBucketSet,
    optionalNumCoalescedBuckets, dataFilters, tableIdentifier, disableBucketedScan, markedForSingleTaskExecution)
  with FooterScanExecBase {
  // Spark 4.3 runs a scan marked for single-task execution as one task: its partitions are Spark's.
  override protected def mayPackSplits: Boolean = !useSingleTaskExecution
}

private[superspark] object FooterScanExec {
  /** The scan with a fresh set of counters, given to its file format and to its metrics. */
  def apply(scan: FileSourceScanExec): FooterScanExec = {
    val metrics = FooterSQLMetrics.create(scan.session.sparkContext)
    val relation = scan.relation.copy(fileFormat =
      scan.relation.fileFormat.asInstanceOf[FooterScanFormat].withScanMetrics(metrics))(scan.relation.sparkSession)
    new FooterScanExec(relation, scan.stream, scan.output, scan.requiredSchema, scan.partitionFilters,
      scan.optionalBucketSet, scan.optionalNumCoalescedBuckets, scan.dataFilters, scan.tableIdentifier,
      scan.disableBucketedScan, scan.markedForSingleTaskExecution)(metrics)
  }
}
