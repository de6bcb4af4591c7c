package io.superspark.parquet.footer.files

import java.nio.ByteBuffer
import java.nio.file.{Files, Path}

import scala.jdk.CollectionConverters._
import scala.util.Random

import org.apache.parquet.column.ParquetProperties.WriterVersion
import org.apache.parquet.hadoop.metadata.{CompressionCodecName, ParquetMetadata}
import io.superspark.parquet.ParquetFooterException
import io.superspark.parquet.footer.{FooterTestFiles, UnrepresentableFooterException}
import io.superspark.parquet.footer.codec.{FlatBufferToThrift, FooterForm, FooterLayout, MetadataDiff, ParquetJavaShims, Projection, ThriftCompactToFlatBuffer}
import io.superspark.parquet.footer.tools.FooterTool
import io.superspark.parquet.thrift.{MalformedThriftFooterException, UnrebuildableFooterException}

/**
 * Seeded mutation fuzzer of the footer reader (`make fuzz-footer`; a slice runs in CI through
 * FooterFuzzSuite). Inputs: footers of files with every physical and logical type, in the
 * private and the final (PAR3) form. Each input gets one mutation, chosen by the seed:
 *
 *  - a bit flip or a byte set in the Thrift part, the FlatBuffer, or the trailer (CRCs, size,
 *    UUID, header), as a damaged file has them;
 *  - a bit flip or byte set inside the FlatBuffer with both CRCs recomputed (a buggy writer,
 *    or malice): only the verifier and the decoder stand in the way.
 *
 * Outcomes that pass: the FlatBuffer used with metadata equal to the original; a fallback to
 * the Thrift footer whose metadata equals what parquet-java reads from it; a
 * [[ParquetFooterException]] (it names file and offset); a refusal (`Left`) of a buffer behind
 * recomputed CRCs. Failures: wrong metadata from corruption the CRCs can see, any other
 * exception, an exception from a getter after a buffer opened, or an input over one second.
 */
object FooterFuzz {

  final case class Counts(var inputs: Int = 0, var flatBuffer: Int = 0, var thrift: Int = 0, var errors: Int = 0,
      var refused: Int = 0, var openedBehindCrc: Int = 0, failures: collection.mutable.ArrayBuffer[String] =
        collection.mutable.ArrayBuffer.empty) {
    override def toString: String =
      s"inputs=$inputs flatbuffer_used=$flatBuffer thrift_fallback=$thrift clear_errors=$errors " +
        s"refused_behind_crc=$refused opened_behind_crc=$openedBehindCrc failures=${failures.size}"
  }

  private final case class Input(name: String, footer: FooterBytes, flatBuffer: Array[Byte], expected: ParquetMetadata)

  private def inputs(dir: Path): Seq[Input] = {
    val files = Seq(
      FooterTestFiles.writeAllTypes(dir, "v1-uncompressed.parquet", codec = CompressionCodecName.UNCOMPRESSED, rows = 10),
      FooterTestFiles.writeAllTypes(dir, "v2-snappy-bloom.parquet", version = WriterVersion.PARQUET_2_0, bloom = true,
        rows = 300))
    files.flatMap { f =>
      val plain = FooterFiles.readFooter(f)
      val expected = FooterReader.thrift(plain)
      val fb = FooterFiles.buildFlatBuffer(plain.path, plain.footer)
      val priv = plain.copy(footer = FooterLayout.appendExtension(plain.footer, fb))
      val out = Files.createDirectories(dir.resolve("final-" + f.getFileName))
      FooterTool.migrate(java.util.List.of(f.toString), out.toString, "final")
      val fin = FooterFiles.readFooter(out.resolve(f.getFileName))
      require(fin.isFinal, s"$f: migrate --to final did not give a final footer")
      Seq(Input(s"${f.getFileName}/private", priv, fb, expected), Input(s"${f.getFileName}/final", fin, fb, expected))
    }
  }

