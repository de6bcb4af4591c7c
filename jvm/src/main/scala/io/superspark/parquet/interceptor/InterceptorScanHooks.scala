package io.superspark.parquet.interceptor

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.Path
import org.apache.parquet.filter2.compat.FilterCompat
import org.apache.parquet.hadoop.ParquetRecordReader
import org.apache.parquet.hadoop.api.ReadSupport
import org.apache.parquet.hadoop.metadata.ParquetMetadata
import org.apache.parquet.schema.MessageType
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.superspark.{BatchColumns, FooterScanHooks, ScanFooter}
import org.apache.spark.sql.types.StructType

import io.superspark.parquet.alp.spark.AlpColumns
import io.superspark.parquet.logicaltypes.{Float16Columns, ParquetLogicalTypes}

/**
 * The footer library at the `Ours:` marks of Spark's reader copy (`ParquetReaderCopy`), for one
 * scan or schema inference: [[FooterOpener]] with the session's `strict` and cache bound,
 * [[Float16Columns]], [[AlpColumns]], [[FooterRecordReader]] and [[ParquetLogicalTypes]], counting
 * into `metrics`. Made on the driver; shipped with the reader function.
 */
private[superspark] final class InterceptorScanHooks(strict: Boolean, cacheBytes: Long, metrics: FooterSQLMetrics)
  extends FooterScanHooks {

  override def float16(required: StructType, partitionSchema: StructType)
      : Option[(StructType, Iterator[InternalRow] => Iterator[InternalRow])] = {
    val positions = Float16Columns.positions(required)
    if (positions.isEmpty) None
    else {
      val read = Float16Columns.asRead(required, positions)
      val converter = new Float16Columns.Converter(read, partitionSchema, positions)
      Some((read, (rows: Iterator[InternalRow]) => converter(rows)))
    }
  }

  override def openFooter(conf: Configuration, path: Path, start: Long, length: Long, keepOpen: Boolean,
      columns: Option[Seq[String]], caseSensitive: Boolean): Option[ScanFooter] =
    FooterOpener.open(conf, path, start, length, keepOpen, columns, caseSensitive, strict, metrics, cacheBytes)

  /**
   * On a checksummed file system (Hadoop's local one), parquet-java reads the column chunks one
   * after another rather than through Hadoop's vectored read, unless the configuration names
   * `parquet.hadoop.vectored.io.enabled` itself. That file system's vectored read joins each range
   * with its checksum range through `CompletableFuture.thenCombineAsync` on the JVM's common pool,
   * and where that pool has fewer than two threads (a JVM on two cores or fewer) Java starts a new
   * thread for each of those tasks: about one a row group read, thousands a query of a wide table
   * (docs/parquet-interceptor.md).
   */
  override def readerSettings(conf: Configuration, footer: ScanFooter): Unit = footer match {
    case opened: OpenedFooter if opened.checksummed && conf.get(InterceptorScanHooks.VectoredReads) == null =>
      conf.setBoolean(InterceptorScanHooks.VectoredReads, false)
    case _ =>
  }

  override def batchColumns(enabled: Boolean, required: StructType, partitionColumns: Int, capacity: Int,
      offHeapEnabled: Boolean, caseSensitive: Boolean, returningBatch: Boolean)
      : (Path, ScanFooter, Configuration) => BatchColumns = {
    val scan = AlpColumns.Scan(enabled, required, partitionColumns, capacity, offHeapEnabled, caseSensitive,
      returningBatch, metrics.alpChunks, metrics.alpFallbacks)
    (path: Path, footer: ScanFooter, conf: Configuration) => footer match {
      case opened: OpenedFooter => scan.open(path, opened, FooterOpener.wholeFooter(opened, _, metrics), conf)
      case _ => AlpColumns.NoAlp // Spark's own reader opened the file: no footer of the library's to plan from
    }
  }

  override def recordReader(readSupport: ReadSupport[InternalRow], filter: FilterCompat.Filter,
      footer: ScanFooter): Option[ParquetRecordReader[InternalRow]] = footer match {
    case opened: OpenedFooter if opened.footerBytes != null && opened.inputStream.isDefined =>
      Some(new FooterRecordReader[InternalRow](readSupport, filter, opened.inputFile, opened.footer,
        opened.inputStream.get))
    case _ => None
  }

  override def forSpark(schema: MessageType): MessageType = ParquetLogicalTypes.forSpark(schema)
  override def forSpark(footer: ParquetMetadata): ParquetMetadata = ParquetLogicalTypes.forSpark(footer)
  override def tag(schema: StructType, fileSchema: MessageType): StructType = ParquetLogicalTypes.tag(schema, fileSchema)
}

private[superspark] object InterceptorScanHooks {
  /** parquet-java's `ParquetInputFormat.HADOOP_VECTORED_IO_ENABLED`. */
  val VectoredReads = "parquet.hadoop.vectored.io.enabled"

  /** The hooks of a scan or inference in `session`, with counters made for it unless given. */
  def apply(session: SparkSession, metrics: Option[FooterSQLMetrics] = None): InterceptorScanHooks = {
    val conf = session.sessionState.conf
    new InterceptorScanHooks(FooterInterceptorConf.strict(conf), FooterInterceptorConf.cacheBytes(conf),
      metrics.getOrElse(FooterSQLMetrics.create(session.sparkContext)))
  }
}
