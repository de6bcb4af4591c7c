package io.superspark.parquet.footer.codec

import java.nio.ByteBuffer

import org.apache.parquet.format.{FileMetaData => TFileMetaData}

import io.superspark.parquet.footer.{fbs => fb}
import io.superspark.parquet.thrift.ThriftCompactWriter
import io.superspark.parquet.thrift.ThriftCompactWriter.{Binary, I32, I64, List, Struct}
import io.superspark.parquet.ParquetFooterException
import io.superspark.parquet.thrift.{ThriftCompactWriter, UnrebuildableFooterException}
import io.superspark.parquet.thrift.{ThriftCompactWriter, ThriftForParquetJava, UnrebuildableFooterException}

/**
 * FlatBuffer footer -> Thrift compact `FileMetaData` bytes: the inverse of
 * [[ThriftCompactToFlatBuffer]]. Pure codec, no I/O.
 *
 * Every Thrift field is written exactly when the FlatBuffer says it was set: optional scalars
 * by their presence, vectors and tables by theirs; the fields the FlatBuffer derives are
 * derived back (a chunk's `type` and `path_in_schema` from its schema leaf, `num_values`
 * from the row group when absent, `column_orders` from the leaves). Fields are written in id
 * order with the compact protocol's canonical encodings ([[ThriftCompactWriter]]), as
 * parquet-java, Arrow C++, DuckDB and Polars write them, so their footers come back byte for
 * byte; see docs/parquet-footer.md for what cannot (fields unknown to the FlatBuffer, a v0
 * buffer's ColumnChunk.file_offset, a column order of unknown kind).
 *
 * The whole buffer is verified first ([[FlatBufferVerifier]]); a buffer that does not verify
 * or holds what Thrift cannot express raises [[UnrebuildableFooterException]] with the reason.
 */
