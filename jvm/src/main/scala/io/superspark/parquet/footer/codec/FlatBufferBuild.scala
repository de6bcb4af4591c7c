package io.superspark.parquet.footer.codec

import com.google.flatbuffers.FlatBufferBuilder

import io.superspark.parquet.footer.{fbs => fb}
import io.superspark.parquet.footer.UnrepresentableFooterException
import io.superspark.parquet.thrift.ThriftCompactReader

/**
 * The pieces of parquet3.fbs that [[ThriftCompactToFlatBuffer]] builds from values it has
 * already read: the extension slot and its entries, the packed `Statistics` table, the root
 * table, and the refusal ([[UnrepresentableFooterException]]). [[FlatBufferDecoder]] shares
 * [[FlatBufferBuild.fixedWidth]]. Pure codec, no I/O.
 */
private[superspark] object FlatBufferBuild {

  /** The schema version this writer emits (`FileMetaData.schema_version`, "v1"). */
  val SchemaVersion: Int = 1

  /** An entry of the v1 extension slot: a UUID and its payload (readers skip the UUIDs they do not know). */
  final case class FooterExtension(uuid: java.util.UUID, data: Array[Byte])

  /** Refuses a footer the FlatBuffer cannot carry faithfully. */
  private[footer] def refuse(reason: String): Nothing = throw new UnrepresentableFooterException(reason)

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

  /** A Thrift `Statistics` struct's fields as the FlatBuffer stores them (null: not set). */
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
