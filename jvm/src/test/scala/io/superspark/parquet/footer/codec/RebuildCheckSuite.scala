package io.superspark.parquet.footer.codec

import java.nio.file.{Files, Path}

import com.google.flatbuffers.FlatBufferBuilder
import org.scalatest.funsuite.AnyFunSuite
import io.superspark.parquet.footer.FooterTestFiles
import io.superspark.parquet.footer.files.FooterFiles
import io.superspark.parquet.thrift.{ThriftCompactReader, ThriftCompactWriter, UnrebuildableFooterException}

/**
 * `add`'s and `migrate`'s check split over threads ([[FlatBufferToThrift.rebuildsExactly]]:
 * the Thrift rebuilt by ranges of row groups, each compared with its stretch of the original)
 * and the transcoder's builder ([[HashedVtableBuilder]]: the same bytes as FlatBufferBuilder).
 */
class RebuildCheckSuite extends AnyFunSuite {

  private lazy val dir: Path = Files.createTempDirectory("footer-rebuild-check")
  /** parquet-java footers with 0, 1 and several row groups. */
  private lazy val footers: Seq[(String, Array[Byte])] = Seq(0, 10, 3000).map { rows =>
    val f = FooterTestFiles.writeAllTypes(dir, s"rows-$rows.parquet", rows = rows)
    s"$rows rows" -> FooterFiles.readFooter(f).footer
  }

  private def rowGroups(thrift: Array[Byte]): Int = parse(thrift).getRow_groupsSize

  private def parse(thrift: Array[Byte]) = org.apache.parquet.format.Util.readFileMetaData(
    new java.io.ByteArrayInputStream(thrift))

  /** Where each row group's struct starts and ends in a FileMetaData's Thrift bytes. */
  private def rowGroupRanges(thrift: Array[Byte]): Seq[(Int, Int)] = {
    val r = new ThriftCompactReader(thrift)
    r.structBegin()
    var ranges = Seq.empty[(Int, Int)]
    while (r.nextField()) {
      if (r.fieldId == 4) {
        r.listHeader()
        ranges = (0 until r.listSize).map { _ =>
          val at = r.pos
          r.skipValue(ThriftCompactWriter.Struct)
          (at, r.pos)
        }
      } else r.skip()
    }
    ranges
  }

  private def flipped(thrift: Array[Byte], at: Int): Array[Byte] = {
    val out = thrift.clone()
    out(at) = (out(at) ^ 0x01).toByte
    out
  }

  test("the footers have 0, 1 and several row groups") {
    assert(footers.map { case (_, t) => rowGroups(t) }.take(2) == Seq(0, 1))
    assert(rowGroups(footers(2)._2) >= 3)
  }

  test("every split (1 to 5 parts, more parts than row groups too) gives the same answer as one rebuild: equal") {
    footers.foreach { case (name, thrift) =>
      val fb = ThriftCompactToFlatBuffer.convert(thrift)
      assert(FlatBufferToThrift.rebuildBuilt(fb).sameElements(thrift), name)
      (1 to 5).foreach(parts => assert(FlatBufferToThrift.rebuildsExactly(fb, thrift, parts), s"$name, $parts parts"))
    }
  }

  test("a one-byte difference in any row group, in the head or in the tail is found, whatever the split") {
    footers.foreach { case (name, thrift) =>
      val fb = ThriftCompactToFlatBuffer.convert(thrift)
      val ranges = rowGroupRanges(thrift)
      assert(ranges.size == rowGroups(thrift), name)
      val inRowGroups = ranges.flatMap { case (from, until) => Seq(from, (from + until) / 2, until - 1) }
      val head = Seq(0, 1, ranges.headOption.map(_._1 - 1).getOrElse(thrift.length / 2))
      val tail = Seq(ranges.lastOption.map(_._2).getOrElse(thrift.length / 2), thrift.length - 2, thrift.length - 1)
      for (at <- (inRowGroups ++ head ++ tail).distinct; parts <- 1 to 4) {
        assert(!FlatBufferToThrift.rebuildsExactly(fb, flipped(thrift, at), parts), s"$name: byte $at, $parts parts")
      }
    }
  }