  private def same(a: ParquetMetadata, b: ParquetMetadata): Boolean = MetadataDiff.diff(a, b).isEmpty

  /** Every getter a reader calls after open, statistics included. */
  private def touch(md: ParquetMetadata): Unit = {
    md.getFileMetaData.getSchema.getColumns
    md.getFileMetaData.getKeyValueMetaData
    md.getBlocks.asScala.foreach { b =>
      b.getRowCount; b.getTotalByteSize
      b.getColumns.asScala.foreach { c =>
        c.getStatistics; c.getSizeStatistics; ParquetJavaShims.geospatialView(c); c.getEncodingStats; c.getPrimitiveType
        c.getEncodings; c.getFirstDataPageOffset; c.getDictionaryPageOffset; c.getTotalSize; c.getColumnIndexReference
        c.getOffsetIndexReference; c.getBloomFilterOffset
      }
    }
  }

  private def mutate(bytes: Array[Byte], from: Int, until: Int, rnd: Random): (Array[Byte], Int) = {
    val b = bytes.clone()
    val at = from + rnd.nextInt(until - from)
    if (rnd.nextBoolean()) b(at) = (b(at) ^ (1 << rnd.nextInt(8))).toByte
    else b(at) = rnd.nextInt(256).toByte
    (b, at)
  }

  def run(n: Int, seed: Long, log: String => Unit = println): Counts = {
    val dir = Files.createTempDirectory("footer-fuzz")
    val all = inputs(dir)
    val c = Counts()
    // One generator for the run: java.util.Random's first outputs for nearby seeds are
    // correlated, so a generator per input would not spread the inputs.
    val rnd = new Random(seed)
    val clock = new io.superspark.FuzzClock()
    (0 until n).foreach { i =>
      val in = all(rnd.nextInt(all.size))
      val behindCrc = rnd.nextInt(4) == 0
      val (what, ms, over) = clock.time { try {
        if (behindCrc) {
          val (fb, at) = mutate(in.flatBuffer, 0, in.flatBuffer.length, rnd)
          val form = if (in.footer.isFinal) FooterForm.Final else FooterForm.Private
          FooterReader.decodeFlatBuffer(ByteBuffer.wrap(fb), form = form) match {
            case Left(_) => c.refused += 1
            case Right(md) =>
              c.openedBehindCrc += 1
              try touch(md) catch {
                case e: Exception => c.failures += s"${in.name}: exception after open (flatbuffer byte $at, CRCs recomputed): $e"
              }
          }
          s"behind-crc byte $at"
        } else {
          val (bytes, at) = mutate(in.footer.footer, 0, in.footer.footer.length, rnd)
          val damaged = in.footer.copy(footer = bytes)
          try {
            val r = FooterReader.read(damaged)
            r.source match {
              case FooterSource.FlatBuffer =>
                c.flatBuffer += 1
                if (!same(r.metadata, in.expected)) c.failures += s"${in.name}: wrong metadata from the FlatBuffer after byte $at changed"
              case FooterSource.Thrift =>
                c.thrift += 1
                // The fallback must be exactly what parquet-java reads from the (maybe damaged) Thrift part.
                val direct = FooterReader.thrift(damaged.copy(footer = FooterFiles.thriftFooter(damaged)))
                if (!same(r.metadata, direct)) c.failures += s"${in.name}: fallback differs from parquet-java after byte $at changed"
            }
          } catch {
            case _: ParquetFooterException => c.errors += 1
          }
          s"byte $at"
        }
      } catch {
        case e: Exception =>
          c.failures += s"${in.name}: unchecked ${e.getClass.getName}: ${e.getMessage}"
          "exception"
      } }
      if (over) c.failures += s"${in.name}: input $i ($what) took $ms ms of CPU time"
      c.inputs += 1
    }
    c.failures.take(20).foreach(f => log(s"FAIL $f"))
    c
  }

