package io.superspark.parquet.footer

import java.nio.file.{Files, Path}

import scala.jdk.CollectionConverters._

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.{Path => HPath}
import org.apache.parquet.column.ParquetProperties.WriterVersion
import org.apache.parquet.example.data.simple.SimpleGroupFactory
import org.apache.parquet.hadoop.example.ExampleParquetWriter
import org.apache.parquet.hadoop.metadata.CompressionCodecName
import org.apache.parquet.io.api.Binary
import org.apache.parquet.schema.MessageTypeParser
import org.apache.spark.sql.SparkSession

/** Parquet files written by parquet-java and Spark (not by us) for the footer suites. */
object FooterTestFiles {

  /** Every physical type and (nearly) every logical/converted type parquet-java 1.17 knows. */
  val AllTypesSchema: String =
    """message all_types {
      |  required boolean b;
      |  optional int32 i32;
      |  optional int32 i8 (INTEGER(8,true));
      |  optional int32 u16 (INTEGER(16,false));
      |  optional int32 u32 (UINT_32);
      |  optional int64 i64 = 7;
      |  optional int64 u64 (INTEGER(64,false));
      |  optional int96 ts96;
      |  optional float f;
      |  optional double d;
      |  optional binary s (STRING);
      |  optional binary raw;
      |  optional binary e (ENUM);
      |  optional binary j (JSON);
      |  optional binary bs (BSON);
      |  optional fixed_len_byte_array(16) id (UUID);
      |  optional fixed_len_byte_array(2) half (FLOAT16);
      |  optional fixed_len_byte_array(12) iv (INTERVAL);
      |  optional int32 dec9 (DECIMAL(9,2));
      |  optional int64 dec18 (DECIMAL(18,4));
      |  optional fixed_len_byte_array(16) dec38 (DECIMAL(38,10));
      |  optional binary decb (DECIMAL(20,3));
      |  optional int32 day (DATE);
      |  optional int32 tms (TIME(MILLIS,true));
      |  optional int64 tus (TIME(MICROS,false));
      |  optional int64 tns (TIME(NANOS,true));
      |  optional int64 tsms (TIMESTAMP(MILLIS,true));
      |  optional int64 tsus (TIMESTAMP(MICROS,false));
      |  optional int64 tsns (TIMESTAMP(NANOS,true));
      |  optional int64 legacy_ts (TIMESTAMP_MICROS);
      |  optional binary geo (GEOMETRY);
      |  optional group nested = 3 {
      |    required int32 x;
      |    optional group inner {
      |      optional binary label (UTF8);
      |    }
      |  }
      |  optional group tags (LIST) {
      |    repeated group list {
      |      optional binary element (STRING);
      |    }
      |  }
      |  optional group props (MAP) {
      |    repeated group key_value (MAP_KEY_VALUE) {
      |      required binary key (STRING);
      |      optional int64 value;
      |    }
      |  }
      |}""".stripMargin

  private def le(bytes: Int, v: Long): Binary = {
    val a = new Array[Byte](bytes)
    (0 until bytes).foreach(i => a(i) = (v >>> (8 * (i % 8))).toByte)
    Binary.fromConstantByteArray(a)
  }

