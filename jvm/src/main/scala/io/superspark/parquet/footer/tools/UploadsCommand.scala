package io.superspark.parquet.footer.tools

import java.util.{LinkedHashMap => JMap}

import scala.util.control.NonFatal

import org.apache.hadoop.fs.Path

/**
 * `uploads`: the incomplete multipart uploads under each `s3a://bucket/prefix` (S3's key prefix), one result
 * per upload, oldest first: `path`, `status` (`incomplete`, or `aborted`), `key`, `upload_id`, `initiated`,
 * `age_seconds`. With an age limit (`--abort-older-than 1h`: a number and `s`, `m`, `h` or `d`) every upload at
 * least that old is aborted. What a killed server-side rewrite ([[FooterRewrite.ServerSideCopy]]) can leave
 * behind, found and removed. A path that is not on S3A gets `status` `error`.
 */
private[superspark] object UploadsCommand {

  /** Seconds of `1h`, `30m`, `10s`, `2d` (a bare number: seconds). */
  def parseAge(s: String): Long = {
    val m = "(\\d+)\\s*([smhd]?)".r
    s.trim.toLowerCase match {
      case m(n, unit) => n.toLong * (unit match { case "m" => 60L; case "h" => 3600L; case "d" => 86400L; case _ => 1L })
      case other => throw new IllegalArgumentException(s"--abort-older-than $other: expected a number and s, m, h or d (e.g. 1h)")
    }
  }

  def run(paths: Seq[String], abortOlderThanSeconds: Option[Long], settings: ToolSettings): Seq[JMap[String, Any]] = {
    val conf = settings.conf()
    paths.flatMap { p =>
      try {
        val path = new Path(p)
        val fs = path.getFileSystem(conf)
        if (!FooterRewrite.isS3A(fs)) Seq(ToolResult(p, "error", "message" ->
          s"$p: not an s3a:// path (or hadoop-aws is not on the class path); multipart uploads are S3's"))
        else S3ServerSideRewrite.uploads(fs, fs.makeQualified(path), abortOlderThanSeconds)
      } catch {
        case NonFatal(e) => Seq(ToolResult(p, "error", "message" -> Option(e.getMessage).getOrElse(e.toString)))
      }
    }
  }
}