private[superspark] object FlatBufferToThrift {

  /** The Thrift compact bytes of the footer (ending with its stop byte). */
  def rebuild(buf: ByteBuffer): Array[Byte] = {
    FlatBufferVerifier.verifyHead(buf).orElse(FlatBufferVerifier.verifyRowGroups(buf, leafCount(buf), null)).foreach {
      reason => throw new UnrebuildableFooterException(reason.toString)
    }
    write(buf)
  }

  private def write(buf: ByteBuffer): Array[Byte] = {
    val md = FlatBufferDecoder.root(buf)
    writePart(md, 0, md.rowGroupsLength, buf.remaining)
  }

  /**
   * The Thrift bytes of row groups [from, until): with the head (everything before the row
   * groups) when `from` is 0, with the tail (everything after them) when `until` is the last.
   * The parts of consecutive ranges, concatenated, are the whole footer's bytes: a row group
   * is a self-contained struct in the compact protocol, and the tail's first field header is
   * relative to the row groups' field id only.
   */
  private def writePart(md: fb.FileMetaData, from: Int, until: Int, sizeHint: Int): Array[Byte] =
    try new FlatBufferToThrift(md, sizeHint).write(from, until)
    catch {
      case e: UnrebuildableFooterException => throw e
      case e: RuntimeException =>
        throw new UnrebuildableFooterException(s"${e.getClass.getSimpleName}: ${e.getMessage}")
    }

  def rebuild(flatbuffer: Array[Byte]): Array[Byte] = rebuild(ByteBuffer.wrap(flatbuffer))

  /**
   * The rebuild of a FlatBuffer this process has just built (a converter's output, not bytes
   * read from a file): without the structural verifier, which guards accessors against
   * untrusted buffers. A buffer the writer cannot walk still raises
   * [[UnrebuildableFooterException]].
   */
  def rebuildBuilt(flatbuffer: Array[Byte]): Array[Byte] = write(ByteBuffer.wrap(flatbuffer))

  /**
   * Whether the Thrift rebuilt from `flatbuffer` (a buffer this process has just built, as for
   * [[rebuildBuilt]]) is `thrift`, byte for byte: the same answer as comparing
   * `rebuildBuilt(flatbuffer)` with `thrift`, computed in `parts` ranges of row groups, each
   * rebuilt by its own writer on its own thread (the last on the caller's) and compared with
   * its stretch of `thrift` (the parts' lengths add up to `thrift.length`, each part equals
   * the bytes at the sum of the lengths before it). A buffer the writer cannot walk raises
   * [[UnrebuildableFooterException]], from whichever part met it first.
   */
  def rebuildsExactly(flatbuffer: Array[Byte], thrift: Array[Byte], parts: Int): Boolean = {
    val rowGroups = FlatBufferDecoder.root(ByteBuffer.wrap(flatbuffer)).rowGroupsLength
    val n = math.max(1, math.min(parts, rowGroups))
    // Each part reads through its own ByteBuffer and accessor objects (none are thread-safe).
    def part(i: Int): Array[Byte] = writePart(FlatBufferDecoder.root(ByteBuffer.wrap(flatbuffer)),
      (rowGroups.toLong * i / n).toInt, (rowGroups.toLong * (i + 1) / n).toInt, thrift.length / n + 64)
    val helpers = (0 until n - 1).map(i => new PartThread(() => part(i)))
    helpers.foreach(_.start())
    val last = try part(n - 1) finally helpers.foreach(_.join())
    val bytes = helpers.map(_.result) :+ last
    var at = 0
    bytes.forall { b =>
      val same = b.length <= thrift.length - at && java.util.Arrays.equals(b, 0, b.length, thrift, at, at + b.length)
      at += b.length
      same
    } && at == thrift.length
  }

  /** One part of [[rebuildsExactly]] on a thread of its own; `result` rethrows what it threw. */
  private final class PartThread(body: () => Array[Byte]) extends Thread("superspark-footer-rebuild") {
    setDaemon(true)
    @volatile private var bytes: Array[Byte] = _
    @volatile private var failure: Throwable = _
    override def run(): Unit = try bytes = body() catch { case t: Throwable => failure = t }
    def result: Array[Byte] = { if (failure != null) throw failure; bytes }
  }

  /** The rebuilt footer as parquet-java's Thrift objects. */
  def toThrift(buf: ByteBuffer): TFileMetaData = ThriftForParquetJava.parse(rebuild(buf))

  /** Leaves counted from the schema (after verifyHead). */
  private def leafCount(buf: ByteBuffer): Int = {
    val md = FlatBufferDecoder.root(buf)
    val e = new fb.SchemaElement()
    var n = 0
    var i = 1
    while (i < md.schemaLength) { if (md.schema(e, i).hasType) n += 1; i += 1 }
    n
  }

  private def fail(reason: String): Nothing = throw new UnrebuildableFooterException(reason)
}

private final class FlatBufferToThrift(md: fb.FileMetaData, sizeHint: Int) {
  import FlatBufferToThrift._

  private val w = new ThriftCompactWriter(sizeHint)
  private val bb = md.getByteBuffer
  private val stats = new ChunkStatistics(bb, md.createdBy())

  // Per leaf: its physical type, its storage leaf (statistics layout) and its encoded
  // path_in_schema list (the same bytes in every row group).
  private val leafTypes = scala.collection.mutable.ArrayBuffer.empty[Int]
  private val leafPaths = scala.collection.mutable.ArrayBuffer.empty[Array[Byte]]
  private val storage = scala.collection.mutable.ArrayBuffer.empty[FlatBufferDecoder.Leaf]
  // Chunks share encodings and encoding-stats vectors: encode each once.
  private val encoded = new java.util.HashMap[Integer, Array[Byte]]()

