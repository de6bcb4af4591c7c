package io.superspark.parquet.alp.spark

import java.nio.file.{Files, Path, StandardOpenOption}

import scala.jdk.CollectionConverters._

import org.apache.spark.SparkThrowable
import org.apache.spark.sql.{DataFrame, Row}
import org.apache.spark.sql.execution.SparkPlan

import io.superspark.SparkSessionSuite
import io.superspark.parquet.alp.{AlpChunk, AlpExtension, AlpFooter, AlpFooterRefs}
import io.superspark.parquet.footer.files.FooterFiles
import io.superspark.parquet.footer.codec.FooterLayout
import io.superspark.parquet.interceptor.{FooterInterceptorConf, FooterSQLMetrics}

/**
 * Both ALP forms written by Spark (write options and settings) and read back by Spark through
 * superspark: same rows as the same data written without ALP, with filters (row-group
 * pruning), projections, nulls, FLOAT and DOUBLE, several row groups, the scan metric, the
 * fallback to the ordinary chunk (private form), and vanilla Spark's failure on the ratified form.
 */
class AlpFormsSparkSuite extends SparkSessionSuite {

  private lazy val dir: Path = Files.createTempDirectory("alp-forms-spark")

  private def parquetFiles(d: String): Seq[Path] =
    Files.walk(Path.of(d)).iterator().asScala.filter(_.toString.endsWith(".parquet")).toSeq.sorted

  private def data: DataFrame = spark.range(0, 40000, 1, 2).selectExpr(
    "id",
    "ROUND(id * 0.01D + 3.5D, 2) AS price",
    "IF(id % 11 = 0, NULL, CAST(ROUND(id / 7.0, 1) AS FLOAT)) AS temp",
    "IF(id % 13 = 0, NULL, id * 1.0e-3D) AS reading",
    "CAST(id % 5 AS STRING) AS tag",
    "NAMED_STRUCT('x', id * 0.5D) AS st")

  private def write(df: DataFrame, path: String, opts: (String, String)*): String = {
    df.write.mode("overwrite").option("parquet.block.size", "65536").options(opts.toMap).parquet(path)
    path
  }

  private lazy val plain = write(data, dir.resolve("plain").toString)
  private lazy val privateForm = write(data, dir.resolve("private").toString, "alpColumns" -> "price,temp,reading")
  private lazy val ratified = write(data, dir.resolve("ratified").toString, "alpColumns" -> "*", "alpForm" -> "ratified")

  private val queries: Seq[DataFrame => DataFrame] = Seq(
    df => df,
    df => df.where("price > 300.0 AND price < 310.0").select("id", "price", "reading"),
    df => df.where("temp IS NULL").selectExpr("count(*)", "sum(price)"),
    df => df.selectExpr("sum(price)", "min(temp)", "max(reading)", "count(reading)"),
    df => df.where("tag = '3'").select("temp", "st.x"),
    df => df.select("price"))

  private def rows(df: DataFrame): Seq[String] = df.collect().map(_.toString).sorted.toSeq

  private def alpMetrics(df: DataFrame): (Long, Long) = {
    df.collect()
    FooterSQLMetrics.alpOfPlan(df.queryExecution.executedPlan)
  }

  test("private form: same rows as without ALP, through ALP chunks, with the vectorized reader on and off") {
    for (q <- queries) assert(rows(q(spark.read.parquet(privateForm))) == rows(q(spark.read.parquet(plain))))
    val (chunks, fallbacks) = alpMetrics(spark.read.parquet(privateForm).selectExpr("sum(price)", "sum(temp)"))
    assert(chunks > 0 && fallbacks == 0)
    withSQLConf("spark.sql.parquet.enableVectorizedReader" -> "false") {
      assert(rows(spark.read.parquet(privateForm)) == rows(spark.read.parquet(plain)))
    }
    withSQLConf("spark.superspark.parquet.alp.read" -> "false") {
      val df = spark.read.parquet(privateForm).select("price")
      assert(rows(df) == rows(spark.read.parquet(plain).select("price")))
      assert(alpMetrics(df)._1 == 0)
    }
  }

