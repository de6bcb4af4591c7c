package io.superspark.parquet.footer.codec

import java.nio.ByteBuffer
import java.nio.file.{Files, Path, Paths}

import org.apache.parquet.column.ParquetProperties.WriterVersion
import org.apache.parquet.hadoop.metadata.CompressionCodecName
import org.scalatest.funsuite.AnyFunSuite
import io.superspark.parquet.ParquetFooterException
import io.superspark.parquet.footer.{FooterTestFiles, UnrepresentableFooterException}
import io.superspark.parquet.footer.{fbs => fb}
import io.superspark.parquet.footer.files.{FooterFiles, FooterReader}
import io.superspark.parquet.footer.tools.FooterWalk
import io.superspark.parquet.thrift.{MalformedThriftFooterException, ThriftExtras, ThriftFormatReason, UnrebuildableFooterException}

/**
 * The Thrift-compact -> FlatBuffer transcoder (`add`'s and `migrate`'s fast path) on the footer
 * bytes against the same transcoder on parquet-java's reading of them (`convertParsed`: parsed,
 * written back by parquet-java's writer, the dropped fields put back), on parquet-testing's
 * files and on files of every type; its errors on malformed bytes; and `add` through it.
 */
class ThriftCompactToFlatBufferSuite extends AnyFunSuite {

  private lazy val dir: Path = Files.createTempDirectory("footer-transcoder")
  private lazy val files: Seq[Path] = Seq(
    FooterTestFiles.writeAllTypes(dir, "v1-snappy.parquet"),
    FooterTestFiles.writeAllTypes(dir, "v2-gzip-bloom.parquet", WriterVersion.PARQUET_2_0, CompressionCodecName.GZIP,
      bloom = true),
    FooterTestFiles.writeAllTypes(dir, "v1-plain.parquet", codec = CompressionCodecName.UNCOMPRESSED, rows = 10))

  private lazy val corpus: Option[Path] = io.superspark.SharedData.parquetTestingData

  private def parse(thrift: Array[Byte]) = org.apache.parquet.format.Util.readFileMetaData(
    new java.io.ByteArrayInputStream(thrift))

  /** The path over parquet-java's objects, with the fields parquet-java drops read back (`add`'s fallback). */
  private def viaParquetJava(thrift: Array[Byte]): (Array[Byte], Either[String, Array[Byte]]) =
    FooterFiles.convertAndRebuild(parse(thrift), thrift)

  private def transcode(thrift: Array[Byte]): Either[Exception, Array[Byte]] =
    try Right(ThriftCompactToFlatBuffer.convert(thrift)) catch {
      case e: MalformedThriftFooterException => Left(e)
      case e: UnrepresentableFooterException => Left(e)
    }

  private def plainThrift(f: Path): Option[Array[Byte]] =
    try Some(FooterFiles.thriftFooter(FooterFiles.readFooter(f))) catch { case _: ParquetFooterException => None }

  /** Compares the transcoder on the bytes with the object path on one footer; the outcome's name. */
  private def compare(name: String, thrift: Array[Byte]): String = {
    val old = try Right(viaParquetJava(thrift)) catch { case e: Exception => Left(e) }
    (old, transcode(thrift)) match {
      case (Right((fb, Right(rebuilt))), Right(ours)) if java.util.Arrays.equals(rebuilt, thrift) =>
        assert(ours.sameElements(fb), s"$name: the transcoder's FlatBuffer differs from the object path's")
        "same"
      case (Right((_, Right(rebuilt))), _) if java.util.Arrays.equals(rebuilt, thrift) =>
        fail(s"$name: the object path's FlatBuffer rebuilds exactly but the transcoder failed: ${transcode(thrift)}")
      case (Left(_), Right(_)) => fail(s"$name: the object path refused but the transcoder did not")
      case (Left(_), Left(_)) => "both refused"
      case (Right(_), Right(ours)) =>
        // Not canonical: add falls back to the object path; the transcoder's result must not rebuild exactly.
        val exact = try java.util.Arrays.equals(FlatBufferToThrift.rebuild(ours), thrift) catch {
          case _: UnrebuildableFooterException => false
        }
        assert(!exact, s"$name: the transcoder rebuilds exactly where the object path does not")
        "neither exact"
      case (Right(_), Left(_)) => "transcoder refused, object path not exact"
    }
  }

