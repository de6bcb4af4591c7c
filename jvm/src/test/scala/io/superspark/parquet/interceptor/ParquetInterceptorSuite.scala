package io.superspark.parquet.interceptor

import java.io.ByteArrayOutputStream
import java.nio.file.{Files, Path}

import scala.jdk.CollectionConverters._

import org.apache.parquet.hadoop.ParquetFileReader
import org.apache.parquet.hadoop.util.HadoopInputFile
import org.apache.parquet.io.PositionOutputStream
import org.apache.spark.sql.execution.datasources.{HadoopFsRelation, InsertIntoHadoopFsRelationCommand, LogicalRelation}
import org.apache.spark.sql.execution.datasources.v2.DataSourceV2Relation

import io.superspark.SparkSessionSuite
import io.superspark.parquet.footer.files.{FooterColumns, FooterFiles, FooterReader, FooterSource}
import io.superspark.parquet.footer.codec.{FooterLayout, MetadataDiff}

class ParquetInterceptorSuite extends SparkSessionSuite {

  override protected def extraConf: Map[String, String] =
    Map("spark.hadoop.fs.vecfs.impl" -> classOf[VectoredCountingFileSystem].getName,
      "spark.hadoop.fs.vecfs.impl.disable.cache" -> "true")

  private def withTempDir(f: Path => Unit): Unit = {
    val dir = Files.createTempDirectory("interceptor")
    try f(dir) finally org.apache.commons.io.FileUtils.deleteDirectory(dir.toFile)
  }

  private def fileFormats(df: org.apache.spark.sql.DataFrame) = df.queryExecution.analyzed.collect {
    case LogicalRelation(r: HadoopFsRelation, _, _, _, _) => r.fileFormat.getClass
  }

  private def parquetFiles(dir: Path): Seq[Path] =
    Files.walk(dir).iterator().asScala.filter(_.toString.endsWith(".parquet")).toSeq.sorted

  test("path reads, catalog tables and inserts use FooterParquetFileFormat; DSv2 reads stay DSv2 relations") {
    withTempDir { dir =>
      val p = dir.resolve("t").toString
      spark.range(5).write.parquet(p)
      assert(fileFormats(spark.read.parquet(p)) == Seq(classOf[FooterParquetFileFormat]))
      assert(fileFormats(spark.read.format("org.apache.spark.sql.execution.datasources.parquet.ParquetFileFormat")
        .load(p)) == Seq(classOf[FooterParquetFileFormat]))
      spark.sql(s"CREATE TABLE rules_t (id BIGINT) USING parquet LOCATION '${dir.resolve("tbl")}'")
      try {
        spark.sql("INSERT INTO rules_t VALUES (1)")
        assert(fileFormats(spark.table("rules_t")) == Seq(classOf[FooterParquetFileFormat]))
        val insert = spark.sql("INSERT INTO rules_t VALUES (2)").queryExecution.analyzed.collect {
          case i: InsertIntoHadoopFsRelationCommand => i.fileFormat.getClass
        }
        assert(insert == Seq(classOf[FooterParquetFileFormat]))
        assert(spark.table("rules_t").collect().map(_.getLong(0)).sorted.toSeq == Seq(1L, 2L))
      } finally spark.sql("DROP TABLE rules_t")
      spark.conf.set("spark.sql.sources.useV1SourceList", "")
      try {
        val v2 = spark.read.parquet(p)
        assert(fileFormats(v2).isEmpty)
        assert(v2.queryExecution.analyzed.collect { case r: DataSourceV2Relation => r }.size == 1)
        assert(v2.count() == 5)
      } finally spark.conf.unset("spark.sql.sources.useV1SourceList")
    }
  }

  private def footerScans(df: org.apache.spark.sql.DataFrame): Seq[FooterScanExec] = {
    object Walk extends org.apache.spark.sql.execution.adaptive.AdaptiveSparkPlanHelper
    Walk.collectWithSubqueries(df.queryExecution.executedPlan) { case s: FooterScanExec => s }
  }

