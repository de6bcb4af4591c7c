package io.superspark.parquet.footer.codec

import java.nio.{ByteBuffer, ByteOrder}
import java.nio.file.{Files, Path}
import java.util.concurrent.{Callable, Executors, TimeUnit}

import scala.jdk.CollectionConverters._

import org.apache.parquet.hadoop.metadata.{CompressionCodecName, ParquetMetadata}
import org.scalatest.funsuite.AnyFunSuite
import io.superspark.parquet.footer.{FallbackReason, FlatBufferFooterException, FooterTestFiles}
import io.superspark.parquet.footer.files.{FooterBytes, FooterColumns, FooterFiles, FooterReadResult, FooterReader, FooterSource}

/**
 * The one-pass decode (issue 24): each column chunk is structurally checked as the decoder
 * reads it, instead of by a separate verifier walk before it. These tests pin that it refuses
 * exactly what the two-pass verifier refused, with the same reason (offset and what), that the
 * strict and fallback paths still name file and byte offset, that a projection checks column
 * 0 and the selected chunks of every row group (as before), and that the head's verification
 * kept with a `FooterBytes` instance never skips the chunk checks.
 */
class FooterVerifyWhileDecodeSuite extends AnyFunSuite {

  private lazy val dir: Path = Files.createTempDirectory("footer-one-pass")
  private lazy val file: Path = FooterTestFiles.writeAllTypes(dir, "rg.parquet", codec = CompressionCodecName.SNAPPY)
  private lazy val footer: FooterBytes = FooterFiles.readFooter(file)
  private lazy val flatBuffer: Array[Byte] = FooterFiles.buildFlatBuffer(footer.path, footer.footer)
  private lazy val expected: ParquetMetadata = FooterReader.thrift(footer)
  private lazy val extOffset: Int = FooterLayout.locate(FooterLayout.appendExtension(footer.footer, flatBuffer)) match {
    case FooterLayout.Present(e) => e.flatBufferOffset
    case other => fail(other.toString)
  }

