package io.superspark.parquet.footer.files

import java.nio.ByteBuffer
import java.nio.file.{Files, Path}

import org.apache.parquet.hadoop.metadata.{CompressionCodecName, ParquetMetadata}
import org.scalatest.funsuite.AnyFunSuite
import io.superspark.parquet.ParquetFooterException
import io.superspark.parquet.footer.{FallbackReason, FlatBufferFooterException, FooterTestFiles, UnrepresentableFooterException}
import io.superspark.parquet.footer.codec.{FbAccess, FlatBufferDecoder, FlatBufferVerifier, FooterLayout, MetadataDiff, ParquetJavaShims, Projection, ThriftCompactToFlatBuffer}

/** Bad input: the reader falls back or reports, never crashes, never uses wrong metadata. */
class FooterCorruptionSuite extends AnyFunSuite {

  private lazy val dir: Path = Files.createTempDirectory("footer-corruption")
  private lazy val file: Path =
    FooterTestFiles.writeAllTypes(dir, "small.parquet", codec = CompressionCodecName.UNCOMPRESSED, rows = 10)
  private lazy val footer: FooterBytes = FooterFiles.readFooter(file)
  private lazy val flatBuffer: Array[Byte] = FooterFiles.buildFlatBuffer(footer.path, footer.footer)
  private lazy val extended: Array[Byte] = FooterLayout.appendExtension(footer.footer, flatBuffer)
  private lazy val expected: ParquetMetadata = FooterReader.thrift(footer)
  private lazy val ext: FooterLayout.Extension = FooterLayout.locate(extended) match {
    case FooterLayout.Present(e) => e
    case other => fail(other.toString)
  }

  private def readExtended(bytes: Array[Byte], strict: Boolean = false): FooterReadResult =
    FooterReader.read(footer.copy(footer = bytes), strict = strict)

  private def sameAsThrift(md: ParquetMetadata): Unit =
    assert(MetadataDiff.diff(md, expected).isEmpty, MetadataDiff.diff(md, expected))

  /** An extended footer around arbitrary FlatBuffer bytes, with correct sizes and CRCs. */
  private def withFlatBuffer(fb: Array[Byte]): Array[Byte] = FooterLayout.appendExtension(footer.footer, fb)

  test("the intact extension is used") {
    val r = readExtended(extended)
    assert(r.source == FooterSource.FlatBuffer && r.fallback.isEmpty)
    sameAsThrift(r.metadata)
  }

  test("every single-bit flip in the FlatBuffer and trailer is detected and never used") {
    val from = ext.flatBufferOffset
    val until = extended.length // FlatBuffer, CRCs, size, UUID, stop byte
    val bits = (until - from) * 8
    assert(bits > 10000, s"only $bits bits")
    var checkedWithThrift = 0
    (0 until bits).foreach { bit =>
      val b = extended.clone()
      val at = from + bit / 8
      b(at) = (b(at) ^ (1 << (bit % 8))).toByte
      FooterLayout.locate(b) match {
        case FooterLayout.Present(_) => fail(s"flip of bit $bit (byte $at) went undetected")
        case FooterLayout.Corrupt(_, _) | FooterLayout.Absent =>
      }
      if (bit % 211 == 0 && at != extended.length - 1) {
        val r = readExtended(b)
        assert(r.source == FooterSource.Thrift)
        sameAsThrift(r.metadata)
        checkedWithThrift += 1
      }
    }
    assert(checkedWithThrift > 40)
  }

  test("bit flips behind a valid CRC: the verifier or the decoder rejects, nothing throws") {
    // The CRC is what guarantees identical metadata; here it is recomputed after the flip to
    // exercise the structural checks: every outcome is a value (Left, or Right metadata).
    var rejected = 0
    (0 until flatBuffer.length * 8 by 7).foreach { bit =>
      val fb = flatBuffer.clone()
      fb(bit / 8) = (fb(bit / 8) ^ (1 << (bit % 8))).toByte
      FooterReader.decodeFlatBuffer(ByteBuffer.wrap(fb)) match {
        case Left(_) => rejected += 1
        case Right(md) => assert(md.getFileMetaData.getSchema != null)
      }
      if (bit % 97 == 0) {
        val r = readExtended(withFlatBuffer(fb))
        if (r.source == FooterSource.Thrift) sameAsThrift(r.metadata)
      }
    }
    assert(rejected > 100)
  }

