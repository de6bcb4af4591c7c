package io.superspark.errors

import org.apache.spark.{ErrorClassesJsonReader, SparkThrowable}

/**
 * superspark's error conditions, all declared in one resource,
 * `error/superspark-error-conditions.json`, and formatted by Spark's own error-class reader: each
 * error a user sees carries a condition, its message parameters and an SQLSTATE, like Spark's
 * (docs/errors.md lists them). The codecs keep their reason types (`ThriftFormatReason`,
 * `FallbackReason`, `AlpErrorReason`...); the exceptions that carry them out are
 * [[SuperSparkThrowable]]s.
 */
private[superspark] object SuperSparkErrors {
  final val Resource = "error/superspark-error-conditions.json"

  private lazy val conditions = new ErrorClassesJsonReader(Seq(getClass.getClassLoader.getResource(Resource)))

  /** Spark's error text: `[CONDITION] message SQLSTATE: xxxxx`. */
  def message(condition: String, params: Map[String, String]): String =
    s"[$condition] ${text(condition, params)} SQLSTATE: ${conditions.getSqlState(condition)}"

  /** The condition's message alone, its parameters filled in (no condition name, no SQLSTATE). */
  def text(condition: String, params: Map[String, String]): String = conditions.getErrorMessage(condition, params)

  def sqlState(condition: String): String = conditions.getSqlState(condition)
}

/** An exception of ours that is a `SparkThrowable` of a condition declared in [[SuperSparkErrors.Resource]]. */
private[superspark] trait SuperSparkThrowable extends SparkThrowable {
  def condition: String
  def params: Map[String, String]

  override def getCondition: String = condition
  override def getMessageParameters: java.util.Map[String, String] = {
    val m = new java.util.HashMap[String, String]()
    params.foreach { case (k, v) => m.put(k, v) }
    m
  }
  override def getSqlState: String = SuperSparkErrors.sqlState(condition)
}

/**
 * A bad option, setting or argument value of a condition: an `IllegalArgumentException`, as
 * Spark's own sources raise for options.
 */
private[superspark] class SuperSparkIllegalArgumentException(val condition: String, val params: Map[String, String])
    extends IllegalArgumentException(SuperSparkErrors.message(condition, params)) with SuperSparkThrowable
