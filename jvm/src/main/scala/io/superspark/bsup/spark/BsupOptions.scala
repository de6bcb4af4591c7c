package io.superspark.bsup.spark

import java.util.Locale

import io.superspark.bsup.{BsupVersion, BsupWriterOptions}
import io.superspark.types.SuperTypes
import org.apache.spark.network.util.JavaUtils
import org.apache.spark.sql.catalyst.util.{CaseInsensitiveMap, DropMalformedMode, FailFastMode, ParseMode, PermissiveMode}

/**
 * Options of the `bsup` data source (case-insensitive), like those of Spark's built-in file
 * sources. See docs/bsup.md.
 */
final class BsupOptions(parameters: Map[String, String], defaultCorruptColumn: String) extends Serializable {
  private val p = CaseInsensitiveMap(parameters)

  private def bool(name: String, default: Boolean): Boolean = p.get(name).map(_.trim.toLowerCase(Locale.ROOT)) match {
    case None => default
    case Some("true") => true
    case Some("false") => false
    case Some(other) => throw new IllegalArgumentException(s"bsup option '$name' must be true or false, got '$other'")
  }

  private def bytes(name: String, default: Long): Long = p.get(name) match {
    case None => default
    case Some(v) =>
      val n = try JavaUtils.byteStringAsBytes(v.trim) catch {
        case _: NumberFormatException => throw new IllegalArgumentException(s"bsup option '$name' must be a size, got '$v'")
      }
      if (n < 0) throw new IllegalArgumentException(s"bsup option '$name' must not be negative")
      n
  }

  /** PERMISSIVE (default), DROPMALFORMED or FAILFAST. */
  val parseMode: ParseMode = p.get("mode").map(ParseMode.fromString).getOrElse(PermissiveMode)
  val columnNameOfCorruptRecord: String = p.getOrElse("columnNameOfCorruptRecord", defaultCorruptColumn)

  /** Read every value as one VARIANT column named `value`. */
  val variant: Boolean = bool("variant", default = false)

  /** Fraction of the files examined to infer the schema (evenly spread, at least one). */
  val samplingRatio: Double = {
    val r = p.get("samplingRatio").map(_.trim.toDouble).getOrElse(1.0)
    if (!(r > 0 && r <= 1)) throw new IllegalArgumentException(s"bsup option 'samplingRatio' must be in (0, 1], got $r")
    r
  }

  /** Values examined per file to infer the schema (-1: all). */
  val samplingValues: Long = p.get("samplingValues").map(_.trim.toLong).getOrElse(100000L)

  val typeOptions: SuperTypes.Options = SuperTypes.Options(
    timeAsLong = bool("timeAsLong", default = false),
    durationAsInterval = bool("durationAsInterval", default = false))

  // Write options.
  val compress: Boolean = p.getOrElse("compression", "lz4").trim.toLowerCase(Locale.ROOT) match {
    case "lz4" => true
    case "none" | "uncompressed" => false
    case other => throw new IllegalArgumentException(s"bsup option 'compression' must be none or lz4, got '$other'")
  }
  val frameSize: Int = {
    val n = bytes("frameSize", BsupWriterOptions.DefaultFrameSize)
    if (n < 1 || n > (1 << 30)) throw new IllegalArgumentException("bsup option 'frameSize' must be between 1 and 1g")
    n.toInt
  }
  val streamSize: Long = bytes("streamSize", BsupOptions.DefaultStreamSize)

  /** The Super Binary version written: 0 (default, the spec's) or 5 (current SuperDB). */
  val version: Int = p.get("version").map(_.trim) match {
    case None => 0
    case Some(v) => scala.util.Try(v.toInt).toOption.filter(BsupVersion.isSupported).getOrElse(
      throw new IllegalArgumentException(s"bsup option 'version' must be 0 or ${BsupVersion.Latest}, got '$v'"))
  }

  def writerOptions: BsupWriterOptions = BsupWriterOptions(compress, frameSize, streamSize, version)

  def isFailFast: Boolean = parseMode == FailFastMode
  def isDropMalformed: Boolean = parseMode == DropMalformedMode
}

object BsupOptions {
  /** Streams end every 16 MiB of values so that large files split. */
  final val DefaultStreamSize: Long = 16L << 20
}
