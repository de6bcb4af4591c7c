package io.superspark.parquet.interceptor.v2

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.connector.expressions.aggregate.Aggregation
import org.apache.spark.sql.connector.metric.CustomMetric
import org.apache.spark.sql.connector.read.PartitionReaderFactory
import org.apache.spark.sql.execution.WholeStageCodegenExec
import org.apache.spark.sql.execution.datasources.FileFormat
import org.apache.spark.sql.execution.datasources.parquet.{ParquetOptions, ParquetUtils}
import org.apache.spark.sql.execution.datasources.v2.parquet.ParquetScan
import org.apache.spark.sql.superspark.ParquetReaderCopy
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.types.StructType
import org.apache.spark.util.SerializableConfiguration

import io.superspark.parquet.interceptor.{FooterInterceptorConf, FooterSQLMetrics, InterceptorScanHooks}

/**
 * Spark's DSv2 `ParquetScan` (planning, splits, pushdown, explain output all Spark's) whose
 * readers decode footers through the footer library: the partition readers run the DSv1
 * reader of the interceptor (`ParquetReaderCopy.buildReader`, filter pushdown and row-group
 * pruning, vectorized and row-based readers) and report the footer counts as custom metrics.
 * Pushed aggregates are answered from footers read the same way ([[FooterAggregateReaderFactory]]).
 *
 * The behaviour, shared by every line; the class, with the line's `ParquetScan` constructor, is
 * `FooterParquetScan` in the line's folder (4.1+: with the pushed variant extractions).
 */
private[superspark] trait FooterParquetScanBase extends ParquetScan {
  /** The session's settings (`FileScan.conf` from 4.1). */
  private def sessionConf: SQLConf = sparkSession.sessionState.conf

  override def createReaderFactory(): PartitionReaderFactory =
    if (pushedAggregate.nonEmpty) aggregateReaderFactory(pushedAggregate.get) else readerFactory()

  /**
   * Spark's `ParquetPartitionReaderFactory.supportsColumnar` for this result schema, except that
   * FLOAT16 columns are read by rows on lines whose vectorized reader cannot read them.
   */
  private def columnar(resultSchema: StructType): Boolean =
    ParquetUtils.isBatchReadSupportedForSchema(sessionConf, resultSchema) && sessionConf.wholeStageEnabled &&
      !WholeStageCodegenExec.isTooManyFields(sessionConf, resultSchema) &&
      (org.apache.spark.sql.superspark.SparkLineShims.vectorizedFloat16 ||
        io.superspark.parquet.logicaltypes.Float16Columns.positions(resultSchema).isEmpty)

  private def readerFactory(): PartitionReaderFactory = {
    // The data columns as Spark's factory reads them (with pushed variant extractions
    // rewritten, as ParquetScan's private effectiveReadDataSchema; readSchema() appends the
    // partition columns, which the rewrite leaves alone).
    val requiredSchema = StructType(readSchema().fields.take(readDataSchema.length))
    val resultSchema = StructType(readPartitionSchema.fields ++ requiredSchema.fields)
    val batches = columnar(resultSchema)
    val caseSensitiveOptions = options.asCaseSensitiveMap.asScala.toMap
    val read = ParquetReaderCopy.buildReader(sparkSession, readPartitionSchema, requiredSchema, pushedFilters.toSeq,
      caseSensitiveOptions + (FileFormat.OPTION_RETURNING_BATCH -> batches.toString), hadoopConf,
      InterceptorScanHooks(sparkSession))
    new FooterPartitionReaderFactory(read, batches, new ParquetOptions(caseSensitiveOptions, sessionConf))
  }

  /** Pushed aggregates: one row per file from its footer's statistics (readDataSchema is the aggregates'). */
  private def aggregateReaderFactory(aggregation: Aggregation): PartitionReaderFactory = {
    val broadcastedConf = sparkSession.sparkContext.broadcast(new SerializableConfiguration(hadoopConf))
    val parquetOptions = new ParquetOptions(options.asCaseSensitiveMap.asScala.toMap, sessionConf)
    new FooterAggregateReaderFactory(broadcastedConf, dataSchema, readDataSchema, readPartitionSchema, aggregation,
      parquetOptions, parquetOptions.datetimeRebaseModeInRead,
      columnar(StructType(readPartitionSchema.fields ++ readDataSchema.fields)), sessionConf.offHeapColumnVectorEnabled,
      sessionConf.caseSensitiveAnalysis, FooterInterceptorConf.strict(sessionConf), FooterInterceptorConf.cacheBytes(sessionConf),
      FooterSQLMetrics.create(sparkSession.sparkContext))
  }

  /** Spark's metrics and the footer counts: each line's class reports these as `supportedCustomMetrics`. */
  protected def footerCustomMetrics(spark: Array[CustomMetric]): Array[CustomMetric] = spark ++ FooterCustomMetrics.supported

  // FileScan names the format after the class ("footerparquet"); keep Spark's "parquet".
  // EXPLAIN also names the footer library and its cache, as the DSv1 node does.
  override def getMetaData(): Map[String, String] = super.getMetaData() + ("Format" -> "parquet") +
    ("FooterLibrary" -> FooterInterceptorConf.explain(sessionConf))
}
