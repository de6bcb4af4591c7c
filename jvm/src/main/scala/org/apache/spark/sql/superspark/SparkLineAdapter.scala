package org.apache.spark.sql.superspark

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.FileStatus
import org.apache.hadoop.mapreduce.{InputSplit, TaskAttemptContext}
import org.apache.parquet.column.ParquetProperties
import org.apache.parquet.hadoop.metadata.ParquetMetadata
import org.apache.parquet.hadoop.util.HadoopInputFile
import org.apache.parquet.io.SeekableInputStream
import org.apache.parquet.schema.MessageType
import org.apache.spark.SparkContext
import org.apache.spark.broadcast.Broadcast
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.util.RebaseDateTime.RebaseSpec
import org.apache.spark.sql.execution.datasources.PartitionedFile
import org.apache.spark.sql.execution.datasources.parquet.{ParquetFilters, ParquetOptions, ParquetToSparkSchemaConverter, VectorizedParquetRecordReader}
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.types.StructType
import org.apache.spark.util.SerializableConfiguration

/**
 * A footer Spark's own reader read (`SparkLineAdapter.openFooter`): parquet-java's types only,
 * so the adapter needs nothing of superspark's footer library.
 */
final case class LineFooter(footer: ParquetMetadata, inputFile: HadoopInputFile, inputStream: Option[SeekableInputStream]) extends ScanFooter {
  override def fileSchema: MessageType = footer.getFileMetaData.getSchema
}

/**
 * The contract of the Spark-line adapter (docs/spark-lines.md): every Spark or parquet-java API
 * that differs between the supported lines, reached through `SparkLineShims`, one object per line
 * under `jvm/src/main/spark-<line>/` that extends this trait, so a member missing on a line is a
 * compile error of that line's jar. It takes and returns Spark and parquet-java types only.
 */
trait SparkLineAdapter {
  /** major.minor of the Spark line this jar is built for. */
  val SparkLine: String
  /** major.minor of the parquet-java version that line ships, which the FlatBuffer decoder follows. */
  val ParquetLine: String

  /** The settings `ParquetFileFormat.setupHadoopConf` adds on this line beyond the common ones. */
  def setupLineHadoopConf(hadoopConf: Configuration, sqlConf: SQLConf): Unit

  /** The session settings this line's `mergeSchemasInParallel` gives its schema converter (serializable). */
  type ConverterSettings <: Serializable
  def converterSettings(sqlConf: SQLConf): ConverterSettings
  def schemaConverter(s: ConverterSettings): ParquetToSparkSchemaConverter

  /** The line's `ParquetFilters` (4.3 prunes by the required schema). */
  def parquetFilters(schema: MessageType, pushDownDate: Boolean, pushDownTimestamp: Boolean,
      pushDownDecimal: Boolean, pushDownStringPredicate: Boolean, pushDownInFilterThreshold: Int,
      caseSensitive: Boolean, datetimeRebaseSpec: RebaseSpec, requiredSchema: StructType): ParquetFilters

  /** Archive inputs (4.3+): such scans stay on Spark's own reader. */
  def archiveFormatEnabled(options: ParquetOptions): Boolean

  /** Whether Spark's vectorized reader decodes FIXED_LEN_BYTE_ARRAY pages of every encoding (FLOAT16 columns). */
  val vectorizedFloat16: Boolean

  /** `ParquetProperties` settings the line's parquet-java reads from the job that others lack. */
  def lineWriterProperties(builder: ParquetProperties.Builder, conf: Configuration): ParquetProperties.Builder

  /** The line's `SchemaMergeUtils.mergeSchemasInParallel`, given a reader of schemas that also ignores missing files. */
  def mergeSchemasInParallel(sparkSession: SparkSession, parameters: Map[String, String], files: Seq[FileStatus],
      reader: (Seq[FileStatus], Configuration, Boolean, Boolean) => Seq[StructType]): Option[StructType]

  /** A scan's Hadoop configuration, broadcast as the line's `ParquetFileFormat` does. */
  def broadcastHadoopConf(sc: SparkContext, conf: Configuration): Broadcast[SerializableConfiguration]

  /** Spark's own footer read for a file the footer library leaves to Spark. */
  def openFooter(conf: Configuration, file: PartitionedFile, enableVectorizedReader: Boolean): LineFooter

  /**
   * The line's `VectorizedParquetRecordReader.initialize` with a footer read elsewhere (and, where
   * the line takes them, the file and its open stream). Whether the reader now owns the stream.
   */
  def initializeVectorized(reader: VectorizedParquetRecordReader, split: InputSplit, context: TaskAttemptContext,
      footer: ParquetMetadata, inputFile: HadoopInputFile, inputStream: Option[SeekableInputStream]): Boolean

  /** The footer Spark's aggregate reader reads (with the split's row groups) when the footer library does not. */
  def readAggregateFooter(conf: Configuration, file: PartitionedFile): ParquetMetadata

  /** The footer Spark's schema reader reads (no row groups) when the footer library does not. */
  def readSchemaFooter(conf: Configuration, file: FileStatus): ParquetMetadata
}
