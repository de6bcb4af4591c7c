package io.superspark.parquet.footer.tools

import java.nio.file.{Files, Path}
import java.util.concurrent.atomic.AtomicBoolean

import scala.jdk.CollectionConverters._

import com.fasterxml.jackson.databind.ObjectMapper
import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.{ChecksumException, FileSystem, Path => HPath}
import org.scalatest.funsuite.AnyFunSuite
import io.superspark.parquet.footer.FooterTestFiles
import io.superspark.parquet.footer.codec.FooterForm
import io.superspark.parquet.footer.files.FooterFiles

/**
 * Crash-safe rewrites through Hadoop's FileSystem API ([[FooterRewrite]]): `file:` paths with Hadoop's checksum
 * files, concurrent runs and readers, files that change under a rewrite, the delete-rename way and its
 * recovery, and the refusal of Delta tables. (The kill-at-every-write sweep is tests/test_footer_crash.py.)
 */
class FooterRewriteSuite extends AnyFunSuite {

  private val json = new ObjectMapper()
  private def results(out: String): Seq[Map[String, String]] = json.readTree(out).elements.asScala.map { n =>
    n.fields.asScala.map(e => e.getKey -> e.getValue.asText).toMap
  }.toSeq
  private def one(out: String): Map[String, String] = { val r = results(out); assert(r.size == 1, r); r.head }
  private def list(paths: String*): java.util.List[String] = paths.asJava

  /** A fresh folder with one parquet-java file written through Hadoop's LocalFileSystem (so with a `.crc`). */
  private def fixture(name: String): (Path, Path) = {
    val dir = Files.createTempDirectory(s"footer-rewrite-$name")
    val f = FooterTestFiles.writeAllTypes(dir, "part-0.parquet", rows = 2000)
    (dir, f)
  }
  private def crcOf(f: Path): Path = f.resolveSibling(s".${f.getFileName}.crc")
  private def leftovers(dir: Path): Seq[String] =
    Files.list(dir).iterator.asScala.map(_.getFileName.toString).filter(_.contains(FooterRewrite.Marker)).toSeq

  /** Every byte of `f` read through Hadoop's LocalFileSystem, which checks the `.crc` file when there is one. */
  private def readChecked(f: Path): Array[Byte] = {
    val fs = FileSystem.getLocal(new Configuration())
    val in = fs.open(new HPath(f.toUri))
    try { val b = new Array[Byte](Files.size(f).toInt); in.readFully(0, b); b } finally in.close()
  }

  test("file: URIs through Hadoop's API: the new file gets a checksum file Hadoop verifies, the old one is replaced") {
    val (dir, f) = fixture("crc")
    val before = Files.readAllBytes(f)
    assert(Files.exists(crcOf(f)))
    val uri = f.toUri.toString
    assert(uri.startsWith("file:/"))
    val r = one(FooterTool.migrate(list(uri), null, "final"))
    assert(r("status") == "migrated" && r("replace") == "rename" && r("path") == uri, r)
    val after = Files.readAllBytes(f)
    assert(after.length != before.length && new String(after, after.length - 4, 4, "US-ASCII") == "PAR3")
    assert(java.util.Arrays.equals(readChecked(f), after))
    assert(leftovers(dir).isEmpty)
    // The checksum file is the new file's: one flipped data byte is caught by Hadoop.
    after(100) = (after(100) ^ 1).toByte
    Files.write(f, after)
    assertThrows[ChecksumException](readChecked(f))
    after(100) = (after(100) ^ 1).toByte
    Files.write(f, after)
    // Back to plain: the original bytes, with a checksum file that verifies.
    assert(one(FooterTool.migrate(list(uri), null, "plain"))("status") == "migrated")
    assert(java.util.Arrays.equals(readChecked(f), before))
  }

  test("a file without a checksum file gets none; permissions are kept") {
    val (dir, f) = fixture("nocrc")
    Files.delete(crcOf(f))
    Files.setPosixFilePermissions(f, java.nio.file.attribute.PosixFilePermissions.fromString("rw-r-----"))
    assert(one(FooterTool.add(list(f.toString), null))("status") == "added")
    assert(!Files.exists(crcOf(f)) && leftovers(dir).isEmpty)
    assert(java.nio.file.attribute.PosixFilePermissions.toString(Files.getPosixFilePermissions(f)) == "rw-r-----")
    assert(one(FooterTool.verify(list(f.toString)))("status") == "valid")
  }

