package io.superspark.parquet.interceptor

import java.util.Locale

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.Path
import org.apache.parquet.hadoop.metadata.ParquetMetadata
import org.apache.parquet.hadoop.util.HadoopInputFile
import org.apache.parquet.io.SeekableInputStream
import org.apache.parquet.schema.MessageType
import org.apache.spark.internal.Logging

import io.superspark.parquet.footer._

/**
 * A footer read through the library, with the open input stream when the caller keeps it.
 * `footer` is what Spark is given; `fileSchema` the file's own schema (with UUID annotations);
 * `isFinal`: a final-form (PAR3) file, which parquet-java cannot open by itself.
 */
final case class OpenedFooter(footer: ParquetMetadata, inputFile: HadoopInputFile,
    inputStream: Option[SeekableInputStream], fileSchema: MessageType, isFinal: Boolean = false)

/**
 * Opens a Parquet file and reads its footer through the footer library: the FlatBuffer
 * extension when present and sound (projected to the columns asked for and the row groups of
 * the split), the Thrift footer otherwise; one warning per file for a damaged extension
 * (an error with `strict`). The footer is then made readable by Spark
 * ([[ParquetLogicalTypes.forSpark]]). Counts go to `metrics`.
 */
object FooterOpener extends Logging {

  private val SignedMinMaxKey = "parquet.strings.signed-min-max.enabled"

  /**
   * @param columns    top-level columns the reader needs (None: all).
   * @param keepOpen   keep the stream open and decode the row groups whose midpoint lies in
   *                   [start, start + length); otherwise decode no row group (schema and
   *                   key-value metadata only) and close the stream.
   * @return None when the library cannot read the footer bytes at all (encrypted footer, not a
   *         Parquet file): the caller then uses Spark's own reader, with Spark's own errors.
   */
  def open(
      conf: Configuration,
      path: Path,
      start: Long,
      length: Long,
      keepOpen: Boolean,
      columns: Option[Seq[String]],
      caseSensitive: Boolean,
      strict: Boolean,
      metrics: FooterMetrics): Option[OpenedFooter] = {
    val inputFile = HadoopInputFile.fromPath(path, conf)
    val stream = inputFile.newStream()
    var keep = false
    try {
      val began = System.nanoTime()
      val readAt = { (off: Long, len: Int) =>
        val out = new Array[Byte](len)
        stream.seek(off)
        stream.readFully(out)
        out
      }
      val rowGroups = if (keepOpen) RowGroupSelection.Range(start, start + length) else RowGroupSelection.Indices(Set.empty)
      def projection(bytes: FooterBytes) = {
        val selected = columns.flatMap(cs => FooterColumns.topLevelNames(bytes).map { names =>
          val wanted = if (caseSensitive) cs.toSet else cs.map(_.toLowerCase(Locale.ROOT)).toSet
          names.toSeq.filter(n => wanted(if (caseSensitive) n else n.toLowerCase(Locale.ROOT))).map(Seq(_))
        })
        Projection(columns = selected, rowGroups = rowGroups,
          useSignedStringMinMax = conf.getBoolean(SignedMinMaxKey, false))
      }
      def decode(bytes: FooterBytes, strictly: Boolean) =
        if (keepOpen || columns.isDefined) FooterReader.read(bytes, projection(bytes), strictly)
        else FooterColumns.readSchemaOnly(bytes, strictly)
      // First the extension's bytes alone (no Thrift read); the whole footer when that is not
      // a sound extension (no extension: Thrift; damaged: fallback, warning, counted).
      val fast = FooterColumns.readExtensionOnly(path.toString, inputFile.getLength, readAt).flatMap { part =>
        try Some(decode(part, strictly = true)).filter(_.source == FooterSource.FlatBuffer) catch {
          case _: FlatBufferFooterException => None
        }
      }
      val (footerOffset, result, isFinal) = fast.map(r => (-1L, r, false)).getOrElse {
        val bytes = try FooterFiles.readFooter(path.toString, inputFile.getLength, readAt) catch {
          // A damaged final-form (PAR3) footer: no other reader can help, the error stands.
          case e: FlatBufferFooterException => throw e
          case _: ParquetFooterException => return None
        }
        (bytes.footerOffset, decode(bytes, strict), bytes.isFinal)
      }
      val nanos = System.nanoTime() - began
      metrics.record(result, nanos)
      v2.FooterTaskCounters.record(result, nanos) // DSv2 partition readers' custom metrics
      result.fallback.foreach { reason =>
        logWarning(s"$path: damaged Parquet footer extension (footer at byte $footerOffset): $reason; " +
          "read the Thrift footer instead")
      }
      keep = keepOpen
      Some(OpenedFooter(ParquetLogicalTypes.forSpark(result.metadata), inputFile, if (keepOpen) Some(stream) else None,
        result.metadata.getFileMetaData.getSchema, isFinal))
    } finally {
      if (!keep) stream.close()
    }
  }
}
