package io.superspark.parquet.logicaltypes

import scala.jdk.CollectionConverters._

import org.apache.parquet.schema.{GroupType, LogicalTypeAnnotation, MessageTypeParser}
import org.apache.parquet.schema.LogicalTypeAnnotation.UUIDLogicalTypeAnnotation
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName
import org.apache.spark.SparkThrowable
import org.apache.spark.sql.types._
import org.scalatest.funsuite.AnyFunSuite

/**
 * The UUID and JSON annotations between Parquet schemas and Spark's (read: dropped and tagged;
 * write: tags found and annotated, at any depth), and the write tags that cannot be read: each an
 * `IllegalArgumentException` of the condition `SUPERSPARK_INVALID_ARROW_NESTED_METADATA`
 * (SQLSTATE 22032) naming the column. Spark's reads and writes with them: ParquetInterceptorSuite.
 */
class ParquetLogicalTypesSuite extends AnyFunSuite {
  private def field(g: GroupType, name: String) = g.getType(g.getFieldIndex(name))

  private val uuidSchema = MessageTypeParser.parseMessageType(
    """message m {
      |  optional fixed_len_byte_array(16) u (UUID);
      |  optional binary j (JSON);
      |  optional group g { optional fixed_len_byte_array(16) v (UUID); optional int32 n; }
      |  optional int64 x;
      |}""".stripMargin)

  test("UUID annotations are dropped for Spark and the Spark schema is tagged") {
    val md = new org.apache.parquet.hadoop.metadata.ParquetMetadata(
      new org.apache.parquet.hadoop.metadata.FileMetaData(uuidSchema, Map.empty[String, String].asJava, "test"),
      java.util.Collections.emptyList())
    val stripped = ParquetLogicalTypes.forSpark(md).getFileMetaData.getSchema
    assert(field(stripped, "u").getLogicalTypeAnnotation == null)
    assert(field(stripped, "u").asPrimitiveType.getTypeLength == 16)
    assert(field(stripped, "g").asGroupType.getType(0).getLogicalTypeAnnotation == null)
    assert(field(stripped, "j").getLogicalTypeAnnotation == LogicalTypeAnnotation.jsonType())
    val once = ParquetLogicalTypes.forSpark(md)
    assert(ParquetLogicalTypes.forSpark(once) eq once)

    val spark = StructType(Seq(StructField("u", BinaryType), StructField("j", StringType),
      StructField("g", StructType(Seq(StructField("v", BinaryType), StructField("n", IntegerType)))),
      StructField("x", LongType)))
    val tagged = ParquetLogicalTypes.tag(spark, uuidSchema)
    def meta(f: StructField, key: String) = if (f.metadata.contains(key)) Some(f.metadata.getString(key)) else None
    assert(meta(tagged("u"), "arrow.extension.name").contains("arrow.uuid"))
    assert(meta(tagged("j"), "arrow.extension.name").contains("arrow.json"))
    assert(meta(tagged("g"), "arrow.extension.name").isEmpty)
    assert(meta(tagged("g"), "arrow.extension.nested").contains(
      """[{"path":["v"],"name":"arrow.uuid","metadata":""}]"""))
    assert(meta(tagged("x"), "arrow.extension.name").isEmpty && meta(tagged("x"), "arrow.extension.nested").isEmpty)
  }

