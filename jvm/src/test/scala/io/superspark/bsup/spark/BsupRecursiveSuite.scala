package io.superspark.bsup.spark

import java.io.{ByteArrayInputStream, ByteArrayOutputStream}
import java.nio.file.Files

import scala.collection.mutable.ArrayBuffer

import io.superspark.SparkSessionSuite
import io.superspark.bsup._
import org.apache.spark.SparkException
import org.apache.spark.sql.Row
import org.apache.spark.sql.types._

/**
 * Recursive types (Super Binary version 4 on): a named type whose definition refers back to
 * its name. The streams are built by hand from the version 5 rules (docs/bsup-versions.md):
 * the named typedef is `07 len name` and its inner type's id as 4 big-endian bytes, which may
 * refer forward; the union and record typedefs after it refer back to the name.
 */
class BsupRecursiveSuite extends SparkSessionSuite {
  import RecursiveStreams._

  override protected def extraConf: Map[String, String] = Map("spark.sql.session.timeZone" -> "UTC")

  private val node = recursiveNodeType

  test("the reader builds node={v:int64,next:(null|node)} as a finite type with a reference back to its name") {
    val vals = read(stream(Seq(1L, 2L, 3L), Seq(7L)))
    assert(vals.size == 2)
    val t = vals.head.typ
    val NamedType("node", RecordType(fields)) = vals.head.typ.asInstanceOf[RecordType].fields(1).typ: @unchecked
    assert(fields.map(_.name) == Seq("v", "next"))
    val UnionType(Seq(SuperType.nullType, ref: RecursiveRef)) = fields(1).typ: @unchecked
    assert(ref.name == "node" && ref.isBound && (ref.target eq t.asInstanceOf[RecordType].fields(1).typ))
    assert(t == SuperType.record("id" -> SuperType.int64, "list" -> node))
    assert(t.hashCode == SuperType.record("id" -> SuperType.int64, "list" -> node).hashCode)
    // The value: {id:1,list:{v:1,next:{v:2,next:{v:3,next:null}}}}.
    def list(vs: Seq[Long]): Any =
      if (vs.isEmpty) UnionValue(0, null) else UnionValue(1, IndexedSeq(vs.head, list(vs.tail)))
    assert(vals.head.value == IndexedSeq(1L, IndexedSeq(1L, list(Seq(2L, 3L)))))
    assert(vals(1).value == IndexedSeq(2L, IndexedSeq(7L, UnionValue(0, null))))
  }

  test("type text, type parsing and the type-value codec keep the cycle as a name") {
    assert(SuperType.format(node) == "node={v:int64,next:(null|node)}")
    assert(SuperType.format(node, 5) == "node")
    assert(SuperType.parse("node={v:int64,next:(null|node)}") == node)
    // A part of the type taken alone prints (v0 syntax) with the definition where the name was.
    val next = node.inner.asInstanceOf[RecordType].fields(1).typ
    assert(SuperType.format(next) == "(null|node={v:int64,next:(null|node)})")
    assert(SuperType.format(next, 5) == "(null|node)")
    val b = TypeValues.encode(node, 5)
    // name definition (code 39), the record (32) ..., the name reference (40) inside.
    assert(b.toSeq.map(_ & 0xff) == Seq(39, 4) ++ "node".map(_.toInt) ++ Seq(32, 2, 1, 'v'.toInt, 9, 4) ++
      "next".map(_.toInt) ++ Seq(36, 2, 29, 40, 4) ++ "node".map(_.toInt))
    val back = TypeValues.decode(new Cursor(b, 0, b.length, where), 5)
    assert(back == node)
    val NamedType(_, RecordType(fs)) = back: @unchecked
    val UnionType(Seq(_, r: RecursiveRef)) = fs(1).typ: @unchecked
    assert(r.target eq back)
    // The part alone encodes with the definition inside, and decodes to an equal type.
    val nb = TypeValues.encode(next, 5)
    assert(SuperType.format(TypeValues.decode(new Cursor(nb, 0, nb.length, where), 5)) == SuperType.format(next))
    // Version 0 has no recursive types.
    intercept[IllegalArgumentException](TypeValues.encode(node, 0))
    // The same type value in version 0's codes (base 30: name 37, reference 38, record 30, union 34).
    val v0 = Array(37, 4) ++ "node".map(_.toInt) ++ Array(30, 2, 1, 'v'.toInt, 9, 4) ++ "next".map(_.toInt) ++
      Array(34, 2, 29, 38, 4) ++ "node".map(_.toInt)
    val e = intercept[BsupException](TypeValues.decode(new Cursor(v0.map(_.toByte), 0, v0.length, where), 0))
    assert(e.getMessage.contains("recursive type 'node' does not exist in Super Binary version 0"), e.getMessage)
  }

