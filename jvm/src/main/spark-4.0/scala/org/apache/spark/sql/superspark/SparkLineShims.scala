package org.apache.spark.sql.superspark

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.FileStatus
import org.apache.hadoop.mapreduce.{InputSplit, TaskAttemptContext}
import org.apache.parquet.column.ParquetProperties
import org.apache.parquet.format.converter.ParquetMetadataConverter
import org.apache.parquet.hadoop.metadata.ParquetMetadata
import org.apache.parquet.hadoop.util.HadoopInputFile
import org.apache.spark.SparkContext
import org.apache.spark.broadcast.Broadcast
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.execution.datasources.{PartitionedFile, SchemaMergeUtils}
import org.apache.spark.sql.execution.datasources.parquet.{ParquetFooterReader, ParquetToSparkSchemaConverter,
  VectorizedParquetRecordReader}
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.types.StructType
import org.apache.spark.util.SerializableConfiguration

import io.superspark.parquet.interceptor.OpenedFooter

/**
 * The Spark 4.0 line's side of the adapter (docs/spark-lines.md); the same members as every
 * line's `SparkLineShims`. Built against pyspark 4.0.5 (parquet-java 1.15, whose differences
 * the parquet-java adapter `io.superspark.parquet.footer.ParquetJavaShims` covers). Against
 * 4.1: no `openFileAndReadFooter` (Spark reads the footer, then its readers open the file
 * again), a vectorized reader that takes the footer but not the open stream, no
 * `SerializableConfiguration.broadcast`, no `ParquetFooterReader.buildFilter`.
 */
object SparkLineShims extends SparkLine40To42Shims {
  val SparkLine = "4.0"
  val ParquetLine = "1.15"

  def setupLineHadoopConf(hadoopConf: Configuration, sqlConf: SQLConf): Unit = ()

  final case class ConverterSettings(binaryAsString: Boolean, int96AsTimestamp: Boolean, inferTimestampNTZ: Boolean,
      nanosAsLong: Boolean)

  def converterSettings(sqlConf: SQLConf): ConverterSettings = ConverterSettings(sqlConf.isParquetBinaryAsString,
    sqlConf.isParquetINT96AsTimestamp, sqlConf.parquetInferTimestampNTZEnabled, sqlConf.legacyParquetNanosAsLong)

  def schemaConverter(s: ConverterSettings): ParquetToSparkSchemaConverter = new ParquetToSparkSchemaConverter(
    assumeBinaryIsString = s.binaryAsString,
    assumeInt96IsTimestamp = s.int96AsTimestamp,
    inferTimestampNTZ = s.inferTimestampNTZ,
    nanosAsLong = s.nanosAsLong)

  /** `ParquetProperties` settings the line's parquet-java reads from the job that others lack. */
  def lineWriterProperties(builder: ParquetProperties.Builder, conf: Configuration): ParquetProperties.Builder =
    builder // parquet-java 1.15 has no byte-stream-split setting

  /** The line's `SchemaMergeUtils.mergeSchemasInParallel`, given a reader of schemas that also ignores missing files. */
  def mergeSchemasInParallel(sparkSession: SparkSession, parameters: Map[String, String], files: Seq[FileStatus],
      reader: (Seq[FileStatus], Configuration, Boolean, Boolean) => Seq[StructType]): Option[StructType] =
    SchemaMergeUtils.mergeSchemasInParallel(sparkSession, parameters, files,
      (fs: Seq[FileStatus], conf: Configuration, ignoreCorruptFiles: Boolean) =>
        reader(fs, conf, ignoreCorruptFiles, false)) // 4.0 does not ignore missing files here

  /** A scan's Hadoop configuration, broadcast as 4.0's `ParquetFileFormat` does. */
  def broadcastHadoopConf(sc: SparkContext, conf: Configuration): Broadcast[SerializableConfiguration] =
    sc.broadcast(new SerializableConfiguration(conf))

  /**
   * Spark 4.0's own footer read (`ParquetFooterReader.readFooter`: the split's row groups for the
   * vectorized reader, none for the row-based one); no stream is kept, the readers open the file.
   */
  def openFooter(conf: Configuration, file: PartitionedFile, enableVectorizedReader: Boolean): OpenedFooter = {
    val footer = ParquetFooterReader.readFooter(conf, file,
      if (enableVectorizedReader) ParquetFooterReader.WITH_ROW_GROUPS else ParquetFooterReader.SKIP_ROW_GROUPS)
    OpenedFooter(footer, HadoopInputFile.fromPath(file.toPath, conf), None, footer.getFileMetaData.getSchema)
  }

  /**
   * 4.0's `initialize(split, context, Option(footer))`: the reader opens the file itself (no
   * footer read), so it does not own the footer library's stream, which the scan closes.
   */
  def initializeVectorized(reader: VectorizedParquetRecordReader, split: InputSplit, context: TaskAttemptContext,
      opened: OpenedFooter): Boolean = {
    reader.initialize(split, context, Some(opened.footer))
    false
  }

  /** Spark 4.0's aggregate reader's footer: `readFooter(conf, file, WITH_ROW_GROUPS)` (the split's row groups). */
  def readAggregateFooter(conf: Configuration, file: PartitionedFile): ParquetMetadata =
    ParquetFooterReader.readFooter(conf, file, ParquetFooterReader.WITH_ROW_GROUPS)

  /** Spark 4.0's schema reader's footer: `readFooter(conf, status, SKIP_ROW_GROUPS)`. */
  def readSchemaFooter(conf: Configuration, file: FileStatus): ParquetMetadata =
    ParquetFooterReader.readFooter(conf, file, ParquetMetadataConverter.SKIP_ROW_GROUPS)
}
