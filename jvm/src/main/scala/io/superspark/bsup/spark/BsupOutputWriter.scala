package io.superspark.bsup.spark

import io.superspark.bsup.{BsupWriter, RecordType}
import io.superspark.types.SuperTypes
import org.apache.hadoop.fs.Path
import org.apache.hadoop.mapreduce.TaskAttemptContext
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.execution.datasources.{OutputWriter, OutputWriterFactory}
import org.apache.spark.sql.types.StructType

/** Writes one `.bsup` file: each row a record value of the schema's Super type. */
final class BsupOutputWriter(val path: String, schema: StructType, options: BsupOptions, context: TaskAttemptContext)
  extends OutputWriter {

  private val recordType = RecordType(schema.fields.map(f =>
    io.superspark.bsup.Field(f.name, SuperTypes.superTypeOf(f, options.typeOptions))).toIndexedSeq)
  private val rowWriter = new SparkWriters.StructWriter(recordType, schema, options.version)
  private val out = {
    val p = new Path(path)
    p.getFileSystem(context.getConfiguration).create(p, false)
  }
  private val writer = new BsupWriter(out, options.writerOptions)

  override def write(row: InternalRow): Unit = {
    val buf = writer.startValue(recordType)
    rowWriter.writeStruct(row, buf)
    writer.finishValue()
  }

  override def close(): Unit = writer.close()
}

final class BsupOutputWriterFactory(options: BsupOptions) extends OutputWriterFactory {
  override def getFileExtension(context: TaskAttemptContext): String = ".bsup"

  override def newInstance(path: String, dataSchema: StructType, context: TaskAttemptContext): OutputWriter =
    new BsupOutputWriter(path, dataSchema, options, context)
}