  test("equal recursive types from two streams are equal; different definitions of a name are not") {
    val other = SuperType.parse("node={v:string,next:(null|node)}")
    assert(read(stream(Seq(1L), Seq(2L))).head.typ == read(stream(Seq(5L, 6L), Seq(2L))).head.typ)
    assert(other != node)
    // The union inside node's definition holds a reference; the same union seen from outside holds
    // the named type itself: the same type, equal with equal hash codes.
    val next = node.inner.asInstanceOf[RecordType].fields(1).typ
    val outside = UnionType(IndexedSeq(SuperType.nullType, node))
    assert(next == outside && outside == next && next.hashCode == outside.hashCode)
    assert(next != UnionType(IndexedSeq(SuperType.nullType, other)))
    assert(SuperTypes.merge(node, other) == FusionType(SuperType.all))
    assert(SuperTypes.merge(node, node) == node && SuperTypes.merge(SuperType.nullType, node) == node)
  }

  test("a type defined as itself, and a cycle that does not pass through a name, are clear errors") {
    // 32: a -> 32 (itself).
    val self = frame(0, hex("07 01") ++ "a".getBytes ++ hex("00 00 00 20"))
    val e1 = intercept[BsupException](read(self ++ frame(1, hex("20 00")) ++ hex("ff")))
    assert(e1.getMessage.contains("type 'a' is defined as itself") && e1.getMessage.contains("rec.bsup: byte offset 3:"), e1.getMessage)
    // 32: a -> 33 (b), 33: b -> 32 (a).
    val pair = frame(0, hex("07 01") ++ "a".getBytes ++ hex("00 00 00 21 07 01") ++ "b".getBytes ++ hex("00 00 00 20"))
    val e2 = intercept[BsupException](read(pair ++ frame(1, hex("20 00")) ++ hex("ff")))
    assert(e2.getMessage.contains("defined as itself"), e2.getMessage)
    // 32: A -> 34, 33: B -> 35, 34: {x:33}, 35: (34|null): the cycle 34 -> 33 -> 35 -> 34 meets
    // the record again, not a name.
    val viaRecord = frame(0, hex("07 01") ++ "A".getBytes ++ hex("00 00 00 22 07 01") ++ "B".getBytes ++
      hex("00 00 00 23 00 01 01") ++ "x".getBytes ++ hex("21 04 02 22 1d"))
    val e3 = intercept[BsupException](read(viaRecord ++ frame(1, hex("20 00")) ++ hex("ff")))
    assert(e3.getMessage.contains("a recursive type must refer back to itself through its name") &&
      e3.getMessage.contains("byte offset 17:"), e3.getMessage)
  }

  test("a value nested deeper than the limit is a clear error naming the offset, not a StackOverflowError") {
    val ok = ValueCodec.MaxValueDepth / 2 - 2 // two containers (record, union) per node
    val deep = stream(1L to 2000L, Seq(1L))
    // In a thread with half the JVM's default stack (1 MB), before the code is compiled: the
    // deepest value allowed reads, and one past the limit is refused before the stack runs out.
    def inSmallStack[T](f: => T): T = {
      var result: Either[Throwable, T] = null
      val t = new Thread(null, () => result = try Right(f) catch { case e: Throwable => Left(e) }, "small-stack", 512 * 1024)
      t.start(); t.join()
      result.fold(throw _, identity)
    }
    assert(inSmallStack(read(stream(1L to ok, Seq(1L)))).head.value != null)
    assert(inSmallStack(read(stream(1L to ok + 1, Seq(1L)))).head.value != null)
    val e = intercept[BsupException](inSmallStack(read(deep)))
    assert(e.getMessage.contains(s"value nested more than ${ValueCodec.MaxValueDepth} levels deep"), e.getMessage)
    assert(e.getMessage.matches("(?s).*offset \\d+.*"), e.getMessage)
    // The same through the data source (FAILFAST) and the SQL functions.
    val f = file(deep)
    val se = intercept[SparkException](spark.read.format("bsup").option("mode", "FAILFAST").load(f).collect())
    assert(Iterator.iterate[Throwable](se)(_.getCause).takeWhile(_ != null).exists(_.isInstanceOf[BsupException]))
    val ce = intercept[SparkException](cells(deep).selectExpr("sb_decode(b)").collect())
    assert(ce.getMessage.contains("levels deep") ||
      Iterator.iterate[Throwable](ce)(_.getCause).takeWhile(_ != null).exists(_.getMessage.contains("levels deep")))
    assert(cells(deep).selectExpr("try_sb_decode(b)").head().isNullAt(0))
  }

