package io.superspark.parquet.footer.codec

import java.nio.ByteBuffer
import java.nio.file.{Files, Path, Paths}

import scala.jdk.CollectionConverters._

import com.fasterxml.jackson.databind.ObjectMapper
import org.apache.parquet.column.ParquetProperties.WriterVersion
import org.apache.parquet.hadoop.metadata.{CompressionCodecName, ParquetMetadata}
import org.scalatest.funsuite.AnyFunSuite
import io.superspark.parquet.ParquetFooterException
import io.superspark.parquet.footer.{FlatBufferFooterException, FooterTestFiles}
import io.superspark.parquet.footer.files.{FooterBytes, FooterFiles, FooterReader, FooterSource}
import io.superspark.parquet.footer.tools.FooterTool

/**
 * The three footer forms (private, intermediate, final), FlatBuffer -> Thrift rebuilds, the
 * v1 extension slot, `migrate`, and the final form's defences against corruption.
 */
class FooterFormsSuite extends AnyFunSuite {

  private lazy val dir: Path = Files.createTempDirectory("footer-forms")
  private lazy val files: Seq[Path] = Seq(
    FooterTestFiles.writeAllTypes(dir, "v1-snappy.parquet"),
    FooterTestFiles.writeAllTypes(dir, "v2-gzip.parquet", WriterVersion.PARQUET_2_0, CompressionCodecName.GZIP),
    FooterTestFiles.writeAllTypes(dir, "v1-plain.parquet", codec = CompressionCodecName.UNCOMPRESSED, rows = 10))
  private lazy val small: Path = files.last

  private val json = new ObjectMapper()

  private def parse(thrift: Array[Byte]) = org.apache.parquet.format.Util.readFileMetaData(
    new java.io.ByteArrayInputStream(thrift))

  private def flatBufferOf(thrift: Array[Byte], ext: Seq[FlatBufferBuild.FooterExtension] = Nil) =
    ThriftCompactToFlatBuffer.convertParsed(parse(thrift), ext)

  private def sameMetadata(actual: ParquetMetadata, expected: ParquetMetadata): Unit = {
    val d = MetadataDiff.diff(actual, expected)
    assert(d.isEmpty, d)
  }

  /** A file's bytes with its tail (from the footer start) replaced. */
  private def withTail(file: Path, tail: Array[Byte], name: String): Path = {
    val footer = FooterFiles.readFooter(file)
    val out = dir.resolve(name)
    Files.write(out, java.util.Arrays.copyOf(Files.readAllBytes(file), footer.footerOffset.toInt) ++ tail)
    out
  }

  private def tool(result: String): Seq[java.util.Map[String, Any]] =
    json.readValue(result, classOf[java.util.List[java.util.Map[String, Any]]]).asScala.toSeq

  test("Thrift -> FlatBuffer -> Thrift rebuilds parquet-java's footers byte for byte") {
    files.foreach { f =>
      val thrift = FooterFiles.readFooter(f).footer
      val rebuilt = FlatBufferToThrift.rebuild(flatBufferOf(thrift))
      assert(rebuilt.sameElements(thrift), s"$f: first difference at ${thrift.indices.find(i => rebuilt(i) != thrift(i))}")
    }
  }

  test("a v0 buffer (no file_offset kept) rebuilds everything but ColumnChunk.file_offset") {
    val thrift = FooterFiles.readFooter(small).footer
    val t = parse(thrift)
    t.getRow_groups.asScala.foreach(_.getColumns.asScala.foreach(_.setFile_offset(0L)))
    // The writer always keeps file_offset now; with it zeroed in the source, the rebuild agrees.
    assert(FlatBufferToThrift.toThrift(ByteBuffer.wrap(ThriftCompactToFlatBuffer.convertParsed(t))) == t)
  }

  /** parquet-testing's files (shared/corpus beside the repository), when present. */
  private lazy val corpus: Option[Path] = io.superspark.SharedData.parquetTestingData

