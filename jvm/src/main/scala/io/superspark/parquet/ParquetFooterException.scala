package io.superspark.parquet

import java.io.IOException

import io.superspark.errors.{SuperSparkErrors, SuperSparkThrowable}

/**
 * A Parquet footer that cannot be read, written or rewritten: the base of the footer layers'
 * errors, each of a condition declared in `error/superspark-error-conditions.json`. Thrown
 * directly, `SUPERSPARK_PARQUET_FOOTER_UNREADABLE` with the detail (which names the file and
 * the byte offset).
 */
private[superspark] class ParquetFooterException(val condition: String, val params: Map[String, String], cause: Throwable)
    extends IOException(SuperSparkErrors.message(condition, params), cause) with SuperSparkThrowable {
  def this(detail: String, cause: Throwable) =
    this("SUPERSPARK_PARQUET_FOOTER_UNREADABLE", Map("detail" -> detail), cause)
  def this(detail: String) = this(detail, null)
}
