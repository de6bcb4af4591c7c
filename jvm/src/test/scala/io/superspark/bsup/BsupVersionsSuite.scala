package io.superspark.bsup

import java.io.{ByteArrayInputStream, ByteArrayOutputStream, File, FileInputStream}
import java.nio.file.Files

import scala.collection.mutable.ArrayBuffer

import io.superspark.bsup.functions.SupText
import org.scalatest.funsuite.AnyFunSuite

/** Super Binary versions 0 and 5: the files SuperDB's CLIs wrote, our writer, bad input. */
class BsupVersionsSuite extends AnyFunSuite {
  import BsupVersionsSuite._

  for (v <- Seq(0, 5); c <- Evidence.cases(v)) {
    test(s"evidence v$v/$c: every variant decodes to the values and types the CLI printed") {
      val expected = Evidence.lines(new File(Evidence.dir, s"v$v/$c.expected.sup"))
      val files = Evidence.files(v, c)
      assert(files.nonEmpty)
      files.foreach { f =>
        val vals = readFile(f)
        assert(vals.forall(_._3 == v), s"$f: version")
        val (text, decls) = render(vals, v)
        withClue(s"$f: ") {
          val want = expected.filterNot(_.startsWith("type ")).map(normalize)
          assert(text.size == want.size)
          // Where the CLI places a decoration elsewhere than we do (on each element instead of the
          // container), the values must still agree; the types are compared across versions.
          text.zip(want).foreach { case (ours, theirs) =>
            if (ours != theirs) assert(undecorated(ours) == undecorated(theirs), s"$ours vs $theirs")
          }
          // Version 5 declares named types apart: each declaration the CLI printed is one of ours.
          assert(expected.filter(_.startsWith("type ")).toSet == decls.toSet)
        }
      }
    }

    test(s"evidence v$v/$c: every value round trips through our writer at versions 0 and 5") {
      val vals = readFile(Evidence.files(v, c).head).map(_._1)
      for (w <- Seq(0, 5)) {
        val ok = vals.filter(x => writable(x.typ, w))
        val bytes = write(ok, w, compress = w == 0)
        val back = readBytes(bytes, s"rt$w")
        assert(back.map(_._1) == ok.map(x => toVersion(x, w)), s"written as version $w")
        assert(back.forall(_._3 == w))
      }
    }
  }

  test("evidence: the same input written by both CLIs decodes to equal types and values") {
    for (c <- Seq("primitives", "complex", "heterogeneous")) {
      val v0 = readFile(new File(Evidence.dir, s"v0/$c.bsup")).map(_._1)
      val v5 = readFile(new File(Evidence.dir, s"v5/$c.bsup")).map(_._1)
      // Version 5 has no typed nulls: `{a:3,b:null::string}` is `{a:3,b:null}` there.
      val typedNull = if (c == "heterogeneous") Set(3) else Set.empty[Int]
      assert(v5.size == v0.size && v5.indices.filterNot(typedNull).forall(i => v5(i) == v0(i)), c)
      typedNull.foreach { i =>
        assert(v0(i) == Value(SuperType.record("a" -> SuperType.int64, "b" -> SuperType.string), IndexedSeq(3L, null)))
        assert(v5(i) == Value(SuperType.record("a" -> SuperType.int64, "b" -> SuperType.nullType), IndexedSeq(3L, null)))
      }
    }
    // A union with null: v0 writes a null union value, v5 the null member of a union with null.
    val u0 = readFile(new File(Evidence.dir, "v0/unions.bsup")).map(_._1)
    val u5 = readFile(new File(Evidence.dir, "v5/unions.bsup")).map(_._1)
    assert(u0(2) == Value(UnionType(IndexedSeq(SuperType.int64, SuperType.string)), null))
    assert(u5(2) == Value(UnionType(IndexedSeq(SuperType.int64, SuperType.string, SuperType.nullType)), UnionValue(2, null)))
    assert(u5.indices.filterNot(Set(2, 6, 8)).forall(i => u5(i) == u0(i)))
  }

  test("evidence: our version 5 bytes equal the CLI's uncompressed files where our choices match") {
    // One frame per stream, no compression, and union members in the order the CLI sorts them:
    // the cases without unions, and the unions case, whose types the CLI wrote sorted.
    for (c <- Seq("primitives", "complex", "empties", "named", "unions", "nulls")) {
      val f = new File(Evidence.dir, s"v5/$c.nocomp.bsup")
      val vals = readFile(f).map(_._1)
      val ours = write(vals, 5, compress = false)
      assert(ours.toSeq == Files.readAllBytes(f.toPath).toSeq, s"$c: ${hexOf(ours)}")
    }
    // Version 0: the same, where the CLI wrote one stream without names redefined.
    for (c <- Seq("primitives", "complex", "empties", "typevalues", "unions")) {
      val f = new File(Evidence.dir, s"v0/$c.nocomp.bsup")
      val ours = write(readFile(f).map(_._1), 0, compress = false)
      assert(ours.toSeq == Files.readAllBytes(f.toPath).toSeq, s"v0 $c: ${hexOf(ours)}")
    }
  }