  private def le(b: Array[Byte]) = ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN)
  private def root(b: Array[Byte]) = FlatBufferDecoder.root(ByteBuffer.wrap(b))
  private def chunkPos(rg: Int, col: Int): Int = FbAccess.pos(root(flatBuffer).rowGroups(rg).columns(col))
  private def metaPos(rg: Int, col: Int): Int = FbAccess.pos(root(flatBuffer).rowGroups(rg).columns(col).metaData())
  /** Absolute position of a present field of the table at `table`. */
  private def fieldAt(table: Int, slot: Int): Int = {
    val o = FlatBufferVerifier.tableField(le(flatBuffer), table, slot)
    assert(o != 0, s"field $slot absent")
    table + o
  }

  private def leafCount: Int = FlatSchema.read(root(flatBuffer)).leafCount
  private def rowGroupCount: Int = root(flatBuffer).rowGroupsLength

  /** What the two-pass verifier says of a buffer (head, then every row group's chunks). */
  private def twoPass(b: Array[Byte]): Option[FallbackReason] = {
    val buf = ByteBuffer.wrap(b)
    FlatBufferVerifier.verifyHead(buf).orElse {
      val leaves = try Some(FlatSchema.read(FlatBufferDecoder.root(buf)).leafCount) catch { case _: RuntimeException => None }
      leaves.flatMap(n => FlatBufferVerifier.verifyRowGroups(buf, n, null, statistics = false))
    }
  }

  private def mutated(f: ByteBuffer => Unit): Array[Byte] = {
    val b = flatBuffer.clone()
    f(le(b))
    b
  }

  private def sameAsThrift(md: ParquetMetadata, projection: Projection = Projection.Full): Unit = {
    val want = FooterReader.project(expected, projection)
    assert(MetadataDiff.diff(md, want).isEmpty, MetadataDiff.diff(md, want))
  }

  /** Refused at `at` (-1: wherever the two-pass verifier says, e.g. a vtable many tables share). */
  private def refusedAt(b: Array[Byte], expectedAt: Int, detail: String): Unit = {
    val reason = FooterReader.decodeFlatBuffer(ByteBuffer.wrap(b)) match {
      case Left(r: FallbackReason.MalformedFlatBuffer) => r
      case other => fail(s"expected malformed_flatbuffer at $expectedAt, got $other")
    }
    val at = reason.offset
    if (expectedAt >= 0) assert(at == expectedAt, reason)
    assert(reason.detail.contains(detail), reason)
    assert(twoPass(b).contains(reason), s"the two-pass verifier says ${twoPass(b)}, the one-pass decode $reason")
    // In a file: strict names file and byte offset; otherwise the Thrift footer, with the reason.
    val bytes = footer.copy(footer = FooterLayout.appendExtension(footer.footer, b))
    val e = intercept[FlatBufferFooterException](FooterReader.read(bytes, strict = true))
    assert(e.file == footer.path && e.footerOffset == footer.footerOffset)
    assert(e.reason == FallbackReason.MalformedFlatBuffer(extOffset + at, reason.detail), e.reason)
    assert(e.getMessage.contains(footer.path) && e.getMessage.contains(s"footer offset ${extOffset + at}"), e.getMessage)
    val r = FooterReader.read(footer.copy(footer = FooterLayout.appendExtension(footer.footer, b)))
    assert(r.source == FooterSource.Thrift && r.fallback.contains(e.reason))
    sameAsThrift(r.metadata)
  }

  test("the fixture has several row groups and the intact buffer decodes as parquet-java") {
    assert(rowGroupCount >= 3 && leafCount > 20, s"$rowGroupCount row groups, $leafCount leaves")
    FooterReader.decodeFlatBuffer(ByteBuffer.wrap(flatBuffer)) match {
      case Right(md) => sameAsThrift(md)
      case Left(r) => fail(r.toString)
    }
    assert(twoPass(flatBuffer).isEmpty)
  }

  test("a mutated column chunk table or its metadata is refused with the verifier's reason") {
    val rg = 1
    val col = 5
    val c = chunkPos(rg, col)
    val m = metaPos(rg, col)
    val bb = le(flatBuffer)
    // codec out of range
    val codec = fieldAt(m, 4)
    refusedAt(mutated(_.put(codec, 99.toByte)), codec, "unknown compression codec 99")
    // an encoding value out of range
    val encodings = FbAccess.vector(bb, m, 22)
    assert(encodings >= 0)
    refusedAt(mutated(_.put(encodings + 4, 42.toByte)), encodings + 4, "unknown encoding 42")
    // a vector length beyond the buffer, refused before anything is read from it
    refusedAt(mutated(_.putInt(encodings, Int.MaxValue)), encodings, "vector of 2147483647 elements")
    // an encoding stats entry with an unknown page type
    val stats = FbAccess.vector(bb, m, 24)
    assert(stats >= 0)
    refusedAt(mutated(_.put(stats + 4, 7.toByte)), stats + 4, "unknown page type 7")
    // the chunk table's vtable offset pointing past the buffer
    refusedAt(mutated(_.putInt(c, -flatBuffer.length)), c + flatBuffer.length, "vtable")
    // the chunk's meta_data offset pointing past the buffer
    val meta = fieldAt(c, 6)
    refusedAt(mutated(_.putInt(meta, flatBuffer.length)), meta + flatBuffer.length, "offset target")
    // a field whose offset lies inside the table header
    val vt = c - bb.getInt(c)
    refusedAt(mutated(_.putShort(vt + 6, 2.toShort)), vt + 6, "inside the table header")
    // num_values (an 8-byte field) moved past the metadata table's end, in a vtable that other
    // chunks share: refused at the first table that uses it
    val mvt = m - bb.getInt(m)
    val objSize = bb.getShort(mvt + 2) & 0xFFFF
    refusedAt(mutated(_.putShort(mvt + 6, (objSize - 4).toShort)), -1, "past the table's")
  }

  test("column 0 of every row group is checked; other chunks only when the projection reads them") {
    val other = Projection(columns = Some(Seq(Seq("i64"))))
    val last = rowGroupCount - 1
    val first = mutated(_.put(fieldAt(metaPos(last, 0), 4), 99.toByte))
    assert(FooterReader.decodeFlatBuffer(ByteBuffer.wrap(first), other).left.exists(_.code == "malformed_flatbuffer"))
    val unread = mutated(_.put(fieldAt(metaPos(last, 3), 4), 99.toByte))
    FooterReader.decodeFlatBuffer(ByteBuffer.wrap(unread), other) match {
      case Right(md) => sameAsThrift(md, other)
      case Left(r) => fail(s"a chunk the projection does not read refused the buffer: $r")
    }
    // A selected chunk of a row group the projection leaves out is checked too (as before).
    val i64 = FlatSchema.read(root(flatBuffer)).selectLeaves(Array(Array("i64"))).head
    val selectedElsewhere = mutated(_.put(fieldAt(metaPos(last, i64), 4), 99.toByte))
    val firstGroup = other.copy(rowGroups = RowGroupSelection.Indices(Set(0)))
    assert(FooterReader.decodeFlatBuffer(ByteBuffer.wrap(selectedElsewhere), firstGroup)
      .left.exists(_.code == "malformed_flatbuffer"))
    // The schema-only read (schema inference) reads and checks no row group.
    val bytes = footer.copy(footer = FooterLayout.appendExtension(footer.footer, selectedElsewhere))
    val schemaOnly = FooterColumns.readSchemaOnly(bytes, strict = true)
    assert(schemaOnly.source == FooterSource.FlatBuffer && schemaOnly.metadata.getBlocks.isEmpty)
    assert(schemaOnly.metadata.getFileMetaData.getSchema == expected.getFileMetaData.getSchema)
  }

  test("bit flips behind valid CRCs: the one-pass decode refuses what the two-pass verifier refused, with its reason") {
    var refused = 0
    var sameReason = 0
    var opened = 0
    val step = math.max(3, flatBuffer.length * 8 / 30000) | 1
    (0 until flatBuffer.length * 8 by step).foreach { bit =>
      val b = flatBuffer.clone()
      b(bit / 8) = (b(bit / 8) ^ (1 << (bit % 8))).toByte
      val verifier = twoPass(b)
      FooterReader.decodeFlatBuffer(ByteBuffer.wrap(b)) match {
        case Left(r: FallbackReason.MalformedFlatBuffer) =>
          assert(verifier.contains(r), s"bit $bit: one-pass $r, two-pass $verifier")
          sameReason += 1
        case Left(r) =>
          // undecodable: a sound buffer that is not valid metadata (or, when the verifier refuses
          // too, a decode error met before the malformed chunk: still a refusal)
          assert(r.code == "undecodable", s"bit $bit: $r")
          refused += 1
        case Right(md) =>
          assert(verifier.isEmpty, s"bit $bit: the verifier refuses ($verifier) what the one-pass decode opened")
          md.getBlocks.asScala.foreach { block =>
            block.getColumns.asScala.foreach { c =>
              c.getStatistics; c.getSizeStatistics; c.getEncodings; c.getEncodingStats; c.getCodec
              c.getValueCount; c.getFirstDataPageOffset; c.getColumnIndexReference; c.getOffsetIndexReference
            }
          }
          opened += 1
      }
    }
    info(s"${flatBuffer.length}-byte buffer, every ${step}th bit: malformed=$sameReason undecodable=$refused opened=$opened")
    assert(sameReason > 1000 && opened > 100, s"malformed=$sameReason undecodable=$refused opened=$opened")
  }

  test("a footer instance keeps its verified head; every decode still checks the chunks it reads") {
    val extended = FooterLayout.appendExtension(footer.footer, flatBuffer)
    val bytes = footer.copy(footer = extended)
    assert(bytes.verifiedHead == null)
    val first = FooterReader.read(bytes, strict = true)
    assert(first.source == FooterSource.FlatBuffer)
    assert(bytes.verifiedHead != null)
    val head = bytes.verifiedHead
    val again = FooterReader.read(bytes, Projection(columns = Some(Seq(Seq("s")))), strict = true)
    assert(bytes.verifiedHead eq head)
    sameAsThrift(first.metadata)
    sameAsThrift(again.metadata, Projection(columns = Some(Seq(Seq("s")))))
    // The key-value metadata is read once per instance too, and shared read-only (parquet-java's
    // FileMetaData wraps it), equal to the Thrift footer's.
    val kv = bytes.headKeyValues
    assert(kv != null && !kv.isEmpty)
    val kvAgain = again.metadata.getFileMetaData.getKeyValueMetaData
    assert(kvAgain == first.metadata.getFileMetaData.getKeyValueMetaData && kvAgain == kv)
    assert(kvAgain == FooterReader.read(footer, strict = true).metadata.getFileMetaData.getKeyValueMetaData)
    intercept[UnsupportedOperationException](kvAgain.clear())
    assert(bytes.headKeyValues eq kv)
    // The bytes of an instance never change; changed here in place (after the CRCs and the head
    // were checked and kept) to show that a decode of a kept instance still bounds every chunk.
    val codec = fieldAt(metaPos(2, 7), 4)
    extended(extOffset + codec) = 99.toByte
    val e = intercept[FlatBufferFooterException](FooterReader.read(bytes, strict = true))
    assert(e.reason == FallbackReason.MalformedFlatBuffer(extOffset + codec, "unknown compression codec 99"), e.reason)
    // A head that does not verify is not kept: each read refuses it again.
    val badHead = flatBuffer.clone()
    le(badHead).putInt(0, badHead.length) // root offset past the buffer
    val bad = footer.copy(footer = FooterLayout.appendExtension(footer.footer, badHead))
    (1 to 2).foreach { _ =>
      val r = FooterReader.read(bad)
      assert(r.source == FooterSource.Thrift && r.fallback.exists(_.code == "malformed_flatbuffer"))
      assert(bad.verifiedHead == null)
    }
  }

  test("the top-level names a projection is matched against come from the kept head: one verification a file") {
    // The interceptor asks for the names, then decodes the projection (FooterOpener): the head
    // verified and the schema read for the names are the ones the decode uses.
    val bytes = footer.copy(footer = FooterLayout.appendExtension(footer.footer, flatBuffer))
    val names = FooterColumns.topLevelNames(bytes)
    assert(bytes.verifiedHead != null)
    val head = bytes.verifiedHead
    assert(names.exists(_.nonEmpty))
    val r = FooterReader.read(bytes, Projection(columns = Some(names.get.take(1).toSeq.map(Seq(_)))), strict = true)
    assert(r.source == FooterSource.FlatBuffer && (bytes.verifiedHead eq head))
    sameAsThrift(r.metadata, Projection(columns = Some(names.get.take(1).toSeq.map(Seq(_)))))
    // A head that does not verify gives no names and is not kept.
    val badHead = flatBuffer.clone()
    le(badHead).putInt(0, badHead.length)
    val bad = footer.copy(footer = FooterLayout.appendExtension(footer.footer, badHead))
    assert(FooterColumns.topLevelNames(bad).isEmpty && bad.verifiedHead == null)
  }

  test("one footer instance decoded from several threads at once gives equal metadata") {
    val bytes = footer.copy(footer = FooterLayout.appendExtension(footer.footer, flatBuffer))
    val pool = Executors.newFixedThreadPool(4)
    try {
      val results = (0 until 16).map { i =>
        pool.submit(new Callable[FooterReadResult] {
          def call(): FooterReadResult =
            FooterReader.read(bytes, if (i % 2 == 0) Projection.Full else Projection(columns = Some(Seq(Seq("d")))),
              strict = true)
        })
      }.map(_.get(60, TimeUnit.SECONDS))
      results.zipWithIndex.foreach { case (r, i) =>
        assert(r.source == FooterSource.FlatBuffer)
        sameAsThrift(r.metadata, if (i % 2 == 0) Projection.Full else Projection(columns = Some(Seq(Seq("d")))))
      }
    } finally pool.shutdown()
  }
}
