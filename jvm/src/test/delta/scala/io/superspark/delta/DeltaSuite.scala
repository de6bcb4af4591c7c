package io.superspark.delta

import java.nio.file.{Files, Path}

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.{Row, SparkSession}
import org.apache.spark.sql.catalyst.InternalRow
import org.scalatest.funsuite.AnyFunSuite

import io.superspark.{SuperSparkExtensions, TestTags}
import io.superspark.delta.lake.FooterDeltaParquetFileFormat
import io.superspark.parquet.interceptor.FooterInterceptorConf
import io.superspark.parquet.footer.codec.FooterForm
import io.superspark.parquet.footer.files.FooterFiles
import io.superspark.parquet.footer.tools.FooterTableJob

/**
 * Delta Lake (delta-spark 4.4.0, on the Spark lines it supports) beside superspark: every
 * scenario runs in a session with both extensions (superspark's footer writes on) and in one
 * with Delta alone, and must give the same answers, which are also checked against values
 * computed here. Compiled and run only on lines with a Delta artifact (build.sbt).
 */
class DeltaSuite extends AnyFunSuite {

  private def withSession[T](superspark: Boolean)(f: SparkSession => T): T = {
    val extensions = (if (superspark) Seq(classOf[SuperSparkExtensions].getName) else Nil) :+
      "io.delta.sql.DeltaSparkSessionExtension"
    val builder = SparkSession.builder().master("local[2]").appName("DeltaSuite")
      .config("spark.sql.extensions", extensions.mkString(","))
      .config("spark.sql.catalog.spark_catalog", "org.apache.spark.sql.delta.catalog.DeltaCatalog")
      .config("spark.ui.enabled", "false")
      .config("spark.sql.shuffle.partitions", "2")
      // the sizes of Delta's jobs for a table of a few files on 2 cores: VACUUM lists the table in
      // this many tasks (Spark's default 10,000: 51-58 s a VACUUM here, 10-18 s with 4), and a
      // snapshot's state is rebuilt in this many partitions (Delta's default 50)
      .config("spark.sql.sources.parallelPartitionDiscovery.parallelism", "4")
      .config("spark.databricks.delta.snapshotPartitions", "2")
      .config("spark.databricks.delta.retentionDurationCheck.enabled", "false")
    if (superspark) builder.config(FooterInterceptorConf.WriteKey, "true")
    val spark = builder.getOrCreate()
    try f(spark) finally {
      spark.stop()
      SparkSession.clearActiveSession()
      SparkSession.clearDefaultSession()
    }
  }

  private def withDir[T](f: Path => T): T = {
    val dir = Files.createTempDirectory("delta-suite")
    try f(dir) finally org.apache.commons.io.FileUtils.deleteDirectory(dir.toFile)
  }

  private def rows(spark: SparkSession, sql: String): Seq[String] =
    spark.sql(sql).collect().map(_.toSeq.map(String.valueOf).mkString("|")).toSeq.sorted

  /** Runs `scenario` with and without superspark; both give the same snapshots, returned. */
  private def sameWithAndWithout(scenario: (SparkSession, Path) => Seq[(String, Seq[String])]): Map[String, Seq[String]] = {
    val withIt = withDir(d => withSession(superspark = true)(s => scenario(s, d)))
    val without = withDir(d => withSession(superspark = false)(s => scenario(s, d)))
    assert(withIt.map(_._1) == without.map(_._1))
    withIt.zip(without).foreach { case ((name, a), (_, b)) => assert(a == b, s"$name differs with superspark") }
    withIt.toMap
  }

  /** Runs `scenario` with superspark only: for scenarios whose every answer is checked against values
   * computed in the test (an independent path), where Delta alone would be a second, slower oracle. */
  private def withSuperspark(scenario: (SparkSession, Path) => Seq[(String, Seq[String])]): Map[String, Seq[String]] =
    withDir(d => withSession(superspark = true)(s => scenario(s, d))).toMap

