package org.apache.spark.sql.superspark

import java.time.ZoneId
import java.util.concurrent.atomic.AtomicBoolean

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.FileStatus
import org.apache.hadoop.mapred.FileSplit
import org.apache.hadoop.mapreduce.{JobID, TaskAttemptID, TaskID, TaskType}
import org.apache.hadoop.mapreduce.task.TaskAttemptContextImpl
import org.apache.parquet.filter2.compat.FilterCompat
import org.apache.parquet.filter2.predicate.{FilterApi, FilterPredicate}
import org.apache.parquet.hadoop.{Footer, ParquetInputFormat, ParquetRecordReader}
import org.apache.parquet.hadoop.api.InitContext
import org.apache.parquet.hadoop.api.ReadSupport.ReadContext
import org.apache.parquet.io.api.RecordMaterializer
import org.apache.parquet.schema.MessageType
import org.apache.spark.TaskContext
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{JoinedRow, UnsafeProjection}
import org.apache.spark.sql.catalyst.types.DataTypeUtils
import org.apache.spark.sql.catalyst.util.{DateTimeUtils, RebaseDateTime}
import org.apache.spark.sql.errors.QueryExecutionErrors
import org.apache.spark.sql.execution.datasources.{DataSourceUtils, FileFormat, PartitionedFile, RecordReaderIterator, SchemaMergeUtils}
import org.apache.spark.sql.execution.datasources.parquet._
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.sources.Filter
import org.apache.spark.sql.types.StructType
import org.apache.spark.util.Utils

// Mirrors Spark 4.3.0 (tag v4.3.0), sql/core/src/main/scala/org/apache/spark/sql/execution/
// datasources/parquet/ParquetFileFormat.scala (`buildReaderWithPartitionValues` with its
// `buildVectorizedIterator` and `buildRowBasedIterator`, `setupHadoopConf`,
// `mergeSchemasInParallel`'s per-task reader) and ParquetUtils.scala (`inferSchema`'s file
// choice). Where Spark 4.0, 4.1 or 4.2 differ, the code calls the line's adapter,
// SparkLineShims, at a `Hook:` mark; what superspark adds or changes is marked `Ours:` (the
// footer library, ALP columns, FLOAT16 and UUID annotations are calls to the scan's
// FooterScanHooks, which the interceptor implements).
// Spark 4.3's archive inputs are not copied: such scans stay on Spark's reader. Correct for the
// jar's Spark line only: on any other version the extension does not install the interceptor
// (the interceptor's InterceptorVersions).

/**
 * The scan and schema inference of the interceptor's `FooterParquetFileFormat`:
 * Spark's `ParquetFileFormat.buildReaderWithPartitionValues` and `ParquetUtils.inferSchema`
 * as of **Spark 4.3.0**, with the footer read through the footer library
 * ([[FooterScanHooks.openFooter]]) instead of `ParquetFooterReader`. Everything else (filter pushdown,
 * rebase modes, vectorized and row-based readers) is Spark's own code, called as Spark calls it.
 */
object ParquetReaderCopy {

  /** `ParquetFileFormat.setupHadoopConf` (private in Spark 4.3.0). */
  private def setupHadoopConf(hadoopConf: Configuration, sqlConf: SQLConf, requiredSchema: StructType): Unit = {
    hadoopConf.set(ParquetInputFormat.READ_SUPPORT_CLASS, classOf[ParquetReadSupport].getName)
    hadoopConf.set(ParquetReadSupport.SPARK_ROW_REQUESTED_SCHEMA, requiredSchema.json)
    hadoopConf.set(ParquetWriteSupport.SPARK_ROW_SCHEMA, requiredSchema.json)
    hadoopConf.set(SQLConf.SESSION_LOCAL_TIMEZONE.key, sqlConf.sessionLocalTimeZone)
    hadoopConf.setBoolean(SQLConf.NESTED_SCHEMA_PRUNING_ENABLED.key, sqlConf.nestedSchemaPruningEnabled)
    hadoopConf.setBoolean(SQLConf.CASE_SENSITIVE.key, sqlConf.caseSensitiveAnalysis)
    hadoopConf.setBoolean(SQLConf.PARQUET_BINARY_AS_STRING.key, sqlConf.isParquetBinaryAsString)
    hadoopConf.setBoolean(SQLConf.PARQUET_INT96_AS_TIMESTAMP.key, sqlConf.isParquetINT96AsTimestamp)
    hadoopConf.setBoolean(SQLConf.PARQUET_INFER_TIMESTAMP_NTZ_ENABLED.key, sqlConf.parquetInferTimestampNTZEnabled)
    hadoopConf.setBoolean(SQLConf.LEGACY_PARQUET_NANOS_AS_LONG.key, sqlConf.legacyParquetNanosAsLong)
    SparkLineShims.setupLineHadoopConf(hadoopConf, sqlConf) // Hook: the settings that differ by line.
  }

