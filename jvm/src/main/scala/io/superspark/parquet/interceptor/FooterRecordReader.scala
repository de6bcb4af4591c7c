package io.superspark.parquet.interceptor

import scala.jdk.CollectionConverters._

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.mapreduce.{InputSplit, TaskAttemptContext}
import org.apache.hadoop.mapreduce.lib.input.FileSplit
import org.apache.parquet.{CorruptDeltaByteArrays, HadoopReadOptions}
import org.apache.parquet.filter2.compat.FilterCompat
import org.apache.parquet.hadoop.{ParquetFileReader, ParquetInputFormat, ParquetRecordReader}
import org.apache.parquet.hadoop.api.ReadSupport
import org.apache.parquet.hadoop.metadata.ParquetMetadata
import org.apache.parquet.io.{InputFile, ParquetDecodingException, SeekableInputStream}

/**
 * parquet-java's row-based `ParquetRecordReader`, given the footer the interceptor already
 * read (issue 24: no second footer read in the scan path). parquet-java's own `initialize`
 * opens the file and reads its Thrift footer again (and cannot at all for a final-form PAR3
 * file); this one builds parquet-java's `ParquetFileReader` around `footer` (the split's row
 * groups, as parquet-java's range filter picks them, and the projected columns) and the stream
 * `FooterOpener` opened, and initializes the record reader's internal reader with it (through
 * reflection: `InternalParquetRecordReader` is package-private in parquet-java 1.15 to 1.17).
 * Row-group filtering (statistics, dictionaries, bloom filters) and record filtering are
 * parquet-java's, from the same configuration keys. The reader owns `stream` once
 * `initialize` returned.
 */
private[superspark] class FooterRecordReader[T](readSupport: ReadSupport[T], filter: FilterCompat.Filter, file: InputFile,
    footer: ParquetMetadata, stream: SeekableInputStream)
  extends ParquetRecordReader[T](readSupport, filter) {

  override def initialize(split: InputSplit, context: TaskAttemptContext): Unit = {
    val (path, start, length) = split match {
      case s: FileSplit => (s.getPath, s.getStart, s.getLength)
      case s: org.apache.hadoop.mapred.FileSplit => (s.getPath, s.getStart, s.getLength)
      case other => throw new IllegalArgumentException(s"not a file split: ${other.getClass.getName}")
    }
    val conf = context.getConfiguration
    val options = HadoopReadOptions.builder(conf, path).withRange(start, start + length).build()
    // The parquet-java adapter: 1.16+ takes the InputFile, 1.15 the Hadoop path (the same reader).
    val reader = io.superspark.parquet.footer.codec.ParquetJavaShims.fileReader(file, path, conf, footer, options, stream)
    try {
      FooterRecordReader.refuseUnsplittableDeltas(reader, conf)
      FooterRecordReader.initializeInternal(this, reader, conf)
    } catch {
      case e: Throwable => reader.close(); throw e
    }
  }
}

private[superspark] object FooterRecordReader {
  private lazy val internalField = {
    val f = classOf[ParquetRecordReader[_]].getDeclaredField("internalReader")
    f.setAccessible(true)
    f
  }

  private lazy val initializeMethod = {
    val m = internalField.getType.getDeclaredMethod("initialize", classOf[ParquetFileReader], classOf[Configuration])
    m.setAccessible(true)
    m
  }

  private def initializeInternal(r: ParquetRecordReader[_], reader: ParquetFileReader, conf: Configuration): Unit =
    try initializeMethod.invoke(internalField.get(r), reader, conf)
    catch { case e: java.lang.reflect.InvocationTargetException => throw e.getCause }

  /**
   * What parquet-java's record reader checks before reading a split file (PARQUET-246): old
   * parquet-mr writers' DELTA_BYTE_ARRAY pages cannot be read from a split, only in sequence.
   */
  private def refuseUnsplittableDeltas(reader: ParquetFileReader, conf: Configuration): Unit = {
    val groups = reader.getRowGroups
    if (!groups.isEmpty && conf.getBoolean(ParquetInputFormat.SPLIT_FILES, true)) {
      val createdBy = reader.getFooter.getFileMetaData.getCreatedBy
      val encodings = groups.get(0).getColumns.asScala.flatMap(_.getEncodings.asScala).toSet
      if (encodings.exists(CorruptDeltaByteArrays.requiresSequentialReads(createdBy, _))) {
        throw new ParquetDecodingException(
          s"Cannot read data due to PARQUET-246: to read safely, set ${ParquetInputFormat.SPLIT_FILES} to false")
      }
    }
  }
}