  test("inserts, a partitioned table and column mapping (name mode) read the same with and without superspark") {
    val snaps = sameWithAndWithout { (spark, dir) =>
      val t = dir.resolve("t")
      spark.sql(s"CREATE TABLE delta.`$t` (id BIGINT, name STRING, part INT, price DOUBLE) USING delta " +
        "PARTITIONED BY (part) TBLPROPERTIES ('delta.columnMapping.mode' = 'name', " +
        "'delta.minReaderVersion' = '2', 'delta.minWriterVersion' = '5')")
      spark.range(0, 60).selectExpr("id", "concat('n', id) AS name", "CAST(id % 3 AS INT) AS part", "CAST(id * 1.5 AS DOUBLE) AS price")
        .write.format("delta").mode("append").save(t.toString)
      spark.sql(s"INSERT INTO delta.`$t` VALUES (100, 'x', 1, 0.25), (101, NULL, 2, NULL)")
      spark.sql(s"ALTER TABLE delta.`$t` RENAME COLUMN name TO label")
      Seq(
        "all" -> rows(spark, s"SELECT id, label, part, price FROM delta.`$t`"),
        "filtered" -> rows(spark, s"SELECT part, count(*), sum(price) FROM delta.`$t` WHERE id >= 30 GROUP BY part"),
        "files" -> Seq(spark.sql(s"DESCRIBE DETAIL delta.`$t`").select("partitionColumns").head().getSeq[String](0).mkString(",")))
    }
    assert(snaps("all").size == 62)
    assert(snaps("all").contains("100|x|1|0.25") && snaps("all").contains("101|null|2|null"))
    val byPart = snaps("filtered").map(_.split('|')).map(a => a(0).toInt -> (a(1).toLong, a(2).toDouble)).toMap
    (0 until 3).foreach { p =>
      val ids = (30L until 60L).filter(_ % 3 == p) ++ (if (p == 1) Seq(100L) else if (p == 2) Seq(101L) else Nil)
      val sum = (30L until 60L).filter(_ % 3 == p).map(_ * 1.5).sum + (if (p == 1) 0.25 else 0.0)
      assert(byPart(p) == (ids.size.toLong, sum), s"part $p")
    }
    assert(snaps("files") == Seq("part"))
  }

  test("MERGE, UPDATE and DELETE with deletion vectors read the rows computed here", TestTags.DeltaNewestLine) {
    val snaps = withSuperspark { (spark, dir) =>
      val t = dir.resolve("dv")
      spark.range(0, 1000).selectExpr("id", "id % 10 AS k", "CAST(id AS STRING) AS v").repartition(2)
        .write.format("delta").option("delta.enableDeletionVectors", "true").save(t.toString)
      spark.sql(s"ALTER TABLE delta.`$t` SET TBLPROPERTIES ('delta.enableDeletionVectors' = 'true')")
      spark.sql(s"DELETE FROM delta.`$t` WHERE k = 3")
      spark.sql(s"UPDATE delta.`$t` SET v = 'updated' WHERE k = 5")
      spark.range(990, 1010).selectExpr("id", "id % 10 AS k", "'merged' AS v").createOrReplaceTempView("src")
      spark.sql(s"MERGE INTO delta.`$t` AS t USING src AS s ON t.id = s.id " +
        "WHEN MATCHED THEN UPDATE SET v = s.v WHEN NOT MATCHED THEN INSERT *")
      val dvs = spark.sql(s"DESCRIBE HISTORY delta.`$t`").select("operationMetrics").collect()
        .map(_.getMap[String, String](0)).exists(_.get("numDeletionVectorsAdded").exists(_.toLong > 0))
      Seq(
        "rows" -> rows(spark, s"SELECT id, k, v FROM delta.`$t`"),
        "dvs" -> Seq(dvs.toString))
    }
    assert(snaps("dvs") == Seq("true"), "the DML wrote deletion vectors")
    // k = 3 was deleted below 990; the MERGE source (990 until 1010) inserts 993 back.
    val expected = ((0L until 1010L).filterNot(id => id < 990 && id % 10 == 3).map { id =>
      val v = if (id >= 990) "merged" else if (id % 10 == 5) "updated" else id.toString
      s"$id|${id % 10}|$v"
    }).sorted
    assert(snaps("rows") == expected)
  }

