package io.superspark.parquet.footer.codec

import java.nio.{ByteBuffer, ByteOrder}
import io.superspark.parquet.footer.FallbackReason

/**
 * Structural verification of a parquet3.fbs FlatBuffer before any accessor touches it:
 * every table, vtable, field, vector and string reachable from the parts a decode uses lies
 * inside the buffer, vector lengths fit the bytes that remain, strings end with their NUL,
 * enum and union tags are known values. flatbuffers-java has no verifier; this one follows
 * the rules of the C++ `flatbuffers::Verifier` for our schema. Offsets in FlatBuffers point
 * forward (tables, vectors, strings), so the walk terminates; it never allocates from a
 * size read from the buffer.
 *
 * Two phases, so that a projected decode verifies only what it reads: [[verifyHead]] (root,
 * schema, key-value metadata, created_by, the row group tables) and [[verifyRowGroups]]
 * (each row group's column 0 and the selected columns, deeply). The decoder does not run the
 * second phase apart: it checks each chunk with the same [[Walker]] as it reads it
 * (`Walker.columnChunk`, whose checked fields it decodes), so the row groups are walked once;
 * the phase stays for the Thrift rebuild, `verify` and the tests.
 */
private[superspark] object FlatBufferVerifier {

  final class Malformed(val offset: Int, detail: String) extends Exception(detail, null, false, false)

  /** Vtable slot of a field: 4 + 2 * field index (as in the generated `__offset(n)` calls). */
  private object S {
    // FileMetaData
    val Version = 4; val Schema = 6; val NumRows = 8; val RowGroups = 10; val Kv = 12; val CreatedBy = 14
    val SchemaVersion = 16; val Extensions = 18
    // SchemaElement
    val Name = 4; val Type = 6; val Repetition = 8; val LogicalTypeType = 10; val LogicalType = 12
    val TypeLength = 14; val NumChildren = 16; val FieldId = 18; val ColumnOrderType = 20; val ColumnOrder = 22
    val ConvertedType = 24; val Scale = 26; val Precision = 28
    // RowGroup
    val Columns = 4; val TotalByteSize = 6; val RgNumRows = 8; val SortingColumns = 10; val FileOffset = 12
    val RgTotalCompressed = 14; val Ordinal = 16
    // ColumnChunk
    val FilePath = 4; val MetaData = 6; val CiOffset = 8; val CiLength = 10; val OiOffset = 12; val OiLength = 14
    val ChunkFileOffset = 16
    // ColumnMetadata
    val Codec = 4; val NumValues = 6; val TotalUncompressed = 8; val TotalCompressed = 10; val ColKv = 12
    val DataPageOffset = 14; val IndexPageOffset = 16; val DictPageOffset = 18; val Statistics = 20
    val Encodings = 22; val EncodingStats = 24; val BloomOffset = 26; val BloomLength = 28
    val SizeStatistics = 30; val GeoStatistics = 32
  }

  def tableField(bb: ByteBuffer, tablePos: Int, slot: Int): Int = {
    val vt = tablePos - bb.getInt(tablePos)
    if (slot < (bb.getShort(vt) & 0xFFFF)) bb.getShort(vt + slot) & 0xFFFF else 0
  }

  /** Phase 1: root table, schema, key-value metadata, created_by and row group tables. */
  def verifyHead(buf: ByteBuffer): Option[FallbackReason] = run(buf)(_.head(null))

  /**
   * What phase 1 found of the schema: `shared`, a schema `share` holds whose elements this
   * buffer repeats (not walked again), else null, with the schema vector's position and the
   * bytes `[lo, hi)` the walk of its elements read (their tables, vtables and strings; not the
   * vector).
   */
  final case class HeadSchema(shared: FlatSchema, vectorPos: Int, lo: Int, hi: Int)

  /**
   * Phase 1 as [[verifyHead]], with the schema's elements not walked when `share` holds a
   * schema of the same bytes ([[SchemaShare]]: the files of one table repeat one schema).
   */
  def verifyHead(buf: ByteBuffer, share: SchemaShare): Either[FallbackReason, HeadSchema] = {
    var found: HeadSchema = null
    run(buf) { w => w.head(share); found = w.headSchema } match {
      case Some(reason) => Left(reason)
      case None => Right(found)
    }
  }

  /**
   * Phase 2: for every row group, its column chunk vector has `leafCount` entries; column 0
   * (read for file_path and the range filter) and the selected columns (all when null) are
   * verified deeply; with `statistics = false` without their statistics, size statistics and
   * geospatial statistics tables (then [[verifyChunkStatistics]] checks those before they are read).
   */
  def verifyRowGroups(buf: ByteBuffer, leafCount: Int, selected: Array[Boolean],
      statistics: Boolean = true): Option[FallbackReason] =
    run(buf)(_.rowGroups(leafCount, selected, statistics))

  /**
   * The statistics, size statistics and geospatial statistics of the ColumnMetadata table at
   * `metadataPosition` (with that table): what [[verifyRowGroups]] leaves out with
   * `statistics = false`, for a reader that decodes them on first access (lazy statistics).
   */
  def verifyChunkStatistics(buf: ByteBuffer, metadataPosition: Int): Option[FallbackReason] =
    run(buf)(_.chunkStatistics(metadataPosition))

  private def run(buf: ByteBuffer)(f: Walker => Unit): Option[FallbackReason] = {
    val bb = buf.duplicate().order(ByteOrder.LITTLE_ENDIAN)
    try {
      f(new Walker(bb))
      None
    } catch {
      case m: Malformed => Some(FallbackReason.MalformedFlatBuffer(m.offset, m.getMessage))
    }
  }

  /**
   * The walk. Allocation-free on the per-chunk path: a checked table is its position plus a
   * `Long` packing its vtable position, vtable size and object size ([[table]]), so verifying
   * 200,000 column chunks creates no objects.
   */
  private[footer] final class Walker(bb: ByteBuffer) {
    private val limit = bb.limit()

    // ---- The last column chunk [[columnChunk]] checked, as the decoder reads it ----
    // (verify-while-decode: the decoder takes each chunk's fields from here, read once, by
    // the check that bounds them; nothing of a chunk is read before it is checked)

    /** Position of the last column chunk checked (-1: none). */
    var chunkPos: Int = -1
    /** Its file_path string (the position of its length word), or -1 when absent. */
    var filePathPos: Int = -1
    var hasColumnIndex: Boolean = false; var columnIndexOffset: Long = 0L; var columnIndexLength: Int = 0
    var hasOffsetIndex: Boolean = false; var offsetIndexOffset: Long = 0L; var offsetIndexLength: Int = 0
    /** Position of its ColumnMetadata table. */
    var metaPos: Int = 0
    /** Codec value, 0-7 (checked). */
    var codec: Int = 0
    var hasNumValues: Boolean = false; var numValues: Long = 0L
    var totalUncompressedSize: Long = 0L; var totalCompressedSize: Long = 0L
    var dataPageOffset: Long = 0L
    var hasDictionaryPageOffset: Boolean = false; var dictionaryPageOffset: Long = 0L
    var hasBloomFilterOffset: Boolean = false; var bloomFilterOffset: Long = 0L
    var hasBloomFilterLength: Boolean = false; var bloomFilterLength: Int = 0
    /** Bit v set: encoding value v (0-9, checked) is in the encodings vector. */
    var encodingMask: Int = 0
    /** Its encoding_stats vector (the position of its length word; entries checked), or -1. */
    var encodingStatsPos: Int = -1

    private def fail(at: Long, msg: String): Nothing = throw new Malformed(at.toInt max 0, msg)

    private def need(at: Long, size: Long, what: String): Unit = {
      if (at < 0 || size < 0 || at + size > limit) fail(at, s"$what at $at (+$size) outside the ${limit}-byte buffer")
      if (covering) cover(at, size)
    }

    // The bytes a part of the walk reads (`covering`): the schema's, to share it (SchemaShare).
    private var covering = false
    private var coveredLo = Long.MaxValue
    private var coveredHi = Long.MinValue
    private def cover(at: Long, size: Long): Unit = {
      if (at < coveredLo) coveredLo = at
      if (at + size > coveredHi) coveredHi = at + size
    }

    /** Checks the table at pos and its vtable: vtable position << 32 | vtable size << 16 | object size. */
    private def table(pos: Int): Long = {
      need(pos, 4, "table")
      val vtL = pos.toLong - bb.getInt(pos)
      need(vtL, 4, "vtable")
      val vt = vtL.toInt
      val vtSize = bb.getShort(vt) & 0xFFFF
      val objSize = bb.getShort(vt + 2) & 0xFFFF
      if (vtSize < 4 || (vtSize & 1) != 0) fail(vt, s"vtable size $vtSize")
      need(vt, vtSize, "vtable")
      if (objSize < 4) fail(vt, s"table size $objSize")
      need(pos, objSize, "table")
      (vt.toLong << 32) | (vtSize.toLong << 16) | objSize
    }

    private def vtOf(t: Long): Int = (t >>> 32).toInt
    private def vtSizeOf(t: Long): Int = ((t >>> 16) & 0xFFFF).toInt
    private def objSizeOf(t: Long): Int = (t & 0xFFFF).toInt

    /** Offset of a field in the table (0 when absent). */
    private def field(t: Long, slot: Int): Int = {
      if (slot >= vtSizeOf(t)) return 0
      val vt = vtOf(t)
      val o = bb.getShort(vt + slot) & 0xFFFF
      if (o != 0 && o < 4) fail(vt + slot, s"field offset $o inside the table header")
      o
    }

    private def scalar(pos: Int, t: Long, slot: Int, size: Int): Int = {
      val o = field(t, slot)
      if (o != 0 && o + size > objSizeOf(t)) fail(pos + o, s"field ($size bytes) past the table's ${objSizeOf(t)} bytes")
      o
    }

    private def enumValue(pos: Int, t: Long, slot: Int, max: Int, what: String): Unit = {
      val o = scalar(pos, t, slot, 1)
      if (o != 0) {
        val v = bb.get(pos + o)
        if (v < 0 || v > max) fail(pos + o, s"unknown $what $v")
      }
    }

    /** Target of an offset field, or -1 when absent. */
    private def ref(pos: Int, t: Long, slot: Int): Int = {
      val o = scalar(pos, t, slot, 4)
      if (o == 0) -1 else follow(pos + o)
    }

    private def follow(at: Int): Int = {
      val rel = bb.getInt(at).toLong & 0xFFFFFFFFL
      if (rel == 0) fail(at, "zero offset")
      val target = at + rel
      need(target, 4, "offset target")
      target.toInt
    }

    /** A vector at pos: returns its length after checking its elements fit. */
    private def vector(pos: Int, elemSize: Int): Int = {
      need(pos, 4, "vector")
      val n = bb.getInt(pos).toLong & 0xFFFFFFFFL
      if (pos + 4L + n * elemSize > limit) fail(pos, s"vector of $n elements at $pos outside the ${limit}-byte buffer")
      if (covering) cover(pos, 4L + n * elemSize)
      n.toInt
    }

    private def string(pos: Int): Unit = {
      val n = vector(pos, 1)
      need(pos + 4L + n, 1, "string terminator")
      if (bb.get(pos + 4 + n) != 0) fail(pos + 4L + n, "string without NUL terminator")
    }

    private def optString(pos: Int, t: Long, slot: Int): Unit = { val p = ref(pos, t, slot); if (p >= 0) string(p) }

    private def requiredString(pos: Int, t: Long, slot: Int, what: String): Unit = {
      val p = ref(pos, t, slot)
      if (p < 0) fail(pos, s"$what missing")
      string(p)
    }

    private def optVector(pos: Int, t: Long, slot: Int, elemSize: Int): Int = {
      val p = ref(pos, t, slot)
      if (p >= 0) vector(p, elemSize) else 0
    }

    /** Each table of a vector of tables (`each` gets the table's position); the count. */
    private def tables(pos: Int, t: Long, slot: Int)(each: Int => Unit): Int = {
      val p = ref(pos, t, slot)
      if (p < 0) 0 else tablesAt(p)(each)
    }

    private def tablesAt(p: Int)(each: Int => Unit): Int = {
      val n = vector(p, 4)
      var i = 0
      while (i < n) { each(follow(p + 4 + 4 * i)); i += 1 }
      n
    }

    private lazy val rootPos: Int = {
      need(0, 8, "root offset")
      val p = follow(0)
      table(p)
      p
    }

    /** What [[head]] found of the schema (null before it ran). */
    var headSchema: HeadSchema = null

    def head(share: SchemaShare): Unit = {
      val r = rootPos
      val t = table(r)
      scalar(r, t, S.Version, 4)
      scalar(r, t, S.NumRows, 8)
      val sv = ref(r, t, S.Schema)
      val n = if (sv < 0) 0 else vector(sv, 4)
      if (n == 0) fail(r, "empty schema")
      // elements whose bytes repeat those of a schema already checked and read, at the same
      // distances from one another and from where the vector points, are that schema: their
      // check would read the same bytes (FlatBuffers' offsets are relative)
      val shared = if (share == null) null else share.find(bb, sv, n)
      if (shared != null) headSchema = HeadSchema(shared, sv, -1, -1)
      else {
        covering = true; coveredLo = Long.MaxValue; coveredHi = Long.MinValue
        var i = 0
        while (i < n) { schemaElement(follow(sv + 4 + 4 * i)); i += 1 }
        covering = false
        headSchema = HeadSchema(null, sv, coveredLo.toInt, coveredHi.toInt)
      }
      tables(r, t, S.Kv)(keyValue)
      optString(r, t, S.CreatedBy)
      scalar(r, t, S.SchemaVersion, 4)
      tables(r, t, S.Extensions) { e =>
        val et = table(e)
        if (scalar(e, et, 4, 16) == 0) fail(e, "extension entry without its UUID")
        optVector(e, et, 6, 1)
      }
      tables(r, t, S.RowGroups)(rowGroupHead)
    }

    private def keyValue(pos: Int): Unit = {
      val t = table(pos)
      requiredString(pos, t, 4, "key")
      optString(pos, t, 6)
    }

    private def schemaElement(pos: Int): Unit = {
      val t = table(pos)
      requiredString(pos, t, S.Name, "schema element name")
      enumValue(pos, t, S.Type, 7, "physical type")
      enumValue(pos, t, S.Repetition, 2, "repetition type")
      scalar(pos, t, S.TypeLength, 4); scalar(pos, t, S.NumChildren, 4); scalar(pos, t, S.FieldId, 4)
      enumValue(pos, t, S.ConvertedType, 21, "converted type")
      scalar(pos, t, S.Scale, 4); scalar(pos, t, S.Precision, 4)
      union(pos, t, S.LogicalTypeType, S.LogicalType, 17, "logical type") { (kind, v) =>
        val vt = table(v)
        kind match {
          case 5 => scalar(v, vt, 4, 4); scalar(v, vt, 6, 4) // DecimalOptions
          case 7 | 8 => scalar(v, vt, 4, 1); enumValue(v, vt, 6, 2, "time unit") // TimeOptions
          case 9 => scalar(v, vt, 4, 1); scalar(v, vt, 6, 1) // IntOptions
          case 15 => scalar(v, vt, 4, 1) // VariantType
          case 16 => optString(v, vt, 4) // GeometryType
          case 17 => optString(v, vt, 4); enumValue(v, vt, 6, 4, "edge interpolation algorithm")
          case _ => // Empty
        }
      }
      union(pos, t, S.ColumnOrderType, S.ColumnOrder, 3, "column order")((_, v) => table(v))
    }

    /** A union's type tag and value: `member(kind, valuePosition)` for a present member. */
    private def union(pos: Int, t: Long, typeSlot: Int, valueSlot: Int, max: Int, what: String)(
        member: (Int, Int) => Unit): Unit = {
      val o = scalar(pos, t, typeSlot, 1)
      val kind = if (o == 0) 0 else bb.get(pos + o) & 0xFF
      if (kind > max) fail(pos + o, s"unknown $what $kind")
      val p = ref(pos, t, valueSlot)
      if (kind != 0) {
        if (p < 0) fail(pos, s"$what without its value")
        member(kind, p)
      }
    }

    private def rowGroupHead(pos: Int): Unit = {
      val t = table(pos)
      scalar(pos, t, S.TotalByteSize, 8); scalar(pos, t, S.RgNumRows, 8); scalar(pos, t, S.FileOffset, 8)
      scalar(pos, t, S.RgTotalCompressed, 8); scalar(pos, t, S.Ordinal, 2)
      optVector(pos, t, S.Columns, 4)
      tables(pos, t, S.SortingColumns) { s =>
        val st = table(s)
        scalar(s, st, 4, 4); scalar(s, st, 6, 1); scalar(s, st, 8, 1)
      }
    }

    def rowGroups(leafCount: Int, selected: Array[Boolean], statistics: Boolean): Unit = {
      val r = rootPos
      val p = ref(r, table(r), S.RowGroups)
      if (p < 0) return
      val groups = vector(p, 4)
      var g = 0
      while (g < groups) {
        val rg = follow(p + 4 + 4 * g)
        val t = table(rg)
        val c = rowGroupColumns(rg, leafCount)
        val n = leafCount
        // Without total_compressed_size the range filter sums every chunk's size: verify all.
        val all = selected == null || field(t, S.RgTotalCompressed) == 0
        var j = 0
        while (j < n) {
          if (j == 0 || all || selected(j)) columnChunk(follow(c + 4 + 4 * j), statistics)
          j += 1
        }
        g += 1
      }
    }

    /**
     * The vector of column chunks of the row group table at `rowGroupPos` (checked by
     * [[head]]): its position, after checking it has `leafCount` entries (-1: no vector and no leaves).
     */
    def rowGroupColumns(rowGroupPos: Int, leafCount: Int): Int = {
      val t = table(rowGroupPos)
      val c = ref(rowGroupPos, t, S.Columns)
      val n = if (c < 0) 0 else vector(c, 4)
      if (n != leafCount) fail(rowGroupPos, s"row group with $n column chunks for $leafCount leaf columns")
      c
    }

    /** The table entry `j` of a vector of tables whose length was checked (by [[vector]]). */
    def element(vectorPos: Int, j: Int): Int = follow(vectorPos + 4 + 4 * j)

    /**
     * Checks the column chunk table at `pos` with its metadata (and, with `statistics`, its
     * statistics tables) and records its fields in this walker's chunk fields above.
     */
    // The vtable of the last ColumnChunk / ColumnMetadata table that passed every check, with
    // its table word (see [[table]]) and field offsets: FlatBuffers writers share one vtable
    // between the tables of the same shape, and every check that depends on the vtable alone
    // (its bounds and size, each field's offset within the table) gives the same answer for
    // each table that uses it. A table of a known vtable gets the checks of its own bytes (the
    // table inside the buffer, its offsets' targets, vectors, strings and values), in the same
    // order, so it is refused for the same reason at the same offset.
    private var ccVt = -1L; private var ccT = 0L
    private var ccFp, ccCio, ccCil, ccOio, ccOil, ccMeta = 0
    private var cmVt = -1L; private var cmT = 0L
    private var cmCodec, cmNv, cmTu, cmTc, cmDp, cmDict, cmBo, cmBl, cmKv, cmEnc, cmStats = 0

    /** The vtable position of the table at pos (after checking its first 4 bytes). */
    private def vtableOf(pos: Int): Long = {
      need(pos, 4, "table")
      pos.toLong - bb.getInt(pos)
    }

    /**
     * Checks the column chunk table at `pos` with its metadata (and, with `statistics`, its
     * statistics tables) and records its fields in this walker's chunk fields above.
     */
    def columnChunk(pos: Int, statistics: Boolean): Unit = {
      chunkPos = -1
      val vt = vtableOf(pos)
      val known = vt == ccVt
      val t = if (known) { need(pos, objSizeOf(ccT), "table"); ccT } else table(pos)
      val fo = if (known) ccFp else scalar(pos, t, S.FilePath, 4)
      val fp = if (fo == 0) -1 else follow(pos + fo)
      if (fp >= 0) string(fp)
      filePathPos = fp
      val cio = if (known) ccCio else scalar(pos, t, S.CiOffset, 8)
      val cil = if (known) ccCil else scalar(pos, t, S.CiLength, 4)
      val oio = if (known) ccOio else scalar(pos, t, S.OiOffset, 8)
      val oil = if (known) ccOil else scalar(pos, t, S.OiLength, 4)
      if (!known) scalar(pos, t, S.ChunkFileOffset, 8)
      hasColumnIndex = cio != 0 && cil != 0
      if (hasColumnIndex) { columnIndexOffset = bb.getLong(pos + cio); columnIndexLength = bb.getInt(pos + cil) }
      hasOffsetIndex = oio != 0 && oil != 0
      if (hasOffsetIndex) { offsetIndexOffset = bb.getLong(pos + oio); offsetIndexLength = bb.getInt(pos + oil) }
      val mo = if (known) ccMeta else scalar(pos, t, S.MetaData, 4)
      if (mo == 0) fail(pos, "column chunk without metadata")
      if (!known) { ccVt = vt; ccT = t; ccFp = fo; ccCio = cio; ccCil = cil; ccOio = oio; ccOil = oil; ccMeta = mo }
      columnMetadata(follow(pos + mo), statistics)
      chunkPos = pos
    }

    private def columnMetadata(pos: Int, statistics: Boolean): Unit = {
      val vt = vtableOf(pos)
      val known = vt == cmVt
      val t = if (known) { need(pos, objSizeOf(cmT), "table"); cmT } else table(pos)
      metaPos = pos
      val co = if (known) cmCodec else scalar(pos, t, S.Codec, 1)
      val cv = if (co == 0) 0 else bb.get(pos + co)
      if (cv < 0 || cv > 7) fail(pos + co, s"unknown compression codec $cv")
      codec = cv
      val nv = if (known) cmNv else scalar(pos, t, S.NumValues, 8)
      hasNumValues = nv != 0
      numValues = if (nv == 0) 0L else bb.getLong(pos + nv)
      val tu = if (known) cmTu else scalar(pos, t, S.TotalUncompressed, 8)
      totalUncompressedSize = if (tu == 0) 0L else bb.getLong(pos + tu)
      val tc = if (known) cmTc else scalar(pos, t, S.TotalCompressed, 8)
      totalCompressedSize = if (tc == 0) 0L else bb.getLong(pos + tc)
      val dpo = if (known) cmDp else scalar(pos, t, S.DataPageOffset, 8)
      dataPageOffset = if (dpo == 0) 0L else bb.getLong(pos + dpo)
      if (!known) scalar(pos, t, S.IndexPageOffset, 8)
      val dp = if (known) cmDict else scalar(pos, t, S.DictPageOffset, 8)
      hasDictionaryPageOffset = dp != 0
      dictionaryPageOffset = if (dp == 0) 0L else bb.getLong(pos + dp)
      val bo = if (known) cmBo else scalar(pos, t, S.BloomOffset, 8)
      hasBloomFilterOffset = bo != 0
      bloomFilterOffset = if (bo == 0) 0L else bb.getLong(pos + bo)
      val bl = if (known) cmBl else scalar(pos, t, S.BloomLength, 4)
      hasBloomFilterLength = bl != 0
      bloomFilterLength = if (bl == 0) 0 else bb.getInt(pos + bl)
      val kvo = if (known) cmKv else scalar(pos, t, S.ColKv, 4)
      val kv = if (kvo == 0) -1 else follow(pos + kvo)
      if (kv >= 0) {
        val n = vector(kv, 4)
        var i = 0
        while (i < n) { keyValue(follow(kv + 4 + 4 * i)); i += 1 }
      }
      val eo = if (known) cmEnc else scalar(pos, t, S.Encodings, 4)
      val e = if (eo == 0) -1 else follow(pos + eo)
      var mask = 0
      if (e >= 0) {
        val n = vector(e, 1)
        var i = 0
        while (i < n) {
          val v = bb.get(e + 4 + i)
          if (v < 0 || v > 9) fail(e + 4 + i, s"unknown encoding $v")
          mask |= 1 << v
          i += 1
        }
      }
      encodingMask = mask
      val so = if (known) cmStats else scalar(pos, t, S.EncodingStats, 4)
      val s = if (so == 0) -1 else follow(pos + so)
      if (s >= 0) {
        val n = vector(s, 8)
        var i = 0
        while (i < n) {
          val at = s + 4 + 8 * i
          if (bb.get(at) < 0 || bb.get(at) > 3) fail(at, s"unknown page type ${bb.get(at)}")
          if (bb.get(at + 1) < 0 || bb.get(at + 1) > 9) fail(at + 1, s"unknown encoding ${bb.get(at + 1)}")
          i += 1
        }
      }
      encodingStatsPos = s
      if (statistics) chunkStatistics(pos, t)
      else if (!known) {
        scalar(pos, t, S.Statistics, 4); scalar(pos, t, S.SizeStatistics, 4); scalar(pos, t, S.GeoStatistics, 4)
      }
      if (!known) {
        cmVt = vt; cmT = t; cmCodec = co; cmNv = nv; cmTu = tu; cmTc = tc; cmDp = dpo; cmDict = dp; cmBo = bo; cmBl = bl
        cmKv = kvo; cmEnc = eo; cmStats = so
      }
    }

    def chunkStatistics(pos: Int): Unit = chunkStatistics(pos, table(pos))

    private def chunkStatistics(pos: Int, t: Long): Unit = {
      val st = ref(pos, t, S.Statistics)
      if (st >= 0) this.statistics(st)
      val z = ref(pos, t, S.SizeStatistics)
      if (z >= 0) {
        val zt = table(z)
        scalar(z, zt, 4, 8); optVector(z, zt, 6, 8); optVector(z, zt, 8, 8)
      }
      val g = ref(pos, t, S.GeoStatistics)
      if (g >= 0) {
        val gt = table(g)
        val x = ref(g, gt, 4)
        if (x >= 0) {
          val xt = table(x)
          var slot = 4
          while (slot <= 18) { scalar(x, xt, slot, 8); slot += 2 }
        }
        optVector(g, gt, 6, 4)
      }
    }

    private def statistics(pos: Int): Unit = {
      val t = table(pos)
      scalar(pos, t, 4, 8); scalar(pos, t, 6, 8)
      scalar(pos, t, 8, 4); scalar(pos, t, 10, 8); scalar(pos, t, 12, 8); scalar(pos, t, 14, 1)
      scalar(pos, t, 16, 4); scalar(pos, t, 18, 8); scalar(pos, t, 20, 8); scalar(pos, t, 22, 1)
      optVector(pos, t, 24, 1); optVector(pos, t, 26, 1); optVector(pos, t, 28, 1)
      optVector(pos, t, 36, 1); optVector(pos, t, 38, 1)
      scalar(pos, t, 30, 1); scalar(pos, t, 32, 1); scalar(pos, t, 34, 1)
      scalar(pos, t, 40, 8) // nan_count (v1)
    }
  }
}
