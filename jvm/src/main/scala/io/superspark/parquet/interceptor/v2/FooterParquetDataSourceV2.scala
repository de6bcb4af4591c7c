package io.superspark.parquet.interceptor.v2

import org.apache.spark.sql.connector.catalog.Table
import org.apache.spark.sql.execution.datasources.FileFormat
import org.apache.spark.sql.execution.datasources.v2.parquet.ParquetDataSourceV2
import org.apache.spark.sql.types.StructType
import org.apache.spark.sql.util.CaseInsensitiveStringMap

import io.superspark.parquet.interceptor.FooterParquetFileFormat

/**
 * Spark's DSv2 Parquet source (short name `parquet`, so `useV1SourceList` still decides
 * between DSv1 and DSv2) whose tables are [[FooterParquetTable]]s. [[RouteParquetV2Reads]]
 * puts it in place of `parquet` reads when Parquet is a DSv2 source. Its DSv1 fallback (used
 * by Spark where a DSv2 file table falls back to DSv1) is the interceptor's file format.
 */
private[superspark] class FooterParquetDataSourceV2 extends ParquetDataSourceV2 {

  override def fallbackFileFormat: Class[_ <: FileFormat] = classOf[FooterParquetFileFormat]

  override def getTable(options: CaseInsensitiveStringMap): Table = table(options, None)

  override def getTable(options: CaseInsensitiveStringMap, schema: StructType): Table = table(options, Some(schema))

  private def table(options: CaseInsensitiveStringMap, schema: Option[StructType]): Table = {
    val paths = getPaths(options)
    new FooterParquetTable(getTableName(options, paths), sparkSession, getOptionsWithoutPaths(options), paths, schema,
      fallbackFileFormat)
  }
}