  test("OPTIMIZE, time travel, VACUUM and checkpoints read the rows computed here", TestTags.DeltaNewestLine) {
    val snaps = withSuperspark { (spark, dir) =>
      val t = dir.resolve("opt")
      (0 until 6).foreach { i =>
        spark.range(i * 10, i * 10 + 10).selectExpr("id", s"$i AS batch").write.format("delta").mode("append")
          .save(t.toString)
        if (i == 0) spark.sql(s"ALTER TABLE delta.`$t` SET TBLPROPERTIES ('delta.checkpointInterval' = '3')")
      }
      spark.sql(s"DELETE FROM delta.`$t` WHERE batch = 0")
      val before = spark.read.format("delta").load(t.toString).inputFiles.length
      spark.sql(s"OPTIMIZE delta.`$t`")
      val after = spark.read.format("delta").load(t.toString).inputFiles.length
      val v4 = rows(spark, s"SELECT count(*), max(id) FROM delta.`$t` VERSION AS OF 4") // before OPTIMIZE's rewrite
      spark.sql(s"VACUUM delta.`$t` RETAIN 0 HOURS")
      val checkpoints = Files.list(t.resolve("_delta_log")).iterator().asScala.count(_.toString.contains(".checkpoint."))
      Seq(
        "now" -> rows(spark, s"SELECT batch, count(*), sum(id) FROM delta.`$t` GROUP BY batch"),
        "v4" -> v4,
        "compacted" -> Seq((before > 1 && after == 1).toString),
        "checkpointed" -> Seq((checkpoints > 0).toString))
    }
    assert(snaps("now") == (1 until 6).map(b => s"$b|10|${(b * 10 until b * 10 + 10).sum}").sorted)
    assert(snaps("v4") == Seq("40|39")) // versions 0 (write), 1 (properties), 2..4 (writes)
    assert(snaps("compacted") == Seq("true") && snaps("checkpointed") == Seq("true"))
  }

  test("migrate_table on a Delta table is a Delta commit: new files in the form, same rows, deletion vectors and time travel kept") {
    withDir { dir =>
      withSession(superspark = true) { spark =>
        val t = dir.resolve("mig").toString
        spark.range(0, 400).selectExpr("id", "CAST(id % 4 AS INT) AS part", "CAST(id AS STRING) AS v").repartition(2)
          .write.format("delta").partitionBy("part").save(t)
        spark.sql(s"ALTER TABLE delta.`$t` SET TBLPROPERTIES ('delta.enableDeletionVectors' = 'true')")
        spark.sql(s"DELETE FROM delta.`$t` WHERE id % 10 = 7")
        val before = rows(spark, s"SELECT id, part, v FROM delta.`$t`")
        val version = spark.sql(s"DESCRIBE HISTORY delta.`$t`").selectExpr("max(version)").head().getLong(0)
        def files(): Seq[java.nio.file.Path] = spark.read.format("delta").load(t).inputFiles.toSeq
          .map(f => java.nio.file.Paths.get(new java.net.URI(f)))
        assert(files().forall(f => FooterFiles.formOf(FooterFiles.readFooter(f)) == FooterForm.Plain))

        val refused = intercept[java.io.IOException](FooterTableJob.run(spark, t, "migrate", "final", progress = false))
        val condition = refused.asInstanceOf[org.apache.spark.SparkThrowable]
        assert(condition.getCondition == "SUPERSPARK_DELTA_TABLE_REWRITE_REFUSED" && condition.getSqlState == "0A000" &&
          refused.getMessage.contains("PAR3"), refused.getMessage)

        val result = FooterTableJob.run(spark, t, "migrate", "intermediate", progress = false).collect()
        assert(result.nonEmpty && result.forall(_.getString(1) == "done"), result.mkString("\n"))
        val history = spark.sql(s"DESCRIBE HISTORY delta.`$t`").orderBy("version").collect()
        assert(history.last.getAs[Long]("version") == version + 1 && history.last.getAs[String]("operation") == "REORG")
        assert(files().size == result.length)
        assert(files().forall(f => FooterFiles.formOf(FooterFiles.readFooter(f)) == FooterForm.Intermediate))
        assert(rows(spark, s"SELECT id, part, v FROM delta.`$t`") == before) // deletion vectors still apply
        assert(rows(spark, s"SELECT id, part, v FROM delta.`$t` VERSION AS OF $version") == before) // old files
        assert(before.size == 400 - 40)
        val live = org.apache.spark.sql.delta.DeltaLog.forTable(spark, t).update().allFiles.collect()
        assert(live.exists(_.deletionVector != null), "the new files keep their deletion vectors")
        assert(live.forall(a => a.path.contains(".superspark-intermediate.parquet") && a.stats != null))

        val again = FooterTableJob.run(spark, t, "migrate", "intermediate", progress = false).collect()
        assert(again.map(_.getString(1)).toSet == Set("already"))
        assert(spark.sql(s"DESCRIBE HISTORY delta.`$t`").selectExpr("max(version)").head().getLong(0) == version + 1)
      }
    }
  }

