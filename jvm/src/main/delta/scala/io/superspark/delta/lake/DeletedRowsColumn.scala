package io.superspark.delta.lake

import org.apache.hadoop.fs.Path
import org.apache.spark.TaskContext
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.delta.{DeltaParquetFileFormat, RowIndexFilter, RowIndexFilterType}
import org.apache.spark.sql.delta.actions.DeletionVectorDescriptor
import org.apache.spark.sql.delta.deletionvectors.{DropMarkedRowsFilter, KeepAllRowsFilter, KeepMarkedRowsFilter}
import org.apache.spark.sql.execution.datasources.PartitionedFile
import org.apache.spark.sql.execution.vectorized.{OffHeapColumnVector, OnHeapColumnVector, WritableColumnVector}
import org.apache.spark.sql.types.ByteType
import org.apache.spark.sql.vectorized.{ColumnVector, ColumnarBatch, ColumnarBatchRow}
import org.apache.spark.util.SerializableConfiguration

/**
 * Delta's row-deleted column (`__delta_internal_is_row_deleted`) filled beside the footer
 * library's reader. For each row it holds whether the file's deletion vector marks the row's
 * index in the file; the index is Spark's `_tmp_metadata_row_index`, which the reader fills from
 * the row groups' first-row offsets, so it is right in every split. The deletion vector comes
 * from the descriptor Delta's file index puts on each `PartitionedFile`
 * (`otherConstantMetadataColumnValues`) and is loaded with Delta's public `RowIndexFilter`
 * builders; Delta's plan then drops the marked rows.
 *
 * `deletedAt` and `rowIndexAt` are the two columns' positions in the reader's output.
 */
private[lake] final class DeletedRowsColumn(
    deletedAt: Int,
    rowIndexAt: Int,
    tablePath: Option[String],
    conf: SerializableConfiguration,
    offHeap: Boolean) extends Serializable {

  /** `rows` (the reader's rows or batches for `file`) with the row-deleted column filled. */
  def fill(file: PartitionedFile, rows: Iterator[InternalRow]): Iterator[InternalRow] = {
    val filter = rowIndexFilter(file)
    val one = new OnHeapColumnVector(1, ByteType)
    var marks: WritableColumnVector = null
    var room = 0
    Option(TaskContext.get()).foreach(_.addTaskCompletionListener[Unit] { _ =>
      one.close()
      if (marks != null) marks.close()
    })
    rows.asInstanceOf[Iterator[AnyRef]].map {
      case batch: ColumnarBatch if batch.numRows() == 0 => batch
      case batch: ColumnarBatch =>
        val n = batch.numRows()
        if (n > room) {
          if (marks != null) marks.close()
          room = n
          marks = if (offHeap) new OffHeapColumnVector(room, ByteType) else new OnHeapColumnVector(room, ByteType)
        }
        marks.reset()
        filter.materializeIntoVectorWithRowIndex(n, batch.column(rowIndexAt), marks)
        // The reader's own vector for this column is all nulls (the column is in no file) and is
        // the reader's to close: the new batch shows ours in its place.
        val columns = Array.tabulate[ColumnVector](batch.numCols())(i => if (i == deletedAt) marks else batch.column(i))
        new ColumnarBatch(columns, n)
      case row: ColumnarBatchRow =>
        val copy = row.copy()
        copy.setByte(deletedAt, mark(filter, row.getLong(rowIndexAt), one))
        copy
      case row: InternalRow =>
        row.setByte(deletedAt, mark(filter, row.getLong(rowIndexAt), one))
        row
      case other =>
        throw new IllegalStateException(s"the Parquet reader returned a ${other.getClass.getName} for ${file.filePath}")
    }.asInstanceOf[Iterator[InternalRow]]
  }

  private def mark(filter: RowIndexFilter, rowIndex: Long, one: WritableColumnVector): Byte = {
    filter.materializeSingleRowWithRowIndex(rowIndex, one)
    one.getByte(0)
  }

  private def rowIndexFilter(file: PartitionedFile): RowIndexFilter = {
    val values = file.otherConstantMetadataColumnValues
    (values.get(DeltaParquetFileFormat.FILE_ROW_INDEX_FILTER_ID_ENCODED),
      values.get(DeltaParquetFileFormat.FILE_ROW_INDEX_FILTER_TYPE)) match {
      case (Some(encoded: String), Some(kind)) =>
        val builder = kind match {
          case RowIndexFilterType.IF_CONTAINED => DropMarkedRowsFilter
          case RowIndexFilterType.IF_NOT_CONTAINED => KeepMarkedRowsFilter
          case other => throw new IllegalStateException(s"unknown row index filter type $other for ${file.filePath}")
        }
        builder.createInstance(DeletionVectorDescriptor.deserializeFromBase64(encoded), conf.value,
          tablePath.map(new Path(_)))
      case (None, None) => KeepAllRowsFilter
      case _ => throw new IllegalStateException(
        s"${file.filePath}: a deletion vector descriptor without its filter type, or the other way round")
    }
  }
}
