package io.superspark.parquet.interceptor

import org.apache.spark.sql.execution.datasources.FileFormat

/**
 * A file format whose scans read footers through the footer library: Spark's Parquet format
 * ([[FooterParquetFileFormat]]) or a table format's own subclass of it (Delta Lake's,
 * `jvm/src/main/delta/`). [[InstrumentFooterScans]] makes each of their scans a
 * [[FooterScanExec]], whose counters the format it gets from `withScanMetrics` records into.
 */
private[superspark] trait FooterScanFormat { self: FileFormat =>

  /** This format, counting into `metrics`. */
  def withScanMetrics(metrics: FooterSQLMetrics): FileFormat
}