  test("parquet-testing corpus: the same FlatBuffer bytes from the bytes and from parquet-java's objects wherever they rebuild exactly") {
    assume(corpus.isDefined, "parquet-testing corpus not found")
    val outcomes = FooterWalk.localFiles(Seq(corpus.get.toString)).flatMap { case (f, _) =>
      plainThrift(f).map(t => f.getFileName.toString -> compare(f.toString, t))
    }
    val byOutcome = outcomes.groupBy(_._2).map { case (k, v) => k -> v.map(_._1).sorted }
    info(byOutcome.map { case (k, v) => s"$k: ${v.size}" }.mkString(", "))
    assert(byOutcome("same").size >= 70, byOutcome)
    assert(byOutcome("same").contains("floating_orders_nan_count.parquet"))
    assert(byOutcome.getOrElse("both refused", Nil).contains("unknown-logical-type.parquet"), byOutcome)
  }

  test("files with every physical and logical type, bloom filters, v1 and v2 pages: the same bytes") {
    files.foreach(f => assert(compare(f.toString, plainThrift(f).get) == "same"))
  }

  test("the v1 extension slot: the same entries from the bytes and from parquet-java's objects") {
    val thrift = plainThrift(files.last).get
    val ext = Seq(FlatBufferBuild.FooterExtension(java.util.UUID.randomUUID(), Array[Byte](1, 2, 3)))
    val fb = ThriftCompactToFlatBuffer.convert(thrift, ext)
    assert(fb.sameElements(ThriftCompactToFlatBuffer.convertParsed(parse(thrift), ext)))
    val root = FlatBufferDecoder.root(ByteBuffer.wrap(fb))
    assert(root.extensionsLength == 1 && root.extensions(0).dataLength == 3)
  }

  test("parquet-java's objects: column orders it reads as an empty union come from the extras") {
    val thrift = plainThrift(files.last).get
    val tmd = parse(thrift)
    assume(tmd.getColumn_orders != null && tmd.getColumn_orders.size >= 2)
    tmd.getColumn_orders.set(0, new org.apache.parquet.format.ColumnOrder())
    tmd.getColumn_orders.set(1, new org.apache.parquet.format.ColumnOrder())
    val ids = IndexedSeq.fill(tmd.getColumn_orders.size)(ThriftExtras.TypeOrderId).updated(1, ThriftExtras.Ieee754TotalOrderId)
    val withStats = tmd.getRow_groups.get(0).getColumns.stream.map(_.getMeta_data.isSetStatistics).toList.indexOf(true)
    assert(withStats >= 0)
    val extras = ThriftExtras(Map((0, withStats) -> 7L), ids)
    val root = FlatBufferDecoder.root(ByteBuffer.wrap(ThriftCompactToFlatBuffer.convertParsed(tmd, Nil, extras)))
    val leaves = (1 until root.schemaLength).map(root.schema(_)).filter(_.hasType)
    assert(leaves(0).columnOrderType == fb.ColumnOrder.UndefinedOrder)
    assert(leaves(1).columnOrderType == fb.ColumnOrder.IEEE754TotalOrder)
    assert(leaves(2).columnOrderType == fb.ColumnOrder.TypeDefinedOrder)
    assert(root.rowGroups(0).columns(withStats).metaData.statistics.nanCount == 7L)
  }

  private def malformed(bytes: Array[Byte]): ThriftFormatReason =
    intercept[MalformedThriftFooterException](ThriftCompactToFlatBuffer.convert(bytes)).reason

  test("truncated footers: a truncated error at the end of the bytes, for every length") {
    val thrift = plainThrift(files.last).get
    (0 until thrift.length).foreach { n =>
      malformed(java.util.Arrays.copyOf(thrift, n)) match {
        case ThriftFormatReason.Truncated(at, needed, _) => assert(at <= n && at + needed > n, s"length $n")
        // a list or binary header (at most 6 bytes) whose size no longer fits
        case ThriftFormatReason.BadSize(at, size) => assert(at < n && at + 6 + size > n, s"length $n")
        case other => fail(s"length $n: $other")
      }
    }
  }