  private def query(table: String, version: String = ""): String =
    s"SELECT id, label, part, price FROM delta.`$table`$version WHERE id >= 100 AND label <> 'n150'"

  test("Delta's scan preparation takes superspark's linear relation: files prepared, the same plan and rows as without") {
    import org.apache.spark.sql.execution.datasources.{HadoopFsRelation, LogicalRelation}
    import io.superspark.planning.LinearCanonicalRelation
    withDir { dir =>
      val t = dir.resolve("linear").toString
      withSession(superspark = true) { spark =>
        spark.range(0, 90).selectExpr("id", "CAST(id % 4 AS INT) AS k", "CAST(id * 0.5 AS DOUBLE) AS v")
          .repartition(3).write.format("delta").save(t)
        def query() = spark.sql(s"SELECT id FROM delta.`$t` WHERE k = 1 AND v > 10")
        def locations(df: org.apache.spark.sql.DataFrame) = df.queryExecution.optimizedPlan.collect {
          case LogicalRelation(r: HadoopFsRelation, _, _, _, _) => r.location.getClass.getSimpleName
        }
        val ours = query()
        assert(ours.queryExecution.analyzed.collect { case r: LogicalRelation => r.getClass } ==
          Seq(classOf[LinearCanonicalRelation]))
        // PrepareDeltaScan matched the relation (it canonicalizes it) and listed its files.
        assert(locations(ours) == Seq("PreparedDeltaFileIndex"))
        spark.conf.set("spark.superspark.plan.linearCanonicalization", "false")
        val theirs = try query() finally spark.conf.unset("spark.superspark.plan.linearCanonicalization")
        assert(theirs.queryExecution.analyzed.collect { case r: LogicalRelation => r.getClass } ==
          Seq(classOf[LogicalRelation]))
        assert(locations(theirs) == Seq("PreparedDeltaFileIndex"))
        assert(ours.queryExecution.optimizedPlan.canonicalized == theirs.queryExecution.optimizedPlan.canonicalized)
        val expected = (0L until 90L).filter(i => i % 4 == 1 && i * 0.5 > 10).sorted
        assert(ours.collect().map(_.getLong(0)).toSeq.sorted == expected)
        assert(theirs.collect().map(_.getLong(0)).toSeq.sorted == expected)
      }
    }
  }

