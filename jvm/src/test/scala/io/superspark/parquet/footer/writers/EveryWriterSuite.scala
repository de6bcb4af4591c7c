package io.superspark.parquet.footer.writers

import java.io.ByteArrayOutputStream
import java.nio.file.{Files, Path}

import scala.jdk.CollectionConverters._
import scala.util.Random

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.{FSDataOutputStream, Path => HPath}
import org.apache.parquet.example.data.simple.SimpleGroupFactory
import org.apache.parquet.hadoop.example.ExampleParquetWriter
import org.apache.parquet.schema.MessageTypeParser
import org.scalatest.funsuite.AnyFunSuite

import io.superspark.parquet.footer.codec.{FooterForm, FooterLayout}
import io.superspark.parquet.footer.files.FooterFiles

/**
 * [[EveryWriter]]'s file systems and [[HeldTailStream]]: bytes before the footer never change,
 * the footer gains the extension exactly when it fits the hold, and everything that cannot take
 * it is written as its writer wrote it. Expected bytes come from parquet-java writing through
 * Hadoop's own local file system.
 */
class EveryWriterSuite extends AnyFunSuite {

  private def withDir[T](f: Path => T): T = {
    val dir = Files.createTempDirectory("every-writer")
    try f(dir) finally org.apache.commons.io.FileUtils.deleteDirectory(dir.toFile)
  }

  /** A configuration whose `file:` file system is the wrapper (uncached: no other test sees it). */
  private def wrapped(form: FooterForm = FooterForm.Private, maxTail: Long = EveryWriter.DefaultMaxTail): Configuration = {
    val conf = new Configuration()
    EveryWriter.configure(conf, Seq("file"), form, maxTail)
    conf.setBoolean("fs.file.impl.disable.cache", true)
    conf
  }

  private def footerStart(b: Array[Byte]): Int = b.length - 8 - FooterLayout.getIntLE(b, b.length - 8)

  private def write(dir: Path, name: String, conf: Configuration, extra: Map[String, String] = Map.empty): Array[Byte] = {
    val schema = MessageTypeParser.parseMessageType("message m { required int64 id; optional binary s (STRING); }")
    val file = dir.resolve(name)
    val w = ExampleParquetWriter.builder(new HPath(file.toUri)).withType(schema).withConf(conf)
      .withExtraMetaData(extra.asJava).withRowGroupSize(8L * 1024).withPageSize(1024).build()
    val f = new SimpleGroupFactory(schema)
    try (0 until 5000).foreach { i =>
      val g = f.newGroup()
      g.add("id", i.toLong * 7919)
      if (i % 5 != 0) g.add("s", s"value-$i")
      w.write(g)
    } finally w.close()
    Files.readAllBytes(file)
  }

  test("parquet-java through the wrapper: the plain file's bytes up to its footer, then that footer with the extension") {
    withDir { dir =>
      val plain = write(dir, "plain.parquet", new Configuration())
      for (form <- Seq(FooterForm.Private, FooterForm.Intermediate, FooterForm.Final)) {
        val held = write(dir, s"held-${form.name}.parquet", wrapped(form))
        val start = footerStart(plain)
        assert(java.util.Arrays.equals(held, 0, start, plain, 0, start), s"$form: bytes before the footer")
        val footer = FooterFiles.readFooter(dir.resolve(s"held-${form.name}.parquet"))
        assert(FooterFiles.formOf(footer) == form)
        assert(FooterFiles.thriftFooter(footer).toSeq == plain.slice(start, plain.length - 8).toSeq, s"$form: Thrift footer")
        if (form != FooterForm.Final) assert(footer.footerOffset == start)
      }
    }
  }

  /** `bytes` through a [[HeldTailStream]] in random pieces; what reached the stream below. */
  private def through(bytes: Array[Byte], maxTail: Int, seed: Long, hflushAt: Int = -1): Array[Byte] = {
    val sink = new ByteArrayOutputStream()
    val s = new HeldTailStream(new FSDataOutputStream(sink, null), new HPath("file:/t.parquet"), FooterForm.Private, maxTail)
    val rnd = new Random(seed)
    var at = 0
    var synced = false
    while (at < bytes.length) {
      val n = math.min(bytes.length - at, if (rnd.nextInt(4) == 0) rnd.nextInt(3 * maxTail + 1) else rnd.nextInt(64))
      if (n == 1) s.write(bytes(at).toInt) else s.write(bytes, at, n)
      at += n
      if (hflushAt >= 0 && at >= hflushAt && !synced) {
        synced = true
        s.hflush()
        if (at < bytes.length && hflushAt < bytes.length - 3) assert(sink.size == at)
      }
    }
    s.close()
    sink.toByteArray
  }

