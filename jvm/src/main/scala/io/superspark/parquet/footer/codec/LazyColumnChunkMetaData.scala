package io.superspark.parquet.footer.codec

import org.apache.parquet.column.EncodingStats
import org.apache.parquet.column.statistics.{SizeStatistics, Statistics}
import org.apache.parquet.hadoop.metadata.ColumnChunkProperties
import io.superspark.parquet.footer.FooterDecodeException

/**
 * A column chunk whose statistics, size statistics and geospatial statistics are decoded
 * from the FlatBuffer when first asked for (like parquet-java's own
 * `EncryptedColumnChunkMetaData`, which decrypts on first access). Everything else is
 * decoded eagerly. The values are exactly those of the eager decode (the tests compare
 * every getter); a reader that prunes with the statistics of a few columns pays for those.
 * Thread-safe: a race decodes twice and keeps either equal result.
 *
 * The statistics tables are structurally verified when first read (not at open: see
 * [[ChunkStatistics]]). A statistic that cannot be decoded (malformed statistics tables, or
 * a FlatBuffer that passed its CRCs and structure checks but holds, e.g., a 5-byte minimum
 * for an INT32: a buggy writer, or CRCs recomputed after a change) is "no statistics" (empty,
 * so row-group and page pruning keep the row group; no size or geospatial statistics), with
 * one warning per chunk; it never fails the query in the middle of row-group filtering.
 */
private[footer] final class LazyColumnChunkMetaData(
    encodingStats: EncodingStats,
    properties: ColumnChunkProperties,
    firstDataPage: Long,
    dictionaryPage: Long,
    valueCount: Long,
    totalSize: Long,
    totalUncompressedSize: Long,
    source: ChunkStatistics,
    metadataPosition: Int,
    leaf: FlatBufferDecoder.Leaf) extends GeospatialColumnChunkMetaData(encodingStats, properties) {

  @volatile private var stats: Statistics[_] = _
  @volatile private var sizeStats: Option[SizeStatistics] = _
  @volatile private var geoStats: Option[ParquetJavaShims.GeospatialStatistics] = _

  override def getFirstDataPageOffset: Long = firstDataPage
  override def getDictionaryPageOffset: Long = dictionaryPage
  override def getValueCount: Long = valueCount
  override def getTotalUncompressedSize: Long = totalUncompressedSize
  override def getTotalSize: Long = totalSize

  override def getStatistics: Statistics[_] = {
    var s: Statistics[_] = stats
    if (s == null) {
      s = try source.statistics(metadataPosition, leaf) catch {
        // ours, or parquet-java's statistics builders refusing a value (e.g. a FLOAT16 bound not 2 bytes)
        case e @ (_: FooterDecodeException | _: IllegalArgumentException) =>
          LazyColumnChunkMetaData.log.warn(s"column ${leaf.path}: undecodable statistics in the footer " +
            s"extension (${e.getMessage}); read as no statistics")
          Statistics.getBuilderForReading(leaf.primitive).build()
      }
      stats = s
    }
    s
  }

  override def getSizeStatistics: SizeStatistics = {
    var s = sizeStats
    if (s == null) {
      s = try Option(source.sizeStatistics(metadataPosition, leaf.primitive)) catch {
        case e: FooterDecodeException => LazyColumnChunkMetaData.unreadable(leaf, "size statistics", e); None
      }
      sizeStats = s
    }
    s.orNull
  }

  /** `getGeospatialStatistics` on parquet-java 1.16+ (GeospatialColumnChunkMetaData); none on 1.15. */
  override protected def lazyGeospatialStatistics: ParquetJavaShims.GeospatialStatistics = {
    var s = geoStats
    if (s == null) {
      s = try Option(source.geospatialStatistics(metadataPosition)) catch {
        case e: FooterDecodeException => LazyColumnChunkMetaData.unreadable(leaf, "geospatial statistics", e); None
      }
      geoStats = s
    }
    s.orNull
  }
}

private object LazyColumnChunkMetaData {
  private lazy val log = org.slf4j.LoggerFactory.getLogger(classOf[LazyColumnChunkMetaData])

  private def unreadable(leaf: FlatBufferDecoder.Leaf, what: String, e: Exception): Unit =
    log.warn(s"column ${leaf.path}: undecodable $what in the footer extension (${e.getMessage}); read as none")
}