  test("private form: the ALP chunks lie before the ordinary chunks and each ColumnMetaData has the extension") {
    val files = parquetFiles(privateForm)
    val refs = files.flatMap(f => AlpFooter.scan(FooterFiles.thriftFooter(FooterFiles.readFooter(f))))
    val extended = refs.filter(_.ourExtension.isDefined)
    assert(extended.map(_.path.head).toSet == Set("price", "temp", "reading"))
    assert(refs.groupBy(_.rowGroup).size > 1, "several row groups")
    files.foreach { f =>
      val footer = FooterFiles.readFooter(f)
      val rs = AlpFooter.scan(FooterFiles.thriftFooter(footer))
      rs.groupBy(_.rowGroup).values.foreach { group =>
        val exts = group.flatMap(_.ourExtension).map(AlpExtension.parse(_, footer.footerOffset))
        assert(exts.size == 3)
        assert(exts.map(e => e.offset + e.size).max <= group.map(_.startingPos).min)
        assert(exts.forall(_.values == group.head.numValues))
      }
    }
  }

  test("private form: a column ALP does not shrink (random doubles) keeps its ordinary chunks alone") {
    // noise: k / 2^53 for hashed k, uniform doubles as numpy makes them (no short decimal form)
    val df = spark.range(0, 20000, 1, 2).selectExpr("id", "ROUND(id * 0.01D, 2) AS price",
      "pmod(xxhash64(id), 9007199254740992) / 9007199254740992.0D AS noise")
    val p = write(df, dir.resolve("private-noise").toString, "alpColumns" -> "price,noise")
    val refs = parquetFiles(p).flatMap(f => AlpFooter.scan(FooterFiles.thriftFooter(FooterFiles.readFooter(f))))
    assert(refs.exists(_.path == Seq("noise")) && refs.groupBy(_.rowGroup).size > 1)
    assert(refs.filter(_.ourExtension.isDefined).map(_.path.head).toSet == Set("price"))
    val want = df.collect().map(_.toString).sorted.toSeq
    def same(path: String): Unit = {
      val got = rows(spark.read.parquet(path))
      if (got != want) fail(s"$path: ${got.diff(want).size} rows differ, e.g. ${got.diff(want).take(2)}")
    }
    same(p)
    val (chunks, fallbacks) = alpMetrics(spark.read.parquet(p).selectExpr("sum(price)", "sum(noise)"))
    assert(chunks == refs.count(_.ourExtension.isDefined) && fallbacks == 0)
    assert(alpMetrics(spark.read.parquet(p).select("noise")) == ((0L, 0L)))
    // the ratified form keeps PLAIN pages: its noise chunks are ordinary PLAIN chunks (no ALP in encodings),
    // which vanilla Spark reads, with the same rows
    val r = write(df, dir.resolve("ratified-noise").toString, "alpColumns" -> "noise", "alpForm" -> "ratified")
    same(r)
    val rrefs = parquetFiles(r).flatMap(f => AlpFooter.scan(FooterFiles.thriftFooter(FooterFiles.readFooter(f))))
    val noise = rrefs.filter(_.path == Seq("noise"))
    assert(noise.nonEmpty && noise.forall(c => !c.isRatified && c.encodings.map(_._2).contains(AlpChunk.PlainEncoding)))
    assert(alpMetrics(spark.read.parquet(r).select("noise")) == ((0L, 0L)))
    withSQLConf(FooterInterceptorConf.ReadKey -> "false") {
      val got = rows(spark.read.parquet(r))
      assert(got == want)
    }
  }

