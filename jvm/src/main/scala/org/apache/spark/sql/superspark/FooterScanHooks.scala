package org.apache.spark.sql.superspark

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.Path
import org.apache.hadoop.mapreduce.task.TaskAttemptContextImpl
import org.apache.parquet.filter2.compat.FilterCompat
import org.apache.parquet.hadoop.ParquetRecordReader
import org.apache.parquet.hadoop.api.ReadSupport
import org.apache.parquet.hadoop.metadata.ParquetMetadata
import org.apache.parquet.hadoop.util.HadoopInputFile
import org.apache.parquet.io.SeekableInputStream
import org.apache.parquet.schema.MessageType
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.execution.datasources.parquet.VectorizedParquetRecordReader
import org.apache.spark.sql.types.StructType

/**
 * A footer ready for Spark's readers: what they are given (`footer`), the file, its stream when
 * the opener kept it open, and the file's own schema (with the logical types Spark is not shown).
 */
trait ScanFooter {
  def footer: ParquetMetadata
  def inputFile: HadoopInputFile
  def inputStream: Option[SeekableInputStream]
  def fileSchema: MessageType
}

/**
 * Columns a file adds to the batches of Spark's vectorized reader (superspark's ALP columns).
 * Owns what it opened until `wrap` hands it to the iterator it returns; `close` closes it
 * otherwise (idempotent).
 */
trait BatchColumns {
  /** The task context Spark's reader is initialized with. */
  def context(context: TaskAttemptContextImpl): TaskAttemptContextImpl
  /** The file's rows or batches: Spark's reader's `iter`, or its batches joined with these columns. */
  def wrap(reader: VectorizedParquetRecordReader, iter: Iterator[_]): Iterator[InternalRow]
  def close(): Unit
}

/**
 * The footer library's part in [[ParquetReaderCopy]], at its `Ours:` marks: the contract between
 * the marked copy of Spark's reader and superspark's interceptor, in Spark's, Hadoop's and
 * parquet-java's types only. The interceptor implements it (`InterceptorScanHooks`) and passes one
 * per scan or schema inference, made on the driver (settings and metrics fixed then) and shipped
 * with the reader function. This package names nothing of `io.superspark`, so the dependency runs
 * one way (PackageCyclesSuite).
 */
trait FooterScanHooks extends Serializable {

  /**
   * FLOAT16 columns: the schema Spark's reader reads instead of `required` (those columns as
   * binary) and what turns its rows or batches into `required`'s. None: `required` has none.
   */
  def float16(required: StructType, partitionSchema: StructType)
      : Option[(StructType, Iterator[InternalRow] => Iterator[InternalRow])]

  /**
   * Opens `path`'s footer through the footer library: for the split [start, start + length)
   * with the stream kept open (`keepOpen`), or its schema and key-value metadata only.
   * `columns`: the top-level columns read (None: all). None: the library cannot read the footer
   * bytes at all, and Spark's own reader opens the file, with Spark's own errors.
   */
  def openFooter(conf: Configuration, path: Path, start: Long, length: Long, keepOpen: Boolean,
      columns: Option[Seq[String]], caseSensitive: Boolean): Option[ScanFooter]

  /**
   * Settings of parquet-java's reader for one file, made on `conf`, the file's own copy of the
   * task's configuration (the one Spark's reader of that file is built from), once its footer is open.
   */
  def readerSettings(conf: Configuration, footer: ScanFooter): Unit

  /**
   * A scan's extra batch columns per file (`enabled`: the vectorized reader, columns matched by name).
   * The returned function is made on the driver and shipped with the reader function.
   */
  def batchColumns(enabled: Boolean, required: StructType, partitionColumns: Int, capacity: Int,
      offHeapEnabled: Boolean, caseSensitive: Boolean, returningBatch: Boolean)
      : (Path, ScanFooter, Configuration) => BatchColumns

  /**
   * parquet-java's row-based reader for a footer the library opened, given that footer and its
   * stream (no second footer read). None: parquet-java's own reader opens the file.
   */
  def recordReader(readSupport: ReadSupport[InternalRow], filter: FilterCompat.Filter,
      footer: ScanFooter): Option[ParquetRecordReader[InternalRow]]

  /** The schema Spark's converter is given: without the logical types it refuses (UUID). */
  def forSpark(schema: MessageType): MessageType
  def forSpark(footer: ParquetMetadata): ParquetMetadata

  /** Spark's schema of a file, with the file schema's logical types kept as field metadata. */
  def tag(schema: StructType, fileSchema: MessageType): StructType
}
