package io.superspark.parquet.footer.tools

import java.nio.file.{Files, Path}

import scala.jdk.CollectionConverters._

import com.fasterxml.jackson.databind.ObjectMapper
import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.{Path => HPath}
import org.apache.parquet.column.ParquetProperties.WriterVersion
import org.apache.parquet.example.data.Group
import org.apache.parquet.hadoop.ParquetReader
import org.apache.parquet.hadoop.example.GroupReadSupport
import org.apache.parquet.hadoop.metadata.CompressionCodecName

import io.superspark.SparkSessionSuite
import io.superspark.parquet.footer.FooterTestFiles
import io.superspark.parquet.footer.codec.FooterLayout
import io.superspark.parquet.footer.files.FooterFiles

/** The tools on real files: parquet-java and Spark read identical data after `add`. */
class FooterToolSuite extends SparkSessionSuite {

  private lazy val dir: Path = Files.createTempDirectory("footer-tool")
  private lazy val source: Path = FooterTestFiles.writeAllTypes(dir, "src.parquet", WriterVersion.PARQUET_2_0,
    CompressionCodecName.GZIP, bloom = true)
  private val json = new ObjectMapper()

  private def records(p: Path): Seq[String] = {
    val reader = ParquetReader.builder(new GroupReadSupport(), new HPath(p.toUri)).withConf(new Configuration()).build()
    try Iterator.continually(reader.read()).takeWhile(_ != null).map((g: Group) => g.toString).toVector
    finally reader.close()
  }

  private def statuses(result: String): Seq[String] =
    json.readTree(result).elements.asScala.map(_.get("status").asText).toSeq

  test("the tools' JSON is what Jackson writes for the same results, and Jackson reads it back") {
    val m = new java.util.LinkedHashMap[String, Any]()
    m.put("path", "/tmp/a \"b\"\\c\u0001\n\t\u00e9\u4e2d.parquet")
    m.put("status", "added"); m.put("extension", true); m.put("none", null)
    m.put("int", -7); m.put("long", 1L << 40); m.put("seconds", 1.728918769); m.put("tiny", 1e-7)
    val other = new java.util.LinkedHashMap[String, Any](); other.put("k", "v")
    val results = Seq(m, other)
    val text = ToolJson.write(results)
    assert(text == json.writeValueAsString(results.asJava))
    assert(json.readTree(text).get(0).get("path").asText == m.get("path"))
    assert(ToolJson.write(Nil) == "[]")
    m.put("bad", new Object)
    assertThrows[IllegalArgumentException](ToolJson.write(Seq(m)))
  }

  test("parquet-java reads identical records; strip restores the bytes") {
    val extended = dir.resolve("extended.parquet")
    assert(statuses(FooterTool.add(java.util.List.of(source.toString), extended.toString)) == Seq("added"))
    assert(Files.size(extended) > Files.size(source))
    val before = records(source)
    assert(before.size == 3000)
    assert(records(extended) == before)
    assert(statuses(FooterTool.verify(java.util.List.of(extended.toString))) == Seq("valid"))

    val stripped = dir.resolve("stripped.parquet")
    assert(statuses(FooterTool.strip(java.util.List.of(extended.toString), stripped.toString)) == Seq("stripped"))
    assert(java.util.Arrays.equals(Files.readAllBytes(stripped), Files.readAllBytes(source)))
  }

  test("Spark reads identical data from files it wrote, with filters on statistics") {
    FooterTestFiles.writeSparkFiles(spark, dir.resolve("spark")).foreach { table =>
      val out = dir.resolve("spark-ext").resolve(table.getFileName.toString)
      val added = statuses(FooterTool.add(java.util.List.of(table.toString), out.toString))
      assert(added.nonEmpty && added.forall(_ == "added"), added)
      val verified = statuses(FooterTool.verify(java.util.List.of(out.toString)))
      assert(verified.size == added.size && verified.forall(_ == "valid"), verified)
      val a = spark.read.parquet(table.toString)
      val b = spark.read.parquet(out.toString)
      assert(b.count() == 20000)
      assert(a.orderBy("id").collect().toSeq == b.orderBy("id").collect().toSeq)
      val filter = "l > 5000000000 AND s = 'name-3' AND d9 < 150"
      assert(a.where(filter).count() == b.where(filter).count())
    }
  }

  test("inspect reports sizes, CRC status and metadata source") {
    val extended = dir.resolve("inspect.parquet")
    FooterTool.add(java.util.List.of(source.toString), extended.toString)
    val r = json.readTree(FooterTool.inspect(java.util.List.of(extended.toString))).get(0)
    assert(r.get("status").asText == "present")
    assert(r.get("uuid").asText == FooterLayout.ExtensionUuid.toString)
    assert(r.get("size_crc").asText == "ok" && r.get("flatbuffer_crc").asText == "ok")
    assert(r.get("metadata_source").asText == "flatbuffer")
    assert(r.get("thrift_bytes").asLong == FooterFiles.readFooter(source).footer.length)
    assert(r.get("columns").asInt == 36 && r.get("num_rows").asLong == 3000)
  }

  test("Hadoop settings belong to the call they are given to, never to the process") {
    val files = (1 to 3).map { i =>
      val f = dir.resolve(s"settings-$i.parquet")
      Files.copy(source, f)
      java.util.List.of(f.toString)
    }
    def replace(result: String) = json.readTree(result).get(0).get("replace").asText
    val deleteRename = FooterTool.settings(java.util.List.of(s"${FooterRewrite.ReplaceKey}=delete-rename"), null)
    assert(replace(FooterTool.add(files(0), null, false, deleteRename)) == "delete-rename")
    assert(replace(FooterTool.add(files(1), null)) == "rename")
    // over a base configuration; a later -D of the same key wins
    val base = new Configuration()
    base.set(FooterRewrite.ReplaceKey, "delete-rename")
    assert(replace(FooterTool.add(files(2), null, false, FooterTool.settings(null, base))) == "delete-rename")
    val again = FooterTool.settings(java.util.List.of(s"${FooterRewrite.ReplaceKey}=nonsense",
      s"${FooterRewrite.ReplaceKey}=rename"), base)
    assert(replace(FooterTool.strip(files(2), null, false, again)) == "rename")
    assert(base.get(FooterRewrite.ReplaceKey) == "delete-rename")
    assert(ToolSettings.Default.conf().get(FooterRewrite.ReplaceKey) == null)
  }

  test("the command line's arguments: options and -D settings anywhere, an option without its value is a path") {
    val a = FooterTool.parse(List("-D", "a.b=1", "--to", "final", "x.parquet", "-Dc.d=2=3", "--output", "out",
      "--unsafe-in-place", "-D", "y.parquet", "--output"))
    assert(a.paths == Vector("x.parquet", "-D", "y.parquet", "--output"))
    assert((a.output, a.to, a.inPlace) == (("out", "final", true)))
    assert(a.settings.hadoop == Map("a.b" -> "1", "c.d" -> "2=3"))
    assert(FooterTool.parse(Nil) == FooterTool.Arguments())
  }
}