  test("decoding straight into on-heap vectors reads what the page buffer path reads: batch sizes that cut ALP vectors, off-heap") {
    val want = rows(spark.read.parquet(plain))
    for (form <- Seq(privateForm, ratified); batch <- Seq("4096", "1000", "77"); offHeap <- Seq("false", "true")) {
      withSQLConf("spark.sql.parquet.columnarReaderBatchSize" -> batch, "spark.sql.columnVector.offheap.enabled" -> offHeap) {
        val df = spark.read.parquet(form)
        assert(rows(df) == want, s"$form batch $batch off-heap $offHeap")
        assert(alpMetrics(df.select("price", "temp"))._1 > 0)
      }
    }
  }

  /** The accumulables named `names` of the stages a write runs, summed (what the Spark UI shows per stage). */
  private def writeMetrics(run: => Unit): (Map[String, Long], Seq[String]) = {
    import org.apache.spark.scheduler.{SparkListener, SparkListenerStageCompleted}
    val counts = scala.collection.mutable.Map.empty[String, Long].withDefaultValue(0L)
    val choices = scala.collection.mutable.ArrayBuffer.empty[String]
    val listener = new SparkListener {
      override def onStageCompleted(e: SparkListenerStageCompleted): Unit = synchronized {
        e.stageInfo.accumulables.values.foreach { a =>
          (a.name, a.value) match {
            case (Some(n), Some(v: java.lang.Long)) => counts(n) += v
            case (Some(AlpWriteMetrics.ChoicesName), Some(v: java.util.List[_])) =>
              choices ++= v.asScala.map(_.toString)
            case _ =>
          }
        }
      }
    }
    spark.sparkContext.addSparkListener(listener)
    try { run; org.apache.spark.superspark.ListenerBusDrain(spark.sparkContext) } finally spark.sparkContext.removeSparkListener(listener)
    (counts.toMap, choices.toSeq)
  }

  test("each column is decided on its sample: decimal-like get ALP, random keep the ordinary encoding; metrics and inspect say why") {
    import AlpWriteMetrics._
    val df = spark.range(0, 30000, 1, 1).selectExpr("id", "ROUND(id * 0.01D, 2) AS price",
      "pmod(xxhash64(id), 9007199254740992) / 9007199254740992.0D AS noise",
      "CAST(ROUND(id / 8.0, 3) AS FLOAT) AS f")
    for (form <- Seq("private", "ratified")) {
      val path = dir.resolve(s"decided-$form").toString
      val (counts, choices) = writeMetrics(write(df, path, "alpColumns" -> "*", "alpForm" -> form))
      val files = parquetFiles(path)
      val rowGroups = files.map(f => FooterFiles.readFooter(f)).map(b =>
        AlpFooter.scan(FooterFiles.thriftFooter(b)).map(_.rowGroup).distinct.size).sum
      assert(rowGroups > 1)
      // price and f: ALP in every row group; noise: kept in every row group
      assert(counts(AlpChunksName) == 2 * rowGroups && counts(KeptChunksName) == rowGroups, counts)
      assert(counts(PlainPagesName) == (if (form == "ratified") rowGroups else 0), counts)
      assert(choices.size == 3 * rowGroups)
      val kept = if (form == "private") "kept PLAIN+SNAPPY" else "kept PLAIN"
      assert(choices.filter(_.contains(", noise: ")).forall(c => c.contains(s"noise: $kept (ALP estimate ") && c.contains(" > PLAIN+SNAPPY ")),
        choices)
      assert(choices.filter(c => c.contains(", price: ") || c.contains(", f: ")).forall(c => c.contains(": alp (ALP estimate ") &&
        c.contains(" <= PLAIN+SNAPPY ")), choices)
      // footer inspect lists the same choice for every column chunk
      val inspected = io.superspark.parquet.footer.tools.FooterTool.inspect(java.util.List.of(path))
      assert(inspected.contains("\"alp_chunks\":["))
      assert("\"column\":\"noise\",\"encoding\":\"kept PLAIN".r.findAllIn(inspected).size == rowGroups, inspected)
      assert("\"column\":\"price\",\"encoding\":\"alp\"".r.findAllIn(inspected).size == rowGroups, inspected)
      // the same rows, the ALP columns through ALP chunks
      assert(rows(spark.read.parquet(path)) == rows(df))
      assert(alpMetrics(spark.read.parquet(path).selectExpr("sum(price)", "sum(f)", "sum(noise)"))._1 == 2 * rowGroups)
    }
  }

