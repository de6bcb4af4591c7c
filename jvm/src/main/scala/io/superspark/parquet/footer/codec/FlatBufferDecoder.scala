package io.superspark.parquet.footer.codec

import java.nio.{ByteBuffer, ByteOrder}
import java.util.{Collections, HashMap => JHashMap, HashSet => JHashSet}


import org.apache.parquet.CorruptStatistics
import org.apache.parquet.column.{Encoding => PEncoding, EncodingStats}
import org.apache.parquet.column.statistics.{SizeStatistics => PSizeStatistics, Statistics => PStatistics}
import org.apache.parquet.hadoop.metadata.{BlockMetaData, ColumnChunkMetaData, ColumnChunkProperties, ColumnPath, CompressionCodecName, FileMetaData => PFileMetaData, ParquetMetadata}
import org.apache.parquet.internal.hadoop.metadata.IndexReference
import org.apache.parquet.io.ParquetDecodingException
import org.apache.parquet.schema.{LogicalTypeAnnotation, MessageType, PrimitiveType}
import org.apache.parquet.schema.LogicalTypeAnnotation._
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName

import io.superspark.parquet.footer.{fbs => fb}
import io.superspark.parquet.footer.FooterDecodeException

/**
 * FlatBuffer footer -> parquet-java `ParquetMetadata`, directly (no Thrift objects), building
 * what `ParquetMetadataConverter.readParquetMetadata` builds from the Thrift footer of the
 * same file: same schema types, statistics (same sort-order and corrupt-statistics rules),
 * encodings, encoding stats, size and geospatial statistics, index references, bloom filter
 * offsets, row-group ordinals and row-index offsets.
 *
 * With a [[Projection]] it materializes only the selected columns and row groups.
 * The buffer's head must have passed [[FlatBufferVerifier.verifyHead]]; the column chunks are
 * checked as they are read (verify-while-decode: a malformed one throws
 * [[FlatBufferVerifier.Malformed]]).
 */
