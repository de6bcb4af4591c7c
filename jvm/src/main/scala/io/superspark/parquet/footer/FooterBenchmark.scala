package io.superspark.parquet.footer

import java.io.ByteArrayInputStream
import java.nio.file.{Files, Paths, StandardCopyOption}

import scala.jdk.CollectionConverters._

import org.apache.parquet.format.converter.ParquetMetadataConverter

/**
 * Footer decode benchmark (bench/parquet_footer drives it): for each Parquet file, medians of
 * `repeats` runs, measured side by side in one JVM:
 *  - thrift:    parquet-java's ParquetMetadataConverter.readParquetMetadata on the Thrift footer
 *  - full:      FooterReader.read on the extended footer (CRCs, verification, full decode;
 *               statistics decoded on first access, the default)
 *  - full eager: the same with every chunk's statistics decoded up front
 *  - projected: the same for 10 columns spread over the schema, all row groups
 * plus footer sizes, the time of `add` (FooterTool on a copy of the file; it refuses footers
 * that would exceed other readers' limit) and of building the FlatBuffer in memory.
 * Arguments: `PATH:REPEATS...`. Prints one JSON object per file.
 */
object FooterBenchmark {

  private def median(xs: Seq[Double]): Double = {
    val s = xs.sorted
    if (s.size % 2 == 1) s(s.size / 2) else (s(s.size / 2 - 1) + s(s.size / 2)) / 2
  }

  private def time[T](repeats: Int)(f: => T): Double = {
    (1 to math.max(1, repeats / 3)).foreach(_ => f) // warm-up (JIT)
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
      val added = FooterTool.add(java.util.List.of(copy.toString), null)
      val addMs = (System.nanoTime() - t0) / 1e6
      val addStatus = if (added.contains("\"status\":\"added\"")) "added" else "refused"
      Files.delete(copy)
      // The extended footer in memory (also where `add` refuses to write it).
      val original = FooterFiles.readFooter(src)
      val thrift = original.footer
      val b0 = System.nanoTime()
      val flatBuffer = FooterFiles.buildFlatBuffer(f, thrift)
      val buildMs = (System.nanoTime() - b0) / 1e6
      val extended = original.copy(footer = FooterLayout.appendExtension(thrift, flatBuffer))
      val md = FooterReader.thrift(original)
      val leaves = md.getFileMetaData.getSchema.getColumns.asScala.map(_.getPath.toSeq).toIndexedSeq
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
      val eager = Projection(lazyStatistics = false)
      val fullEagerMs = time(repeats) {
        val r = FooterReader.read(extended, eager)
        require(r.source == FooterSource.FlatBuffer, r.fallback)
      }
      val projectedMs = time(repeats) {
        val r = FooterReader.read(extended, projection)
        require(r.source == FooterSource.FlatBuffer && r.metadata.getBlocks.get(0).getColumns.size == 10, r.fallback)
      }
      println(s"""{"file": "$f", "columns": ${leaves.size}, "row_groups": ${md.getBlocks.size}, """ +
        s""""thrift_bytes": ${thrift.length}, "flatbuffer_bytes": ${flatBuffer.length}, """ +
        s""""thrift_ms": $thriftMs, "full_ms": $fullMs, "full_eager_ms": $fullEagerMs, "projected_ms": $projectedMs, "add_ms": $addMs, """ +
        s""""add_status": "$addStatus", "build_ms": $buildMs, """ +
        s""""repeats": $repeats}""")
    }
  }
}
