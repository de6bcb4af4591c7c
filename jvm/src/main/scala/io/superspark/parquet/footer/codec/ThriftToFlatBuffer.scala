package io.superspark.parquet.footer.codec

import java.nio.ByteBuffer
import java.util.{List => JList}

import scala.collection.mutable

import com.google.flatbuffers.FlatBufferBuilder
import org.apache.parquet.format.{ColumnChunk => TColumnChunk, ColumnMetaData => TColumnMetaData, FileMetaData => TFileMetaData, KeyValue => TKeyValue, LogicalType => TLogicalType, RowGroup => TRowGroup, SchemaElement => TSchemaElement, Statistics => TStatistics}

import io.superspark.parquet.footer.{fbs => fb}
import io.superspark.parquet.footer.UnrepresentableFooterException
import io.superspark.parquet.thrift.{ThriftCompactReader, ThriftExtras}

/**
 * Converts a Thrift `FileMetaData` (parquet-format's generated class) into the FlatBuffer
 * of parquet3.fbs. Refuses, with [[UnrepresentableFooterException]], whatever the FlatBuffer
 * cannot carry faithfully: encryption, unknown enum values or logical types, and schemas or
 * column chunks that contradict each other (those a Thrift reader would reject too).
 *
 * Small vectors that repeat across column chunks (encodings, page encoding stats, level
 * histograms) are written once and shared, which FlatBuffers allows.
 */
