package org.apache.spark.sql.superspark

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.FileStatus
import org.apache.parquet.column.ParquetProperties
import org.apache.parquet.hadoop.ParquetOutputFormat
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.execution.datasources.SchemaMergeUtils
import org.apache.spark.sql.execution.datasources.parquet.ParquetToSparkSchemaConverter
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.types.StructType

/**
 * The Spark 4.1 line's side of the adapter (docs/spark-lines.md); the same members as every
 * line's `SparkLineShims`. Built against pyspark 4.1.4 (parquet-java 1.16). Against 4.2: no
 * setting to respect unknown type annotations. Against 4.3 also: no nanosecond timestamp
 * types, no `ParquetFilters` pruning by the required schema, no archive inputs.
 */
object SparkLineShims extends SparkLine40To42Shims with SparkLine41To43Shims {
  val SparkLine = "4.1"
  val ParquetLine = "1.16"

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
    builder // parquet-java 1.16 has no byte-stream-split setting

  /** The line's `SchemaMergeUtils.mergeSchemasInParallel`, given a reader of schemas that also ignores missing files. */
  def mergeSchemasInParallel(sparkSession: SparkSession, parameters: Map[String, String], files: Seq[FileStatus],
      reader: (Seq[FileStatus], Configuration, Boolean, Boolean) => Seq[StructType]): Option[StructType] =
    SchemaMergeUtils.mergeSchemasInParallel(sparkSession, parameters, files,
      (fs: Seq[FileStatus], conf: Configuration, ignoreCorruptFiles: Boolean) =>
        reader(fs, conf, ignoreCorruptFiles, false)) // 4.1 does not ignore missing files here
}
