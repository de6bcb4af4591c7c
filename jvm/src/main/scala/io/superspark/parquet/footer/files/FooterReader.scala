package io.superspark.parquet.footer.files

import java.io.ByteArrayInputStream
import java.nio.ByteBuffer

import scala.jdk.CollectionConverters._

import org.apache.parquet.ParquetReadOptions
import org.apache.parquet.format.converter.ParquetMetadataConverter
import org.apache.parquet.hadoop.metadata.{BlockMetaData, ParquetMetadata}
import org.apache.parquet.schema.{GroupType, MessageType, Type}
import io.superspark.parquet.ParquetFooterException
import io.superspark.parquet.footer.{FallbackReason, FlatBufferFooterException}
import io.superspark.parquet.footer.codec.{FlatBufferDecoder, FlatBufferVerifier, FlatSchema, FooterForm, FooterLayout, Projection, RowGroupSelection, SchemaShare}
import io.superspark.parquet.thrift.ThriftForParquetJava

/** Where the metadata of a [[FooterReadResult]] came from. */
private[superspark] sealed abstract class FooterSource(val name: String) { override def toString: String = name }
private[superspark] object FooterSource {
  case object FlatBuffer extends FooterSource("flatbuffer")
  case object Thrift extends FooterSource("thrift")
}

/**
 * @param metadata what parquet-java's Thrift path would give, projected as asked.
 * @param source   FlatBuffer when the extension was present and usable.
 * @param fallback why a present extension was not used (None when used or absent).
 */
private[superspark] final case class FooterReadResult(metadata: ParquetMetadata, source: FooterSource, fallback: Option[FallbackReason])

/**
 * Reads Parquet metadata from a file's footer bytes: from the FlatBuffer extension when it is
 * present and passes the size CRC, FlatBuffer CRC and structure checks; otherwise from the
 * Thrift footer with parquet-java's `ParquetMetadataConverter`, saying why in the result.
 * With `strict`, an extension that is present but unusable is an error instead.
 *
 * This is the entry point for readers (the Spark reader uses it through [[FooterFiles]]).
 */
