package io.superspark.parquet.interceptor

import java.util.Locale

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.plans.logical.{LogicalPlan, UnresolvedDataSource}
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.execution.datasources.{HadoopFsRelation, InsertIntoHadoopFsRelationCommand, LogicalRelation}
import org.apache.spark.sql.execution.datasources.parquet.ParquetFileFormat
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.superspark.AnalyzerTransforms

import io.superspark.delta.DeltaTables

/** How the interceptor finds Spark's Parquet source in a plan. */
private[superspark] object ParquetFormatRules {
  private val ParquetNames = Set("parquet", classOf[ParquetFileFormat].getName.toLowerCase(Locale.ROOT),
    "org.apache.spark.sql.parquet", "org.apache.spark.sql.parquet.defaultsource",
    "org.apache.spark.sql.execution.datasources.parquet",
    "org.apache.spark.sql.execution.datasources.parquet.defaultsource")

  def isSparkParquet(format: String): Boolean = ParquetNames.contains(format.toLowerCase(Locale.ROOT))

  /** Exactly Spark's format (not ours, not another subclass). */
  def isSparkParquet(format: org.apache.spark.sql.execution.datasources.FileFormat): Boolean =
    format.getClass == classOf[ParquetFileFormat]

  /**
   * Option key added to the relations and write commands the rule rewrites. Spark's
   * `ParquetFileFormat.equals` holds for any subclass, so without it the rewritten node would
   * equal the original and tree transforms would keep the original.
   */
  val MarkerOption = "superspark.parquet.footer"

  /** Parquet reads by path are DSv1 unless the user moved parquet off `useV1SourceList`. */
  def usesV1(conf: SQLConf): Boolean =
    conf.getConf(SQLConf.USE_V1_SOURCE_LIST).toLowerCase(Locale.ROOT).split(",").map(_.trim).contains("parquet")
}

/**
 * Hint-resolution rule (runs before `ResolveDataSource`): `spark.read.parquet(...)` /
 * `spark.read.format("parquet")` resolve to [[FooterParquetFileFormat]], so schema inference
 * and the scan go through the footer library. DSv2 Parquet reads are left alone.
 */
private[superspark] case class RouteParquetReads(session: SparkSession) extends Rule[LogicalPlan] {
  override def apply(plan: LogicalPlan): LogicalPlan = plan.resolveOperatorsUp {
    case u: UnresolvedDataSource if !u.isStreaming && ParquetFormatRules.isSparkParquet(u.format) &&
        ParquetFormatRules.usesV1(conf) =>
      u.copy(format = classOf[FooterParquetFileFormat].getName)
  }
}

/**
 * Post-hoc resolution rule (after `FindDataSourceTable` and `DataSourceAnalysis`): catalog
 * tables and writes (`df.write.parquet`, `INSERT`, partitioned and dynamic-overwrite inserts)
 * use [[FooterParquetFileFormat]] instead of Spark's `ParquetFileFormat`, and Delta Lake's scans
 * Delta's own format with footers read through the footer library
 * (`io.superspark.delta.lake.FooterDeltaParquetFileFormat`).
 */
private[superspark] case class SwapParquetFormat(session: SparkSession) extends Rule[LogicalPlan] {
  override def apply(plan: LogicalPlan): LogicalPlan = AnalyzerTransforms.transformUp(plan) {
    case l @ LogicalRelation(r: HadoopFsRelation, _, _, _, _) if ParquetFormatRules.isSparkParquet(r.fileFormat) =>
      val options = r.options + (ParquetFormatRules.MarkerOption -> "true")
      l.copy(relation = r.copy(fileFormat = new FooterParquetFileFormat, options = options)(r.sparkSession))
    case l @ LogicalRelation(r: HadoopFsRelation, _, _, _, _) if !r.options.contains(ParquetFormatRules.MarkerOption) &&
        r.fileFormat.getClass.getName == DeltaTables.ParquetFormatClass && DeltaTables.available.isDefined =>
      DeltaTables.available.flatMap(_.footerScanFormat(r.fileFormat)).fold(l) { format =>
        val options = r.options + (ParquetFormatRules.MarkerOption -> "true")
        l.copy(relation = r.copy(fileFormat = format, options = options)(r.sparkSession))
      }
    case i: InsertIntoHadoopFsRelationCommand if ParquetFormatRules.isSparkParquet(i.fileFormat) =>
      i.copy(fileFormat = new FooterParquetFileFormat, options = i.options + (ParquetFormatRules.MarkerOption -> "true"))
  }
}
