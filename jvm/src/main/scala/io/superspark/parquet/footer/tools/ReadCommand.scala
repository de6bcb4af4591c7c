package io.superspark.parquet.footer.tools

import java.util.{LinkedHashMap => JMap}

import org.apache.hadoop.conf.Configuration

import io.superspark.parquet.footer.files.{FooterBytes, FooterFiles}
import io.superspark.parquet.footer.tools.FooterWalk.Target

/**
 * A command that reads files and writes nothing (`inspect`, `verify`, `roundtrip`): one result per
 * file of the walk ([[FooterWalk]]), files in Delta tables included.
 */
private[superspark] trait ReadCommand {

  /** One file's result. */
  def file(t: Target, conf: Configuration): JMap[String, Any]

  /** The results of every file of `paths`, in the walk's order; a file that fails is `error` or `refused`. */
  final def run(paths: Seq[String], settings: ToolSettings): Seq[JMap[String, Any]] = {
    val conf = settings.conf()
    FooterWalk.walk(paths, conf, checkAll = true, refuseDelta = false).map {
      case Left(refusal) => refusal
      case Right(t) => ToolResult.guarded(t.display)(file(t, conf))
    }
  }
}

private[superspark] object ReadCommand {

  /** The footer of `t` as it is now. */
  def readFooter(t: Target, conf: Configuration): FooterBytes = {
    val fs = t.path.getFileSystem(conf)
    val length = fs.getFileStatus(t.path).getLen
    val in = fs.open(t.path)
    try FooterFiles.readFooter(t.display, length, { (off, len) => val b = new Array[Byte](len); in.readFully(off, b); b })
    finally in.close()
  }
}
