package io.superspark.parquet.footer.codec

import java.nio.ByteBuffer
import java.nio.file.{Files, Path}

import scala.jdk.CollectionConverters._

import org.apache.parquet.column.ParquetProperties.WriterVersion
import org.apache.parquet.hadoop.metadata.{CompressionCodecName, ParquetMetadata}

import io.superspark.SparkSessionSuite
import io.superspark.parquet.footer.FooterTestFiles
import io.superspark.parquet.footer.files.{FooterBytes, FooterFiles, FooterReader, FooterSource}

/**
 * Thrift FileMetaData -> FlatBuffer -> ParquetMetadata equals parquet-java's own
 * Thrift -> ParquetMetadata, field by field, on files written by parquet-java and Spark;
 * and projected decodes equal the same projection applied to parquet-java's result.
 */
class FooterConversionSuite extends SparkSessionSuite {

  private lazy val dir: Path = Files.createTempDirectory("footer-conversion")

  private lazy val files: Seq[Path] = {
    val javaFiles = Seq(
      FooterTestFiles.writeAllTypes(dir, "v1_snappy.parquet"),
      FooterTestFiles.writeAllTypes(dir, "v2_zstd_bloom.parquet", WriterVersion.PARQUET_2_0,
        CompressionCodecName.ZSTD, bloom = true),
      FooterTestFiles.writeAllTypes(dir, "v1_plain_small.parquet", codec = CompressionCodecName.UNCOMPRESSED, rows = 10),
      FooterTestFiles.writeAllTypes(dir, "empty.parquet", rows = 0))
    javaFiles ++ FooterTestFiles.writeSparkFiles(spark, dir).flatMap(FooterTestFiles.parquetFiles)
  }

  private def flatBufferOf(footer: FooterBytes): ByteBuffer =
    ByteBuffer.wrap(FooterFiles.buildFlatBuffer(footer.path, footer.footer))

  private def decoded(buf: ByteBuffer, projection: Projection = Projection.Full): ParquetMetadata =
    FooterReader.decodeFlatBuffer(buf, projection).fold(r => fail(r.toString), identity)

  test("files under test cover row groups, statistics, nesting and every physical type") {
    assert(files.size >= 8)
    val all = files.map(f => FooterReader.thrift(FooterFiles.readFooter(f)))
    assert(all.exists(_.getBlocks.size >= 3), "a file with several row groups")
    val types = all.flatMap(_.getFileMetaData.getSchema.getColumns.asScala.map(_.getPrimitiveType.getPrimitiveTypeName)).toSet
    assert(types.size == 8, types)
    val stats = all.flatMap(_.getBlocks.asScala.flatMap(_.getColumns.asScala.map(_.getStatistics)))
    assert(stats.count(s => s.hasNonNullValue) > 100)
    assert(all.exists(_.getBlocks.asScala.exists(_.getColumns.asScala.exists(_.getBloomFilterOffset > 0))))
    assert(all.exists(_.getBlocks.asScala.exists(_.getColumns.asScala.exists(_.getColumnIndexReference != null))))
    assert(all.exists(_.getBlocks.asScala.exists(_.getColumns.asScala.exists(c =>
      c.getEncodingStats != null && c.getEncodingStats.hasDictionaryPages))))
  }

  test("full decode equals parquet-java's Thrift path field by field and as JSON") {
    files.foreach { f =>
      val footer = FooterFiles.readFooter(f)
      val expected = FooterReader.thrift(footer)
      val buf = flatBufferOf(footer)
      Seq(Projection.Full, Projection(lazyStatistics = false)).foreach { p =>
        val actual = decoded(buf, p)
        assert(MetadataDiff.diff(actual, expected).isEmpty, s"$f $p: ${MetadataDiff.diff(actual, expected)}")
        // As JSON trees: the lazy chunk class declares its getters in another order, and
        // encoding sets are hash sets of enums (identity hash codes), whose iteration order
        // may differ between two equal sets: compare those as sorted lists.
        val json = new com.fasterxml.jackson.databind.ObjectMapper()
        assert(sortedEncodings(json.readTree(ParquetMetadata.toJSON(actual))) ==
          sortedEncodings(json.readTree(ParquetMetadata.toJSON(expected))), s"$f $p")
      }
    }
  }

