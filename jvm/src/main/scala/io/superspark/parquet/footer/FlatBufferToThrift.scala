package io.superspark.parquet.footer

import java.io.ByteArrayOutputStream
import java.nio.ByteBuffer
import java.util.{ArrayList => JArrayList, List => JList}

import org.apache.parquet.format.{BoundingBox => TBoundingBox, BsonType, ColumnChunk => TColumnChunk,
  ColumnMetaData => TColumnMetaData, ColumnOrder => TColumnOrder, CompressionCodec, ConvertedType, DateType,
  DecimalType, EdgeInterpolationAlgorithm, Encoding => TEncoding, EnumType, FieldRepetitionType,
  FileMetaData => TFileMetaData, Float16Type, GeographyType => TGeographyType, GeometryType => TGeometryType,
  GeospatialStatistics => TGeospatialStatistics, IntType, JsonType, KeyValue => TKeyValue, ListType,
  LogicalType => TLogicalType, MapType, MicroSeconds, MilliSeconds, NanoSeconds, NullType,
  PageEncodingStats => TPageEncodingStats, PageType, RowGroup => TRowGroup, SchemaElement => TSchemaElement,
  SizeStatistics => TSizeStatistics, SortingColumn => TSortingColumn, Statistics => TStatistics, StringType,
  TimeType, TimeUnit => TTimeUnit, TimestampType, Type => TType, TypeDefinedOrder, UUIDType, Util,
  VariantType => TVariantType}

import io.superspark.parquet.footer.{fbs => fb}

/**
 * FlatBuffer footer -> Thrift `FileMetaData` (parquet-format's classes) and its Thrift
 * compact bytes: the inverse of [[ThriftToFlatBuffer]]. Pure codec, no I/O.
 *
 * Every Thrift field is set exactly when the FlatBuffer says it was: optional scalars by
 * their presence, vectors and tables by theirs; the fields the FlatBuffer derives are
 * derived back (a chunk's `type` and `path_in_schema` from its schema leaf, `num_values`
 * from the row group when absent, `column_orders` from the leaves). Serialized with
 * parquet-java's own Thrift writer, the bytes equal those of any writer that emits fields in
 * id order with the compact protocol's canonical encodings (parquet-java, Arrow C++, DuckDB,
 * Polars); see docs/parquet-footer.md for what cannot come back (fields unknown to
 * parquet-format 2.x, a v0 buffer's ColumnChunk.file_offset, an unknown column order).
 *
 * The whole buffer is verified first ([[FlatBufferVerifier]]); a buffer that does not verify
 * or holds what Thrift cannot express raises [[UnrebuildableFooterException]] with the reason.
 */
object FlatBufferToThrift {

  /** The Thrift `FileMetaData` the FlatBuffer was made from. */
  def toThrift(buf: ByteBuffer): TFileMetaData = {
    FlatBufferVerifier.verifyHead(buf).orElse(
      FlatBufferVerifier.verifyRowGroups(buf, leafCount(buf), null)).foreach { reason =>
      throw new UnrebuildableFooterException(reason.toString)
    }
    try new FlatBufferToThrift(FlatBufferDecoder.root(buf)).build()
    catch {
      case e: UnrebuildableFooterException => throw e
      case e: RuntimeException =>
        throw new UnrebuildableFooterException(s"${e.getClass.getSimpleName}: ${e.getMessage}")
    }
  }

  /** The Thrift compact bytes of [[toThrift]] (a Parquet footer, ending with its stop byte). */
  def rebuild(buf: ByteBuffer): Array[Byte] = serialize(toThrift(buf))

  def rebuild(flatbuffer: Array[Byte]): Array[Byte] = rebuild(ByteBuffer.wrap(flatbuffer))

  def serialize(md: TFileMetaData): Array[Byte] = {
    val out = new ByteArrayOutputStream(1 << 16)
    try Util.writeFileMetaData(md, out) catch {
      case e: java.io.IOException => throw new UnrebuildableFooterException(s"Thrift writer: ${e.getMessage}")
    }
    out.toByteArray
  }

  private def leafCount(buf: ByteBuffer): Int = {
    val md = FlatBufferDecoder.root(buf)
    val e = new fb.SchemaElement()
    var n = 0
    var i = 1
    while (i < md.schemaLength) { if (md.schema(e, i).hasType) n += 1; i += 1 }
    n
  }

  private def fail(reason: String): Nothing = throw new UnrebuildableFooterException(reason)

