package io.superspark.parquet.footer.tools

import java.util.{LinkedHashMap => JMap}

import scala.util.control.NonFatal

import io.superspark.parquet.footer.UnrepresentableFooterException
import io.superspark.parquet.thrift.UnrebuildableFooterException

/**
 * One file's result of a footer command: a flat object (written by [[ToolJson]]) with the file's
 * `path`, its `status` and the command's fields, in that order.
 */
private[superspark] object ToolResult {

  def apply(path: String, status: String, fields: (String, Any)*): JMap[String, Any] = {
    val m = new JMap[String, Any]()
    m.put("path", path)
    m.put("status", status)
    fields.foreach { case (k, v) => m.put(k, v) }
    m
  }

  /** `body`'s result, failures included: `refused` (nothing written, with the reason) or `error`. */
  def guarded(display: String)(body: => JMap[String, Any]): JMap[String, Any] =
    try body catch {
      case e: UnrepresentableFooterException => ToolResult(display, "refused", "message" -> e.getMessage)
      case e: UnrebuildableFooterException => ToolResult(display, "refused", "message" -> e.getMessage)
      case e: RewriteRefusedException => ToolResult(display, "refused", "message" -> e.getMessage)
      case NonFatal(e) => ToolResult(display, "error", "message" -> Option(e.getMessage).getOrElse(e.toString))
    }
}
