package io.superspark.parquet.footer.tools

import java.util.{LinkedHashMap => JMap}

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.{Path => HPath}

import io.superspark.parquet.footer.codec.FooterLayout
import io.superspark.parquet.footer.files.FooterFiles
import io.superspark.parquet.footer.tools.FooterWalk.Target

/**
 * `add`: gives the file the extension by replacing only its tail (Thrift + extension + length + magic;
 * data pages copied, never decoded), crash-safely through [[FooterRewrite]] (`inPlace`: the old
 * in-place rewrite). A file whose extension verifies is `unchanged`; a damaged one is rebuilt.
 * Status `added`, `unchanged`, `refused` or `error`.
 */
private[superspark] final case class AddCommand(inPlace: Boolean) extends RewriteCommand {

  def file(t: Target, out: Option[HPath], conf: Configuration): JMap[String, Any] =
    RewriteCommand.rewriting(t, conf) { opened =>
      val started = System.nanoTime()
      val footer = opened.footer
      val alreadyValid = footer.located match {
        case FooterLayout.Present(_) => VerifyCommand.isValid(t.display, footer)
        case _ => false
      }
      val thrift = FooterFiles.thriftFooter(footer)
      val newTail =
        if (alreadyValid) FooterFiles.withLengthAndMagic(footer.footer)
        else FooterFiles.extendedTail(t.display, thrift, threads = FooterFiles.toolThreads)
      val how = if (!alreadyValid || out.isDefined) Some(FooterRewrite.replaceTail(opened, newTail, out, conf, inPlace)) else None
      val m = ToolResult(out.map(_.toString).getOrElse(t.display), if (alreadyValid) "unchanged" else "added",
        "source" -> t.display,
        "thrift_bytes" -> thrift.length,
        "flatbuffer_bytes" -> RewriteCommand.flatBufferBytes(newTail),
        "seconds" -> (System.nanoTime() - started) / 1e9)
      how.foreach(h => m.put("replace", h.name))
      m
    }
}