private[superspark] object ThriftToFlatBuffer {

  /** The schema version this writer emits (`FileMetaData.schema_version`, "v1"). */
  val SchemaVersion: Int = 1

  /** An entry of the v1 extension slot: a UUID and its payload. */
  final case class FooterExtension(uuid: java.util.UUID, data: Array[Byte])

  /**
   * The FlatBuffer of a Thrift footer, with `extensions` in its extension slot (readers skip
   * the UUIDs they do not know).
   */
  def convert(md: TFileMetaData, extensions: Seq[FooterExtension] = Nil,
      extras: ThriftExtras = ThriftExtras.Empty, sizeHint: Int = 64 * 1024): Array[Byte] =
    new ThriftToFlatBuffer(md, extensions, extras, sizeHint).build()

  private[footer] def refuse(reason: String): Nothing = throw new UnrepresentableFooterException(reason)

  /** Thrift enum value, refusing the null a Thrift reader leaves for an unknown value. */
  private def enumValue(e: shaded.parquet.org.apache.thrift.TEnum, what: String): Byte =
    if (e == null) refuse(s"unknown $what value") else e.getValue.toByte

  /** Length of the common prefix of two arrays. */
  private[footer] def commonPrefix(a: Array[Byte], b: Array[Byte]): Int = {
    val n = math.min(a.length, b.length)
    val m = java.util.Arrays.mismatch(a, 0, n, b, 0, n)
    if (m < 0) n else m
  }

  /** Packs up to 16 bytes (from `from`) into two big-endian longs, zero-padded. */
  private[footer] def packBigEndian(bytes: Array[Byte], from: Int, len: Int, part: Int): Long = {
    var v = 0L
    var i = 0
    while (i < 8) {
      val j = part * 8 + i
      v = (v << 8) | (if (j < len) bytes(from + j) & 0xFFL else 0L)
      i += 1
    }
    v
  }


  /**
   * A Thrift `Statistics` struct's fields as the FlatBuffer stores them (null: not set), filled
   * from parquet-java's object ([[ThriftToFlatBuffer]]) or from the compact bytes
   * ([[ThriftCompactToFlatBuffer]]).
   */
  private[footer] final class StatisticsFields {
    var nullCount: java.lang.Long = null
    var distinctCount: java.lang.Long = null
    var minValue: Array[Byte] = null
    var maxValue: Array[Byte] = null
    var legacyMin: Array[Byte] = null
    var legacyMax: Array[Byte] = null
    var isMinValueExact: java.lang.Boolean = null
    var isMaxValueExact: java.lang.Boolean = null
    var nanCount: java.lang.Long = null
  }

  /** A value encoded as in parquet3.fbs's Statistics comment. */
  private final class Packed(val lo4: Long, val lo8: Long, val hi8: Long, val len: Int, val suffix: Int)

  private def pack(b: FlatBufferBuilder, value: Array[Byte], prefixLen: Int, width: Int): Packed = {
    if (width > 0) {
      if (value.length == width) {
        width match {
          case 1 | 4 => new Packed(ThriftCompactReader.littleEndian(value, 0, width), 0, 0, width, 0)
          case 8 => new Packed(0, ThriftCompactReader.littleEndian(value, 0, 8), 0, 8, 0)
          case 12 => new Packed(ThriftCompactReader.littleEndian(value, 0, 4), ThriftCompactReader.littleEndian(value, 4, 8), 0, 12, 0)
        }
      } else new Packed(0, 0, 0, -1, b.createByteVector(value))
    } else {
      val n = value.length - prefixLen
      if (n <= 16) {
        new Packed(0, packBigEndian(value, prefixLen, n, 0), packBigEndian(value, prefixLen, n, 1), n, 0)
      } else new Packed(0, 0, 0, -1, b.createByteVector(value, prefixLen, n))
    }
  }

  /** Adds a packed min or max (its suffix vector, or its words and length) to the open Statistics table. */
  private def addPacked(b: FlatBufferBuilder, p: Packed, suffix: (FlatBufferBuilder, Int) => Unit,
      lo4: (FlatBufferBuilder, Long) => Unit, lo8: (FlatBufferBuilder, Long) => Unit, hi8: (FlatBufferBuilder, Long) => Unit,
      len: (FlatBufferBuilder, Byte) => Unit): Unit =
    if (p.suffix != 0) suffix(b, p.suffix)
    else {
      if (p.lo4 != 0) lo4(b, p.lo4)
      if (p.lo8 != 0) lo8(b, p.lo8)
      if (p.hi8 != 0) hi8(b, p.hi8)
      len(b, p.len.toByte)
    }

  /** The FlatBuffer `Statistics` table of `s` for a column of `physicalType`. */
  private[footer] def statistics(b: FlatBufferBuilder, s: StatisticsFields, physicalType: Byte): Int = {
    val width = fixedWidth(physicalType)
    val min = s.minValue
    val max = s.maxValue
    val prefixLen = if (width < 0 && min != null && max != null) commonPrefix(min, max) else 0
    val prefix = if (prefixLen > 0) b.createByteVector(min, 0, prefixLen) else 0
    val pMin = if (min != null) pack(b, min, prefixLen, width) else null
    val pMax = if (max != null) pack(b, max, prefixLen, width) else null
    var legacySame = 0
    val legacyMinVec = if (s.legacyMin == null) 0
      else if (min != null && java.util.Arrays.equals(s.legacyMin, min)) { legacySame |= 1; 0 }
      else b.createByteVector(s.legacyMin)
    val legacyMaxVec = if (s.legacyMax == null) 0
      else if (max != null && java.util.Arrays.equals(s.legacyMax, max)) { legacySame |= 2; 0 }
      else b.createByteVector(s.legacyMax)

    fb.Statistics.startStatistics(b)
    if (s.nullCount != null) fb.Statistics.addNullCount(b, s.nullCount)
    if (s.distinctCount != null) fb.Statistics.addDistinctCount(b, s.distinctCount)
    if (pMin != null) addPacked(b, pMin, fb.Statistics.addMinSuffix, fb.Statistics.addMinLo4, fb.Statistics.addMinLo8,
      fb.Statistics.addMinHi8, fb.Statistics.addMinLen)
    if (pMax != null) addPacked(b, pMax, fb.Statistics.addMaxSuffix, fb.Statistics.addMaxLo4, fb.Statistics.addMaxLo8,
      fb.Statistics.addMaxHi8, fb.Statistics.addMaxLen)
    if (prefix != 0) fb.Statistics.addPrefix(b, prefix)
    if (s.isMinValueExact != null) fb.Statistics.addIsMinValueExact(b, s.isMinValueExact)
    if (s.isMaxValueExact != null) fb.Statistics.addIsMaxValueExact(b, s.isMaxValueExact)
    if (legacySame != 0) fb.Statistics.addLegacySame(b, legacySame)
    if (legacyMinVec != 0) fb.Statistics.addLegacyMin(b, legacyMinVec)
    if (legacyMaxVec != 0) fb.Statistics.addLegacyMax(b, legacyMaxVec)
    if (s.nanCount != null) fb.Statistics.addNanCount(b, s.nanCount)
    fb.Statistics.endStatistics(b)
  }

  /** The v1 extension slot's vector, or 0 when there are no extensions. */
  private[footer] def extensionsVector(b: FlatBufferBuilder, extensions: Seq[FooterExtension]): Int =
    if (extensions.isEmpty) 0 else fb.FileMetaData.createExtensionsVector(b,
      extensions.map { e =>
        val data = fb.Extension.createDataVector(b, e.data)
        fb.Extension.startExtension(b)
        fb.Extension.addUuid(b, fb.ExtensionUuid.createExtensionUuid(b,
          e.uuid.getMostSignificantBits, e.uuid.getLeastSignificantBits))
        fb.Extension.addData(b, data)
        fb.Extension.endExtension(b)
      }.toArray)

  /** Ends the root table (offsets 0: absent) and returns the finished buffer. */
  private[footer] def finishRoot(b: FlatBufferBuilder, version: Int, schema: Int, numRows: Long, rowGroups: Int,
      kv: Int, createdBy: Int, extensions: Int): Array[Byte] = {
    fb.FileMetaData.startFileMetaData(b)
    fb.FileMetaData.addVersion(b, version)
    fb.FileMetaData.addSchema(b, schema)
    fb.FileMetaData.addNumRows(b, numRows)
    if (rowGroups != 0) fb.FileMetaData.addRowGroups(b, rowGroups)
    if (kv != 0) fb.FileMetaData.addKv(b, kv)
    if (createdBy != 0) fb.FileMetaData.addCreatedBy(b, createdBy)
    fb.FileMetaData.addSchemaVersion(b, SchemaVersion)
    if (extensions != 0) fb.FileMetaData.addExtensions(b, extensions)
    val root = fb.FileMetaData.endFileMetaData(b)
    b.finish(root)
    b.sizedByteArray()
  }

  /** Byte width of a physical type's plain value, or -1 for variable-width types. */
  private[footer] def fixedWidth(physicalType: Byte): Int = physicalType match {
    case fb.Type.BOOLEAN => 1
    case fb.Type.INT32 | fb.Type.FLOAT => 4
    case fb.Type.INT64 | fb.Type.DOUBLE => 8
    case fb.Type.INT96 => 12
    case _ => -1
  }
}