  test("UUID and JSON values inside arrays, maps and structs are tagged by Arrow path") {
    val file = MessageTypeParser.parseMessageType("""message m {
      optional group ids (LIST) { repeated group list { optional fixed_len_byte_array(16) element (UUID); } }
      optional group docs (MAP) { repeated group key_value { required fixed_len_byte_array(16) key (UUID);
        optional binary value (JSON); } }
      optional group s { optional group inner (LIST) { repeated group list { optional group element {
        optional binary j (JSON); optional int32 n; } } } }
      repeated fixed_len_byte_array(16) legacy (UUID);
    }""")
    val spark = StructType(Seq(StructField("ids", ArrayType(BinaryType)),
      StructField("docs", MapType(BinaryType, StringType)),
      StructField("s", StructType(Seq(StructField("inner", ArrayType(StructType(Seq(
        StructField("j", StringType), StructField("n", IntegerType)))))))),
      StructField("legacy", ArrayType(BinaryType, containsNull = false))))
    val tagged = ParquetLogicalTypes.tag(spark, file)
    def nested(n: String) = tagged(n).metadata.getString("arrow.extension.nested")
    assert(nested("ids") == """[{"path":["element"],"name":"arrow.uuid","metadata":""}]""")
    assert(nested("docs") == """[{"path":["key"],"name":"arrow.uuid","metadata":""},""" +
      """{"path":["value"],"name":"arrow.json","metadata":""}]""")
    assert(nested("s") == """[{"path":["inner","element","j"],"name":"arrow.json","metadata":""}]""")
    assert(nested("legacy") == """[{"path":["element"],"name":"arrow.uuid","metadata":""}]""")

    // Written back: Spark's standard layout gets the annotations at the same places.
    val tags = ParquetLogicalTypes.writeTags(tagged)
    assert(tags.map(t => (t.column, t.path, t.name)) == Seq(("ids", Seq("element"), "arrow.uuid"),
      ("docs", Seq("key"), "arrow.uuid"), ("docs", Seq("value"), "arrow.json"),
      ("s", Seq("inner", "element", "j"), "arrow.json"), ("legacy", Seq("element"), "arrow.uuid")))
    val written = MessageTypeParser.parseMessageType("""message spark_schema {
      optional group ids (LIST) { repeated group list { optional binary element; } }
      optional group docs (MAP) { repeated group key_value { required binary key; optional binary value (STRING); } }
      optional group s { optional group inner (LIST) { repeated group list { optional group element {
        optional binary j (STRING); optional int32 n; } } } }
      optional group legacy (LIST) { repeated group list { required binary element; } }
    }""")
    val (out, uuidPaths) = ParquetLogicalTypes.annotate(written, tagged, tags)
    val expected = MessageTypeParser.parseMessageType("""message spark_schema {
      optional group ids (LIST) { repeated group list { optional fixed_len_byte_array(16) element (UUID); } }
      optional group docs (MAP) { repeated group key_value { required fixed_len_byte_array(16) key (UUID);
        optional binary value (JSON); } }
      optional group s { optional group inner (LIST) { repeated group list { optional group element {
        optional binary j (JSON); optional int32 n; } } } }
      optional group legacy (LIST) { repeated group list { required fixed_len_byte_array(16) element (UUID); } }
    }""")
    assert(out == expected)
    assert(uuidPaths == Seq(Seq("ids", "list", "element"), Seq("docs", "key_value", "key"),
      Seq("legacy", "list", "element")))

    // A path that does not exist or does not fit the Spark type is ignored (malformed JSON: below).
    def withNested(json: String) = StructType(Seq(StructField("ids", ArrayType(BinaryType),
      metadata = new MetadataBuilder().putString(ParquetLogicalTypes.NestedKey, json).build())))
    assert(ParquetLogicalTypes.writeTags(withNested("""[{"path":["nope","x"],"name":"arrow.uuid"}]""")).isEmpty)
    assert(ParquetLogicalTypes.writeTags(withNested("""[{"path":["item"],"name":"arrow.json"}]""")).isEmpty)
    assert(ParquetLogicalTypes.writeTags(withNested("""[{"path":["item"],"name":"arrow.uuid"}]""")).size == 1)
  }

  private def withNested(json: String) = StructType(Seq(StructField("ids", ArrayType(BinaryType),
    metadata = new MetadataBuilder().putString(ParquetLogicalTypes.NestedKey, json).build())))

  test("tagged columns are written with the UUID and JSON logical types") {
    def md(n: String) = new MetadataBuilder().putString("arrow.extension.name", n).build()
    val schema = StructType(Seq(StructField("u", BinaryType, metadata = md("arrow.uuid")),
      StructField("j", StringType, metadata = md("arrow.json")), StructField("b", BinaryType),
      StructField("wrong", LongType, metadata = md("arrow.uuid"))))
    val tags = ParquetLogicalTypes.writeTags(schema)
    assert(tags.map(t => t.column -> t.name).toMap == Map("u" -> "arrow.uuid", "j" -> "arrow.json"))
    assert(tags.forall(_.path.isEmpty))
    val message = MessageTypeParser.parseMessageType(
      "message spark_schema { optional binary u; optional binary j (STRING); optional binary b; optional int64 wrong; }")
    val (out, uuidPaths) = ParquetLogicalTypes.annotate(message, schema, tags)
    assert(uuidPaths == Seq(Seq("u")))
    val u = field(out, "u").asPrimitiveType
    assert(u.getPrimitiveTypeName == PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY && u.getTypeLength == 16)
    assert(u.getLogicalTypeAnnotation.isInstanceOf[UUIDLogicalTypeAnnotation])
    assert(field(out, "j").getLogicalTypeAnnotation == LogicalTypeAnnotation.jsonType())
    assert(field(out, "b") == field(message, "b") && field(out, "wrong") == field(message, "wrong"))
  }

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
