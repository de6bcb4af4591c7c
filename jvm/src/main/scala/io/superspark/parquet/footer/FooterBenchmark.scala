package io.superspark.parquet.footer

import java.io.ByteArrayInputStream
import java.nio.file.{Files, Paths, StandardCopyOption}

import scala.jdk.CollectionConverters._

import org.apache.parquet.format.converter.ParquetMetadataConverter

/**
 * Footer decode benchmark (bench/parquet_footer drives it): for each Parquet file, medians of
 * `repeats` runs, measured side by side in one JVM:
 *  - thrift:    parquet-java's ParquetMetadataConverter.readParquetMetadata on the Thrift footer
 *  - full:      FooterReader.read on the extended footer (CRCs, verification, full decode)
 *  - projected: the same for 10 columns spread over the schema, all row groups
 * plus footer sizes and the time of `add` (FooterTool on a copy of the file).
 * Arguments: `PATH:REPEATS...`. Prints one JSON object per file.
 */
object FooterBenchmark {

  private def median(xs: Seq[Double]): Double = {
    val s = xs.sorted
    if (s.size % 2 == 1) s(s.size / 2) else (s(s.size / 2 - 1) + s(s.size / 2)) / 2
  }

  private def time[T](repeats: Int)(f: => T): Double = {
    f // warm-up
    median((1 to repeats).map { _ =>
      val t0 = System.nanoTime()
      f
      (System.nanoTime() - t0) / 1e6
    })
  }

  def main(args: Array[String]): Unit = {
    args.foreach { arg =>
      val cut = arg.lastIndexOf(':')
      val (f, repeats) = (arg.substring(0, cut), arg.substring(cut + 1).toInt)
      val src = Paths.get(f)
      val copy = Files.createTempFile("footer-bench", ".parquet")
      Files.copy(src, copy, StandardCopyOption.REPLACE_EXISTING)
      val t0 = System.nanoTime()
      FooterTool.add(java.util.List.of(copy.toString), null)
      val addMs = (System.nanoTime() - t0) / 1e6
      val extended = FooterFiles.readFooter(copy)
      Files.delete(copy)
      val ext = FooterLayout.locate(extended.footer) match {
        case FooterLayout.Present(e) => e
        case other => sys.error(s"$f: no extension after add: $other")
      }
      val thrift = ext.thriftFooter(extended.footer)
      val schema = FooterReader.thrift(extended).getFileMetaData.getSchema
      val leaves = schema.getColumns.asScala.map(_.getPath.toSeq).toIndexedSeq
      val ten = (0 until 10).map(i => leaves((i * leaves.size) / 10))
      val projection = Projection(columns = Some(ten))

      val converter = FooterReader.converter()
      val thriftMs = time(repeats) {
        converter.readParquetMetadata(new ByteArrayInputStream(thrift), ParquetMetadataConverter.NO_FILTER)
      }
      val fullMs = time(repeats) {
        val r = FooterReader.read(extended)
        require(r.source == FooterSource.FlatBuffer, r.fallback)
      }
      val projectedMs = time(repeats) {
        val r = FooterReader.read(extended, projection)
        require(r.source == FooterSource.FlatBuffer && r.metadata.getBlocks.get(0).getColumns.size == 10, r.fallback)
      }
      val md = FooterReader.thrift(extended)
      println(s"""{"file": "$f", "columns": ${leaves.size}, "row_groups": ${md.getBlocks.size}, """ +
        s""""thrift_bytes": ${thrift.length}, "flatbuffer_bytes": ${ext.flatBufferLength}, """ +
        s""""thrift_ms": $thriftMs, "full_ms": $fullMs, "projected_ms": $projectedMs, "add_ms": $addMs, """ +
        s""""repeats": $repeats}""")
    }
  }
}
