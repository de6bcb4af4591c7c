package io.superspark.parquet.footer.tools

import java.util.{LinkedHashMap => JMap}

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.{Path => HPath}

import io.superspark.parquet.footer.codec.FooterLayout
import io.superspark.parquet.footer.files.FooterFiles
import io.superspark.parquet.footer.tools.FooterWalk.Target

/**
 * `strip`: the inverse of `add`, also for a damaged extension (delimited through the Thrift fields): the
 * file becomes byte-identical to the one before `add`, crash-safely through [[FooterRewrite]] (`inPlace`:
 * the old in-place rewrite). Status `stripped`, `unchanged` (no extension), `refused` or `error`.
 */
private[superspark] final case class StripCommand(inPlace: Boolean) extends RewriteCommand {

  def file(t: Target, out: Option[HPath], conf: Configuration): JMap[String, Any] =
    RewriteCommand.rewriting(t, conf) { opened =>
      val footer = opened.footer
      val present = footer.located match {
        case FooterLayout.Absent => false
        case _ => true // present, or damaged (delimited through the Thrift fields)
      }
      val thrift = FooterFiles.thriftFooter(footer)
      val how = if (present || out.isDefined) {
        Some(FooterRewrite.replaceTail(opened, FooterFiles.withLengthAndMagic(thrift), out, conf, inPlace))
      } else None
      val m = ToolResult(out.map(_.toString).getOrElse(t.display), if (present) "stripped" else "unchanged",
        "source" -> t.display, "thrift_bytes" -> thrift.length)
      how.foreach(h => m.put("replace", h.name))
      m
    }
}