private[superspark] object FooterReader {

  private lazy val log = org.slf4j.LoggerFactory.getLogger(getClass)

  /**
   * For readers (e.g. a Spark scan): the `ParquetMetadata` of a file, from its FlatBuffer
   * footer when usable, else from Thrift with a logged warning saying why (an error with
   * `strict`). The metadata keeps the footer bytes alive while chunks decode their
   * statistics lazily.
   */
  def readParquetMetadata(file: org.apache.parquet.io.InputFile, projection: Projection = Projection.Full,
      strict: Boolean = false): ParquetMetadata = {
    val footer = FooterFiles.readFooter(file)
    val result = read(footer, projection, strict)
    result.fallback.foreach { reason =>
      log.warn(s"${footer.path}: FlatBuffer footer not used (footer at byte ${footer.footerOffset}), " +
        s"read the Thrift footer instead: $reason")
    }
    result.metadata
  }

  /**
   * The metadata of a footer in any form. Private and intermediate forms fall back to their
   * Thrift footer when the FlatBuffer is unusable (an error with `strict`); a final-form
   * footer has none, so anything wrong with it is a [[FlatBufferFooterException]] naming the
   * file, the byte offset and the reason.
   */
  def read(footer: FooterBytes, projection: Projection = Projection.Full, strict: Boolean = false): FooterReadResult = {
    footer.located match {
      case FooterLayout.Absent => FooterReadResult(thrift(footer, projection), FooterSource.Thrift, None)
      case FooterLayout.Corrupt(reason, form) => fallBack(footer, projection, strict || form == FooterForm.Final, reason)
      case FooterLayout.Present(ext) =>
        val buf = ByteBuffer.wrap(footer.footer, ext.flatBufferOffset, ext.flatBufferLength).slice()
        decodeFlatBuffer(buf, projection, ext.form, footer) match {
          case Right(md) => FooterReadResult(md, FooterSource.FlatBuffer, None)
          case Left(reason) => fallBack(footer, projection, strict || ext.form == FooterForm.Final,
            shift(reason, ext.flatBufferOffset))
        }
    }
  }

  /**
   * Why a FlatBuffer of `form` cannot be read as that form's schema, if so: the intermediate
   * and final forms need a v1 buffer (`schema_version` >= 1; higher versions are additive).
   */
  def schemaVersionProblem(md: io.superspark.parquet.footer.fbs.FileMetaData, form: FooterForm): Option[FallbackReason] =
    if (form == FooterForm.Private || (md.hasSchemaVersion && md.schemaVersion >= 1)) None
    else Some(FallbackReason.Undecodable(s"a $form-form FlatBuffer needs schema_version >= 1, found " +
      (if (md.hasSchemaVersion) md.schemaVersion.toString else "none")))

  /**
   * Verifies (as much as the projection reads) and decodes a FlatBuffer, or says why not. With
   * lazy statistics (the default) a chunk's statistics tables are verified when first read.
   */
  def decodeFlatBuffer(buf: ByteBuffer, projection: Projection = Projection.Full,
      form: FooterForm = FooterForm.Private): Either[FallbackReason, ParquetMetadata] =
    decodeFlatBuffer(buf, projection, form, null)

  /**
   * The same, for the FlatBuffer of `footer` (its located extension, of `form`), or of no
   * footer (null): the head's verification and the schema read from it are kept with the
   * footer instance ([[head]]), so a footer decoded again (a footer cache hit) verifies only
   * the row groups' chunks it reads, while it decodes them.
   */
  private[footer] def decodeFlatBuffer(buf: ByteBuffer, projection: Projection, form: FooterForm,
      footer: FooterBytes): Either[FallbackReason, ParquetMetadata] =
    head(buf, form, footer).flatMap { schema =>
      try {
        val md = FlatBufferDecoder.root(buf)
        val leaves = FlatBufferDecoder.selectLeaves(schema, projection)
        // Each column chunk is verified as it is decoded (lazy statistics: when first read).
        Right(FlatBufferDecoder.decode(md, schema, leaves, projection, checkUnread = true, keyValues(md, footer)))
      } catch {
        case m: FlatBufferVerifier.Malformed => Left(FallbackReason.MalformedFlatBuffer(m.offset, m.getMessage))
        // A sound buffer that is not valid Parquet metadata: parquet-java's builders and our
        // decoder reject it with runtime exceptions. Never propagated: the caller falls back.
        case e: RuntimeException => Left(FallbackReason.Undecodable(s"${e.getClass.getSimpleName}: ${e.getMessage}"))
      }
    }

  /**
   * The head of a FlatBuffer of `form`: root, schema, key-value metadata and row-group tables
   * verified ([[FlatBufferVerifier.verifyHead]]), its schema version fit for the form, and its
   * schema read; a schema whose bytes repeat one read before (another file of the same table)
   * is that one, neither walked nor read again ([[SchemaShare.Footers]]). With a `footer` (whose
   * located FlatBuffer `buf` is), a sound head is kept with that instance
   * (`FooterBytes.verifiedHead`): its bytes never change, so the next decode of the same
   * instance skips these checks. A refusal is not kept (it is computed again).
   */
  private[footer] def head(buf: ByteBuffer, form: FooterForm, footer: FooterBytes): Either[FallbackReason, FlatSchema] = {
    val known = if (footer == null) null else footer.verifiedHead
    if (known != null) return Right(known)
    FlatBufferVerifier.verifyHead(buf, SchemaShare.Footers) match {
      case Left(reason) => Left(reason)
      case Right(headSchema) =>
        try {
          val md = FlatBufferDecoder.root(buf)
          schemaVersionProblem(md, form) match {
            case Some(reason) => Left(reason)
            case None =>
              val schema =
                if (headSchema.shared != null) headSchema.shared else SchemaShare.Footers.read(buf, headSchema)
              if (footer != null) footer.verifiedHead = schema
              Right(schema)
          }
        } catch {
          case e: RuntimeException => Left(FallbackReason.Undecodable(s"${e.getClass.getSimpleName}: ${e.getMessage}"))
        }
    }
  }

  /** The key-value metadata of `md`, the FlatBuffer of `footer` (null: none) with a verified head, read once per footer instance. */
  private[footer] def keyValues(md: io.superspark.parquet.footer.fbs.FileMetaData,
      footer: FooterBytes): java.util.Map[String, String] = {
    if (footer == null) return null
    var kv = footer.headKeyValues
    if (kv == null) {
      kv = java.util.Collections.unmodifiableMap(FlatBufferDecoder.keyValues(md))
      footer.headKeyValues = kv
    }
    kv
  }

  private[footer] def shift(reason: FallbackReason, by: Int): FallbackReason = reason match {
    case FallbackReason.MalformedFlatBuffer(at, d) => FallbackReason.MalformedFlatBuffer(at + by, d)
    case other => other
  }

  private[footer] def fallBack(footer: FooterBytes, projection: Projection, strict: Boolean, reason: FallbackReason) = {
    if (strict) throw new FlatBufferFooterException(footer.path, reason, footer.footerOffset)
    FooterReadResult(thrift(footer, projection), FooterSource.Thrift, Some(reason))
  }

  /**
   * parquet-java's converter as its readers build it (from read options: the no-argument
   * constructor of 1.17 leaves the Thrift message size limit at -1 and cannot read).
   */
  def converter(useSignedStringMinMax: Boolean = false): ParquetMetadataConverter =
    new ParquetMetadataConverter(if (useSignedStringMinMax) signedMinMaxOptions else defaultOptions)

  // Built once a JVM: ParquetReadOptions.builder() makes a Hadoop Configuration that parses
  // core-default.xml / core-site.xml on first use (several ms and MBs of garbage a footer
  // read: 20% of an ALP scan task's CPU when it was built per read). The options hold only values.
  private lazy val defaultOptions = ParquetReadOptions.builder().useSignedStringMinMax(false).build()
  private lazy val signedMinMaxOptions = ParquetReadOptions.builder().useSignedStringMinMax(true).build()

  /** parquet-java's own Thrift path, then the same projection. */
  def thrift(footer: FooterBytes, projection: Projection = Projection.Full): ParquetMetadata = {
    val filter = projection.rowGroups match {
      case RowGroupSelection.Range(s, e) => ParquetMetadataConverter.range(s, e)
      case _ => ParquetMetadataConverter.NO_FILTER
    }
    def readWith(bytes: Array[Byte]) =
      converter(projection.useSignedStringMinMax).readParquetMetadata(new ByteArrayInputStream(bytes), filter)
    val md = try {
      // An encoding (ALP = 10) or a logical type newer than parquet-java makes its converter
      // fail: it then reads a copy without them (ThriftForParquetJava). `readWith` runs
      // parquet-java's code only.
      try readWith(footer.footer) catch {
        case e: Exception if ThriftForParquetJava.isUnreadableByParquetJava(e) =>
          ThriftForParquetJava.readable(footer.footer).map(readWith).getOrElse(throw e)
      }
    } catch {
      case e: Exception => throw new ParquetFooterException(
        s"${footer.path}: cannot read the Thrift footer at byte ${footer.footerOffset}: ${e.getMessage}", e)
    }
    project(md, projection)
  }

  /** Applies a projection to metadata read in full (same result as a projected decode). */
  def project(md: ParquetMetadata, projection: Projection): ParquetMetadata = {
    val byIndex = projection.rowGroups match {
      case RowGroupSelection.Indices(ix) => md.getBlocks.asScala.zipWithIndex.collect { case (b, i) if ix(i) => b }
      case _ => md.getBlocks.asScala
    }
    projection.columns match {
      case None => if (byIndex.size == md.getBlocks.size) md else new ParquetMetadata(md.getFileMetaData, byIndex.asJava)
      case Some(paths) =>
        val wanted = paths.map(_.toArray).filter(_.nonEmpty)
        def selected(path: Array[String]) =
          wanted.exists(w => w.length <= path.length && w.indices.forall(i => w(i) == path(i)))
        val schema = md.getFileMetaData.getSchema
        val pruned = new MessageType(schema.getName, prune(schema, Vector.empty, selected).asJava)
        val blocks = byIndex.map { b =>
          val nb = new BlockMetaData()
          nb.setRowCount(b.getRowCount)
          nb.setTotalByteSize(b.getTotalByteSize)
          nb.setPath(b.getPath)
          nb.setOrdinal(b.getOrdinal)
          nb.setRowIndexOffset(b.getRowIndexOffset)
          b.getColumns.asScala.filter(c => selected(c.getPath.toArray)).foreach(nb.addColumn)
          nb
        }
        val fm = md.getFileMetaData
        new ParquetMetadata(new org.apache.parquet.hadoop.metadata.FileMetaData(pruned, fm.getKeyValueMetaData,
          fm.getCreatedBy, fm.getEncryptionType, fm.getFileDecryptor), blocks.asJava)
    }
  }

  private def prune(group: GroupType, path: Vector[String], selected: Array[String] => Boolean): Seq[Type] =
    group.getFields.asScala.toSeq.flatMap { f =>
      val p = path :+ f.getName
      if (f.isPrimitive) { if (selected(p.toArray)) Some(f) else None }
      else {
        val kids = prune(f.asGroupType, p, selected)
        if (kids.isEmpty) None else Some(f.asGroupType.withNewFields(kids.asJava))
      }
    }
}
