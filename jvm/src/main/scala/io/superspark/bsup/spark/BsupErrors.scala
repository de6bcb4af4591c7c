package io.superspark.bsup.spark

import io.superspark.bsup.SuperType
import io.superspark.errors.{SuperSparkErrors, SuperSparkIllegalArgumentException}
import org.apache.spark.{QueryContext, SparkException}
import org.apache.spark.sql.types.{DataType, Decimal}

/**
 * The `bsup` data source's own error classes, declared in the resource
 * `error/superspark-error-conditions.json` (with every other condition of superspark) and formatted by Spark's error-class reader, so that they
 * carry a condition, message parameters and an SQLSTATE like Spark's own errors.
 */
private[superspark] object BsupErrors {
  private def message(condition: String, params: Map[String, String]): String = SuperSparkErrors.message(condition, params)

  /** An error raised while writing (thrown inside a task, Spark wraps it in TASK_WRITE_FAILED). */
  final class BsupWriteException(condition: String, params: Map[String, String])
      extends SparkException(message(condition, params), null, Some(condition), params, Array.empty[QueryContext]) {
    // The SQLSTATE of our own condition (the constructor taking it is not on every Spark line).
    override def getSqlState: String = SuperSparkErrors.sqlState(condition)
  }

  private def quoted(column: String): String = s"`$column`"

  /** A bad option value (an IllegalArgumentException, as Spark's own sources raise for options). */
  def invalidOption(option: String, expected: String, value: String): SuperSparkIllegalArgumentException =
    new SuperSparkIllegalArgumentException("BSUP_INVALID_OPTION",
      Map("option" -> s"'$option'", "expected" -> expected, "value" -> s"'$value'"))

  def nullWithoutUnion(column: String, t: SuperType, dt: DataType): BsupWriteException =
    new BsupWriteException("BSUP_NOT_READABLE_BY_SUPERDB.NULL_WITHOUT_UNION",
      Map("column" -> quoted(column), "sparkType" -> dt.catalogString, "superType" -> t.toString))

  def valueOutOfRange(column: String, value: String, t: SuperType, dt: DataType, range: String): BsupWriteException =
    new BsupWriteException("BSUP_VALUE_OUT_OF_RANGE",
      Map("column" -> quoted(column), "sparkType" -> dt.catalogString, "superType" -> t.toString,
        "value" -> value, "range" -> range))

  def decimalNotExact(column: String, v: Decimal, t: SuperType, dt: DataType): BsupWriteException =
    new BsupWriteException("BSUP_NOT_READABLE_BY_SUPERDB.DECIMAL_NOT_EXACT",
      Map("column" -> quoted(column), "sparkType" -> dt.catalogString, "superType" -> t.toString,
        "value" -> v.toString))

  def unreadableType(column: String, t: SuperType, dt: DataType, unreadable: SuperType): BsupWriteException =
    new BsupWriteException("BSUP_NOT_READABLE_BY_SUPERDB.TYPE",
      Map("column" -> quoted(column), "sparkType" -> dt.catalogString, "superType" -> t.toString,
        "unreadable" -> unreadable.toString))

  def nameRedefined(column: String, t: SuperType, dt: DataType, name: String, first: SuperType,
      again: SuperType): BsupWriteException =
    new BsupWriteException("BSUP_NAME_REDEFINED",
      Map("column" -> quoted(column), "sparkType" -> dt.catalogString, "superType" -> t.toString,
        "name" -> s"'$name'", "first" -> first.toString, "again" -> again.toString))

  /** Why a Spark column cannot be written as a Super type: `MISMATCH`, `RECURSIVE` or `FUSION`. */
  def cannotWriteType(reason: String, column: String, t: SuperType, dt: DataType): BsupWriteException =
    new BsupWriteException(s"BSUP_CANNOT_WRITE_TYPE.$reason",
      Map("column" -> quoted(column), "sparkType" -> dt.catalogString, "superType" -> t.toString))

  /** A value that is not `expected` (e.g. "an IP address"), which the column's Super type needs. */
  def invalidValue(column: String, value: String, expected: String, t: SuperType, dt: DataType): BsupWriteException =
    new BsupWriteException("BSUP_INVALID_VALUE",
      Map("column" -> quoted(column), "sparkType" -> dt.catalogString, "superType" -> t.toString,
        "value" -> value, "expected" -> expected))
}