  test("ratified form: pages decided one by one; a column ALP in some row groups and PLAIN in others reads as one") {
    // rows below 131,072 (two pages): prices; above: random doubles. One row group of 4 pages (mixed), then
    // row groups of 2^14 rows or 256 KiB (each ALP or PLAIN; parquet-java 1.15, Spark 4.0, has no row limit)
    val df = spark.range(0, 200000, 1, 1).selectExpr("id",
      "IF(id < 131072, ROUND(id * 0.01D, 2), pmod(xxhash64(id), 9007199254740992) / 9007199254740992.0D) AS v")
    val want = rows(df)
    val one = dir.resolve("ratified-pages").toString
    df.write.mode("overwrite").option("alpColumns", "v").option("alpForm", "ratified").parquet(one)
    val refs = parquetFiles(one).flatMap(f => AlpFooter.scan(FooterFiles.thriftFooter(FooterFiles.readFooter(f))))
      .filter(_.path == Seq("v"))
    assert(refs.size == 1 && refs.head.encodings.map(_._2).toSet - AlpChunk.RleEncoding == Set(AlpChunk.PlainEncoding, AlpChunk.AlpEncoding))
    assert(rows(spark.read.parquet(one)) == want)
    val inspected = io.superspark.parquet.footer.tools.FooterTool.inspect(java.util.List.of(one))
    assert(inspected.contains("\"encoding\":\"mixed\"") && inspected.contains("2 ALP, 2 PLAIN pages"), inspected)

    val many = dir.resolve("ratified-row-groups").toString
    df.write.mode("overwrite").option("alpColumns", "v").option("alpForm", "ratified")
      .option("parquet.block.row.count.limit", "16384").option("parquet.block.size", "262144").parquet(many)
    val chunks = parquetFiles(many).flatMap(f => AlpFooter.scan(FooterFiles.thriftFooter(FooterFiles.readFooter(f))))
      .filter(_.path == Seq("v"))
    assert(chunks.exists(_.isRatified) && chunks.exists(c => !c.isRatified))
    assert(rows(spark.read.parquet(many)) == want)
    assert(rows(spark.read.parquet(many).where("id > 90000 AND id < 140000")) == rows(df.where("id > 90000 AND id < 140000")))
    assert(alpMetrics(spark.read.parquet(many).select("v"))._1 == chunks.size)
    // split by bytes: each split plans only its own row groups (a split of PLAIN chunks only: Spark's reader)
    withSQLConf("spark.sql.files.maxPartitionBytes" -> "65536", "spark.sql.files.openCostInBytes" -> "1024") {
      assert(rows(spark.read.parquet(many)) == want)
    }
  }

