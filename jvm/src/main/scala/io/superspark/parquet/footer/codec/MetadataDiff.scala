package io.superspark.parquet.footer.codec

import scala.jdk.CollectionConverters._

import org.apache.parquet.column.EncodingStats
import org.apache.parquet.column.statistics.{SizeStatistics, Statistics}
import org.apache.parquet.hadoop.metadata.{BlockMetaData, ColumnChunkMetaData, ParquetMetadata}
import org.apache.parquet.internal.hadoop.metadata.IndexReference

/**
 * Field-by-field comparison of two parquet-java `ParquetMetadata` (most of its classes have
 * no `equals`): the first difference, with where it is, or None when they are the same.
 */
private[superspark] object MetadataDiff {

  def diff(a: ParquetMetadata, b: ParquetMetadata): Option[String] = {
    val fa = a.getFileMetaData
    val fb = b.getFileMetaData
    def first(checks: (() => Option[String])*): Option[String] =
      checks.iterator.map(_()).collectFirst { case Some(d) => d }
    first(
      () => same("schema", fa.getSchema, fb.getSchema),
      () => same("schema (text)", fa.getSchema.toString, fb.getSchema.toString),
      () => same("key-value metadata", fa.getKeyValueMetaData, fb.getKeyValueMetaData),
      () => same("created_by", fa.getCreatedBy, fb.getCreatedBy),
      () => same("encryption type", fa.getEncryptionType, fb.getEncryptionType),
      () => same("row group count", a.getBlocks.size, b.getBlocks.size),
      () => a.getBlocks.asScala.zip(b.getBlocks.asScala).zipWithIndex.iterator
        .map { case ((x, y), i) => block(s"row group $i", x, y) }.collectFirst { case Some(d) => d })
  }

  private def same(what: => String, x: Any, y: Any): Option[String] =
    if (x == y) None else Some(s"$what: $x != $y")

  private def block(where: => String, x: BlockMetaData, y: BlockMetaData): Option[String] = {
    val checks = Iterator(
      () => same(s"$where row count", x.getRowCount, y.getRowCount),
      () => same(s"$where total byte size", x.getTotalByteSize, y.getTotalByteSize),
      () => same(s"$where path", x.getPath, y.getPath),
      () => same(s"$where ordinal", x.getOrdinal, y.getOrdinal),
      () => same(s"$where row index offset", x.getRowIndexOffset, y.getRowIndexOffset),
      () => same(s"$where column count", x.getColumns.size, y.getColumns.size),
      () => x.getColumns.asScala.zip(y.getColumns.asScala).iterator
        .map { case (c, d) => column(s"$where column ${c.getPath}", c, d) }.collectFirst { case Some(v) => v })
    checks.map(_()).collectFirst { case Some(d) => d }
  }

  private def column(where: => String, x: ColumnChunkMetaData, y: ColumnChunkMetaData): Option[String] = {
    val checks = Iterator(
      () => same(s"$where path", x.getPath, y.getPath),
      () => same(s"$where type", x.getPrimitiveType, y.getPrimitiveType),
      () => same(s"$where column order", x.getPrimitiveType.columnOrder, y.getPrimitiveType.columnOrder),
      () => same(s"$where codec", x.getCodec, y.getCodec),
      () => same(s"$where encodings", x.getEncodings, y.getEncodings),
      () => encodingStats(s"$where encoding stats", x.getEncodingStats, y.getEncodingStats),
      () => statistics(s"$where statistics", x.getStatistics, y.getStatistics),
      () => same(s"$where first data page", x.getFirstDataPageOffset, y.getFirstDataPageOffset),
      () => same(s"$where dictionary page", x.getDictionaryPageOffset, y.getDictionaryPageOffset),
      () => same(s"$where value count", x.getValueCount, y.getValueCount),
      () => same(s"$where total size", x.getTotalSize, y.getTotalSize),
      () => same(s"$where total uncompressed size", x.getTotalUncompressedSize, y.getTotalUncompressedSize),
      () => sizeStatistics(s"$where size statistics", x.getSizeStatistics, y.getSizeStatistics),
      () => same(s"$where geospatial statistics", ParquetJavaShims.geospatialView(x), ParquetJavaShims.geospatialView(y)),
      () => same(s"$where row group ordinal", x.getRowGroupOrdinal, y.getRowGroupOrdinal),
      () => same(s"$where bloom filter offset", x.getBloomFilterOffset, y.getBloomFilterOffset),
      () => same(s"$where bloom filter length", x.getBloomFilterLength, y.getBloomFilterLength),
      () => index(s"$where column index", x.getColumnIndexReference, y.getColumnIndexReference),
      () => index(s"$where offset index", x.getOffsetIndexReference, y.getOffsetIndexReference),
      () => same(s"$where starting position", x.getStartingPos, y.getStartingPos),
      () => same(s"$where has dictionary page", x.hasDictionaryPage, y.hasDictionaryPage),
      () => same(s"$where encrypted", x.isEncrypted, y.isEncrypted))
    checks.map(_()).collectFirst { case Some(d) => d }
  }

  private def index(where: => String, x: IndexReference, y: IndexReference): Option[String] =
    if (x == null || y == null) same(where, x == null, y == null)
    else same(where, (x.getOffset, x.getLength), (y.getOffset, y.getLength))

  private def encodingStats(where: => String, x: EncodingStats, y: EncodingStats): Option[String] = {
    def view(s: EncodingStats) = if (s == null) null else (
      s.getDictionaryEncodings.asScala.map(e => e -> s.getNumDictionaryPagesEncodedAs(e)).toMap,
      s.getDataEncodings.asScala.map(e => e -> s.getNumDataPagesEncodedAs(e)).toMap,
      s.usesV2Pages)
    same(where, view(x), view(y))
  }

  private def statistics(where: => String, x: Statistics[_], y: Statistics[_]): Option[String] = {
    def view(s: Statistics[_]) = if (s == null) null else (
      s.`type`(), s.isEmpty, s.hasNonNullValue, s.isNumNullsSet, s.getNumNulls,
      if (s.hasNonNullValue) Some((s.getMinBytes.toSeq, s.getMaxBytes.toSeq)) else None)
    same(where, view(x), view(y))
  }

  private def sizeStatistics(where: => String, x: SizeStatistics, y: SizeStatistics): Option[String] = {
    def view(s: SizeStatistics) = if (s == null) null else (
      s.getType, s.getUnencodedByteArrayDataBytes, s.getRepetitionLevelHistogram,
      s.getDefinitionLevelHistogram, s.isValid)
    same(where, view(x), view(y))
  }

}