private final class ThriftToFlatBuffer(md: TFileMetaData, extensions: Seq[ThriftToFlatBuffer.FooterExtension],
    extras: ThriftExtras, sizeHint: Int) {
  import ThriftToFlatBuffer._

  private val b = new FlatBufferBuilder(math.max(1024, sizeHint))
  b.forceDefaults(true) // every add* below writes: presence is decided by the caller

  private val encodingsCache = mutable.HashMap.empty[JList[_], Int]
  private val encodingStatsCache = mutable.HashMap.empty[JList[_], Int]
  private val longsCache = mutable.HashMap.empty[JList[_], Int]
  private val stringCache = mutable.HashMap.empty[String, Int]

  /** Leaf schema elements in order: path and physical type. */
  private val leafPaths = mutable.ArrayBuffer.empty[JList[String]]
  private val leafTypes = mutable.ArrayBuffer.empty[Byte]

  def build(): Array[Byte] = {
    if (md.isSetEncryption_algorithm || md.isSetFooter_signing_key_metadata) {
      refuse("the file is encrypted (plaintext footer with encryption_algorithm)")
    }
    val schema = md.getSchema
    if (schema == null || schema.isEmpty) refuse("empty schema")
    collectLeaves(schema)
    val orders = md.getColumn_orders
    if (orders != null && orders.size != leafPaths.size) {
      refuse(s"${orders.size} column orders for ${leafPaths.size} leaf columns")
    }

    val rowGroups = Option(md.getRow_groups).map(rgs => Array.tabulate(rgs.size)(i => rowGroup(rgs.get(i), i)))
    val kv = keyValues(md.getKey_value_metadata)
    val createdBy = if (md.getCreated_by != null) string(md.getCreated_by) else 0
    val schemaVec = schemaElements(schema, orders)
    val rowGroupsVec = rowGroups.map(fb.FileMetaData.createRowGroupsVector(b, _)).getOrElse(0)
    val extensionsVec = extensionsVector(b, extensions)
    finishRoot(b, md.getVersion, schemaVec, md.getNum_rows, rowGroupsVec, kv, createdBy, extensionsVec)
  }

  // ---- schema ----

  private def collectLeaves(schema: JList[TSchemaElement]): Unit = {
    val path = mutable.ArrayBuffer.empty[String]
    var next = 1
    def walk(children: Int): Unit = {
      var i = 0
      while (i < children) {
        if (next >= schema.size) refuse("schema ends before all children of a group are listed")
        val e = schema.get(next)
        next += 1
        if (e.getName == null) refuse(s"schema element ${next - 1} has no name")
        path += e.getName
        if (e.getType != null) {
          leafPaths += java.util.Arrays.asList(path.toSeq: _*)
          leafTypes += e.getType.getValue.toByte
        } else {
          if (e.getRepetition_type == null) refuse(s"group ${e.getName} has no repetition type")
          walk(e.getNum_children)
        }
        path.remove(path.length - 1)
        i += 1
      }
    }
    val root = schema.get(0)
    if (root.getName == null) refuse("the schema root has no name")
    walk(root.getNum_children)
    if (next != schema.size) refuse(s"schema lists ${schema.size - next} elements outside the root's tree")
  }

  private def schemaElements(schema: JList[TSchemaElement], orders: JList[org.apache.parquet.format.ColumnOrder]): Int = {
    val offsets = new Array[Int](schema.size)
    var leaf = 0
    var i = 0
    while (i < schema.size) {
      val e = schema.get(i)
      val isLeaf = e.getType != null && i > 0
      offsets(i) = schemaElement(e, if (isLeaf && orders != null) orders.get(leaf) else null,
        if (isLeaf && leaf < extras.columnOrderIds.size) extras.columnOrderIds(leaf) else ThriftExtras.TypeOrderId)
      if (isLeaf) leaf += 1
      i += 1
    }
    fb.FileMetaData.createSchemaVector(b, offsets)
  }

  private def schemaElement(e: TSchemaElement, order: org.apache.parquet.format.ColumnOrder, orderId: Short): Int = {
    val name = b.createString(e.getName)
    val (ltType, ltValue) = if (e.isSetLogicalType) logicalType(e.getLogicalType) else (0.toByte, 0)
    val (orderType, orderValue) = if (order == null) (0.toByte, 0) else {
      fb.Empty.startEmpty(b)
      val empty = fb.Empty.endEmpty(b)
      if (order.isSetTYPE_ORDER) (fb.ColumnOrder.TypeDefinedOrder, empty)
      else if (orderId == ThriftExtras.Ieee754TotalOrderId) (fb.ColumnOrder.IEEE754TotalOrder, empty)
      else (fb.ColumnOrder.UndefinedOrder, empty)
    }
    fb.SchemaElement.startSchemaElement(b)
    fb.SchemaElement.addName(b, name)
    if (e.getType != null) fb.SchemaElement.addType(b, e.getType.getValue.toByte)
    if (e.isSetRepetition_type) fb.SchemaElement.addRepetitionType(b, enumValue(e.getRepetition_type, "repetition type"))
    if (ltType != 0) {
      fb.SchemaElement.addLogicalTypeType(b, ltType)
      fb.SchemaElement.addLogicalType(b, ltValue)
    }
    if (e.isSetType_length) fb.SchemaElement.addTypeLength(b, e.getType_length)
    if (e.isSetNum_children) fb.SchemaElement.addNumChildren(b, e.getNum_children) // presence kept (v1)
    if (e.isSetField_id) fb.SchemaElement.addFieldId(b, e.getField_id)
    if (orderType != 0) {
      fb.SchemaElement.addColumnOrderType(b, orderType)
      fb.SchemaElement.addColumnOrder(b, orderValue)
    }
    if (e.isSetConverted_type) fb.SchemaElement.addConvertedType(b, enumValue(e.getConverted_type, "converted type"))
    if (e.isSetScale) fb.SchemaElement.addScale(b, e.getScale)
    if (e.isSetPrecision) fb.SchemaElement.addPrecision(b, e.getPrecision)
    fb.SchemaElement.endSchemaElement(b)
  }

  private def empty(): Int = { fb.Empty.startEmpty(b); fb.Empty.endEmpty(b) }

  private def timeUnit(u: org.apache.parquet.format.TimeUnit): Byte = {
    if (u == null || u.getSetField == null) refuse("unknown time unit")
    if (u.isSetMILLIS) fb.TimeUnit.MILLIS else if (u.isSetMICROS) fb.TimeUnit.MICROS else fb.TimeUnit.NANOS
  }

  private def logicalType(lt: TLogicalType): (Byte, Int) = {
    import TLogicalType._Fields._
    val field = lt.getSetField
    if (field == null) refuse("unknown logical type")
    field match {
      case STRING => (fb.LogicalType.StringType, empty())
      case MAP => (fb.LogicalType.MapType, empty())
      case LIST => (fb.LogicalType.ListType, empty())
      case ENUM => (fb.LogicalType.EnumType, empty())
      case DECIMAL =>
        val d = lt.getDECIMAL
        (fb.LogicalType.DecimalType, fb.DecimalOptions.createDecimalOptions(b, d.getPrecision, d.getScale))
      case DATE => (fb.LogicalType.DateType, empty())
      case TIME =>
        val t = lt.getTIME
        (fb.LogicalType.TimeType, fb.TimeOptions.createTimeOptions(b, t.isIsAdjustedToUTC, timeUnit(t.getUnit)))
      case TIMESTAMP =>
        val t = lt.getTIMESTAMP
        (fb.LogicalType.TimestampType, fb.TimeOptions.createTimeOptions(b, t.isIsAdjustedToUTC, timeUnit(t.getUnit)))
      case INTEGER =>
        val t = lt.getINTEGER
        (fb.LogicalType.IntType, fb.IntOptions.createIntOptions(b, t.getBitWidth, t.isIsSigned))
      case UNKNOWN => (fb.LogicalType.NullType, empty())
      case JSON => (fb.LogicalType.JsonType, empty())
      case BSON => (fb.LogicalType.BsonType, empty())
      case UUID => (fb.LogicalType.UUIDType, empty())
      case FLOAT16 => (fb.LogicalType.Float16Type, empty())
      // VARIANT, GEOMETRY, GEOGRAPHY: through the parquet-java adapter (parquet-format 1.16+)
      case other => ParquetJavaShims.newerLogicalType(b, lt).getOrElse(refuse(s"logical type $other"))
    }
  }

  // ---- row groups ----

  private def rowGroup(rg: TRowGroup, index: Int): Int = {
    val cols = rg.getColumns
    if (cols == null || cols.isEmpty) refuse(s"row group $index has no column chunks")
    if (cols.size != leafPaths.size) {
      refuse(s"row group $index has ${cols.size} column chunks for ${leafPaths.size} leaf columns")
    }
    val chunks = Array.tabulate(cols.size)(j => columnChunk(cols.get(j), rg.getNum_rows, index, j))
    val columnsVec = fb.RowGroup.createColumnsVector(b, chunks)
    val sortingVec = if (rg.isSetSorting_columns) {
      val sc = rg.getSorting_columns
      fb.RowGroup.createSortingColumnsVector(b, Array.tabulate(sc.size) { i =>
        val s = sc.get(i)
        fb.SortingColumn.createSortingColumn(b, s.getColumn_idx, s.isDescending, s.isNulls_first)
      })
    } else 0
    fb.RowGroup.startRowGroup(b)
    fb.RowGroup.addColumns(b, columnsVec)
    fb.RowGroup.addTotalByteSize(b, rg.getTotal_byte_size)
    fb.RowGroup.addNumRows(b, rg.getNum_rows)
    if (sortingVec != 0) fb.RowGroup.addSortingColumns(b, sortingVec)
    if (rg.isSetFile_offset) fb.RowGroup.addFileOffset(b, rg.getFile_offset)
    if (rg.isSetTotal_compressed_size) fb.RowGroup.addTotalCompressedSize(b, rg.getTotal_compressed_size)
    if (rg.isSetOrdinal) fb.RowGroup.addOrdinal(b, rg.getOrdinal)
    fb.RowGroup.endRowGroup(b)
  }

  private def columnChunk(c: TColumnChunk, rowGroupRows: Long, rg: Int, col: Int): Int = {
    if (c.isSetCrypto_metadata || c.isSetEncrypted_column_metadata) {
      refuse(s"column chunk $col of row group $rg is encrypted")
    }
    if (!c.isSetMeta_data) refuse(s"column chunk $col of row group $rg has no metadata")
    val m = c.getMeta_data
    if (m.getType == null || m.getType.getValue.toByte != leafTypes(col)) {
      refuse(s"column chunk $col of row group $rg: physical type ${m.getType} differs from the schema's")
    }
    if (m.getPath_in_schema != leafPaths(col)) {
      refuse(s"column chunk $col of row group $rg: path ${m.getPath_in_schema} differs from the schema's ${leafPaths(col)}")
    }
    val filePath = if (c.isSetFile_path) string(c.getFile_path) else 0
    val meta = columnMetaData(m, rowGroupRows, leafTypes(col), extras.nanCounts.get((rg, col)))
    fb.ColumnChunk.startColumnChunk(b)
    if (filePath != 0) fb.ColumnChunk.addFilePath(b, filePath)
    fb.ColumnChunk.addMetaData(b, meta)
    if (c.isSetColumn_index_offset) fb.ColumnChunk.addColumnIndexOffset(b, c.getColumn_index_offset)
    if (c.isSetColumn_index_length) fb.ColumnChunk.addColumnIndexLength(b, c.getColumn_index_length)
    if (c.isSetOffset_index_offset) fb.ColumnChunk.addOffsetIndexOffset(b, c.getOffset_index_offset)
    if (c.isSetOffset_index_length) fb.ColumnChunk.addOffsetIndexLength(b, c.getOffset_index_length)
    fb.ColumnChunk.addFileOffset(b, c.getFile_offset)
    fb.ColumnChunk.endColumnChunk(b)
  }

  private def columnMetaData(m: TColumnMetaData, rowGroupRows: Long, physicalType: Byte, nanCount: Option[Long]): Int = {
    val kv = keyValues(m.getKey_value_metadata)
    val stats = if (m.isSetStatistics) statistics(m.getStatistics, physicalType, nanCount) else 0
    val encodings = if (m.getEncodings == null) 0 else encodingsCache.getOrElseUpdate(m.getEncodings, {
      val e = m.getEncodings
      fb.ColumnMetadata.createEncodingsVector(b, Array.tabulate(e.size)(i => enumValue(e.get(i), "encoding")))
    })
    val encodingStats = if (!m.isSetEncoding_stats) 0 else encodingStatsCache.getOrElseUpdate(m.getEncoding_stats, {
      val s = m.getEncoding_stats
      fb.ColumnMetadata.startEncodingStatsVector(b, s.size)
      var i = s.size - 1
      while (i >= 0) {
        val p = s.get(i)
        fb.PageEncodingStats.createPageEncodingStats(b, enumValue(p.getPage_type, "page type"),
          enumValue(p.getEncoding, "encoding"), p.getCount)
        i -= 1
      }
      b.endVector()
    })
    val sizeStats = if (m.isSetSize_statistics) sizeStatistics(m.getSize_statistics) else 0
    val geoStats = ParquetJavaShims.geospatialStatistics(b, m) // none on parquet-java 1.15
    fb.ColumnMetadata.startColumnMetadata(b)
    val codec = enumValue(m.getCodec, "compression codec")
    if (codec != 0) fb.ColumnMetadata.addCodec(b, codec)
    if (m.getNum_values != rowGroupRows) fb.ColumnMetadata.addNumValues(b, m.getNum_values)
    fb.ColumnMetadata.addTotalUncompressedSize(b, m.getTotal_uncompressed_size)
    fb.ColumnMetadata.addTotalCompressedSize(b, m.getTotal_compressed_size)
    if (kv != 0) fb.ColumnMetadata.addKeyValueMetadata(b, kv)
    fb.ColumnMetadata.addDataPageOffset(b, m.getData_page_offset)
    if (m.isSetIndex_page_offset) fb.ColumnMetadata.addIndexPageOffset(b, m.getIndex_page_offset)
    if (m.isSetDictionary_page_offset) fb.ColumnMetadata.addDictionaryPageOffset(b, m.getDictionary_page_offset)
    if (stats != 0) fb.ColumnMetadata.addStatistics(b, stats)
    if (encodings != 0) fb.ColumnMetadata.addEncodings(b, encodings)
    if (encodingStats != 0) fb.ColumnMetadata.addEncodingStats(b, encodingStats)
    if (m.isSetBloom_filter_offset) fb.ColumnMetadata.addBloomFilterOffset(b, m.getBloom_filter_offset)
    if (m.isSetBloom_filter_length) fb.ColumnMetadata.addBloomFilterLength(b, m.getBloom_filter_length)
    if (sizeStats != 0) fb.ColumnMetadata.addSizeStatistics(b, sizeStats)
    if (geoStats != 0) fb.ColumnMetadata.addGeospatialStatistics(b, geoStats)
    fb.ColumnMetadata.endColumnMetadata(b)
  }

  private def bytesOf(buf: ByteBuffer): Array[Byte] = {
    val d = buf.duplicate()
    val out = new Array[Byte](d.remaining)
    d.get(out)
    out
  }

  private def statistics(s: TStatistics, physicalType: Byte, nanCount: Option[Long]): Int = {
    val f = new StatisticsFields
    if (s.isSetNull_count) f.nullCount = s.getNull_count
    if (s.isSetDistinct_count) f.distinctCount = s.getDistinct_count
    if (s.isSetMin_value) f.minValue = bytesOf(s.bufferForMin_value)
    if (s.isSetMax_value) f.maxValue = bytesOf(s.bufferForMax_value)
    if (s.isSetMin) f.legacyMin = bytesOf(s.bufferForMin)
    if (s.isSetMax) f.legacyMax = bytesOf(s.bufferForMax)
    if (s.isSetIs_min_value_exact) f.isMinValueExact = s.isIs_min_value_exact
    if (s.isSetIs_max_value_exact) f.isMaxValueExact = s.isIs_max_value_exact
    nanCount.foreach(n => f.nanCount = n)
    ThriftToFlatBuffer.statistics(b, f, physicalType)
  }

  private def longs(values: JList[java.lang.Long]): Int = longsCache.getOrElseUpdate(values, {
    val arr = new Array[Long](values.size)
    var i = 0
    while (i < arr.length) { arr(i) = values.get(i); i += 1 }
    fb.SizeStatistics.createRepetitionLevelHistogramVector(b, arr)
  })

  private def sizeStatistics(s: org.apache.parquet.format.SizeStatistics): Int = {
    val rep = if (s.isSetRepetition_level_histogram) longs(s.getRepetition_level_histogram) else 0
    val defs = if (s.isSetDefinition_level_histogram) longs(s.getDefinition_level_histogram) else 0
    fb.SizeStatistics.startSizeStatistics(b)
    if (s.isSetUnencoded_byte_array_data_bytes) {
      fb.SizeStatistics.addUnencodedByteArrayDataBytes(b, s.getUnencoded_byte_array_data_bytes)
    }
    if (rep != 0) fb.SizeStatistics.addRepetitionLevelHistogram(b, rep)
    if (defs != 0) fb.SizeStatistics.addDefinitionLevelHistogram(b, defs)
    fb.SizeStatistics.endSizeStatistics(b)
  }

  // ---- key-value metadata and strings ----

  private def string(s: String): Int = stringCache.getOrElseUpdate(s, b.createString(s))

  private def keyValues(kvs: JList[TKeyValue]): Int = {
    if (kvs == null) return 0
    val offsets = Array.tabulate(kvs.size) { i =>
      val kv = kvs.get(i)
      if (kv.getKey == null) refuse("key-value metadata entry without a key")
      val key = b.createString(kv.getKey)
      val value = if (kv.isSetValue) b.createString(kv.getValue) else 0
      fb.KeyValue.startKeyValue(b)
      fb.KeyValue.addKey(b, key)
      if (value != 0) fb.KeyValue.addVal(b, value)
      fb.KeyValue.endKeyValue(b)
    }
    b.startVector(4, offsets.length, 4)
    var i = offsets.length - 1
    while (i >= 0) { b.addOffset(offsets(i)); i -= 1 }
    b.endVector()
  }
}
