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
    s"[$condition] ${conditions.getErrorMessage(condition, params)} SQLSTATE: ${conditions.getSqlState(condition)}"

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
