package io.superspark.parquet.interceptor

import java.util.Locale

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.{ChecksumFileSystem, FSDataInputStream, Path}
import org.apache.parquet.hadoop.metadata.ParquetMetadata
import org.apache.parquet.hadoop.util.HadoopInputFile
import org.apache.parquet.io.SeekableInputStream
import org.apache.parquet.schema.MessageType
import org.apache.spark.internal.Logging
import io.superspark.parquet.ParquetFooterException
import io.superspark.parquet.footer.FlatBufferFooterException
import io.superspark.parquet.footer.codec.{FooterLayout, Projection, RowGroupSelection}
import io.superspark.parquet.footer.files.{FooterBytes, FooterColumns, FooterFiles, FooterReader, FooterSource}
import io.superspark.parquet.logicaltypes.ParquetLogicalTypes


/**
 * A footer read through the library, with the open input stream when the caller keeps it.
 * `footer` is what Spark is given; `fileSchema` the file's own schema (with UUID annotations);
 * `isFinal`: a final-form (PAR3) file, which parquet-java cannot open by itself. `footerBytes`:
 * the footer bytes the library read or found cached (the extension part alone, or the whole
 * footer, `wholeFooter`); null when Spark's own reader opened the file. `cacheAs`: the file's
 * cache key and the cache's bound, when the cache is on; `cacheTail`: the file's tail kept with
 * a key without a version ([[FooterCache.Entry.tail]]). `checksummed`: the file is on a checksummed
 * file system (Hadoop's local one), whose streams check a `.crc` sidecar as they read.
 */
private[superspark] final case class OpenedFooter(footer: ParquetMetadata, inputFile: HadoopInputFile,
    inputStream: Option[SeekableInputStream], fileSchema: MessageType, isFinal: Boolean = false,
    footerBytes: FooterBytes = null, wholeFooter: Boolean = false, cacheAs: Option[(FooterCache.Key, Long)] = None,
    cacheTail: Array[Byte] = null, checksummed: Boolean = false) extends org.apache.spark.sql.superspark.ScanFooter

/**
 * Opens a Parquet file and reads its footer through the footer library: the FlatBuffer
 * extension when present and sound (projected to the columns asked for and the row groups of
 * the split), the Thrift footer otherwise; one warning per file for a damaged extension
 * (an error with `strict`). The footer is then made readable by Spark
 * ([[ParquetLogicalTypes.forSpark]]). Counts go to `metrics`.
 */
