package io.superspark.parquet.logicaltypes

import org.apache.spark.SparkThrowable
import org.apache.spark.sql.types.{ArrayType, BinaryType, MetadataBuilder, StructField, StructType}
import org.scalatest.funsuite.AnyFunSuite

/**
 * The write tags of a Spark schema that cannot be read: each is an `IllegalArgumentException` of
 * the condition `SUPERSPARK_INVALID_ARROW_NESTED_METADATA` (SQLSTATE 22032) naming the column.
 */
class ParquetLogicalTypesSuite extends AnyFunSuite {
  private def withNested(json: String) = StructType(Seq(StructField("ids", ArrayType(BinaryType),
    metadata = new MetadataBuilder().putString(ParquetLogicalTypes.NestedKey, json).build())))

  test("malformed arrow.extension.nested metadata is SUPERSPARK_INVALID_ARROW_NESTED_METADATA naming the column") {
    val cases = Seq(
      "[{\"path\": 3" -> "NOT_JSON",
      "{\"path\": [\"element\"]}" -> "NOT_A_LIST",
      "[3]" -> "ENTRY_NOT_AN_OBJECT",
      "[{\"path\": [], \"name\": \"arrow.uuid\"}]" -> "ENTRY_WITHOUT_PATH_OR_NAME")
    cases.foreach { case (json, reason) =>
      val e = intercept[IllegalArgumentException](ParquetLogicalTypes.writeTags(withNested(json)))
      val t = e match { case s: SparkThrowable => s; case _ => fail(s"$json: not a SparkThrowable: $e") }
      assert(t.getCondition == s"SUPERSPARK_INVALID_ARROW_NESTED_METADATA.$reason", json)
      assert(t.getSqlState == "22032", json)
      assert(e.getMessage.startsWith(s"[SUPERSPARK_INVALID_ARROW_NESTED_METADATA.$reason] Column `ids` has field " +
        "metadata arrow.extension.nested"), e.getMessage)
    }
  }
}
