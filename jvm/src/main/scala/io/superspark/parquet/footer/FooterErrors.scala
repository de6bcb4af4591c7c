package io.superspark.parquet.footer

import java.io.IOException

/**
 * Why a reader did not use a file's FlatBuffer footer and fell back to the Thrift one.
 * Offsets are relative to the start of the footer (the bytes the Parquet footer length
 * covers); `FooterReader` adds the file offset of the footer when it reports them.
 */
sealed abstract class FallbackReason(val code: String) {
  def message: String
  override def toString: String = s"$code: $message"
}

object FallbackReason {
  final case class SizeCrcMismatch(offset: Int) extends FallbackReason("size_crc_mismatch") {
    def message: String = s"crc32 of the FlatBuffer size at footer offset $offset does not match"
  }
  final case class SizeOutOfBounds(offset: Int, size: Long, available: Long)
      extends FallbackReason("size_out_of_bounds") {
    def message: String =
      s"FlatBuffer size $size at footer offset $offset does not fit the $available bytes before it"
  }
  final case class HeaderMismatch(offset: Int) extends FallbackReason("header_mismatch") {
    def message: String =
      s"no field header 08 FF FF 01 with the matching ULEB128 size at footer offset $offset"
  }
  final case class FlatBufferCrcMismatch(offset: Int, length: Int)
      extends FallbackReason("flatbuffer_crc_mismatch") {
    def message: String = s"crc32 of the $length-byte FlatBuffer at footer offset $offset does not match"
  }
  final case class MalformedFlatBuffer(offset: Int, detail: String)
      extends FallbackReason("malformed_flatbuffer") {
    def message: String = s"FlatBuffer at footer offset $offset is malformed: $detail"
  }
  final case class Undecodable(detail: String) extends FallbackReason("undecodable") {
    def message: String = s"FlatBuffer does not decode to Parquet metadata: $detail"
  }
}

/** A Parquet footer that cannot be read at all (neither from the FlatBuffer nor Thrift). */
class ParquetFooterException(message: String, cause: Throwable = null)
    extends IOException(message, cause)

/** With `strict`, a file whose FlatBuffer footer is present but unusable. */
class FlatBufferFooterException(val file: String, val reason: FallbackReason, val footerOffset: Long)
    extends ParquetFooterException(
      s"$file: FlatBuffer footer extension unusable (footer at byte $footerOffset): $reason")

/** A footer the FlatBuffer cannot represent faithfully: nothing is written. */
class UnrepresentableFooterException(val reason: String)
    extends ParquetFooterException(s"footer cannot be represented as a FlatBuffer: $reason")

/**
 * Why Thrift compact footer bytes could not be read ([[ThriftCompactReader]]); `offset` is
 * relative to the start of the Thrift footer.
 */
sealed abstract class ThriftFormatReason(val code: String) {
  def offset: Int
  def message: String
  override def toString: String = s"$code at Thrift footer offset $offset: $message"
}

object ThriftFormatReason {
  final case class Truncated(offset: Int, needed: Long, available: Int) extends ThriftFormatReason("truncated") {
    def message: String = s"needs $needed bytes, $available remain"
  }
  final case class BadVarint(offset: Int) extends ThriftFormatReason("bad_varint") {
    def message: String = "varint longer than 10 bytes, or an i32 wider than 32 bits"
  }
  final case class BadType(offset: Int, compactType: Int) extends ThriftFormatReason("bad_type") {
    def message: String = s"unknown compact type $compactType"
  }
  final case class UnexpectedType(offset: Int, struct: String, field: Int, compactType: Int)
      extends ThriftFormatReason("unexpected_type") {
    def message: String = s"$struct field $field has compact type $compactType"
  }
  final case class MissingField(offset: Int, struct: String, field: String) extends ThriftFormatReason("missing_field") {
    def message: String = s"$struct ends without its required field $field"
  }
  final case class TooDeep(offset: Int, limit: Int) extends ThriftFormatReason("too_deep") {
    def message: String = s"structs nested deeper than $limit"
  }
  final case class BadSize(offset: Int, size: Long) extends ThriftFormatReason("bad_size") {
    def message: String = s"negative or oversized length $size"
  }
  final case class TrailingBytes(offset: Int, count: Int) extends ThriftFormatReason("trailing_bytes") {
    def message: String = s"$count bytes after the FileMetaData struct"
  }
}

/** Thrift compact footer bytes that are not a well-formed `FileMetaData`. */
class MalformedThriftFooterException(val reason: ThriftFormatReason)
    extends ParquetFooterException(s"malformed Thrift footer: $reason")

/**
 * A footer rewrite refused before the file was touched: another run holds it, it changed since it was
 * read, it belongs to a Delta table, or the requested way of writing is impossible there ([[FooterRewrite]]).
 */
class RewriteRefusedException(val reason: String) extends ParquetFooterException(reason)