private[superspark] object FooterOpener extends Logging {

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
      metrics: FooterSQLMetrics,
      cacheBytes: Long = 0L): Option[OpenedFooter] = {
    // The file's status as it is now (HadoopInputFile.fromPath takes the same one): the cache key.
    val fs = path.getFileSystem(conf)
    val status = fs.getFileStatus(path)
    val inputFile = HadoopInputFile.fromStatus(status, conf)
    val cacheKey = FooterCache.Key(status.getPath.toString, status.getLen, status.getModificationTime, FooterFiles.versionOf(status))
    // Opened at the first read: a cache hit without keepOpen opens nothing.
    var stream: SeekableInputStream = null
    def in: SeekableInputStream = {
      if (stream == null) stream = inputFile.newStream()
      stream
    }
    // On a checksummed file system (Hadoop's local one, which checks a `.crc` sidecar as it
    // reads) the extension's bytes and the cache's tail checks are read from the raw file
    // system beneath it: the extension's own CRCs cover its FlatBuffer and length, and a part
    // that does not verify is read again, whole, through the checked stream. Data pages and
    // Thrift footers are read through the checked stream, as Spark's reader reads them.
    var raw: FSDataInputStream = null
    var keep = false
    try {
      val began = System.nanoTime()
      var bytesRead = 0L
      val readInto = { (off: Long, out: Array[Byte], at: Int, len: Int) =>
        in.seek(off)
        in.readFully(out, at, len)
        bytesRead += len
      }
      val readUnchecked: (Long, Array[Byte], Int, Int) => Unit = fs match {
        case checked: ChecksumFileSystem => (off, out, at, len) =>
          if (raw == null) raw = checked.getRawFileSystem.open(path)
          raw.readFully(off, out, at, len)
          bytesRead += len
        case _ => readInto
      }
      val readAt = { (off: Long, len: Int) =>
        val out = new Array[Byte](len)
        readInto(off, out, 0, len)
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
      // A cached footer first (its FlatBuffer was sound when cached; a projection whose part
      // does not verify drops it and reads the file again), then the extension's bytes alone
      // (no Thrift read), then the whole footer when that is not a sound extension (no
      // extension: Thrift; damaged: fallback, warning, counted).
      def flatBufferOf(bytes: FooterBytes) =
        try Some(decode(bytes, strictly = true)).filter(_.source == FooterSource.FlatBuffer) catch {
          case _: FlatBufferFooterException => None
        }
      // Without a version (no ETag), an entry is served only while the file's tail still reads
      // the same (FooterCache: a same-length rewrite within the time resolution).
      def tailNow(): Array[Byte] = {
        val (off, n) = FooterCache.tailRange(inputFile.getLength)
        val out = new Array[Byte](n)
        readUnchecked(off, out, 0, n)
        out
      }
      val found = if (cacheBytes > 0) FooterCache.get(cacheKey) else None
      val cached = found.filter(e => cacheKey.version.nonEmpty || java.util.Arrays.equals(e.tail, tailNow()))
      if (found.isDefined && cached.isEmpty) FooterCache.remove(cacheKey)
      val hit = cached.flatMap(e => flatBufferOf(e.bytes).map(r => (e, r)))
      if (cached.isDefined && hit.isEmpty) FooterCache.remove(cacheKey)
      val fast = hit.orElse(FooterColumns.readExtensionOnly(path.toString, inputFile.getLength, readUnchecked).flatMap { part =>
        flatBufferOf(part).map(r => (FooterCache.Entry(part, whole = false), r))
      })
      val (entry, result) = fast.getOrElse {
        val bytes = try FooterFiles.readFooter(path.toString, inputFile.getLength, readAt) catch {
          // A damaged final-form (PAR3) footer: no other reader can help, the error stands.
          case e: FlatBufferFooterException => throw e
          case _: ParquetFooterException => return None
        }
        (FooterCache.Entry(bytes, whole = true), decode(bytes, strict))
      }
      val bytes = entry.bytes
      // The tail read after the footer, and kept only if it agrees with it (not replaced between).
      val tail = if (cacheBytes > 0 && cacheKey.version.isEmpty) {
        if (hit.isDefined) entry.tail else Some(tailNow()).filter(t => FooterCache.agrees(bytes, t)).orNull
      } else null
      if (cacheBytes > 0 && hit.isEmpty && result.source == FooterSource.FlatBuffer &&
          (cacheKey.version.nonEmpty || tail != null)) {
        FooterCache.put(cacheKey, entry.copy(tail = tail), cacheBytes)
      }
      if (cacheBytes > 0) metrics.dataEnds.report(cacheKey.path, cacheKey.length) // for the driver's packing
      metrics.recordRead(if (cacheBytes > 0) Some(hit.isDefined) else None, bytesRead)
      val nanos = System.nanoTime() - began
      metrics.record(result, nanos)
      FooterReadSink.record(result, nanos) // a DSv2 task's custom metrics, when one is reading
      result.fallback.foreach { reason =>
        logWarning(s"$path: damaged Parquet footer extension (footer at byte ${bytes.footerOffset}): $reason; " +
          "read the Thrift footer instead")
      }
      keep = keepOpen
      Some(OpenedFooter(ParquetLogicalTypes.forSpark(result.metadata), inputFile, if (keepOpen) Some(in) else None,
        result.metadata.getFileMetaData.getSchema, bytes.isFinal, bytes, entry.whole,
        if (cacheBytes > 0 && (cacheKey.version.nonEmpty || tail != null)) Some((cacheKey, cacheBytes)) else None,
        tail, fs.isInstanceOf[ChecksumFileSystem]))
    } finally {
      if (raw != null) raw.close()
      if (!keep && stream != null) stream.close()
    }
  }

  /**
   * The whole footer of an opened file (what the ALP plan reads: the Thrift part too), from
   * the bytes `open` already holds: when `open` read the extension part alone (or found it
   * cached), only the footer's length and the Thrift part before that part are read through
   * `in` (counted in `metrics`), and the whole footer replaces the part in the cache. Each
   * footer byte is read once. A file Spark's own reader opened has its footer read whole.
   */
  def wholeFooter(opened: OpenedFooter, in: SeekableInputStream, metrics: FooterSQLMetrics): FooterBytes = {
    val part = opened.footerBytes
    if (part == null) return FooterFiles.readFooter(opened.inputFile, in)
    if (opened.wholeFooter) return part
    val fileLength = part.fileLength
    val tail = new Array[Byte](8)
    in.seek(fileLength - 8)
    in.readFully(tail)
    val footerOffset = fileLength - 8 - (FooterLayout.getIntLE(tail, 0).toLong & 0xFFFFFFFFL)
    if (footerOffset < 4 || footerOffset > part.footerOffset) {
      throw new ParquetFooterException(s"${part.path}: footer length at byte ${fileLength - 8} does not cover " +
        s"the footer extension at byte ${part.footerOffset}")
    }
    val before = (part.footerOffset - footerOffset).toInt
    val whole = new Array[Byte](before + part.footer.length)
    in.seek(footerOffset)
    in.readFully(whole, 0, before)
    System.arraycopy(part.footer, 0, whole, before, part.footer.length)
    metrics.recordRead(None, 8L + before)
    val bytes = FooterBytes(part.path, fileLength, footerOffset, whole)
    opened.cacheAs.foreach { case (key, bound) =>
      if (opened.cacheTail == null || FooterCache.agrees(bytes, opened.cacheTail)) {
        FooterCache.put(key, FooterCache.Entry(bytes, whole = true, opened.cacheTail), bound)
      }
    }
    bytes
  }
}
