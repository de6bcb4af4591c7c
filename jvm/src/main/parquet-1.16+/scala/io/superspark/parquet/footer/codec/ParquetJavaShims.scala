package io.superspark.parquet.footer.codec

import java.util.{HashSet => JHashSet, Set => JSet}

import org.apache.hadoop.conf.Configuration
import org.apache.parquet.column.ParquetProperties
import org.apache.parquet.column.{Encoding, EncodingStats}
import org.apache.parquet.column.schema.EdgeInterpolationAlgorithm
import org.apache.parquet.column.statistics.{SizeStatistics, Statistics}
import org.apache.parquet.column.statistics.geospatial.{BoundingBox, GeospatialTypes}
import org.apache.parquet.hadoop.{ParquetFileReader, ParquetOutputFormat}
import org.apache.parquet.hadoop.metadata.{ColumnChunkMetaData, ColumnChunkProperties, ColumnPath, CompressionCodecName, ParquetMetadata}
import org.apache.parquet.io.{InputFile, SeekableInputStream}
import org.apache.parquet.schema.{LogicalTypeAnnotation, PrimitiveType}
import org.apache.parquet.schema.LogicalTypeAnnotation.{GeometryLogicalTypeAnnotation, UnknownLogicalTypeAnnotation}

import io.superspark.parquet.footer.{fbs => fb}

/**
 * The parquet-java adapter (docs/spark-lines.md): what the footer library needs of parquet-java
 * that differs between the versions the Spark lines ship. This side: parquet-java 1.16 and 1.17
 * (Spark 4.1, 4.2, 4.3), which have the UNKNOWN, VARIANT, GEOMETRY and GEOGRAPHY logical type
 * annotations and geospatial statistics. The other side, `jvm/src/main/parquet-1.15/`, has the
 * same members.
 */
private[superspark] object ParquetJavaShims {
  /** parquet-java's geospatial statistics of a column chunk. */
  type GeospatialStatistics = org.apache.parquet.column.statistics.geospatial.GeospatialStatistics

  /** Whether this parquet-java has geospatial statistics and the VARIANT/GEOMETRY/GEOGRAPHY annotations. */
  val newLogicalTypes: Boolean = true

  // ---- logical type annotations (ParquetMetadataConverter.getLogicalTypeAnnotation) ----

  def unknownType(): LogicalTypeAnnotation = LogicalTypeAnnotation.unknownType()
  def variantType(specificationVersion: Byte): LogicalTypeAnnotation = LogicalTypeAnnotation.variantType(specificationVersion)
  def geometryType(crs: String): LogicalTypeAnnotation = LogicalTypeAnnotation.geometryType(crs)
  /** `algorithm` < 0: not set. */
  def geographyType(crs: String, algorithm: Int): LogicalTypeAnnotation = LogicalTypeAnnotation.geographyType(crs,
    if (algorithm < 0) null else EdgeInterpolationAlgorithm.findByValue(algorithm))

  /** The UNKNOWN (null) type annotation, which parquet-java's statistics rules treat as a string type. */
  def isUnknownType(a: LogicalTypeAnnotation): Boolean = a.isInstanceOf[UnknownLogicalTypeAnnotation]

  /** Annotations this parquet-java orders as UNKNOWN that older versions do not have (ParquetMetadataConverter's sort orders). */
  def hasUnknownSortOrder(a: LogicalTypeAnnotation): Boolean =
    a.isInstanceOf[UnknownLogicalTypeAnnotation] || a.isInstanceOf[GeometryLogicalTypeAnnotation]

  // ---- FlatBuffer -> parquet-java metadata (FlatBufferDecoder) ----

  /** parquet-java's geospatial statistics from the FlatBuffer's (null: none), as ParquetMetadataConverter builds them. */
  def geospatialStatistics(g: fb.GeospatialStatistics): GeospatialStatistics = {
    if (g == null) return null
    val x = g.bbox()
    val bbox = if (x == null) null else new BoundingBox(x.xmin, x.xmax, x.ymin, x.ymax,
      if (x.hasZmin) x.zmin else Double.NaN, if (x.hasZmax) x.zmax else Double.NaN,
      if (x.hasMmin) x.mmin else Double.NaN, if (x.hasMmax) x.mmax else Double.NaN)
    val types = if (g.geospatialTypesAsByteBuffer() == null) null else {
      val set = new JHashSet[Integer]()
      var i = 0
      while (i < g.geospatialTypesLength) { set.add(g.geospatialTypes(i)); i += 1 }
      new GeospatialTypes(set)
    }
    new org.apache.parquet.column.statistics.geospatial.GeospatialStatistics(bbox, types)
  }

  /** `ColumnChunkMetaData.get` with every statistic (`geospatial` is decoded only where parquet-java has it). */
  def columnChunkMetaData(path: ColumnPath, primitive: PrimitiveType, codec: CompressionCodecName,
      encodingStats: EncodingStats, encodings: JSet[Encoding], statistics: Statistics[_], firstDataPage: Long,
      dictionaryPage: Long, valueCount: Long, totalSize: Long, totalUncompressedSize: Long,
      sizeStatistics: SizeStatistics, geospatial: => GeospatialStatistics): ColumnChunkMetaData =
    ColumnChunkMetaData.get(path, primitive, codec, encodingStats, encodings, statistics, firstDataPage,
      dictionaryPage, valueCount, totalSize, totalUncompressedSize, sizeStatistics, geospatial)

  /** What [[MetadataDiff]] compares of a chunk's geospatial statistics (None: none). */
  def geospatialView(c: ColumnChunkMetaData): Option[Any] = Option(c.getGeospatialStatistics).map(s =>
    (Option(s.getBoundingBox).map(_.toString), Option(s.getGeospatialTypes).map(_.toString), s.isValid))

  // ---- writers and readers ----

  /** The writer settings of parquet-java 1.16+ that 1.15 lacks: the row-group row count limit. */
  def writerProperties(builder: ParquetProperties.Builder, conf: Configuration): ParquetProperties.Builder =
    builder.withRowGroupRowCountLimit(conf.getInt(ParquetOutputFormat.BLOCK_ROW_COUNT_LIMIT,
      ParquetProperties.DEFAULT_ROW_GROUP_ROW_COUNT_LIMIT))


  /** parquet-java's file reader around a footer already read and the stream it was read from (no footer read). */
  def fileReader(file: InputFile, path: org.apache.hadoop.fs.Path, conf: Configuration,
      footer: ParquetMetadata, options: org.apache.parquet.ParquetReadOptions,
      stream: SeekableInputStream): ParquetFileReader =
    new ParquetFileReader(file, footer, options, stream)
}

/**
 * A column chunk whose geospatial statistics come from `lazyGeospatialStatistics`
 * ([[LazyColumnChunkMetaData]]): parquet-java 1.16+ asks for them through `getGeospatialStatistics`.
 */
private[superspark] abstract class GeospatialColumnChunkMetaData(encodingStats: EncodingStats, properties: ColumnChunkProperties)
    extends ColumnChunkMetaData(encodingStats, properties) {
  protected def lazyGeospatialStatistics: ParquetJavaShims.GeospatialStatistics
  override def getGeospatialStatistics: ParquetJavaShims.GeospatialStatistics = lazyGeospatialStatistics
}
