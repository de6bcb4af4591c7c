package io.superspark.bsup.spark

import io.superspark.bsup._
import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.{FileStatus, Path}
import org.apache.hadoop.mapreduce.Job
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.execution.datasources.{FileFormat, OutputWriterFactory, PartitionedFile}
import org.apache.spark.sql.execution.vectorized.OnHeapColumnVector
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.sources.{DataSourceRegister, Filter}
import org.apache.spark.sql.superspark.SuperSparkSQLConf
import org.apache.spark.sql.types._
import org.apache.spark.util.SerializableConfiguration

/**
 * The `bsup` data source: Super Binary files read and written through Spark's file-source
 * machinery (partition folders, globs, `recursiveFileLookup`, the commit protocol, splits),
 * in the manner of Spark's Avro source.
 *
 * {{{
 *   spark.read.format("bsup").load("/data/logs")
 *   df.write.format("bsup").option("compression", "lz4").save("/out")
 * }}}
 */
private[superspark] class BsupFileFormat extends FileFormat with DataSourceRegister with Serializable {
  override def shortName(): String = "bsup"
  override def toString: String = "BSUP"
  override def equals(other: Any): Boolean = other.isInstanceOf[BsupFileFormat]
  override def hashCode(): Int = classOf[BsupFileFormat].hashCode()

  private def bsupOptions(spark: SparkSession, options: Map[String, String]): BsupOptions =
    new BsupOptions(options, spark.sessionState.conf.columnNameOfCorruptRecord)

  override def inferSchema(spark: SparkSession, options: Map[String, String],
      files: Seq[FileStatus]): Option[StructType] = {
    val opts = bsupOptions(spark, options)
    if (opts.variant) return Some(StructType(Seq(StructField(SuperTypes.ValueColumn, VariantType))))
    val conf = spark.sessionState.newHadoopConfWithOptions(options)
    val nonEmpty = files.filter(_.getLen > 0)
    val step = math.max(1, math.round(1.0 / opts.samplingRatio).toInt)
    BsupInference.inferSchema(nonEmpty.indices.filter(_ % step == 0).map(nonEmpty).map(f => (f.getPath, f.getLen)),
      conf, opts, SuperSparkSQLConf.bsupInferenceThreads(spark.sessionState.conf))
  }

  override def isSplitable(spark: SparkSession, options: Map[String, String], path: Path): Boolean = true

  override def supportDataType(dataType: DataType): Boolean = dataType match {
    case _: CalendarIntervalType | _: UserDefinedType[_] => false
    case org.apache.spark.sql.types.ArrayType(e, _) => supportDataType(e)
    case org.apache.spark.sql.types.MapType(k, v, _) => supportDataType(k) && supportDataType(v)
    case s: StructType => s.forall(f => supportDataType(f.dataType))
    case _ => true
  }

  override def prepareWrite(spark: SparkSession, job: Job, options: Map[String, String],
      dataSchema: StructType): OutputWriterFactory = {
    // Without a `version` option, columns read from data of one later version write that version.
    val kept = SuperTypes.versionOf(dataSchema).filter(_ => !options.keys.exists(_.equalsIgnoreCase("version")))
    val opts = bsupOptions(spark, options ++ kept.map(v => "version" -> v.toString))
    // Fail now, on the driver, if a column has no Super type.
    new SparkWriters.StructWriter(BsupOutputWriter.recordType(dataSchema, opts), dataSchema,
      WriteConf.forWrite(opts.version, opts.superdbReadable))
    new BsupOutputWriterFactory(opts)
  }

  /**
   * Columnar batches (BsupBatchReader) when the setting is on and every column has a type the
   * column vectors hold; else rows.
   */
  override def supportBatch(spark: SparkSession, schema: StructType): Boolean =
    SuperSparkSQLConf.bsupVectorized(spark.sessionState.conf) && schema.forall(f => VectorReaders.supports(f.dataType))

  override def vectorTypes(requiredSchema: StructType, partitionSchema: StructType,
      sqlConf: SQLConf): Option[Seq[String]] =
    Some(Seq.fill(requiredSchema.length + partitionSchema.length)(classOf[OnHeapColumnVector].getName))

  override def buildReaderWithPartitionValues(
      spark: SparkSession,
      dataSchema: StructType,
      partitionSchema: StructType,
      requiredSchema: StructType,
      filters: Seq[Filter],
      options: Map[String, String],
      hadoopConf: Configuration): PartitionedFile => Iterator[InternalRow] = {
    // The scan says whether it takes batches (it asked supportBatch with the same schema).
    val batches = options.get(FileFormat.OPTION_RETURNING_BATCH).map(_.toBoolean)
      .getOrElse(supportBatch(spark, StructType(requiredSchema.fields ++ partitionSchema.fields)))
    if (!batches) {
      super.buildReaderWithPartitionValues(spark, dataSchema, partitionSchema, requiredSchema, filters, options, hadoopConf)
    } else {
      val opts = bsupOptions(spark, options)
      val conf = spark.sparkContext.broadcast(new SerializableConfiguration(hadoopConf))
      val filter = if (opts.variant) None else BsupFilters.compile(filters, requiredSchema)
      (file: PartitionedFile) => new BsupBatchReader(file, conf.value.value, requiredSchema, partitionSchema, opts, filter,
        BsupBatchReader.Capacity).asInstanceOf[Iterator[InternalRow]]
    }
  }

  override def buildReader(
      spark: SparkSession,
      dataSchema: StructType,
      partitionSchema: StructType,
      requiredSchema: StructType,
      filters: Seq[Filter],
      options: Map[String, String],
      hadoopConf: Configuration): PartitionedFile => Iterator[InternalRow] = {
    val opts = bsupOptions(spark, options)
    val conf = spark.sparkContext.broadcast(new SerializableConfiguration(hadoopConf))
    // Filters on top-level columns, evaluated before the rest of a record is converted.
    val filter = if (opts.variant) None else BsupFilters.compile(filters, requiredSchema)
    (file: PartitionedFile) => new BsupRowIterator(file, conf.value.value, requiredSchema, opts, filter)
  }
}