  test("parquet-testing corpus: rebuilt footers equal the originals, except the documented cases") {
    assume(corpus.isDefined, "parquet-testing corpus not found")
    val results = tool(FooterTool.roundtrip(java.util.List.of(corpus.get.toString)))
    val byStatus = results.groupBy(_.get("status").toString).map { case (k, v) =>
      k -> v.map(r => Paths.get(r.get("path").toString).getFileName.toString).sorted }
    // See docs/parquet-footer.md ("FlatBuffer -> Thrift"): why each of these is not exact.
    assert(byStatus.getOrElse("equivalent", Nil) == Seq("dict-page-offset-zero.parquet"))
    assert(byStatus.getOrElse("different", Nil).isEmpty, results)
    assert(byStatus.getOrElse("error", Nil).isEmpty, results)
    assert(byStatus.getOrElse("refused", Nil).sorted == Seq("encrypt_columns_plaintext_footer.parquet.encrypted",
      "encrypt_columns_plaintext_footer.parquet.encrypted", "unknown-logical-type.parquet").sorted)
    // Statistics.nan_count and the IEEE 754 total order, unknown to parquet-java 1.17, come back too.
    assert(byStatus("exact").contains("floating_orders_nan_count.parquet"))
    assert(byStatus("exact").size >= 70, byStatus("exact").size)
  }

  test("final form: FlatBuffer, crc32, size, crc32(size), PAR3; read back as the Thrift footer reads") {
    files.foreach { f =>
      val thrift = FooterFiles.readFooter(f).footer
      val tail = FooterFiles.tailFor(f.toString, thrift, FooterForm.Final)
      val fb = flatBufferOf(thrift)
      val k = fb.length
      assert(tail.length == k + 16)
      assert(tail.take(k).sameElements(fb))
      assert(FooterLayout.getIntLE(tail, k) == FooterLayout.crc32(fb, 0, k))
      assert(FooterLayout.getIntLE(tail, k + 4) == k)
      assert(FooterLayout.getIntLE(tail, k + 8) == FooterLayout.crc32(tail, k + 4, 4))
      assert(new String(tail, k + 12, 4, "US-ASCII") == "PAR3")

      val par3 = withTail(f, tail, s"final-${f.getFileName}")
      val footer = FooterFiles.readFooter(par3)
      assert(footer.isFinal && footer.footerOffset == FooterFiles.readFooter(f).footerOffset)
      val expected = FooterReader.thrift(FooterFiles.readFooter(f))
      val r = FooterReader.read(footer)
      assert(r.source == FooterSource.FlatBuffer && r.fallback.isEmpty)
      sameMetadata(r.metadata, expected)
      val projection = Projection(columns = Some(Seq(Seq("s"), Seq("nested"))), rowGroups = RowGroupSelection.Indices(Set(0)))
      sameMetadata(FooterReader.read(footer, projection).metadata, FooterReader.project(expected, projection))
      // other readers refuse it
      intercept[Exception](org.apache.parquet.hadoop.ParquetFileReader.readFooter(
        new org.apache.hadoop.conf.Configuration(), new org.apache.hadoop.fs.Path(par3.toUri)))
    }
  }

  test("intermediate form: the private layout with UUID2, read from the FlatBuffer") {
    val thrift = FooterFiles.readFooter(small).footer
    val tail = FooterFiles.tailFor(small.toString, thrift, FooterForm.Intermediate)
    val footerBytes = tail.dropRight(8)
    assert(footerBytes.slice(footerBytes.length - 17, footerBytes.length - 1).sameElements(
      FooterLayout.uuidBytes(java.util.UUID.fromString("0bf05d6e-a6b1-4680-8f44-7ab52410a75f"))))
    val file = withTail(small, tail, "intermediate.parquet")
    val footer = FooterFiles.readFooter(file)
    assert(FooterFiles.formOf(footer) == FooterForm.Intermediate)
    val r = FooterReader.read(footer, strict = true)
    assert(r.source == FooterSource.FlatBuffer)
    sameMetadata(r.metadata, FooterReader.thrift(FooterFiles.readFooter(small)))
    // parquet-java reads the Thrift part and skips the extension
    val pj = org.apache.parquet.hadoop.ParquetFileReader.readFooter(new org.apache.hadoop.conf.Configuration(),
      new org.apache.hadoop.fs.Path(file.toUri))
    sameMetadata(pj, r.metadata)
  }

