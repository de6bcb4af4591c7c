package io.superspark.parquet.interceptor

import java.nio.file.{Files, Path}
import java.util.concurrent.{CountDownLatch, Executors, TimeUnit}

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.DataFrame

import io.superspark.SparkSessionSuite
import io.superspark.parquet.footer.files.{FooterBytes, FooterColumns, FooterFiles}

/** The verified-footer cache (issue 24): bound, LRU, threads, stale files, metrics, ALP's single footer read. */
class FooterCacheSuite extends SparkSessionSuite {

  override protected def extraConf: Map[String, String] =
    Map("spark.hadoop.fs.countfs.impl" -> classOf[CountingFileSystem].getName,
      "spark.hadoop.fs.etagfs.impl" -> classOf[EtagFileSystem].getName)

  private def withTempDir(f: Path => Unit): Unit = {
    val dir = Files.createTempDirectory("footer-cache")
    try f(dir) finally org.apache.commons.io.FileUtils.deleteDirectory(dir.toFile)
  }

  private def parquetFiles(dir: Path): Seq[Path] =
    Files.walk(dir).iterator().asScala.filter(_.toString.endsWith(".parquet")).toSeq.sorted

  /** Replaces `file`'s contents in place; drops Hadoop's checksum sidecar, which would no longer match. */
  private def replaceContents(file: Path, bytes: Array[Byte]): Unit = {
    Files.write(file, bytes)
    Files.deleteIfExists(file.resolveSibling(s".${file.getFileName}.crc"))
  }

  private def entry(path: String, size: Int) = FooterCache.Entry(FooterBytes(path, size + 100L, 4, new Array[Byte](size)), whole = false)
  private def key(i: Int) = FooterCache.Key(s"file:/f$i", 100L + i, 7L)

  /** Footer cache counters of the scans of `df`'s executed plan, after collecting it. */
  private def cacheCounters(df: DataFrame): (Seq[String], Map[String, Long]) = {
    val rows = df.collect().map(_.toString).sorted.toSeq
    (rows, FooterSQLMetrics.cacheOfPlan(df.queryExecution.executedPlan))
  }

  /**
   * Rows of `df` and the driver-wide cache totals of its run (schema inference included: with
   * one file, inference reads its footer first and the scan then finds it cached).
   */
  private def cacheTotals(df: () => DataFrame): (Seq[String], Map[String, Long]) = {
    FooterSQLMetrics.reset()
    val rows = df().collect().map(_.toString).sorted.toSeq
    (rows, FooterSQLMetrics.cacheSnapshot())
  }

  private def writeExt(df: DataFrame, path: String, opts: (String, String)*): Unit =
    withSQLConf(FooterInterceptorConf.WriteKey -> "true") { df.write.mode("overwrite").options(opts.toMap).parquet(path) }

  test("bounded in bytes: least recently used entries are evicted, the held bytes never exceed the bound") {
    FooterCache.clear()
    val bound = 10000L
    for (i <- 0 until 40) {
      FooterCache.put(key(i), entry(s"f$i", 1000 + i * 10), bound)
      assert(FooterCache.heldBytes <= bound)
      assert(FooterCache.heldBytes == FooterCache.recount())
      if (i == 3) assert(FooterCache.get(key(0)).isDefined) // key 0 becomes the most recently used
    }
    assert(FooterCache.evictionCount > 0)
    assert(FooterCache.get(key(39)).isDefined && FooterCache.get(key(1)).isEmpty)
    // the 8 newest fit (1,320..1,390 bytes each: 10,840 for 8 is over, so 7 stay)
    assert(FooterCache.size == 7 && (33 until 40).forall(i => FooterCache.get(key(i)).isDefined))
    // larger than the bound: not kept, and nothing else is evicted for it
    FooterCache.put(key(100), entry("big", 20000), bound)
    assert(FooterCache.get(key(100)).isEmpty && FooterCache.size == 7)
    // a smaller bound takes effect at the next insert
    FooterCache.put(key(101), entry("small", 100), 3000L)
    assert(FooterCache.heldBytes <= 3000L && FooterCache.heldBytes == FooterCache.recount())
    assert(FooterCache.get(key(101)).isDefined)
    // replacing an entry of the same key counts its bytes once
    FooterCache.put(key(101), entry("small", 200), 3000L)
    assert(FooterCache.heldBytes == FooterCache.recount() && FooterCache.get(key(101)).get.size == 200)
    FooterCache.clear()
    assert(FooterCache.heldBytes == 0 && FooterCache.size == 0)
  }