  /** Row groups [from, until), with the head when `from` is 0 and the tail when `until` is the last. */
  def write(from: Int, until: Int): Array[Byte] = {
    val head = from == 0
    val tail = until == md.rowGroupsLength
    if (head) {
      w.structBegin()
      w.i32Field(1, md.version)
    }
    schema(head)
    if (head) {
      w.i64Field(3, md.numRows)
      w.listField(4, Struct, md.rowGroupsLength)
    }
    val rg = new fb.RowGroup()
    var r = from
    while (r < until) { rowGroup(md.rowGroups(rg, r), r); r += 1 }
    if (tail) {
      if (!head) w.resumeStruct(lastId = 4) // the row_groups field, written by the head's writer
      if (md.kvVector() != null) keyValues(5, md.kvLength, md.kv(new fb.KeyValue(), _))
      if (md.createdBy != null) w.binaryField(6, md.createdByAsByteBuffer())
      columnOrders()
      w.structEnd()
    }
    w.toByteArray
  }

  // ---- schema ----

  /** The leaves' types and paths (every part needs them); the schema's bytes when `write`. */
  private def schema(write: Boolean): Unit = {
    val n = md.schemaLength
    val e = new fb.SchemaElement()
    val names = new Array[String](n)
    val children = new Array[Int](n)
    if (write) w.listField(2, Struct, n)
    var i = 0
    while (i < n) {
      md.schema(e, i)
      names(i) = e.name
      children(i) = e.numChildren
      if (write) schemaElement(e)
      i += 1
    }
    // Leaf paths, walking the tree as ThriftCompactToFlatBuffer does.
    val types = Array.tabulate(n)(i => { md.schema(e, i); if (e.hasType) e.`type`.toInt else -1 })
    val path = scala.collection.mutable.ArrayBuffer.empty[String]
    var next = 1
    def walk(count: Int): Unit = {
      var k = 0
      while (k < count) {
        if (next >= n) fail("schema ends before all children of a group are listed")
        val at = next
        next += 1
        path += names(at)
        if (types(at) >= 0) {
          leafTypes += types(at)
          storage += FlatBufferDecoder.storageLeaf(org.apache.parquet.format.Type.findByValue(types(at)))
          val p = new ThriftCompactWriter(64)
          p.listHeader(Binary, path.size)
          path.foreach(s => p.binary(s.getBytes(java.nio.charset.StandardCharsets.UTF_8)))
          leafPaths += p.toByteArray
        } else walk(children(at))
        path.remove(path.length - 1)
        k += 1
      }
    }
    walk(children(0))
    if (next != n) fail(s"schema lists ${n - next} elements outside the root's tree")
  }

  private def schemaElement(e: fb.SchemaElement): Unit = {
    w.structBegin()
    if (e.hasType) w.i32Field(1, e.`type`)
    if (e.hasTypeLength) w.i32Field(2, e.typeLength)
    if (e.hasRepetitionType) w.i32Field(3, e.repetitionType)
    w.binaryField(4, e.nameAsByteBuffer())
    // num_children has a default (0): written exactly when the Thrift field was set.
    if (FlatBufferVerifier.tableField(bb, FbAccess.pos(e), 16) != 0) w.i32Field(5, e.numChildren)
    if (e.hasConvertedType) w.i32Field(6, e.convertedType)
    if (e.hasScale) w.i32Field(7, e.scale)
    if (e.hasPrecision) w.i32Field(8, e.precision)
    if (e.hasFieldId) w.i32Field(9, e.fieldId)
    if (e.logicalTypeType != fb.LogicalType.NONE) logicalType(e)
    w.structEnd()
  }

  private def empty(id: Int): Unit = { w.structField(id); w.structEnd() }

  private def timeUnit(id: Int, u: Byte): Unit = {
    w.structField(id)
    empty(u match {
      case fb.TimeUnit.MILLIS => 1
      case fb.TimeUnit.MICROS => 2
      case _ => 3
    })
    w.structEnd()
  }

  private def timeOptions(id: Int, o: fb.TimeOptions): Unit = {
    w.structField(id)
    w.boolField(1, o.isAdjustedToUtc)
    timeUnit(2, o.unit)
    w.structEnd()
  }