  private def list[T](n: Int)(f: Int => T): JList[T] = {
    val out = new JArrayList[T](n)
    var i = 0
    while (i < n) { out.add(f(i)); i += 1 }
    out
  }

  private def timeUnit(u: Byte): TTimeUnit = u match {
    case fb.TimeUnit.MILLIS => TTimeUnit.MILLIS(new MilliSeconds())
    case fb.TimeUnit.MICROS => TTimeUnit.MICROS(new MicroSeconds())
    case _ => TTimeUnit.NANOS(new NanoSeconds())
  }

  private def keyValues(n: Int, at: Int => fb.KeyValue): JList[TKeyValue] = list(n) { i =>
    val kv = at(i)
    val t = new TKeyValue(kv.key)
    if (kv.`val` != null) t.setValue(kv.`val`)
    t
  }
}

/**
 * Thrift `Statistics` with field 9, `nan_count` (i64), which parquet-java 1.17's generated
 * class does not know: written as that class writes its fields (in id order), then field 9.
 */
private final class StatisticsWithNanCount(nanCount: Long) extends TStatistics {
  import shaded.parquet.org.apache.thrift.protocol.{TField, TProtocol, TStruct}

  override def write(p: TProtocol): Unit = {
    def binary(name: String, id: Short, set: Boolean, v: => java.nio.ByteBuffer): Unit = if (set) {
      p.writeFieldBegin(new TField(name, 11, id)); p.writeBinary(v); p.writeFieldEnd()
    }
    def i64(name: String, id: Short, set: Boolean, v: => Long): Unit = if (set) {
      p.writeFieldBegin(new TField(name, 10, id)); p.writeI64(v); p.writeFieldEnd()
    }
    def bool(name: String, id: Short, set: Boolean, v: => Boolean): Unit = if (set) {
      p.writeFieldBegin(new TField(name, 2, id)); p.writeBool(v); p.writeFieldEnd()
    }
    p.writeStructBegin(new TStruct("Statistics"))
    binary("max", 1, isSetMax, bufferForMax)
    binary("min", 2, isSetMin, bufferForMin)
    i64("null_count", 3, isSetNull_count, getNull_count)
    i64("distinct_count", 4, isSetDistinct_count, getDistinct_count)
    binary("max_value", 5, isSetMax_value, bufferForMax_value)
    binary("min_value", 6, isSetMin_value, bufferForMin_value)
    bool("is_max_value_exact", 7, isSetIs_max_value_exact, isIs_max_value_exact)
    bool("is_min_value_exact", 8, isSetIs_min_value_exact, isIs_min_value_exact)
    i64("nan_count", 9, set = true, nanCount)
    p.writeFieldStop()
    p.writeStructEnd()
  }
}

/** The Thrift `ColumnOrder` member `IEEE_754_TOTAL_ORDER` (field 2, empty struct), unknown to parquet-java 1.17. */
private final class Ieee754TotalOrder extends TColumnOrder {
  import shaded.parquet.org.apache.thrift.protocol.{TField, TProtocol, TStruct}

  override def write(p: TProtocol): Unit = {
    p.writeStructBegin(new TStruct("ColumnOrder"))
    p.writeFieldBegin(new TField("IEEE_754_TOTAL_ORDER", 12, 2))
    p.writeStructBegin(new TStruct("IEEE754TotalOrder"))
    p.writeFieldStop()
    p.writeStructEnd()
    p.writeFieldEnd()
    p.writeFieldStop()
    p.writeStructEnd()
  }
}

/** A FlatBuffer that cannot be turned back into a Thrift footer: why. */
class UnrebuildableFooterException(val reason: String)
    extends ParquetFooterException(s"the FlatBuffer footer cannot be rebuilt as Thrift: $reason")

private final class FlatBufferToThrift(md: fb.FileMetaData) {
  import FlatBufferToThrift._

  private val leafTypes = new JArrayList[TType]()
  private val leafPaths = new JArrayList[JList[String]]()
  private val bb = md.getByteBuffer
  private val stats = new ChunkStatistics(bb, md.createdBy())
  // Chunks share encodings and encoding-stats vectors: share the Thrift lists the same way.
  private val encodingLists = new java.util.HashMap[Integer, JList[TEncoding]]()
  private val encodingStatsLists = new java.util.HashMap[Integer, JList[TPageEncodingStats]]()

