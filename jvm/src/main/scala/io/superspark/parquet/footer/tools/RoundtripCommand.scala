package io.superspark.parquet.footer.tools

import java.util.{LinkedHashMap => JMap}

import org.apache.hadoop.conf.Configuration

import io.superspark.parquet.footer.codec.MetadataDiff
import io.superspark.parquet.footer.files.{FooterBytes, FooterFiles, FooterReader}
import io.superspark.parquet.footer.tools.FooterWalk.Target
import io.superspark.parquet.thrift.{ThriftForParquetJava, UnrebuildableFooterException}

/**
 * `roundtrip`: Thrift -> FlatBuffer -> Thrift on the file's plain Thrift footer: `exact` (the same
 * bytes), `equivalent` (other bytes, but parquet-java parses both to equal Thrift objects and the
 * same `ParquetMetadata`), `different` (with the first difference) or `refused`.
 */
private[superspark] object RoundtripCommand extends ReadCommand {

  def file(t: Target, conf: Configuration): JMap[String, Any] = {
    val p = t.display
    val footer = ReadCommand.readFooter(t, conf)
    val original = FooterFiles.thriftFooter(footer)
    def parse(b: Array[Byte]) = ThriftForParquetJava.parse(b)
    val tmd = parse(original)
    val rebuilt = FooterFiles.convertAndRebuild(tmd, original)._2 match {
      case Right(bytes) => bytes
      case Left(reason) => throw new UnrebuildableFooterException(reason)
    }
    val m = ToolResult(p, "exact", "created_by" -> tmd.getCreated_by, "thrift_bytes" -> original.length,
      "rebuilt_bytes" -> rebuilt.length)
    if (!java.util.Arrays.equals(original, rebuilt)) {
      val n = math.min(original.length, rebuilt.length)
      val at = java.util.Arrays.mismatch(original, 0, n, rebuilt, 0, n)
      m.put("first_difference", if (at < 0) n else at)
      def read(b: Array[Byte]) = FooterReader.thrift(FooterBytes(p, footer.fileLength, footer.footerOffset, b))
      val objects = if (parse(rebuilt) == tmd) None else Some("parquet-java parses the two to different Thrift objects")
      objects.orElse(MetadataDiff.diff(read(rebuilt), read(original))) match {
        case Some(d) => m.put("status", "different"); m.put("reason", d)
        case None => m.put("status", "equivalent")
      }
    }
    m
  }
}