  test("the scan's file-constant extractors are Delta's, without the table's metadata in each task") {
    import org.apache.spark.paths.SparkPath
    import org.apache.spark.sql.delta.{DefaultRowCommitVersion, DeltaLog, DeltaParquetFileFormat, RowId}
    import org.apache.spark.sql.execution.datasources.PartitionedFile
    import io.superspark.delta.lake.FooterDeltaParquetFileFormat
    withDir { dir =>
      val t = dir.resolve("wide").toString
      withSession(superspark = true) { spark =>
        // 2,000 columns: the table's metadata (its schema JSON) is large enough to show.
        spark.range(0, 10).selectExpr("id" +: (1 until 2000).map(i => s"id * $i AS c$i"): _*)
          .write.format("delta").save(t)
        val snapshot = DeltaLog.forTable(spark, t).update()
        val ser = new org.apache.spark.serializer.JavaSerializer(spark.sparkContext.getConf).newInstance()
        def bytes(o: AnyRef): Int = ser.serialize(o).limit()
        val metadataBytes = bytes(snapshot.metadata)
        for (nullable <- Seq(false, true)) {
          val delta = DeltaParquetFileFormat(snapshot.protocol, snapshot.metadata,
            nullableRowTrackingConstantFields = nullable, nullableRowTrackingGeneratedFields = nullable)
          val ours = new FooterDeltaParquetFileFormat(delta, None)
          val (theirs, mine) = (delta.fileConstantMetadataExtractors, ours.fileConstantMetadataExtractors)
          assert(mine.keySet == theirs.keySet)
          assert(bytes(theirs) > metadataBytes, "Delta's extractors carry the table's metadata")
          assert(bytes(mine) < metadataBytes / 20, s"${bytes(mine)} bytes against the metadata's $metadataBytes")
          val keys = Seq(RowId.BASE_ROW_ID, DefaultRowCommitVersion.METADATA_STRUCT_FIELD_NAME)
          val present = PartitionedFile(InternalRow.empty, SparkPath.fromUrlString("file:/x.parquet"), 0, 1,
            otherConstantMetadataColumnValues = Map(keys(0) -> 7L, keys(1) -> 3L))
          val missing = PartitionedFile(InternalRow.empty, SparkPath.fromUrlString("file:/y.parquet"), 0, 1)
          theirs.keySet.foreach(k => assert(mine(k)(present) == theirs(k)(present), k))
          keys.foreach { k =>
            if (nullable) assert(mine(k)(missing) == null && theirs(k)(missing) == null)
            else assert(intercept[IllegalStateException](mine(k)(missing)).getMessage ==
              intercept[IllegalStateException](theirs(k)(missing)).getMessage)
          }
        }
      }
    }
  }

  test("Delta scans read footers through the footer library: FlatBuffer footers in the scan metrics, the same rows as Delta alone") {
    import io.superspark.parquet.footer.tools.FooterTableJob
    import io.superspark.parquet.interceptor.FooterSQLMetrics
    withDir { dir =>
      val t = dir.resolve("scan").toString
      val (plain, dv) = withSession(superspark = true) { spark =>
        spark.sql(s"CREATE TABLE delta.`$t` (id BIGINT, name STRING, part INT, price DOUBLE) USING delta " +
          "PARTITIONED BY (part) TBLPROPERTIES ('delta.columnMapping.mode' = 'name', " +
          "'delta.minReaderVersion' = '2', 'delta.minWriterVersion' = '5')")
        spark.range(0, 300).selectExpr("id", "concat('n', id) AS name", "CAST(id % 3 AS INT) AS part",
          "CAST(id * 0.5 AS DOUBLE) AS price").repartition(2).write.format("delta").mode("append").save(t)
        spark.sql(s"ALTER TABLE delta.`$t` RENAME COLUMN name TO label")
        // Delta writes its files with Spark's own writer (no hook there): the footer comes by a Delta commit.
        val added = FooterTableJob.run(spark, t, "add", null, progress = false).collect()
        assert(added.nonEmpty && added.forall(_.getString(1) == "done"), added.mkString("\n"))

        def scan(sql: String): (Seq[String], Map[String, Long]) = {
          val df = spark.sql(sql)
          val out = df.collect().map(_.toSeq.map(String.valueOf).mkString("|")).toSeq.sorted
          (out, FooterSQLMetrics.ofPlan(df.queryExecution.executedPlan))
        }
        val (rowsOut, metrics) = scan(query(t))
        assert(rowsOut.size == 199)
        assert(rowsOut.contains("151|n151|1|75.5") && !rowsOut.exists(_.startsWith("150|")))
        assert(metrics("footers_flatbuffer") > 0 && metrics("footers_thrift") == 0 && metrics("fallbacks") == 0, metrics)

        // Deletion vectors: the row-deleted column is filled beside the footer library's reader.
        spark.sql(s"ALTER TABLE delta.`$t` SET TBLPROPERTIES ('delta.enableDeletionVectors' = 'true')")
        spark.sql(s"DELETE FROM delta.`$t` WHERE id % 10 = 3")
        val (dvRows, dvMetrics) = scan(query(t))
        assert(dvRows.size == 199 - 20 && !dvRows.exists(_.startsWith("153|")))
        assert(dvMetrics("footers_flatbuffer") > 0 && dvMetrics("footers_thrift") == 0 && dvMetrics("fallbacks") == 0,
          dvMetrics)
        (rowsOut, dvRows)
      }
      withSession(superspark = false) { spark =>
        assert(rows(spark, query(t, " VERSION AS OF 3")) == plain)
        assert(rows(spark, query(t)) == dv)
      }
    }
  }

