package io.superspark.parquet.interceptor

import java.nio.file.{Files, Path}

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.{DataFrame, Row}

import io.superspark.SparkSessionSuite
import io.superspark.parquet.footer.files.FooterFiles
import io.superspark.parquet.footer.codec.FooterForm
import io.superspark.parquet.footer.tools.FooterTool

/**
 * Files written by Spark in each footer form (`spark.superspark.parquet.footer.form`) read
 * in Spark with the same results as the same data in plain PAR1 files: DSv1 and DSv2,
 * vectorized and row-based readers, filters, projections, nested columns, schema inference
 * and aggregate pushdown.
 */
class FooterFormsSparkSuite extends SparkSessionSuite {

  private lazy val dir: Path = Files.createTempDirectory("footer-forms-spark")

  private def parquetFiles(d: Path): Seq[Path] =
    Files.walk(d).iterator().asScala.filter(_.toString.endsWith(".parquet")).toSeq.sorted

  private def data: DataFrame = spark.range(0, 3000, 1, 3).selectExpr(
    "id",
    "CAST(id % 7 AS INT) AS k",
    "IF(id % 5 = 0, NULL, CONCAT('s', CAST(id AS STRING))) AS s",
    "id / 3.0 AS d",
    "CAST(id AS DECIMAL(20, 2)) AS dec",
    "DATE_ADD(DATE'2020-01-01', CAST(id % 400 AS INT)) AS day",
    "NAMED_STRUCT('a', id, 'b', CAST(id % 3 AS STRING)) AS st",
    "ARRAY(id, id + 1) AS arr")

  /** The same data, written plain and in each form (row groups small enough to have several). */
  private lazy val written: Map[String, String] = {
    val plain = dir.resolve("plain").toString
    withSQLConf("parquet.block.size" -> "16384") {
      data.write.option("parquet.block.size", "16384").parquet(plain)
      Seq("private", "intermediate", "final").foreach { form =>
        withSQLConf(FooterInterceptorConf.WriteKey -> "true", FooterInterceptorConf.FormKey -> form) {
          data.write.option("parquet.block.size", "16384").parquet(dir.resolve(form).toString)
        }
      }
    }
    (Seq("plain", "private", "intermediate", "final").map(f => f -> dir.resolve(f).toString)).toMap
  }

  private val queries: Seq[DataFrame => DataFrame] = Seq(
    df => df,
    df => df.where("k = 3 AND id > 1000").select("id", "s", "st.b"),
    df => df.where("s IS NULL").selectExpr("count(*)", "sum(id)"),
    df => df.groupBy("k").agg(org.apache.spark.sql.functions.count("*"), org.apache.spark.sql.functions.max("day")),
    df => df.selectExpr("min(id)", "max(id)", "count(id)", "min(k)", "max(dec)", "count(*)"),
    df => df.select("arr", "dec").where("id % 97 = 0"))

  private def rows(df: DataFrame): Seq[String] = df.collect().map(_.toString).sorted.toSeq

  test("Spark writes each form: tail magic, UUIDs, and files the tools verify") {
    val tails = written.map { case (form, path) =>
      form -> parquetFiles(java.nio.file.Paths.get(path)).map { f =>
        val b = Files.readAllBytes(f)
        (new String(b, b.length - 4, 4, "US-ASCII"), FooterFiles.formOf(FooterFiles.readFooter(f)).name)
      }.distinct
    }
    assert(tails("plain") == Seq(("PAR1", "plain")))
    assert(tails("private") == Seq(("PAR1", "private")))
    assert(tails("intermediate") == Seq(("PAR1", "intermediate")))
    assert(tails("final") == Seq(("PAR3", "final")))
    assert(parquetFiles(java.nio.file.Paths.get(written("final"))).size >= 3)
    val verify = FooterTool.verify(java.util.List.of(written("final")))
    assert(verify.contains("\"valid\"") && !verify.contains("mismatch") && !verify.contains("corrupt"), verify)
  }