  test("a footer one byte longer or shorter, or with two row groups swapped, is not equal") {
    val (_, thrift) = footers(2)
    val fb = ThriftCompactToFlatBuffer.convert(thrift)
    val Seq((a0, a1), (b0, b1), _*) = rowGroupRanges(thrift)
    val swapped = thrift.take(a0) ++ thrift.slice(b0, b1) ++ thrift.slice(a0, a1) ++ thrift.drop(b1)
    assert(swapped.length == thrift.length && !swapped.sameElements(thrift))
    for (parts <- 1 to 4; other <- Seq(thrift :+ 0.toByte, thrift.dropRight(1), swapped)) {
      assert(!FlatBufferToThrift.rebuildsExactly(fb, other, parts), s"$parts parts")
    }
  }

  test("a buffer the writer cannot walk raises UnrebuildableFooterException from a helper thread as from the caller's") {
    val (_, thrift) = footers(2)
    val fb = ThriftCompactToFlatBuffer.convert(thrift)
    // Chunk tables of the first row group pointing nowhere: found by the helper thread (part 0).
    val damaged = fb.clone()
    val md = FlatBufferDecoder.root(java.nio.ByteBuffer.wrap(damaged))
    val chunk = md.rowGroups(0).columns(0)
    val at = FbAccess.pos(chunk)
    FooterLayout.putIntLE(damaged, at, Int.MinValue)
    for (parts <- 1 to 3) {
      intercept[UnrebuildableFooterException](FlatBufferToThrift.rebuildsExactly(damaged, thrift, parts))
    }
  }

  test("HashedVtableBuilder writes the same bytes as FlatBufferBuilder (random tables, vectors and strings)") {
    val random = new scala.util.Random(20261123L)
    (0 until 200).foreach { round =>
      val ops = randomOps(random, 1 + random.nextInt(300))
      val stock = build(new FlatBufferBuilder(16), ops)
      val ours = build(new HashedVtableBuilder(16), ops)
      assert(ours.sameElements(stock), s"round $round")
    }
  }

  /** A builder call: a table (its fields), a string or a vector of ints. */
  private sealed trait Op
  private final case class Table(fields: Seq[(Int, Int, Long)]) extends Op // (slot, kind, value)
  private final case class Str(s: String) extends Op
  private final case class Vec(n: Int) extends Op

  private def randomOps(random: scala.util.Random, n: Int): Seq[Op] = Seq.fill(n) {
    random.nextInt(10) match {
      case 0 => Str(random.alphanumeric.take(random.nextInt(12)).mkString)
      case 1 => Vec(random.nextInt(6))
      case _ =>
        // Few shapes, so that vtables repeat, as in a footer; values vary.
        val slots = random.nextInt(4) match {
          case 0 => Seq(0, 1, 2)
          case 1 => Seq(0, 2, 5, 7)
          case 2 => (0 until 12).filter(_ => random.nextBoolean())
          case _ => Seq(3)
        }
        Table(random.shuffle(slots).map(s => (s, random.nextInt(5), random.nextLong() >> random.nextInt(64))))
    }
  }

  private def build(b: FlatBufferBuilder, ops: Seq[Op]): Array[Byte] = {
    val objects = scala.collection.mutable.ArrayBuffer.empty[Int]
    ops.foreach {
      case Str(s) => objects += b.createString(s)
      case Vec(n) =>
        b.startVector(4, n, 4)
        (0 until n).foreach(i => b.addInt(i * 7 - 3))
        objects += b.endVector()
      case Table(fields) =>
        b.startTable(12)
        fields.foreach { case (slot, kind, v) =>
          kind match {
            case 0 => b.addLong(slot, v, 0L)
            case 1 => b.addInt(slot, v.toInt, 0)
            case 2 => b.addShort(slot, v.toShort, 0)
            case 3 => b.addBoolean(slot, (v & 1) == 1, false)
            case _ => if (objects.nonEmpty) b.addOffset(slot, objects((v & 0xFFFF).toInt % objects.size), 0)
          }
        }
        objects += b.endTable()
    }
    b.startVector(4, objects.size, 4)
    objects.reverseIterator.foreach(o => b.addOffset(o))
    b.finish(b.endVector())
    b.sizedByteArray()
  }
}
