package io.superspark.delta.lake

import org.apache.hadoop.conf.Configuration
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.delta.{DefaultRowCommitVersion, DeltaColumnMapping, DeltaParquetFileFormat, NameMapping, NoMapping, RowId}
import org.apache.spark.sql.delta.actions.{Metadata, Protocol}
import org.apache.spark.sql.delta.sources.DeltaSQLConf
import org.apache.spark.sql.execution.datasources.PartitionedFile
import org.apache.spark.sql.execution.datasources.parquet.ParquetFileFormat
import org.apache.spark.sql.sources
import org.apache.spark.sql.sources.Filter
import org.apache.spark.sql.superspark.ParquetReaderCopy
import org.apache.spark.sql.types.StructType
import org.apache.spark.util.SerializableConfiguration

import io.superspark.parquet.interceptor.{FooterInterceptorConf, FooterSQLMetrics, FooterScanFormat, InterceptorScanHooks}

/**
 * Delta Lake's Parquet format, whose scans read footers through the footer library
 * (docs/parquet-interceptor.md, "Delta Lake"). It is Delta's own format, not a replacement: the
 * same parameters, schema handling, splitting and file metadata. Only the reader of the data
 * columns differs. `DeltaParquetFileFormat.buildReaderWithPartitionValues` turns the schemas to
 * physical names and hands them to Spark's `ParquetFileFormat` reader, which it reaches by a
 * `super` call (no subclass can change that). This format gives the same physical schemas and
 * filters to the footer library's copy of that reader instead:
 *  - `_metadata.row_index` and row tracking (`_metadata.row_id`, `row_commit_version`): Spark's
 *    `_tmp_metadata_row_index`, which the reader fills as Spark's does; Delta computes the rest
 *    in its plan;
 *  - deletion vectors, when Delta marks rows by that row index (its default,
 *    `spark.databricks.delta.deletionVectors.useMetadataRowIndex`): the row-deleted column is
 *    filled beside the reader ([[DeletedRowsColumn]]).
 * Left to Delta's reader: scans with Delta's own row counter (`__delta_internal_row_index`, the
 * no-splitting path), change-data-feed reads, and column mapping by id (Spark's reader matches
 * Parquet field ids there). Delta's rules copy the format (deletion vectors, row tracking, DML
 * scans); `copy` keeps this class and its scan metrics through them.
 *
 * Its file-constant metadata extractors are Delta's, closed over the one flag they read rather
 * than over the format: Spark ships them in every task of a scan, and Delta's close over the
 * format and with it the table's whole `Metadata` (its schema JSON and parsed schemas: 0.97 MB
 * and 14 ms to deserialize per task at 10,000 columns).
 */