  test("safe under concurrent threads: puts, gets and removes keep the held bytes exact and bounded") {
    FooterCache.clear()
    val bound = 50000L
    val threads = 8
    val pool = Executors.newFixedThreadPool(threads)
    val start = new CountDownLatch(1)
    val wrongSizes = new java.util.concurrent.atomic.AtomicInteger
    try {
      val done = (0 until threads).map { t =>
        pool.submit(new Runnable {
          def run(): Unit = {
            start.await()
            val rnd = new scala.util.Random(t)
            for (_ <- 0 until 5000) {
              val k = rnd.nextInt(200)
              rnd.nextInt(4) match {
                case 0 => FooterCache.remove(key(k))
                case 1 | 2 => FooterCache.put(key(k), entry(s"f$k", 500 + k * 7), bound)
                // an entry served is always the one of its key (sizes are a function of the key)
                case _ => FooterCache.get(key(k)).foreach(e => if (e.size != 500 + k * 7) wrongSizes.incrementAndGet())
              }
            }
          }
        })
      }
      start.countDown()
      done.foreach(_.get(120, TimeUnit.SECONDS))
    } finally pool.shutdownNow()
    assert(wrongSizes.get == 0)
    assert(FooterCache.heldBytes == FooterCache.recount())
    assert(FooterCache.heldBytes <= bound && FooterCache.evictionCount > 0)
    FooterCache.clear()
  }

  // On the local file system (no ETag) a hit reads the file's last TailBytes bytes again (the
  // tail check, issue 31) and nothing else; on a store with ETags it reads nothing (below).
  private val tail = FooterCache.TailBytes.toLong

  test("a second query over the same files reads only the tail check's bytes; counters on the scan node") {
    withTempDir { dir =>
      val p = dir.resolve("t").toString
      writeExt(spark.range(300).selectExpr("id", "id % 7 AS k", "CAST(id AS STRING) AS s").repartition(3), p)
      FooterCache.clear()
      val q = () => spark.read.parquet(p).where("k = 2").select("id", "s")
      val (first, m1) = cacheCounters(q())
      // schema inference (driver) may already have cached one file's footer with no row group:
      // a cached footer serves any projection, so the 3 scan footers are misses or hits, 3 in all
      assert(m1("cache_hits") + m1("cache_misses") == 3 && m1("cache_misses") >= 2 && m1("bytes_read") > 0)
      val (second, m2) = cacheCounters(q())
      assert(second == first && first.size == 43)
      assert(m2 == Map("cache_hits" -> 3L, "cache_misses" -> 0L, "bytes_read" -> 3 * tail))
      val scan = q()
      scan.collect()
      object Walk extends org.apache.spark.sql.execution.adaptive.AdaptiveSparkPlanHelper
      val Seq(node) = Walk.collectWithSubqueries(scan.queryExecution.executedPlan) { case s: FooterScanExec => s }
      assert(node.metrics("footerCacheHits").value == 3 && node.metrics("footerBytesRead").value == 3 * tail)
      assert(node.metrics("footersFlatBuffer").value == 3)
      assert(FooterCache.size == 3 && FooterCache.heldBytes > 0)

      // off: every footer read again, nothing counted as hit or miss
      withSQLConf(FooterInterceptorConf.CacheEnabledKey -> "false") {
        val (off, m3) = cacheCounters(q())
        assert(off == first && m3("cache_hits") == 0 && m3("cache_misses") == 0 && m3("bytes_read") > 0)
      }
      // a bound of 0 keeps nothing
      FooterCache.clear()
      withSQLConf(FooterInterceptorConf.CacheMaxBytesKey -> "0") {
        assert(cacheCounters(q())._1 == first && FooterCache.size == 0)
      }
    }
  }

