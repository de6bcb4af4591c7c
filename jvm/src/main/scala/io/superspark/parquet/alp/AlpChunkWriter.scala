package io.superspark.parquet.alp

import java.util.Locale
import java.util.zip.CRC32

import scala.collection.mutable

/** Which ALP form a writer produces (docs/alp.md): `private` (ALP chunk + ordinary chunk) or `ratified` (ALP only). */
private[superspark] sealed abstract class AlpForm(val name: String) { override def toString: String = name }
private[superspark] object AlpForm {
  case object Private extends AlpForm("private")
  case object Ratified extends AlpForm("ratified")
  val all: Seq[AlpForm] = Seq(Private, Ratified)
  def parse(s: String): Option[AlpForm] = all.find(_.name == s.trim.toLowerCase(Locale.ROOT))
}

/**
 * A flat FLOAT/DOUBLE column written with ALP: its top-level `name`, its leaf index in the
 * file's full schema, whether it is optional, and its field id when the schema has one.
 */
private[superspark] final case class AlpColumnSpec(name: String, leaf: Int, t: AlpType, optional: Boolean, fieldId: Option[Int]) {
  def physicalType: Int = if (t == AlpType.Float) AlpExtension.FloatType else AlpExtension.DoubleType
}

/** Column statistics of an ALP chunk: min/max as Parquet's little-endian bytes (absent with NaNs or no values). */
private[superspark] final case class AlpStats(nullCount: Long, min: Option[Array[Byte]], max: Option[Array[Byte]])

private[superspark] object AlpStats {
  /**
   * As Parquet orders FLOAT/DOUBLE: NaN makes min/max unknown (none written); a zero min is
   * written -0.0 and a zero max +0.0.
   */
  def of(v: AlpValues): AlpStats = {
    var min = Double.PositiveInfinity
    var max = Double.NegativeInfinity
    var any = false
    var nan = false
    var i = 0
    while (i < v.rows) {
      if (v.nulls == null || !v.nulls(i)) {
        val x = if (v.t == AlpType.Double) v.doubles(i) else v.floats(i).toDouble
        if (x.isNaN) nan = true
        else { any = true; if (x < min) min = x; if (x > max) max = x }
      }
      i += 1
    }
    if (!any || nan) AlpStats(v.nullCount, None, None)
    else {
      if (min == 0.0) min = -0.0
      if (max == 0.0) max = 0.0
      AlpStats(v.nullCount, Some(bytes(min, v.t)), Some(bytes(max, v.t)))
    }
  }

  private def bytes(x: Double, t: AlpType): Array[Byte] = {
    val b = java.nio.ByteBuffer.allocate(t.valueBytes).order(java.nio.ByteOrder.LITTLE_ENDIAN)
    if (t == AlpType.Double) b.putDouble(x) else b.putFloat(x.toFloat)
    b.array()
  }
}

/** One ALP chunk written into a file: where, its encoded form, checksum and statistics. */
/** `codec`: Parquet's `CompressionCodec` value of the chunk's pages (0, UNCOMPRESSED, when they are not compressed). */
private[superspark] final case class AlpWrittenChunk(rowGroup: Int, spec: AlpColumnSpec, offset: Long, chunk: AlpChunkBytes, crc32: Int,
    stats: AlpStats, codec: Int) {
  def extension: AlpExtension =
    AlpExtension(spec.physicalType, offset, chunk.bytes.length, chunk.pages, chunk.rows, crc32, Some(codec))
}

/**
 * Writes the ALP chunks of one Parquet file, row group by row group, at the position the
 * caller's stream is at (the start of the row group), and patches the finished Thrift footer
 * for the form: the private form's field-32767 extensions ([[AlpFooter.withExtensions]]) or
 * the ratified form's column chunks ([[AlpRatifiedFooter]]). `codec`: Parquet's
 * `CompressionCodec` value of the file's column chunks; `compression` compresses with it (a
 * chunk whose pages it does not shrink by an eighth is written UNCOMPRESSED, [[AlpChunk.encode]]).
 * In the private form a chunk that ALP does not shrink ([[AlpChunkWriter.pays]]: random
 * doubles, all exceptions) is not written: the row group keeps its ordinary chunk alone, and
 * readers read that.
 */
private[superspark] final class AlpChunkWriter(val specs: Seq[AlpColumnSpec], val form: AlpForm, codec: Int, compression: PageCompression,
    pageRows: Int = AlpChunk.DefaultPageRows) {
  private var rowGroups = 0
  private val chunks = mutable.ArrayBuffer.empty[AlpWrittenChunk]

  def written: Seq[AlpWrittenChunk] = chunks.toSeq

  /**
   * Writes one row group's chunks (one `AlpValues` per spec, in order) at `position` through
   * `write`, in the order of the columns' leaves.
   */
  def writeRowGroup(values: Seq[AlpValues], position: => Long, write: Array[Byte] => Unit): Unit = {
    require(values.size == specs.size, s"${values.size} value sets for ${specs.size} ALP columns")
    specs.zip(values).sortBy(_._1.leaf).foreach { case (spec, v) =>
      val chunk = AlpChunk.encode(v, compression, pageRows)
      if (form == AlpForm.Ratified || AlpChunkWriter.pays(chunk, v)) {
        val crc = new CRC32()
        crc.update(chunk.bytes)
        val at = position
        write(chunk.bytes)
        chunks += AlpWrittenChunk(rowGroups, spec, at, chunk, crc.getValue.toInt, AlpStats.of(v),
          if (chunk.compressed) codec else AlpChunkWriter.Uncompressed)
      }
    }
    rowGroups += 1
  }

  /** The finished file's Thrift footer (no extension of ours yet) in this writer's form. */
  def patchFooter(thrift: Array[Byte]): Array[Byte] = form match {
    case AlpForm.Private =>
      AlpFooter.withExtensions(thrift, chunks.map(c => (c.rowGroup, c.spec.leaf) -> c.extension.toBytes).toMap)
    case AlpForm.Ratified => AlpRatifiedFooter.insert(thrift, specs, chunks.toSeq)
  }
}

private[superspark] object AlpChunkWriter {
  /** Parquet's `CompressionCodec` UNCOMPRESSED. */
  val Uncompressed = 0

  /** Page and vector headers a small chunk may spend beyond its values' PLAIN bytes. */
  val HeaderAllowance = 1024

  /**
   * Whether an ALP chunk is worth a private-form copy: at most the PLAIN bytes of its non-null
   * values plus [[HeaderAllowance]] (so that small, decimal-like chunks still qualify).
   */
  def pays(chunk: AlpChunkBytes, v: AlpValues): Boolean =
    chunk.bytes.length.toLong <= (v.rows - v.nullCount).toLong * v.t.valueBytes + HeaderAllowance
}