  test("ratified form: each row group starts with its first leaf's chunk, so files split anywhere read every row once") {
    // large ALP chunks (all exceptions) beside small ordinary ones: before the first leaf, they
    // put the last row group's midpoint past the file's end, and Spark read no split of it
    val df = spark.range(0, 20000, 1, 2).selectExpr("id",
      "pmod(xxhash64(id), 9007199254740992) / 9007199254740992.0D AS noise", "ROUND(id * 0.01D, 2) AS price")
    val want = df.collect().map(_.toString).sorted.toSeq
    // (the ALP columns, the file's column order): the first leaf not ALP (twice), then ALP
    for ((alp, order) <- Seq("noise" -> Seq("id", "noise", "price"), "price" -> Seq("id", "noise", "price"),
        "noise,price" -> Seq("noise", "id", "price"))) {
      val first = order.head
      val p = write(df.select(order.map(df(_)): _*), dir.resolve(s"ratified-split-${alp.replace(',', '-')}").toString,
        "alpColumns" -> alp, "alpForm" -> "ratified")
      parquetFiles(p).foreach { f =>
        val refs = AlpFooter.scan(FooterFiles.thriftFooter(FooterFiles.readFooter(f)))
        assert(refs.groupBy(_.rowGroup).size > 1)
        refs.groupBy(_.rowGroup).values.foreach { rg =>
          assert(rg.minBy(_.column).path == Seq(first))
          assert(rg.minBy(_.column).startingPos == rg.map(_.startingPos).min, s"$f: row group ${rg.head.rowGroup}")
        }
      }
      for (maxBytes <- Seq("128m", "16k")) {
        withSQLConf("spark.sql.files.maxPartitionBytes" -> maxBytes, "spark.sql.files.openCostInBytes" -> "1024") {
          val got = spark.read.parquet(p).select("id", "noise", "price").collect().map(_.toString).sorted.toSeq
          if (got != want) fail(s"$p at $maxBytes: ${got.size} rows read of ${want.size}")
        }
      }
    }
  }

  /**
   * The private-form files copied to `name`, the first ALP chunk of each damaged by `damage`
   * (file, its footer, the extension payload): read through superspark, the rows are those of
   * the file without ALP, and each file's damaged chunk was read from its ordinary chunk.
   */
  private def fallsBackWhenDamaged(name: String, source: => String = privateForm)(damage: (Path, io.superspark.parquet.footer.files.FooterBytes,
      Array[Byte]) => Unit): Unit = {
    val copy = dir.resolve(name)
    Files.createDirectories(copy)
    parquetFiles(source).foreach(f => Files.copy(f, copy.resolve(f.getFileName)))
    parquetFiles(copy.toString).foreach { f =>
      val footer = FooterFiles.readFooter(f)
      damage(f, footer, AlpFooter.scan(FooterFiles.thriftFooter(footer)).flatMap(_.ourExtension).head)
    }
    val df = spark.read.parquet(copy.toString).select("price", "temp")
    assert(rows(df) == rows(spark.read.parquet(plain).select("price", "temp")))
    val (chunks, fallbacks) = alpMetrics(df)
    assert(fallbacks == parquetFiles(copy.toString).size && chunks > 0)
  }

  test("private form: a damaged extension or ALP chunk falls back to the ordinary chunk") {
    // flip a byte inside the first ALP chunk of every file: its crc32 no longer matches
    fallsBackWhenDamaged("private-damaged") { (f, footer, payload) =>
      val e = AlpExtension.parse(payload, footer.footerOffset)
      val ch = java.nio.channels.FileChannel.open(f, StandardOpenOption.READ, StandardOpenOption.WRITE)
      try {
        val b = java.nio.ByteBuffer.allocate(1)
        ch.read(b, e.offset + e.size / 2); b.flip()
        val flipped = java.nio.ByteBuffer.wrap(Array((b.get() ^ 0x5a).toByte))
        ch.write(flipped, e.offset + e.size / 2)
      } finally ch.close()
    }
  }