  test("stream starts for splits in version 5 files (a version byte before each frame)") {
    val out = new ByteArrayOutputStream()
    val w = new BsupWriter(out, BsupWriterOptions(frameSize = 1000, streamSize = 5000, version = 5))
    (0 until 5000).foreach(i => w.write(SuperType.int64, i.toLong))
    w.close()
    val bytes = out.toByteArray
    val mid = bytes.length / 2
    val s1 = BsupReader.firstStreamStart(new ByteArrayInputStream(bytes), mid, "s", bytes.length)
    assert(s1 >= mid && bytes(s1.toInt - 1) == -1.toByte && bytes(s1.toInt) == 0x85.toByte)
    def part(from: Long, to: Long): Seq[Any] = {
      val in = new ByteArrayInputStream(bytes)
      in.skip(from)
      read(new BsupReader(in, "s", from, bytes.length, to)).map(_._1.value)
    }
    assert(part(0, s1) ++ part(s1, bytes.length) == (0 until 5000).map(_.toLong))
  }

  test("version bytes: 6 and later, 1 to 4, and a change inside a stream are clear errors") {
    val v0 = write(Seq(Value(SuperType.int64, 1L)), 0, compress = false)
    val v5 = write(Seq(Value(SuperType.int64, 1L)), 5, compress = false)
    def err(b: Array[Byte]): BsupException = intercept[BsupException](readBytes(b, "x.bsup"))
    val e6 = err(Array(0x86.toByte) ++ v5.drop(1))
    assert(e6.getMessage.contains("version 6") && e6.offset == 0)
    for (k <- 1 to 4) {
      val e = err(Array((0x80 | k).toByte) ++ v5.drop(1))
      assert(e.getMessage.contains(s"version $k ") && e.getMessage.contains("not supported") && e.offset == 0)
    }
    // A version 0 frame after a version 5 frame of the same stream.
    val mixed = v5.dropRight(1).take(v5.length - 1)
    val firstFrameLen = 3 + (mixed(1) & 0xf) // the types frame: 85, code, 00, payload < 16 bytes
    val e = err(mixed.take(firstFrameLen) ++ v0.dropRight(1))
    assert(e.getMessage.contains("changes from 5 to 0") && e.offset == firstFrameLen)
    // Streams of different versions, one after the other, are fine.
    assert(readBytes(v0 ++ v5, "two").map(_._3) == Seq(0, 5))
  }

  test("version 5 bad input: every truncation and every single-byte change fails cleanly or decodes") {
    for (c <- Seq("complex", "named", "unions", "nulls")) {
      val bytes = Files.readAllBytes(new File(Evidence.dir, s"v5/$c.nocomp.bsup").toPath)
      for (n <- 0 until bytes.length) {
        try readBytes(bytes.take(n), "t.bsup")
        catch { case e: BsupException => assert(e.offset >= 0 && e.offset <= n, e.getMessage) }
      }
      val rnd = new scala.util.Random(42)
      for (_ <- 0 until 2000) {
        val m = bytes.clone()
        m(rnd.nextInt(m.length)) = rnd.nextInt(256).toByte
        try readBytes(m, "m.bsup")
        catch { case e: BsupException => assert(e.offset >= 0 && e.offset <= m.length, e.getMessage) }
      }
    }
  }

  test("types that are small on the wire but exponential as trees stay fast (DAG of 24 levels)") {
    for (v <- Seq(0, 5); kind <- Seq("record", "union")) {
      val first = BsupVersion.firstComplexId(v)
      val types = new ByteBuf(1024)
      // type i refers twice to type i-1 (as two fields, or as two members of which one is wrapped)
      types.put(0); types.putUvarint(2); put(types, "a"); types.putUvarint(9); put(types, "b"); types.putUvarint(25)
      for (i <- 1 until 24) {
        val prev = first + 2 * i - 2
        if (kind == "record") {
          types.put(1); types.putUvarint(prev) // array of prev (id first + 2i - 1)
          types.put(0); types.putUvarint(2); put(types, "a"); types.putUvarint(prev); put(types, "b")
          types.putUvarint(prev + 1)
        } else {
          types.put(1); types.putUvarint(prev)
          types.put(4); types.putUvarint(2); types.putUvarint(prev); types.putUvarint(prev + 1)
        }
      }
      val out = new ByteBuf(2048)
      if (v > 0) out.put(0x80 | v)
      out.put(types.size & 0xf); out.putUvarint(types.size >>> 4); out.put(types.toArray)
      if (v > 0) out.put(0x80 | v)
      out.put(0x10 | 2); out.putUvarint(0); out.putUvarint(first + 46); out.put(0)
      val t0 = System.nanoTime()
      val e = intercept[BsupException](readBytes(out.toArray, "dag.bsup"))
      assert(e.getMessage.contains("expands to more than"), e.getMessage)
      assert((System.nanoTime() - t0) / 1e9 < 5, s"v$v $kind")
    }
  }
}

object BsupVersionsSuite {
  def put(b: ByteBuf, s: String): Unit = { b.putUvarint(s.length); b.put(s.getBytes("UTF-8")) }

