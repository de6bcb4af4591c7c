package io.superspark

import java.io.{DataInputStream, File, FileInputStream}
import java.nio.file.{Files, Path, Paths}

import scala.collection.mutable
import scala.jdk.CollectionConverters._

import org.scalatest.funsuite.AnyFunSuite

/**
 * The package layering check (docs/architecture.md): a package of ours may depend on another of
 * ours only if that one does not depend back on it, directly or through others. Read from the
 * compiled classes (each class file's constant pool: the classes it names and the types in its
 * descriptors), so it sees what the compiler produced, imports or fully qualified names alike.
 */
object PackageCycles {
  /** Packages that are ours; the generated FlatBuffers classes are leaves and left out. */
  def ours(pkg: String): Boolean =
    (pkg.startsWith("io.superspark") || pkg.startsWith("org.apache.spark.sql.superspark")) &&
      !pkg.startsWith("io.superspark.parquet.footer.fbs")

  private val Descriptor = "L((?:io/superspark|org/apache/spark/sql/superspark)/[\\w/$]+);".r

  /** The internal names a class file refers to (its constant pool's classes and descriptor types). */
  def references(classFile: Array[Byte]): Set[String] = {
    val in = new DataInputStream(new java.io.ByteArrayInputStream(classFile))
    require(in.readInt() == 0xCAFEBABE, "not a class file")
    in.readUnsignedShort(); in.readUnsignedShort()
    val count = in.readUnsignedShort()
    val utf = mutable.Map[Int, String]()
    val classIndexes = mutable.ArrayBuffer[Int]()
    var i = 1
    while (i < count) {
      in.readUnsignedByte() match {
        case 1 => utf(i) = in.readUTF()
        case 7 => classIndexes += in.readUnsignedShort()
        case 8 | 16 | 19 | 20 => in.readUnsignedShort()
        case 3 | 4 | 9 | 10 | 11 | 12 | 17 | 18 => in.readInt()
        case 5 | 6 => in.readLong(); i += 1
        case 15 => in.readUnsignedByte(); in.readUnsignedShort()
        case t => throw new IllegalArgumentException(s"constant pool tag $t at entry $i")
      }
      i += 1
    }
    val named = classIndexes.map(utf(_).dropWhile(_ == '[')).map(n => if (n.startsWith("L")) n.drop(1).stripSuffix(";") else n)
    (named ++ utf.values.flatMap(s => Descriptor.findAllMatchIn(s).map(_.group(1)))).toSet
  }

  def packageOf(internalName: String): String = {
    val i = internalName.lastIndexOf('/')
    if (i < 0) "" else internalName.substring(0, i).replace('/', '.')
  }

  /** Package -> package edges, each with an example class reference, from a folder of class files. */
  def edges(classes: Path): Map[String, Map[String, String]] = {
    val out = mutable.Map[String, mutable.Map[String, String]]()
    Files.walk(classes).iterator.asScala.filter(_.toString.endsWith(".class")).foreach { f =>
      val name = classes.relativize(f).toString.stripSuffix(".class").replace(File.separatorChar, '/')
      val from = packageOf(name)
      if (ours(from)) references(Files.readAllBytes(f)).foreach { r =>
        val to = packageOf(r)
        if (to != from && ours(to)) out.getOrElseUpdate(from, mutable.Map()).getOrElseUpdate(to, s"$name -> $r")
      }
    }
    out.map { case (k, v) => k -> v.toMap }.toMap
  }

  /** Strongly connected components of more than one package (Tarjan), each sorted. */
  def cycles(graph: Map[String, Iterable[String]]): Seq[Seq[String]] = {
    val index = mutable.Map[String, Int](); val low = mutable.Map[String, Int]()
    val stack = mutable.Stack[String](); val onStack = mutable.Set[String]()
    val out = mutable.ArrayBuffer[Seq[String]]()
    var next = 0
    def visit(v: String): Unit = {
      index(v) = next; low(v) = next; next += 1
      stack.push(v); onStack += v
      graph.getOrElse(v, Nil).foreach { w =>
        if (!index.contains(w)) { visit(w); low(v) = math.min(low(v), low(w)) }
        else if (onStack(w)) low(v) = math.min(low(v), index(w))
      }
      if (low(v) == index(v)) {
        val comp = mutable.ArrayBuffer[String]()
        var w = ""
        while ({ w = stack.pop(); onStack -= w; comp += w; w != v }) ()
        if (comp.size > 1) out += comp.sorted.toSeq
      }
    }
    (graph.keySet ++ graph.values.flatten).toSeq.sorted.foreach(v => if (!index.contains(v)) visit(v))
    out.toSeq.sortBy(_.head)
  }
}

class PackageCyclesSuite extends AnyFunSuite {
  import PackageCycles._

  private lazy val classes: Path =
    Paths.get(classOf[SuperSparkExtensions].getProtectionDomain.getCodeSource.getLocation.toURI)

  test("the cycle finder finds a cycle and only a cycle") {
    assert(cycles(Map("a" -> Seq("b"), "b" -> Seq("c"), "c" -> Seq("a"), "d" -> Seq("a"))) == Seq(Seq("a", "b", "c")))
    assert(cycles(Map("a" -> Seq("b"), "b" -> Seq("c"), "d" -> Seq("a"))).isEmpty)
    assert(cycles(Map("x" -> Seq("y"), "y" -> Seq("x"), "p" -> Seq("q"), "q" -> Seq("p"))) == Seq(Seq("p", "q"), Seq("x", "y")))
  }

  test("the class-file reader sees a reference that is only a type in a signature") {
    val self = Files.readAllBytes(Paths.get(classOf[PackageCyclesSuite].getResource("PackageCyclesSuite.class").toURI))
    assert(references(self).contains("io/superspark/SuperSparkExtensions"))
  }

  test("no package cycles among superspark's packages") {
    assert(Files.isDirectory(classes), s"compiled classes not found: $classes")
    val graph = edges(classes)
    assert(graph.contains("io.superspark.parquet.footer.codec") && graph.contains("io.superspark.bsup.spark"), graph.keySet)
    val found = cycles(graph.map { case (k, v) => k -> v.keys })
    def explain(c: Seq[String]) = c.flatMap(a => c.flatMap(b => graph.getOrElse(a, Map()).get(b).map(r => s"  $a -> $b ($r)")))
    assert(found.isEmpty, "package cycles:\n" + found.map(c => (c.mkString(" <-> ") +: explain(c)).mkString("\n")).mkString("\n"))
  }

  /**
   * Spark's package (`org.apache.spark.sql.superspark`: the marked reader copy, the line adapter,
   * the SQL settings) sits below superspark's own: it names nothing of `io.superspark`, and the
   * footer library reaches the reader copy through `FooterScanHooks`, which it implements.
   */
  test("Spark's package names nothing of io.superspark") {
    val graph = edges(classes)
    // The reader sees the package (the interceptor calls the scan) ...
    assert(graph.get("io.superspark.parquet.interceptor").exists(_.contains("org.apache.spark.sql.superspark")), graph)
    // ... and no edge out of it into superspark's own packages.
    val sparkSide = graph.filter(_._1.startsWith("org.apache.spark.sql.superspark"))
    val up = for ((from, to) <- sparkSide.toSeq; (pkg, ref) <- to if pkg.startsWith("io.superspark")) yield s"  $from -> $pkg ($ref)"
    assert(up.isEmpty, "org.apache.spark.sql.superspark reaches up into io.superspark:\n" + up.sorted.mkString("\n"))
  }
}
