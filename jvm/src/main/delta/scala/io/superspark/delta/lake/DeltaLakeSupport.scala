package io.superspark.delta.lake

import org.apache.spark.sql.{Row, SparkSession}
import org.apache.spark.sql.delta.DeltaParquetFileFormat
import org.apache.spark.sql.execution.datasources.FileFormat

import io.superspark.delta.DeltaTables

/** This jar's [[DeltaTables]]: footer rewrites as a Delta commit, Delta's scans through the footer library. */
private[superspark] object DeltaLakeSupport extends DeltaTables {
  override def rewrite(spark: SparkSession, table: String, command: String, to: String): Seq[Row] =
    DeltaFooterRewrite.rewrite(spark, table, command, to)

  override def footerScanFormat(format: FileFormat): Option[FileFormat] = format match {
    case d: DeltaParquetFileFormat if d.getClass == classOf[DeltaParquetFileFormat] =>
      Some(new FooterDeltaParquetFileFormat(d, None))
    case _ => None
  }
}
