package io.superspark.parquet.footer.files

import java.io.EOFException
import java.nio.ByteBuffer
import java.nio.channels.FileChannel
import java.nio.file.{Path, StandardOpenOption}

import org.apache.parquet.io.{InputFile, SeekableInputStream}
import io.superspark.parquet.ParquetFooterException
import io.superspark.parquet.footer.{FallbackReason, FlatBufferFooterException, UnrepresentableFooterException}
import io.superspark.parquet.footer.codec.{FlatBufferBuild, FlatBufferToThrift, FlatSchema, FooterForm, FooterLayout, MetadataDiff, Projection, ThriftCompactToFlatBuffer, ThriftDiff}
import io.superspark.parquet.thrift.{MalformedThriftFooterException, ThriftExtras, ThriftFields, ThriftForParquetJava, UnrebuildableFooterException}

/**
 * A Parquet file's footer: the bytes its footer length covers (Thrift, plus the extension
 * when present), where they start in the file, and the file's length. `isFinal`: a final-form
 * (PAR3) file, whose footer is the FlatBuffer, its CRC, its size and the size's CRC.
 */
private[superspark] final case class FooterBytes(path: String, fileLength: Long, footerOffset: Long, footer: Array[Byte],
    isFinal: Boolean = false, footerStart: Long = -1L) {
  /**
   * Where the file's footer starts, the end of its data: `footerStart` when given (the
   * extension part alone is read from the Thrift footer's end), else `footerOffset` (these
   * bytes are the whole footer).
   */
  def dataEnd: Long = if (footerStart >= 0) footerStart else footerOffset

  /** The whole footer's bytes (Java callers, which do not see Scala's default arguments). */
  def this(path: String, fileLength: Long, footerOffset: Long, footer: Array[Byte], isFinal: Boolean) =
    this(path, fileLength, footerOffset, footer, isFinal, -1L)

  /** The footer + length + magic (or the final form's footer + PAR3): what `add`/`strip`/`migrate` rewrite. */
  def tailLength: Long = fileLength - footerOffset

  /**
   * [[FooterLayout.locate]] of these bytes (sizes, header and CRCs checked), computed once per
   * instance: the bytes are never changed once read, so a footer that several readers decode
   * (the tasks a footer cache serves, the ALP plan's three looks) has its CRC computed once.
   */
  lazy val located: FooterLayout.Located =
    if (isFinal) FooterLayout.locateFinal(footer) else FooterLayout.locate(footer)

  /**
   * The schema of the located FlatBuffer once its head was verified and found fit for its form
   * (`FooterReader.head`), null until then: kept per instance like [[located]], so a footer the
   * cache serves again is not verified again (its row groups' chunks are still checked as each
   * decode reads them). Immutable; a race computes it twice.
   */
  @volatile @transient private[footer] var verifiedHead: FlatSchema = _

  /** The key-value metadata of the verified head, read once per instance like [[verifiedHead]]. */
  @volatile @transient private[footer] var headKeyValues: java.util.Map[String, String] = _
}