  def build(): TFileMetaData = {
    val schema = schemaElements()
    val t = new TFileMetaData()
    t.setVersion(md.version)
    t.setSchema(schema)
    t.setNum_rows(md.numRows)
    t.setRow_groups(list(md.rowGroupsLength)(r => rowGroup(md.rowGroups(new fb.RowGroup(), r), r)))
    if (md.kvVector() != null) t.setKey_value_metadata(keyValues(md.kvLength, md.kv(new fb.KeyValue(), _)))
    if (md.createdBy != null) t.setCreated_by(md.createdBy)
    columnOrders().foreach(t.setColumn_orders)
    t
  }

  // ---- schema ----

  private def schemaElements(): JList[TSchemaElement] = {
    val n = md.schemaLength
    val elements = list(n)(i => schemaElement(md.schema(new fb.SchemaElement(), i)))
    // Leaf paths, walking the tree as ThriftToFlatBuffer did.
    val path = new JArrayList[String]()
    var next = 1
    def walk(children: Int): Unit = {
      var i = 0
      while (i < children) {
        if (next >= n) fail("schema ends before all children of a group are listed")
        val e = elements.get(next)
        next += 1
        path.add(e.getName)
        if (e.isSetType) {
          leafTypes.add(e.getType)
          leafPaths.add(new JArrayList[String](path))
        } else walk(e.getNum_children)
        path.remove(path.size - 1)
        i += 1
      }
    }
    walk(elements.get(0).getNum_children)
    if (next != n) fail(s"schema lists ${n - next} elements outside the root's tree")
    elements
  }

  private def schemaElement(e: fb.SchemaElement): TSchemaElement = {
    val t = new TSchemaElement(e.name)
    if (e.hasType) t.setType(TType.findByValue(e.`type`))
    if (e.hasTypeLength) t.setType_length(e.typeLength)
    if (e.hasRepetitionType) t.setRepetition_type(FieldRepetitionType.findByValue(e.repetitionType))
    // num_children has a default (0): written exactly when the Thrift field was set.
    if (FlatBufferVerifier.tableField(bb, FbAccess.pos(e), 16) != 0) t.setNum_children(e.numChildren)
    if (e.hasConvertedType) t.setConverted_type(ConvertedType.findByValue(e.convertedType))
    if (e.hasScale) t.setScale(e.scale)
    if (e.hasPrecision) t.setPrecision(e.precision)
    if (e.hasFieldId) t.setField_id(e.fieldId)
    if (e.logicalTypeType != fb.LogicalType.NONE) t.setLogicalType(logicalType(e))
    t
  }

  private def logicalType(e: fb.SchemaElement): TLogicalType = e.logicalTypeType match {
    case fb.LogicalType.StringType => TLogicalType.STRING(new StringType())
    case fb.LogicalType.MapType => TLogicalType.MAP(new MapType())
    case fb.LogicalType.ListType => TLogicalType.LIST(new ListType())
    case fb.LogicalType.EnumType => TLogicalType.ENUM(new EnumType())
    case fb.LogicalType.DecimalType =>
      val d = e.logicalType(new fb.DecimalOptions()).asInstanceOf[fb.DecimalOptions]
      TLogicalType.DECIMAL(new DecimalType(d.scale, d.precision))
    case fb.LogicalType.DateType => TLogicalType.DATE(new DateType())
    case fb.LogicalType.TimeType =>
      val o = e.logicalType(new fb.TimeOptions()).asInstanceOf[fb.TimeOptions]
      TLogicalType.TIME(new TimeType(o.isAdjustedToUtc, timeUnit(o.unit)))
    case fb.LogicalType.TimestampType =>
      val o = e.logicalType(new fb.TimeOptions()).asInstanceOf[fb.TimeOptions]
      TLogicalType.TIMESTAMP(new TimestampType(o.isAdjustedToUtc, timeUnit(o.unit)))
    case fb.LogicalType.IntType =>
      val o = e.logicalType(new fb.IntOptions()).asInstanceOf[fb.IntOptions]
      TLogicalType.INTEGER(new IntType(o.bitWidth, o.isSigned))
    case fb.LogicalType.NullType => TLogicalType.UNKNOWN(new NullType())
    case fb.LogicalType.JsonType => TLogicalType.JSON(new JsonType())
    case fb.LogicalType.BsonType => TLogicalType.BSON(new BsonType())
    case fb.LogicalType.UUIDType => TLogicalType.UUID(new UUIDType())
    case fb.LogicalType.Float16Type => TLogicalType.FLOAT16(new Float16Type())
    case fb.LogicalType.VariantType =>
      val v = e.logicalType(new fb.VariantType()).asInstanceOf[fb.VariantType]
      val t = new TVariantType()
      if (v.hasSpecificationVersion) t.setSpecification_version(v.specificationVersion)
      TLogicalType.VARIANT(t)
    case fb.LogicalType.GeometryType =>
      val g = e.logicalType(new fb.GeometryType()).asInstanceOf[fb.GeometryType]
      val t = new TGeometryType()
      if (g.crs != null) t.setCrs(g.crs)
      TLogicalType.GEOMETRY(t)
    case fb.LogicalType.GeographyType =>
      val g = e.logicalType(new fb.GeographyType()).asInstanceOf[fb.GeographyType]
      val t = new TGeographyType()
      if (g.crs != null) t.setCrs(g.crs)
      if (g.hasAlgorithm) t.setAlgorithm(EdgeInterpolationAlgorithm.findByValue(g.algorithm))
      TLogicalType.GEOGRAPHY(t)
    case other => fail(s"logical type $other")
  }