  test("EXPLAIN names the footer library and the cache's state, DSv1 and DSv2") {
    withTempDir { dir =>
      val p = dir.resolve("t").toString
      writeExt(spark.range(10).toDF("id"), p)
      // what EXPLAIN prints: the plan's tree of simple strings
      def explained(): String = spark.read.parquet(p).where("id > 2").queryExecution.executedPlan.toString
      for (v1 <- Seq("parquet", "")) withSQLConf("spark.sql.sources.useV1SourceList" -> v1) {
        val scan = if (v1.nonEmpty) "FileScan parquet" else "BatchScan"
        withSQLConf(FooterInterceptorConf.CacheMaxBytesKey -> "64m") {
          val on = explained()
          assert(on.contains(scan) && on.contains("FooterLibrary: footer cache on, maxBytes 67108864"), on)
        }
        withSQLConf(FooterInterceptorConf.CacheEnabledKey -> "false") {
          assert(explained().contains("FooterLibrary: footer cache off"), explained())
        }
        withSQLConf(FooterInterceptorConf.ReadKey -> "false") {
          val off = explained()
          assert(off.contains(scan) && !off.contains("FooterLibrary"), off)
        }
      }
    }
  }

  test("a changed file is never served from the cache: overwritten between two queries, same path") {
    withTempDir { dir =>
      val p = dir.resolve("t").toString
      writeExt(spark.range(100).selectExpr("id", "id * 2 AS v").coalesce(1), p)
      FooterCache.clear()
      val q = () => spark.read.parquet(p).selectExpr("sum(v)", "count(*)")
      assert(cacheCounters(q())._1 == Seq("[9900,100]"))
      assert(cacheTotals(q)._2 == Map("cache_hits" -> 2L, "cache_misses" -> 0L, "bytes_read" -> 2 * tail,
        "held_bytes" -> FooterCache.heldBytes, "entries" -> 1L, "evictions" -> 0L))
      // another table, same path (a new file name: Spark's writer names files per job)
      writeExt(spark.range(50).selectExpr("id", "id * 3 AS v").coalesce(1), p)
      // the new file is read once (inference misses, the scan then hits), never the old footer
      val (rows, m) = cacheTotals(q)
      assert(rows == Seq("[3675,50]") && m("cache_misses") == 1 && m("cache_hits") == 1 && m("bytes_read") > 0)
      // the very file rewritten in place (same name), another length
      val Seq(file) = parquetFiles(Path.of(p))
      val other = dir.resolve("other")
      writeExt(spark.range(70).selectExpr("id", "id * 5 AS v").coalesce(1), other.toString)
      replaceContents(file, Files.readAllBytes(parquetFiles(other).head))
      spark.catalog.refreshByPath(p)
      val (rows2, m2) = cacheTotals(q)
      assert(rows2 == Seq("[12075,70]") && m2("cache_misses") == 1 && m2("cache_hits") == 1)
    }
  }

  test("a file rewritten with the same length is not served from the cache (its modification time differs)") {
    withTempDir { dir =>
      // Plain, uncompressed, no dictionary, the same values in reverse order: the same pages,
      // statistics and footer sizes, so files of one length with different contents.
      val opts = Seq("compression" -> "none", "parquet.enable.dictionary" -> "false")
      val a = dir.resolve("a").toString
      val b = dir.resolve("b").toString
      writeExt(spark.range(0, 100, 1, 1).selectExpr("id AS v"), a, opts: _*)
      writeExt(spark.range(0, 100, 1, 1).selectExpr("99 - id AS v"), b, opts: _*)
      val Seq(fa) = parquetFiles(Path.of(a))
      val Seq(fb) = parquetFiles(Path.of(b))
      assert(Files.size(fa) == Files.size(fb)) // the premise: same length
      FooterCache.clear()
      val q = () => spark.read.parquet(a).select("v").limit(3) // the first rows of the one file
      assert(cacheCounters(q())._1 == Seq("[0]", "[1]", "[2]"))
      assert(cacheCounters(q())._2("cache_hits") == 1)
      val before = Files.getLastModifiedTime(fa)
      replaceContents(fa, Files.readAllBytes(fb)) // in place: same path, same length, new contents
      assert(Files.size(fa) == Files.size(fb) && Files.getLastModifiedTime(fa) != before)
      spark.catalog.refreshByPath(a)
      val (rows, m) = cacheTotals(q)
      assert(rows == Seq("[97]", "[98]", "[99]") && m("cache_misses") == 1 && m("cache_hits") == 1 && m("bytes_read") > 0)
    }
  }