private[superspark] object FlatBufferDecoder {

  private val Codecs: Array[CompressionCodecName] = Array("UNCOMPRESSED", "SNAPPY", "GZIP", "LZO",
    "BROTLI", "LZ4", "ZSTD", "LZ4_RAW").map(CompressionCodecName.valueOf)

  /** FlatBuffer Encoding value -> parquet-java Encoding (null: none in parquet-java). */
  private val Encodings: Array[PEncoding] = Array("PLAIN", "GROUP_VAR_INT", "PLAIN_DICTIONARY", "RLE",
    "BIT_PACKED", "DELTA_BINARY_PACKED", "DELTA_LENGTH_BYTE_ARRAY", "DELTA_BYTE_ARRAY", "RLE_DICTIONARY",
    "BYTE_STREAM_SPLIT").map(n => try PEncoding.valueOf(n) catch { case _: IllegalArgumentException => null })

  /** Bit v set: FlatBuffer Encoding value v has no parquet-java equivalent. */
  private val UnsupportedEncodings: Int = Encodings.indices.filter(Encodings(_) == null).map(1 << _).sum

  /**
   * The unmodifiable encoding set of each bitmask of FlatBuffer Encoding values (bit v set:
   * Encodings(v) is in the set), built on first use and shared by every decode: one set per
   * content, so per-leaf caches compare sets by reference.
   */
  private val encodingSetsByMask = new java.util.concurrent.atomic.AtomicReferenceArray[java.util.Set[PEncoding]](
    1 << Encodings.length)

  private[footer] def encodingSet(mask: Int): java.util.Set[PEncoding] = {
    var set = encodingSetsByMask.get(mask)
    if (set == null) {
      val s = new JHashSet[PEncoding]()
      var v = 0
      while (v < Encodings.length) { if ((mask & (1 << v)) != 0) s.add(Encodings(v)); v += 1 }
      encodingSetsByMask.compareAndSet(mask, null, Collections.unmodifiableSet(s))
      set = encodingSetsByMask.get(mask)
    }
    set
  }

  def root(buf: ByteBuffer): fb.FileMetaData = {
    val b = buf.duplicate().order(ByteOrder.LITTLE_ENDIAN)
    fb.FileMetaData.getRootAsFileMetaData(b)
  }

  def decode(buf: ByteBuffer, projection: Projection = Projection.Full): ParquetMetadata = {
    val md = root(buf)
    val schema = FlatSchema.read(md)
    decode(md, schema, selectLeaves(schema, projection), projection, checkUnread = true, keyValues = null)
  }

  /**
   * Decodes with the schema already read (from a verified head) and the leaves already
   * selected, verifying each column chunk as it reads it. `checkUnread = false`: the chunks of
   * row groups the projection leaves out (by index) are not checked, nor read. `keyValues`: the
   * key-value metadata already read from the same buffer ([[keyValues]]), or null to read it.
   */
  private[footer] def decode(md: fb.FileMetaData, schema: FlatSchema, leaves: Array[Int],
      projection: Projection, checkUnread: Boolean, keyValues: java.util.Map[String, String]): ParquetMetadata =
    new FlatBufferDecoder(md, schema, leaves, projection, checkUnread, keyValues).decode()

  /** The vtable slots of KeyValue.key and KeyValue.val (fields 0 and 1). */
  private val KeySlot = 4
  private val ValSlot = 6

  /**
   * The key-value metadata of a FlatBuffer whose head was verified. Its values can be large
   * (pyarrow's `ARROW:schema` of a 10,000-column file: a long base64 string), so a footer decoded
   * again (a cache hit) is given the map read once instead of decoding their UTF-8 again.
   */
  private[footer] def keyValues(md: fb.FileMetaData): JHashMap[String, String] = {
    val kv = new JHashMap[String, String]()
    val kvView = new fb.KeyValue()
    var i = 0
    val bb = md.getByteBuffer
    while (i < md.kvLength) {
      md.kv(kvView, i)
      val at = FbAccess.pos(kvView)
      kv.put(FbAccess.string(bb, at, KeySlot), FbAccess.string(bb, at, ValSlot))
      i += 1
    }
    kv
  }

  private[footer] def selectLeaves(schema: FlatSchema, projection: Projection): Array[Int] =
    projection.columns match {
      case None => Array.tabulate(schema.leafCount)(identity)
      case Some(paths) => schema.selectLeaves(paths.map(_.toArray).toArray)
    }

  /** Only the physical type matters for how statistics bytes are stored. */
  private val storageLeaves =
    new java.util.concurrent.ConcurrentHashMap[org.apache.parquet.format.Type, Leaf]()

  /** A leaf of the given physical type, for [[ChunkStatistics.storedValues]]. */
  private[footer] def storageLeaf(physical: org.apache.parquet.format.Type): Leaf =
    storageLeaves.computeIfAbsent(physical, _ => {
      val primitive = PrimitiveTypeName.values().find(_.name == (physical match {
        case org.apache.parquet.format.Type.BYTE_ARRAY => "BINARY"
        case other => other.name
      })).get
      val length = if (primitive == PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY) 1 else 0
      val ptype: PrimitiveType = org.apache.parquet.schema.Types.primitive(primitive,
        org.apache.parquet.schema.Type.Repetition.OPTIONAL).length(length).named("x")
      new Leaf(null, ptype, false)
    })

  // ---- parquet-java's statistics rules (ParquetMetadataConverter, 1.17) ----

  private[footer] sealed trait SortOrder
  private[footer] case object Signed extends SortOrder
  private[footer] case object Unsigned extends SortOrder
  private[footer] case object Unknown extends SortOrder

  private def defaultSortOrder(p: PrimitiveTypeName): SortOrder = p match {
    case PrimitiveTypeName.BOOLEAN | PrimitiveTypeName.INT32 | PrimitiveTypeName.INT64 |
         PrimitiveTypeName.FLOAT | PrimitiveTypeName.DOUBLE => Signed
    case PrimitiveTypeName.BINARY | PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY => Unsigned
    case _ => Unknown
  }

  private[footer] def sortOrder(t: PrimitiveType): SortOrder = t.getLogicalTypeAnnotation match {
    case null => defaultSortOrder(t.getPrimitiveTypeName)
    case i: IntLogicalTypeAnnotation => if (i.isSigned) Signed else Unsigned
    case _: IntervalLogicalTypeAnnotation => Unknown
    case _: DateLogicalTypeAnnotation => Signed
    case _: EnumLogicalTypeAnnotation | _: BsonLogicalTypeAnnotation | _: UUIDLogicalTypeAnnotation |
         _: JsonLogicalTypeAnnotation | _: StringLogicalTypeAnnotation => Unsigned
    case _: Float16LogicalTypeAnnotation => Signed
    case _: DecimalLogicalTypeAnnotation | _: MapKeyValueTypeAnnotation |
         _: MapLogicalTypeAnnotation | _: ListLogicalTypeAnnotation => Unknown
    case _: TimeLogicalTypeAnnotation | _: TimestampLogicalTypeAnnotation => Signed
    case a if ParquetJavaShims.hasUnknownSortOrder(a) => Unknown // UNKNOWN, GEOMETRY (parquet-java 1.16+)
    case _ => defaultSortOrder(t.getPrimitiveTypeName)
  }

  private def isStringish(a: LogicalTypeAnnotation): Boolean = a match {
    case null => true
    case _: StringLogicalTypeAnnotation | _: EnumLogicalTypeAnnotation | _: JsonLogicalTypeAnnotation |
         _: Float16LogicalTypeAnnotation => true
    case a if ParquetJavaShims.isUnknownType(a) => true
    case _ => false
  }

  /** Per-leaf facts decided once per file, not once per column chunk. */
  private[footer] final class Leaf(val path: ColumnPath, val primitive: PrimitiveType, useSignedStringMinMax: Boolean) {
    val width: Int = FlatBufferBuild.fixedWidth(primitive.getPrimitiveTypeName match {
      case PrimitiveTypeName.BOOLEAN => fb.Type.BOOLEAN
      case PrimitiveTypeName.INT32 => fb.Type.INT32
      case PrimitiveTypeName.INT64 => fb.Type.INT64
      case PrimitiveTypeName.INT96 => fb.Type.INT96
      case PrimitiveTypeName.FLOAT => fb.Type.FLOAT
      case PrimitiveTypeName.DOUBLE => fb.Type.DOUBLE
      case _ => fb.Type.BYTE_ARRAY
    })
    val minMaxSupported: Boolean =
      primitive.columnOrder().getColumnOrderName == org.apache.parquet.schema.ColumnOrder.ColumnOrderName.TYPE_DEFINED_ORDER
    val expectedOrder: SortOrder =
      if (useSignedStringMinMax && primitive.getPrimitiveTypeName == PrimitiveTypeName.BINARY &&
        isStringish(primitive.getLogicalTypeAnnotation)) Signed
      else sortOrder(primitive)

    // ColumnChunkProperties.get canonicalizes (hashes path, type, codec, encodings) per call;
    // a leaf's chunks nearly always share codec and encodings, so remember the last one. The
    // canonical instance may hold an equal set from an earlier decode: compare with what was
    // passed (encoding sets are canonical per content, see `encodingSet`).
    private var lastProperties: ColumnChunkProperties = _
    private var lastCodec: CompressionCodecName = _
    private var lastEncodings: java.util.Set[PEncoding] = _
    def properties(codec: CompressionCodecName, encodings: java.util.Set[PEncoding]): ColumnChunkProperties = {
      if (lastProperties != null && (lastCodec eq codec) && (lastEncodings eq encodings)) lastProperties
      else {
        val np = ColumnChunkProperties.get(path, primitive, codec, encodings)
        lastProperties = np
        lastCodec = codec
        lastEncodings = encodings
        np
      }
    }
  }
}

