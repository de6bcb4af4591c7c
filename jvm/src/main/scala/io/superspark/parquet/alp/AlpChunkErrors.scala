package io.superspark.parquet.alp

import java.io.IOException

import io.superspark.errors.{SuperSparkErrors, SuperSparkThrowable}

/**
 * Why an ALP column chunk ([[AlpChunk]]: Parquet data pages whose values are ALP = 10) or the
 * extension that points at it ([[AlpExtension]]) cannot be used. Offsets are byte offsets from
 * the start of the chunk (its first page header), or of the extension payload.
 */
private[superspark] sealed abstract class AlpChunkErrorReason(val code: String) extends Serializable {
  def offset: Long
  def message: String
  override def toString: String = s"$code at chunk offset $offset: $message"
}

private[superspark] object AlpChunkErrorReason {
  final case class Truncated(offset: Long, needed: Long, available: Long) extends AlpChunkErrorReason("truncated") {
    def message: String = s"needs $needed bytes, only $available remain"
  }
  final case class BadPageHeader(offset: Long, detail: String) extends AlpChunkErrorReason("bad_page_header") {
    def message: String = s"unreadable page header: $detail"
  }
  final case class UnexpectedPage(offset: Long, detail: String) extends AlpChunkErrorReason("unexpected_page") {
    def message: String = detail
  }
  final case class BadPageSize(offset: Long, field: String, value: Long, max: Long)
      extends AlpChunkErrorReason("bad_page_size") {
    def message: String = s"$field $value is outside [0, $max]"
  }
  final case class BadLevels(offset: Long, detail: String) extends AlpChunkErrorReason("bad_levels") {
    def message: String = s"definition levels: $detail"
  }
  final case class Decompression(offset: Long, detail: String) extends AlpChunkErrorReason("decompression") {
    def message: String = s"page body does not decompress: $detail"
  }
  final case class BadAlpBody(offset: Long, page: Int, inner: AlpErrorReason) extends AlpChunkErrorReason("bad_alp_body") {
    def message: String = s"page $page: ${inner.code} at ALP offset ${inner.offset}: ${inner.message}"
  }
  final case class CountMismatch(offset: Long, what: String, found: Long, expected: Long)
      extends AlpChunkErrorReason("count_mismatch") {
    def message: String = s"$what is $found, expected $expected"
  }
  final case class TrailingBytes(offset: Long, count: Long) extends AlpChunkErrorReason("trailing_bytes") {
    def message: String = s"$count bytes follow the last page"
  }
  final case class BadExtension(offset: Long, detail: String) extends AlpChunkErrorReason("bad_extension") {
    def message: String = s"ALP column extension: $detail"
  }
  final case class ChecksumMismatch(offset: Long, found: Int, expected: Int) extends AlpChunkErrorReason("checksum_mismatch") {
    def message: String = f"crc32 of the chunk is $found%08x, the extension says $expected%08x"
  }
}

/** An ALP chunk or extension that cannot be used; `where` names the file and column when known. */
private[superspark] class AlpChunkException(val reason: AlpChunkErrorReason, val where: String = "")
    extends IOException(SuperSparkErrors.message("SUPERSPARK_ALP_CHUNK_UNUSABLE", AlpErrorParams(where, reason.toString)))
    with SuperSparkThrowable {
  def condition: String = "SUPERSPARK_ALP_CHUNK_UNUSABLE"
  def params: Map[String, String] = AlpErrorParams(where, reason.toString)
  def at(location: String): AlpChunkException = new AlpChunkException(reason, location)
}