  /**
   * The reader function of a scan. Ours: top-level FLOAT16 columns ([[FooterScanHooks.float16]]) are
   * read by Spark's reader as binary and turned into floats after it.
   */
  def buildReader(
      sparkSession: SparkSession,
      partitionSchema: StructType,
      requiredSchema: StructType,
      filters: Seq[Filter],
      options: Map[String, String],
      hadoopConf: Configuration,
      hooks: FooterScanHooks): PartitionedFile => Iterator[InternalRow] = {
    hooks.float16(requiredSchema, partitionSchema) match {
      case None =>
        buildSparkReader(sparkSession, partitionSchema, requiredSchema, filters, options, hadoopConf, hooks)
      case Some((read, converter)) =>
        val reader = buildSparkReader(sparkSession, partitionSchema, read, filters, options, hadoopConf, hooks,
          vectorizedAllowed = SparkLineShims.vectorizedFloat16)
        (file: PartitionedFile) => converter(reader(file))
    }
  }

  private def buildSparkReader(
      sparkSession: SparkSession,
      partitionSchema: StructType,
      requiredSchema: StructType,
      filters: Seq[Filter],
      options: Map[String, String],
      hadoopConf: Configuration,
      hooks: FooterScanHooks,
      vectorizedAllowed: Boolean = true): PartitionedFile => Iterator[InternalRow] = {
    val sqlConf = sparkSession.sessionState.conf
    setupHadoopConf(hadoopConf, sqlConf, requiredSchema)
    // Hook: the line's broadcast (`SerializableConfiguration.broadcast` from 4.1).
    val broadcastedHadoopConf = SparkLineShims.broadcastHadoopConf(sparkSession.sparkContext, hadoopConf)
    val resultSchema = StructType(partitionSchema.fields ++ requiredSchema.fields)
    val enableOffHeapColumnVector = sqlConf.offHeapColumnVectorEnabled
    // Hook: `vectorizedAllowed` (FLOAT16 columns on a line whose vectorized reader cannot read them).
    val enableVectorizedReader = vectorizedAllowed && ParquetUtils.isBatchReadSupportedForSchema(sqlConf, resultSchema)
    val enableRecordFilter = sqlConf.parquetRecordFilterEnabled
    val timestampConversion = sqlConf.isParquetINT96TimestampConversion
    val capacity = sqlConf.parquetVectorizedReaderBatchSize
    val enableParquetFilterPushDown = sqlConf.parquetFilterPushDown
    val pushDownDate = sqlConf.parquetFilterPushDownDate
    val pushDownTimestamp = sqlConf.parquetFilterPushDownTimestamp
    val pushDownDecimal = sqlConf.parquetFilterPushDownDecimal
    val pushDownStringPredicate = sqlConf.parquetFilterPushDownStringPredicate
    val pushDownInFilterThreshold = sqlConf.parquetFilterPushDownInFilterThreshold
    val isCaseSensitive = sqlConf.caseSensitiveAnalysis
    val parquetOptions = new ParquetOptions(options, sqlConf)
    val datetimeRebaseModeInRead = parquetOptions.datetimeRebaseModeInRead
    val int96RebaseModeInRead = parquetOptions.int96RebaseModeInRead
    // Ours: `enableVectorizedReader &&` (no batches from the row reader `vectorizedAllowed` may pick),
    // and so no `assert(supportBatch(...))` after it.
    val returningBatch = enableVectorizedReader && sqlConf.parquetVectorizedReaderEnabled &&
      options.getOrElse(FileFormat.OPTION_RETURNING_BATCH,
        throw new IllegalArgumentException("OPTION_RETURNING_BATCH should always be set for ParquetFileFormat. " +
          s"To workaround this issue, set ${SQLConf.PARQUET_VECTORIZED_READER_ENABLED.key}=false.")).equals("true")

    // Ours: the columns to decode (by name, unless columns are matched by field id).
    val byFieldId = sqlConf.parquetFieldIdReadEnabled && ParquetUtils.hasFieldIds(requiredSchema)
    val columns = if (byFieldId) None else Some(requiredSchema.fieldNames.toSeq)
    // Ours: ALP columns (docs/alp.md): vectorized reader only, columns matched by name.
    val alpColumns = hooks.batchColumns(SuperSparkSQLConf.alpRead(sqlConf) && enableVectorizedReader && !byFieldId,
      requiredSchema, partitionSchema.length, capacity, enableOffHeapColumnVector, isCaseSensitive, returningBatch)

    (file: PartitionedFile) => {
      assert(file.partitionValues.numFields == partitionSchema.size)
      val split = new FileSplit(file.toPath, file.start, file.length, Array.empty[String])
      val sharedConf = broadcastedHadoopConf.value.value
      // Ours: the footer through the footer library. Both readers keep the stream and get the
      // split's row groups, the row-based reader too (the hooks' `recordReader`: parquet-java's record
      // reader then reads no footer itself).
      val openedFooter: ScanFooter = hooks.openFooter(sharedConf, file.toPath, file.start, file.length,
        keepOpen = true, columns, isCaseSensitive).getOrElse {
        // Hook: Spark's own footer read (`ParquetFooterReader.openFileAndReadFooter` from 4.1).
        SparkLineShims.openFooter(sharedConf, file, enableVectorizedReader)
      }
      val shouldCloseInputStream = new AtomicBoolean(openedFooter.inputStream.isDefined)
      try {
        val footerFileMetaData = openedFooter.footer.getFileMetaData
        val datetimeRebaseSpec = DataSourceUtils.datetimeRebaseSpec(
          footerFileMetaData.getKeyValueMetaData.get, datetimeRebaseModeInRead)
        val int96RebaseSpec = DataSourceUtils.int96RebaseSpec(
          footerFileMetaData.getKeyValueMetaData.get, int96RebaseModeInRead)
        val pushed = if (enableParquetFilterPushDown) {
          // Hook: the line's `ParquetFilters` (pruning by the required schema from 4.3).
          val parquetFilters = SparkLineShims.parquetFilters(footerFileMetaData.getSchema, pushDownDate,
            pushDownTimestamp, pushDownDecimal, pushDownStringPredicate, pushDownInFilterThreshold, isCaseSensitive,
            datetimeRebaseSpec, requiredSchema)
          filters.flatMap(parquetFilters.createFilter).reduceOption(FilterApi.and)
        } else {
          None
        }
        // Ours: `Option(...)`: a footer may have no `created_by`.
        def isCreatedByParquetMr: Boolean = Option(footerFileMetaData.getCreatedBy).exists(_.startsWith("parquet-mr"))
        val convertTz = if (timestampConversion && !isCreatedByParquetMr) {
          Some(DateTimeUtils.getZoneId(sharedConf.get(SQLConf.SESSION_LOCAL_TIMEZONE.key)))
        } else {
          None
        }
        val attemptId = new TaskAttemptID(new TaskID(new JobID(), TaskType.MAP, 0), 0)
        val hadoopAttemptContext = new TaskAttemptContextImpl(broadcastedHadoopConf.value.value, attemptId)
        pushed.foreach(ParquetInputFormat.setFilterPredicate(hadoopAttemptContext.getConfiguration, _))
        hooks.readerSettings(hadoopAttemptContext.getConfiguration, openedFooter) // Ours: the file's reader settings.
        if (enableVectorizedReader) {
          buildVectorizedIterator(hadoopAttemptContext, split, file.partitionValues, partitionSchema, convertTz,
            datetimeRebaseSpec, int96RebaseSpec, enableOffHeapColumnVector, returningBatch, capacity, openedFooter,
            shouldCloseInputStream,
            alpColumns(file.toPath, openedFooter, sharedConf)) // Ours: the file's ALP columns.
        } else {
          buildRowBasedIterator(hadoopAttemptContext, split, file.partitionValues, partitionSchema, convertTz,
            datetimeRebaseSpec, int96RebaseSpec, requiredSchema, pushed, enableRecordFilter,
            openedFooter, shouldCloseInputStream, hooks) // Ours: the footer and its stream for parquet-java's reader.
        }
      } finally {
        if (shouldCloseInputStream.get) openedFooter.inputStream.foreach(Utils.closeQuietly)
      }
    }
  }