  /** Union members without options: FlatBuffer union type -> Thrift LogicalType field id. */
  private val EmptyLogicalTypes: Map[Byte, Int] = {
    import fb.LogicalType._
    Map(StringType -> 1, MapType -> 2, ListType -> 3, EnumType -> 4, DateType -> 6, NullType -> 11, JsonType -> 12,
      BsonType -> 13, UUIDType -> 14, Float16Type -> 15)
  }

  private def logicalType(e: fb.SchemaElement): Unit = {
    w.structField(10)
    e.logicalTypeType match {
      case t if EmptyLogicalTypes.contains(t) => empty(EmptyLogicalTypes(t))
      case fb.LogicalType.DecimalType =>
        val d = e.logicalType(new fb.DecimalOptions()).asInstanceOf[fb.DecimalOptions]
        w.structField(5); w.i32Field(1, d.scale); w.i32Field(2, d.precision); w.structEnd()
      case fb.LogicalType.TimeType => timeOptions(7, e.logicalType(new fb.TimeOptions()).asInstanceOf[fb.TimeOptions])
      case fb.LogicalType.TimestampType =>
        timeOptions(8, e.logicalType(new fb.TimeOptions()).asInstanceOf[fb.TimeOptions])
      case fb.LogicalType.IntType =>
        val o = e.logicalType(new fb.IntOptions()).asInstanceOf[fb.IntOptions]
        w.structField(10); w.i8Field(1, o.bitWidth); w.boolField(2, o.isSigned); w.structEnd()
      case fb.LogicalType.VariantType =>
        val v = e.logicalType(new fb.VariantType()).asInstanceOf[fb.VariantType]
        w.structField(16)
        if (v.hasSpecificationVersion) w.i8Field(1, v.specificationVersion)
        w.structEnd()
      case fb.LogicalType.GeometryType =>
        val g = e.logicalType(new fb.GeometryType()).asInstanceOf[fb.GeometryType]
        w.structField(17)
        if (g.crs != null) w.binaryField(1, g.crsAsByteBuffer())
        w.structEnd()
      case fb.LogicalType.GeographyType =>
        val g = e.logicalType(new fb.GeographyType()).asInstanceOf[fb.GeographyType]
        w.structField(18)
        if (g.crs != null) w.binaryField(1, g.crsAsByteBuffer())
        if (g.hasAlgorithm) w.i32Field(2, g.algorithm)
        w.structEnd()
      case other => fail(s"logical type $other")
    }
    w.structEnd()
  }

  /** Thrift column_orders: present when the leaves carry one (all of them, as written). */
  private def columnOrders(): Unit = {
    val e = new fb.SchemaElement()
    val ids = scala.collection.mutable.ArrayBuffer.empty[Int]
    var i = 1
    while (i < md.schemaLength) {
      md.schema(e, i)
      if (e.hasType) e.columnOrderType match {
        case fb.ColumnOrder.TypeDefinedOrder => ids += 1
        case fb.ColumnOrder.IEEE754TotalOrder => ids += 2
        case fb.ColumnOrder.UndefinedOrder =>
          fail(s"schema element $i has a column order of a kind this version does not know (not kept)")
        case _ =>
      }
      i += 1
    }
    if (ids.nonEmpty) {
      if (ids.size != leafTypes.size) fail(s"${ids.size} column orders for ${leafTypes.size} leaves")
      w.listField(7, Struct, ids.size)
      ids.foreach { id => w.structBegin(); empty(id); w.structEnd() }
    }
  }

  // ---- row groups ----

  private val chunk = new fb.ColumnChunk()
  private val meta = new fb.ColumnMetadata()
  private val statistics = new fb.Statistics()