  /**
   * Two files of one length with different contents: the same 20,000 values in ascending and in
   * descending order (other row-group statistics), uncompressed, no dictionary. parquet-java 1.16+
   * (Spark 4.1-4.3) writes them at one length; 1.15 (Spark 4.0) writes the descending one 8 bytes
   * longer (and padding the footer's key-value metadata moves the lengths in steps that never meet:
   * tried, 0-23 characters). So the shorter file gets the difference as zero bytes between its last
   * column chunk and its footer, where no reader looks (a reader finds the footer from the file's
   * end, and the column chunks and page indexes by the offsets the footer gives): the premise
   * holds on every line, and both files still read (the test reads both).
   */
  private def sameLengthPair(dir: Path): (Path, Path) = {
    val opts = Seq("compression" -> "none", "parquet.enable.dictionary" -> "false", "parquet.block.size" -> "16384",
      "parquet.page.write-checksum.enabled" -> "false") // page headers of one size in both files
    val a = dir.resolve("a").toString
    val b = dir.resolve("b").toString
    writeExt(spark.range(0, 20000, 1, 1).selectExpr("id AS x"), a, opts: _*)
    writeExt(spark.range(0, 20000, 1, 1).selectExpr("19999 - id AS x"), b, opts: _*)
    val Seq(fa) = parquetFiles(Path.of(a))
    val Seq(fb) = parquetFiles(Path.of(b))
    val diff = Files.size(fb) - Files.size(fa)
    if (diff != 0) padBeforeFooter(if (diff > 0) fa else fb, math.abs(diff).toInt)
    (fa, fb)
  }

  /** Inserts `n` zero bytes before `file`'s footer (after its last column chunk and page index). */
  private def padBeforeFooter(file: Path, n: Int): Unit = {
    val bytes = Files.readAllBytes(file)
    val footerLength = java.nio.ByteBuffer.wrap(bytes, bytes.length - 8, 4).order(java.nio.ByteOrder.LITTLE_ENDIAN).getInt
    val at = bytes.length - 8 - footerLength
    val out = new Array[Byte](bytes.length + n)
    System.arraycopy(bytes, 0, out, 0, at)
    System.arraycopy(bytes, at, out, at + n, bytes.length - at)
    replaceContents(file, out)
  }

  /**
   * Issue 31's wrong answer: two files of one length with the same values in another order (so
   * other row-group statistics) put at one path with one modification time (S3's Last-Modified
   * has one-second resolution), then a filter that prunes row groups by the footer's statistics.
   * Before the fix the second file was answered from the first one's cached footer: 0 rows.
   */
  private def sameLengthSameTime(dir: Path, scheme: String): (Long, Long, Map[String, Long], String) = {
    val (fa, fb) = sameLengthPair(dir)
    val a = dir.resolve("a").toString
    assert(Files.size(fa) == Files.size(fb)) // the premise: same length, on every line
    assert(!java.util.Arrays.equals(Files.readAllBytes(fa), Files.readAllBytes(fb)))
    val uri = s"$scheme://${Path.of(a).toUri.getPath}"
    val q = () => spark.read.schema("x BIGINT").parquet(uri).where("x < 10000").count()
    FooterCache.clear()
    assert(q() == 10000L && q() == 10000L) // the second from the cache
    val mtime = Files.getLastModifiedTime(fa)
    replaceContents(fa, Files.readAllBytes(fb))
    Files.setLastModifiedTime(fa, mtime) // the same second (here the same millisecond)
    assert(Files.size(fa) == Files.size(fb) && Files.getLastModifiedTime(fa) == mtime)
    spark.catalog.refreshByPath(uri)
    // the expected count from Spark's own reader, without the library
    val expected = withSQLConf(FooterInterceptorConf.ReadKey -> "false") { q() }
    FooterSQLMetrics.reset()
    val got = q()
    (got, expected, FooterSQLMetrics.cacheSnapshot(), uri)
  }