  test("a second run on a file another run holds is refused and changes nothing") {
    val (_, f) = fixture("busy")
    val before = Files.readAllBytes(f)
    val lock = FooterRewrite.LocalLock.acquire(f)
    try {
      val r = one(FooterTool.add(list(f.toString), null))
      assert(r("status") == "refused" && r("message").contains("another rewrite of this file is running"), r)
      assert(java.util.Arrays.equals(Files.readAllBytes(f), before))
    } finally lock.close()
    assert(one(FooterTool.add(list(f.toString), null))("status") == "added")
  }

  test("two runs at once on the same files: each file is rewritten once, the other run reports it") {
    val (dir, _) = fixture("race")
    (1 to 7).foreach(i => Files.copy(dir.resolve("part-0.parquet"), dir.resolve(s"part-$i.parquet")))
    val outs = new java.util.concurrent.ConcurrentLinkedQueue[String]()
    val threads = (1 to 2).map(_ => new Thread(() => outs.add(FooterTool.migrate(list(dir.toString), null, "final"))))
    threads.foreach(_.start()); threads.foreach(_.join())
    val all = outs.asScala.toSeq.flatMap(results)
    assert(all.size == 16)
    all.groupBy(_("path")).foreach { case (path, rs) =>
      val statuses = rs.map(_("status")).sorted
      assert(statuses.count(_ == "migrated") == 1, s"$path: $rs")
      assert(Set("unchanged", "refused").contains(statuses.filterNot(_ == "migrated").head), rs)
      rs.filter(_("status") == "refused").foreach(r => assert(r("message").contains("another rewrite"), r))
    }
    assert(results(FooterTool.verify(list(dir.toString))).map(_("status")).toSet == Set("valid"))
    assert(leftovers(dir).isEmpty)
  }

  test("a walk whose listing predates another run's rename still takes the file (stale length: longer or shorter)") {
    val (_, f) = fixture("stale-listing")
    val fs = FileSystem.getLocal(new Configuration())
    val hp = new HPath(f.toUri)
    val plainLength = Files.size(f)
    assert(one(FooterTool.migrate(list(f.toString), null, "final"))("status") == "migrated")
    val finalLength = Files.size(f)
    assert(finalLength > plainLength)
    // Listed while plain, checked after the other run made it final (the file grew), and back (it shrank).
    assert(FooterWalk.hasParquetMagic(fs, hp, plainLength))
    assert(one(FooterTool.migrate(list(f.toString), null, "plain"))("status") == "migrated")
    assert(FooterWalk.hasParquetMagic(fs, hp, finalLength))
    // A file that is not Parquet is still not taken, and one deleted since the listing is skipped.
    Files.write(f, Array.fill[Byte](100)(1))
    assert(!FooterWalk.hasParquetMagic(fs, hp, plainLength))
    Files.delete(f)
    assert(!FooterWalk.hasParquetMagic(fs, hp, 100))
  }

  test("a reader opening the file during rewrites sees the old form or the new one, never anything else") {
    val (_, f) = fixture("reader")
    Files.delete(crcOf(f))
    val plain = Files.readAllBytes(f)
    assert(one(FooterTool.migrate(list(f.toString), null, "final"))("status") == "migrated")
    val fin = Files.readAllBytes(f)
    val stop = new AtomicBoolean(false)
    var reads, other = 0
    val reader = new Thread(() => while (!stop.get) {
      val b = Files.readAllBytes(f)
      reads += 1
      if (!java.util.Arrays.equals(b, plain) && !java.util.Arrays.equals(b, fin)) other += 1
    })
    reader.start()
    (1 to 40).foreach(i => assert(one(FooterTool.migrate(list(f.toString), null, if (i % 2 == 1) "plain" else "final"))(
      "status") == "migrated"))
    stop.set(true); reader.join()
    assert(reads > 0 && other == 0, s"$other of $reads reads were neither form")
  }

