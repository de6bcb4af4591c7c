package io.superspark.parquet.footer.tools

import java.nio.file.{Files, Path, StandardCopyOption}
import java.util.{LinkedHashMap => JMap}

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.{Path => HPath}

import io.superspark.parquet.footer.files.FooterFiles
import io.superspark.parquet.footer.tools.FooterWalk.Target

/**
 * `alp-decode` (`python -m superspark.footer alp-decode`, `superspark.footer.alp_decode`):
 * rewrites each file holding ALP data (docs/alp.md) so that every reader opens it: ratified ALP
 * chunks become PLAIN, private-form ALP data is dropped ([[AlpDecodeRewrite]]). Files without ALP
 * data are `unchanged` (copied to `output` when given). Local files only. The walk, the output
 * naming and the per-file results are the footer commands' ([[RewriteCommand]]).
 */
private[superspark] object AlpDecodeCommand extends RewriteCommand {

  private def local(t: Target, conf: Configuration): Path =
    FooterRewrite.localFile(t.path.getFileSystem(conf), t.path).getOrElse(
      throw new IllegalArgumentException(s"${t.display}: alp-decode works on local files only"))

  def file(t: Target, output: Option[HPath], conf: Configuration): JMap[String, Any] = {
    val p = local(t, conf)
    val out = output.map(o => local(Target(o, o.toString, ""), conf))
    val footer = FooterFiles.readFooter(p)
    out.foreach(o => Option(o.toAbsolutePath.getParent).foreach(Files.createDirectories(_)))
    if (!AlpDecodeRewrite.hasAlp(footer)) {
      out.foreach(o => Files.copy(p, o, StandardCopyOption.REPLACE_EXISTING))
      ToolResult(out.getOrElse(p).toString, "unchanged", "source" -> p.toString)
    } else {
      val r = AlpDecodeRewrite.rewrite(p, out.getOrElse(p), conf)
      ToolResult(out.getOrElse(p).toString, "decoded", "source" -> p.toString,
        "alp_chunks_decoded" -> r.decoded, "private_alp_dropped" -> r.dropped,
        "bytes_before" -> r.bytesBefore, "bytes_after" -> r.bytesAfter)
    }
  }
}