  test("deletion vectors at every row group boundary, _metadata.row_index and row tracking's row ids: " +
    "read through the footer library, the same as Delta's reader and as Delta alone, in every split and both readers",
    TestTags.DeltaNewestLine) {
    import org.apache.hadoop.fs.{Path => HPath}
    import org.apache.parquet.hadoop.ParquetFileReader
    import org.apache.parquet.hadoop.util.HadoopInputFile
    import io.superspark.parquet.footer.tools.FooterTableJob
    import io.superspark.parquet.interceptor.FooterSQLMetrics
    withDir { dir =>
      val t = dir.resolve("rows").toString
      val queries = Seq(
        "rows" -> s"SELECT id, v FROM delta.`$t`",
        "filtered" -> s"SELECT count(*), sum(id) FROM delta.`$t` WHERE id % 7 <> 1 AND id >= 500",
        "row_index" -> s"SELECT id, _metadata.file_name, _metadata.row_index FROM delta.`$t`",
        "row_id" -> s"SELECT id, _metadata.row_id, _metadata.row_commit_version FROM delta.`$t`")
      def all(spark: SparkSession): Map[String, Seq[String]] = queries.map { case (k, q) => k -> rows(spark, q) }.toMap
      val (ours, theirs, deleted) = withSession(superspark = true) { spark =>
        spark.sparkContext.hadoopConfiguration.setInt("parquet.block.size", 8 << 10) // row groups of ~100s of rows
        spark.sql(s"CREATE TABLE delta.`$t` (id BIGINT, v STRING) USING delta TBLPROPERTIES (" +
          "'delta.enableDeletionVectors' = 'true', 'delta.enableRowTracking' = 'true')")
        spark.range(0, 6000, 1, 2).selectExpr("id", "concat('v', id) AS v").write.format("delta").mode("append").save(t)
        val idsBefore = spark.conf.get(FooterInterceptorConf.ReadKey)
        def vanilla[T](f: => T): T = {
          spark.conf.set(FooterInterceptorConf.ReadKey, "false")
          try f finally spark.conf.set(FooterInterceptorConf.ReadKey, idsBefore)
        }
        val rowIdsBefore = vanilla(rows(spark, queries.toMap.apply("row_id").replace(", _metadata.row_commit_version", "")))
        val added = FooterTableJob.run(spark, t, "add", null, progress = false).collect()
        assert(added.nonEmpty && added.forall(_.getString(1) == "done"), added.mkString("\n"))
        // The row groups of each file (parquet-java's own footer read) and, by Spark's reader, which id
        // sits at which row index: the ids at both sides of every row group boundary are deleted.
        val index = vanilla(spark.sql(s"SELECT id, _metadata.file_path, _metadata.row_index FROM delta.`$t`").collect())
          .map(r => (r.getString(1), r.getLong(2)) -> r.getLong(0)).toMap
        val files = index.keys.map(_._1).toSeq.distinct
        val boundaries = files.flatMap { f =>
          val reader = ParquetFileReader.open(HadoopInputFile.fromPath(new HPath(f), spark.sparkContext.hadoopConfiguration))
          val counts = try reader.getFooter.getBlocks.asScala.map(_.getRowCount) finally reader.close()
          assert(counts.size >= 5, s"$f has ${counts.size} row groups")
          val starts = counts.scanLeft(0L)(_ + _)
          starts.init.flatMap(s => Seq(s - 1, s)).filter(_ >= 0).map(i => index((f, i))) :+ index((f, starts.last - 1))
        }.toSet
        spark.sql(s"DELETE FROM delta.`$t` WHERE id IN (${boundaries.mkString(",")})")
        val dvs = spark.sql(s"DESCRIBE HISTORY delta.`$t`").select("operationMetrics").collect()
          .map(_.getMap[String, String](0)).exists(_.get("numDeletionVectorsAdded").exists(_.toLong > 0))
        assert(dvs, "the DELETE wrote deletion vectors")
        assert(vanilla(rows(spark, queries.toMap.apply("row_id").replace(", _metadata.row_commit_version", ""))) ==
          rowIdsBefore.filterNot(r => boundaries.contains(r.split('|')(0).toLong)), "add kept the row ids")
        // Ours, in both readers and in splits of a few row groups each; then Delta's reader in the same session.
        val runs = for ((vectorized, split) <- Seq("true" -> "128MB", "true" -> "16KB", "false" -> "16KB")) yield {
          spark.conf.set("spark.sql.parquet.enableVectorizedReader", vectorized)
          spark.conf.set("spark.sql.files.maxPartitionBytes", split)
          spark.conf.set("spark.sql.files.openCostInBytes", "1")
          try {
            val got = all(spark)
            val df = spark.sql(queries.toMap.apply("row_index"))
            df.collect()
            val m = FooterSQLMetrics.ofPlan(df.queryExecution.executedPlan)
            assert(m("footers_flatbuffer") > 0 && m("footers_thrift") == 0 && m("fallbacks") == 0, (vectorized, split, m))
            (vectorized, split, got, vanilla(all(spark)))
          } finally Seq("spark.sql.parquet.enableVectorizedReader", "spark.sql.files.maxPartitionBytes",
            "spark.sql.files.openCostInBytes").foreach(spark.conf.unset)
        }
        runs.foreach { case (v, sp, got, delta) =>
          queries.foreach { case (k, _) => assert(got(k) == delta(k), s"$k differs from Delta's reader (vectorized $v, split $sp)") }
        }
        (runs.head._3, runs.head._4, boundaries)
      }
      val alone = withSession(superspark = false)(all)
      assert(ours == alone && theirs == alone)
      // and by values computed here: the ids left, and each file's row indexes with gaps where rows were deleted
      val left = (0L until 6000L).filterNot(deleted.contains)
      assert(ours("rows") == left.map(id => s"$id|v$id").sorted)
      val kept = left.filter(id => id % 7 != 1 && id >= 500)
      assert(ours("filtered") == Seq(s"${kept.size}|${kept.sum}"))
      assert(ours("row_index").size == left.size && ours("row_id").size == left.size)
    }
  }

  test("pushed filters on Delta's physical column names: renamed, or weakened only where that is safe") {
    import org.apache.spark.sql.sources._
    val names = Map("a" -> "col-1", "b" -> "col-2")
    def r(f: Filter) = FooterDeltaParquetFileFormat.renamed(f, names)
    assert(r(EqualTo("a", 1)) == Some(EqualTo("col-1", 1)))
    assert(r(And(GreaterThan("a", 1), In("b", Array(1, 2)))).map(_.references.toSeq) == Some(Seq("col-1", "col-2")))
    assert(r(And(GreaterThan("a", 1), EqualTo("s.x", 2))) == Some(GreaterThan("col-1", 1)), "a conjunct may go")
    assert(r(Or(GreaterThan("a", 1), EqualTo("s.x", 2))).isEmpty, "an Or needs both sides")
    assert(r(Not(And(GreaterThan("a", 1), EqualTo("s.x", 2)))).isEmpty, "under Not nothing may be left out")
    assert(r(Not(Or(IsNull("a"), StringStartsWith("b", "x")))) == Some(Not(Or(IsNull("col-1"), StringStartsWith("col-2", "x")))))
  }
}
