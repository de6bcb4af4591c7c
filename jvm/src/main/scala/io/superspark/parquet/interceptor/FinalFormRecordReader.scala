package io.superspark.parquet.interceptor

import org.apache.hadoop.mapreduce.{InputSplit, TaskAttemptContext}
import org.apache.hadoop.mapreduce.lib.input.FileSplit
import org.apache.parquet.HadoopReadOptions
import org.apache.parquet.filter2.compat.FilterCompat
import org.apache.parquet.hadoop.{ParquetFileReader, ParquetRecordReader}
import org.apache.parquet.hadoop.api.ReadSupport
import org.apache.parquet.hadoop.util.HadoopInputFile

import io.superspark.parquet.footer.{FooterReader, Projection, RowGroupSelection}

/**
 * parquet-java's row-based `ParquetRecordReader` for a final-form (PAR3) file, which
 * parquet-java cannot open itself (its `initialize` reads the Thrift footer behind `PAR1`):
 * the footer comes from the footer library (the FlatBuffer, row groups of the split, as
 * parquet-java's range filter picks them), the file reader is parquet-java's own, built
 * around that footer, and the record reader's internal reader is initialized with it
 * (through reflection: `InternalParquetRecordReader` is package-private in parquet-java
 * **1.17.0**). Row-group filtering (statistics, dictionaries, bloom filters) and record
 * filtering are parquet-java's, from the same configuration keys.
 */
class FinalFormRecordReader[T](readSupport: ReadSupport[T], filter: FilterCompat.Filter)
  extends ParquetRecordReader[T](readSupport, filter) {

  override def initialize(split: InputSplit, context: TaskAttemptContext): Unit = {
    val (path, start, length) = split match {
      case s: FileSplit => (s.getPath, s.getStart, s.getLength)
      case s: org.apache.hadoop.mapred.FileSplit => (s.getPath, s.getStart, s.getLength) // what Spark passes
      case other => throw new IllegalArgumentException(s"not a file split: ${other.getClass.getName}")
    }
    val conf = context.getConfiguration
    val end = start + length
    val options = HadoopReadOptions.builder(conf, path).withRange(start, end).build()
    val file = HadoopInputFile.fromPath(path, conf)
    val footer = FooterReader.readParquetMetadata(file,
      Projection(rowGroups = RowGroupSelection.Range(start, end)), strict = true)
    val stream = file.newStream()
    val reader = try new ParquetFileReader(file, footer, options, stream) catch {
      case e: Throwable => stream.close(); throw e
    }
    FinalFormRecordReader.initializeInternal(this, reader, conf)
  }
}

object FinalFormRecordReader {
  private lazy val internalField = {
    val f = classOf[ParquetRecordReader[_]].getDeclaredField("internalReader")
    f.setAccessible(true)
    f
  }

  private lazy val initializeMethod = {
    val m = internalField.getType.getDeclaredMethod("initialize", classOf[ParquetFileReader],
      classOf[org.apache.hadoop.conf.Configuration])
    m.setAccessible(true)
    m
  }

  private def initializeInternal(r: ParquetRecordReader[_], reader: ParquetFileReader,
      conf: org.apache.hadoop.conf.Configuration): Unit =
    try initializeMethod.invoke(internalField.get(r), reader, conf)
    catch { case e: java.lang.reflect.InvocationTargetException => throw e.getCause }
}