  def hexOf(b: Array[Byte]): String = b.map(x => f"${x & 0xff}%02x").mkString(" ")

  /** (value, stream number, stream version) of every value. */
  def read(r: BsupReader): Seq[(Value, Int, Int)] = {
    val out = ArrayBuffer[(Value, Int, Int)]()
    while (r.next()) out += ((r.value(), r.streamNumber, r.context.version))
    out.toSeq
  }

  def readFile(f: File): Seq[(Value, Int, Int)] = {
    val r = new BsupReader(new FileInputStream(f), f.getPath, fileLength = f.length())
    try read(r) finally r.close()
  }

  def readBytes(b: Array[Byte], name: String): Seq[(Value, Int, Int)] =
    read(new BsupReader(new ByteArrayInputStream(b), name, fileLength = b.length))

  def write(vals: Seq[Value], version: Int, compress: Boolean): Array[Byte] = {
    val bytes = new ByteArrayOutputStream()
    val w = new BsupWriter(bytes, BsupWriterOptions(compress = compress, version = version))
    vals.foreach(w.write)
    w.close()
    bytes.toByteArray
  }

  /** Types that exist in `version` (no none/all/fusion in version 0). */
  def writable(t: SuperType, version: Int): Boolean = t match {
    case p: PrimitiveType => BsupVersion.primitive(version, p.id) == p
    case RecordType(fs) => fs.forall(f => writable(f.typ, version))
    case ArrayType(e) => writable(e, version)
    case SetType(e) => writable(e, version)
    case MapType(k, x) => writable(k, version) && writable(x, version)
    case UnionType(ts) => ts.forall(writable(_, version))
    case ErrorType(e) => writable(e, version)
    case NamedType(_, e) => writable(e, version)
    case FusionType(e) => version >= 2 && writable(e, version)
    case _: EnumType => true
  }

  /** The value as it reads back at `version` (the same: values are version-free). */
  def toVersion(v: Value, version: Int): Value = v

  /**
   * Our SUP text of the values, one line each, in the CLI's syntax of `version`, plus (version 5)
   * the `type` declarations of the named types used in each stream.
   */
  def render(vals: Seq[(Value, Int, Int)], version: Int): (Seq[String], Seq[String]) = {
    val decls =
      if (version == 0) Nil else vals.flatMap { case (x, _, _) => SupText.namedTypes(x.typ, version) }.distinct
    (vals.map { case (x, _, _) => normalize(cliQuirks(SupText.format(x.typ, x.value, version), x.typ)) }, decls)
  }

  /** The CLI prints a top-level typed empty array, set or map without its type. */
  def cliQuirks(s: String, t: SuperType): String = t match {
    case ArrayType(_) | SetType(_) | MapType(_, _) =>
      Seq("[]::", "|[]|::", "|{}|::", "set[]::", "map{}::").find(s.startsWith).map(_.stripSuffix("::")).getOrElse(s)
    case _ => s
  }

  /** The text without any `::type` decoration and without quotes around field names. */
  def undecorated(s: String): String = {
    val sb = new StringBuilder
    var i = 0
    var depth = 0
    while (i < s.length) {
      if (s.startsWith("::", i)) {
        // Skip a type: balanced brackets, up to a top-level ',' ']' '}' or the end.
        i += 2
        var d = 0
        while (i < s.length && !(d == 0 && (s(i) == ',' || s(i) == ']' || s(i) == '}' || s.startsWith("::", i) ||
            (s(i) == '|' && i + 1 < s.length && (s(i + 1) == ']' || s(i + 1) == '}'))))) {
          if ("([{<".contains(s(i))) d += 1
          if (")]}>".contains(s(i))) d -= 1
          i += 1
        }
      } else { sb.append(s(i)); i += 1 }
    }
    // Type values print unions without parentheses where the CLI finds them unambiguous.
    sb.toString.replaceAll("\"([A-Za-z_][A-Za-z0-9_]*)\":", "$1:").replace("(", "").replace(")", "")
  }

  /**
   * Named-type decorations without their definitions, in both texts: the CLI of version 0
   * writes `::(port=uint16)` on first use and `::=port` or `::port` later, depending on the
   * order it met them; version 5 writes `::port`. The definitions are checked apart.
   */
  def normalize(s: String): String = {
    val sb = new StringBuilder
    var i = 0
    while (i < s.length) {
      if (s.startsWith("::(", i)) {
        val j = i + 3
        var k = j
        while (k < s.length && (s(k).isLetterOrDigit || s(k) == '_')) k += 1
        if (k > j && k < s.length && s(k) == '=') {
          var depth = 1; var m = i + 3
          while (m < s.length && depth > 0) { if (s(m) == '(') depth += 1 else if (s(m) == ')') depth -= 1; m += 1 }
          sb.append("::").append(s.substring(j, k)); i = m
        } else { sb.append(s(i)); i += 1 }
      } else if (s.startsWith("::=", i)) { sb.append("::"); i += 3 }
      else { sb.append(s(i)); i += 1 }
    }
    sb.toString
  }
}
