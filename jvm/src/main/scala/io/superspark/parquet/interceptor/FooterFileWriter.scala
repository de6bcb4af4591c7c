package io.superspark.parquet.interceptor

import java.io.ByteArrayOutputStream

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.Path
import org.apache.parquet.column.ParquetProperties
import org.apache.parquet.crypto.FileEncryptionProperties
import org.apache.parquet.hadoop.ParquetFileWriter
import org.apache.parquet.hadoop.metadata.CompressionCodecName
import org.apache.parquet.io.{OutputFile, PositionOutputStream}
import org.apache.spark.internal.Logging

import io.superspark.parquet.alp.{AlpChoice, AlpChunkWriter, AlpExtension, AlpFooter, AlpForm, ParquetPageCompression}
import io.superspark.parquet.alp.spark.{AlpWriteMetrics, AlpWriteSupport}
import io.superspark.parquet.footer.files.FooterFiles
import io.superspark.parquet.footer.codec.{FlatBufferBuild, FooterForm, FooterLayout}
import io.superspark.parquet.footer.UnrepresentableFooterException

/**
 * parquet-java's `ParquetFileWriter` whose stream holds back everything written from `end()`
 * on (column and offset indexes, bloom filters, the Thrift footer, its length and magic):
 * when the stream is closed, the extension is appended to the held footer
 * ([[TailHoldingStream.close]]) and the tail is written once. Memory held: that tail only.
 */
private[superspark] class FooterFileWriter private (file: HoldingOutputFile, schema: org.apache.parquet.schema.MessageType,
    mode: ParquetFileWriter.Mode, rowGroupSize: Long, maxPaddingSize: Int,
    encryption: FileEncryptionProperties, props: ParquetProperties, alpMetrics: Option[AlpWriteMetrics])
  extends ParquetFileWriter(file, schema, mode, rowGroupSize, maxPaddingSize, encryption, props) {

  private var alp: Option[(AlpWriteSupport, AlpChunkWriter, ParquetPageCompression)] = None
  /** Ratified form whose first leaf is not ALP: each row group's ALP chunks go after parquet-java's. */
  private var alpAtEnd = false
  private var alpValues: Seq[io.superspark.parquet.alp.AlpValues] = Nil

  /**
   * Writes the ALP columns of `support` (docs/alp.md) with `codec`, and the footer patched for
   * the form at the end. Each row group's ALP chunks go at its start, before parquet-java's
   * chunks (the private form always: the seed's layout), except in a ratified file whose first
   * leaf is not ALP, where they follow parquet-java's chunks. Either way the first leaf's chunk
   * starts the row group, where readers that split files (parquet-java, Spark) take a row
   * group to begin when they place its midpoint: otherwise large ALP chunks before a small
   * first column could put the last row group's midpoint past the file's end, and no split
   * would read it.
   */
  def attachAlp(support: AlpWriteSupport, codec: CompressionCodecName, conf: Configuration): Unit =
    if (support.specs.nonEmpty) {
      if (encryption != null) throw new UnsupportedOperationException("ALP columns cannot be written to encrypted files")
      val compression = new ParquetPageCompression(codec, conf)
      val name = new Path(file.getPath).getName
      alp = Some((support, new AlpChunkWriter(support.specs, support.form, codec.getParquetCompressionCodec.getValue,
        compression, onChoice = c => alpMetrics.foreach(_.record(name, c))), compression))
      alpAtEnd = support.form == AlpForm.Ratified && !support.specs.exists(_.leaf == 0)
    }

  override def startBlock(recordCount: Long): Unit = {
    super.startBlock(recordCount)
    alp.foreach { case (support, _, _) =>
      alpValues = support.takeRowGroup()
      alpValues.foreach(v => if (v.rows != recordCount) throw new IllegalStateException(
        s"ALP: ${v.rows} values kept for a row group of $recordCount rows"))
      if (!alpAtEnd) writeAlpChunks()
    }
  }

  override def endBlock(): Unit = {
    if (alpAtEnd) writeAlpChunks()
    super.endBlock()
  }

  private def writeAlpChunks(): Unit = alp.foreach { case (_, writer, _) =>
    val stream = file.stream.getOrElse(throw new IllegalStateException("ALP: the file has no output stream"))
    writer.writeRowGroup(alpValues, stream.getPos, b => stream.write(b, 0, b.length))
    alpValues = Nil
  }

  override def end(extraMetaData: java.util.Map[String, String]): Unit = {
    if (encryption == null) file.stream.foreach(_.hold())
    val metadata = alp.fold(extraMetaData) { case (_, writer, _) =>
      // each column chunk's encoding and why (footer inspect shows them)
      val m = new java.util.HashMap[String, String](extraMetaData)
      m.put(AlpChoice.Key, writer.choices.map(_.line).mkString("\n"))
      m
    }
    alp.foreach { case (_, writer, compression) =>
      compression.close()
      file.stream.foreach { s =>
        s.footerPatch = Some(writer.patchFooter)
        // The FlatBuffer footer has no ALP encoding value: ratified files keep the plain footer.
        if (writer.form == AlpForm.Ratified) s.formOverride = Some(FooterForm.Plain)
      }
    }
    super.end(metadata)
  }
}

