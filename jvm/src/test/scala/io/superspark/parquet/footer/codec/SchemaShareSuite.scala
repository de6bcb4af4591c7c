package io.superspark.parquet.footer.codec

import java.nio.{ByteBuffer, ByteOrder}
import java.nio.file.{Files, Path}

import org.apache.parquet.hadoop.metadata.CompressionCodecName
import org.scalatest.funsuite.AnyFunSuite
import io.superspark.parquet.footer.FooterTestFiles
import io.superspark.parquet.footer.files.{FooterFiles, FooterReader}

/**
 * [[SchemaShare]]: a footer whose schema repeats, byte for byte, one read before (another file
 * of the same table) is given that schema without its elements walked and read again, and the
 * head check says of any buffer what it says without the share (the same refusal, offset and
 * all, or the same schema).
 */
class SchemaShareSuite extends AnyFunSuite {

  private lazy val dir: Path = Files.createTempDirectory("schema-share")
  private def flatBufferOf(name: String, rows: Int): Array[Byte] = {
    val footer = FooterFiles.readFooter(FooterTestFiles.writeAllTypes(dir, name, codec = CompressionCodecName.SNAPPY, rows = rows))
    FooterFiles.buildFlatBuffer(footer.path, footer.footer)
  }
  /** Two files of one schema with other row groups (other sizes, statistics, offsets). */
  private lazy val (a, b) = (flatBufferOf("a.parquet", 3000), flatBufferOf("b.parquet", 1700))

  private def unshared(bytes: Array[Byte]): Either[String, String] =
    FlatBufferVerifier.verifyHead(ByteBuffer.wrap(bytes)) match {
      case Some(reason) => Left(reason.toString)
      case None => read(FlatSchema.read(FlatBufferDecoder.root(ByteBuffer.wrap(bytes))))
    }

  private def shared(bytes: Array[Byte], share: SchemaShare): Either[String, String] =
    FlatBufferVerifier.verifyHead(ByteBuffer.wrap(bytes), share) match {
      case Left(reason) => Left(reason.toString)
      case Right(h) => read(if (h.shared != null) h.shared else share.read(ByteBuffer.wrap(bytes), h))
    }

  /** The schema `schema` reads (evaluated once), as text, or how it fails. */
  private def read(schema: => FlatSchema): Either[String, String] =
    try { val s = schema; Right(s.toMessageType(null).toString + s.names.mkString("|")) } catch {
      case e: RuntimeException => Left(s"${e.getClass.getSimpleName}: ${e.getMessage}")
    }

  test("another file's footer of the same schema is given the schema read before, not walked or read again") {
    assert(!java.util.Arrays.equals(a, b) && a.length != b.length)
    val share = new SchemaShare(64L << 20, 8)
    val first = FlatBufferVerifier.verifyHead(ByteBuffer.wrap(a), share).toOption.get
    assert(first.shared == null && first.lo >= 0 && first.hi > first.lo)
    val kept = share.read(ByteBuffer.wrap(a), first)
    assert(share.size._1 == 1)
    val second = FlatBufferVerifier.verifyHead(ByteBuffer.wrap(b), share).toOption.get
    assert(second.shared eq kept, "the second file's schema was read again")
    assert(shared(b, share) == unshared(b) && unshared(b) == unshared(a))
    // the footer reader's own share: the same FlatSchema instance for both files
    SchemaShare.Footers.clear()
    def head(bytes: Array[Byte]) = FooterReader.head(ByteBuffer.wrap(bytes), FooterForm.Private, null).toOption.get
    assert(head(a) eq head(b))
    // emptied (what the footer cache's clear does): read again
    val before = head(a)
    SchemaShare.Footers.clear()
    assert(!(head(b) eq before))
  }