  test("malformed bytes: errors with codes and offsets, no allocation from an unchecked size") {
    // FileMetaData { 1: version = 1, 2: schema = list<struct> of 2^31 - 1 elements }
    val hugeList = Array[Byte](0x15, 0x02, 0x19, 0xFC.toByte, 0xFF.toByte, 0xFF.toByte, 0xFF.toByte, 0xFF.toByte, 0x07)
    assert(malformed(hugeList) == ThriftFormatReason.BadSize(3, Int.MaxValue))
    // a binary (created_by) claiming more bytes than remain
    val hugeBinary = Array[Byte](0x68, 0xFF.toByte, 0xFF.toByte, 0x7F)
    assert(malformed(hugeBinary) == ThriftFormatReason.BadSize(1, 0x1FFFFF))
    // field 1 with compact type 14 (none)
    assert(malformed(Array[Byte](0x1E, 0x00)) == ThriftFormatReason.BadType(0, 14))
    // version as a binary
    assert(malformed(Array[Byte](0x18, 0x00, 0x00)) == ThriftFormatReason.UnexpectedType(0, "FileMetaData", 1, 8))
    // an unknown field (15) nesting structs 100 deep
    val deep = Array[Byte](0xFC.toByte) ++ Array.fill[Byte](99)(0x1C) ++ Array.fill[Byte](100)(0)
    assert(malformed(deep).code == "too_deep")
    // a varint that never ends
    assert(malformed(Array[Byte](0x15) ++ Array.fill[Byte](11)(0x80.toByte)) == ThriftFormatReason.BadVarint(1))
    // nothing but a stop byte: the required fields are missing
    assert(malformed(Array[Byte](0)).code == "missing_field")
    // bytes after the struct
    val thrift = plainThrift(files.last).get
    assert(malformed(thrift :+ 0.toByte) == ThriftFormatReason.TrailingBytes(thrift.length, 1))
    assert(new MalformedThriftFooterException(ThriftFormatReason.BadType(7, 14)).getMessage.contains("offset 7"))
  }

  test("refusals: encryption, a path that differs from the schema") {
    val t = parse(plainThrift(files.last).get)
    t.setEncryption_algorithm(org.apache.parquet.format.EncryptionAlgorithm.AES_GCM_V1(
      new org.apache.parquet.format.AesGcmV1()))
    val enc = Util.write(t)
    assert(intercept[UnrepresentableFooterException](ThriftCompactToFlatBuffer.convert(enc)).reason.contains("encrypted"))
    val p = parse(plainThrift(files.last).get)
    p.getRow_groups.get(0).getColumns.get(0).getMeta_data.setPath_in_schema(java.util.List.of("elsewhere"))
    assert(intercept[UnrepresentableFooterException](ThriftCompactToFlatBuffer.convert(Util.write(p))).reason.contains("path"))
  }

  test("unknown Thrift fields are dropped, so the rebuild differs and add takes parquet-java's path") {
    val thrift = plainThrift(files.last).get
    // FileMetaData field 20 (i32 7) before the stop byte: a field neither parquet-java nor the FlatBuffer knows.
    val extra = thrift.dropRight(1) ++ Array[Byte](0x05, 0x28, 0x0E, 0x00)
    val ours = ThriftCompactToFlatBuffer.convert(extra)
    assert(ours.sameElements(ThriftCompactToFlatBuffer.convert(thrift)))
    assert(!FlatBufferToThrift.rebuild(ours).sameElements(extra))
    // add still writes an extension: parquet-java's reading is the same, field by field
    val tail = FooterFiles.extendedTail("x", extra)
    val located = FooterLayout.locate(tail.dropRight(8))
    assert(located.isInstanceOf[FooterLayout.Present])
  }

  test("add and migrate take the transcoder and give the object path's bytes") {
    files.foreach { f =>
      val thrift = plainThrift(f).get
      val expected = FooterLayout.appendExtension(thrift, viaParquetJava(thrift)._1)
      assert(FooterFiles.extendedTail(f.toString, thrift).sameElements(FooterFiles.withLengthAndMagic(expected)))
    }
  }

  test("a first chunk whose num_values is not the row count (a repeated column): read ahead, same bytes") {
    val t = parse(plainThrift(files.head).get)
    val rg = t.getRow_groups.get(0)
    val first = rg.getColumns.get(0).getMeta_data
    first.setNum_values(rg.getNum_rows + 5)
    val thrift = Util.write(t)
    assert(compare("repeated first column", thrift) == "same")
    // the FlatBuffer keeps that chunk's num_values (it differs from the row group's count)
    val md = FooterReader.decodeFlatBuffer(ByteBuffer.wrap(ThriftCompactToFlatBuffer.convert(thrift))).toOption.get
    assert(md.getBlocks.get(0).getColumns.get(0).getValueCount == rg.getNum_rows + 5)
  }

  private object Util {
    def write(t: org.apache.parquet.format.FileMetaData): Array[Byte] = {
      val out = new java.io.ByteArrayOutputStream()
      org.apache.parquet.format.Util.writeFileMetaData(t, out)
      out.toByteArray
    }
  }

  test("decodes as the Thrift footer reads, through FooterReader") {
    files.foreach { f =>
      val thrift = plainThrift(f).get
      val md = FooterReader.decodeFlatBuffer(ByteBuffer.wrap(ThriftCompactToFlatBuffer.convert(thrift)),
        Projection(lazyStatistics = false))
      val expected = FooterReader.thrift(FooterFiles.readFooter(f))
      assert(MetadataDiff.diff(md.toOption.get, expected).isEmpty)
    }
  }
}
