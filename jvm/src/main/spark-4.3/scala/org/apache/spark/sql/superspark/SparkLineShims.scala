package org.apache.spark.sql.superspark

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.FileStatus
import org.apache.parquet.column.ParquetProperties
import org.apache.parquet.hadoop.ParquetOutputFormat
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.execution.datasources.SchemaMergeUtils
import org.apache.parquet.schema.MessageType
import org.apache.spark.sql.catalyst.util.RebaseDateTime.RebaseSpec
import org.apache.spark.sql.execution.datasources.parquet.{ParquetFilters, ParquetOptions, ParquetToSparkSchemaConverter}
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.types.StructType

/**
 * The Spark 4.3 line's side of the adapter (docs/spark-lines.md): every Spark or parquet-java
 * API that differs between the supported lines is reached through `SparkLineShims`, one
 * object per line under `jvm/src/main/spark-<line>/`, with the same members. Built against
 * pyspark 4.3.0 (parquet-java 1.17).
 */
object SparkLineShims extends SparkLineAdapter with SparkLine41To43Shims {
  /** major.minor of the Spark line this jar is built for. */
  val SparkLine = "4.3"
  /** major.minor of the parquet-java version that line ships, which the FlatBuffer decoder follows. */
  val ParquetLine = "1.17"

  /** The settings `ParquetFileFormat.setupHadoopConf` adds on this line beyond the common ones. */
  def setupLineHadoopConf(hadoopConf: Configuration, sqlConf: SQLConf): Unit = {
    hadoopConf.setBoolean(SQLConf.TIMESTAMP_NANOS_TYPES_ENABLED.key, sqlConf.timestampNanosTypesEnabled)
    hadoopConf.setBoolean(SQLConf.PARQUET_READER_RESPECT_UNKNOWN_TYPE_ANNOTATION.key,
      sqlConf.parquetReaderRespectUnknownTypeAnnotation)
  }

  /** The session settings this line's `mergeSchemasInParallel` gives its schema converter. */
  final case class ConverterSettings(binaryAsString: Boolean, int96AsTimestamp: Boolean, inferTimestampNTZ: Boolean,
      nanosAsLong: Boolean, timestampNanosTypes: Boolean, respectUnknownTypeAnnotation: Boolean)

  def converterSettings(sqlConf: SQLConf): ConverterSettings = ConverterSettings(sqlConf.isParquetBinaryAsString,
    sqlConf.isParquetINT96AsTimestamp, sqlConf.parquetInferTimestampNTZEnabled, sqlConf.legacyParquetNanosAsLong,
    sqlConf.timestampNanosTypesEnabled, sqlConf.parquetReaderRespectUnknownTypeAnnotation)

  def schemaConverter(s: ConverterSettings): ParquetToSparkSchemaConverter = new ParquetToSparkSchemaConverter(
    assumeBinaryIsString = s.binaryAsString,
    assumeInt96IsTimestamp = s.int96AsTimestamp,
    inferTimestampNTZ = s.inferTimestampNTZ,
    nanosAsLong = s.nanosAsLong,
    timestampNanosTypesEnabled = s.timestampNanosTypes,
    respectUnknownTypeAnnotation = s.respectUnknownTypeAnnotation)

  def parquetFilters(schema: MessageType, pushDownDate: Boolean, pushDownTimestamp: Boolean,
      pushDownDecimal: Boolean, pushDownStringPredicate: Boolean, pushDownInFilterThreshold: Int,
      caseSensitive: Boolean, datetimeRebaseSpec: RebaseSpec, requiredSchema: StructType): ParquetFilters =
    new ParquetFilters(schema, pushDownDate, pushDownTimestamp, pushDownDecimal, pushDownStringPredicate,
      pushDownInFilterThreshold, caseSensitive, datetimeRebaseSpec, Some(requiredSchema))

  /** Archive inputs (new in 4.3): such scans stay on Spark's own reader. */
  def archiveFormatEnabled(options: ParquetOptions): Boolean = options.archiveFormatEnabled

  /**
   * Whether Spark's vectorized reader decodes FIXED_LEN_BYTE_ARRAY pages of every encoding
   * (FLOAT16 columns are read as those bytes, [[io.superspark.parquet.logicaltypes.Float16Columns]]).
   * Spark 4.3 reads BYTE_STREAM_SPLIT FIXED_LEN_BYTE_ARRAY pages in its vectorized reader.
   */
  val vectorizedFloat16: Boolean = true

  /** `ParquetProperties` settings the line's parquet-java reads from the job that others lack. */
  def lineWriterProperties(builder: ParquetProperties.Builder, conf: Configuration): ParquetProperties.Builder =
    builder.withByteStreamSplitEncoding(ParquetOutputFormat.getByteStreamSplitEnabled(conf))

  /** The line's `SchemaMergeUtils.mergeSchemasInParallel`, given a reader of schemas that also ignores missing files. */
  def mergeSchemasInParallel(sparkSession: SparkSession, parameters: Map[String, String], files: Seq[FileStatus],
      reader: (Seq[FileStatus], Configuration, Boolean, Boolean) => Seq[StructType]): Option[StructType] =
    SchemaMergeUtils.mergeSchemasInParallel(sparkSession, parameters, files, reader)
}