  /** Thrift column_orders: present when the leaves carry one (all of them, as written). */
  private def columnOrders(): Option[JList[TColumnOrder]] = {
    val e = new fb.SchemaElement()
    val orders = new JArrayList[TColumnOrder]()
    var i = 1
    while (i < md.schemaLength) {
      md.schema(e, i)
      if (e.hasType) e.columnOrderType match {
        case fb.ColumnOrder.TypeDefinedOrder => orders.add(TColumnOrder.TYPE_ORDER(new TypeDefinedOrder()))
        case fb.ColumnOrder.IEEE754TotalOrder => orders.add(new Ieee754TotalOrder)
        case fb.ColumnOrder.UndefinedOrder =>
          fail(s"schema element $i has a column order unknown to parquet-format (its Thrift field id is not kept)")
        case _ =>
      }
      i += 1
    }
    if (orders.isEmpty) None
    else if (orders.size != leafTypes.size) fail(s"${orders.size} column orders for ${leafTypes.size} leaves")
    else Some(orders)
  }

  // ---- row groups ----

  private def rowGroup(rg: fb.RowGroup, r: Int): TRowGroup = {
    if (rg.columnsLength != leafTypes.size) {
      fail(s"row group $r has ${rg.columnsLength} column chunks for ${leafTypes.size} leaf columns")
    }
    val t = new TRowGroup()
    val c = new fb.ColumnChunk()
    t.setColumns(list(rg.columnsLength)(j => columnChunk(rg.columns(c, j), rg.numRows, j)))
    t.setTotal_byte_size(rg.totalByteSize)
    t.setNum_rows(rg.numRows)
    if (rg.sortingColumnsVector() != null) {
      t.setSorting_columns(list(rg.sortingColumnsLength) { i =>
        val s = rg.sortingColumns(i)
        new TSortingColumn(s.columnIdx, s.descending, s.nullsFirst)
      })
    }
    if (rg.hasFileOffset) t.setFile_offset(rg.fileOffset)
    if (rg.hasTotalCompressedSize) t.setTotal_compressed_size(rg.totalCompressedSize)
    if (rg.hasOrdinal) t.setOrdinal(rg.ordinal)
    t
  }

  private def columnChunk(c: fb.ColumnChunk, rowGroupRows: Long, j: Int): TColumnChunk = {
    val t = new TColumnChunk()
    if (c.filePath != null) t.setFile_path(c.filePath)
    // Required in Thrift; a v0 buffer does not keep it (0 then).
    t.setFile_offset(if (c.hasFileOffset) c.fileOffset else 0L)
    t.setMeta_data(columnMetaData(c.metaData(), rowGroupRows, j))
    if (c.hasOffsetIndexOffset) t.setOffset_index_offset(c.offsetIndexOffset)
    if (c.hasOffsetIndexLength) t.setOffset_index_length(c.offsetIndexLength)
    if (c.hasColumnIndexOffset) t.setColumn_index_offset(c.columnIndexOffset)
    if (c.hasColumnIndexLength) t.setColumn_index_length(c.columnIndexLength)
    t
  }