  test("private form: an ALP page that does not decode (crc32 intact) falls back to the ordinary chunk") {
    // the first ALP chunk of every file: byte 3 of its first page's body (the definition-level
    // length of a nullable column, ALP's num_elements of a required one) made wrong, then the
    // extension's crc32 made to match, so the page fails only when decoded
    val uncompressed = write(data, dir.resolve("private-uncompressed").toString, "alpColumns" -> "price,temp,reading",
      "compression" -> "none")
    fallsBackWhenDamaged("private-bad-page", uncompressed) { (f, footer, payload) =>
      val e = AlpExtension.parse(payload, footer.footerOffset)
      assert(e.codec.contains(0))
      val bytes = Files.readAllBytes(f)
      val header = new io.superspark.parquet.thrift.ThriftWalker(bytes, e.offset.toInt, e.size.toInt)
      header.fields((_, _) => false) // skips the page header
      val body = e.offset.toInt + header.pos
      bytes(body + 3) = 0x7f
      val crc = new java.util.zip.CRC32()
      crc.update(bytes, e.offset.toInt, e.size.toInt)
      val fixed = e.copy(crc32 = crc.getValue.toInt).toBytes
      val at = bytes.indexOfSlice(payload.toSeq, footer.footerOffset.toInt)
      assert(at > 0)
      System.arraycopy(fixed, 0, bytes, at, fixed.length)
      Files.write(f, bytes)
    }
  }

  test("ratified form: one chunk per column, ALP = 10 in encodings, read by superspark, not by vanilla Spark") {
    for (q <- queries) assert(rows(q(spark.read.parquet(ratified))) == rows(q(spark.read.parquet(plain))))
    val refs = parquetFiles(ratified).flatMap(f => AlpFooter.scan(FooterFiles.thriftFooter(FooterFiles.readFooter(f))))
    assert(refs.filter(_.isRatified).map(_.path.head).toSet == Set("price", "temp", "reading"))
    assert(refs.forall(_.ourExtension.isEmpty))
    val plainBytes = parquetFiles(plain).map(Files.size).sum
    val ratifiedBytes = parquetFiles(ratified).map(Files.size).sum
    assert(ratifiedBytes < plainBytes, s"ratified $ratifiedBytes vs plain $plainBytes")
    val (chunks, _) = alpMetrics(spark.read.parquet(ratified).selectExpr("sum(price)"))
    assert(chunks > 0)
    withSQLConf(FooterInterceptorConf.ReadKey -> "false") {
      val e = intercept[Exception](spark.read.parquet(ratified).select("price").collect())
      assert(e.getCause.getMessage.contains("Required field 'encoding' was not present"))
    }
  }

  test("ratified chunks are found from the footer alone: a file without the superspark.alp key") {
    // what another ALP writer makes: the same file, its footer re-encoded without our key
    val copy = dir.resolve("ratified-no-hint")
    Files.createDirectories(copy)
    parquetFiles(ratified).foreach { f =>
      val footer = FooterFiles.readFooter(f)
      val thrift = FooterFiles.thriftFooter(footer)
      val alp = AlpFooter.scan(thrift).filter(_.isRatified).map(r => (r.rowGroup, r.column)).toSet
      assert(alp.nonEmpty)
      val md = org.apache.parquet.format.Util.readFileMetaData(
        new java.io.ByteArrayInputStream(AlpFooter.maskAlpEncodings(thrift).get))
      assert(md.getKey_value_metadata.asScala.exists(_.getKey == AlpFooter.HintKey))
      md.setKey_value_metadata(md.getKey_value_metadata.asScala.filterNot(_.getKey == AlpFooter.HintKey).asJava)
      val out = new java.io.ByteArrayOutputStream()
      org.apache.parquet.format.Util.writeFileMetaData(md, out)
      val rewritten = AlpFooter.markAlpEncodings(out.toByteArray, alp)
      val bytes = Files.readAllBytes(f)
      val len = java.nio.ByteBuffer.allocate(4).order(java.nio.ByteOrder.LITTLE_ENDIAN).putInt(rewritten.length).array()
      Files.write(copy.resolve(f.getFileName),
        bytes.take(footer.footerOffset.toInt) ++ rewritten ++ len ++ "PAR1".getBytes("US-ASCII"))
      assert(AlpFooter.scan(FooterFiles.thriftFooter(FooterFiles.readFooter(copy.resolve(f.getFileName))))
        .filter(_.isRatified).map(r => (r.rowGroup, r.column)).toSet == alp)
    }
    for (q <- queries) assert(rows(q(spark.read.parquet(copy.toString))) == rows(q(spark.read.parquet(plain))))
    val (chunks, _) = alpMetrics(spark.read.parquet(copy.toString).selectExpr("sum(price)", "sum(temp)"))
    val expected = parquetFiles(copy.toString).map(f => AlpFooter.scan(FooterFiles.thriftFooter(FooterFiles.readFooter(f)))
      .count(r => r.isRatified && Set("price", "temp")(r.path.head))).sum
    assert(expected > 2 && chunks == expected, s"$chunks ALP chunks decoded, $expected in the files")
  }