private final class FlatBufferDecoder(md: fb.FileMetaData, schema: FlatSchema, selectedLeaves: Array[Int],
    projection: Projection, checkUnread: Boolean, knownKeyValues: java.util.Map[String, String]) {
  import FlatBufferDecoder._

  private val createdBy: String = md.createdBy()
  private val encodingStatsCache = new JHashMap[Integer, EncodingStats]()
  private var lastEncodingStatsVector = -1
  private var lastEncodingStats: EncodingStats = _
  private val chunkStatistics = new ChunkStatistics(md.getByteBuffer, createdBy,
    verified = !projection.lazyStatistics)

  // Reused accessor objects (FlatBuffers tables are views).
  private val rgView = new fb.RowGroup()
  private val chunkView = new fb.ColumnChunk()
  private val metaView = new fb.ColumnMetadata()
  private val encStatView = new fb.PageEncodingStats()

  def decode(): ParquetMetadata = {
    val include = if (projection.isFull) null else schema.includeMask(selectedLeaves)
    val messageType = schema.toMessageType(include)
    val leaves = selectedLeaves.map { l =>
      val path = schema.leafPath(l)
      new Leaf(ColumnPath.get(path: _*), messageType.getType(path: _*).asPrimitiveType(),
        projection.useSignedStringMinMax)
    }
    val blocks = rowGroups(selectedLeaves, leaves)
    // Shared between decodes of one footer: parquet-java's FileMetaData hands it out read-only.
    val kv = if (knownKeyValues != null) knownKeyValues else keyValues(md)
    new ParquetMetadata(new PFileMetaData(messageType, kv, createdBy,
      org.apache.parquet.hadoop.metadata.FileMetaData.EncryptionType.UNENCRYPTED, null), blocks)
  }

  // ---- row groups ----

  /**
   * Verify-while-decode: each column chunk this decode reads is structurally checked by the
   * walker as it is read (the checks of [[FlatBufferVerifier.verifyRowGroups]], in its order),
   * and its fields come from that check: the row groups' tables are walked once. A malformed
   * chunk stops the decode with [[FlatBufferVerifier.Malformed]] (offset and what), which
   * [[FooterReader.decodeFlatBuffer]] reports as `malformed_flatbuffer`, as the verifier's walk did.
   * The same chunks are checked as before: column 0 and the selected columns of every row group
   * (kept or not), and every chunk of a row group without `total_compressed_size`.
   */
  private val walker = new FlatBufferVerifier.Walker(md.getByteBuffer)
  private val verifyStatistics = !projection.lazyStatistics

  private def rowGroups(selected: Array[Int], leaves: Array[Leaf]): java.util.List[BlockMetaData] = {
    val n = md.rowGroupsLength
    val blocks = new java.util.ArrayList[BlockMetaData](n)
    val range = projection.rowGroups.isInstanceOf[RowGroupSelection.Range]
    var rowIndex = 0L
    var r = 0
    while (r < n) {
      md.rowGroups(rgView, r)
      val rows = rgView.numRows
      val byIndex = projection.rowGroups match {
        case RowGroupSelection.All => true
        case RowGroupSelection.Indices(ix) => ix.contains(r)
        case _ => false
      }
      if (byIndex || range || checkUnread) {
        val b = rowGroup(rgView, r, rowIndex, byIndex, selected, leaves)
        if (b != null) blocks.add(b)
      }
      rowIndex += rows
      r += 1
    }
    blocks
  }

  /**
   * Row group `r`: its chunks checked (column 0, the selected ones, all of them without
   * `total_compressed_size`), and its `BlockMetaData` when the projection keeps it (else null).
   */
  private def rowGroup(rg: fb.RowGroup, r: Int, rowIndex: Long, byIndex: Boolean, selected: Array[Int],
      leaves: Array[Leaf]): BlockMetaData = {
    val w = walker
    val leafCount = schema.leafCount
    val cols = w.rowGroupColumns(FbAccess.pos(rg), leafCount)
    // Column 0: the file path and the range filter read it.
    var first = -1
    var firstPath = -1
    var startIndex = 0L
    var totalSize = 0L
    if (leafCount > 0) {
      first = w.element(cols, 0)
      w.columnChunk(first, verifyStatistics)
      firstPath = w.filePathPos
      startIndex = w.dataPageOffset
      if (w.hasDictionaryPageOffset && startIndex > w.dictionaryPageOffset) startIndex = w.dictionaryPageOffset
      totalSize = w.totalCompressedSize
    }
    if (!rg.hasTotalCompressedSize) {
      // The range filter sums every chunk's size: every chunk is checked (as the verifier did).
      var j = 1
      while (j < leafCount) {
        w.columnChunk(w.element(cols, j), verifyStatistics)
        totalSize += w.totalCompressedSize
        j += 1
      }
    } else totalSize = rg.totalCompressedSize
    val keep = projection.rowGroups match {
      case RowGroupSelection.Range(start, end) =>
        // parquet-java's filterFileMetaDataByMidpoint, for files whose chunks all carry metadata.
        if (leafCount == 0) throw new FooterDecodeException(s"row group $r has no column chunks")
        val mid = startIndex + totalSize / 2
        mid >= start && mid < end
      case _ => byIndex
    }
    if (keep) block(rg, cols, first, firstPath, rowIndex, selected, leaves)
    else {
      var k = 0
      while (k < selected.length) {
        val pos = w.element(cols, selected(k))
        if (pos != w.chunkPos) w.columnChunk(pos, verifyStatistics)
        k += 1
      }
      null
    }
  }

  private def block(rg: fb.RowGroup, cols: Int, first: Int, firstPath: Int, rowIndex: Long, selected: Array[Int],
      leaves: Array[Leaf]): BlockMetaData = {
    val w = walker
    val b = new BlockMetaData()
    val rows = rg.numRows
    b.setRowCount(rows)
    b.setTotalByteSize(rg.totalByteSize)
    b.setRowIndexOffset(rowIndex)
    if (rg.hasOrdinal) b.setOrdinal(rg.ordinal)
    val ordinal = rg.ordinal
    val filePath = if (firstPath < 0) null else chunkView.__assign(first, md.getByteBuffer).filePath()
    var k = 0
    while (k < selected.length) {
      val pos = w.element(cols, selected(k))
      if (pos != w.chunkPos) w.columnChunk(pos, verifyStatistics)
      if (w.filePathPos != firstPath) {
        val fp = if (w.filePathPos < 0) null else chunkView.__assign(pos, md.getByteBuffer).filePath()
        if (fp != filePath) {
          throw new ParquetDecodingException("all column chunks of the same row group must be in the same file for now")
        }
      }
      b.addColumn(column(rows, leaves(k), ordinal))
      k += 1
    }
    b.setPath(filePath)
    b
  }

  /** The column chunk the walker checked last, as parquet-java's metadata. */
  private def column(rowGroupRows: Long, leaf: Leaf, rowGroupOrdinal: Short): ColumnChunkMetaData = {
    val w = walker
    val codec = Codecs(w.codec)
    val metaPos = w.metaPos
    val valueCount = if (w.hasNumValues) w.numValues else rowGroupRows
    val stats = encodingStats(w.encodingStatsPos, metaPos)
    val encodings = encodingsOf(w.encodingMask)
    val col = if (projection.lazyStatistics) {
      new LazyColumnChunkMetaData(stats, leaf.properties(codec, encodings), w.dataPageOffset,
        w.dictionaryPageOffset, valueCount, w.totalCompressedSize, w.totalUncompressedSize, chunkStatistics,
        metaPos, leaf)
    } else {
      ParquetJavaShims.columnChunkMetaData(leaf.path, leaf.primitive, codec, stats, encodings,
        chunkStatistics.statistics(metaPos, leaf), w.dataPageOffset, w.dictionaryPageOffset, valueCount,
        w.totalCompressedSize, w.totalUncompressedSize, chunkStatistics.sizeStatistics(metaPos, leaf.primitive),
        chunkStatistics.geospatialStatistics(metaPos))
    }
    col.setRowGroupOrdinal(rowGroupOrdinal)
    if (w.hasBloomFilterOffset) col.setBloomFilterOffset(w.bloomFilterOffset)
    if (w.hasBloomFilterLength) col.setBloomFilterLength(w.bloomFilterLength)
    if (w.hasColumnIndex) col.setColumnIndexReference(new IndexReference(w.columnIndexOffset, w.columnIndexLength))
    if (w.hasOffsetIndex) col.setOffsetIndexReference(new IndexReference(w.offsetIndexOffset, w.offsetIndexLength))
    col
  }

  private def encoding(v: Int): PEncoding = {
    val e = if (v >= 0 && v < Encodings.length) Encodings(v) else null
    if (e == null) throw new FooterDecodeException(s"encoding $v has no parquet-java equivalent")
    e
  }

  /** The encoding set of a mask of checked encoding values (0-9), refusing values parquet-java lacks. */
  private def encodingsOf(mask: Int): java.util.Set[PEncoding] = {
    val missing = mask & UnsupportedEncodings
    if (missing != 0) encoding(Integer.numberOfTrailingZeros(missing)) // throws: no parquet-java equivalent
    encodingSet(mask)
  }

  /**
   * Immutable, so shared between chunks whose stats are the same vector (the writer shares
   * identical vectors): built once per distinct vector instead of once per chunk.
   */
  private def encodingStats(vec: Int, metaPos: Int): EncodingStats = {
    if (vec < 0) return null
    // The writer shares identical vectors: most chunks hit the last one.
    if (vec == lastEncodingStatsVector) return lastEncodingStats
    var stats = encodingStatsCache.get(vec)
    if (stats == null) {
      val m = metaView.__assign(metaPos, md.getByteBuffer)
      val builder = new EncodingStats.Builder()
      var i = 0
      while (i < m.encodingStatsLength) {
        val s = m.encodingStats(encStatView, i)
        s.pageType match {
          case fb.PageType.DATA_PAGE_V2 =>
            builder.withV2Pages()
            builder.addDataEncoding(encoding(s.encoding), s.count)
          case fb.PageType.DATA_PAGE => builder.addDataEncoding(encoding(s.encoding), s.count)
          case fb.PageType.DICTIONARY_PAGE => builder.addDictEncoding(encoding(s.encoding), s.count)
          case fb.PageType.INDEX_PAGE =>
          case other => throw new FooterDecodeException(s"unknown page type $other")
        }
        i += 1
      }
      stats = builder.build()
      encodingStatsCache.put(vec, stats)
    }
    lastEncodingStatsVector = vec
    lastEncodingStats = stats
    stats
  }

}

