package io.superspark.bsup.spark

import io.superspark.bsup.{ArrayType => SupArray, MapType => SupMap, _}
import org.apache.spark.sql.types._
import org.scalatest.funsuite.AnyFunSuite

class SuperTypesSuite extends AnyFunSuite {
  private val S = SuperType

  test("primitive mapping follows the documented table") {
    val expected = Map[String, DataType](
      "uint8" -> ShortType, "uint16" -> IntegerType, "uint32" -> LongType, "uint64" -> DecimalType(20, 0),
      "uint128" -> DecimalType(38, 0), "int128" -> DecimalType(38, 0), "uint256" -> StringType, "int256" -> StringType,
      "int8" -> ByteType, "int16" -> ShortType, "int32" -> IntegerType, "int64" -> LongType,
      "duration" -> LongType, "time" -> TimestampType,
      "float16" -> FloatType, "float32" -> FloatType, "float64" -> DoubleType, "float128" -> DoubleType,
      "float256" -> DoubleType, "decimal32" -> StringType, "decimal64" -> StringType, "decimal128" -> StringType,
      "decimal256" -> StringType, "bool" -> BooleanType, "bytes" -> BinaryType, "string" -> StringType,
      "ip" -> StringType, "net" -> StringType, "type" -> StringType, "null" -> NullType)
    assert(expected.size == 30)
    expected.foreach { case (name, dt) => assert(SuperTypes.toSpark(S.parse(name)) == dt, name) }
    val opts = SuperTypes.Options(timeAsLong = true, durationAsInterval = true)
    assert(SuperTypes.toSpark(S.time, opts) == LongType)
    assert(SuperTypes.toSpark(S.duration, opts) == DayTimeIntervalType())
  }

  test("complex mapping: records, arrays, sets, maps, unions, enums, errors, names") {
    val t = S.parse("{a:[int64],b:|[string]|,c:|{string:ip}|,d:(int64|string),e:enum(x,y),f:error(string),g:port=uint16}")
    val st = SuperTypes.toSpark(t).asInstanceOf[StructType]
    assert(st("a").dataType == ArrayType(LongType))
    assert(st("b").dataType == ArrayType(StringType))
    assert(st("c").dataType == MapType(StringType, StringType))
    assert(st("d").dataType == StructType(Seq(StructField("selector", IntegerType), StructField("int64", LongType),
      StructField("string", StringType))))
    assert(st("e").dataType == StringType && st("f").dataType == StringType && st("g").dataType == IntegerType)
    val schema = SuperTypes.toSchema(t)
    assert(schema.fieldNames.toSeq == Seq("a", "b", "c", "d", "e", "f", "g"))
    assert(schema("g").metadata.getString(SuperTypes.MetadataKey) == "port=uint16")
    assert(SuperTypes.toSchema(S.int64).fieldNames.toSeq == Seq("value"))
  }

  test("the Super type kept in metadata is restored for writes, else the default inverse") {
    val schema = SuperTypes.toSchema(S.parse("{u:uint64,a:ip,d:(int64|string),t:time}"))
    schema.fields.zip(Seq("uint64", "ip", "(int64|string)", "time")).foreach { case (f, t) =>
      assert(SuperTypes.superTypeOf(f).toString == t)
    }
    // Metadata that no longer matches the column's type is ignored.
    val changed = StructField("u", LongType, metadata = schema("u").metadata)
    assert(SuperTypes.superTypeOf(changed) == S.int64)
    // A time column read as exact nanoseconds (timeAsLong) still writes back as time.
    val nanos = StructField("t", LongType, metadata = schema("t").metadata)
    assert(SuperTypes.superTypeOf(nanos) == S.time)
    assert(SuperTypes.fromSpark(StructType.fromDDL("a int, b array<string>, c map<string,double>, d date")) ==
      S.parse("{a:int32,b:[string],c:|{string:float64}|,d:time}"))
    assert(intercept[IllegalArgumentException](SuperTypes.fromSpark(CalendarIntervalType)).getMessage
      .contains("has no Super type"))
  }

  test("merging widens numbers, merges records, makes unions of the rest") {
    def m(a: String, b: String) = SuperTypes.merge(S.parse(a), S.parse(b)).toString
    assert(m("int32", "int64") == "int64")
    assert(m("uint8", "int8") == "int16")
    assert(m("uint32", "int32") == "int64")
    assert(m("float32", "float64") == "float64")
    assert(m("null", "string") == "string")
    assert(m("{a:int64}", "{b:string}") == "{a:int64,b:string}")
    assert(m("{a:int64}", "{a:string}") == "{a:(int64|string)}")
    assert(m("(int64|string)", "int32") == "(int64|string)")
    assert(m("(int64|string)", "bool") == "(int64|string|bool)")
    assert(m("[int32]", "[int64]") == "[int64]")
    assert(m("{a:int64}", "int64") == "({a:int64}|int64)" || m("{a:int64}", "int64") == "(int64|{a:int64})")
    assert(SuperTypes.unionMemberFor(S.parse("(int64|string)").asInstanceOf[UnionType], S.int32) == 0)
  }
}