  final case class TranscoderCounts(var inputs: Int = 0, var exact: Int = 0, var notExact: Int = 0,
      var malformed: Int = 0, var refused: Int = 0, failures: collection.mutable.ArrayBuffer[String] =
        collection.mutable.ArrayBuffer.empty) {
    override def toString: String =
      s"transcoder: inputs=$inputs exact=$exact rebuild_differs=$notExact malformed=$malformed refused=$refused " +
        s"failures=${failures.size}"
  }

  /**
   * Mutations of plain Thrift footers through the transcoder (`ThriftCompactToFlatBuffer`) and
   * `add`'s check. Passes: a [[MalformedThriftFooterException]] whose offset lies in the
   * footer, a refusal, a FlatBuffer whose rebuild differs (`add` then takes parquet-java's
   * path) or cannot be made, or an exact rebuild whose FlatBuffer decodes to what parquet-java
   * reads from the mutated bytes. Failures: any other exception, wrong metadata behind an exact
   * rebuild, an input over one second.
   */
  def runTranscoder(n: Int, seed: Long, log: String => Unit = println): TranscoderCounts = {
    val dir = Files.createTempDirectory("footer-fuzz-transcoder")
    val footers = Seq(
      FooterTestFiles.writeAllTypes(dir, "v1-uncompressed.parquet", codec = CompressionCodecName.UNCOMPRESSED, rows = 10),
      FooterTestFiles.writeAllTypes(dir, "v2-snappy-bloom.parquet", version = WriterVersion.PARQUET_2_0, bloom = true,
        rows = 300)).map(FooterFiles.readFooter)
    val clock = new io.superspark.FuzzClock()
    val c = TranscoderCounts()
    val rnd = new Random(seed)
    (0 until n).foreach { i =>
      val in = footers(rnd.nextInt(footers.size))
      val (bytes, at) = mutate(in.footer, 0, in.footer.length, rnd)
      val (_, ms, over) = clock.time { try {
        val fb = ThriftCompactToFlatBuffer.convert(bytes)
        val rebuilt = try Some(FlatBufferToThrift.rebuild(fb)) catch { case _: UnrebuildableFooterException => None }
        if (rebuilt.exists(java.util.Arrays.equals(_, bytes))) {
          c.exact += 1
          val expected = try Some(FooterReader.thrift(in.copy(footer = bytes))) catch { case _: ParquetFooterException => None }
          // Both read it alike, or both refuse it (a Thrift footer parquet-java parses but cannot turn into metadata).
          FooterReader.decodeFlatBuffer(ByteBuffer.wrap(fb), Projection(lazyStatistics = false)) match {
            case Right(md) if expected.exists(same(md, _)) =>
            case Left(_) if expected.isEmpty =>
            case other => c.failures += s"${in.path}: byte $at changed, exact rebuild, but the FlatBuffer reads " +
              s"${other.fold(_.toString, _ => "other metadata")} than parquet-java (${expected.map(_ => "read").getOrElse("refused")})"
          }
        } else c.notExact += 1
      } catch {
        case e: MalformedThriftFooterException =>
          c.malformed += 1
          if (e.reason.offset < 0 || e.reason.offset > bytes.length) c.failures += s"${in.path}: byte $at: offset out of the footer: $e"
        case _: UnrepresentableFooterException => c.refused += 1
        case e: Exception => c.failures += s"${in.path}: byte $at: unchecked ${e.getClass.getName}: ${e.getMessage}"
      } }
      if (over) c.failures += s"${in.path}: input $i (byte $at) took $ms ms of CPU time"
      c.inputs += 1
    }
    c.failures.take(20).foreach(f => log(s"FAIL $f"))
    c
  }

  def main(args: Array[String]): Unit = io.superspark.FuzzMain.run("fuzz-footer", args) { (n, seed) =>
    val c = run(n, seed)
    val t = runTranscoder(n, seed)
    (s"$c; $t", c.failures.nonEmpty || t.failures.nonEmpty)
  }
}
