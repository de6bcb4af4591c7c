package io.superspark.parquet.interceptor

import scala.jdk.CollectionConverters._

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.Path
import org.apache.hadoop.mapreduce.{RecordWriter, TaskAttemptContext}
import org.apache.parquet.column.ParquetProperties
import org.apache.parquet.crypto.FileEncryptionProperties
import org.apache.parquet.hadoop.{MemoryManager, ParquetFileWriter, ParquetOutputFormat, ParquetRecordWriter, ParquetWriter}
import org.apache.parquet.hadoop.ParquetOutputFormat._
import org.apache.parquet.hadoop.api.WriteSupport
import org.apache.parquet.hadoop.metadata.CompressionCodecName
import org.apache.parquet.hadoop.util.HadoopOutputFile
import org.apache.parquet.io.OutputFile
import org.apache.parquet.schema.MessageType

import io.superspark.parquet.alp.spark.AlpWriteSupport

/**
 * `ParquetOutputFormat` writing `path` with a `ParquetFileWriter` of our choosing
 * (`fileWriter`). `getRecordWriter` mirrors parquet-java **1.17.0**'s
 * `getRecordWriter(Configuration, Path, CompressionCodecName, Mode)`: the same properties
 * from the same configuration keys with the same defaults (its non-public getters and its
 * package-private `ColumnConfigParser` are inlined here), then the same `ParquetRecordWriter`.
 * That constructor is package-private and our jar is loaded by Spark's class loader (a
 * different runtime package), so it is called through reflection.
 */
private[superspark] class FooterParquetOutputFormat[T](
    path: Path,
    fileWriter: (OutputFile, MessageType, ParquetFileWriter.Mode, Long, Int, FileEncryptionProperties,
      ParquetProperties) => ParquetFileWriter)
  extends ParquetOutputFormat[T] {

  override def getDefaultWorkFile(context: TaskAttemptContext, extension: String): Path = path

  override def getRecordWriter(conf: Configuration, file: Path, codec: CompressionCodecName,
      mode: ParquetFileWriter.Mode): RecordWriter[Void, T] = {
    val writeSupport = getWriteSupport(conf)
    // Hook: the settings only some lines' parquet-java has (row-group row count limit: 1.16+; byte stream split: 1.17).
    val propsBuilder = org.apache.spark.sql.superspark.SparkLineShims.lineWriterProperties(
      io.superspark.parquet.footer.codec.ParquetJavaShims.writerProperties(ParquetProperties.builder(), conf), conf)
      .withPageSize(getPageSize(conf))
      .withDictionaryPageSize(getDictionaryPageSize(conf))
      .withDictionaryEncoding(getEnableDictionary(conf))
      .withWriterVersion(getWriterVersion(conf))
      .estimateRowCountForPageSizeCheck(getEstimatePageSizeCheck(conf))
      .withMinRowCountForPageSizeCheck(getMinRowCountForPageSizeCheck(conf))
      .withMaxRowCountForPageSizeCheck(getMaxRowCountForPageSizeCheck(conf))
      .withPageValueCountThreshold(getValueCountThreshold(conf))
      .withColumnIndexTruncateLength(
        conf.getInt(COLUMN_INDEX_TRUNCATE_LENGTH, ParquetProperties.DEFAULT_COLUMN_INDEX_TRUNCATE_LENGTH))
      .withStatisticsTruncateLength(
        conf.getInt(STATISTICS_TRUNCATE_LENGTH, ParquetProperties.DEFAULT_STATISTICS_TRUNCATE_LENGTH))
      .withMaxBloomFilterBytes(getBloomFilterMaxBytes(conf))
      .withBloomFilterEnabled(getBloomFilterEnabled(conf))
      .withAdaptiveBloomFilterEnabled(getAdaptiveBloomFilterEnabled(conf))
      .withPageRowCountLimit(conf.getInt(PAGE_ROW_COUNT_LIMIT, ParquetProperties.DEFAULT_PAGE_ROW_COUNT_LIMIT))
      .withPageWriteChecksumEnabled(getPageWriteChecksumEnabled(conf))
      .withStatisticsEnabled(getStatisticsEnabled(conf))
    // parquet-java's ColumnConfigParser: "<property>#<column path>" keys.
    conf.iterator().asScala.foreach { e =>
      val key = e.getKey
      def column(prefix: String): Option[String] =
        if (key.startsWith(prefix + "#")) Some(key.substring(prefix.length + 1)) else None
      column(ENABLE_DICTIONARY).foreach(c => propsBuilder.withDictionaryEncoding(c, conf.getBoolean(key, false)))
      column(BLOOM_FILTER_ENABLED).foreach(c => propsBuilder.withBloomFilterEnabled(c, conf.getBoolean(key, false)))
      column(BLOOM_FILTER_EXPECTED_NDV).foreach(c => propsBuilder.withBloomFilterNDV(c, conf.getLong(key, -1L)))
      column(BLOOM_FILTER_FPP).foreach(c => propsBuilder.withBloomFilterFPP(c, conf.getDouble(key, 0.01)))
      column(BLOOM_FILTER_CANDIDATES_NUMBER).foreach(c =>
        propsBuilder.withBloomFilterCandidatesNumber(c, conf.getInt(key, 5)))
      column(STATISTICS_ENABLED).foreach(c => propsBuilder.withStatisticsEnabled(c, conf.getBoolean(key, true)))
    }
    val props = propsBuilder.build()
    val blockSize = getLongBlockSize(conf)
    val maxPaddingSize = conf.getInt(MAX_PADDING_BYTES, ParquetWriter.MAX_PADDING_SIZE_DEFAULT)
    val validating = getValidation(conf)
    val context = writeSupport.init(conf)
    val encryption = ParquetOutputFormat.createEncryptionProperties(conf, file, context)
    val w = fileWriter(HadoopOutputFile.fromPath(file, conf), context.getSchema, mode, blockSize, maxPaddingSize,
      encryption, props)
    (writeSupport, w) match {
      case (alp: AlpWriteSupport, f: FooterFileWriter) => f.attachAlp(alp, codec, conf)
      case _ =>
    }
    w.start()
    FooterParquetOutputFormat.recordWriterConstructor.newInstance(w, writeSupport, context.getSchema,
      context.getExtraMetaData, java.lang.Long.valueOf(blockSize), codec, java.lang.Boolean.valueOf(validating), props,
      FooterParquetOutputFormat.memoryManager(conf), conf).asInstanceOf[RecordWriter[Void, T]]
  }
}

private[superspark] object FooterParquetOutputFormat {
  private lazy val recordWriterConstructor = {
    val c = classOf[ParquetRecordWriter[_]].getDeclaredConstructor(classOf[ParquetFileWriter], classOf[WriteSupport[_]],
      classOf[MessageType], classOf[java.util.Map[_, _]], java.lang.Long.TYPE, classOf[CompressionCodecName],
      java.lang.Boolean.TYPE, classOf[ParquetProperties], classOf[MemoryManager], classOf[Configuration])
    c.setAccessible(true)
    c
  }

  private var manager: MemoryManager = _

  /** parquet-java's shared memory manager when it exists, else one of ours (same settings). */
  private def memoryManager(conf: Configuration): MemoryManager = synchronized {
    Option(ParquetOutputFormat.getMemoryManager).getOrElse {
      if (manager == null) {
        manager = new MemoryManager(conf.getFloat(MEMORY_POOL_RATIO, 0.95f), conf.getLong(MIN_MEMORY_ALLOCATION, 1L << 20))
      }
      manager
    }
  }
}
