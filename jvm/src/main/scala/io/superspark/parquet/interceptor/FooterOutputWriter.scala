package io.superspark.parquet.interceptor

import org.apache.hadoop.fs.Path
import org.apache.hadoop.mapreduce.TaskAttemptContext
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.execution.datasources.{OutputWriter, OutputWriterFactory}
import org.apache.spark.sql.types.StructType

import io.superspark.parquet.footer.codec.FooterForm
import io.superspark.parquet.alp.spark.AlpWriteMetrics

/** Spark's Parquet writer factory, with writers that write the footer in `form` (FlatBuffers footer). */
private[superspark] class FooterOutputWriterFactory(spark: OutputWriterFactory, form: FooterForm,
    alpMetrics: Option[AlpWriteMetrics] = None) extends OutputWriterFactory {
  override def getFileExtension(context: TaskAttemptContext): String = spark.getFileExtension(context)
  override def newInstance(path: String, dataSchema: StructType, context: TaskAttemptContext): OutputWriter =
    new FooterOutputWriter(path, context, form, alpMetrics)
}

/** Spark's `ParquetOutputWriter`, with [[FooterFileWriter]] as the Parquet file writer. */
private[superspark] class FooterOutputWriter(val path: String, context: TaskAttemptContext, form: FooterForm,
    alpMetrics: Option[AlpWriteMetrics] = None) extends OutputWriter {
  private val recordWriter = new FooterParquetOutputFormat[InternalRow](new Path(path), FooterFileWriter.create(form, alpMetrics))
    .getRecordWriter(context)
  override def write(row: InternalRow): Unit = recordWriter.write(null, row)
  override def close(): Unit = recordWriter.close(context)
}
