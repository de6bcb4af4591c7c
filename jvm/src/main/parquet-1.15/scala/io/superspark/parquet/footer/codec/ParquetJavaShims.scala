package io.superspark.parquet.footer.codec

import java.util.{Set => JSet}

import org.apache.hadoop.conf.Configuration
import org.apache.parquet.column.ParquetProperties
import org.apache.parquet.column.{Encoding, EncodingStats}
import org.apache.parquet.column.statistics.{SizeStatistics, Statistics}
import org.apache.parquet.hadoop.ParquetFileReader
import org.apache.parquet.hadoop.metadata.{ColumnChunkMetaData, ColumnChunkProperties, ColumnPath, CompressionCodecName, ParquetMetadata}
import org.apache.parquet.io.{InputFile, SeekableInputStream}
import org.apache.parquet.schema.{LogicalTypeAnnotation, PrimitiveType}

import io.superspark.parquet.footer.{fbs => fb}

/**
 * The parquet-java adapter (docs/spark-lines.md), parquet-java 1.15 side (Spark 4.0): the same
 * members as `jvm/src/main/parquet-1.16+/`. parquet-java 1.15 has no UNKNOWN, VARIANT, GEOMETRY
 * or GEOGRAPHY type annotations and no geospatial statistics. Its own Thrift path reads UNKNOWN
 * as no annotation, does not see the other three (the footer library's Thrift reader then reads
 * such a column as its physical type, FooterReader.thrift) and skips geospatial statistics; the
 * FlatBuffer decoder here does the same, so both paths give the same metadata on this line.
 */
private[superspark] object ParquetJavaShims {
  /** None in parquet-java 1.15: the only value is null. */
  type GeospatialStatistics = Null

  val newLogicalTypes: Boolean = false

  // ---- logical type annotations (parquet-java 1.15's ParquetMetadataConverter.getLogicalTypeAnnotation) ----

  /** UNKNOWN: no annotation (parquet-java 1.15 returns null for it). */
  def unknownType(): LogicalTypeAnnotation = null
  /** VARIANT, GEOMETRY, GEOGRAPHY: unknown to parquet-java 1.15: no annotation, read as the physical type. */
  def variantType(specificationVersion: Byte): LogicalTypeAnnotation = null
  def geometryType(crs: String): LogicalTypeAnnotation = null
  def geographyType(crs: String, algorithm: Int): LogicalTypeAnnotation = null

  def isUnknownType(a: LogicalTypeAnnotation): Boolean = false
  def hasUnknownSortOrder(a: LogicalTypeAnnotation): Boolean = false

  // ---- FlatBuffer -> parquet-java metadata (FlatBufferDecoder) ----

  /** parquet-java 1.15 has no geospatial statistics: a FlatBuffer's are skipped, as its Thrift path skips them. */
  def geospatialStatistics(g: fb.GeospatialStatistics): GeospatialStatistics = null

  def columnChunkMetaData(path: ColumnPath, primitive: PrimitiveType, codec: CompressionCodecName,
      encodingStats: EncodingStats, encodings: JSet[Encoding], statistics: Statistics[_], firstDataPage: Long,
      dictionaryPage: Long, valueCount: Long, totalSize: Long, totalUncompressedSize: Long,
      sizeStatistics: SizeStatistics, geospatial: => GeospatialStatistics): ColumnChunkMetaData =
    ColumnChunkMetaData.get(path, primitive, codec, encodingStats, encodings, statistics, firstDataPage,
      dictionaryPage, valueCount, totalSize, totalUncompressedSize, sizeStatistics)

  def geospatialView(c: ColumnChunkMetaData): Option[Any] = None

  // ---- writers and readers ----

  /** parquet-java 1.15 has no row-group row count limit (parquet.block.row.count.limit): nothing to add. */
  def writerProperties(builder: ParquetProperties.Builder, conf: Configuration): ParquetProperties.Builder = builder


  /** parquet-java 1.15 has no (InputFile, footer, options, stream) constructor: the Hadoop path one does the same. */
  def fileReader(file: InputFile, path: org.apache.hadoop.fs.Path, conf: Configuration,
      footer: ParquetMetadata, options: org.apache.parquet.ParquetReadOptions,
      stream: SeekableInputStream): ParquetFileReader =
    new ParquetFileReader(conf, path, footer, options, stream)
}

/** parquet-java 1.15's `ColumnChunkMetaData` has no geospatial statistics to ask for. */
private[superspark] abstract class GeospatialColumnChunkMetaData(encodingStats: EncodingStats, properties: ColumnChunkProperties)
    extends ColumnChunkMetaData(encodingStats, properties) {
  protected def lazyGeospatialStatistics: ParquetJavaShims.GeospatialStatistics
}
