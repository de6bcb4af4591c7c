package org.apache.spark.sql.superspark

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.FileStatus
import org.apache.hadoop.mapreduce.{InputSplit, TaskAttemptContext}
import org.apache.parquet.format.converter.ParquetMetadataConverter
import org.apache.parquet.hadoop.metadata.ParquetMetadata
import org.apache.parquet.hadoop.util.HadoopInputFile
import org.apache.parquet.io.SeekableInputStream
import org.apache.spark.SparkContext
import org.apache.spark.broadcast.Broadcast
import org.apache.spark.sql.execution.datasources.PartitionedFile
import org.apache.spark.sql.execution.datasources.parquet.{ParquetFooterReader, VectorizedParquetRecordReader}
import org.apache.spark.util.SerializableConfiguration

/**
 * The Spark 4.0 line's side of the adapter (docs/spark-lines.md); the same members as every
 * line's `SparkLineShims`. Built against pyspark 4.0.5 (parquet-java 1.15, whose differences
 * the parquet-java adapter `io.superspark.parquet.footer.codec.ParquetJavaShims` covers). Against
 * 4.1: no `openFileAndReadFooter` (Spark reads the footer, then its readers open the file
 * again), a vectorized reader that takes the footer but not the open stream, no
 * `SerializableConfiguration.broadcast`, no `ParquetFooterReader.buildFilter`.
 */
object SparkLineShims extends SparkLineAdapter with SparkLine40To42Shims with SparkLine40To41Shims {
  val SparkLine = "4.0"
  val ParquetLine = "1.15"

  /** A scan's Hadoop configuration, broadcast as 4.0's `ParquetFileFormat` does. */
  def broadcastHadoopConf(sc: SparkContext, conf: Configuration): Broadcast[SerializableConfiguration] =
    sc.broadcast(new SerializableConfiguration(conf))

  /**
   * Spark 4.0's own footer read (`ParquetFooterReader.readFooter`: the split's row groups for the
   * vectorized reader, none for the row-based one); no stream is kept, the readers open the file.
   */
  def openFooter(conf: Configuration, file: PartitionedFile, enableVectorizedReader: Boolean): LineFooter = {
    val footer = ParquetFooterReader.readFooter(conf, file,
      if (enableVectorizedReader) ParquetFooterReader.WITH_ROW_GROUPS else ParquetFooterReader.SKIP_ROW_GROUPS)
    LineFooter(footer, HadoopInputFile.fromPath(file.toPath, conf), None)
  }

  /**
   * 4.0's `initialize(split, context, Option(footer))`: the reader opens the file itself (no
   * footer read), so it does not own the footer library's stream, which the scan closes.
   */
  def initializeVectorized(reader: VectorizedParquetRecordReader, split: InputSplit, context: TaskAttemptContext,
      footer: ParquetMetadata, inputFile: HadoopInputFile, inputStream: Option[SeekableInputStream]): Boolean = {
    reader.initialize(split, context, Some(footer))
    false
  }

  /** Spark 4.0's aggregate reader's footer: `readFooter(conf, file, WITH_ROW_GROUPS)` (the split's row groups). */
  def readAggregateFooter(conf: Configuration, file: PartitionedFile): ParquetMetadata =
    ParquetFooterReader.readFooter(conf, file, ParquetFooterReader.WITH_ROW_GROUPS)

  /** Spark 4.0's schema reader's footer: `readFooter(conf, status, SKIP_ROW_GROUPS)`. */
  def readSchemaFooter(conf: Configuration, file: FileStatus): ParquetMetadata =
    ParquetFooterReader.readFooter(conf, file, ParquetMetadataConverter.SKIP_ROW_GROUPS)
}
