package io.superspark.delta

import org.apache.spark.sql.{Row, SparkSession}
import org.apache.spark.sql.execution.datasources.FileFormat

/**
 * What superspark does with Delta Lake tables (`DeltaLakeSupport`, compiled on the Spark lines
 * with a Delta Lake release, `jvm/src/main/delta/`): footer rewrites as a Delta commit, and
 * Delta's scans through the footer library. Shared code reaches it only through
 * [[DeltaTables.available]], so a jar without it, or a session without Delta Lake's jar, loads no
 * Delta class.
 */
private[superspark] trait DeltaTables {
  /** Rewrites every data file of the table's current version; one row per file (`FooterTableJob.Schema`). */
  def rewrite(spark: SparkSession, table: String, command: String, to: String): Seq[Row]

  /** Delta's Parquet format as one whose scans read footers through the footer library; None for another format. */
  def footerScanFormat(format: FileFormat): Option[FileFormat]
}

private[superspark] object DeltaTables {
  private def load(name: String): Class[_] =
    Class.forName(name, true, Option(Thread.currentThread.getContextClassLoader).getOrElse(getClass.getClassLoader))

  /** Delta Lake's Parquet format, by name (loading it needs Delta's jar). */
  val ParquetFormatClass = "org.apache.spark.sql.delta.DeltaParquetFileFormat"

  /** This jar's Delta support, when it has one and Delta Lake is on the classpath. */
  lazy val available: Option[DeltaTables] =
    try {
      load("org.apache.spark.sql.delta.DeltaLog")
      Some(load("io.superspark.delta.lake.DeltaLakeSupport$").getField("MODULE$").get(null).asInstanceOf[DeltaTables])
    } catch {
      case _: ClassNotFoundException => None
    }
}