private[superspark] class FooterDeltaParquetFileFormat(base: DeltaParquetFileFormat, scanMetrics: Option[FooterSQLMetrics])
  extends DeltaParquetFileFormat(base.protocol, base.metadata, base.nullableRowTrackingConstantFields,
    base.nullableRowTrackingGeneratedFields, base.optimizationsEnabled, base.tablePath, base.isCDCRead)
  with FooterScanFormat {

  override def withScanMetrics(metrics: FooterSQLMetrics): FooterDeltaParquetFileFormat =
    new FooterDeltaParquetFileFormat(base, Some(metrics))

  override def copy(
      protocol: Protocol,
      metadata: Metadata,
      nullableRowTrackingConstantFields: Boolean,
      nullableRowTrackingGeneratedFields: Boolean,
      optimizationsEnabled: Boolean,
      tablePath: Option[String],
      isCDCRead: Boolean): DeltaParquetFileFormat =
    new FooterDeltaParquetFileFormat(base.copy(protocol, metadata, nullableRowTrackingConstantFields,
      nullableRowTrackingGeneratedFields, optimizationsEnabled, tablePath, isCDCRead), scanMetrics)

  override def fileConstantMetadataExtractors: Map[String, PartitionedFile => Any] = {
    val nullable = nullableRowTrackingConstantFields
    FooterDeltaParquetFileFormat.RowTrackingConstants.foldLeft(super.fileConstantMetadataExtractors) { (m, key) =>
      if (m.contains(key)) m.updated(key, FooterDeltaParquetFileFormat.constantOf(key, nullable)) else m
    }
  }

  /** Whether Delta marks deleted rows by Spark's row index (its default) rather than its own counter. */
  private def usesMetadataRowIndex(sparkSession: SparkSession): Boolean =
    useMetadataRowIndexOpt.getOrElse(
      sparkSession.sessionState.conf.getConf(DeltaSQLConf.DELETION_VECTORS_USE_METADATA_ROW_INDEX))

  /** Whether the footer library reads this scan (see the class comment for the ones it leaves to Delta). */
  private[delta] def readsThroughFooters(sparkSession: SparkSession, requiredSchema: StructType): Boolean = {
    val names = requiredSchema.fieldNames.toSet
    FooterInterceptorConf.readEnabled(sparkSession.sessionState.conf) && !isCDCRead &&
      (columnMappingMode == NoMapping || columnMappingMode == NameMapping) &&
      !names.contains(DeltaParquetFileFormat.ROW_INDEX_COLUMN_NAME) &&
      (!names.contains(DeltaParquetFileFormat.IS_ROW_DELETED_COLUMN_NAME) ||
        (usesMetadataRowIndex(sparkSession) && names.contains(ParquetFileFormat.ROW_INDEX_TEMPORARY_COLUMN_NAME)))
  }

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
      val reader = ParquetReaderCopy.buildReader(sparkSession, prepareSchemaForRead(partitionSchema),
        prepareSchemaForRead(requiredSchema), physicalFilters(dataSchema, filters), options, hadoopConf,
        InterceptorScanHooks(sparkSession, scanMetrics))
      if (!requiredSchema.fieldNames.contains(DeltaParquetFileFormat.IS_ROW_DELETED_COLUMN_NAME)) reader
      else {
        val deleted = new DeletedRowsColumn(
          requiredSchema.fieldIndex(DeltaParquetFileFormat.IS_ROW_DELETED_COLUMN_NAME),
          requiredSchema.fieldIndex(ParquetFileFormat.ROW_INDEX_TEMPORARY_COLUMN_NAME), tablePath,
          new SerializableConfiguration(hadoopConf), sparkSession.sessionState.conf.offHeapColumnVectorEnabled)
        file => deleted.fill(file, reader(file))
      }
    }
  }

  /**
   * The filters on physical column names, none where Delta pushes none. Pushed filters only let the reader skip row groups
   * (Spark evaluates them again above the scan), so one that cannot be renamed (a nested column)
   * is left out: a conjunct of an `And` alone, an `Or` or `Not` whole.
   */
  private def physicalFilters(dataSchema: StructType, filters: Seq[Filter]): Seq[Filter] =
    if (!optimizationsEnabled) Nil // Delta's DML scans: no filter reaches the reader there
    else if (columnMappingMode == NoMapping) filters
    else {
      val physical = dataSchema.fields.map(f => f.name -> DeltaColumnMapping.getPhysicalName(f)).toMap
      filters.flatMap(FooterDeltaParquetFileFormat.renamed(_, physical))
    }
}

private[superspark] object FooterDeltaParquetFileFormat {
  /** The file constants row tracking adds to `_metadata` (Delta's `DeltaParquetFileFormatBase`). */
  private val RowTrackingConstants = Seq(RowId.BASE_ROW_ID, DefaultRowCommitVersion.METADATA_STRUCT_FIELD_NAME)

  /**
   * Delta's extractor of a row-tracking file constant: the value Delta's scan put in the file's
   * constant metadata; when it is missing, null if the fields are nullable, else Delta's error.
   * A function of `key` and `nullable` alone (see the class comment).
   */
  private[delta] def constantOf(key: String, nullable: Boolean): PartitionedFile => Any = file =>
    file.otherConstantMetadataColumnValues.getOrElse(key,
      if (nullable) null else throw new IllegalStateException(s"Missing $key value for file '${file.filePath}'"))

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