/**
 * Statistics, size and geospatial statistics of one column chunk, from the position of its
 * ColumnMetadata table, with parquet-java's rules (ParquetMetadataConverter 1.17,
 * fromParquetStatistics). Thread-safe (fresh views per call): lazy chunks call it later.
 * Unless `verified` (the whole row groups passed [[FlatBufferVerifier.verifyRowGroups]]),
 * each call first verifies the chunk's statistics tables
 * ([[FlatBufferVerifier.verifyChunkStatistics]]) and refuses malformed ones with a
 * [[FooterDecodeException]].
 */
private[footer] final class ChunkStatistics(bb: ByteBuffer, createdBy: String, verified: Boolean = true) {
  import FlatBufferDecoder._

  private def verify(metadataPosition: Int): Unit = if (!verified) {
    FlatBufferVerifier.verifyChunkStatistics(bb, metadataPosition).foreach { reason =>
      throw new FooterDecodeException(s"column chunk statistics: $reason")
    }
  }

  private val ignoreLegacyStats = new java.util.concurrent.ConcurrentHashMap[PrimitiveTypeName, java.lang.Boolean]()

  // ---- statistics ----

  private def bigEndianBytes(lo8: Long, hi8: Long, out: Array[Byte], at: Int, len: Int): Unit = {
    var i = 0
    while (i < len) {
      val word = if (i < 8) lo8 else hi8
      out(at + i) = (word >>> (8 * (7 - (i & 7)))).toByte
      i += 1
    }
  }

  private def littleEndianBytes(v: Long, out: Array[Byte], at: Int, len: Int): Unit = {
    var i = 0
    while (i < len) { out(at + i) = (v >>> (8 * i)).toByte; i += 1 }
  }

  private val NoBytes = new Array[Byte](0)

  /** min_value (isMin) or max_value of a Statistics table, or null when absent. */
  private def value(s: fb.Statistics, isMin: Boolean, leaf: Leaf, prefix: Array[Byte]): Array[Byte] = {
    val hasLen = if (isMin) s.hasMinLen else s.hasMaxLen
    if (hasLen) {
      val len = if (isMin) s.minLen else s.maxLen
      if (leaf.width > 0) {
        if (len != leaf.width) throw new FooterDecodeException(s"statistics length $len for a ${leaf.width}-byte type")
        val out = new Array[Byte](len)
        val lo4 = if (isMin) s.minLo4 else s.maxLo4
        val lo8 = if (isMin) s.minLo8 else s.maxLo8
        len match {
          case 1 | 4 => littleEndianBytes(lo4, out, 0, len)
          case 8 => littleEndianBytes(lo8, out, 0, 8)
          case 12 => littleEndianBytes(lo4, out, 0, 4); littleEndianBytes(lo8, out, 4, 8)
        }
        out
      } else {
        if (len < 0 || len > 16) throw new FooterDecodeException(s"statistics suffix length $len")
        val out = new Array[Byte](prefix.length + len)
        System.arraycopy(prefix, 0, out, 0, prefix.length)
        bigEndianBytes(if (isMin) s.minLo8 else s.maxLo8, if (isMin) s.minHi8 else s.maxHi8, out, prefix.length, len)
        out
      }
    } else {
      val vec = FbAccess.vector(s.getByteBuffer, FbAccess.pos(s), if (isMin) 26 else 28)
      if (vec < 0) null else FbAccess.bytes(s.getByteBuffer, vec, if (leaf.width > 0) NoBytes else prefix)
    }
  }

  private def legacy(s: fb.Statistics, isMin: Boolean, valueBytes: Array[Byte]): Array[Byte] = {
    val bit = if (isMin) 1 else 2
    if ((s.legacySame & bit) != 0) return valueBytes
    val vec = FbAccess.vector(s.getByteBuffer, FbAccess.pos(s), if (isMin) 36 else 38)
    if (vec < 0) null else FbAccess.bytes(s.getByteBuffer, vec, NoBytes)
  }

  private def ignoreLegacy(p: PrimitiveTypeName): Boolean =
    ignoreLegacyStats.computeIfAbsent(p, t => CorruptStatistics.shouldIgnoreStatistics(createdBy, t))

  /** As ParquetMetadataConverter.fromParquetStatistics(createdBy, statistics, type). */
  /**
   * The Thrift Statistics byte fields as stored: (min_value, max_value, min, max), each null
   * when absent. For checking the FlatBuffer against a Thrift footer field by field.
   */
  def storedValues(s: fb.Statistics, leaf: Leaf): Array[Array[Byte]] = {
    val prefixVec = FbAccess.vector(bb, FbAccess.pos(s), 24)
    val prefix = if (prefixVec < 0) NoBytes else FbAccess.bytes(bb, prefixVec, NoBytes)
    val min = value(s, isMin = true, leaf, prefix)
    val max = value(s, isMin = false, leaf, prefix)
    Array(min, max, legacy(s, isMin = true, min), legacy(s, isMin = false, max))
  }

  def statistics(metadataPosition: Int, leaf: Leaf): PStatistics[_] = {
    verify(metadataPosition)
    val m = new fb.ColumnMetadata().__assign(metadataPosition, bb)
    val builder = PStatistics.getBuilderForReading(leaf.primitive)
    val s = m.statistics(new fb.Statistics())
    if (s != null) {
      val prefixVec = FbAccess.vector(s.getByteBuffer, FbAccess.pos(s), 24)
      val prefix = if (prefixVec < 0) NoBytes else FbAccess.bytes(s.getByteBuffer, prefixVec, NoBytes)
      val min = value(s, isMin = true, leaf, prefix)
      val max = value(s, isMin = false, leaf, prefix)
      if (min != null && max != null) {
        if (leaf.minMaxSupported || java.util.Arrays.equals(min, max)) {
          builder.withMin(min)
          builder.withMax(max)
        }
      } else {
        val lmin = legacy(s, isMin = true, min)
        val lmax = legacy(s, isMin = false, max)
        val isSet = lmin != null && lmax != null
        val maxEqualsMin = isSet && java.util.Arrays.equals(lmin, lmax)
        if (!ignoreLegacy(leaf.primitive.getPrimitiveTypeName) && (leaf.expectedOrder == Signed || maxEqualsMin)) {
          if (isSet) {
            builder.withMin(lmin)
            builder.withMax(lmax)
          }
        }
      }
      if (s.hasNullCount) builder.withNumNulls(s.nullCount)
    }
    builder.build()
  }

  def sizeStatistics(metadataPosition: Int, t: PrimitiveType): PSizeStatistics = {
    verify(metadataPosition)
    val s = new fb.ColumnMetadata().__assign(metadataPosition, bb).sizeStatistics()
    if (s == null) return null
    val pos = FbAccess.pos(s)
    val rep = FbAccess.vector(bb, pos, 6)
    val defs = FbAccess.vector(bb, pos, 8)
    new PSizeStatistics(t, s.unencodedByteArrayDataBytes,
      if (rep < 0) null else FbAccess.longs(bb, rep), if (defs < 0) null else FbAccess.longs(bb, defs))
  }

  /** Built by the parquet-java adapter (none on parquet-java 1.15, which has no geospatial statistics). */
  def geospatialStatistics(metadataPosition: Int): ParquetJavaShims.GeospatialStatistics = {
    verify(metadataPosition)
    ParquetJavaShims.geospatialStatistics(new fb.ColumnMetadata().__assign(metadataPosition, bb).geospatialStatistics())
  }
}
