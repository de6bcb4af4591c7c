package io.superspark.parquet.interceptor

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.FileStatus
import org.apache.hadoop.mapreduce.Job
import org.apache.parquet.hadoop.ParquetOutputFormat
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.execution.datasources.{OutputWriterFactory, PartitionedFile}
import org.apache.spark.sql.execution.datasources.parquet.{ParquetFileFormat, ParquetOptions}
import org.apache.spark.sql.sources.Filter
import org.apache.spark.sql.superspark.ParquetReaderCopy
import org.apache.spark.sql.types.StructType

import io.superspark.parquet.footer.codec.FooterForm
import io.superspark.parquet.alp.spark.{AlpWriteMetrics, AlpWriteOptions, AlpWriteSupport}
import io.superspark.parquet.logicaltypes.{Float16Columns, ParquetLogicalTypes, TaggedParquetWriteSupport}

/**
 * Spark's Parquet file format with footers read and written through the footer library
 * (docs/parquet-interceptor.md). The rules of [[ParquetFormatRules]] put it in place of
 * `ParquetFileFormat`. Each part falls back to Spark's own when its config is off:
 * reads (`spark.superspark.parquet.footer.read`, default true) and writes
 * (`spark.superspark.parquet.footer.write`, default false). UUID/JSON tagged columns are
 * written with their Parquet logical types either way. `scanMetrics`: the counters of the
 * [[FooterScanExec]] that reads through this instance (None: new counters per reader).
 */
private[superspark] class FooterParquetFileFormat(scanMetrics: Option[FooterSQLMetrics]) extends ParquetFileFormat with FooterScanFormat {

  /** As named by `format(...)` or put in place by the rules: counters made per scan. */
  def this() = this(None)

  override def withScanMetrics(metrics: FooterSQLMetrics): FooterParquetFileFormat = new FooterParquetFileFormat(Some(metrics))

  override def inferSchema(
      sparkSession: SparkSession,
      parameters: Map[String, String],
      files: Seq[FileStatus]): Option[StructType] = {
    if (FooterInterceptorConf.readEnabled(sparkSession.sessionState.conf)) {
      ParquetReaderCopy.inferSchema(sparkSession, parameters, files, InterceptorScanHooks(sparkSession))
    } else {
      super.inferSchema(sparkSession, parameters, files)
    }
  }

  /**
   * Spark's vector classes, except with FLOAT16 columns: their vectors are views
   * ([[Float16Columns]]), so generated code sees plain `ColumnVector`s.
   */
  override def vectorTypes(
      requiredSchema: StructType,
      partitionSchema: StructType,
      sqlConf: org.apache.spark.sql.internal.SQLConf): Option[Seq[String]] =
    if (Float16Columns.positions(requiredSchema).nonEmpty) None
    else super.vectorTypes(requiredSchema, partitionSchema, sqlConf)

  /** Spark's rule, except that FLOAT16 columns are read by rows on lines whose vectorized reader cannot. */
  override def supportBatch(sparkSession: SparkSession, schema: StructType): Boolean =
    super.supportBatch(sparkSession, schema) &&
      (org.apache.spark.sql.superspark.SparkLineShims.vectorizedFloat16 || Float16Columns.positions(schema).isEmpty)

  override def buildReaderWithPartitionValues(
      sparkSession: SparkSession,
      dataSchema: StructType,
      partitionSchema: StructType,
      requiredSchema: StructType,
      filters: Seq[Filter],
      options: Map[String, String],
      hadoopConf: Configuration): PartitionedFile => Iterator[InternalRow] = {
    val sqlConf = sparkSession.sessionState.conf
    // Archive inputs (a Spark 4.3 feature) stay on Spark's own reader.
    if (!FooterInterceptorConf.readEnabled(sqlConf) || org.apache.spark.sql.superspark.SparkLineShims.archiveFormatEnabled(new ParquetOptions(options, sqlConf))) {
      super.buildReaderWithPartitionValues(sparkSession, dataSchema, partitionSchema, requiredSchema, filters,
        options, hadoopConf)
    } else {
      ParquetReaderCopy.buildReader(sparkSession, partitionSchema, requiredSchema, filters, options, hadoopConf,
        InterceptorScanHooks(sparkSession, scanMetrics))
    }
  }

  override def prepareWrite(
      sparkSession: SparkSession,
      job: Job,
      options: Map[String, String],
      dataSchema: StructType): OutputWriterFactory = {
    val factory = super.prepareWrite(sparkSession, job, options, dataSchema)
    val sqlConf = sparkSession.sessionState.conf
    val alp = AlpWriteOptions.resolve(dataSchema, options, sqlConf)
    alp.foreach { case (ordinals, form) =>
      AlpWriteOptions.set(job.getConfiguration, ordinals, form)
      ParquetOutputFormat.setWriteSupportClass(job, classOf[AlpWriteSupport])
    }
    if (alp.isEmpty && ParquetLogicalTypes.hasWriteTags(dataSchema)) {
      ParquetOutputFormat.setWriteSupportClass(job, classOf[TaggedParquetWriteSupport])
    }
    val alpMetrics = alp.map(_ => AlpWriteMetrics.register(sparkSession.sparkContext))
    if (FooterInterceptorConf.writeEnabled(sqlConf)) {
      new FooterOutputWriterFactory(factory, FooterInterceptorConf.form(sqlConf), alpMetrics)
    } else if (alp.isDefined) new FooterOutputWriterFactory(factory, FooterForm.Plain, alpMetrics)
    else factory
  }
}
