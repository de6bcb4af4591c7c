package io.superspark.parquet.footer.tools

import java.util.{LinkedHashMap => JMap}

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.{Path => HPath}

import io.superspark.parquet.footer.codec.{FooterForm, FooterLayout}
import io.superspark.parquet.footer.files.FooterFiles
import io.superspark.parquet.footer.tools.FooterWalk.Target

/**
 * `migrate --to form`: the file's plain Thrift footer (stripped of the extension, or rebuilt from a
 * final-form FlatBuffer), then the tail of `to`; only the tail is rewritten, crash-safely through
 * [[FooterRewrite]] (`inPlace`: the old in-place rewrite). A file already in `to` whose extension
 * verifies is `unchanged`. Status `migrated`, `unchanged`, `refused` or `error`, with `from` and `to`.
 */
private[superspark] final case class MigrateCommand(to: FooterForm, inPlace: Boolean) extends RewriteCommand {

  def file(t: Target, out: Option[HPath], conf: Configuration): JMap[String, Any] =
    RewriteCommand.rewriting(t, conf) { opened =>
      val started = System.nanoTime()
      val footer = opened.footer
      val from = FooterFiles.formOf(footer)
      val unchanged = from == to && (to == FooterForm.Plain || VerifyCommand.isValid(t.display, footer))
      val thrift = if (unchanged && to != FooterForm.Final) None else Some(FooterFiles.thriftFooter(footer))
      val newTail = if (unchanged) {
        if (footer.isFinal) {
          val tail = java.util.Arrays.copyOf(footer.footer, footer.footer.length + 4)
          System.arraycopy(FooterLayout.FinalMagic, 0, tail, tail.length - 4, 4)
          tail
        }
        else FooterFiles.withLengthAndMagic(footer.footer)
      } else FooterFiles.tailFor(t.display, thrift.get, to, threads = FooterFiles.toolThreads)
      val how = if (!unchanged || out.isDefined) Some(FooterRewrite.replaceTail(opened, newTail, out, conf, inPlace)) else None
      val m = ToolResult(out.map(_.toString).getOrElse(t.display), if (unchanged) "unchanged" else "migrated",
        "source" -> t.display, "from" -> from.name, "to" -> to.name, "tail_bytes" -> newTail.length,
        "flatbuffer_bytes" -> RewriteCommand.flatBufferBytes(newTail), "seconds" -> (System.nanoTime() - started) / 1e9)
      thrift.foreach(t => m.put("thrift_bytes", t.length))
      how.foreach(h => m.put("replace", h.name))
      m
    }
}
