package io.superspark.bsup.spark

import java.util.Locale

import io.superspark.bsup.{BsupVersion, BsupWriterOptions}
import io.superspark.bsup.spark.SuperTypes.DecimalForm
import org.apache.spark.network.util.JavaUtils
import org.apache.spark.sql.catalyst.{DataSourceOptions, FileSourceOptions}
import org.apache.spark.sql.catalyst.util.{CaseInsensitiveMap, DropMalformedMode, FailFastMode, ParseMode, PermissiveMode}

/**
 * Options of the `bsup` data source (case-insensitive), declared like those of Spark's Avro
 * source: the names live in the companion ([[BsupOptions.MODE]], ...), a bad value is a
 * a `SuperSparkIllegalArgumentException` (`BSUP_INVALID_OPTION`, [[BsupErrors.invalidOption]]). See docs/bsup.md.
 */
private[superspark] final class BsupOptions(@transient val parameters: CaseInsensitiveMap[String], defaultCorruptColumn: String)
    extends FileSourceOptions(parameters) {
  import BsupOptions._

  def this(parameters: Map[String, String], defaultCorruptColumn: String) =
    this(CaseInsensitiveMap(parameters), defaultCorruptColumn)

  private def bool(name: String, default: Boolean): Boolean = parameters.get(name).map(_.trim.toLowerCase(Locale.ROOT)) match {
    case None => default
    case Some("true") => true
    case Some("false") => false
    case Some(other) => throw BsupErrors.invalidOption(name, "true or false", other)
  }

  private def bytes(name: String, default: Long): Long = parameters.get(name) match {
    case None => default
    case Some(v) =>
      val n = try JavaUtils.byteStringAsBytes(v.trim) catch {
        case _: NumberFormatException => throw BsupErrors.invalidOption(name, "a size such as 64k or 1m", v)
      }
      if (n < 0) throw BsupErrors.invalidOption(name, "a size that is not negative", v)
      n
  }

  /** PERMISSIVE (default), DROPMALFORMED or FAILFAST. */
  val parseMode: ParseMode = parameters.get(MODE).map(ParseMode.fromString).getOrElse(PermissiveMode)
  val columnNameOfCorruptRecord: String = parameters.getOrElse(COLUMN_NAME_OF_CORRUPT_RECORD, defaultCorruptColumn)

  /** Read every value as one VARIANT column named `value`. */
  val variant: Boolean = bool(VARIANT, default = false)

  /** Fraction of the files examined to infer the schema (evenly spread, at least one). */
  val samplingRatio: Double = parameters.get(SAMPLING_RATIO) match {
    case None => 1.0
    case Some(v) => v.trim.toDoubleOption.filter(r => r > 0 && r <= 1)
      .getOrElse(throw BsupErrors.invalidOption(SAMPLING_RATIO, "a number in (0, 1]", v))
  }

  /** Values examined per file to infer the schema (-1: all). */
  val samplingValues: Long = parameters.get(SAMPLING_VALUES) match {
    case None => 100000L
    case Some(v) => v.trim.toLongOption.getOrElse(throw BsupErrors.invalidOption(SAMPLING_VALUES, "an integer", v))
  }

  val typeOptions: SuperTypes.Options = SuperTypes.Options(
    timeAsLong = bool(TIME_AS_LONG, default = false),
    durationAsInterval = bool(DURATION_AS_INTERVAL, default = false))

  // Write options.
  val compress: Boolean = parameters.getOrElse(COMPRESSION, "lz4").trim.toLowerCase(Locale.ROOT) match {
    case "lz4" => true
    case "none" | "uncompressed" => false
    case other => throw BsupErrors.invalidOption(COMPRESSION, "none or lz4", other)
  }
  val frameSize: Int = {
    val n = bytes(FRAME_SIZE, BsupWriterOptions.DefaultFrameSize)
    if (n < 1 || n > (1 << 30)) throw BsupErrors.invalidOption(FRAME_SIZE, "between 1 and 1g", n.toString)
    n.toInt
  }
  val streamSize: Long = bytes(STREAM_SIZE, DefaultStreamSize)

  /** The Super Binary version written: 0 (default, the spec's) or 5 (current SuperDB). */
  val version: Int = parameters.get(VERSION).map(_.trim) match {
    case None => 0
    case Some(v) => v.toIntOption.filter(BsupVersion.isSupported).getOrElse(
      throw BsupErrors.invalidOption(VERSION, s"0 or ${BsupVersion.Latest}", v))
  }

  /** How Spark decimals are written: SuperDB's named float64 (default), exact text, or the spec's decimals. */
  val decimalAs: DecimalForm = parameters.get(DECIMAL_AS).map(_.trim.toLowerCase(Locale.ROOT)) match {
    case None => DecimalForm.Float64
    case Some(v) => DecimalForm.all.find(_.name == v)
      .getOrElse(throw BsupErrors.invalidOption(DECIMAL_AS, "float64, string or spec", v))
  }

  /**
   * Fail a write that SuperDB could not read (a type it lacks; a null without a union at version
   * 5). `false` writes it anyway. `decimalAs=spec` alone allows the spec's decimal types.
   */
  val superdbReadable: Boolean = bool(SUPERDB_READABLE, default = true)

  def writerOptions: BsupWriterOptions = BsupWriterOptions(compress, frameSize, streamSize, version)

  def isFailFast: Boolean = parseMode == FailFastMode
  def isDropMalformed: Boolean = parseMode == DropMalformedMode
}

private[superspark] object BsupOptions extends DataSourceOptions {
  val MODE: String = newOption("mode")
  // Spark's name ("columnNameOfCorruptRecord"; DataSourceOptions has the constant from 4.1 on).
  val COLUMN_NAME_OF_CORRUPT_RECORD: String = newOption("columnNameOfCorruptRecord")
  val VARIANT: String = newOption("variant")
  val SAMPLING_RATIO: String = newOption("samplingRatio")
  val SAMPLING_VALUES: String = newOption("samplingValues")
  val TIME_AS_LONG: String = newOption("timeAsLong")
  val DURATION_AS_INTERVAL: String = newOption("durationAsInterval")
  val COMPRESSION: String = newOption("compression")
  val FRAME_SIZE: String = newOption("frameSize")
  val STREAM_SIZE: String = newOption("streamSize")
  val VERSION: String = newOption("version")
  val DECIMAL_AS: String = newOption("decimalAs")
  val SUPERDB_READABLE: String = newOption("superdbReadable")

  /** Streams end every 16 MiB of values so that large files split. */
  final val DefaultStreamSize: Long = 16L << 20
}