  test("issue 31: a same-length rewrite with the same modification time is not served from the cache (no ETag: tail check)") {
    withTempDir { dir =>
      val (got, expected, m, _) = sameLengthSameTime(dir, "file")
      assert(expected == 10000L)
      assert(got == expected, s"the footer cache served the replaced file's footer: $got rows, not $expected")
      // the cached entry's tail did not match the file's: a miss, the footer read again
      assert(m("cache_misses") == 1 && m("cache_hits") == 0 && m("bytes_read") > FooterCache.TailBytes)
    }
  }

  test("issue 31: the same on a store whose statuses carry an ETag (keyed by ETag; a hit reads nothing)") {
    withTempDir { dir =>
      val (got, expected, m, uri) = sameLengthSameTime(dir, "etagfs")
      assert(expected == 10000L && got == expected)
      assert(m("cache_misses") == 1 && m("cache_hits") == 0)
      // unchanged: a hit, keyed by the ETag, with no read at all (no tail check)
      FooterSQLMetrics.reset()
      assert(spark.read.schema("x BIGINT").parquet(uri).where("x < 10000").count() == 10000L)
      val m2 = FooterSQLMetrics.cacheSnapshot()
      assert(m2("cache_hits") == 1 && m2("cache_misses") == 0 && m2("bytes_read") == 0, m2)
    }
  }

  test("the tail check: an entry is kept only with a tail that agrees with its footer bytes") {
    val footer = Array.tabulate[Byte](100)(i => i.toByte)
    val bytes = FooterBytes("f", 200L, 92L, footer) // the footer ends 8 bytes before the end
    val tail = new Array[Byte](64)
    System.arraycopy(footer, 100 - 56, tail, 0, 56)
    assert(FooterCache.agrees(bytes, tail))
    tail(10) = (tail(10) + 1).toByte
    assert(!FooterCache.agrees(bytes, tail))
    assert(FooterCache.tailRange(200L) == (136L, 64) && FooterCache.tailRange(40L) == (0L, 40))
  }

  test("concurrent tasks share the cache: each file's footer is read once over two queries") {
    withTempDir { dir =>
      val p = dir.resolve("t").toString
      writeExt(spark.range(2000).selectExpr("id", "id % 10 AS k").repartition(16), p)
      FooterCache.clear()
      FooterSQLMetrics.reset()
      val q = () => spark.read.parquet(p).where("k < 5").select("id")
      val (r1, m1) = cacheCounters(q())
      val (r2, m2) = cacheCounters(q())
      assert(r1 == r2 && r1.size == 1000)
      assert(m1("cache_hits") + m1("cache_misses") == 16 && m2 == Map("cache_hits" -> 16L, "cache_misses" -> 0L,
        "bytes_read" -> 16 * tail))
      assert(FooterCache.size == 16 && FooterCache.heldBytes == FooterCache.recount())
    }
  }

  test("ALP scans read each footer byte once (no second footer read), and once cached only the tail check's") {
    withTempDir { dir =>
      val p = dir.resolve("alp").toString
      writeExt(spark.range(0, 5000, 1, 1).selectExpr("id", "ROUND(id * 0.01D, 2) AS price"), p, "alpColumns" -> "price")
      val Seq(file) = parquetFiles(Path.of(p))
      val footerLength = FooterFiles.readFooter(file).footer.length
      val q = () => spark.read.parquet(p).selectExpr("ROUND(sum(price), 2)", "count(*)")
      val expected = "[124975.0,5000]"
      withSQLConf(FooterInterceptorConf.CacheEnabledKey -> "false") {
        val df = q()
        val (rows, m) = cacheCounters(df)
        assert(rows == Seq(expected) && FooterSQLMetrics.alpOfPlan(df.queryExecution.executedPlan)._1 > 0)
        // the file's last 64 bytes (the length, magic and trailer, 56 of them in the extension
        // part), the rest of the part, then the length again (8) and the Thrift part before
        // the extension: the footer once, plus 16 bytes
        assert(m("bytes_read") == footerLength + 16L)
      }
      FooterCache.clear()
      assert(cacheCounters(q())._1 == Seq(expected))
      val df = q()
      val (rows, m) = cacheCounters(df)
      assert(rows == Seq(expected) && m == Map("cache_hits" -> 1L, "cache_misses" -> 0L, "bytes_read" -> tail))
      assert(FooterSQLMetrics.alpOfPlan(df.queryExecution.executedPlan)._1 > 0)
      assert(FooterCache.get(FooterCache.Key(file.toUri.toString.replace("file:///", "file:/"), Files.size(file),
        Files.getLastModifiedTime(file).toMillis)).exists(_.whole))
    }
  }