  /** A parquet-java file with all types, several row groups, nulls, dictionary and not. */
  def writeAllTypes(dir: Path, name: String, version: WriterVersion = WriterVersion.PARQUET_1_0,
      codec: CompressionCodecName = CompressionCodecName.SNAPPY, bloom: Boolean = false, rows: Int = 3000): Path = {
    val schema = MessageTypeParser.parseMessageType(AllTypesSchema)
    val file = dir.resolve(name)
    val builder = ExampleParquetWriter.builder(new HPath(file.toUri))
      .withType(schema)
      .withConf(new Configuration())
      .withWriterVersion(version)
      .withCompressionCodec(codec)
      .withRowGroupSize(64L * 1024)
      .withPageSize(4 * 1024)
      .withDictionaryEncoding(true)
      .withDictionaryEncoding("raw", false)
    if (bloom) builder.withBloomFilterEnabled("s", true).withBloomFilterEnabled("i64", true)
    val writer = builder.build()
    val f = new SimpleGroupFactory(schema)
    try {
      (0 until rows).foreach { r =>
        val g = f.newGroup()
        g.add("b", r % 3 == 0)
        if (r % 7 != 0) g.add("i32", r * 31 - 5000)
        g.add("i8", (r % 200) - 100)
        g.add("u16", r % 60000)
        g.add("u32", r * 1000)
        g.add("i64", r.toLong * 1000003L - 77L)
        g.add("u64", r.toLong * 99991L)
        g.add("ts96", le(12, r.toLong * 1000000L))
        g.add("f", r * 0.5f - 10f)
        if (r % 5 != 0) g.add("d", r * 1.25 - 3.0)
        g.add("s", s"string-${r % 50}-${"x" * (r % 30)}")
        g.add("raw", Binary.fromConstantByteArray(Array.tabulate[Byte](r % 40)(i => (i * r).toByte)))
        g.add("e", Seq("RED", "GREEN", "BLUE")(r % 3))
        g.add("j", s"""{"k": $r}""")
        g.add("bs", Binary.fromConstantByteArray(Array[Byte](5, 0, 0, 0, 0)))
        g.add("id", le(16, r.toLong * 0x9E3779B97F4A7C15L))
        g.add("half", le(2, (r % 1000).toLong))
        g.add("iv", le(12, r.toLong))
        g.add("dec9", r * 7)
        g.add("dec18", r.toLong * 123456789L)
        g.add("dec38", le(16, r.toLong * 31))
        g.add("decb", Binary.fromConstantByteArray(BigInt(r * 1000 + 7).toByteArray))
        g.add("day", 18000 + r)
        g.add("tms", r * 1000)
        g.add("tus", r.toLong * 1000000L)
        g.add("tns", r.toLong * 1000000000L)
        g.add("tsms", 1600000000000L + r)
        g.add("tsus", 1600000000000000L + r)
        g.add("tsns", 1600000000000000000L + r)
        g.add("legacy_ts", 1600000000000000L + r * 3L)
        // WKB point (x=r, y=-r), little-endian
        val wkb = java.nio.ByteBuffer.allocate(21).order(java.nio.ByteOrder.LITTLE_ENDIAN)
        wkb.put(1.toByte).putInt(1).putDouble(r.toDouble).putDouble(-r.toDouble)
        g.add("geo", Binary.fromConstantByteArray(wkb.array()))
        val n = g.addGroup("nested")
        n.add("x", r)
        if (r % 2 == 0) n.addGroup("inner").add("label", s"l$r")
        val tags = g.addGroup("tags")
        (0 until r % 4).foreach(i => tags.addGroup("list").add("element", s"t$i"))
        val props = g.addGroup("props")
        (0 until r % 3).foreach { i =>
          val kv = props.addGroup("key_value")
          kv.add("key", s"k$i")
          if (i != 1) kv.add("value", r.toLong * i)
        }
        writer.write(g)
      }
    } finally writer.close()
    file
  }

  /** Files Spark writes (flat, nested, INT96, legacy format, field ids), one folder each. */
  def writeSparkFiles(spark: SparkSession, dir: Path): Seq[Path] = {
    val df = spark.sql(
      """SELECT id, CAST(id % 2 = 0 AS BOOLEAN) AS flag, CAST(id % 100 AS BYTE) AS b,
        |  CAST(id AS SHORT) AS sh, CAST(id * 3 AS INT) AS i, id * 1000003 AS l,
        |  CAST(id / 7.0 AS FLOAT) AS f, id / 3.0 AS d,
        |  IF(id % 11 = 0, NULL, CONCAT('name-', CAST(id % 97 AS STRING))) AS s,
        |  CAST(CONCAT('bin', id) AS BINARY) AS bin,
        |  CAST(id / 100.0 AS DECIMAL(9,2)) AS d9, CAST(id * 1.5 AS DECIMAL(18,4)) AS d18,
        |  CAST(id * 12345.678 AS DECIMAL(38,10)) AS d38,
        |  DATE_ADD(DATE'2020-01-01', CAST(id % 1000 AS INT)) AS day,
        |  TIMESTAMP_SECONDS(1600000000 + id) AS ts,
        |  CAST(TIMESTAMP_SECONDS(1600000000 + id) AS TIMESTAMP_NTZ) AS ntz,
        |  ARRAY(id, id + 1, NULL) AS arr,
        |  MAP(CONCAT('k', CAST(id % 5 AS STRING)), id) AS m,
        |  NAMED_STRUCT('a', id, 'b', CAST(id AS STRING), 'c', ARRAY(NAMED_STRUCT('x', id))) AS st
        |FROM RANGE(20000)""".stripMargin)
    def write(name: String, conf: Map[String, String], data: org.apache.spark.sql.DataFrame = df): Path = {
      val out = dir.resolve(name)
      val old = conf.keys.map(k => k -> spark.conf.getOption(k)).toMap
      conf.foreach { case (k, v) => spark.conf.set(k, v) }
      try data.coalesce(1).write.option("parquet.block.size", "65536").parquet(out.toString)
      finally old.foreach { case (k, v) => v.fold(spark.conf.unset(k))(spark.conf.set(k, _)) }
      out
    }
    Seq(
      write("spark_default", Map.empty),
      write("spark_int96_gzip", Map("spark.sql.parquet.outputTimestampType" -> "INT96",
        "spark.sql.parquet.compression.codec" -> "gzip")),
      write("spark_legacy", Map("spark.sql.parquet.writeLegacyFormat" -> "true")),
      write("spark_zstd", Map("spark.sql.parquet.compression.codec" -> "zstd")))
  }

  def parquetFiles(dirOrFile: Path): Seq[Path] =
    if (Files.isDirectory(dirOrFile)) {
      val s = Files.list(dirOrFile)
      try s.iterator.asScala.filter(p => p.getFileName.toString.endsWith(".parquet")).toSeq.sorted
      finally s.close()
    } else Seq(dirOrFile)
}
