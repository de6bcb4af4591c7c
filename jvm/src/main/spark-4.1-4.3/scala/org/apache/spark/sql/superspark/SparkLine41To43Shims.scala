package org.apache.spark.sql.superspark

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.{FileStatus, Path}
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

/** The members of `SparkLineShims` that Spark 4.1, 4.2 and 4.3 share (docs/spark-lines.md). */
trait SparkLine41To43Shims extends SparkLineAdapter {
  /** A scan's Hadoop configuration, broadcast as `ParquetFileFormat` does (`SerializableConfiguration.broadcast`). */
  def broadcastHadoopConf(sc: SparkContext, conf: Configuration): Broadcast[SerializableConfiguration] =
    SerializableConfiguration.broadcast(sc, conf)

  /** Spark's own footer read for a file the footer library leaves to Spark: `openFileAndReadFooter`, the stream kept. */
  def openFooter(conf: Configuration, file: PartitionedFile, enableVectorizedReader: Boolean): LineFooter = {
    val o = ParquetFooterReader.openFileAndReadFooter(conf, file, enableVectorizedReader)
    val stream = if (o.inputStreamOpt.isPresent) Some(o.inputStreamOpt.get) else None
    LineFooter(o.footer, o.inputFile, stream)
  }

  /**
   * `VectorizedParquetRecordReader.initialize` with the footer read, the file and its open
   * stream (the 5-argument form, 4.1+). Whether the reader now owns the stream: yes.
   */
  def initializeVectorized(reader: VectorizedParquetRecordReader, split: InputSplit, context: TaskAttemptContext,
      footer: ParquetMetadata, inputFile: HadoopInputFile, inputStream: Option[SeekableInputStream]): Boolean = {
    reader.initialize(split, context, Some(inputFile), inputStream, Some(footer))
    true
  }

  /** The footer Spark's aggregate reader reads (with the split's row groups) when the footer library does not. */
  def readAggregateFooter(conf: Configuration, file: PartitionedFile): ParquetMetadata =
    ParquetFooterReader.readFooter(HadoopInputFile.fromPath(new Path(file.toPath.toUri), conf),
      ParquetFooterReader.buildFilter(conf, file, false))

  /** The footer Spark's schema reader reads (no row groups) when the footer library does not. */
  def readSchemaFooter(conf: Configuration, file: FileStatus): ParquetMetadata =
    ParquetFooterReader.readFooter(HadoopInputFile.fromStatus(file, conf), ParquetMetadataConverter.SKIP_ROW_GROUPS)
}