  test("lazy statistics equal eager ones, from any thread") {
    val footer = FooterFiles.readFooter(files.head)
    val lazyMd = decoded(flatBufferOf(footer))
    val chunks = lazyMd.getBlocks.asScala.flatMap(_.getColumns.asScala).toIndexedSeq
    assert(chunks.forall(_.isInstanceOf[LazyColumnChunkMetaData]))
    val expected = FooterReader.thrift(footer).getBlocks.asScala.flatMap(_.getColumns.asScala).toIndexedSeq
    val pool = java.util.concurrent.Executors.newFixedThreadPool(4)
    try {
      val futures = chunks.indices.map(i => pool.submit(() => chunks(i).getStatistics.toString))
      futures.zip(expected).foreach { case (f, e) => assert(f.get == e.getStatistics.toString) }
    } finally pool.shutdown()
    assert(chunks.map(_.getStatistics).zip(expected.map(_.getStatistics)).forall { case (a, b) => a == b })
  }

  test("fields ParquetMetadata does not carry match the Thrift footer (ThriftDiff)") {
    files.foreach { f =>
      val footer = FooterFiles.readFooter(f)
      val tmd = org.apache.parquet.format.Util.readFileMetaData(new java.io.ByteArrayInputStream(footer.footer))
      assert(ThriftDiff.diff(tmd, flatBufferOf(footer)).isEmpty, s"$f: ${ThriftDiff.diff(tmd, flatBufferOf(footer))}")
    }
    val footer = FooterFiles.readFooter(files.head)
    val buf = flatBufferOf(footer)
    def changed(edit: org.apache.parquet.format.FileMetaData => Unit): Option[String] = {
      val tmd = org.apache.parquet.format.Util.readFileMetaData(new java.io.ByteArrayInputStream(footer.footer))
      edit(tmd)
      ThriftDiff.diff(tmd, buf)
    }
    def meta(tmd: org.apache.parquet.format.FileMetaData, c: Int) = tmd.getRow_groups.get(1).getColumns.get(c).getMeta_data
    assert(changed(_.setVersion(7)).exists(_.contains("version")))
    assert(changed(t => meta(t, 5).getStatistics.setDistinct_count(3)).exists(_.contains("distinct_count")))
    assert(changed(t => meta(t, 5).getStatistics.setMin(Array[Byte](9))).exists(_.contains(" min:")))
    assert(changed(t => meta(t, 10).getStatistics.setMax_value("zz".getBytes)).exists(_.contains("max_value")))
    assert(changed(t => meta(t, 3).setIndex_page_offset(77)).exists(_.contains("index_page_offset")))
    assert(changed(_.getRow_groups.get(2).unsetFile_offset()).exists(_.contains("file_offset")))
  }

  test("MetadataDiff notices a difference") {
    val f = files.head
    val footer = FooterFiles.readFooter(f)
    val a = FooterReader.thrift(footer)
    val b = FooterReader.thrift(footer)
    b.getBlocks.get(0).setRowCount(a.getBlocks.get(0).getRowCount + 1)
    assert(MetadataDiff.diff(a, b).exists(_.contains("row group 0 row count")))
  }

  test("projected decode equals the projection of parquet-java's result") {
    val footer = FooterFiles.readFooter(files.head)
    val buf = flatBufferOf(footer)
    val full = FooterReader.thrift(footer)
    val n = full.getBlocks.size
    assert(n >= 3)
    val projections = Seq(
      Projection(columns = Some(Seq(Seq("i64"), Seq("s")))),
      Projection(columns = Some(Seq(Seq("nested")))),
      Projection(columns = Some(Seq(Seq("nested", "inner", "label"), Seq("props"), Seq("no_such")))),
      Projection(columns = Some(Seq.empty)),
      Projection(rowGroups = RowGroupSelection.Indices(Set(0, n - 1))),
      Projection(columns = Some(Seq(Seq("d"))), rowGroups = RowGroupSelection.Indices(Set(1))))
    projections.foreach { p =>
      val actual = decoded(buf, p)
      val expected = FooterReader.project(full, p)
      assert(MetadataDiff.diff(actual, expected).isEmpty, s"$p: ${MetadataDiff.diff(actual, expected)}")
    }
    val two = decoded(buf, projections.head)
    assert(two.getFileMetaData.getSchema.getColumns.size == 2)
    assert(two.getBlocks.asScala.forall(_.getColumns.size == 2))
    assert(decoded(buf, projections(4)).getBlocks.asScala.map(_.getRowIndexOffset) ==
      Seq(0L, full.getBlocks.asScala.dropRight(1).map(_.getRowCount).sum))
  }