  test("statistics prune row groups of ALP columns in both forms") {
    for (path <- Seq(privateForm, ratified)) {
      val df = spark.read.parquet(path).where("price < 5.0").select("price")
      val got = rows(df)
      assert(got == rows(spark.read.parquet(plain).where("price < 5.0").select("price")))
      val (chunks, _) = alpMetrics(df)
      val all = alpMetrics(spark.read.parquet(path).select("price"))._1
      assert(chunks < all, s"$path: $chunks of $all chunks read with a selective filter")
    }
  }

  test("settings choose columns and form; bad columns are refused naming them") {
    val p = dir.resolve("by-setting").toString
    withSQLConf("spark.superspark.parquet.alp.columns" -> "price", "spark.superspark.parquet.alp.form" -> "ratified") {
      data.write.mode("overwrite").parquet(p)
    }
    val refs = parquetFiles(p).flatMap(f => AlpFooter.scan(FooterFiles.thriftFooter(FooterFiles.readFooter(f))))
    assert(refs.filter(_.isRatified).map(_.path.head).toSet == Set("price"))
    assert(rows(spark.read.parquet(p)) == rows(spark.read.parquet(plain)))
    val e = intercept[Exception](data.write.mode("overwrite").option("alpColumns", "tag").parquet(p))
    assert(e.getMessage.contains("tag"))
  }

  test("bad ALP options are SUPERSPARK_ALP_INVALID_OPTION conditions (SQLSTATE 42K06) naming the option") {
    def error(options: Map[String, String], conf: (String, String)*): SparkThrowable = {
      var thrown: Throwable = null
      withSQLConf(conf: _*) {
        thrown = intercept[IllegalArgumentException](
          AlpWriteOptions.resolve(data.schema, options, spark.sessionState.conf))
      }
      thrown match {
        case t: SparkThrowable => t
        case other => fail(s"not a SparkThrowable: $other")
      }
    }
    val cases = Seq(
      error(Map("alpColumns" -> "tag")) -> ("NOT_FLOAT_OR_DOUBLE", "alpColumns"),
      error(Map("alpColumns" -> "nope")) -> ("NO_SUCH_COLUMN", "alpColumns"),
      error(Map("alpColumns" -> "price", "alpForm" -> "public")) -> ("FORM", "alpForm"),
      error(Map.empty, "spark.superspark.parquet.alp.columns" -> "tag") ->
        ("NOT_FLOAT_OR_DOUBLE", "spark.superspark.parquet.alp.columns"))
    cases.foreach { case (e, (reason, option)) =>
      assert(e.getCondition == s"SUPERSPARK_ALP_INVALID_OPTION.$reason" && e.getSqlState == "42K06", e)
      assert(e.getMessageParameters.get("option") == s"'$option'", e)
    }
    val onlyAlp = spark.range(3).selectExpr("id * 0.5D AS price")
    val ratified = intercept[IllegalArgumentException](AlpWriteOptions.resolve(onlyAlp.schema,
      Map("alpColumns" -> "price", "alpForm" -> "ratified"), spark.sessionState.conf))
    assert(ratified.asInstanceOf[SparkThrowable].getCondition ==
      "SUPERSPARK_ALP_INVALID_OPTION.RATIFIED_FORM_NEEDS_ANOTHER_COLUMN")
    // A write raises it as it is, before any task.
    val written = intercept[Exception](data.write.mode("overwrite").option("alpColumns", "tag")
      .parquet(dir.resolve("refused").toString))
    val chain = Iterator.iterate[Throwable](written)(_.getCause).takeWhile(_ != null).toSeq
    assert(chain.exists {
      case t: SparkThrowable => t.getCondition == "SUPERSPARK_ALP_INVALID_OPTION.NOT_FLOAT_OR_DOUBLE"
      case _ => false
    }, written)
  }

