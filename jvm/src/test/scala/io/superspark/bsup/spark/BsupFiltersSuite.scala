package io.superspark.bsup.spark

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.sources._
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String
import org.scalatest.funsuite.AnyFunSuite

class BsupFiltersSuite extends AnyFunSuite {
  private val schema = StructType.fromDDL("a long, s string, d double, m map<string,int>")
  private def row(a: java.lang.Long, s: String, d: java.lang.Double): InternalRow =
    InternalRow(a, if (s == null) null else UTF8String.fromString(s), d, null)

  private def eval(f: Filter, r: InternalRow): Option[Boolean] = BsupFilters.compile(Seq(f), schema).map(_.pred(r))

  test("comparisons are false on null, true only when SQL says true") {
    assert(eval(GreaterThan("a", 5L), row(6L, null, null)).contains(true))
    assert(eval(GreaterThan("a", 5L), row(5L, null, null)).contains(false))
    assert(eval(GreaterThan("a", 5L), row(null, null, null)).contains(false))
    assert(eval(EqualNullSafe("a", null), row(null, null, null)).contains(true))
    assert(eval(In("s", Array("x", null)), row(1L, "x", null)).contains(true))
    assert(eval(StringStartsWith("s", "ab"), row(1L, "abc", null)).contains(true))
    assert(eval(EqualTo("d", Double.NaN), row(1L, null, Double.NaN)).contains(true))
    assert(eval(EqualTo("d", 0.0), row(1L, null, -0.0)).contains(true))
    assert(eval(Or(IsNull("s"), EqualTo("a", 1L)), row(2L, null, null)).contains(true))
    assert(BsupFilters.compile(Seq(GreaterThan("a", 1L)), schema).get.ordinals == Set(0))
  }

  test("unsupported filters are left to Spark; a conjunct may be dropped, a disjunct may not") {
    assert(eval(Not(EqualTo("a", 1L)), row(1L, null, null)).isEmpty)
    assert(eval(IsNotNull("m"), row(1L, null, null)).isEmpty)
    assert(eval(EqualTo("nosuch", 1L), row(1L, null, null)).isEmpty)
    assert(eval(Or(EqualTo("a", 1L), Not(IsNull("s"))), row(2L, null, null)).isEmpty)
    assert(eval(And(EqualTo("a", 1L), Not(IsNull("s"))), row(2L, null, null)).contains(false))
    assert(eval(EqualTo("a", 1.5), row(1L, null, null)).isEmpty) // not an integral literal
  }
}