  test("the row-based reader reads each footer byte once (parquet-java's record reader reads no footer), once cached only the tail check's") {
    withTempDir { dir =>
      val ext = dir.resolve("ext").toString
      val plain = dir.resolve("plain").toString
      val data = spark.range(0, 3000, 1, 1).selectExpr("id", "id % 7 AS k", "CAST(id AS STRING) AS s")
      writeExt(data, ext)
      data.write.parquet(plain)
      val Seq(extFile) = parquetFiles(Path.of(ext))
      val Seq(plainFile) = parquetFiles(Path.of(plain))
      val schema = data.schema
      // an explicit schema: no inference, only the scan reads footers; countfs records what it reads
      val q = (dir: String) => spark.read.schema(schema).parquet(s"countfs://${Path.of(dir).toUri.getPath}")
        .where("k = 2").select("id", "s")
      val expected = data.where("k = 2").select("id", "s").collect().map(_.toString).sorted.toSeq
      def readLocal(f: Path) = { (off: Long, into: Array[Byte], at: Int, len: Int) =>
        val ch = java.nio.channels.FileChannel.open(f)
        try { val b = java.nio.ByteBuffer.wrap(into, at, len); while (b.hasRemaining && ch.read(b, off + b.position() - at) > 0) {} }
        finally ch.close()
      }
      /** Rows of the query over `dir` and how often each footer byte of `file` was read by it. */
      def footerReads(dir: String, file: Path, vectorized: Boolean): (Seq[String], Array[Int]) = {
        val whole = FooterFiles.readFooter(file)
        withSQLConf("spark.sql.parquet.enableVectorizedReader" -> vectorized.toString) {
          CountingFileSystem.reset()
          val rows = q(dir).collect().map(_.toString).sorted.toSeq
          (rows, CountingFileSystem.timesRead(file.toString, whole.footerOffset, whole.fileLength))
        }
      }
      withSQLConf(FooterInterceptorConf.CacheEnabledKey -> "false") {
        // with the extension: the extension part is read (its tail twice, as by the vectorized
        // reader), the Thrift footer before it never, by either reader
        val whole = FooterFiles.readFooter(extFile)
        val part = FooterColumns.readExtensionOnly(extFile.toString, whole.fileLength, readLocal(extFile)).get
        val thriftPart = (part.footerOffset - whole.footerOffset).toInt
        val (rowRows, rowReads) = footerReads(ext, extFile, vectorized = false)
        val (vecRows, vecReads) = footerReads(ext, extFile, vectorized = true)
        assert(rowRows == expected && vecRows == expected)
        assert(thriftPart > 0 && rowReads.take(thriftPart).forall(_ == 0))
        assert(rowReads.toSeq == vecReads.toSeq && rowReads.drop(thriftPart).forall(_ >= 1))
        // Thrift only, as the vectorized reader reads it: the footer once, but for its last 56
        // bytes, read twice (first by the probe for an extension's trailer: the file's last 64)
        val plainFooter = FooterFiles.readFooter(plainFile)
        val (plainRows, plainReads) = footerReads(plain, plainFile, vectorized = false)
        val (_, plainVecReads) = footerReads(plain, plainFile, vectorized = true)
        val n = plainFooter.footer.length
        assert(plainRows == expected && plainReads.length == n + 8 && plainReads.toSeq == plainVecReads.toSeq)
        val probed = FooterColumns.TailRead - 8
        assert(plainReads.take(n - probed).forall(_ == 1) && plainReads.slice(n - probed, n).forall(_ == 2))
      }
      // with the cache: the first row-based query reads the extension part, the second only the
      // tail check's last bytes, once each
      FooterCache.clear()
      val (first, firstReads) = footerReads(ext, extFile, vectorized = false)
      val (second, secondReads) = footerReads(ext, extFile, vectorized = false)
      assert(first == expected && second == expected)
      val n = secondReads.length
      assert(firstReads.sum > 0 && secondReads.take(n - tail.toInt).forall(_ == 0) &&
        secondReads.drop(n - tail.toInt).forall(_ == 1))
    }
  }
}