  /** Spark 4.3.0's `buildVectorizedIterator`. Ours: `alp`, the file's ALP columns. */
  private def buildVectorizedIterator(hadoopAttemptContext: TaskAttemptContextImpl, split: FileSplit,
      partitionValues: InternalRow, partitionSchema: StructType, convertTz: Option[ZoneId],
      datetimeRebaseSpec: RebaseDateTime.RebaseSpec, int96RebaseSpec: RebaseDateTime.RebaseSpec,
      enableOffHeapColumnVector: Boolean, returningBatch: Boolean, batchSize: Int, openedFooter: ScanFooter,
      shouldCloseInputStream: AtomicBoolean, alp: BatchColumns): Iterator[InternalRow] = {
    val vectorizedReader = new VectorizedParquetRecordReader(convertTz.orNull,
      datetimeRebaseSpec.mode.toString, datetimeRebaseSpec.timeZone,
      int96RebaseSpec.mode.toString, int96RebaseSpec.timeZone,
      enableOffHeapColumnVector && TaskContext.get() != null, batchSize)
    val iter = new RecordReaderIterator(vectorizedReader)
    try {
      // Hook: the line's `initialize` (4.1+: the footer, the file and its stream; 4.0: the footer),
      // with the ALP columns' context (Spark's reader reads the other columns, whole row groups).
      shouldCloseInputStream.set(!SparkLineShims.initializeVectorized(vectorizedReader, split,
        alp.context(hadoopAttemptContext), openedFooter.footer, openedFooter.inputFile, openedFooter.inputStream))
      vectorizedReader.initBatch(partitionSchema, partitionValues)
      if (returningBatch) {
        vectorizedReader.enableReturningBatches()
      }
      alp.wrap(vectorizedReader, iter) // Ours: the ALP columns join Spark's batches.
    } catch {
      case e: Throwable =>
        iter.close()
        alp.close() // Ours
        throw e
    }
  }