  test("the hold: any write sizes, any bound; extended exactly when the footer fits, else the writer's bytes") {
    withDir { dir =>
      val plain = write(dir, "plain.parquet", new Configuration())
      val start = footerStart(plain)
      val need = plain.length - start
      val extended = EveryWriter.extendTail("t", plain, FooterForm.Private).asInstanceOf[EveryWriter.Extended]
      val expected = plain.take(extended.keep) ++ extended.newFooter
      for (maxTail <- Seq(16, 100, need - 1, need, need + 1, 4096, plain.length, plain.length * 2); seed <- 1L to 5L) {
        val got = through(plain, maxTail, seed)
        if (maxTail >= need) assert(got.toSeq == expected.toSeq, s"maxTail $maxTail seed $seed")
        else assert(got.toSeq == plain.toSeq, s"maxTail $maxTail seed $seed: over the bound, the writer's bytes")
      }
      val before = EveryWriter.counts(EveryWriter.Reasons.Flushed)
      assert(through(plain, 4096, 9, hflushAt = plain.length / 2).toSeq == plain.toSeq, "hflush mid-file gives the hold up")
      assert(EveryWriter.counts(EveryWriter.Reasons.Flushed) == before + 1)
      // parquet-java 1.15 (Spark 4.0) calls hflush in close, after the magic: the file is extended
      assert(through(plain, 4096, 9, hflushAt = plain.length).toSeq == expected.toSeq, "hflush at the end, then close")
      assert(EveryWriter.counts(EveryWriter.Reasons.Flushed) == before + 1)
      // a write after a sync that came once the magic was written: the hold ends, as mid-file
      val sink = new ByteArrayOutputStream()
      val s = new HeldTailStream(new FSDataOutputStream(sink, null), new HPath("file:/t.parquet"), FooterForm.Private, 4096)
      s.write(plain, 0, plain.length)
      s.hflush()
      assert(sink.size < plain.length, "the sync after the magic is kept for the close")
      s.write(Array[Byte](1, 2, 3), 0, 3)
      assert(sink.size == plain.length + 3, "a write after it: what the sync promised goes out first, then the write")
      s.close()
      assert(sink.toByteArray.toSeq == (plain ++ Array[Byte](1, 2, 3)).toSeq)
      assert(EveryWriter.counts(EveryWriter.Reasons.Flushed) == before + 2)
    }
  }

  test("left alone: already extended, encrypted, Iceberg's files, not a Parquet tail") {
    withDir { dir =>
      val plain = write(dir, "plain.parquet", new Configuration())
      val held = write(dir, "held.parquet", wrapped())
      def reason(tail: Array[Byte]) = EveryWriter.extendTail("t", tail, FooterForm.Private) match {
        case EveryWriter.LeftAlone(r, _) => r
        case e => fail(s"extended: $e")
      }
      assert(reason(held) == EveryWriter.Reasons.AlreadyExtended)
      val pare = plain.clone()
      System.arraycopy("PARE".getBytes("US-ASCII"), 0, pare, pare.length - 4, 4)
      assert(reason(pare) == EveryWriter.Reasons.Encrypted)
      assert(reason(plain.take(plain.length - 1)) == EveryWriter.Reasons.NotParquetTail)
      assert(reason(plain.takeRight(20)) == EveryWriter.Reasons.TailOverLimit)
      val iceberg = write(dir, "iceberg.parquet", wrapped(), Map(EveryWriter.IcebergSchemaKey -> "{\"type\":\"struct\"}"))
      val icebergPlain = write(dir, "iceberg-plain.parquet", new Configuration(), Map(EveryWriter.IcebergSchemaKey -> "{\"type\":\"struct\"}"))
      assert(iceberg.toSeq == icebergPlain.toSeq, "an Iceberg file is written as its writer wrote it")
      assert(reason(icebergPlain) == EveryWriter.Reasons.SizeRecordedByWriter)
      // a key that merely contains the name is not Iceberg's
      val other = write(dir, "other.parquet", new Configuration(), Map("x" -> EveryWriter.IcebergSchemaKey))
      assert(EveryWriter.extendTail("t", other, FooterForm.Private).isInstanceOf[EveryWriter.Extended])
    }
  }

  test("files not named *.parquet, and Parquet in a Delta log, pass through unchanged") {
    withDir { dir =>
      val plain = write(dir, "plain.parquet", new Configuration())
      val conf = wrapped()
      val fs = new HPath(dir.toUri).getFileSystem(conf)
      assert(fs.isInstanceOf[EveryWriterLocalFileSystem] && fs.isInstanceOf[org.apache.hadoop.fs.LocalFileSystem])
      for (name <- Seq("part-0.parquet.tmp", "data", "_delta_log/00000000000000000010.checkpoint.parquet")) {
        val p = new HPath(dir.resolve(name).toUri)
        val out = fs.create(p)
        out.write(plain)
        out.close()
        assert(Files.readAllBytes(dir.resolve(name)).toSeq == plain.toSeq, name)
      }
    }
  }
}
