package io.superspark.parquet.interceptor.v2

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.plans.logical.{LogicalPlan, UnresolvedDataSource}
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.execution.datasources.v2.parquet.ParquetDataSourceV2

import io.superspark.parquet.interceptor.ParquetFormatRules

/**
 * Hint-resolution rule (runs before `ResolveDataSource`): when Parquet is a DSv2 source
 * (`spark.sql.sources.useV1SourceList` without `parquet`), `spark.read.parquet(...)` /
 * `spark.read.format("parquet")` resolve to [[FooterParquetDataSourceV2]], so the
 * `DataSourceV2Relation` holds a [[FooterParquetTable]]. This has to happen before the relation
 * is created: creating it infers the schema. (DSv1 reads are routed by `RouteParquetReads`.)
 */
private[superspark] case class RouteParquetV2Reads(session: SparkSession) extends Rule[LogicalPlan] {
  private val SparkV2Name = classOf[ParquetDataSourceV2].getName

  override def apply(plan: LogicalPlan): LogicalPlan = plan.resolveOperatorsUp {
    case u: UnresolvedDataSource if !u.isStreaming && !ParquetFormatRules.usesV1(conf) &&
        (ParquetFormatRules.isSparkParquet(u.format) || u.format.equalsIgnoreCase(SparkV2Name)) =>
      u.copy(format = classOf[FooterParquetDataSourceV2].getName)
  }
}