  for (v2 <- Seq(false, true); vectorized <- Seq(true, false)) {
    val mode = s"${if (v2) "DSv2" else "DSv1"}, ${if (vectorized) "vectorized" else "row-based"}"
    test(s"every form reads as the plain files do ($mode, schema inference, aggregate pushdown)") {
      val paths = written
      withSQLConf("spark.sql.sources.useV1SourceList" -> (if (v2) "avro,csv,json,kafka,orc,text" else "parquet"),
          "spark.sql.parquet.enableVectorizedReader" -> vectorized.toString,
          "spark.sql.parquet.aggregatePushdown" -> "true") {
        val plain = spark.read.parquet(paths("plain"))
        val expected = queries.map(q => rows(q(plain)))
        for (form <- Seq("private", "intermediate", "final")) {
          val df = spark.read.parquet(paths(form))
          assert(df.schema == plain.schema, form)
          queries.zip(expected).zipWithIndex.foreach { case ((q, want), i) =>
            assert(rows(q(df)) == want, s"$form, query $i")
          }
        }
      }
    }
  }

  test("with the footer read path off, Spark's own reader refuses PAR3 files") {
    withSQLConf(FooterInterceptorConf.ReadKey -> "false") {
      val e = intercept[Exception](spark.read.parquet(written("final")).collect())
      assert(Iterator.iterate[Throwable](e)(_.getCause).takeWhile(_ != null).exists(
        t => Option(t.getMessage).exists(_.contains("CANNOT_READ_FILE_FOOTER"))), e)
    }
  }

  test("a damaged final-form footer fails the query naming the file and the reason") {
    val copy = dir.resolve("damaged")
    Files.createDirectories(copy)
    val src = parquetFiles(java.nio.file.Paths.get(written("final"))).head
    val bytes = Files.readAllBytes(src)
    val footer = FooterFiles.readFooter(src)
    val at = footer.footerOffset.toInt + 40 // inside the FlatBuffer
    bytes(at) = (bytes(at) ^ 0x10).toByte
    val target = copy.resolve(src.getFileName)
    Files.write(target, bytes)
    val e = intercept[Exception](spark.read.parquet(copy.toString).collect())
    val messages = Iterator.iterate[Throwable](e)(_.getCause).takeWhile(_ != null).flatMap(t => Option(t.getMessage)).toSeq
    assert(messages.exists(m => m.contains(target.getFileName.toString) && m.contains("flatbuffer_crc_mismatch")),
      messages.mkString("\n"))
  }

  test("an unknown footer form is a clear error") {
    // A registered entry: the bad value is refused when it is set, naming the key and the value.
    val e = intercept[IllegalArgumentException] {
      withSQLConf(FooterInterceptorConf.WriteKey -> "true", FooterInterceptorConf.FormKey -> "par3") {
        spark.range(1).write.parquet(dir.resolve("bad").toString)
      }
    }
    assert(e.getMessage.contains(FooterInterceptorConf.FormKey) && e.getMessage.contains("par3"), e.getMessage)
    assert(!Files.exists(dir.resolve("bad")))
    assert(FooterInterceptorConf.form(spark.sessionState.conf) == FooterForm.Private)
  }

  test("files migrated by the tool read the same in Spark") {
    val copy = dir.resolve("migrated")
    FooterTool.migrate(java.util.List.of(written("plain")), copy.toString, "final")
    assert(parquetFiles(copy).forall(f => FooterFiles.readFooter(f).isFinal))
    assert(rows(spark.read.parquet(copy.toString)) == rows(spark.read.parquet(written("plain"))))
    val back = dir.resolve("back")
    FooterTool.migrate(java.util.List.of(copy.toString), back.toString, "plain")
    parquetFiles(back).zip(parquetFiles(java.nio.file.Paths.get(written("plain")))).foreach { case (b, p) =>
      assert(Files.readAllBytes(b).sameElements(Files.readAllBytes(p)), s"$b differs from $p")
    }
  }
}