/** Footer I/O: reading footers, and the new tails `add`/`strip`/`migrate` write ([[FooterRewrite]] writes them). */
private[superspark] object FooterFiles {

  /**
   * The object's ETag where the file system's status carries one (S3A, ABFS: Hadoop's `EtagSource`),
   * on `gs://` the object's generation ([[gcsGeneration]]), else "": what tells two versions under
   * one key apart (the footer cache's key, a rewrite's conditional write).
   */
  def versionOf(status: org.apache.hadoop.fs.FileStatus): String = status match {
    case e: org.apache.hadoop.fs.EtagSource => Option(e.getEtag).getOrElse("")
    case s if s.getClass.getName == GcsStatusClass => gcsGeneration(s)
    case _ => ""
  }

  /** The status class of Google's GCS connector (3.x, 4.x; package-private, not an `EtagSource`). */
  private val GcsStatusClass = "com.google.cloud.hadoop.fs.gcs.GoogleHadoopFileStatus"

  /**
   * `generation:N`, the object's content generation as the GCS connector's status holds it (its
   * `getFileInfo().getItemInfo().getContentGeneration()`, package-private methods read by
   * reflection; the same names in the shaded and the plain connector jar): GCS gives every write
   * of a key a new generation, so it tells versions apart as S3's ETag does. "" when the connector
   * has none (a directory, a connector without these methods).
   */
  private def gcsGeneration(status: org.apache.hadoop.fs.FileStatus): String = {
    def call(o: AnyRef, name: String): AnyRef = {
      val m = Iterator.iterate[Class[_]](o.getClass)(_.getSuperclass).takeWhile(_ != null)
        .flatMap(c => c.getDeclaredMethods.find(m => m.getName == name && m.getParameterCount == 0)).next()
      m.setAccessible(true)
      m.invoke(o)
    }
    try {
      call(call(call(status, "getFileInfo"), "getItemInfo"), "getContentGeneration") match {
        case g: java.lang.Long if g > 0 => s"generation:$g"
        case _ => ""
      }
    } catch { case _: ReflectiveOperationException | _: RuntimeException | _: LinkageError => "" }
  }

  /** Reads the footer given the file length and a positioned read (offset, length) => bytes. */
  def readFooter(path: String, fileLength: Long, readAt: (Long, Int) => Array[Byte]): FooterBytes = {
    if (fileLength < 12) {
      throw new ParquetFooterException(s"$path: $fileLength bytes is too short for a Parquet file (needs 12)")
    }
    val tail = readAt(fileLength - 8, 8)
    val magic = java.util.Arrays.copyOfRange(tail, 4, 8)
    if (java.util.Arrays.equals(magic, FooterLayout.FinalMagic)) return readFinalFooter(path, fileLength, tail, readAt)
    if (java.util.Arrays.equals(magic, FooterLayout.EncryptedMagic)) {
      throw new ParquetFooterException(s"$path: encrypted footer (magic PARE at byte ${fileLength - 4}) is not supported")
    }
    if (!java.util.Arrays.equals(magic, FooterLayout.Magic)) {
      throw new ParquetFooterException(s"$path: not a Parquet file (no PAR1 or PAR3 magic at byte ${fileLength - 4})")
    }
    val length = FooterLayout.getIntLE(tail, 0).toLong & 0xFFFFFFFFL
    val offset = fileLength - 8 - length
    if (offset < 4) {
      throw new ParquetFooterException(
        s"$path: footer length $length (at byte ${fileLength - 8}) exceeds the $fileLength-byte file")
    }
    if (length > Int.MaxValue - 16) {
      throw new ParquetFooterException(s"$path: footer length $length (at byte ${fileLength - 8}) is not supported")
    }
    FooterBytes(path, fileLength, offset, readAt(offset, length.toInt))
  }

  /**
   * A final-form (PAR3) footer: checks the size's CRC and the size against the file before
   * reading the FlatBuffer (never allocates from an unchecked size). Errors name the file,
   * the byte offset and the reason ([[FlatBufferFooterException]]): there is no Thrift
   * footer to fall back on.
   */
  private def readFinalFooter(path: String, fileLength: Long, last8: Array[Byte],
      readAt: (Long, Int) => Array[Byte]): FooterBytes = {
    val trailerAt = fileLength - FooterLayout.FinalTrailerSize
    if (fileLength < 4 + FooterLayout.FinalTrailerSize) {
      throw new FlatBufferFooterException(path, FallbackReason.SizeOutOfBounds(0, fileLength, fileLength), 0)
    }
    val trailer = readAt(trailerAt, 12) // crc32(fb), K, crc32(K)
    if (FooterLayout.crc32(trailer, 4, 4) != FooterLayout.getIntLE(trailer, 8)) {
      throw new FlatBufferFooterException(path, FallbackReason.SizeCrcMismatch(4), trailerAt)
    }
    val k = FooterLayout.getIntLE(trailer, 4).toLong & 0xFFFFFFFFL
    // The leading PAR1 and at least the FlatBuffer must fit before the trailer.
    if (k == 0 || k > trailerAt - 4 || k > Int.MaxValue - 16) {
      throw new FlatBufferFooterException(path, FallbackReason.SizeOutOfBounds(4, k, trailerAt - 4), trailerAt)
    }
    val offset = trailerAt - k
    FooterBytes(path, fileLength, offset, readAt(offset, (k + 12).toInt), isFinal = true)
  }

  def readFooter(file: Path): FooterBytes = {
    val ch = FileChannel.open(file, StandardOpenOption.READ)
    try readFooter(file.toString, ch.size(), (off, len) => readFully(ch, off, len, file.toString))
    finally ch.close()
  }

  /** For readers on Hadoop file systems (e.g. parquet-java's HadoopInputFile). */
  def readFooter(file: InputFile): FooterBytes = {
    val in = file.newStream()
    try readFooter(file, in) finally in.close()
  }

  /** The footer of `file` read through `in`, a stream of it the caller keeps (and closes). */
  def readFooter(file: InputFile, in: SeekableInputStream): FooterBytes =
    readFooter(file.toString, file.getLength, { (off, len) =>
      val out = new Array[Byte](len)
      in.seek(off)
      in.readFully(out)
      out
    })

  /** Reads `length` bytes at `offset`, 1 MiB at a time (the JDK reads into a heap array through a direct buffer of its size). */
  private def readFully(ch: FileChannel, offset: Long, length: Int, path: String): Array[Byte] = {
    val out = new Array[Byte](length)
    var off = 0
    var pos = offset
    while (off < length) {
      val buf = ByteBuffer.wrap(out, off, math.min(1 << 20, length - off))
      while (buf.hasRemaining) {
        val n = ch.read(buf, pos)
        if (n < 0) throw new EOFException(s"$path: unexpected end of file at byte $pos")
        pos += n
        off += n
      }
    }
    out
  }

  // ---- building and removing the extension ----

  /**
   * The file's Thrift footer without any extension of ours (as it was before `add`); in the
   * final form, rebuilt from the FlatBuffer ([[FlatBufferToThrift]]).
   */
  def thriftFooter(footer: FooterBytes): Array[Byte] = footer.located match {
    case FooterLayout.Present(ext) if ext.form == FooterForm.Final =>
      FlatBufferToThrift.rebuild(ByteBuffer.wrap(footer.footer, ext.flatBufferOffset, ext.flatBufferLength).slice())
    case FooterLayout.Present(ext) => ext.thriftFooter(footer.footer)
    case FooterLayout.Absent => footer.footer
    case FooterLayout.Corrupt(reason, FooterForm.Final) =>
      throw new FlatBufferFooterException(footer.path, reason, footer.footerOffset)
    case FooterLayout.Corrupt(reason, _) =>
      // Our UUID, damaged sizes or CRCs: delimit the field by parsing the Thrift instead.
      val field = try ThriftFields.extensionField(footer.footer) catch { case _: Exception => None }
      field match {
        case Some((at, true)) =>
          val out = java.util.Arrays.copyOf(footer.footer, at + 1)
          out(at) = 0
          out
        case _ => throw new ParquetFooterException(
          s"${footer.path}: carries a damaged footer extension (footer at byte ${footer.footerOffset}): $reason; " +
            "its Thrift part cannot be delimited")
      }
  }

  /** The form a footer is in (a damaged extension counts as the form its UUID or magic names). */
  def formOf(footer: FooterBytes): FooterForm = footer.located match {
    case FooterLayout.Absent => FooterForm.Plain
    case FooterLayout.Present(ext) => ext.form
    case FooterLayout.Corrupt(_, form) => form
  }

  /**
   * The FlatBuffer for a Thrift footer, checked to carry all of it; refuses otherwise (nothing
   * half-right is written). The check: the Thrift bytes rebuilt from the FlatBuffer
   * ([[FlatBufferToThrift]]) equal `thrift`. When they differ (a writer whose Thrift encoding
   * is not canonical, see docs/parquet-footer.md), the FlatBuffer's decode is compared with
   * parquet-java's own reading of the Thrift footer instead, field by field ([[MetadataDiff]],
   * [[ThriftDiff]]). `requireRebuild` (the final form): refuses a FlatBuffer from which no
   * Thrift footer can be rebuilt, since the final form keeps no other.
   */
  def buildFlatBuffer(path: String, thrift: Array[Byte], requireRebuild: Boolean = false): Array[Byte] =
    buildChecked(thrift, requireRebuild).flatBuffer

  /** A checked FlatBuffer; `exact`: the Thrift footer rebuilt from it is `thrift`, byte for byte. */
  final case class Built(flatBuffer: Array[Byte], exact: Boolean)

  private def buildChecked(thrift: Array[Byte], requireRebuild: Boolean,
      extensions: Seq[FlatBufferBuild.FooterExtension] = Nil, threads: Int = 1): Built =
    transcodedExactly(thrift, extensions, threads).getOrElse(buildThroughParquetJava(thrift, requireRebuild, extensions))

  /**
   * Footers from this size on have their rebuild compared on `threads` threads (by ranges of
   * row groups, [[FlatBufferToThrift.rebuildsExactly]]); below it a thread costs more than it saves.
   */
  val ParallelRebuildMinBytes: Int = 1 << 20

  /** The threads the command-line tools give the rebuild check: two when there are two cores. */
  def toolThreads: Int = math.min(2, Runtime.getRuntime.availableProcessors)

  private def sizeHint(thrift: Array[Byte]): Int = math.min(thrift.length.toLong * 7 / 4, Int.MaxValue / 2L).toInt

  /**
   * The fast path: the FlatBuffer transcoded from the Thrift bytes ([[ThriftCompactToFlatBuffer]]),
   * kept only when the Thrift rebuilt from it is `thrift`, byte for byte (then it carries all of
   * it). None when the bytes differ or the transcoder refused or failed: the caller then takes
   * parquet-java's path, which decides and words the refusals. A footer of
   * [[ParallelRebuildMinBytes]] or more is rebuilt and compared on `threads` threads.
   */
  private def transcodedExactly(thrift: Array[Byte], extensions: Seq[FlatBufferBuild.FooterExtension],
      threads: Int): Option[Built] =
    try {
      val fb = ThriftCompactToFlatBuffer.convert(thrift, extensions, sizeHint(thrift))
      val parts = if (thrift.length >= ParallelRebuildMinBytes) threads else 1
      if (FlatBufferToThrift.rebuildsExactly(fb, thrift, parts)) Some(Built(fb, exact = true)) else None
    } catch {
      case _: MalformedThriftFooterException | _: UnrepresentableFooterException | _: UnrebuildableFooterException => None
    }

  private def buildThroughParquetJava(thrift: Array[Byte], requireRebuild: Boolean,
      extensions: Seq[FlatBufferBuild.FooterExtension]): Built = {
    val tmd = try ThriftForParquetJava.parse(thrift) catch {
      case e: Exception => throw new UnrepresentableFooterException(s"parquet-java cannot read this footer: ${e.getMessage}")
    }
    val (fbBytes, rebuilt) = convertAndRebuild(tmd, thrift, extensions)
    rebuilt match {
      case Right(bytes) if java.util.Arrays.equals(bytes, thrift) => Built(fbBytes, exact = true)
      case Left(reason) if requireRebuild =>
        throw new UnrepresentableFooterException(s"no Thrift footer can be rebuilt from the FlatBuffer: $reason")
      case _ =>
        crossCheck(tmd, fbBytes)
        Built(fbBytes, exact = false)
    }
  }

  /**
   * Refuses a footer that carries a field-32767 extension of someone else. Only footers that
   * did not rebuild exactly need the scan: a rebuild never writes field 32767.
   */
  private def refuseForeignExtension(thrift: Array[Byte], built: Built, why: String): Unit = if (!built.exact) {
    val foreign = try ThriftFields.hasExtensionField(thrift) catch {
      case e: Exception => throw new UnrepresentableFooterException(s"unreadable Thrift footer: ${e.getMessage}")
    }
    if (foreign) {
      throw new UnrepresentableFooterException("the footer already carries a field-32767 extension that is not " +
        s"ours (unknown UUID); $why")
    }
  }

  /**
   * The FlatBuffer of a parsed Thrift footer and the Thrift bytes rebuilt from it (or why
   * none). When they differ from `thrift`, the fields parquet-java's parser dropped but the
   * FlatBuffer keeps ([[ThriftExtras]]) are read from the bytes and the conversion is redone.
   */
  def convertAndRebuild(tmd: org.apache.parquet.format.FileMetaData, thrift: Array[Byte],
      extensions: Seq[FlatBufferBuild.FooterExtension] = Nil): (Array[Byte], Either[String, Array[Byte]]) = {
    def attempt(extras: ThriftExtras) = {
      val fb = ThriftCompactToFlatBuffer.convertParsed(tmd, extensions, extras, sizeHint(thrift))
      (fb, try Right(FlatBufferToThrift.rebuild(fb)) catch { case e: UnrebuildableFooterException => Left(e.reason) })
    }
    val first = attempt(ThriftExtras.Empty)
    if (first._2.exists(java.util.Arrays.equals(_, thrift))) first
    else {
      val extras = try ThriftExtras.scan(thrift) catch { case _: Exception => ThriftExtras.Empty }
      if (extras.isEmpty) first else attempt(extras)
    }
  }

  /** The FlatBuffer decodes to exactly what parquet-java reads from the Thrift footer `tmd`. */
  private def crossCheck(tmd: org.apache.parquet.format.FileMetaData, fbBytes: Array[Byte]): Unit = {
    // Built the way readParquetMetadata builds it, row-index offsets included.
    val rowIndexOffsets = new java.util.IdentityHashMap[org.apache.parquet.format.RowGroup, java.lang.Long]()
    if (tmd.getRow_groups != null) {
      var sum = 0L
      tmd.getRow_groups.forEach { rg => rowIndexOffsets.put(rg, sum); sum += rg.getNum_rows }
    }
    val expected = try FooterReader.converter().fromParquetMetadata(tmd, null, false, rowIndexOffsets) catch {
      case e: Exception => throw new UnrepresentableFooterException(s"parquet-java cannot read this footer: ${e.getMessage}")
    }
    // Eager statistics: the whole buffer verified before ThriftDiff reads it.
    FooterReader.decodeFlatBuffer(ByteBuffer.wrap(fbBytes), Projection(lazyStatistics = false)) match {
      case Left(reason) => throw new UnrepresentableFooterException(s"the FlatBuffer does not decode ($reason)")
      case Right(actual) =>
        MetadataDiff.diff(actual, expected).orElse(ThriftDiff.diff(tmd, ByteBuffer.wrap(fbBytes))).foreach { d =>
          throw new UnrepresentableFooterException(s"the FlatBuffer would differ from the Thrift footer: $d")
        }
    }
  }

  /**
   * Largest footer other readers accept: parquet-java reads the footer as one Thrift message
   * of at most 100 MiB by default (Arrow C++ caps one binary field at 100 MB). An extension
   * that pushes a footer past it would make the file unreadable for them, so it is refused.
   */
  val MaxFooterBytes: Long = 100L * 1024 * 1024

  /**
   * The new tail (footer + length + magic) with the extension, in the private or intermediate
   * form. `threads`: for the rebuild check of a large footer (the command-line tools give
   * [[toolThreads]]; a Spark task keeps to its own core).
   */
  def extendedTail(path: String, thrift: Array[Byte], form: FooterForm = FooterForm.Private,
      extensions: Seq[FlatBufferBuild.FooterExtension] = Nil, threads: Int = 1): Array[Byte] = {
    val built = buildChecked(thrift, requireRebuild = false, extensions, threads)
    refuseForeignExtension(thrift, built, "the extension mechanism allows only one")
    val length = FooterLayout.extendedLength(thrift, built.flatBuffer)
    if (length > MaxFooterBytes) {
      throw new UnrepresentableFooterException(s"the footer with the extension would be $length bytes, " +
        s"more than the $MaxFooterBytes that parquet-java and Arrow C++ read by default (Thrift message limit)")
    }
    FooterLayout.extendedTail(thrift, built.flatBuffer, form)
  }

  /**
   * The tail (everything from the footer start) of a file in `form`, given its plain Thrift
   * footer: Thrift + length + PAR1 (plain), with the extension (private, intermediate), or
   * FlatBuffer + CRCs + size + PAR3 (final). `threads` as for [[extendedTail]].
   */
  def tailFor(path: String, thrift: Array[Byte], form: FooterForm,
      extensions: Seq[FlatBufferBuild.FooterExtension] = Nil, threads: Int = 1): Array[Byte] = form match {
    case FooterForm.Plain => withLengthAndMagic(thrift)
    case FooterForm.Private | FooterForm.Intermediate => extendedTail(path, thrift, form, extensions, threads)
    case FooterForm.Final =>
      val built = buildChecked(thrift, requireRebuild = true, extensions, threads)
      refuseForeignExtension(thrift, built, "the final form has no Thrift footer to keep it in")
      FooterLayout.finalTail(built.flatBuffer)
  }

  def withLengthAndMagic(footer: Array[Byte]): Array[Byte] = {
    val out = java.util.Arrays.copyOf(footer, footer.length + 8)
    System.arraycopy(FooterLayout.tail(footer.length), 0, out, footer.length, 8)
    out
  }
}
