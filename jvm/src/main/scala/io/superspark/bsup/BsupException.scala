package io.superspark.bsup

import io.superspark.errors.{SuperSparkErrors, SuperSparkThrowable}

/**
 * A Super Binary input that does not follow the format (`BSUP_MALFORMED_INPUT`). `offset` is
 * the byte offset in the file (or stream) where the problem was found; for data inside a
 * compressed frame it is the offset of that frame, and `detail` then also names the offset
 * inside the decompressed payload. `text` is the condition's message alone
 * (`source: byte offset n: detail`), what a corrupt record or Spark's
 * `MALFORMED_RECORD_IN_PARSING` carries.
 */
private[superspark] class BsupException(val source: String, val offset: Long, val detail: String, cause: Throwable = null)
    extends RuntimeException(null: String, cause) with SuperSparkThrowable {
  def condition: String = BsupException.Condition
  def params: Map[String, String] = Map("source" -> source, "offset" -> offset.toString, "detail" -> detail)
  def text: String = SuperSparkErrors.text(condition, params)
  // Formatted when read: malformed input in PERMISSIVE mode raises one per bad record.
  override def getMessage: String = SuperSparkErrors.message(condition, params)
}

private[superspark] object BsupException {
  final val Condition = "BSUP_MALFORMED_INPUT"
}
