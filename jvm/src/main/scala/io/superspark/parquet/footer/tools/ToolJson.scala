package io.superspark.parquet.footer.tools

import java.util.{Map => JMap}

/**
 * The footer tools' results as JSON text: an array of flat objects whose values are strings,
 * booleans, integers, floating-point numbers or null, which is all [[FooterTool]] reports.
 * Written here rather than with Jackson's `ObjectMapper`, whose start-up (~100 ms of class
 * loading and set-up even from the class data archive) was a twentieth of a cold
 * command-line call. Output as Jackson writes it: keys in insertion order, no spaces,
 * `"`, `\` and control characters escaped, other characters as they are (UTF-8), numbers as
 * Java prints them. Any other value is a bug and fails.
 */
private[superspark] object ToolJson {

  def write(results: Seq[JMap[String, Any]]): String = {
    val out = new java.lang.StringBuilder(128 * results.size + 2)
    out.append('[')
    var first = true
    results.foreach { m =>
      if (!first) out.append(',')
      first = false
      obj(out, m)
    }
    out.append(']').toString
  }

  private def obj(out: java.lang.StringBuilder, m: JMap[String, Any]): Unit = {
    out.append('{')
    var first = true
    m.forEach { (k, v) =>
      if (!first) out.append(',')
      first = false
      string(out, k)
      out.append(':')
      value(out, v)
    }
    out.append('}')
  }

  private def value(out: java.lang.StringBuilder, v: Any): Unit = v match {
    case null => out.append("null")
    case s: String => string(out, s)
    case b: Boolean => out.append(b)
    case i: Int => out.append(i)
    case l: Long => out.append(l)
    case d: Double => number(out, d)
    case m: JMap[_, _] => obj(out, m.asInstanceOf[JMap[String, Any]])
    case l: java.util.List[_] =>
      out.append('[')
      var first = true
      l.forEach { x => if (!first) out.append(','); first = false; value(out, x) }
      out.append(']')
    case other => throw new IllegalArgumentException(s"no JSON form for ${other.getClass.getName}: $other")
  }

  /** As Jackson writes doubles: Java's text, and NaN / Infinity as bare tokens (Python reads them). */
  private def number(out: java.lang.StringBuilder, d: Double): Unit =
    if (d.isNaN) out.append("NaN")
    else if (d.isInfinite) out.append(if (d > 0) "Infinity" else "-Infinity")
    else out.append(d)

  private def string(out: java.lang.StringBuilder, s: String): Unit = {
    out.append('"')
    var i = 0
    while (i < s.length) {
      val c = s.charAt(i)
      c match {
        case '"' => out.append("\\\"")
        case '\\' => out.append("\\\\")
        case '\n' => out.append("\\n")
        case '\r' => out.append("\\r")
        case '\t' => out.append("\\t")
        case '\b' => out.append("\\b")
        case '\f' => out.append("\\f")
        case _ if c < 0x20 => out.append("\\u00").append(Character.forDigit(c >> 4, 16)).append(Character.forDigit(c & 15, 16))
        case _ => out.append(c)
      }
      i += 1
    }
    out.append('"')
  }
}
