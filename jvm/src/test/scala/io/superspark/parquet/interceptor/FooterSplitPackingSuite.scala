package io.superspark.parquet.interceptor

import java.nio.ByteBuffer
import java.nio.ByteOrder
import java.nio.file.{Files, Path}

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.DataFrame
import org.apache.spark.sql.functions.{col, input_file_name, spark_partition_id}

import io.superspark.SparkSessionSuite
import io.superspark.parquet.footer.files.FooterBytes

/** Scans pack their splits by the bytes their tasks read ([[FooterSplitPacking]]). */
class FooterSplitPackingSuite extends SparkSessionSuite {

  private val Columns = 400
  private val Files8 = 8

  private def withTable(f: (String, Seq[Path]) => Unit): Unit = {
    val dir = Files.createTempDirectory("split-packing")
    try {
      val df = spark.range(0, Files8 * 3, 1, Files8)
        .select((col("id") +: (1 until Columns).map(i => (col("id") * i).as(s"c$i"))): _*)
      withSQLConf(FooterInterceptorConf.WriteKey -> "true") { df.write.mode("overwrite").parquet(dir.toString) }
      val files = Files.list(dir).iterator().asScala.filter(_.toString.endsWith(".parquet")).toSeq.sorted
      assert(files.size == Files8)
      f(dir.toString, files)
    } finally org.apache.commons.io.FileUtils.deleteDirectory(dir.toFile)
  }

  /** Where a file's data ends, from its own last 8 bytes (the footer's length), not the library's. */
  private def dataEnd(file: Path): Long = {
    val bytes = Files.readAllBytes(file)
    val footerLength = ByteBuffer.wrap(bytes, bytes.length - 8, 4).order(ByteOrder.LITTLE_ENDIAN).getInt
    bytes.length - 8L - footerLength
  }

  /** The files each task read (task: the scan's partition), and the rows. */
  private def tasks(path: String): (Map[Int, Set[String]], Seq[String]) = {
    val df = spark.read.parquet(path)
    val read = df.select(spark_partition_id().as("task"), input_file_name().as("file"), col("id"), col("c7")).collect()
    val files = read.groupBy(_.getInt(0)).map { case (t, rows) => t -> rows.map(r => new org.apache.hadoop.fs.Path(r.getString(1)).getName).toSet }
    (files, read.map(r => s"${r.getLong(2)},${r.getLong(3)}").sorted.toSeq)
  }

  /** The scan's own partition count, as its node hands its read RDD on. */
  private def scanPartitions(df: DataFrame): Int = {
    df.collect()
    df.queryExecution.executedPlan.collectFirst { case s: FooterScanExecBase => s }.get.inputRDDs().head.getNumPartitions
  }

  test("a scan whose footers are cached joins Spark's partitions by the data its tasks read") {
    withTable { (path, files) =>
      val lengths = files.map(Files.size)
      val data = files.map(dataEnd)
      // the footers are most of each file here, as at 10,000 columns
      assert(files.indices.forall(i => data(i) * 3 < lengths(i)), s"data $data of $lengths")
      // one file a task by Spark's count: two files exceed maxPartitionBytes
      val maxBytes = lengths.max + 1
      assert(lengths.min * 2 > maxBytes)
      val openCost = 1024L
      withSQLConf("spark.sql.files.maxPartitionBytes" -> maxBytes.toString,
          "spark.sql.files.openCostInBytes" -> openCost.toString) {
        FooterCache.clear()
        val (cold, coldRows) = tasks(path)
        // the footers are not cached yet: Spark's own partitions, one file each
        assert(cold.size == Files8 && cold.values.forall(_.size == 1), cold)
        assert(files.forall(f => FooterCache.dataEnd(f.toUri.toString.replace("file:///", "file:/"), Files.size(f)).contains(dataEnd(f))))
        val (warm, warmRows) = tasks(path)
        assert(warmRows == coldRows && warmRows.size == Files8 * 3)
        // every file read once, by one task
        assert(warm.values.toSeq.flatten.sorted == files.map(_.getFileName.toString).sorted, warm)
        // the split size Spark's rule gives over the data's bytes (2 cores), and each task within it
        val byName = files.map(_.getFileName.toString).zip(data).toMap
        val total = data.sum + Files8 * openCost
        val maxSplit = math.min(maxBytes, math.max(openCost, total / 2))
        warm.values.foreach(t => assert(t.toSeq.map(byName).sum + t.size * openCost <= maxSplit, t))
        // next-fit over files of equal weight: as few tasks as fit
        val perTask = (maxSplit / (data.max + openCost)).toInt
        assert(perTask >= 2)
        assert(warm.size < Files8 && warm.size <= math.ceil(Files8.toDouble / perTask).toInt + 1, warm)
        // the node's own RDD: the packed one
        assert(scanPartitions(spark.read.parquet(path)) == warm.size)

        // without packing, or with the footer cache off: Spark's partitions
        withSQLConf(FooterInterceptorConf.PackSplitsKey -> "false") {
          val (off, offRows) = tasks(path)
          assert(off.size == Files8 && offRows == coldRows)
        }
        withSQLConf(FooterInterceptorConf.CacheEnabledKey -> "false") {
          assert(tasks(path)._1.size == Files8)
        }
      }
    }
  }

