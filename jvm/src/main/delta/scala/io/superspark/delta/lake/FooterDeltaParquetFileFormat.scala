package io.superspark.delta.lake

import org.apache.hadoop.conf.Configuration
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.delta.{DeltaColumnMapping, DeltaParquetFileFormat, NameMapping, NoMapping}
import org.apache.spark.sql.execution.datasources.PartitionedFile
import org.apache.spark.sql.execution.datasources.parquet.ParquetFileFormat
import org.apache.spark.sql.sources
import org.apache.spark.sql.sources.Filter
import org.apache.spark.sql.superspark.ParquetReaderCopy
import org.apache.spark.sql.types.StructType

import io.superspark.parquet.interceptor.{FooterInterceptorConf, FooterSQLMetrics, FooterScanFormat, InterceptorScanHooks}

/**
 * Delta Lake's Parquet format, whose scans read footers through the footer library
 * (docs/parquet-interceptor.md, "Delta Lake"). It is Delta's own format, not a replacement: the
 * same parameters, schema handling, splitting and file metadata. Only the reader of plain data
 * columns differs. `DeltaParquetFileFormat.buildReaderWithPartitionValues` turns the schemas to
 * physical names and hands them to Spark's `ParquetFileFormat` reader, which it reaches by a
 * `super` call (no subclass can change that). It wraps that reader only when the scan asks for a
 * column that Delta fills in itself. So this format gives the same physical schemas and filters to
 * the footer library's copy of that reader instead, and leaves every other scan to Delta
 * unchanged:
 *  - scans with Delta's deletion-vector column or a row-index column (deletion vectors, row
 *    tracking, `_metadata.row_index`);
 *  - change-data-feed reads;
 *  - column mapping by id (Spark's reader matches Parquet field ids there).
 * Delta's own rules copy the format for deletion vectors (`copyWithDVInfo`); the copy is Delta's
 * class and reads as Delta does.
 */
private[superspark] class FooterDeltaParquetFileFormat(base: DeltaParquetFileFormat, scanMetrics: Option[FooterSQLMetrics])
  extends DeltaParquetFileFormat(base.protocol, base.metadata, base.nullableRowTrackingConstantFields,
    base.nullableRowTrackingGeneratedFields, base.optimizationsEnabled, base.tablePath, base.isCDCRead)
  with FooterScanFormat {

  override def withScanMetrics(metrics: FooterSQLMetrics): FooterDeltaParquetFileFormat =
    new FooterDeltaParquetFileFormat(base, Some(metrics))

  /** Whether the footer library reads this scan (see the class comment for the ones it leaves to Delta). */
  private[delta] def readsThroughFooters(sparkSession: SparkSession, requiredSchema: StructType): Boolean =
    FooterInterceptorConf.readEnabled(sparkSession.sessionState.conf) && !isCDCRead &&
      (columnMappingMode == NoMapping || columnMappingMode == NameMapping) &&
      !requiredSchema.fieldNames.exists(FooterDeltaParquetFileFormat.DeltaFilledColumns.contains)

  override def buildReaderWithPartitionValues(
      sparkSession: SparkSession,
      dataSchema: StructType,
      partitionSchema: StructType,
      requiredSchema: StructType,
      filters: Seq[Filter],
      options: Map[String, String],
      hadoopConf: Configuration): PartitionedFile => Iterator[InternalRow] = {
    if (!readsThroughFooters(sparkSession, requiredSchema)) {
      super.buildReaderWithPartitionValues(sparkSession, dataSchema, partitionSchema, requiredSchema, filters,
        options, hadoopConf)
    } else {
      ParquetReaderCopy.buildReader(sparkSession, prepareSchemaForRead(partitionSchema),
        prepareSchemaForRead(requiredSchema), physicalFilters(dataSchema, filters), options, hadoopConf,
        InterceptorScanHooks(sparkSession, scanMetrics))
    }
  }

  /**
   * The filters on physical column names. Pushed filters only let the reader skip row groups
   * (Spark evaluates them again above the scan), so one that cannot be renamed (a nested column)
   * is left out: a conjunct of an `And` alone, an `Or` or `Not` whole.
   */
  private def physicalFilters(dataSchema: StructType, filters: Seq[Filter]): Seq[Filter] =
    if (columnMappingMode == NoMapping) filters
    else {
      val physical = dataSchema.fields.map(f => f.name -> DeltaColumnMapping.getPhysicalName(f)).toMap
      filters.flatMap(FooterDeltaParquetFileFormat.renamed(_, physical))
    }
}

private[superspark] object FooterDeltaParquetFileFormat {
  /** Columns Delta fills in itself around Spark's reader: scans asking for one stay Delta's. */
  val DeltaFilledColumns: Set[String] = Set(DeltaParquetFileFormat.IS_ROW_DELETED_COLUMN_NAME,
    DeltaParquetFileFormat.ROW_INDEX_COLUMN_NAME, ParquetFileFormat.ROW_INDEX_TEMPORARY_COLUMN_NAME)

  /**
   * `filter` with its top-level column names renamed by `names`, or a weaker filter (a conjunct
   * left out) when not `exact`; None when neither can be had. Under `Not` only the exact filter
   * will do: the negation of a weaker filter is a stronger one.
   */
  private[delta] def renamed(filter: Filter, names: Map[String, String], exact: Boolean = false): Option[Filter] = {
    def n(a: String) = names.get(a)
    filter match {
      case sources.EqualTo(a, v) => n(a).map(sources.EqualTo(_, v))
      case sources.EqualNullSafe(a, v) => n(a).map(sources.EqualNullSafe(_, v))
      case sources.GreaterThan(a, v) => n(a).map(sources.GreaterThan(_, v))
      case sources.GreaterThanOrEqual(a, v) => n(a).map(sources.GreaterThanOrEqual(_, v))
      case sources.LessThan(a, v) => n(a).map(sources.LessThan(_, v))
      case sources.LessThanOrEqual(a, v) => n(a).map(sources.LessThanOrEqual(_, v))
      case sources.In(a, vs) => n(a).map(sources.In(_, vs))
      case sources.IsNull(a) => n(a).map(sources.IsNull(_))
      case sources.IsNotNull(a) => n(a).map(sources.IsNotNull(_))
      case sources.StringStartsWith(a, v) => n(a).map(sources.StringStartsWith(_, v))
      case sources.StringEndsWith(a, v) => n(a).map(sources.StringEndsWith(_, v))
      case sources.StringContains(a, v) => n(a).map(sources.StringContains(_, v))
      case sources.And(l, r) => (renamed(l, names, exact), renamed(r, names, exact)) match {
        case (Some(x), Some(y)) => Some(sources.And(x, y))
        case (x, y) => if (exact) None else x.orElse(y)
      }
      case sources.Or(l, r) => for (x <- renamed(l, names, exact); y <- renamed(r, names, exact)) yield sources.Or(x, y)
      case sources.Not(c) => renamed(c, names, exact = true).map(sources.Not(_))
      case f @ (sources.AlwaysTrue | sources.AlwaysFalse) => Some(f)
      case _ => None
    }
  }
}