  test("UUID2 and PAR3 need a v1 buffer (schema_version); UUID1 still reads v0 buffers") {
    val thrift = FooterFiles.readFooter(small).footer
    // A v0 buffer: the same content without schema_version.
    val v1 = flatBufferOf(thrift)
    val md = FlatBufferDecoder.root(ByteBuffer.wrap(v1))
    assert(md.hasSchemaVersion && md.schemaVersion == 1)
    val v0 = stripSchemaVersion(v1)
    assert(!FlatBufferDecoder.root(ByteBuffer.wrap(v0)).hasSchemaVersion)
    val privateV0 = FooterBytes("p", 0, 0, FooterLayout.appendExtension(thrift, v0, FooterForm.Private))
    assert(FooterReader.read(privateV0, strict = true).source == FooterSource.FlatBuffer)
    val intermediateV0 = FooterBytes("i", 0, 0, FooterLayout.appendExtension(thrift, v0, FooterForm.Intermediate))
    val fallback = FooterReader.read(intermediateV0)
    assert(fallback.source == FooterSource.Thrift && fallback.fallback.get.code == "undecodable")
    assert(fallback.fallback.get.message.contains("schema_version"))
    val finalV0 = FooterBytes("f.parquet", 1000, 900, FooterLayout.finalTail(v0).dropRight(4), isFinal = true)
    val e = intercept[FlatBufferFooterException](FooterReader.read(finalV0))
    assert(e.reason.code == "undecodable" && e.getMessage.contains("f.parquet") && e.getMessage.contains("byte 900"))
  }

  /** The buffer with FileMetaData.schema_version's vtable entry cleared (as a v0 writer leaves it). */
  private def stripSchemaVersion(fb: Array[Byte]): Array[Byte] = {
    val out = fb.clone()
    val bb = ByteBuffer.wrap(out).order(java.nio.ByteOrder.LITTLE_ENDIAN)
    val root = bb.getInt(0)
    val vt = root - bb.getInt(root)
    bb.putShort(vt + 16, 0.toShort)
    out
  }

  test("an extension entry unknown to the reader is skipped, in every form") {
    val thrift = FooterFiles.readFooter(small).footer
    val unknown = FlatBufferBuild.FooterExtension(java.util.UUID.randomUUID(), Array.tabulate[Byte](300)(_.toByte))
    val fb = flatBufferOf(thrift, Seq(unknown))
    val root = FlatBufferDecoder.root(ByteBuffer.wrap(fb))
    assert(root.extensionsLength == 1 && root.extensions(0).uuid.msb == unknown.uuid.getMostSignificantBits &&
      root.extensions(0).dataLength == 300)
    assert(fb.length > flatBufferOf(thrift).length + 300)
    val expected = FooterReader.thrift(FooterFiles.readFooter(small))
    for (form <- Seq(FooterForm.Private, FooterForm.Intermediate)) {
      val r = FooterReader.read(FooterBytes("x", 0, 0, FooterLayout.appendExtension(thrift, fb, form)), strict = true)
      assert(r.source == FooterSource.FlatBuffer)
      sameMetadata(r.metadata, expected)
    }
    val r = FooterReader.read(FooterBytes("x", 0, 0, FooterLayout.finalTail(fb).dropRight(4), isFinal = true))
    sameMetadata(r.metadata, expected)
    // and the footer rebuilt from it is the original Thrift footer (the entry is not Thrift's)
    assert(FlatBufferToThrift.rebuild(fb).sameElements(thrift))
  }

  test("migrate: every form to every other and back; final -> plain is byte-identical; data pages untouched") {
    val original = Files.readAllBytes(small)
    val dataEnd = FooterFiles.readFooter(small).footerOffset.toInt
    val forms = Seq("private", "intermediate", "final", "plain")
    val work = dir.resolve("migrate.parquet")
    Files.write(work, original)
    val expected = FooterReader.thrift(FooterFiles.readFooter(small))
    for (from <- forms; to <- forms) {
      val first = tool(FooterTool.migrate(java.util.List.of(work.toString), null, from)).head
      assert(Set("migrated", "unchanged")(first.get("status").toString), first)
      val r = tool(FooterTool.migrate(java.util.List.of(work.toString), null, to)).head
      assert(r.get("status") == (if (from == to) "unchanged" else "migrated"), r)
      assert(r.get("from") == from && r.get("to") == to)
      val bytes = Files.readAllBytes(work)
      assert(java.util.Arrays.equals(bytes, 0, dataEnd, original, 0, dataEnd), s"$from -> $to touched data pages")
      val footer = FooterFiles.readFooter(work)
      assert(FooterFiles.formOf(footer).name == to)
      sameMetadata(FooterReader.read(footer, strict = true).metadata, expected)
      if (to == "plain") assert(bytes.sameElements(original), s"$from -> plain is not the original file")
      if (to != "plain") assert(tool(FooterTool.verify(java.util.List.of(work.toString))).head.get("status") == "valid")
    }
  }

