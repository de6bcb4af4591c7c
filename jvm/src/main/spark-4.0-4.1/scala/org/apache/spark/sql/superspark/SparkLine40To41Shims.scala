package org.apache.spark.sql.superspark

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.FileStatus
import org.apache.parquet.column.ParquetProperties
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.execution.datasources.SchemaMergeUtils
import org.apache.spark.sql.execution.datasources.parquet.ParquetToSparkSchemaConverter
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.types.StructType

/**
 * The session settings Spark 4.0's and 4.1's `mergeSchemasInParallel` give its schema converter
 * (`SparkLineShims.ConverterSettings` on those lines). Top-level, not inside the trait: it is
 * serialized with the schema reader's tasks, and a case class declared in a trait would carry
 * an `$outer` reference to the (not serializable) `SparkLineShims`.
 */
final case class ConverterSettings40To41(binaryAsString: Boolean, int96AsTimestamp: Boolean,
    inferTimestampNTZ: Boolean, nanosAsLong: Boolean)

/** The members of `SparkLineShims` that Spark 4.0 and 4.1 share (docs/spark-lines.md). */
trait SparkLine40To41Shims {
  /** No reader settings beyond the common ones (4.2 adds unknown type annotations). */
  def setupLineHadoopConf(hadoopConf: Configuration, sqlConf: SQLConf): Unit = ()

  type ConverterSettings = ConverterSettings40To41

  def converterSettings(sqlConf: SQLConf): ConverterSettings = ConverterSettings40To41(sqlConf.isParquetBinaryAsString,
    sqlConf.isParquetINT96AsTimestamp, sqlConf.parquetInferTimestampNTZEnabled, sqlConf.legacyParquetNanosAsLong)

  def schemaConverter(s: ConverterSettings): ParquetToSparkSchemaConverter = new ParquetToSparkSchemaConverter(
    assumeBinaryIsString = s.binaryAsString,
    assumeInt96IsTimestamp = s.int96AsTimestamp,
    inferTimestampNTZ = s.inferTimestampNTZ,
    nanosAsLong = s.nanosAsLong)

  /** `ParquetProperties` settings the line's parquet-java reads from the job that others lack. */
  def lineWriterProperties(builder: ParquetProperties.Builder, conf: Configuration): ParquetProperties.Builder =
    builder // parquet-java 1.15 and 1.16 have no byte-stream-split setting

  /** The line's `SchemaMergeUtils.mergeSchemasInParallel`, given a reader of schemas that also ignores missing files. */
  def mergeSchemasInParallel(sparkSession: SparkSession, parameters: Map[String, String], files: Seq[FileStatus],
      reader: (Seq[FileStatus], Configuration, Boolean, Boolean) => Seq[StructType]): Option[StructType] =
    SchemaMergeUtils.mergeSchemasInParallel(sparkSession, parameters, files,
      (fs: Seq[FileStatus], conf: Configuration, ignoreCorruptFiles: Boolean) =>
        reader(fs, conf, ignoreCorruptFiles, false)) // 4.0 and 4.1 do not ignore missing files here
}