  test("bit flips behind a valid CRC: nothing throws after open, undecodable statistics are no statistics") {
    // Every bit of the FlatBuffer, CRCs recomputed (a buggy writer, or malice). What opens must
    // stay usable: every getter a reader calls, statistics included, returns a value.
    import scala.jdk.CollectionConverters._
    var opened, emptied = 0
    (0 until flatBuffer.length * 8).foreach { bit =>
      val fb = flatBuffer.clone()
      fb(bit / 8) = (fb(bit / 8) ^ (1 << (bit % 8))).toByte
      FooterReader.decodeFlatBuffer(ByteBuffer.wrap(fb)) match {
        case Left(_) =>
        case Right(md) =>
          opened += 1
          md.getBlocks.asScala.zip(expected.getBlocks.asScala).foreach { case (b, e) =>
            b.getColumns.asScala.zip(e.getColumns.asScala).foreach { case (c, ec) =>
              val st = c.getStatistics
              c.getSizeStatistics; ParquetJavaShims.geospatialView(c); c.getEncodingStats; c.getPrimitiveType
              if (st.isEmpty && !ec.getStatistics.isEmpty) emptied += 1
            }
          }
      }
    }
    info(s"${flatBuffer.length * 8} flips: $opened opened, $emptied chunks read with no statistics")
    assert(opened > 100 && emptied > 0)
  }

  test("truncated, empty, random and out-of-bounds FlatBuffers fall back with a reason") {
    def reason(fb: Array[Byte]): FallbackReason = {
      val r = readExtended(withFlatBuffer(fb))
      assert(r.source == FooterSource.Thrift)
      sameAsThrift(r.metadata)
      r.fallback.getOrElse(fail("no fallback reason"))
    }
    assert(reason(flatBuffer.take(flatBuffer.length / 2)).isInstanceOf[FallbackReason.MalformedFlatBuffer])
    assert(reason(Array[Byte](1)).isInstanceOf[FallbackReason.MalformedFlatBuffer])
    val outOfBounds = flatBuffer.clone()
    FooterLayout.putIntLE(outOfBounds, 0, Int.MaxValue) // root offset
    val r = reason(outOfBounds)
    assert(r.isInstanceOf[FallbackReason.MalformedFlatBuffer] && r.message.contains("outside"), r)
    val rnd = new scala.util.Random(42)
    (1 to 300).foreach { _ =>
      reason(Array.fill[Byte](1 + rnd.nextInt(2000))(rnd.nextInt(256).toByte))
    }
  }

  test("a vector length claiming more than the buffer holds is refused before any allocation") {
    // Find the schema vector: root table field 1 (vtable slot 6).
    val fb = flatBuffer.clone()
    val bb = ByteBuffer.wrap(fb).order(java.nio.ByteOrder.LITTLE_ENDIAN)
    val root = bb.getInt(0)
    val o = FlatBufferVerifier.tableField(bb, root, 6)
    val vec = root + o + bb.getInt(root + o)
    bb.putInt(vec, Int.MaxValue)
    FooterReader.decodeFlatBuffer(ByteBuffer.wrap(fb)) match {
      case Left(FallbackReason.MalformedFlatBuffer(at, detail)) => assert(at == vec && detail.contains("vector"), detail)
      case other => fail(other.toString)
    }
  }

  test("malformed statistics tables: lazy statistics open and read as none, eager ones refuse at open") {
    val fb = flatBuffer.clone()
    val bb = ByteBuffer.wrap(fb).order(java.nio.ByteOrder.LITTLE_ENDIAN)
    val meta = FlatBufferDecoder.root(ByteBuffer.wrap(fb)).rowGroups(0).columns(0).metaData()
    val metaPos = FbAccess.pos(meta)
    assert(meta.statistics() != null, "column 0 needs statistics for this test")
    val o = FlatBufferVerifier.tableField(bb, metaPos, 20) // ColumnMetadata.statistics
    bb.putInt(metaPos + o, Int.MaxValue) // points outside the buffer
    val reason = FlatBufferVerifier.verifyChunkStatistics(ByteBuffer.wrap(fb), metaPos)
    assert(reason.exists {
      case FallbackReason.MalformedFlatBuffer(_, detail) => detail.contains("outside")
      case _ => false
    }, reason)
    assert(FooterReader.decodeFlatBuffer(ByteBuffer.wrap(fb), Projection(lazyStatistics = false)) == Left(reason.get))
    val md = FooterReader.decodeFlatBuffer(ByteBuffer.wrap(fb)).fold(r => fail(r.toString), identity)
    val chunks = md.getBlocks.get(0).getColumns
    assert(chunks.get(0).getStatistics.isEmpty && chunks.get(0).getSizeStatistics == null)
    val intact = expected.getBlocks.get(0).getColumns
    (1 until chunks.size).foreach(j => assert(chunks.get(j).getStatistics == intact.get(j).getStatistics))
    assert(!intact.get(0).getStatistics.isEmpty)
  }

