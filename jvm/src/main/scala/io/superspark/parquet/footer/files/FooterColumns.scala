package io.superspark.parquet.footer.files

import java.nio.ByteBuffer

import io.superspark.parquet.footer.FallbackReason
import io.superspark.parquet.footer.codec.{FlatBufferDecoder, FlatBufferVerifier, FooterForm, FooterLayout, Projection, RowGroupSelection}

/**
 * Additions for the Spark interceptor (io.superspark.parquet.interceptor), on top of
 * [[FooterReader]] and [[FooterFiles]]:
 *  - the top-level column names of an extension, to turn the columns a reader wants (matched
 *    case-insensitively, as Spark does by default) into the exact paths of a [[Projection]];
 *  - a schema-only read (schema, key-value metadata, created_by; no row group decoded or
 *    verified), for schema inference;
 *  - reading only the extension's bytes of a file (not the Thrift footer before them).
 */
private[superspark] object FooterColumns {
  /**
   * The names of the root's children (shared: read only), or None when the footer has no usable
   * extension (then read without a column projection). The head is verified and its schema read
   * through [[FooterReader.head]], so both are kept with the footer instance for the decode that
   * follows (verified and read once a file, not twice).
   */
  def topLevelNames(footer: FooterBytes): Option[Array[String]] = footer.located match {
    case FooterLayout.Present(ext) =>
      val buf = ByteBuffer.wrap(footer.footer, ext.flatBufferOffset, ext.flatBufferLength).slice()
      FooterReader.head(buf, ext.form, footer).toOption.map(_.topLevelNames())
    case _ => None
  }

  private val NoRowGroups = Projection(rowGroups = RowGroupSelection.Indices(Set.empty))

  /**
   * What `FooterReader.read(footer, Projection(rowGroups = Indices(Set.empty)), strict)`
   * returns, without verifying the row groups of the FlatBuffer (none is decoded): only its
   * head is verified. Fallback and strict behave as in [[FooterReader.read]].
   */
  def readSchemaOnly(footer: FooterBytes, strict: Boolean): FooterReadResult = footer.located match {
    case FooterLayout.Present(ext) =>
      val buf = ByteBuffer.wrap(footer.footer, ext.flatBufferOffset, ext.flatBufferLength).slice()
      val decoded = FooterReader.head(buf, ext.form, footer).flatMap { schema =>
        try {
          val md = FlatBufferDecoder.root(buf)
          Right(FlatBufferDecoder.decode(md, schema, FlatBufferDecoder.selectLeaves(schema, Projection.Full),
            NoRowGroups, checkUnread = false, FooterReader.keyValues(md, footer)))
        } catch {
          case m: FlatBufferVerifier.Malformed => Left(FallbackReason.MalformedFlatBuffer(m.offset, m.getMessage))
          case e: RuntimeException => Left(FallbackReason.Undecodable(s"${e.getClass.getSimpleName}: ${e.getMessage}"))
        }
      }
      decoded match {
        case Right(md) => FooterReadResult(md, FooterSource.FlatBuffer, None)
        case Left(reason) => FooterReader.fallBack(footer, NoRowGroups, strict || ext.form == FooterForm.Final,
          FooterReader.shift(reason, ext.flatBufferOffset))
      }
    case _ => FooterReader.read(footer, NoRowGroups, strict)
  }

  /**
   * The extension part of a file's footer alone (field header, size, FlatBuffer, trailer,
   * stop byte), as a [[FooterBytes]] whose offset is where that part starts in the file; None
   * when the footer's trailer does not name our extension or its sizes do not fit. Two reads:
   * the file's last [[TailRead]] bytes (the footer's length and magic, and the extension's
   * trailer), then the rest of the part before them: never the Thrift footer before it. On an
   * object store each read is one ranged GET (issue 31: reading the length, the trailer and the
   * part one after the other cost S3A's classic stream three GETs, each seek backwards a new
   * one). `readInto(offset, array, at, length)` reads `length` bytes of the file at `offset`
   * into `array` from `at`. The caller must still check the result (`FooterLayout.locate`
   * verifies header and CRCs) and read the whole footer when it is not sound.
   */
  def readExtensionOnly(path: String, fileLength: Long,
      readInto: (Long, Array[Byte], Int, Int) => Unit): Option[FooterBytes] = {
    if (fileLength < 12 + FooterLayout.MinExtendedFooter) return None
    val n = math.min(fileLength, TailRead.toLong).toInt
    val last = new Array[Byte](n)
    readInto(fileLength - n, last, 0, n)
    if (!java.util.Arrays.equals(last, n - 4, n, FooterLayout.Magic, 0, 4)) return None
    val footerLength = FooterLayout.getIntLE(last, n - 8).toLong & 0xFFFFFFFFL
    val footerOffset = fileLength - 8 - footerLength
    if (footerOffset < 4 || footerLength < FooterLayout.MinExtendedFooter) return None
    // stop byte, UUID, crc(K), K, crc(fb): the last 29 bytes of the footer.
    val trailer = java.util.Arrays.copyOfRange(last, n - 8 - 29, n - 8)
    if (trailer(28) != 0 || FooterLayout.formOfUuid(trailer, 12).isEmpty) return None
    val k = FooterLayout.getIntLE(trailer, 4).toLong & 0xFFFFFFFFL
    val partLength = FooterLayout.FieldHeader.length + FooterLayout.uleb128(k + FooterLayout.TrailerSize).length +
      k + FooterLayout.TrailerSize + 1
    if (k == 0 || partLength > footerLength || partLength > Int.MaxValue) return None
    val partOffset = fileLength - 8 - partLength
    // the part's bytes before the tail already read, read straight into the array the part is
    // kept in (at 10,000 columns a part is 27 MB: no second array of that size, no copy), then
    // those the tail holds
    val known = math.min(partLength, (n - 8).toLong).toInt
    val part = new Array[Byte](partLength.toInt)
    val before = partLength.toInt - known
    if (before > 0) readInto(partOffset, part, 0, before)
    System.arraycopy(last, n - 8 - known, part, before, known)
    Some(FooterBytes(path, fileLength, partOffset, part, footerStart = footerOffset))
  }

  /**
   * How many bytes at the end of a file [[readExtensionOnly]] reads first: the footer's length
   * and magic (8) and the extension's trailer (29), with room to spare. 64, as the footer
   * cache's tail check, so a small read stays small on a local disk.
   */
  val TailRead = 64
}
