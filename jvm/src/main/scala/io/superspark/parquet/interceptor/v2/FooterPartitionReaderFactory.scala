package io.superspark.parquet.interceptor.v2

import java.io.Closeable

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.catalyst.{FileSourceOptions, InternalRow}
import org.apache.spark.sql.connector.metric.CustomTaskMetric
import org.apache.spark.sql.connector.read.{InputPartition, PartitionReader}
import org.apache.spark.sql.execution.datasources.{FilePartition, PartitionedFile}
import org.apache.spark.sql.execution.datasources.v2.{FilePartitionReader, FilePartitionReaderFactory}
import org.apache.spark.sql.vectorized.ColumnarBatch

/**
 * A `FilePartitionReaderFactory` whose partition readers (Spark's `FilePartitionReader` over
 * the partition's files) report, as custom metrics, the footers decoded while the reader of
 * each file was built ([[FooterTaskCounters]]). Subclasses read each footer in `buildReader` /
 * `buildColumnarReader`, not later.
 */
private[superspark] abstract class FooterCountingReaderFactory extends FilePartitionReaderFactory {

  override def createReader(partition: InputPartition): PartitionReader[InternalRow] =
    counted(partition, buildReader)

  override def createColumnarReader(partition: InputPartition): PartitionReader[ColumnarBatch] =
    counted(partition, buildColumnarReader)

  private def counted[T](
      partition: InputPartition,
      build: PartitionedFile => PartitionReader[T]): PartitionReader[T] = {
    assert(partition.isInstanceOf[FilePartition])
    val files = partition.asInstanceOf[FilePartition].files
    val counters = new FooterTaskCounters
    new FilePartitionReader[T](files.iterator, file => counters.during(build(file)), options) {
      override def currentMetricsValues(): Array[CustomTaskMetric] = counters.values
    }
  }
}

/**
 * DSv2 partition readers over the DSv1 reader function of the interceptor
 * (`ParquetReaderCopy.buildReader`): per file, `read(file)` gives the rows (or, when
 * `columnar`, the column batches) of the file's split with the partition values appended, as
 * it does for `FileSourceScanExec`. Each partition reader reports the footers decoded for its
 * files as custom metrics ([[FooterCustomMetrics]]).
 */
private[superspark] class FooterPartitionReaderFactory(
    read: PartitionedFile => Iterator[InternalRow],
    columnar: Boolean,
    override val options: FileSourceOptions) extends FooterCountingReaderFactory {

  override def supportColumnarReads(partition: InputPartition): Boolean = columnar

  override def buildReader(file: PartitionedFile): PartitionReader[InternalRow] = {
    val it = read(file)
    // A batch-returning reader also serves row reads (Spark asks for rows only if columnar
    // reads are off, but a row view of the batches keeps this correct either way).
    val rows = if (columnar) it.asInstanceOf[Iterator[ColumnarBatch]].flatMap(_.rowIterator().asScala) else it
    new IteratorPartitionReader(rows, it)
  }

  override def buildColumnarReader(file: PartitionedFile): PartitionReader[ColumnarBatch] = {
    if (!columnar) super.buildColumnarReader(file)
    else {
      val it = read(file)
      new IteratorPartitionReader(it.asInstanceOf[Iterator[ColumnarBatch]], it)
    }
  }

}

/** A partition reader over an iterator; closing closes `source` when it is closeable. */
private class IteratorPartitionReader[T](it: Iterator[T], source: Iterator[_]) extends PartitionReader[T] {
  private var current: T = _

  override def next(): Boolean = it.hasNext && { current = it.next(); true }

  override def get(): T = current

  override def close(): Unit = source match {
    case c: Closeable => c.close()
    case _ =>
  }
}
