package io.superspark.parquet.interceptor

import java.io.ByteArrayOutputStream

import org.apache.hadoop.fs.Path
import org.apache.hadoop.mapreduce.TaskAttemptContext
import org.apache.parquet.column.ParquetProperties
import org.apache.parquet.crypto.FileEncryptionProperties
import org.apache.parquet.hadoop.ParquetFileWriter
import org.apache.parquet.io.{OutputFile, PositionOutputStream}
import org.apache.spark.internal.Logging
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.execution.datasources.{OutputWriter, OutputWriterFactory}
import org.apache.spark.sql.types.StructType

import io.superspark.parquet.footer.{FooterFiles, FooterForm, FooterLayout, UnrepresentableFooterException}

/** Spark's Parquet writer factory, with writers that write the footer in `form` (FlatBuffers footer). */
class FooterOutputWriterFactory(spark: OutputWriterFactory, form: FooterForm) extends OutputWriterFactory {
  override def getFileExtension(context: TaskAttemptContext): String = spark.getFileExtension(context)
  override def newInstance(path: String, dataSchema: StructType, context: TaskAttemptContext): OutputWriter =
    new FooterOutputWriter(path, context, form)
}

/** Spark's `ParquetOutputWriter`, with [[FooterFileWriter]] as the Parquet file writer. */
class FooterOutputWriter(val path: String, context: TaskAttemptContext, form: FooterForm) extends OutputWriter {
  private val recordWriter = new FooterParquetOutputFormat[InternalRow](new Path(path), FooterFileWriter.create(form))
    .getRecordWriter(context)
  override def write(row: InternalRow): Unit = recordWriter.write(null, row)
  override def close(): Unit = recordWriter.close(context)
}

/**
 * parquet-java's `ParquetFileWriter` whose stream holds back everything written from `end()`
 * on (column and offset indexes, bloom filters, the Thrift footer, its length and magic):
 * when the stream is closed, the extension is appended to the held footer
 * ([[TailHoldingStream.close]]) and the tail is written once. Memory held: that tail only.
 */
class FooterFileWriter private (file: HoldingOutputFile, schema: org.apache.parquet.schema.MessageType,
    mode: ParquetFileWriter.Mode, rowGroupSize: Long, maxPaddingSize: Int,
    encryption: FileEncryptionProperties, props: ParquetProperties)
  extends ParquetFileWriter(file, schema, mode, rowGroupSize, maxPaddingSize, encryption, props) {

  override def end(extraMetaData: java.util.Map[String, String]): Unit = {
    if (encryption == null) file.stream.foreach(_.hold())
    super.end(extraMetaData)
  }
}

object FooterFileWriter {
  def create(form: FooterForm)(out: OutputFile, schema: org.apache.parquet.schema.MessageType,
      mode: ParquetFileWriter.Mode, rowGroupSize: Long, maxPaddingSize: Int, encryption: FileEncryptionProperties,
      props: ParquetProperties): ParquetFileWriter =
    new FooterFileWriter(new HoldingOutputFile(out, form), schema, mode, rowGroupSize, maxPaddingSize,
      encryption, props)
}

/** An `OutputFile` whose streams are [[TailHoldingStream]]s. */
class HoldingOutputFile(out: OutputFile, form: FooterForm) extends OutputFile {
  var stream: Option[TailHoldingStream] = None
  private def wrap(s: PositionOutputStream) = {
    val h = new TailHoldingStream(s, out.getPath, form)
    stream = Some(h)
    h
  }
  override def create(blockSizeHint: Long): PositionOutputStream = wrap(out.create(blockSizeHint))
  override def createOrOverwrite(blockSizeHint: Long): PositionOutputStream = wrap(out.createOrOverwrite(blockSizeHint))
  override def supportsBlockSize(): Boolean = out.supportsBlockSize()
  override def defaultBlockSize(): Long = out.defaultBlockSize()
  override def getPath: String = out.getPath
}

/**
 * Passes bytes through until `hold()`; then keeps them, and on `close()` writes them with the
 * footer extension appended. If anything fails before the tail is written, the file is closed
 * without a footer (never with a half-written one) and the error propagates: the task fails
 * and Spark's commit protocol removes the file.
 */
class TailHoldingStream(out: PositionOutputStream, path: String, form: FooterForm) extends PositionOutputStream with Logging {
  private var held: ByteArrayOutputStream = _
  private var closed = false

  def hold(): Unit = if (held == null) held = new ByteArrayOutputStream(64 * 1024)

  override def getPos: Long = out.getPos + (if (held == null) 0 else held.size)
  override def write(b: Int): Unit = if (held == null) out.write(b) else held.write(b)
  override def write(b: Array[Byte], off: Int, len: Int): Unit =
    if (held == null) out.write(b, off, len) else held.write(b, off, len)
  override def flush(): Unit = out.flush()

  override def close(): Unit = if (!closed) {
    closed = true
    try {
      if (held != null) out.write(TailHoldingStream.withExtension(path, held.toByteArray, form))
    } finally {
      held = null
      out.close()
    }
  }
}

object TailHoldingStream extends Logging {
  /**
   * `tail` = whatever `end()` wrote: indexes, bloom filters, Thrift footer, length, PAR1. Returns
   * it with the footer in `form` (the final form replaces Thrift, length and PAR1 by the
   * FlatBuffer, its CRCs and PAR3), or unchanged when the footer cannot be represented (with
   * a warning) or is not a plain Parquet footer.
   */
  def withExtension(path: String, tail: Array[Byte], form: FooterForm = FooterForm.Private): Array[Byte] = {
    val n = tail.length
    if (n < 8 || !java.util.Arrays.equals(tail, n - 4, n, FooterLayout.Magic, 0, 4)) return tail
    val footerLength = FooterLayout.getIntLE(tail, n - 8).toLong & 0xFFFFFFFFL
    val footerStart = n - 8 - footerLength
    if (footerStart < 0) return tail
    val thrift = java.util.Arrays.copyOfRange(tail, footerStart.toInt, n - 8)
    try {
      val newTail = FooterFiles.tailFor(path, thrift, form)
      val out = java.util.Arrays.copyOf(tail, footerStart.toInt + newTail.length)
      System.arraycopy(newTail, 0, out, footerStart.toInt, newTail.length)
      out
    } catch {
      case e: UnrepresentableFooterException =>
        logWarning(s"$path: written as a plain Parquet file, not in the $form footer form: ${e.reason}")
        tail
    }
  }
}