  test("DSv2 scans read both forms through the same reader") {
    withSQLConf("spark.sql.sources.useV1SourceList" -> "avro,csv,json,kafka,orc,text") {
      for (path <- Seq(privateForm, ratified); q <- queries.take(3)) {
        assert(rows(q(spark.read.parquet(path))) == rows(q(spark.read.parquet(plain))))
      }
    }
  }

  test("private form with the FlatBuffers footer: extensions carried in its slot, read in every footer form") {
    for (form <- Seq("private", "intermediate", "final")) {
      val p = dir.resolve(s"private-footer-$form").toString
      withSQLConf(FooterInterceptorConf.WriteKey -> "true", FooterInterceptorConf.FormKey -> form) {
        write(data, p, "alpColumns" -> "price,reading")
      }
      parquetFiles(p).foreach { f =>
        val footer = FooterFiles.readFooter(f)
        assert(FooterFiles.formOf(footer).name == form)
        // the FlatBuffer's slot holds the same extensions as the Thrift ColumnMetaData
        val fromSlot = footer.located match {
          case FooterLayout.Present(ext) =>
            val fb = io.superspark.parquet.footer.fbs.FileMetaData.getRootAsFileMetaData(
              java.nio.ByteBuffer.wrap(footer.footer, ext.flatBufferOffset, ext.flatBufferLength).slice())
            val e = fb.extensions(0)
            assert(fb.extensionsLength() == 1 && e.uuid().msb() == AlpExtension.Uuid.getMostSignificantBits)
            val d = e.dataAsByteBuffer(); val a = new Array[Byte](d.remaining); d.get(a)
            AlpFooter.parseSlot(a)
          case other => fail(s"$f: $other")
        }
        val refs = AlpFooterRefs.of(footer)
        assert(refs.filter(_.ourExtension.isDefined).map(r => (r.rowGroup, r.column)).toSet == fromSlot.keySet)
        assert(fromSlot.size == 2 * refs.map(_.rowGroup).distinct.size)
      }
      assert(rows(spark.read.parquet(p)) == rows(spark.read.parquet(plain)))
      assert(alpMetrics(spark.read.parquet(p).select("price"))._1 > 0, form)
    }
  }

  test("every file's ALP reader is closed when its scan ends or stops early (no open files stay behind)") {
    // FileScanRDD closes a file's iterator only when it is a java.io.Closeable
    def openFiles(): Int = Path.of("/proc/self/fd").toFile.list().length
    val scans: Seq[() => Unit] = Seq(privateForm, ratified).flatMap { p =>
      Seq(
        () => spark.read.parquet(p).select("price", "temp").collect(),
        () => spark.read.parquet(p).select("price").limit(3).collect(),
        () => withSQLConf("spark.sql.parquet.enableVectorizedReader" -> "true",
          "spark.sql.codegen.wholeStage" -> "false") { spark.read.parquet(p).select("reading").collect() })
    }
    assume(Files.isDirectory(Path.of("/proc/self/fd")), "needs /proc/self/fd")
    scans.foreach(_()) // warm: classes, jars, codecs
    val before = openFiles()
    for (_ <- 1 to 5; scan <- scans) scan()
    val leaked = openFiles() - before
    // 5 rounds of 6 scans over 2 files each would leave 60 streams or more open
    assert(leaked < 8, s"$leaked more open files after the scans")
    assert(alpMetrics(spark.read.parquet(ratified).select("price"))._1 > 0)
  }
}
