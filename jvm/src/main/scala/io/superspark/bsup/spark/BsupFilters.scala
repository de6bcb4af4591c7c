package io.superspark.bsup.spark

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.sources._
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String

/**
 * Filters pushed by Spark on top-level columns of atomic types, compiled to a predicate over
 * the row being built. The scan converts the filtered columns of a record first and converts
 * the rest only when the predicate holds. Spark evaluates every filter again after the scan,
 * so a filter (or a conjunct) that is not supported is simply left out; a supported one must
 * never reject a row that SQL would keep: comparisons with null are false, and `Not` is not
 * supported (in two-valued logic it could turn an unknown into true, which is only safe, or
 * the reverse).
 */
private[superspark] object BsupFilters {
  type Pred = InternalRow => Boolean

  final case class Compiled(ordinals: Set[Int], pred: Pred)

  def compile(filters: Seq[Filter], schema: StructType): Option[Compiled] = {
    val used = scala.collection.mutable.Set[Int]()
    val preds = filters.flatMap(f => translate(f, schema, used))
    if (preds.isEmpty) None
    else {
      val all = preds.toArray
      Some(Compiled(used.toSet, row => {
        var i = 0
        while (i < all.length && all(i)(row)) i += 1
        i == all.length
      }))
    }
  }

  private def translate(f: Filter, schema: StructType, used: scala.collection.mutable.Set[Int]): Option[Pred] = {
    def col(name: String): Option[(Int, DataType)] = {
      val o = schema.fieldNames.indexOf(name)
      if (o < 0) None else Some((o, schema.fields(o).dataType)).filter(x => comparable(x._2))
    }
    def cmp(name: String, value: Any)(test: Int => Boolean): Option[Pred] =
      for ((o, dt) <- col(name); c <- comparator(dt, o, value)) yield {
        used += o
        (row: InternalRow) => !row.isNullAt(o) && test(c(row))
      }
    f match {
      case EqualTo(a, v) => cmp(a, v)(_ == 0)
      case EqualNullSafe(a, v) if v == null =>
        col(a).map { case (o, _) => used += o; (row: InternalRow) => row.isNullAt(o) }
      case EqualNullSafe(a, v) => cmp(a, v)(_ == 0)
      case GreaterThan(a, v) => cmp(a, v)(_ > 0)
      case GreaterThanOrEqual(a, v) => cmp(a, v)(_ >= 0)
      case LessThan(a, v) => cmp(a, v)(_ < 0)
      case LessThanOrEqual(a, v) => cmp(a, v)(_ <= 0)
      case In(a, vs) =>
        val ps = vs.filter(_ != null).map(v => cmp(a, v)(_ == 0))
        if (ps.isEmpty || ps.exists(_.isEmpty)) None
        else { val all = ps.flatten; Some(row => all.exists(_(row))) }
      case IsNull(a) => col(a).map { case (o, _) => used += o; (row: InternalRow) => row.isNullAt(o) }
      case IsNotNull(a) => col(a).map { case (o, _) => used += o; (row: InternalRow) => !row.isNullAt(o) }
      case StringStartsWith(a, v) => str(a, schema, used)(_.startsWith(UTF8String.fromString(v)))
      case StringEndsWith(a, v) => str(a, schema, used)(_.endsWith(UTF8String.fromString(v)))
      case StringContains(a, v) => str(a, schema, used)(_.contains(UTF8String.fromString(v)))
      case And(l, r) =>
        (translate(l, schema, used), translate(r, schema, used)) match {
          case (Some(x), Some(y)) => Some(row => x(row) && y(row))
          case (x, y) => x.orElse(y)
        }
      case Or(l, r) =>
        for (x <- translate(l, schema, used); y <- translate(r, schema, used)) yield (row: InternalRow) => x(row) || y(row)
      case _ => None
    }
  }

  private def str(a: String, schema: StructType, used: scala.collection.mutable.Set[Int])(
      test: UTF8String => Boolean): Option[Pred] = {
    val o = schema.fieldNames.indexOf(a)
    if (o < 0 || schema.fields(o).dataType != StringType) None
    else { used += o; Some(row => !row.isNullAt(o) && test(row.getUTF8String(o))) }
  }

  private def comparable(dt: DataType): Boolean = dt match {
    case ByteType | ShortType | IntegerType | LongType | FloatType | DoubleType | BooleanType => true
    case StringType => true // the default (binary) collation only: `==` excludes collated types
    case _ => false
  }

  /** Compares the row's value at `o` with `v`: a function giving its sign. */
  private def comparator(dt: DataType, o: Int, v: Any): Option[InternalRow => Int] = (dt, v) match {
    case (ByteType, n: java.lang.Number) if integral(n) => val x = n.longValue; Some(r => java.lang.Long.compare(r.getByte(o), x))
    case (ShortType, n: java.lang.Number) if integral(n) => val x = n.longValue; Some(r => java.lang.Long.compare(r.getShort(o), x))
    case (IntegerType, n: java.lang.Number) if integral(n) => val x = n.longValue; Some(r => java.lang.Long.compare(r.getInt(o), x))
    case (LongType, n: java.lang.Number) if integral(n) => val x = n.longValue; Some(r => java.lang.Long.compare(r.getLong(o), x))
    case (FloatType, n: java.lang.Float) => val x = n.doubleValue; Some(r => dcmp(r.getFloat(o).toDouble, x))
    case (DoubleType, n: java.lang.Double) => val x = n.doubleValue; Some(r => dcmp(r.getDouble(o), x))
    case (BooleanType, b: java.lang.Boolean) => val x = b.booleanValue; Some(r => java.lang.Boolean.compare(r.getBoolean(o), x))
    case (StringType, s: String) => val x = UTF8String.fromString(s); Some(r => r.getUTF8String(o).binaryCompare(x))
    case _ => None
  }

  private def integral(n: java.lang.Number): Boolean = n match {
    case _: java.lang.Byte | _: java.lang.Short | _: java.lang.Integer | _: java.lang.Long => true
    case _ => false
  }

  /** Spark's order for doubles: NaN equals NaN and is the largest; -0.0 equals 0.0. */
  private def dcmp(a: Double, b: Double): Int =
    if (a == b) 0 else java.lang.Double.compare(a, b)
}