  test("scan nodes carry the footer counters as SQL metrics") {
    withTempDir { dir =>
      val ext = dir.resolve("ext").toString
      val plain = dir.resolve("plain").toString
      spark.conf.set(FooterInterceptorConf.WriteKey, "true")
      try spark.range(100).selectExpr("id", "id % 3 AS k").repartition(3).write.parquet(ext)
      finally spark.conf.unset(FooterInterceptorConf.WriteKey)
      spark.range(100).selectExpr("id", "id % 3 AS k").repartition(2).write.parquet(plain)

      val extDf = spark.read.parquet(ext).where("k = 1")
      assert(extDf.collect().length == 33) // collect runs extDf's own plan (count plans a new one)
      val Seq(scan) = footerScans(extDf)
      val m = scan.metrics
      assert(m("footersFlatBuffer").value == 3 && m("footersThrift").value == 0 && m("footerFallbacks").value == 0)
      assert(m("footerDecodeTime").value > 0 && m("footerDecodeTime").metricType == "nsTiming")
      assert(m("numFiles").value == 3) // Spark's own metrics are still there
      assert(FooterSQLMetrics.ofPlan(extDf.queryExecution.executedPlan) ==
        Map("footers_flatbuffer" -> 3L, "footers_thrift" -> 0L, "fallbacks" -> 0L,
          "decode_ns" -> m("footerDecodeTime").value))

      // Both sides of a join are instrumented, each with its own counters; row-based reader too.
      withSQLConf("spark.sql.parquet.enableVectorizedReader" -> "false") {
        val joined = spark.read.parquet(ext).join(spark.read.parquet(plain), "id")
        assert(joined.collect().length == 100)
        val counts = footerScans(joined).map(s => (s.metrics("footersFlatBuffer").value,
          s.metrics("footersThrift").value)).sorted
        assert(counts == Seq((0L, 2L), (3L, 0L)))
      }

      // With the read path off Spark's own scan runs: no FooterScanExec.
      withSQLConf(FooterInterceptorConf.ReadKey -> "false") {
        val off = spark.read.parquet(ext)
        assert(off.collect().length == 100)
        assert(footerScans(off).isEmpty)
      }
    }
  }

  test("on Hadoop's checksummed local file system the extension is read without the .crc check; damage is still caught") {
    withTempDir { dir =>
      val path = dir.resolve("t").toString
      val df = spark.range(0, 200).selectExpr("id" +: (1 to 40).map(i => s"id * $i AS c$i"): _*)
      withSQLConf(FooterInterceptorConf.WriteKey -> "true") { df.coalesce(1).write.parquet(path) }
      val expected = df.collect().map(_.toString).sorted.toSeq
      val Seq(file) = parquetFiles(dir)
      val crc = file.resolveSibling(s".${file.getFileName}.crc")
      val bytes = Files.readAllBytes(file)
      val sums = Files.readAllBytes(crc)
      // The extension part's place in the file, and Hadoop's sidecar: an 8-byte header, then a
      // CRC of each 512 bytes. The data pages end before the extension's first chunk.
      val part = FooterColumns.readExtensionOnly(file.toString, bytes.length.toLong, (off, out, at, len) =>
        System.arraycopy(bytes, off.toInt, out, at, len)).get
      val first = (part.footerOffset / 512).toInt
      val last = (bytes.length - 1) / 512
      assert(sums.length == 8 + 4 * (last + 1) && first > 0)
      // 1. The sums of the extension's chunks (and the tail's) damaged: Spark's reader, which
      //    reads the Thrift footer through the checked stream, fails; the footer library reads
      //    the extension, which its own CRC covers, and the data pages through the checked stream.
      val damagedSums = sums.clone()
      (first to last).foreach(c => damagedSums(8 + 4 * c) = (damagedSums(8 + 4 * c) ^ 0x55).toByte)
      Files.write(crc, damagedSums)
      withSQLConf(FooterInterceptorConf.ReadKey -> "false") {
        val e = intercept[Exception](spark.read.parquet(path).collect())
        assert(Iterator.iterate[Throwable](e)(_.getCause).takeWhile(_ != null)
          .exists(_.isInstanceOf[org.apache.hadoop.fs.ChecksumException]), e)
      }
      FooterCache.clear()
      val scans = spark.read.parquet(path)
      assert(scans.collect().map(_.toString).sorted.toSeq == expected)
      assert(FooterSQLMetrics.ofPlan(scans.queryExecution.executedPlan)("footers_flatbuffer") == 1L)
      // 2. A byte of the FlatBuffer changed under intact sums: the extension's CRC rejects it,
      //    the footer is read again through the checked stream, and Hadoop's check fails the read.
      Files.write(crc, sums)
      val damaged = bytes.clone()
      val at = (part.footerOffset + part.footer.length / 2).toInt
      damaged(at) = (damaged(at) ^ 0x01).toByte
      Files.write(file, damaged)
      FooterCache.clear()
      val e = intercept[Exception](spark.read.parquet(path).collect())
      assert(Iterator.iterate[Throwable](e)(_.getCause).takeWhile(_ != null)
        .exists(_.isInstanceOf[org.apache.hadoop.fs.ChecksumException]), e)
    }
  }