  test("strict mode turns a fallback into an error naming the file and offset") {
    val b = extended.clone()
    b(ext.flatBufferOffset + 5) = (b(ext.flatBufferOffset + 5) ^ 1).toByte
    val e = intercept[FlatBufferFooterException](readExtended(b, strict = true))
    assert(e.getMessage.contains(file.toString) && e.getMessage.contains("flatbuffer_crc_mismatch"))
    assert(e.getMessage.contains(s"byte ${footer.footerOffset}"))
    assert(readExtended(footer.footer, strict = true).source == FooterSource.Thrift)
  }

  test("a UUID of another extension is not ours: plain Thrift, no fallback reported") {
    val b = extended.clone()
    b(b.length - 2) = (b(b.length - 2) ^ 0x40).toByte
    val r = readExtended(b)
    assert(r.source == FooterSource.Thrift && r.fallback.isEmpty)
    sameAsThrift(r.metadata)
  }

  private def fileWith(bytes: Array[Byte]): Path = {
    val f = Files.createTempFile(dir, "bad", ".parquet")
    Files.write(f, bytes)
    f
  }

  test("files that are too short, not Parquet, encrypted or with an oversized footer length") {
    val good = Files.readAllBytes(file)
    def error(bytes: Array[Byte]): String = intercept[ParquetFooterException](FooterFiles.readFooter(fileWith(bytes))).getMessage
    assert(error(good.take(8)).contains("too short"))
    assert(error(good.dropRight(1)).contains("no PAR1 or PAR3 magic"))
    val pare = good.clone()
    System.arraycopy(FooterLayout.EncryptedMagic, 0, pare, pare.length - 4, 4)
    assert(error(pare).contains("encrypted footer"))
    val long = good.clone()
    FooterLayout.putIntLE(long, long.length - 8, good.length)
    assert(error(long).contains(s"at byte ${good.length - 8}") && error(long).contains("exceeds"))
    val negative = good.clone()
    FooterLayout.putIntLE(negative, negative.length - 8, -1)
    assert(error(negative).contains("exceeds"))
    // A file truncated inside the data: the footer length now points before the start.
    val cut = good.takeRight(40)
    assert(error(cut).contains("exceeds"))
  }

  test("a damaged Thrift footer without extension is reported, not thrown unchecked") {
    val bad = footer.footer.clone()
    java.util.Arrays.fill(bad, 0, bad.length / 2, 0xFF.toByte)
    val e = intercept[ParquetFooterException](FooterReader.read(footer.copy(footer = bad)))
    assert(e.getMessage.contains(s"byte ${footer.footerOffset}"))
  }

  test("encrypted or inconsistent footers are refused by the writer with a reason") {
    val tmd = org.apache.parquet.format.Util.readFileMetaData(new java.io.ByteArrayInputStream(footer.footer))
    val enc = tmd.deepCopy()
    enc.setEncryption_algorithm(org.apache.parquet.format.EncryptionAlgorithm.AES_GCM_V1(
      new org.apache.parquet.format.AesGcmV1()))
    assert(intercept[UnrepresentableFooterException](ThriftCompactToFlatBuffer.convertParsed(enc)).reason.contains("encrypted"))
    val col = tmd.deepCopy()
    col.getRow_groups.get(0).getColumns.get(0).setEncrypted_column_metadata(Array[Byte](1, 2))
    assert(intercept[UnrepresentableFooterException](ThriftCompactToFlatBuffer.convertParsed(col)).reason.contains("encrypted"))
    val path = tmd.deepCopy()
    path.getRow_groups.get(0).getColumns.get(1).getMeta_data.setPath_in_schema(java.util.List.of("nope"))
    assert(intercept[UnrepresentableFooterException](ThriftCompactToFlatBuffer.convertParsed(path)).reason.contains("path"))
    val missing = tmd.deepCopy()
    missing.getRow_groups.get(0).getColumns.remove(0)
    assert(intercept[UnrepresentableFooterException](ThriftCompactToFlatBuffer.convertParsed(missing)).reason.contains("column chunks"))
  }
}