  test("a file that changed after it was read is refused with the reason, and left as it is") {
    val (_, f) = fixture("changed")
    val conf = new Configuration()
    val hp = new HPath(f.toString)
    def attempt(change: => Unit): String = {
      val opened = FooterRewrite.open(hp, conf)
      try {
        change
        val tail = FooterFiles.withLengthAndMagic(FooterFiles.thriftFooter(opened.footer))
        intercept[RewriteRefusedException](FooterRewrite.replaceTail(opened, tail, None, conf)).reason
      } finally opened.close()
    }
    val grown = Files.readAllBytes(f) ++ Array[Byte](1, 2, 3)
    assert(attempt(Files.write(f, grown)).contains("its length is now"))
    assert(java.util.Arrays.equals(Files.readAllBytes(f), grown))
    Files.write(f, Files.readAllBytes(f).dropRight(3))
    val same = Files.readAllBytes(f)
    // Same length, same bytes, only the time moved (a writer rewrote it identically): still refused.
    assert(attempt(Files.setLastModifiedTime(f, java.nio.file.attribute.FileTime.fromMillis(1000))).contains("changed since it was read"))
    assert(java.util.Arrays.equals(Files.readAllBytes(f), same))
  }

  test("delete-rename (file systems whose rename cannot overwrite), and the next walk finishing a killed one") {
    val (dir, f) = fixture("delete-rename")
    val conf = new Configuration()
    conf.set(FooterRewrite.ReplaceKey, "delete-rename")
    val opened = FooterRewrite.open(new HPath(f.toString), conf)
    val newTail = try {
      val tail = FooterFiles.tailFor(f.toString, FooterFiles.thriftFooter(opened.footer), FooterForm.Final)
      assert(FooterRewrite.replaceTail(opened, tail, None, conf) == FooterRewrite.DeleteThenRename)
      tail
    } finally opened.close()
    val migrated = Files.readAllBytes(f)
    assert(java.util.Arrays.equals(migrated.takeRight(newTail.length), newTail))
    assert(leftovers(dir).isEmpty)
    // A run killed between the delete and the last rename left only the complete `.ready` file.
    val ready = dir.resolve(s".part-0.parquet${FooterRewrite.Marker}.ready")
    Files.move(f, ready)
    Files.deleteIfExists(crcOf(f))
    val r = results(FooterTool.inspect(list(dir.toString)))
    assert(r.map(_("path")) == Seq(s"$dir/part-0.parquet") && r.head("form") == "final", r)
    assert(java.util.Arrays.equals(Files.readAllBytes(f), migrated) && !Files.exists(ready))
  }

  test("a leftover temporary file of a killed run is removed by the next run and never listed") {
    val (dir, f) = fixture("leftover")
    val tmp = dir.resolve(s".part-0.parquet${FooterRewrite.Marker}.tmp")
    Files.write(tmp, Array.fill[Byte](100)(7))
    assert(results(FooterTool.inspect(list(dir.toString))).size == 1)
    assert(one(FooterTool.add(list(dir.toString), null))("status") == "added")
    assert(leftovers(dir).isEmpty)
  }

  test("paths in a Delta table are refused, naming the table command; nothing is written") {
    val (dir, f) = fixture("delta")
    Files.createDirectories(dir.resolve("_delta_log"))
    val before = Files.readAllBytes(f)
    for (p <- Seq(dir.toString, f.toString)) {
      val r = one(FooterTool.migrate(list(p), null, "final"))
      assert(r("status") == "refused" && r("message").contains(s"is in the Delta table") &&
        r("message").contains("superspark.footer.migrate_table"), r)
      // the read-only commands answer for the table's files (issue 31): nothing is written
      val v = one(FooterTool.verify(list(p)))
      assert(Set("valid", "absent")(v("status").toString), v)
    }
    // A Delta table inside a folder being walked.
    val parent = dir.getParent.resolve(dir.getFileName.toString + "-parent")
    Files.createDirectories(parent)
    Files.move(dir, parent.resolve("t"))
    val nested = one(FooterTool.add(list(parent.toString), null))
    assert(nested("status") == "refused" && nested("path") == s"$parent/t", nested)
    assert(java.util.Arrays.equals(Files.readAllBytes(parent.resolve("t").resolve("part-0.parquet")), before))
  }

  test("--unsafe-in-place is still there, and says how it replaced the file") {
    val (_, f) = fixture("in-place")
    val r = one(FooterTool.add(list(f.toString), null, true))
    assert(r("status") == "added" && r("replace") == "in-place", r)
    assert(!Files.exists(crcOf(f))) // the old checksum file is stale after an in-place change: removed
    assert(one(FooterTool.verify(list(f.toString)))("status") == "valid")
  }
}
