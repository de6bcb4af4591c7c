package io.superspark.parquet.interceptor.v2

import scala.jdk.CollectionConverters._

import org.apache.hadoop.fs.FileStatus
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.connector.expressions.aggregate.{Aggregation, Max, Min}
import org.apache.spark.sql.execution.datasources.{FileFormat, PartitioningAwareFileIndex}
import org.apache.spark.sql.execution.datasources.parquet.ParquetOptions
import org.apache.spark.sql.execution.datasources.v2.parquet.{ParquetScan, ParquetScanBuilder, ParquetTable}
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.superspark.ParquetReaderCopy
import org.apache.spark.sql.types.StructType
import org.apache.spark.sql.util.CaseInsensitiveStringMap

import io.superspark.parquet.interceptor.{FooterInterceptorConf, InterceptorScanHooks}
import io.superspark.parquet.logicaltypes.ParquetLogicalTypes

/**
 * Spark's DSv2 `ParquetTable` with schema inference (including `mergeSchema`) through the
 * footer library (`ParquetReaderCopy.inferSchema`, as the DSv1 interceptor) and scans built by
 * [[FooterParquetScanBuilder]]. With `spark.superspark.parquet.footer.read=false` both are
 * Spark's own.
 */
private[superspark] class FooterParquetTable(
    name: String,
    sparkSession: SparkSession,
    options: CaseInsensitiveStringMap,
    paths: Seq[String],
    userSpecifiedSchema: Option[StructType],
    fallbackFileFormat: Class[_ <: FileFormat])
  extends ParquetTable(name, sparkSession, options, paths, userSpecifiedSchema, fallbackFileFormat) {

  override def inferSchema(files: Seq[FileStatus]): Option[StructType] = {
    if (FooterInterceptorConf.readEnabled(SQLConf.get)) {
      ParquetReaderCopy.inferSchema(sparkSession, options.asScala.toMap, files, InterceptorScanHooks(sparkSession))
    } else {
      super.inferSchema(files)
    }
  }

  override def newScanBuilder(options: CaseInsensitiveStringMap): ParquetScanBuilder =
    new FooterParquetScanBuilder(sparkSession, fileIndex, schema, dataSchema, mergedOptions(options))
}

/**
 * Spark's `ParquetScanBuilder` (all pushdowns Spark's); `build` returns a [[FooterParquetScan]]
 * when the read path is on, unless the input is an archive (Spark's reader, as in DSv1).
 */
private[superspark] class FooterParquetScanBuilder(
    sparkSession: SparkSession,
    fileIndex: PartitioningAwareFileIndex,
    schema: StructType,
    dataSchema: StructType,
    options: CaseInsensitiveStringMap)
  extends ParquetScanBuilder(sparkSession, fileIndex, schema, dataSchema, options) {

  override def build(): ParquetScan = {
    val scan = super.build()
    val sqlConf = SQLConf.get
    val archive = org.apache.spark.sql.superspark.SparkLineShims.archiveFormatEnabled(
      new ParquetOptions(options.asCaseSensitiveMap.asScala.toMap, sqlConf))
    if (FooterInterceptorConf.readEnabled(sqlConf) && !archive) FooterParquetScan(scan) else scan
  }

  /**
   * Spark's aggregate pushdown, except MIN/MAX of a FLOAT16 column: its footer statistics are
   * the two half-float bytes, which Spark's footer aggregation would read as a `float`. Such
   * queries scan the column instead (the pushdown is refused as a whole, as Spark does for an
   * unsupported type).
   */
  override def pushAggregation(aggregation: Aggregation): Boolean = {
    val float16 = dataSchema.fields.filter(ParquetLogicalTypes.isFloat16Column).map(_.name.toLowerCase).toSet
    val minMaxOfFloat16 = float16.nonEmpty && aggregation.aggregateExpressions.exists {
      case m: Min => m.column.references.exists(r => float16.contains(r.fieldNames.mkString(".").toLowerCase))
      case m: Max => m.column.references.exists(r => float16.contains(r.fieldNames.mkString(".").toLowerCase))
      case _ => false
    }
    !minMaxOfFloat16 && super.pushAggregation(aggregation)
  }
}