  test("range row-group selection matches parquet-java's midpoint range filter") {
    val footer = FooterFiles.readFooter(files.head)
    val buf = flatBufferOf(footer)
    val len = footer.fileLength
    Seq((0L, len), (0L, len / 2), (len / 2, len), (len / 3, 2 * len / 3), (len, 2 * len)).foreach { case (s, e) =>
      val p = Projection(rowGroups = RowGroupSelection.Range(s, e))
      val expected = FooterReader.thrift(footer, p)
      val actual = decoded(buf, p)
      assert(MetadataDiff.diff(actual, expected).isEmpty, s"[$s, $e): ${MetadataDiff.diff(actual, expected)}")
    }
  }

  test("range selection without row-group total_compressed_size (sums every chunk)") {
    val footer = FooterFiles.readFooter(files.head)
    val tmd = org.apache.parquet.format.Util.readFileMetaData(new java.io.ByteArrayInputStream(footer.footer))
    tmd.getRow_groups.forEach(_.unsetTotal_compressed_size())
    val out = new java.io.ByteArrayOutputStream()
    org.apache.parquet.format.Util.writeFileMetaData(tmd, out)
    val legacy = footer.copy(footer = out.toByteArray)
    val buf = flatBufferOf(legacy)
    val len = footer.fileLength
    Seq((0L, len / 2), (len / 2, len)).foreach { case (s, e) =>
      val p = Projection(columns = Some(Seq(Seq("f"))), rowGroups = RowGroupSelection.Range(s, e))
      val actual = decoded(buf, p)
      val expected = FooterReader.thrift(legacy, p)
      assert(actual.getBlocks.size > 0)
      assert(MetadataDiff.diff(actual, expected).isEmpty, MetadataDiff.diff(actual, expected))
    }
  }

  test("readParquetMetadata on a parquet-java InputFile") {
    val conf = new org.apache.hadoop.conf.Configuration()
    val input = org.apache.parquet.hadoop.util.HadoopInputFile.fromPath(
      new org.apache.hadoop.fs.Path(files.head.toUri), conf)
    val md = FooterReader.readParquetMetadata(input, Projection(columns = Some(Seq(Seq("s")))))
    assert(md.getFileMetaData.getSchema.getColumns.size == 1)
    assert(MetadataDiff.diff(md, FooterReader.project(FooterReader.thrift(FooterFiles.readFooter(files.head)),
      Projection(columns = Some(Seq(Seq("s")))))).isEmpty)
  }

  test("signed string min/max option matches parquet-java's") {
    val footer = FooterFiles.readFooter(files.head)
    val p = Projection(useSignedStringMinMax = true)
    val actual = decoded(flatBufferOf(footer), p)
    assert(MetadataDiff.diff(actual, FooterReader.thrift(footer, p)).isEmpty)
  }

  test("the reader uses the FlatBuffer of an extended footer") {
    val f = files.head
    val footer = FooterFiles.readFooter(f)
    val extended = FooterLayout.appendExtension(footer.footer, flatBufferOf(footer).array())
    val read = FooterReader.read(footer.copy(footer = extended))
    assert(read.source == FooterSource.FlatBuffer && read.fallback.isEmpty)
    assert(MetadataDiff.diff(read.metadata, FooterReader.thrift(footer)).isEmpty)
    val plain = FooterReader.read(footer)
    assert(plain.source == FooterSource.Thrift && plain.fallback.isEmpty)
  }

  /** The tree with every array of strings under a name ending in "ncodings" sorted. */
  private def sortedEncodings(node: com.fasterxml.jackson.databind.JsonNode): com.fasterxml.jackson.databind.JsonNode = {
    import com.fasterxml.jackson.databind.node.{ArrayNode, ObjectNode}
    node match {
      case o: ObjectNode =>
        o.fieldNames.asScala.toList.foreach { name =>
          (o.get(name), name.endsWith("ncodings")) match {
            case (a: ArrayNode, true) if a.asScala.forall(_.isTextual) =>
              val sorted = o.arrayNode()
              a.asScala.map(_.asText).toSeq.sorted.foreach(t => sorted.add(t))
              o.set[com.fasterxml.jackson.databind.JsonNode](name, sorted)
            case (child, _) => sortedEncodings(child)
          }
        }
      case a: ArrayNode => a.asScala.foreach(sortedEncodings)
      case _ =>
    }
    node
  }
}
