package io.superspark.parquet.interceptor.v2

import scala.util.control.NonFatal

import org.apache.parquet.hadoop.metadata.ParquetMetadata
import org.apache.spark.TaskContext
import org.apache.spark.broadcast.Broadcast
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.connector.expressions.aggregate.Aggregation
import org.apache.spark.sql.connector.read.{InputPartition, PartitionReader}
import org.apache.spark.sql.execution.datasources.{AggregatePushDownUtils, DataSourceUtils, PartitionedFile}
import org.apache.spark.sql.execution.datasources.parquet.ParquetOptions
import org.apache.spark.sql.superspark.ParquetAggregates
import org.apache.spark.sql.types.StructType
import org.apache.spark.sql.vectorized.ColumnarBatch
import org.apache.spark.util.SerializableConfiguration

import io.superspark.parquet.interceptor.{FooterSQLMetrics, FooterOpener}

/**
 * Aggregate pushdown (`spark.sql.parquet.aggregatePushdown`) answered from footers read
 * through the footer library: Spark 4.3.0's `ParquetPartitionReaderFactory` aggregate readers
 * (one row, or one batch of one row, per file, from the statistics of the row groups whose
 * midpoint lies in the split) with the footer from [[FooterOpener]] (all columns, the split's
 * row groups; Spark's `ParquetFooterReader` when the library cannot read the file).
 */
// `parquetOptions` serves `ignoreCorruptFiles`/`ignoreMissingFiles` only: its parameters are
// transient, so the rebase mode is taken on the driver (as Spark's factory does).
private[superspark] class FooterAggregateReaderFactory(
    broadcastedConf: Broadcast[SerializableConfiguration],
    dataSchema: StructType,
    aggSchema: StructType,
    partitionSchema: StructType,
    aggregation: Aggregation,
    parquetOptions: ParquetOptions,
    datetimeRebaseModeInRead: String,
    columnar: Boolean,
    offHeap: Boolean,
    caseSensitive: Boolean,
    strict: Boolean,
    cacheBytes: Long,
    metrics: FooterSQLMetrics) extends FooterCountingReaderFactory {

  override def options: ParquetOptions = parquetOptions

  override def supportColumnarReads(partition: InputPartition): Boolean = columnar

  private def footer(file: PartitionedFile): ParquetMetadata = {
    val conf = broadcastedConf.value.value
    FooterOpener.open(conf, file.toPath, file.start, file.length, keepOpen = true, columns = None, caseSensitive,
        strict, metrics, cacheBytes) match {
      case Some(opened) =>
        opened.inputStream.foreach(s => try s.close() catch { case NonFatal(_) => })
        opened.footer
      case None =>
        org.apache.spark.sql.superspark.SparkLineShims.readAggregateFooter(conf, file) // Hook: the line's footer read
    }
  }

  /** The file's aggregate row (null when it has no row group in the split), as Spark computes it. */
  private def aggregateRow(file: PartitionedFile): InternalRow = {
    val md = footer(file)
    if (md != null && md.getBlocks.size > 0) {
      val rebase = DataSourceUtils.datetimeRebaseSpec(md.getFileMetaData.getKeyValueMetaData.get,
        datetimeRebaseModeInRead)
      ParquetAggregates.rowFromFooter(md, file.urlEncodedPath, dataSchema, partitionSchema, aggregation, aggSchema,
        file.partitionValues, rebase)
    } else {
      null
    }
  }

  // The footer is read here, while the reader is built, so the partition reader counts it.
  override def buildReader(file: PartitionedFile): PartitionReader[InternalRow] =
    new SingleValueReader(aggregateRow(file))

  override def buildColumnarReader(file: PartitionedFile): PartitionReader[ColumnarBatch] = {
    val row = aggregateRow(file)
    new SingleValueReader(if (row == null) null
      else AggregatePushDownUtils.convertAggregatesRowToBatch(row, aggSchema, offHeap && TaskContext.get() != null))
  }
}

/** A partition reader of at most one value (none when `value` is null). */
private class SingleValueReader[T <: AnyRef](value: T) extends PartitionReader[T] {
  private var hasNext = value != null

  override def next(): Boolean = {
    val n = hasNext
    hasNext = false
    n
  }

  override def get(): T = value

  override def close(): Unit = ()
}