  /**
   * Spark 4.3.0's `buildRowBasedIterator`. Ours: `openedFooter` and `shouldCloseInputStream`, for
   * parquet-java's reader to take the footer and its stream (Spark's row reader opens the file itself).
   */
  private def buildRowBasedIterator(hadoopAttemptContext: TaskAttemptContextImpl, split: FileSplit,
      partitionValues: InternalRow, partitionSchema: StructType, convertTz: Option[ZoneId],
      datetimeRebaseSpec: RebaseDateTime.RebaseSpec, int96RebaseSpec: RebaseDateTime.RebaseSpec,
      requiredSchema: StructType, pushed: Option[FilterPredicate], enableRecordFilter: Boolean,
      openedFooter: ScanFooter, shouldCloseInputStream: AtomicBoolean, hooks: FooterScanHooks): Iterator[InternalRow] = {
    // Ours: the file schema reaches the read support without UUID annotations, which
    // Spark's converter refuses.
    val readSupport = new ParquetReadSupport(convertTz, enableVectorizedReader = false,
        datetimeRebaseSpec, int96RebaseSpec) {
      override def init(context: InitContext): ReadContext = super.init(new InitContext(
        context.getConfiguration, context.getKeyValueMetadata, hooks.forSpark(context.getFileSchema)))
      override def prepareForRead(conf: Configuration, keyValueMetaData: java.util.Map[String, String],
          fileSchema: MessageType, readContext: ReadContext): RecordMaterializer[InternalRow] =
        super.prepareForRead(conf, keyValueMetaData, hooks.forSpark(fileSchema), readContext)
    }
    val recordFilter = if (pushed.isDefined && enableRecordFilter) FilterCompat.get(pushed.get, null)
      else FilterCompat.NOOP
    // Ours: parquet-java's record reader gets the footer read above and its stream (no
    // second footer read; a final-form PAR3 file, which parquet-java cannot open, too).
    // Files Spark's own reader opened (no stream) stay with parquet-java's reader.
    val reader = hooks.recordReader(readSupport, recordFilter, openedFooter)
      .getOrElse(new ParquetRecordReader[InternalRow](readSupport, recordFilter))
    val readerWithRowIndexes = ParquetRowIndexUtil.addRowIndexToRecordReaderIfNeeded(reader, requiredSchema)
    val iter = new RecordReaderIterator[InternalRow](readerWithRowIndexes)
    try {
      readerWithRowIndexes.initialize(split, hadoopAttemptContext)
      shouldCloseInputStream.set(false) // Ours: the reader owns the stream
      val fullSchema = DataTypeUtils.toAttributes(requiredSchema) ++ DataTypeUtils.toAttributes(partitionSchema)
      val unsafeProjection = UnsafeProjection.create(fullSchema, fullSchema)
      if (partitionSchema.length == 0) {
        iter.map(unsafeProjection)
      } else {
        val joinedRow = new JoinedRow()
        iter.map(d => unsafeProjection(joinedRow(d, partitionValues)))
      }
    } catch {
      case e: Throwable =>
        iter.close()
        throw e
    }
  }