  private def rowGroup(rg: fb.RowGroup, r: Int): Unit = {
    val n = rg.columnsLength
    if (n != leafTypes.size) fail(s"row group $r has $n column chunks for ${leafTypes.size} leaf columns")
    w.structBegin()
    w.listField(1, Struct, n)
    var j = 0
    while (j < n) { columnChunk(rg.columns(chunk, j), rg.numRows, j); j += 1 }
    w.i64Field(2, rg.totalByteSize)
    w.i64Field(3, rg.numRows)
    if (rg.sortingColumnsVector() != null) {
      w.listField(4, Struct, rg.sortingColumnsLength)
      var i = 0
      while (i < rg.sortingColumnsLength) {
        val s = rg.sortingColumns(i)
        w.structBegin(); w.i32Field(1, s.columnIdx); w.boolField(2, s.descending); w.boolField(3, s.nullsFirst)
        w.structEnd()
        i += 1
      }
    }
    if (rg.hasFileOffset) w.i64Field(5, rg.fileOffset)
    if (rg.hasTotalCompressedSize) w.i64Field(6, rg.totalCompressedSize)
    if (rg.hasOrdinal) w.i16Field(7, rg.ordinal)
    w.structEnd()
  }

  private def columnChunk(c: fb.ColumnChunk, rowGroupRows: Long, j: Int): Unit = {
    w.structBegin()
    val filePath = c.filePathAsByteBuffer()
    if (filePath != null) w.binaryField(1, filePath)
    // Required in Thrift; a v0 buffer does not keep it (0 then).
    w.i64Field(2, if (c.hasFileOffset) c.fileOffset else 0L)
    w.structField(3)
    columnMetaData(c.metaData(meta), rowGroupRows, j)
    w.structEnd()
    if (c.hasOffsetIndexOffset) w.i64Field(4, c.offsetIndexOffset)
    if (c.hasOffsetIndexLength) w.i32Field(5, c.offsetIndexLength)
    if (c.hasColumnIndexOffset) w.i64Field(6, c.columnIndexOffset)
    if (c.hasColumnIndexLength) w.i32Field(7, c.columnIndexLength)
    w.structEnd()
  }

  /** Bytes of a list shared between chunks, encoded once per FlatBuffer vector. */
  private def shared(vectorAt: Int)(encode: ThriftCompactWriter => Unit): Unit = {
    var bytes = encoded.get(vectorAt)
    if (bytes == null) {
      val x = new ThriftCompactWriter(64)
      encode(x)
      bytes = x.toByteArray
      encoded.put(vectorAt, bytes)
    }
    w.bytes(bytes, 0, bytes.length)
  }

  private def columnMetaData(m: fb.ColumnMetadata, rowGroupRows: Long, j: Int): Unit = {
    val pos = FbAccess.pos(m)
    w.i32Field(1, leafTypes(j))
    // encodings: required in Thrift, always written by ThriftCompactToFlatBuffer (empty when absent)
    w.fieldHeader(List, 2)
    val enc = FbAccess.vector(bb, pos, 22)
    if (enc < 0) w.listHeader(I32, 0)
    else shared(enc) { x =>
      x.listHeader(I32, m.encodingsLength)
      var i = 0
      while (i < m.encodingsLength) { x.zigzag32(m.encodings(i)); i += 1 }
    }
    w.fieldHeader(List, 3)
    w.bytes(leafPaths(j), 0, leafPaths(j).length)
    w.i32Field(4, m.codec)
    w.i64Field(5, if (m.hasNumValues) m.numValues else rowGroupRows)
    w.i64Field(6, m.totalUncompressedSize)
    w.i64Field(7, m.totalCompressedSize)
    if (m.keyValueMetadataVector() != null) keyValues(8, m.keyValueMetadataLength, m.keyValueMetadata(new fb.KeyValue(), _))
    w.i64Field(9, m.dataPageOffset)
    if (m.hasIndexPageOffset) w.i64Field(10, m.indexPageOffset)
    if (m.hasDictionaryPageOffset) w.i64Field(11, m.dictionaryPageOffset)
    val s = m.statistics(statistics)
    if (s != null) statisticsStruct(s, j)
    val es = FbAccess.vector(bb, pos, 24)
    if (es >= 0) {
      w.fieldHeader(List, 13)
      shared(es) { x =>
        x.listHeader(Struct, m.encodingStatsLength)
        val p = new fb.PageEncodingStats()
        var i = 0
        while (i < m.encodingStatsLength) {
          m.encodingStats(p, i)
          x.structBegin(); x.i32Field(1, p.pageType); x.i32Field(2, p.encoding); x.i32Field(3, p.count); x.structEnd()
          i += 1
        }
      }
    }
    if (m.hasBloomFilterOffset) w.i64Field(14, m.bloomFilterOffset)
    if (m.hasBloomFilterLength) w.i32Field(15, m.bloomFilterLength)
    val z = m.sizeStatistics()
    if (z != null) sizeStatistics(z)
    val g = m.geospatialStatistics()
    if (g != null) geospatialStatistics(g)
  }