  test("the cache's data ends follow its entries: evicted, removed and cleared files are unknown") {
    FooterCache.clear()
    def key(i: Int) = FooterCache.Key(s"file:/p$i", 1000L + i, 7L)
    def entry(i: Int, whole: Boolean) = FooterCache.Entry(
      if (whole) FooterBytes(s"p$i", 1000L + i, 600, new Array[Byte](392 + i))
      else FooterBytes(s"p$i", 1000L + i, 900, new Array[Byte](92 + i), footerStart = 500), whole)
    FooterCache.put(key(1), entry(1, whole = true), 1000)
    FooterCache.put(key(2), entry(2, whole = false), 1000)
    assert(FooterCache.dataEnd("file:/p1", 1001L).contains(600L))
    assert(FooterCache.dataEnd("file:/p2", 1002L).contains(500L))
    assert(FooterCache.dataEnd("file:/p2", 1003L).isEmpty && FooterCache.dataEnd("file:/p9", 1002L).isEmpty)
    // a new version of a path and length answers for it; removing the old key keeps the new one
    val newer = key(2).copy(modificationTime = 8L)
    FooterCache.put(newer, entry(2, whole = true), 1000)
    FooterCache.remove(key(2))
    assert(FooterCache.dataEnd("file:/p2", 1002L).contains(600L))
    // evicted for room: unknown
    FooterCache.put(key(3), entry(3, whole = true), 1000)
    assert(FooterCache.get(key(1)).isEmpty && FooterCache.dataEnd("file:/p1", 1001L).isEmpty)
    FooterCache.remove(newer)
    assert(FooterCache.dataEnd("file:/p2", 1002L).isEmpty)
    FooterCache.clear()
    assert(FooterCache.dataEnd("file:/p3", 1003L).isEmpty)
  }

  test("executors' reports of their cached footers reach the driver's data ends, bounded; a local task reports none") {
    FooterCache.clear()
    val driver = DataEndReports.create(spark.sparkContext)
    // a task in this (the driver's) JVM: its footers are in the driver's cache already
    spark.sparkContext.parallelize(Seq(1), 1).foreach { _ =>
      FooterCache.put(FooterCache.Key("file:/local", 1000L, 7L), FooterCache.Entry(
        FooterBytes("local", 1000L, 600, new Array[Byte](392)), whole = true), 1 << 20)
      val r = new DataEndReports
      r.report("file:/local", 1000L)
      assert(r.isZero)
    }
    // a task's copy from an executor, as Spark merges it into the driver's instance at task end
    val task = new DataEndReports
    task.add(("file:/remote", 5000L, 1200L))
    driver.merge(task)
    assert(driver.isZero, "kept in the cache's index, not in the accumulator")
    assert(FooterCache.dataEnd("file:/remote", 5000L).contains(1200L))
    assert(FooterCache.dataEnd("file:/remote", 5001L).isEmpty && FooterCache.get(FooterCache.Key("file:/remote", 5000L, 7L)).isEmpty)
    // the driver's own cache answers first
    FooterCache.put(FooterCache.Key("file:/remote", 5000L, 7L), FooterCache.Entry(
      FooterBytes("remote", 5000L, 900, new Array[Byte](4092)), whole = true), 1 << 20)
    assert(FooterCache.dataEnd("file:/remote", 5000L).contains(900L))
    // at most ReportedFiles files, the least recently reported dropped first
    val many = new DataEndReports
    (0 to FooterCache.ReportedFiles).foreach(i => many.add((s"file:/f$i", 10L, 4L)))
    driver.merge(many)
    assert(FooterCache.reportedCount == FooterCache.ReportedFiles)
    assert(FooterCache.dataEnd("file:/f0", 10L).isEmpty && FooterCache.dataEnd(s"file:/f${FooterCache.ReportedFiles}", 10L).contains(4L))
    FooterCache.clear()
    assert(FooterCache.reportedCount == 0 && FooterCache.dataEnd("file:/f1", 10L).isEmpty)
  }

  test("partitions are joined in order, next-fit, within the split size") {
    val g = FooterSplitPacking.packed(Seq(1, 1, 2, 1, 1), Seq(50L, 40L, 10L, 90L, 5L), openCost = 4, maxSplit = 100)
    // costs 54, 44, 18, 94, 9: 54 + 44 = 98 fits, + 18 does not; 18 + 94 does not; 94 + 9 does not
    assert(g.map(_.toSeq).toSeq == Seq(Seq(0, 1), Seq(2), Seq(3), Seq(4)))
    assert(FooterSplitPacking.packed(Seq(1), Seq(500L), 4, 100).map(_.toSeq).toSeq == Seq(Seq(0)))
    assert(FooterSplitPacking.packed(Nil, Nil, 4, 100).isEmpty)
  }

}
