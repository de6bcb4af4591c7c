package io.superspark.parquet.footer

import java.nio.{ByteBuffer, ByteOrder}

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
 * (each row group's column 0 and the selected columns, deeply).
 */
object FlatBufferVerifier {

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
  def verifyHead(buf: ByteBuffer): Option[FallbackReason] = run(buf)(_.head())

  /**
   * Phase 2: for every row group, its column chunk vector has `leafCount` entries; column 0
   * (read for file_path and the range filter) and the selected columns (all when null) are
   * verified deeply.
   */
  def verifyRowGroups(buf: ByteBuffer, leafCount: Int, selected: Array[Boolean]): Option[FallbackReason] =
    run(buf)(_.rowGroups(leafCount, selected))

  private def run(buf: ByteBuffer)(f: Walker => Unit): Option[FallbackReason] = {
    val bb = buf.duplicate().order(ByteOrder.LITTLE_ENDIAN)
    try {
      f(new Walker(bb))
      None
    } catch {
      case m: Malformed => Some(FallbackReason.MalformedFlatBuffer(m.offset, m.getMessage))
    }
  }

  private final class Walker(bb: ByteBuffer) {
    private val limit = bb.limit()

    private def fail(at: Long, msg: String): Nothing = throw new Malformed(at.toInt max 0, msg)

    private def need(at: Long, size: Long, what: String): Unit =
      if (at < 0 || size < 0 || at + size > limit) fail(at, s"$what at $at (+$size) outside the ${limit}-byte buffer")

    /** A table at pos: checks it and its vtable, returns (vtable, vtableSize, objectSize). */
    private final class T(val pos: Int) {
      need(pos, 4, "table")
      private val vtL = pos.toLong - bb.getInt(pos)
      need(vtL, 4, "vtable")
      val vt: Int = vtL.toInt
      val vtSize: Int = bb.getShort(vt) & 0xFFFF
      val objSize: Int = bb.getShort(vt + 2) & 0xFFFF
      if (vtSize < 4 || (vtSize & 1) != 0) fail(vt, s"vtable size $vtSize")
      need(vt, vtSize, "vtable")
      if (objSize < 4) fail(vt, s"table size $objSize")
      need(pos, objSize, "table")

      def field(slot: Int): Int = {
        if (slot >= vtSize) return 0
        val o = bb.getShort(vt + slot) & 0xFFFF
        if (o != 0 && o < 4) fail(vt + slot, s"field offset $o inside the table header")
        o
      }

      def scalar(slot: Int, size: Int): Int = {
        val o = field(slot)
        if (o != 0 && o + size > objSize) fail(pos + o, s"field ($size bytes) past the table's $objSize bytes")
        o
      }

      def enumValue(slot: Int, max: Int, what: String): Unit = {
        val o = scalar(slot, 1)
        if (o != 0) {
          val v = bb.get(pos + o)
          if (v < 0 || v > max) fail(pos + o, s"unknown $what $v")
        }
      }

      /** Target of an offset field, or -1 when absent. */
      def ref(slot: Int): Int = {
        val o = scalar(slot, 4)
        if (o == 0) -1 else follow(pos + o)
      }
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
      n.toInt
    }

    private def string(pos: Int): Unit = {
      val n = vector(pos, 1)
      need(pos + 4L + n, 1, "string terminator")
      if (bb.get(pos + 4 + n) != 0) fail(pos + 4L + n, "string without NUL terminator")
    }

    private def optString(t: T, slot: Int): Unit = { val p = t.ref(slot); if (p >= 0) string(p) }

    private def requiredString(t: T, slot: Int, what: String): Unit = {
      val p = t.ref(slot)
      if (p < 0) fail(t.pos, s"$what missing")
      string(p)
    }

    private def optVector(t: T, slot: Int, elemSize: Int): Int = { val p = t.ref(slot); if (p >= 0) vector(p, elemSize) else 0 }

    private def tables(t: T, slot: Int)(each: T => Unit): Int = {
      val p = t.ref(slot)
      if (p < 0) return 0
      val n = vector(p, 4)
      var i = 0
      while (i < n) { each(new T(follow(p + 4 + 4 * i))); i += 1 }
      n
    }

    private def table(t: T, slot: Int)(each: T => Unit): Unit = { val p = t.ref(slot); if (p >= 0) each(new T(p)) }

    private lazy val root: T = {
      need(0, 8, "root offset")
      new T(follow(0))
    }

    def head(): Unit = {
      val r = root
      r.scalar(S.Version, 4)
      r.scalar(S.NumRows, 8)
      if (tables(r, S.Schema)(schemaElement) == 0) fail(r.pos, "empty schema")
      tables(r, S.Kv)(keyValue)
      optString(r, S.CreatedBy)
      r.scalar(S.SchemaVersion, 4)
      tables(r, S.Extensions) { e =>
        if (e.scalar(4, 16) == 0) fail(e.pos, "extension entry without its UUID")
        optVector(e, 6, 1)
      }
      tables(r, S.RowGroups)(rowGroupHead)
    }

    private def keyValue(t: T): Unit = { requiredString(t, 4, "key"); optString(t, 6) }

    private def schemaElement(t: T): Unit = {
      requiredString(t, S.Name, "schema element name")
      t.enumValue(S.Type, 7, "physical type")
      t.enumValue(S.Repetition, 2, "repetition type")
      t.scalar(S.TypeLength, 4); t.scalar(S.NumChildren, 4); t.scalar(S.FieldId, 4)
      t.enumValue(S.ConvertedType, 21, "converted type")
      t.scalar(S.Scale, 4); t.scalar(S.Precision, 4)
      union(t, S.LogicalTypeType, S.LogicalType, 17, "logical type") { (kind, v) =>
        kind match {
          case 5 => v.scalar(4, 4); v.scalar(6, 4) // DecimalOptions
          case 7 | 8 => v.scalar(4, 1); v.enumValue(6, 2, "time unit") // TimeOptions
          case 9 => v.scalar(4, 1); v.scalar(6, 1) // IntOptions
          case 15 => v.scalar(4, 1) // VariantType
          case 16 => optString(v, 4) // GeometryType
          case 17 => optString(v, 4); v.enumValue(6, 4, "edge interpolation algorithm")
          case _ => // Empty
        }
      }
      union(t, S.ColumnOrderType, S.ColumnOrder, 3, "column order")((_, _) => ())
    }

    private def union(t: T, typeSlot: Int, valueSlot: Int, max: Int, what: String)(member: (Int, T) => Unit): Unit = {
      val o = t.scalar(typeSlot, 1)
      val kind = if (o == 0) 0 else bb.get(t.pos + o) & 0xFF
      if (kind > max) fail(t.pos + o, s"unknown $what $kind")
      val p = t.ref(valueSlot)
      if (kind != 0) {
        if (p < 0) fail(t.pos, s"$what without its value")
        member(kind, new T(p))
      }
    }

    private def rowGroupHead(t: T): Unit = {
      t.scalar(S.TotalByteSize, 8); t.scalar(S.RgNumRows, 8); t.scalar(S.FileOffset, 8)
      t.scalar(S.RgTotalCompressed, 8); t.scalar(S.Ordinal, 2)
      optVector(t, S.Columns, 4)
      tables(t, S.SortingColumns) { s => s.scalar(4, 4); s.scalar(6, 1); s.scalar(8, 1) }
    }

    def rowGroups(leafCount: Int, selected: Array[Boolean]): Unit = {
      val r = root
      tables(r, S.RowGroups) { rg =>
        val p = rg.ref(S.Columns)
        val n = if (p < 0) 0 else vector(p, 4)
        if (n != leafCount) fail(rg.pos, s"row group with $n column chunks for $leafCount leaf columns")
        // Without total_compressed_size the range filter sums every chunk's size: verify all.
        val all = selected == null || rg.field(S.RgTotalCompressed) == 0
        var j = 0
        while (j < n) {
          if (j == 0 || all || selected(j)) columnChunk(new T(follow(p + 4 + 4 * j)))
          j += 1
        }
      }
    }

    private def columnChunk(t: T): Unit = {
      optString(t, S.FilePath)
      t.scalar(S.CiOffset, 8); t.scalar(S.CiLength, 4); t.scalar(S.OiOffset, 8); t.scalar(S.OiLength, 4)
      t.scalar(S.ChunkFileOffset, 8)
      val m = t.ref(S.MetaData)
      if (m < 0) fail(t.pos, "column chunk without metadata")
      columnMetadata(new T(m))
    }

    private def columnMetadata(t: T): Unit = {
      t.enumValue(S.Codec, 7, "compression codec")
      t.scalar(S.NumValues, 8); t.scalar(S.TotalUncompressed, 8); t.scalar(S.TotalCompressed, 8)
      t.scalar(S.DataPageOffset, 8); t.scalar(S.IndexPageOffset, 8); t.scalar(S.DictPageOffset, 8)
      t.scalar(S.BloomOffset, 8)
      t.scalar(S.BloomLength, 4)
      tables(t, S.ColKv)(keyValue)
      val e = t.ref(S.Encodings)
      if (e >= 0) {
        val n = vector(e, 1)
        var i = 0
        while (i < n) {
          val v = bb.get(e + 4 + i)
          if (v < 0 || v > 9) fail(e + 4 + i, s"unknown encoding $v")
          i += 1
        }
      }
      val s = t.ref(S.EncodingStats)
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
      table(t, S.Statistics)(statistics)
      table(t, S.SizeStatistics) { z => z.scalar(4, 8); optVector(z, 6, 8); optVector(z, 8, 8) }
      table(t, S.GeoStatistics) { g =>
        table(g, 4) { x => (4 to 18 by 2).foreach(x.scalar(_, 8)) }
        optVector(g, 6, 4)
      }
    }

    private def statistics(t: T): Unit = {
      t.scalar(4, 8); t.scalar(6, 8)
      t.scalar(8, 4); t.scalar(10, 8); t.scalar(12, 8); t.scalar(14, 1)
      t.scalar(16, 4); t.scalar(18, 8); t.scalar(20, 8); t.scalar(22, 1)
      optVector(t, 24, 1); optVector(t, 26, 1); optVector(t, 28, 1); optVector(t, 36, 1); optVector(t, 38, 1)
      t.scalar(30, 1); t.scalar(32, 1); t.scalar(34, 1)
      t.scalar(40, 8) // nan_count (v1)
    }
  }
}
