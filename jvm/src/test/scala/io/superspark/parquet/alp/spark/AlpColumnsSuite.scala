package io.superspark.parquet.alp.spark

import java.nio.file.{Files, Path}

import scala.jdk.CollectionConverters._

import org.apache.hadoop.fs.{Path => HPath}
import org.apache.hadoop.mapreduce.TaskAttemptID
import org.apache.hadoop.mapreduce.task.TaskAttemptContextImpl
import org.apache.parquet.hadoop.ParquetInputFormat
import org.apache.spark.sql.execution.datasources.parquet.ParquetReadSupport
import org.apache.spark.sql.types.{DataType, DoubleType, FloatType, LongType, StructField, StructType}

import io.superspark.SparkSessionSuite
import io.superspark.parquet.alp.AlpChunkException
import io.superspark.parquet.interceptor.{CountingFileSystem, FooterSQLMetrics, FooterOpener, OpenedFooter}

/**
 * The ALP reader wrapper's own lifecycle ([[AlpColumns]]), below the Spark scans that
 * AlpFormsSparkSuite runs: which files get ALP columns, what Spark's reader is then given, and
 * that the ALP stream is closed on every path that does not hand it to the batch reader.
 * Streams are counted at the file system (`countfs`).
 */
class AlpColumnsSuite extends SparkSessionSuite {

  override protected def extraConf: Map[String, String] =
    Map("spark.hadoop.fs.countfs.impl" -> classOf[CountingFileSystem].getName)

  private lazy val dir: Path = Files.createTempDirectory("alp-columns")

  private def write(name: String, opts: (String, String)*): Path = {
    val out = dir.resolve(name)
    spark.range(0, 5000, 1, 1).selectExpr("id", "id * 0.25D AS price")
      .write.mode("overwrite").options(opts.toMap).parquet(out.toString)
    Files.walk(out).iterator().asScala.filter(_.toString.endsWith(".parquet")).toSeq.head
  }

  private lazy val plain = write("plain")
  private lazy val privateForm = write("private", "alpColumns" -> "price")
  private lazy val ratified = write("ratified", "alpColumns" -> "price", "alpForm" -> "ratified")

  private val idAndPrice = StructType(Seq(StructField("id", LongType), StructField("price", DoubleType)))

  private lazy val metrics = FooterSQLMetrics.create(spark.sparkContext)

  private def scan(required: StructType, enabled: Boolean = true) =
    AlpColumns.Scan(enabled, required, partitionColumns = 0, capacity = 4096, offHeapEnabled = false,
      caseSensitive = false, returningBatch = true, metrics.alpChunks, metrics.alpFallbacks)

  /** `scan`'s ALP columns of an opened file, with the whole footer read as the interceptor reads it. */
  private def alpColumns(scan: AlpColumns.Scan, path: HPath, opened: OpenedFooter): AlpColumns =
    scan.open(path, opened, FooterOpener.wholeFooter(opened, _, metrics), spark.sessionState.newHadoopConf())

  /** Opens `file`'s footer as the scan does (stream kept), runs `f`, closes the footer's stream. */
  private def withFooter[T](file: Path)(f: (HPath, OpenedFooter) => T): T = {
    val conf = spark.sessionState.newHadoopConf()
    val path = new HPath(s"countfs://$file")
    val opened = FooterOpener.open(conf, path, 0, Files.size(file), keepOpen = true, None, caseSensitive = false,
      strict = false, FooterSQLMetrics.create(spark.sparkContext)).get
    try f(path, opened) finally opened.inputStream.foreach(_.close())
  }

  test("a file or a scan without ALP columns gets NoAlp and opens no stream") {
    val cases = Seq(
      (plain, idAndPrice, true),                                        // no ALP data
      (privateForm, StructType(Seq(StructField("id", LongType))), true), // no float/double column asked for
      (privateForm, idAndPrice, false))                                 // ALP reads off (setting, row reader, field ids)
    for ((file, required, enabled) <- cases) withFooter(file) { (path, opened) =>
      val before = CountingFileSystem.openStreams
      val alp = alpColumns(scan(required, enabled), path, opened)
      assert(alp eq AlpColumns.NoAlp, s"$file $required $enabled")
      assert(CountingFileSystem.openStreams == before)
    }
  }

  test("ALP columns: Spark's reader reads the others, whole row groups; close before wrap closes the ALP stream") {
    for (file <- Seq(privateForm, ratified)) withFooter(file) { (path, opened) =>
      val before = CountingFileSystem.openStreams
      val alp = alpColumns(scan(idAndPrice), path, opened)
      assert(!(alp eq AlpColumns.NoAlp))
      assert(CountingFileSystem.openStreams == before + 1) // the ALP chunks' stream
      val conf = spark.sessionState.newHadoopConf()
      conf.set(ParquetReadSupport.SPARK_ROW_REQUESTED_SCHEMA, idAndPrice.json)
      val context = alp.context(new TaskAttemptContextImpl(conf, new TaskAttemptID()))
      val read = DataType.fromJson(context.getConfiguration.get(ParquetReadSupport.SPARK_ROW_REQUESTED_SCHEMA))
      assert(read == StructType(Seq(StructField("id", LongType))))
      assert(!context.getConfiguration.getBoolean(ParquetInputFormat.COLUMN_INDEX_FILTERING_ENABLED, true))
      alp.close()
      assert(CountingFileSystem.openStreams == before)
      alp.close() // once only
      assert(CountingFileSystem.openStreams == before)
    }
  }

  test("a plan that fails closes its stream") {
    // the ratified DOUBLE column asked for as float: no other data exists, so the plan fails
    val asFloat = StructType(Seq(StructField("id", LongType), StructField("price", FloatType)))
    withFooter(ratified) { (path, opened) =>
      val before = CountingFileSystem.openStreams
      val e = intercept[AlpChunkException](alpColumns(scan(asFloat), path, opened))
      assert(e.getMessage.contains("price"))
      assert(CountingFileSystem.openStreams == before)
    }
  }
}