  test("on Hadoop's checksummed local file system the reader reads column chunks without vectored reads, unless told to") {
    withTempDir { dir =>
      val path = dir.resolve("t").toString
      // 60 columns, 8 row groups: the 3 columns read are 3 separate ranges in each row group
      val df = spark.range(0, 4000, 1, 1).selectExpr("id" +: (1 until 60).map(i => s"id * $i AS c$i"): _*)
      withSQLConf(FooterInterceptorConf.WriteKey -> "true", "parquet.block.size" -> "1",
          "parquet.page.size.row.check.min" -> "500", "parquet.page.size.row.check.max" -> "500") {
        df.write.parquet(path)
      }
      val Seq(file) = parquetFiles(dir)
      val rowGroups = ParquetFileReader.readFooter(HadoopInputFile.fromPath(new org.apache.hadoop.fs.Path(file.toUri),
        spark.sessionState.newHadoopConf()), org.apache.parquet.format.converter.ParquetMetadataConverter.NO_FILTER)
        .getBlocks.size
      assert(rowGroups == 8)
      val expected = df.selectExpr("id", "c20", "c40").where("c20 >= 0").collect().map(_.toString).sorted.toSeq
      val vecfs = s"vecfs://${file.getParent.toUri.getPath}"
      def read(): Int = {
        val before = VectoredCountingFileSystem.vectoredReads
        val rows = spark.read.parquet(vecfs).selectExpr("id", "c20", "c40").where("c20 >= 0").collect()
        assert(rows.map(_.toString).sorted.toSeq == expected)
        VectoredCountingFileSystem.vectoredReads - before
      }
      // unset: one range after another, through the checked stream
      assert(read() == 0)
      // set by the user: parquet-java's vectored read, a call a row group
      withSQLConf(InterceptorScanHooks.VectoredReads -> "true") { assert(read() == rowGroups) }
      // Spark's own reader (the interceptor off) keeps parquet-java's default (vectored from 1.16)
      val parquetDefault = org.apache.parquet.HadoopReadOptions.builder(new org.apache.hadoop.conf.Configuration(false))
        .build().useHadoopVectoredIo()
      withSQLConf(FooterInterceptorConf.ReadKey -> "false") { assert(read() == (if (parquetDefault) rowGroups else 0)) }
    }
  }

  test("written files carry an extension that decodes to the Thrift footer") {
    withTempDir { dir =>
      spark.conf.set(FooterInterceptorConf.WriteKey, "true")
      try {
        spark.range(1000).selectExpr("id", "cast(id as string) s", "array(id) a", "named_struct('x', id) st")
          .repartition(2).write.option("parquet.block.size", "2048").parquet(dir.resolve("w").toString)
      } finally spark.conf.unset(FooterInterceptorConf.WriteKey)
      val files = parquetFiles(dir)
      assert(files.size == 2)
      files.foreach { f =>
        val footer = FooterFiles.readFooter(f)
        assert(FooterLayout.locate(footer.footer).isInstanceOf[FooterLayout.Present])
        val fb = FooterReader.read(footer)
        assert(fb.source == FooterSource.FlatBuffer)
        val thrift = FooterReader.thrift(footer.copy(footer = FooterFiles.thriftFooter(footer)))
        assert(MetadataDiff.diff(fb.metadata, thrift).isEmpty)
        val parquetJava = ParquetFileReader.open(HadoopInputFile.fromPath(
          new org.apache.hadoop.fs.Path(f.toString), spark.sparkContext.hadoopConfiguration))
        try assert(parquetJava.getRowGroups.size > 1) finally parquetJava.close()
        assert(FooterColumns.topLevelNames(footer).get.toSeq == Seq("id", "s", "a", "st"))
      }
    }
  }

  test("TailHoldingStream holds the tail from hold() on and writes it once with the extension") {
    withTempDir { dir =>
      spark.range(10).write.parquet(dir.resolve("src").toString)
      val file = parquetFiles(dir).head
      val bytes = Files.readAllBytes(file)
      val footer = FooterFiles.readFooter(file)
      val sink = new ByteArrayOutputStream()
      var closed = 0
      val under = new PositionOutputStream {
        override def getPos: Long = sink.size
        override def write(b: Int): Unit = sink.write(b)
        override def close(): Unit = closed += 1
      }
      val s = new TailHoldingStream(under, file.toString, io.superspark.parquet.footer.codec.FooterForm.Private)
      val split = (footer.footerOffset - 10).toInt // hold from a few bytes before the footer
      s.write(bytes, 0, split)
      s.hold()
      s.write(bytes, split, bytes.length - split)
      assert(sink.size == split && s.getPos == bytes.length)
      s.close()
      s.close()
      assert(closed == 1)
      val out = sink.toByteArray
      assert(java.util.Arrays.equals(out, 0, split + 10, bytes, 0, split + 10))
      val written = FooterFiles.readFooter("mem", out.length, (off, len) => java.util.Arrays.copyOfRange(out,
        off.toInt, off.toInt + len))
      assert(FooterReader.read(written).source == FooterSource.FlatBuffer)
    }
  }

  test("withExtension leaves tails it cannot handle unchanged") {
    val notParquet = "not a parquet tail".getBytes
    assert(TailHoldingStream.withExtension("x", notParquet) sameElements notParquet)
    val tooLong = Array[Byte](1, 2, 3) ++ FooterLayout.tail(1000)
    assert(TailHoldingStream.withExtension("x", tooLong) sameElements tooLong)
    val encrypted = Array[Byte](0) ++ FooterLayout.tail(1, FooterLayout.EncryptedMagic)
    assert(TailHoldingStream.withExtension("x", encrypted) sameElements encrypted)
  }
}
