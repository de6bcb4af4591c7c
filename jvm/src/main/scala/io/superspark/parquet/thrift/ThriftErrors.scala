package io.superspark.parquet.thrift

import io.superspark.parquet.ParquetFooterException

/**
 * Why Thrift compact footer bytes could not be read ([[ThriftCompactReader]]); `offset` is
 * relative to the start of the Thrift footer.
 */
private[superspark] sealed abstract class ThriftFormatReason(val code: String) {
  def offset: Int
  def message: String
  override def toString: String = s"$code at Thrift footer offset $offset: $message"
}

private[superspark] object ThriftFormatReason {
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
private[superspark] class MalformedThriftFooterException(val reason: ThriftFormatReason)
    extends ParquetFooterException("SUPERSPARK_MALFORMED_THRIFT_FOOTER", Map("reason" -> reason.toString), null)

/** A footer that cannot be written (or rebuilt from a FlatBuffer) as Thrift: why. */
private[superspark] class UnrebuildableFooterException(val reason: String)
    extends ParquetFooterException("SUPERSPARK_FOOTER_NOT_REBUILDABLE", Map("reason" -> reason), null)