private[superspark] object FooterFileWriter {
  def create(form: FooterForm, alpMetrics: Option[AlpWriteMetrics] = None)(out: OutputFile,
      schema: org.apache.parquet.schema.MessageType,
      mode: ParquetFileWriter.Mode, rowGroupSize: Long, maxPaddingSize: Int, encryption: FileEncryptionProperties,
      props: ParquetProperties): ParquetFileWriter =
    new FooterFileWriter(new HoldingOutputFile(out, form), schema, mode, rowGroupSize, maxPaddingSize,
      encryption, props, alpMetrics)
}

/** An `OutputFile` whose streams are [[TailHoldingStream]]s. */
private[superspark] class HoldingOutputFile(out: OutputFile, form: FooterForm) extends OutputFile {
  var stream: Option[TailHoldingStream] = None
  private def wrap(s: PositionOutputStream) = {
    val h = new TailHoldingStream(s, out.getPath, form)
    stream = Some(h)
    h
  }
  override def create(blockSizeHint: Long): PositionOutputStream = wrap(out.create(blockSizeHint))
  override def createOrOverwrite(blockSizeHint: Long): PositionOutputStream = wrap(out.createOrOverwrite(blockSizeHint))
  override def supportsBlockSize(): Boolean = out.supportsBlockSize()
  override def defaultBlockSize(): Long = out.defaultBlockSize()
  override def getPath: String = out.getPath
}

/**
 * Passes bytes through until `hold()`; then keeps them, and on `close()` writes them with the
 * footer extension appended. If anything fails before the tail is written, the file is closed
 * without a footer (never with a half-written one) and the error propagates: the task fails
 * and Spark's commit protocol removes the file.
 */
private[superspark] class TailHoldingStream(out: PositionOutputStream, path: String, form: FooterForm) extends PositionOutputStream with Logging {
  private var held: ByteArrayOutputStream = _
  private var closed = false
  /** Applied to the Thrift footer before the extension is added (the ALP forms' surgery). */
  private[interceptor] var footerPatch: Option[Array[Byte] => Array[Byte]] = None
  /** The form written instead of `form` (ratified ALP files: plain). */
  private[interceptor] var formOverride: Option[FooterForm] = None

  def hold(): Unit = if (held == null) held = new ByteArrayOutputStream(64 * 1024)

  override def getPos: Long = out.getPos + (if (held == null) 0 else held.size)
  override def write(b: Int): Unit = if (held == null) out.write(b) else held.write(b)
  override def write(b: Array[Byte], off: Int, len: Int): Unit =
    if (held == null) out.write(b, off, len) else held.write(b, off, len)
  override def flush(): Unit = out.flush()

  override def close(): Unit = if (!closed) {
    closed = true
    try {
      if (held != null) {
        out.write(TailHoldingStream.withExtension(path, held.toByteArray, formOverride.getOrElse(form), footerPatch))
      }
    } finally {
      held = null
      out.close()
    }
  }
}

private[superspark] object TailHoldingStream extends Logging {
  /**
   * `tail` = whatever `end()` wrote: indexes, bloom filters, Thrift footer, length, PAR1. Returns
   * it with the footer in `form` (the final form replaces Thrift, length and PAR1 by the
   * FlatBuffer, its CRCs and PAR3), or unchanged when the footer cannot be represented (with
   * a warning) or is not a plain Parquet footer.
   */
  def withExtension(path: String, tail: Array[Byte], form: FooterForm = FooterForm.Private,
      patch: Option[Array[Byte] => Array[Byte]] = None): Array[Byte] = {
    val n = tail.length
    def unpatched = {
      if (patch.isDefined) throw new IllegalStateException(s"$path: the held tail does not end with a Thrift footer")
      tail
    }
    if (n < 8 || !java.util.Arrays.equals(tail, n - 4, n, FooterLayout.Magic, 0, 4)) return unpatched
    val footerLength = FooterLayout.getIntLE(tail, n - 8).toLong & 0xFFFFFFFFL
    val footerStart = n - 8 - footerLength
    if (footerStart < 0) return unpatched
    val original = java.util.Arrays.copyOfRange(tail, footerStart.toInt, n - 8)
    val thrift = patch.fold(original)(_(original))
    def replaced(newTail: Array[Byte]) = {
      val out = java.util.Arrays.copyOf(tail, footerStart.toInt + newTail.length)
      System.arraycopy(newTail, 0, out, footerStart.toInt, newTail.length)
      out
    }
    // the ALP forms' column extensions, copied into the FlatBuffer's extension slot (docs/alp.md)
    val extensions = if (patch.isEmpty) Nil
      else AlpFooter.slotData(thrift).map(FlatBufferBuild.FooterExtension(AlpExtension.Uuid, _)).toSeq
    try replaced(FooterFiles.tailFor(path, thrift, form, extensions)) catch {
      case e: UnrepresentableFooterException =>
        logWarning(s"$path: written as a plain Parquet file, not in the $form footer form: ${e.reason}")
        replaced(FooterFiles.withLengthAndMagic(thrift))
    }
  }
}
