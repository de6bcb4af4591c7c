package io.superspark.parquet.thrift

import java.io.ByteArrayInputStream
import java.nio.file.Files

import scala.collection.mutable
import scala.jdk.CollectionConverters._

import org.apache.parquet.column.Encoding
import org.apache.parquet.format.converter.ParquetMetadataConverter
import org.scalatest.funsuite.AnyFunSuite
import io.superspark.parquet.ParquetFooterException
import io.superspark.parquet.footer.FooterTestFiles
import io.superspark.parquet.footer.files.{FooterBytes, FooterFiles, FooterReader}

/**
 * Footers with what parquet-java's converter cannot read (an encoding it lacks, as ALP = 10):
 * the footer library reads them through [[ThriftForParquetJava]], without knowing the
 * encoding, and never swallows a failure that is not parquet-java's.
 */
class ThriftForParquetJavaSuite extends AnyFunSuite {

  private lazy val footer: FooterBytes = {
    val dir = Files.createTempDirectory("thrift-for-parquet-java")
    FooterFiles.readFooter(FooterTestFiles.writeAllTypes(dir, "plain.parquet", rows = 50))
  }

  /** One encoding value in a chunk's `encodings` (pageType -1) or page encoding stats. */
  private case class Slot(rowGroup: Int, column: Int, pos: Int, length: Int, value: Int, pageType: Int)

  private def slots(thrift: Array[Byte]): Seq[Slot] = {
    import ThriftWalker.{I32, List}
    val w = new ThriftWalker(thrift)
    val out = mutable.ArrayBuffer.empty[Slot]
    def value(rg: Int, col: Int, pageType: Int): Slot = {
      val at = w.pos; val v = w.i32(); Slot(rg, col, at, w.pos - at, v, pageType)
    }
    w.columnMetaData { (rg, col) =>
      w.fields {
        case (2, List) => w.list(_ => out += value(rg, col, -1)); true
        case (13, List) =>
          w.list { _ =>
            var pageType = -1; var enc: Slot = null
            w.fields {
              case (1, I32) => pageType = w.i32(); true
              case (2, I32) => enc = value(rg, col, -2); true
              case _ => false
            }
            out += enc.copy(pageType = pageType)
          }
          true
        case _ => false
      }
    }
    out.toSeq
  }

  /**
   * The footer as a writer of a newer encoding (value 10) would write chunk (0, `col`): its data
   * pages' encoding replaced by 10 in `encodings` and in the page encoding stats.
   */
  private def newerEncoding(col: Int): Array[Byte] = {
    val chunk = slots(footer.footer).filter(s => s.rowGroup == 0 && s.column == col)
    val data = chunk.filter(s => s.pageType == 0 || s.pageType == 3).map(_.value).toSet
    assert(data.nonEmpty, s"chunk (0, $col) has page encoding stats for data pages")
    val out = footer.footer.clone()
    chunk.filter(s => data(s.value)).foreach { s => assert(s.length == 1); out(s.pos) = (10 << 1).toByte }
    out
  }

  private def parquetJava(thrift: Array[Byte]) =
    FooterReader.converter().readParquetMetadata(new ByteArrayInputStream(thrift), ParquetMetadataConverter.NO_FILTER)

  private lazy val col: Int = slots(footer.footer).find(s => s.rowGroup == 0 && s.pageType == 0).map(_.column)
    .getOrElse(fail("parquet-java writes page encoding stats"))

  test("an encoding parquet-java lacks (10) reads as DELTA_LENGTH_BYTE_ARRAY, in the list and the page stats") {
    val patched = newerEncoding(col)
    // What makes this path needed: parquet-java's Thrift layer fails on the page stats.
    val e = intercept[java.io.IOException](parquetJava(patched))
    assert(ThriftForParquetJava.isUnreadableByParquetJava(e))

    val read = FooterReader.thrift(footer.copy(footer = patched))
    val expected = FooterReader.thrift(footer)
    val chunk = read.getBlocks.get(0).getColumns.get(col)
    val original = expected.getBlocks.get(0).getColumns.get(col)
    assert(chunk.getEncodings.contains(Encoding.DELTA_LENGTH_BYTE_ARRAY))
    assert(!original.getEncodings.contains(Encoding.DELTA_LENGTH_BYTE_ARRAY))
    assert(chunk.getEncodingStats.getDataEncodings.asScala.toSet == Set(Encoding.DELTA_LENGTH_BYTE_ARRAY))
    assert(chunk.getEncodingStats.getDictionaryEncodings == original.getEncodingStats.getDictionaryEncodings)
    assert(chunk.getPath == original.getPath)
    assert(chunk.getValueCount == original.getValueCount)
    assert(chunk.getStatistics == original.getStatistics)
    assert(ThriftForParquetJava.UnknownEncoding == 6)
    // Every other chunk reads exactly as before.
    read.getBlocks.asScala.zip(expected.getBlocks.asScala).zipWithIndex.foreach { case ((b, e), rg) =>
      b.getColumns.asScala.zip(e.getColumns.asScala).zipWithIndex.foreach { case ((c, o), i) =>
        if (!(rg == 0 && i == col)) assert(c.getEncodings == o.getEncodings && c.getStatistics == o.getStatistics)
      }
    }
  }

  test("the copy patches the encoding values in place: the same length, no other byte moved") {
    val patched = newerEncoding(col)
    val fixed = ThriftForParquetJava.readable(patched).get
    assert(fixed.length == patched.length)
    val changed = fixed.indices.filter(i => fixed(i) != patched(i))
    assert(changed.nonEmpty && changed.forall(i => patched(i) == (10 << 1).toByte && fixed(i) == (6 << 1).toByte))
  }

  test("a footer parquet-java reads needs no copy") {
    assert(ThriftForParquetJava.readable(footer.footer).isEmpty)
  }

  test("only parquet-java's failures on newer values are retried, also the JIT's trace-less NPE") {
    val traceless = new NullPointerException()
    traceless.setStackTrace(Array.empty)
    assert(ThriftForParquetJava.isUnreadableByParquetJava(traceless))
    assert(ThriftForParquetJava.isUnreadableByParquetJava(new java.io.IOException("Required field 'encoding' was not present!")))
    assert(!ThriftForParquetJava.isUnreadableByParquetJava(new IllegalStateException("x")))
    assert(!ThriftForParquetJava.isUnreadableByParquetJava(new IndexOutOfBoundsException("x")))
  }

  test("a footer that stays unreadable keeps parquet-java's failure, named with file and offset") {
    val broken = footer.footer.clone()
    java.util.Arrays.fill(broken, broken.length / 2, broken.length, 0xff.toByte)
    val e = intercept[ParquetFooterException](FooterReader.thrift(footer.copy(footer = broken)))
    assert(e.getMessage.contains(footer.path) && e.getMessage.contains(s"byte ${footer.footerOffset}"))
  }
}