  private def columnMetaData(m: fb.ColumnMetadata, rowGroupRows: Long, j: Int): TColumnMetaData = {
    val t = new TColumnMetaData()
    t.setType(leafTypes.get(j))
    t.setEncodings(encodings(m))
    t.setPath_in_schema(leafPaths.get(j))
    t.setCodec(CompressionCodec.findByValue(m.codec))
    t.setNum_values(if (m.hasNumValues) m.numValues else rowGroupRows)
    t.setTotal_uncompressed_size(m.totalUncompressedSize)
    t.setTotal_compressed_size(m.totalCompressedSize)
    if (m.keyValueMetadataVector() != null) {
      t.setKey_value_metadata(keyValues(m.keyValueMetadataLength, m.keyValueMetadata(new fb.KeyValue(), _)))
    }
    t.setData_page_offset(m.dataPageOffset)
    if (m.hasIndexPageOffset) t.setIndex_page_offset(m.indexPageOffset)
    if (m.hasDictionaryPageOffset) t.setDictionary_page_offset(m.dictionaryPageOffset)
    val s = m.statistics()
    if (s != null) t.setStatistics(statistics(s, leafTypes.get(j)))
    if (m.encodingStatsVector() != null) t.setEncoding_stats(encodingStats(m))
    if (m.hasBloomFilterOffset) t.setBloom_filter_offset(m.bloomFilterOffset)
    if (m.hasBloomFilterLength) t.setBloom_filter_length(m.bloomFilterLength)
    val z = m.sizeStatistics()
    if (z != null) t.setSize_statistics(sizeStatistics(z))
    val g = m.geospatialStatistics()
    if (g != null) t.setGeospatial_statistics(geospatialStatistics(g))
    t
  }

  private def encodings(m: fb.ColumnMetadata): JList[TEncoding] = {
    val at = FbAccess.vector(bb, FbAccess.pos(m), 22)
    if (at < 0) return new JArrayList[TEncoding]() // required in Thrift; always written by ThriftToFlatBuffer
    encodingLists.computeIfAbsent(at, _ => list(m.encodingsLength)(i => TEncoding.findByValue(m.encodings(i))))
  }

  private def encodingStats(m: fb.ColumnMetadata): JList[TPageEncodingStats] = {
    val at = FbAccess.vector(bb, FbAccess.pos(m), 24)
    encodingStatsLists.computeIfAbsent(at, _ => list(m.encodingStatsLength) { i =>
      val p = m.encodingStats(new fb.PageEncodingStats(), i)
      new TPageEncodingStats(PageType.findByValue(p.pageType), TEncoding.findByValue(p.encoding), p.count)
    })
  }

  private def statistics(s: fb.Statistics, physical: TType): TStatistics = {
    val t = if (s.hasNanCount) new StatisticsWithNanCount(s.nanCount) else new TStatistics()
    val Array(min, max, legacyMin, legacyMax) = stats.storedValues(s, FlatBufferDecoder.storageLeaf(physical))
    if (legacyMax != null) t.setMax(legacyMax)
    if (legacyMin != null) t.setMin(legacyMin)
    if (s.hasNullCount) t.setNull_count(s.nullCount)
    if (s.hasDistinctCount) t.setDistinct_count(s.distinctCount)
    if (max != null) t.setMax_value(max)
    if (min != null) t.setMin_value(min)
    if (s.hasIsMaxValueExact) t.setIs_max_value_exact(s.isMaxValueExact)
    if (s.hasIsMinValueExact) t.setIs_min_value_exact(s.isMinValueExact)
    t
  }

  private def longs(v: com.google.flatbuffers.LongVector): JList[java.lang.Long] =
    list(v.length)(i => java.lang.Long.valueOf(v.get(i)))

  private def sizeStatistics(z: fb.SizeStatistics): TSizeStatistics = {
    val t = new TSizeStatistics()
    if (z.hasUnencodedByteArrayDataBytes) t.setUnencoded_byte_array_data_bytes(z.unencodedByteArrayDataBytes)
    if (z.repetitionLevelHistogramVector() != null) t.setRepetition_level_histogram(longs(z.repetitionLevelHistogramVector()))
    if (z.definitionLevelHistogramVector() != null) t.setDefinition_level_histogram(longs(z.definitionLevelHistogramVector()))
    t
  }

  private def geospatialStatistics(g: fb.GeospatialStatistics): TGeospatialStatistics = {
    val t = new TGeospatialStatistics()
    val x = g.bbox()
    if (x != null) {
      val b = new TBoundingBox(x.xmin, x.xmax, x.ymin, x.ymax)
      if (x.hasZmin) b.setZmin(x.zmin)
      if (x.hasZmax) b.setZmax(x.zmax)
      if (x.hasMmin) b.setMmin(x.mmin)
      if (x.hasMmax) b.setMmax(x.mmax)
      t.setBbox(b)
    }
    if (g.geospatialTypesVector() != null) {
      t.setGeospatial_types(list(g.geospatialTypesLength)(i => Integer.valueOf(g.geospatialTypes(i))))
    }
    t
  }
}