  test("a schema one byte apart is not the one kept: its own names") {
    val share = new SchemaShare(64L << 20, 8)
    shared(a, share)
    val root = FlatBufferDecoder.root(ByteBuffer.wrap(b))
    val name = FbAccess.vector(root.getByteBuffer, FbAccess.pos(root.schema(1)), 4)
    val c = b.clone()
    c(name + 4) = (c(name + 4) + 1).toByte // the first letter of the first column's name
    val got = shared(c, share)
    assert(got.isRight && got == unshared(c) && got != unshared(b), got)
    assert(share.size._1 == 2)
  }

  test("seeded mutations: the head check with a share primed by the original says what it says without one") {
    val share = new SchemaShare(64L << 20, 8)
    assert(shared(a, share).isRight)
    val rnd = new scala.util.Random(39)
    val root = FlatBufferDecoder.root(ByteBuffer.wrap(a))
    val schemaAt = FbAccess.vector(root.getByteBuffer, FbAccess.pos(root), 6)
    var hits, refusals = 0
    (0 until 3000).foreach { i =>
      val m = a.clone()
      // half the mutations inside the schema's checked bytes, half anywhere
      val at = if (i % 2 == 0) schemaAt + rnd.nextInt(math.min(4096, m.length - schemaAt)) else rnd.nextInt(m.length)
      rnd.nextInt(3) match {
        case 0 => m(at) = (m(at) ^ (1 << rnd.nextInt(8))).toByte
        case 1 => m(at) = rnd.nextInt(256).toByte
        case _ => if (at + 4 <= m.length) ByteBuffer.wrap(m).order(ByteOrder.LITTLE_ENDIAN).putInt(at, rnd.nextInt(m.length))
      }
      val hit = FlatBufferVerifier.verifyHead(ByteBuffer.wrap(m), share).toOption.exists(_.shared != null)
      if (hit) hits += 1
      val want = unshared(m)
      if (want.isLeft) refusals += 1
      assert(shared(m, share) == want, s"mutation $i at $at")
    }
    info(s"3000 mutations: $hits given the kept schema, $refusals refused")
    assert(hits > 100 && refusals > 100, (hits, refusals))
  }

  test("threads reading three schemas through a share that keeps two: each reads its own") {
    val share = new SchemaShare(64L << 20, 2)
    val variants = (0 until 3).map { i =>
      val c = b.clone()
      val root = FlatBufferDecoder.root(ByteBuffer.wrap(c))
      c(FbAccess.vector(root.getByteBuffer, FbAccess.pos(root.schema(1)), 4) + 4) = ('K' + i).toByte
      c -> unshared(c)
    }
    val pool = java.util.concurrent.Executors.newFixedThreadPool(4)
    try {
      val results = (0 until 4).map { t =>
        pool.submit(new java.util.concurrent.Callable[Seq[Boolean]] {
          def call(): Seq[Boolean] = (0 until 150).map { k =>
            val (bytes, want) = variants((k + t) % 3)
            shared(bytes, share) == want
          }
        })
      }.flatMap(_.get(60, java.util.concurrent.TimeUnit.SECONDS))
      assert(results.size == 600 && results.forall(identity))
      assert(share.size._1 <= 2)
    } finally pool.shutdownNow()
  }

  test("bounded: entries and bytes; a schema over a quarter of the bound is read but not kept") {
    val share = new SchemaShare(64L << 20, 2)
    Seq(3000, 1700, 900).zipWithIndex.foreach { case (rows, i) =>
      val bytes = flatBufferOf(s"n$i.parquet", rows).clone()
      // another schema each time: a column renamed
      val root = FlatBufferDecoder.root(ByteBuffer.wrap(bytes))
      val name = FbAccess.vector(root.getByteBuffer, FbAccess.pos(root.schema(1)), 4)
      bytes(name + 4) = ('A' + i).toByte
      assert(shared(bytes, share).isRight)
    }
    assert(share.size._1 == 2)
    val tiny = new SchemaShare(64, 8)
    assert(shared(a, tiny) == unshared(a) && tiny.size == (0, 0L))
  }
}
