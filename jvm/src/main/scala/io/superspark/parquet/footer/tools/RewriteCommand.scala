package io.superspark.parquet.footer.tools

import java.util.{LinkedHashMap => JMap}

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.{Path => HPath}

import io.superspark.parquet.footer.codec.{FooterForm, FooterLayout}
import io.superspark.parquet.footer.tools.FooterWalk.Target

/**
 * A command that rewrites files (`add`, `strip`, `migrate`, `alp-decode`): over each file of the walk
 * ([[FooterWalk]], paths in Delta tables refused), or into an output (a file for a single file, else a
 * folder mirroring the inputs). The command line, the Python API and each task of [[FooterTableJob]] run
 * the same per-file rewrite.
 */
private[superspark] trait RewriteCommand {

  /** One file's rewrite: over `t`, or into `out`. */
  def file(t: Target, out: Option[HPath], conf: Configuration): JMap[String, Any]

  /**
   * The results of every file of `paths`, in the walk's order, written over the file or under `output` (null:
   * over the file); a file that fails is `error` or `refused`.
   */
  final def run(paths: Seq[String], output: String, settings: ToolSettings): Seq[JMap[String, Any]] = {
    val conf = settings.conf()
    val files = FooterWalk.walk(paths, conf)
    def isDir(p: String) = { val h = new HPath(p); val fs = h.getFileSystem(conf); fs.exists(h) && fs.getFileStatus(h).isDirectory }
    val single = paths.size == 1 && files.size == 1 && !isDir(paths.head)
    files.map {
      case Left(refusal) => refusal
      case Right(t) =>
        val out = Option(output).map(o => if (single && !isDir(o)) new HPath(o) else new HPath(o, t.relative))
        ToolResult.guarded(t.display)(file(t, out, conf))
    }
  }
}

private[superspark] object RewriteCommand {

  /**
   * The rewrite command `command` (`add`, `strip`, or `migrate` into the form `to`); `inPlace`: the old,
   * not crash-safe, in-place rewrite. Refuses an unknown command or form before anything runs.
   */
  def named(command: String, to: String, inPlace: Boolean): RewriteCommand = command match {
    case "add" => AddCommand(inPlace)
    case "strip" => StripCommand(inPlace)
    case "migrate" =>
      val form = FooterForm.parse(to).getOrElse(throw new IllegalArgumentException(
        s"unknown footer form '$to' (expected one of ${FooterForm.all.mkString(", ")})"))
      MigrateCommand(form, inPlace)
    case other => throw new IllegalArgumentException(s"unknown rewrite command '$other' (add, strip or migrate)")
  }

  /** Opens the file for a rewrite ([[FooterRewrite.open]]: lock, leftovers, footer, snapshot) around `body`. */
  def rewriting(t: Target, conf: Configuration)(body: FooterRewrite.Opened => JMap[String, Any]): JMap[String, Any] = {
    val opened = FooterRewrite.open(t.path, conf)
    try body(opened) finally opened.close()
  }

  /** The FlatBuffer's size in a new tail (0 when it has none). */
  def flatBufferBytes(tail: Array[Byte]): Int = {
    val n = tail.length
    val isFinal = java.util.Arrays.equals(tail, n - 4, n, FooterLayout.FinalMagic, 0, 4)
    (if (isFinal) FooterLayout.locateFinal(tail, n - 4) else FooterLayout.locate(tail, n - 8)) match {
      case FooterLayout.Present(ext) => ext.flatBufferLength
      case _ => 0
    }
  }
}
