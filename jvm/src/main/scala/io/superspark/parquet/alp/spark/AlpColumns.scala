package io.superspark.parquet.alp.spark

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.Path
import org.apache.hadoop.mapreduce.task.TaskAttemptContextImpl
import org.apache.parquet.hadoop.ParquetInputFormat
import org.apache.parquet.io.SeekableInputStream
import org.apache.spark.TaskContext
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.execution.datasources.parquet.{ParquetReadSupport, ParquetWriteSupport, VectorizedParquetRecordReader}
import org.apache.spark.sql.execution.metric.SQLMetric
import org.apache.spark.sql.types.StructType
import org.apache.spark.sql.superspark.{BatchColumns, ScanFooter}

import io.superspark.parquet.footer.files.FooterBytes

/**
 * The ALP columns of one file of a scan (docs/alp.md, "Reading"), around Spark's vectorized
 * reader as `logicaltypes.Float16Columns` is around a scan's reader: the file's [[AlpReadPlan]], the
 * stream that reads its ALP chunks, and the [[AlpBatchReader]] that adds them to Spark's
 * batches. The scan code copied from Spark (`ParquetReaderCopy`) calls it at three marked
 * places: `context` (what Spark's reader reads), `wrap` (the reader's iterator) and `close`
 * (on an error before `wrap` returns). A file with no ALP column gets [[AlpColumns.NoAlp]],
 * which changes nothing.
 *
 * The stream is this object's until `wrap` hands it to the [[AlpBatchReader]] (which closes it
 * with Spark's reader); `close` closes it otherwise. A plan with no ALP column closes it at once.
 */
private[superspark] sealed abstract class AlpColumns extends BatchColumns {
  /** The task context Spark's reader is initialized with: for ALP columns, without them and reading whole row groups. */
  def context(context: TaskAttemptContextImpl): TaskAttemptContextImpl

  /** The file's rows or batches: Spark's reader's `iter`, or its batches with the ALP columns. */
  def wrap(reader: VectorizedParquetRecordReader, iter: Iterator[_]): Iterator[InternalRow]

  /** Closes what `wrap` has not handed over (the ALP stream). Idempotent. */
  def close(): Unit
}

private[superspark] object AlpColumns {

  /** A file without ALP columns (or a scan that reads none). */
  object NoAlp extends AlpColumns {
    override def context(context: TaskAttemptContextImpl): TaskAttemptContextImpl = context
    override def wrap(reader: VectorizedParquetRecordReader, iter: Iterator[_]): Iterator[InternalRow] =
      iter.asInstanceOf[Iterator[InternalRow]]
    override def close(): Unit = ()
  }

  /**
   * A scan's ALP settings, made on the driver and shipped with the reader function.
   * `enabled`: `superspark.parquet.alp.read`, Spark's vectorized reader, columns matched by name.
   * `chunksDecoded`, `fallbacks`: the scan node's counters of ALP column chunks decoded and of
   * ALP columns read from their ordinary chunks instead.
   */
  final case class Scan(enabled: Boolean, required: StructType, partitionColumns: Int, capacity: Int,
      offHeapEnabled: Boolean, caseSensitive: Boolean, returningBatch: Boolean, chunksDecoded: SQLMetric,
      fallbacks: SQLMetric) {

    /**
     * The ALP columns of a file (its split's row groups, `opened.footer`, a footer the footer
     * library opened). The plan reads the whole footer from `wholeFooter` (the interceptor's
     * `FooterOpener.wholeFooter`: the bytes it already holds, and only a Thrift part it skipped,
     * read once through the stream given), then the stream stays open for the ALP chunks.
     * Counts the plan's fallbacks. On error, nothing is left open.
     */
    def open(path: Path, opened: ScanFooter, wholeFooter: SeekableInputStream => FooterBytes,
        conf: Configuration): AlpColumns =
      if (!enabled || !AlpReadPlan.mayHaveAlp(opened.footer) || AlpReadPlan.keptEverywhere(opened.footer, required, caseSensitive)) NoAlp
      else {
        val stream = opened.inputFile.newStream()
        val plan = try AlpReadPlan.plan(path.toString, wholeFooter(stream), opened.footer,
          opened.fileSchema, required, caseSensitive) catch {
          case e: Throwable => closeQuietly(stream); throw e
        }
        plan.foreach(p => fallbacks.add(p.fallbacks))
        plan.filter(_.columns.nonEmpty) match {
          case Some(p) => new Planned(this, p, path.toString, opened, stream, conf)
          case None => closeQuietly(stream); NoAlp
        }
      }
  }

  private final class Planned(scan: Scan, plan: AlpReadPlan, path: String, opened: ScanFooter,
      private var stream: SeekableInputStream, conf: Configuration) extends AlpColumns {

    override def context(context: TaskAttemptContextImpl): TaskAttemptContextImpl = {
      val c = new Configuration(context.getConfiguration)
      c.set(ParquetReadSupport.SPARK_ROW_REQUESTED_SCHEMA, plan.readSchema.json)
      c.set(ParquetWriteSupport.SPARK_ROW_SCHEMA, plan.readSchema.json)
      c.setBoolean(ParquetInputFormat.COLUMN_INDEX_FILTERING_ENABLED, false)
      new TaskAttemptContextImpl(c, context.getTaskAttemptID)
    }

    override def wrap(reader: VectorizedParquetRecordReader, iter: Iterator[_]): Iterator[InternalRow] = {
      reader.enableReturningBatches() // the ALP columns join Spark's batches; rows, if asked for, after that
      val offHeap = scan.offHeapEnabled && TaskContext.get() != null // as Spark's reader decides
      val alp = new AlpBatchReader(reader, plan, scan.required, scan.partitionColumns, scan.capacity, offHeap,
        opened.inputFile, stream, path, conf, scan.chunksDecoded, scan.fallbacks, scan.returningBatch)
      stream = null // the AlpBatchReader's now
      alp.asInstanceOf[Iterator[InternalRow]]
    }

    override def close(): Unit = if (stream != null) {
      closeQuietly(stream)
      stream = null
    }
  }

  private def closeQuietly(c: java.io.Closeable): Unit =
    try c.close() catch { case _: java.io.IOException => }
}
