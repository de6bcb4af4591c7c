package io.superspark.parquet.footer

import io.superspark.parquet.ParquetFooterException

/**
 * Why a reader did not use a file's FlatBuffer footer and fell back to the Thrift one.
 * Offsets are relative to the start of the footer (the bytes the Parquet footer length
 * covers); `FooterReader` adds the file offset of the footer when it reports them.
 */
private[superspark] sealed abstract class FallbackReason(val code: String) {
  def message: String
  override def toString: String = s"$code: $message"
}

private[superspark] object FallbackReason {
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

/** With `strict`, a file whose FlatBuffer footer is present but unusable. */
private[superspark] class FlatBufferFooterException(val file: String, val reason: FallbackReason, val footerOffset: Long)
    extends ParquetFooterException("SUPERSPARK_FOOTER_EXTENSION_UNUSABLE",
      Map("file" -> file, "footerOffset" -> footerOffset.toString, "reason" -> reason.toString), null)

/** A footer the FlatBuffer cannot represent faithfully: nothing is written. */
private[superspark] class UnrepresentableFooterException(val reason: String)
    extends ParquetFooterException("SUPERSPARK_FOOTER_UNREPRESENTABLE", Map("reason" -> reason), null)
