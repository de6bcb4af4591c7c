package io.superspark.parquet.alp

import java.io.IOException

import io.superspark.errors.{SuperSparkErrors, SuperSparkThrowable}

/**
 * Why an ALP page (parquet-format `AlpEncoding.md`, `Encoding` ALP = 10) cannot be decoded.
 * Offsets are byte offsets from the start of the ALP data (the first byte of its 7-byte header).
 */
private[superspark] sealed abstract class AlpErrorReason(val code: String) extends Serializable {
  def offset: Long
  def message: String
  override def toString: String = s"$code at ALP offset $offset: $message"
}

private[superspark] object AlpErrorReason {
  final case class Truncated(offset: Long, needed: Long, available: Long) extends AlpErrorReason("truncated") {
    def message: String = s"needs $needed bytes, only $available remain"
  }
  final case class UnsupportedMode(offset: Long, field: String, value: Int)
      extends AlpErrorReason("unsupported_mode") {
    def message: String = s"$field $value is not supported (only 0)"
  }
  final case class BadVectorSize(offset: Long, logVectorSize: Int) extends AlpErrorReason("bad_vector_size") {
    def message: String = s"log_vector_size $logVectorSize is outside [3, 15]"
  }
  final case class BadElementCount(offset: Long, count: Long, detail: String)
      extends AlpErrorReason("bad_element_count") {
    def message: String = s"num_elements $count: $detail"
  }
  final case class BadVectorOffset(offset: Long, vector: Int, value: Long, expected: Long)
      extends AlpErrorReason("bad_vector_offset") {
    def message: String = s"offset of vector $vector is $value, expected $expected"
  }
  final case class BadExponent(offset: Long, exponent: Int, factor: Int, maxExponent: Int)
      extends AlpErrorReason("bad_exponent") {
    def message: String = s"exponent $exponent / factor $factor outside 0 <= factor <= exponent <= $maxExponent"
  }
  final case class BadBitWidth(offset: Long, bitWidth: Int, max: Int) extends AlpErrorReason("bad_bit_width") {
    def message: String = s"bit_width $bitWidth exceeds $max"
  }
  final case class BadExceptionCount(offset: Long, count: Int, vectorLength: Int)
      extends AlpErrorReason("bad_exception_count") {
    def message: String = s"num_exceptions $count exceeds the vector's $vectorLength values"
  }
  final case class BadExceptionPosition(offset: Long, position: Int, vectorLength: Int)
      extends AlpErrorReason("bad_exception_position") {
    def message: String = s"exception position $position is outside the vector's $vectorLength values"
  }
  final case class TrailingBytes(offset: Long, count: Long) extends AlpErrorReason("trailing_bytes") {
    def message: String = s"$count bytes follow the last vector"
  }
}

/** ALP data that does not decode; `where` names the file/column/page when the caller knows it. */
private[superspark] class AlpDecodeException(val reason: AlpErrorReason, val where: String = "")
    extends IOException(SuperSparkErrors.message("SUPERSPARK_ALP_DATA_UNUSABLE", AlpErrorParams(where, reason.toString)))
    with SuperSparkThrowable {
  def condition: String = "SUPERSPARK_ALP_DATA_UNUSABLE"
  def params: Map[String, String] = AlpErrorParams(where, reason.toString)
  def at(location: String): AlpDecodeException = new AlpDecodeException(reason, location)
}

/** The message parameters of the ALP conditions: `where` (file, column, page; with ": " when known) and the reason. */
private[alp] object AlpErrorParams {
  def apply(where: String, reason: String): Map[String, String] =
    Map("where" -> (if (where.isEmpty) "" else s"$where: "), "reason" -> reason)
}