  test("migrate --output leaves the input alone; an unknown form is an error") {
    val out = dir.resolve("out-final.parquet")
    val before = Files.readAllBytes(small)
    val r = tool(FooterTool.migrate(java.util.List.of(small.toString), out.toString, "final")).head
    assert(r.get("status") == "migrated" && r.get("path") == out.toString)
    assert(Files.readAllBytes(small).sameElements(before))
    assert(FooterFiles.readFooter(out).isFinal)
    val i = tool(FooterTool.inspect(java.util.List.of(out.toString))).head
    assert(i.get("form") == "final" && i.get("status") == "present" && i.get("metadata_source") == "flatbuffer")
    val e = intercept[IllegalArgumentException](FooterTool.migrate(java.util.List.of(small.toString), null, "v2"))
    assert(e.getMessage.contains("unknown footer form 'v2'"))
  }

  private lazy val finalFile: Path = {
    val out = dir.resolve("corrupt-base.parquet")
    tool(FooterTool.migrate(java.util.List.of(small.toString), out.toString, "final"))
    out
  }

  test("every single-bit flip in a final-form tail is an error naming file, offset and reason, never metadata") {
    val bytes = Files.readAllBytes(finalFile)
    val footer = FooterFiles.readFooter(finalFile)
    val from = footer.footerOffset.toInt
    val bits = (bytes.length - from) * 8
    assert(bits > 10000, s"only $bits bits")
    val codes = scala.collection.mutable.Map.empty[String, Int].withDefaultValue(0)
    val flipped = dir.resolve("flipped.parquet")
    (0 until bits).foreach { bit =>
      val b = bytes.clone()
      val at = from + bit / 8
      b(at) = (b(at) ^ (1 << (bit % 8))).toByte
      val f = FooterBytes(flipped.toString, b.length, 0, Array.emptyByteArray)
      val readAt = (off: Long, len: Int) => java.util.Arrays.copyOfRange(b, off.toInt, off.toInt + len)
      val e = intercept[ParquetFooterException] {
        FooterReader.read(FooterFiles.readFooter(f.path, f.fileLength, readAt))
      }
      assert(e.getMessage.contains(flipped.toString), e.getMessage)
      assert(e.getMessage.contains("byte"), e.getMessage)
      e match {
        case x: FlatBufferFooterException => codes(x.reason.code) += 1
        case _ => codes("not_parquet") += 1 // the magic itself (PAR3 -> no PAR1/PAR3, or a PAR1 file of garbage)
      }
    }
    assert(codes("flatbuffer_crc_mismatch") > 0 && codes("size_crc_mismatch") > 0, codes)
    assert(codes.values.sum == bits)
  }

  test("a damaged final-form FlatBuffer with correct CRCs is refused by the verifier, with its offset") {
    val footer = FooterFiles.readFooter(finalFile)
    val fb = footer.footer.dropRight(12)
    val broken = fb.clone()
    FooterLayout.putIntLE(broken, 0, Int.MaxValue) // root offset
    val bad = footer.copy(footer = FooterLayout.finalTail(broken).dropRight(4))
    val e = intercept[FlatBufferFooterException](FooterReader.read(bad))
    assert(e.reason.code == "malformed_flatbuffer" && e.file == footer.path && e.footerOffset == footer.footerOffset)
    // the sizes in the trailer: size CRC checked before the size is used
    val raw = Files.readAllBytes(finalFile)
    val n = raw.length
    FooterLayout.putIntLE(raw, n - 12, Int.MaxValue)
    val readAt = (off: Long, len: Int) => java.util.Arrays.copyOfRange(raw, off.toInt, off.toInt + len)
    val e2 = intercept[FlatBufferFooterException](FooterFiles.readFooter("f", n, readAt))
    assert(e2.reason.code == "size_crc_mismatch" && e2.footerOffset == n - 16)
    FooterLayout.putIntLE(raw, n - 8, FooterLayout.crc32(raw, n - 12, 4))
    val e3 = intercept[FlatBufferFooterException](FooterFiles.readFooter("f", n, readAt))
    assert(e3.reason.code == "size_out_of_bounds", e3.getMessage)
  }

  test("add checks through the rebuild and keeps the same guarantees; roundtrip tool") {
    val copy = dir.resolve("add.parquet")
    Files.copy(small, copy)
    val r = tool(FooterTool.add(java.util.List.of(copy.toString), null)).head
    assert(r.get("status") == "added")
    val rt = tool(FooterTool.roundtrip(java.util.List.of(copy.toString))).head
    assert(rt.get("status") == "exact")
    assert(tool(FooterTool.verify(java.util.List.of(copy.toString))).head.get("status") == "valid")
  }
}