  private def statisticsStruct(s: fb.Statistics, j: Int): Unit = {
    val Array(min, max, legacyMin, legacyMax) = stats.storedValues(s, storage(j))
    w.structField(12)
    if (legacyMax != null) w.binaryField(1, legacyMax)
    if (legacyMin != null) w.binaryField(2, legacyMin)
    if (s.hasNullCount) w.i64Field(3, s.nullCount)
    if (s.hasDistinctCount) w.i64Field(4, s.distinctCount)
    if (max != null) w.binaryField(5, max)
    if (min != null) w.binaryField(6, min)
    if (s.hasIsMaxValueExact) w.boolField(7, s.isMaxValueExact)
    if (s.hasIsMinValueExact) w.boolField(8, s.isMinValueExact)
    if (s.hasNanCount) w.i64Field(9, s.nanCount)
    w.structEnd()
  }

  private def longs(id: Int, v: com.google.flatbuffers.LongVector): Unit = {
    w.listField(id, I64, v.length)
    var i = 0
    while (i < v.length) { w.zigzag64(v.get(i)); i += 1 }
  }

  private def sizeStatistics(z: fb.SizeStatistics): Unit = {
    w.structField(16)
    if (z.hasUnencodedByteArrayDataBytes) w.i64Field(1, z.unencodedByteArrayDataBytes)
    if (z.repetitionLevelHistogramVector() != null) longs(2, z.repetitionLevelHistogramVector())
    if (z.definitionLevelHistogramVector() != null) longs(3, z.definitionLevelHistogramVector())
    w.structEnd()
  }

  private def geospatialStatistics(g: fb.GeospatialStatistics): Unit = {
    w.structField(17)
    val x = g.bbox()
    if (x != null) {
      w.structField(1)
      w.doubleField(1, x.xmin); w.doubleField(2, x.xmax); w.doubleField(3, x.ymin); w.doubleField(4, x.ymax)
      if (x.hasZmin) w.doubleField(5, x.zmin)
      if (x.hasZmax) w.doubleField(6, x.zmax)
      if (x.hasMmin) w.doubleField(7, x.mmin)
      if (x.hasMmax) w.doubleField(8, x.mmax)
      w.structEnd()
    }
    if (g.geospatialTypesVector() != null) {
      w.listField(2, I32, g.geospatialTypesLength)
      var i = 0
      while (i < g.geospatialTypesLength) { w.zigzag32(g.geospatialTypes(i)); i += 1 }
    }
    w.structEnd()
  }

  private def keyValues(id: Int, n: Int, at: Int => fb.KeyValue): Unit = {
    w.listField(id, Struct, n)
    var i = 0
    while (i < n) {
      val kv = at(i)
      w.structBegin()
      w.binaryField(1, kv.keyAsByteBuffer())
      val value = kv.valAsByteBuffer()
      if (value != null) w.binaryField(2, value)
      w.structEnd()
      i += 1
    }
  }
}
