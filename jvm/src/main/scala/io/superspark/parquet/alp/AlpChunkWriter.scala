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
 * The encoding one column chunk got and why (docs/alp.md, "Which encoding a chunk gets"):
 * `alp` / `kept PLAIN` / `mixed` (ratified form: some pages of each), and the sample's
 * estimate in bits per value. Shown by `footer inspect` and counted in the write metrics.
 */
private[superspark] final case class AlpChoice(rowGroup: Int, column: String, choice: String, reason: String, alpPages: Int,
    plainPages: Int) {
  def kept: Boolean = alpPages == 0
  /** One line of the `superspark.alp.choices` key: row group, column, choice, reason (tab-separated). */
  def line: String = Seq(rowGroup.toString, column, choice, reason).mkString("\t")
}

private[superspark] object AlpChoice {
  /** Key-value metadata of a file superspark wrote with ALP: one [[AlpChoice.line]] a column chunk. */
  val Key = "superspark.alp.choices"

  /** The choices a file's `superspark.alp.choices` value lists (lines that do not parse are left out). */
  def parse(value: String): Seq[AlpChoice] = value.split("\n").toSeq.flatMap { l =>
    l.split("\t", 4) match {
      case Array(rg, col, choice, reason) if rg.nonEmpty && rg.forall(_.isDigit) =>
        Some(AlpChoice(rg.toInt, col, choice, reason, -1, -1))
      case _ => None
    }
  }
}

/**
 * Writes the ALP chunks of one Parquet file, row group by row group, at the position the
 * caller's stream is at (the start of the row group), and patches the finished Thrift footer
 * for the form: the private form's field-32767 extensions ([[AlpFooter.withExtensions]]) or
 * the ratified form's column chunks ([[AlpRatifiedFooter]]). `codec`: Parquet's
 * `CompressionCodec` value of the file's column chunks; `compression` compresses with it (a
 * chunk whose pages it does not shrink by an eighth is written UNCOMPRESSED, [[AlpChunk.encode]]).
 *
 * Where ALP loses ([[AlpEncodingChoice]]: a sample's ALP bits per value above PLAIN through
 * the codec) the ordinary encoding is kept: in the private form per column chunk (no ALP copy
 * is written; the row group keeps its ordinary chunk alone, and readers read that), in the
 * ratified form per page (PLAIN pages in the column's chunk; a chunk of PLAIN pages only is an
 * ordinary chunk every reader reads). `onChoice` hears each chunk's [[AlpChoice]].
 */
private[superspark] final class AlpChunkWriter(val specs: Seq[AlpColumnSpec], val form: AlpForm, codec: Int, compression: PageCompression,
    pageRows: Int = AlpChunk.DefaultPageRows, onChoice: AlpChoice => Unit = _ => ()) {
  private var rowGroups = 0
  private val chunks = mutable.ArrayBuffer.empty[AlpWrittenChunk]
  private val choiceList = mutable.ArrayBuffer.empty[AlpChoice]
  private val ordinary = AlpEncodingChoice.ordinaryName(codec)

  def written: Seq[AlpWrittenChunk] = chunks.toSeq
  def choices: Seq[AlpChoice] = choiceList.toSeq

  /**
   * Writes one row group's chunks (one `AlpValues` per spec, in order) at `position` through
   * `write`, in the order of the columns' leaves.
   */
  def writeRowGroup(values: Seq[AlpValues], position: => Long, write: Array[Byte] => Unit): Unit = {
    require(values.size == specs.size, s"${values.size} value sets for ${specs.size} ALP columns")
    specs.zip(values).sortBy(_._1.leaf).foreach { case (spec, v) =>
      val chunk = form match {
        case AlpForm.Private =>
          val e = AlpEncodingChoice.estimate(v, 0, v.rows, compression, ordinary)
          record(AlpChoice(rowGroups, spec.name, if (e.alp) "alp" else s"kept $ordinary", e.reason,
            if (e.alp) 1 else 0, 0))
          if (e.alp) Some(AlpChunk.encode(v, compression, pageRows)) else None
        case AlpForm.Ratified =>
          val estimates = mutable.ArrayBuffer.empty[AlpEstimate]
          val c = AlpChunk.encodeChosen(v, compression, pageRows, { (from, n) =>
            val e = AlpEncodingChoice.estimate(v, from, n, compression, ordinary)
            estimates += e
            e.alp
          })
          record(AlpChoice(rowGroups, spec.name,
            if (c.plainPages == 0) "alp" else if (c.alpPages == 0) "kept PLAIN" else "mixed",
            AlpChunkWriter.summary(estimates.toSeq, c), c.alpPages, c.plainPages))
          Some(c)
      }
      chunk.foreach { chunk =>
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

  private def record(c: AlpChoice): Unit = { choiceList += c; onChoice(c) }

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

  /** A ratified chunk's reason: its pages' estimates summed over their sampled values, and its page counts. */
  private def summary(es: Seq[AlpEstimate], c: AlpChunkBytes): String = {
    val n = es.map(_.sampled).sum
    val reason = if (n == 0) "no values" else {
      val total = AlpEstimate(es.map(e => e.alpBits * e.sampled).sum / n, es.map(e => e.ordinaryBits * e.sampled).sum / n,
        es.headOption.map(_.ordinary).getOrElse("PLAIN"), n)
      total.reason
    }
    s"$reason; ${c.alpPages} ALP, ${c.plainPages} PLAIN pages"
  }
}