  /** Files whose footers give the schema: Spark 4.3.0's `ParquetUtils.inferSchema` choice. */
  private def filesToTouch(sparkSession: SparkSession, parameters: Map[String, String],
      files: Seq[FileStatus]): Seq[FileStatus] = {
    val shouldMergeSchemas = new ParquetOptions(parameters, sparkSession.sessionState.conf).mergeSchema
    val mergeRespectSummaries = sparkSession.sessionState.conf.isParquetSchemaRespectSummaries
    val leaves = files.sortBy(_.getPath.toString)
    def named(n: String) = leaves.filter(_.getPath.getName == n)
    val data = leaves.filter { f =>
      val name = f.getPath.getName
      !((name.startsWith("_") && !name.contains("=")) || name.startsWith("."))
    }.filterNot(f => f.getPath.getName == "_metadata" || f.getPath.getName == "_common_metadata")
    val metadata = named("_metadata")
    val commonMetadata = named("_common_metadata")
    if (shouldMergeSchemas) {
      (if (mergeRespectSummaries) Seq.empty else data) ++ metadata ++ commonMetadata
    } else {
      commonMetadata.headOption.orElse(metadata.headOption).orElse(data.headOption).toSeq
    }
  }

  /**
   * Schema inference through the footer library: one file (the default, no `mergeSchema`) is
   * read on the driver, several in Spark's parallel schema merge with our footer reader.
   */
  def inferSchema(sparkSession: SparkSession, parameters: Map[String, String],
      files: Seq[FileStatus], hooks: FooterScanHooks): Option[StructType] = {
    val touch = filesToTouch(sparkSession, parameters, files)
    val sqlConf = sparkSession.sessionState.conf
    // The converter's settings, as Spark's mergeSchemasInParallel takes them from the session.
    val converterConf = SparkLineShims.converterSettings(sqlConf)
    val reader = (fs: Seq[FileStatus], conf: Configuration, ignoreCorruptFiles: Boolean, ignoreMissingFiles: Boolean) =>
      readSchemas(fs, conf, converterConf, hooks, ignoreCorruptFiles, ignoreMissingFiles)
    if (touch.size == 1) {
      val conf = sparkSession.sessionState.newHadoopConfWithOptions(parameters)
      reader(touch, conf, sqlConf.ignoreCorruptFiles, sqlConf.ignoreMissingFiles).headOption
    } else {
      SparkLineShims.mergeSchemasInParallel(sparkSession, parameters, touch, reader) // Hook: the reader's shape
    }
  }

  /** Spark 4.3.0's per-task schema reader (`ParquetFileFormat.mergeSchemasInParallel`), our footers. */
  private def readSchemas(files: Seq[FileStatus], conf: Configuration, settings: SparkLineShims.ConverterSettings,
      hooks: FooterScanHooks, ignoreCorruptFiles: Boolean,
      ignoreMissingFiles: Boolean): Seq[StructType] = {
    val converter = SparkLineShims.schemaConverter(settings)
    files.flatMap { f =>
      // The footer read as Spark's readParquetFootersInParallel guards it; the conversion after
      // it (unsupported types) fails as in Spark, unwrapped.
      val footer = try {
        Some(hooks.openFooter(conf, f.getPath, 0, f.getLen, keepOpen = false, None, caseSensitive = true) match {
          case Some(o) => (o.footer, o.fileSchema)
          case None =>
            val raw = SparkLineShims.readSchemaFooter(conf, f) // Hook: the line's footer read, no row groups
            (hooks.forSpark(raw), raw.getFileMetaData.getSchema)
        })
      } catch {
        case e: java.io.FileNotFoundException if ignoreMissingFiles => None
        case e: RuntimeException if ignoreCorruptFiles => None
        case e: java.io.IOException if ignoreCorruptFiles => None
        // FAILED_READ_FILE.CANNOT_READ_FILE_FOOTER naming the file, as Spark's reader.
        case e: RuntimeException => throw QueryExecutionErrors.cannotReadFooterForFileError(f.getPath, e)
        case e: java.io.IOException if !e.isInstanceOf[java.io.FileNotFoundException] =>
          throw QueryExecutionErrors.cannotReadFooterForFileError(f.getPath, e)
      }
      footer.map { case (md, fileSchema) =>
        val schema = ParquetFileFormat.readSchemaFromFooter(new Footer(f.getPath, md), converter)
        hooks.tag(schema, fileSchema)
      }
    }
  }
}