  test("our writer (version 5) writes recursive values back; version 0 refuses them clearly") {
    val vals = read(stream(Seq(1L, 2L, 3L), Seq(7L)))
    val out = new ByteArrayOutputStream()
    val w = new BsupWriter(out, BsupWriterOptions(compress = false, version = 5))
    vals.foreach(w.write)
    w.close()
    assert(read(out.toByteArray) == vals)
    // A value of the union part alone (its type is defined through the name first).
    val part = vals.head.typ.asInstanceOf[RecordType].fields(1).typ.asInstanceOf[NamedType].inner
      .asInstanceOf[RecordType].fields(1).typ
    val pv = Value(part, UnionValue(1, IndexedSeq(4L, UnionValue(0, null))))
    val out2 = new ByteArrayOutputStream()
    val w2 = new BsupWriter(out2, BsupWriterOptions(compress = false, version = 5))
    w2.write(pv); w2.close()
    assert(read(out2.toByteArray) == Seq(pv))
    val w0 = new BsupWriter(new ByteArrayOutputStream(), BsupWriterOptions(version = 0))
    val e = intercept[IllegalArgumentException](w0.write(vals.head))
    assert(e.getMessage.contains("cannot be written in Super Binary version 0"))
  }

  test("data source: a recursive column is a VARIANT with its Super type in the metadata") {
    val f = file(stream(Seq(1L, 2L, 3L), Seq(7L)))
    val df = spark.read.format("bsup").load(f)
    assert(df.schema.map(c => c.name -> c.dataType) == Seq("id" -> LongType, "list" -> VariantType))
    assert(df.schema("list").metadata.getString(SuperTypes.MetadataKey) == "node={v:int64,next:(null|node)}")
    assert(df.schema("list").metadata.getLong(SuperTypes.VersionKey) == 5L)
    val rows = df.selectExpr("id", "to_json(list)", "variant_get(list, '$.next.next.v', 'int')").collect()
    assert(rows.toSeq == Seq(
      Row(1L, """{"next":{"next":{"next":null,"v":3},"v":2},"v":1}""", 3),
      Row(2L, """{"next":null,"v":7}""", null)))
    // With a user schema the recursive column also reads as its SUP text.
    val text = spark.read.format("bsup").schema("id long, list string").load(f).collect()
    assert(text.map(_.getString(1)).toSeq == Seq("{v:1,next:{v:2,next:{v:3,next:null}}}", "{v:7,next:null}"))
    // Writing it back is refused with a clear error.
    val out = Files.createTempDirectory("bsup-rec-out").resolve("o").toString
    val we = intercept[Exception](df.write.format("bsup").save(out))
    assert(Iterator.iterate[Throwable](we)(_.getCause).takeWhile(_ != null)
      .exists(x => x.getMessage != null && x.getMessage.contains("writing a recursive type")), we.toString)
  }

  test("data source: a name defined as two recursive types in two streams infers one VARIANT column") {
    // Stream 1: node={v:int64,...}; stream 2: node={v:int32,...} (a name means another type after
    // a stream boundary).
    val f = file(stream(Seq(1L, 2L)) ++ streamOf(8, Seq(3L)))
    val df = spark.read.format("bsup").load(f)
    assert(df.schema.map(c => c.name -> c.dataType) == Seq("id" -> LongType, "list" -> VariantType))
    assert(df.selectExpr("to_json(list)").collect().map(_.getString(0)).toSeq ==
      Seq("""{"next":{"next":null,"v":2},"v":1}""", """{"next":null,"v":3}"""))
  }

  test("sb_typeof, sb_to_sup and sb_decode on a recursive cell") {
    val df = cells(stream(Seq(1L, 2L), Seq(7L)))
    val r = df.selectExpr("sb_typeof(b)", "sb_to_sup(b)", "to_json(sb_decode(b))",
      "to_json(sb_decode_all(b))").head()
    assert(r.getString(0) == "{id:int64,list:node}")
    // Values of a named type are decorated with its name, as for every named type at version 5.
    assert(r.getString(1) == "type node={v:int64,next:(null|node)}\n" +
      "{id:1,list:{v:1,next:{v:2,next:null}::node}::node}\n{id:2,list:{v:7,next:null}::node}")
    assert(r.getString(2) == """{"id":1,"list":{"next":{"next":null,"v":2},"v":1}}""")
    assert(r.getString(3) ==
      """[{"id":1,"list":{"next":{"next":null,"v":2},"v":1}},{"id":2,"list":{"next":null,"v":7}}]""")
  }

  private def read(b: Array[Byte]): Seq[Value] = {
    val r = new BsupReader(new ByteArrayInputStream(b), "rec.bsup", fileLength = b.length)
    val out = ArrayBuffer[Value]()
    try while (r.next()) out += r.value() finally r.close()
    out.toSeq
  }

  private def file(b: Array[Byte]): String = {
    val d = Files.createTempDirectory("bsup-rec")
    Files.write(d.resolve("rec.bsup"), b)
    d.toString
  }

  private def cells(b: Array[Byte]) =
    spark.createDataFrame(java.util.List.of(Row(b)), StructType(Seq(StructField("b", BinaryType))))

  private val where = new Cursor.Where {
    def error(pos: Int, msg: String): BsupException = new BsupException("type value", pos, msg)
    override def version: Int = 5
  }
}
