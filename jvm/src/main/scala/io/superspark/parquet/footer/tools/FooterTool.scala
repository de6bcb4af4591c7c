package io.superspark.parquet.footer.tools

import java.util.{List => JList}

import scala.annotation.tailrec
import scala.jdk.CollectionConverters._

import org.apache.hadoop.conf.Configuration

/**
 * The entry point of the footer commands: the command line's JVM ([[main]]) and the methods the Python API
 * calls through py4j (`superspark.footer`), each of which dispatches to one command over the shared walk
 * ([[FooterWalk]]): [[InspectCommand]], [[VerifyCommand]], [[RoundtripCommand]] (read-only), [[AddCommand]],
 * [[StripCommand]], [[MigrateCommand]] and [[AlpDecodeCommand]] (rewrites, crash-safe through
 * [[FooterRewrite]]; `inPlace` is the old, not crash-safe, opt-in path). Paths go through Hadoop's
 * `FileSystem` API (`file:`, `hdfs:`, `s3a:`, ...; a path without a scheme is a local file), with the
 * call's [[ToolSettings]] (without them: [[ToolSettings.Default]]). Every command returns a JSON array
 * ([[ToolJson]]) with one object per Parquet file; a file that fails gets `"status": "error"` (or
 * `refused`) and a message, the others are still processed. The table job is [[FooterTableJob]].
 */
private[superspark] object FooterTool {

  /** The settings of one call from Python: `keyValues` (`key=value`, as `-D` takes them) over `base` (null: none). */
  def settings(keyValues: JList[String], base: Configuration): ToolSettings = ToolSettings.of(keyValues, base)

  def inspect(paths: JList[String]): String = inspect(paths, ToolSettings.Default)
  def inspect(paths: JList[String], settings: ToolSettings): String = read(InspectCommand, paths, settings)

  def verify(paths: JList[String]): String = verify(paths, ToolSettings.Default)
  def verify(paths: JList[String], settings: ToolSettings): String = read(VerifyCommand, paths, settings)

  /** Per file: does the Thrift footer rebuilt from its FlatBuffer equal the original bytes? */
  def roundtrip(paths: JList[String]): String = roundtrip(paths, ToolSettings.Default)
  def roundtrip(paths: JList[String], settings: ToolSettings): String = read(RoundtripCommand, paths, settings)

  def add(paths: JList[String], output: String): String = add(paths, output, false)
  def add(paths: JList[String], output: String, inPlace: Boolean): String = add(paths, output, inPlace, ToolSettings.Default)
  def add(paths: JList[String], output: String, inPlace: Boolean, settings: ToolSettings): String =
    rewrite(AddCommand(inPlace), paths, output, settings)

  def strip(paths: JList[String], output: String): String = strip(paths, output, false)
  def strip(paths: JList[String], output: String, inPlace: Boolean): String = strip(paths, output, inPlace, ToolSettings.Default)
  def strip(paths: JList[String], output: String, inPlace: Boolean, settings: ToolSettings): String =
    rewrite(StripCommand(inPlace), paths, output, settings)

  /** Rewrites each file's footer into `to` (plain, private, intermediate, final); data pages untouched. */
  def migrate(paths: JList[String], output: String, to: String): String = migrate(paths, output, to, false)
  def migrate(paths: JList[String], output: String, to: String, inPlace: Boolean): String =
    migrate(paths, output, to, inPlace, ToolSettings.Default)
  def migrate(paths: JList[String], output: String, to: String, inPlace: Boolean, settings: ToolSettings): String =
    rewrite(RewriteCommand.named("migrate", to, inPlace), paths, output, settings)

  /** `alp-decode`: ALP chunks to PLAIN, private ALP data dropped (docs/alp.md). */
  def alpDecode(paths: JList[String], output: String): String = alpDecode(paths, output, ToolSettings.Default)
  def alpDecode(paths: JList[String], output: String, settings: ToolSettings): String =
    rewrite(AlpDecodeCommand, paths, output, settings)

  /** `uploads`: the incomplete multipart uploads under each `s3a://` prefix; `abortOlderThan` (null: none, else
   *  e.g. `1h`) aborts those at least that old ([[UploadsCommand]]). */
  def uploads(paths: JList[String], abortOlderThan: String, settings: ToolSettings): String =
    ToolJson.write(UploadsCommand.run(paths.asScala.toSeq, Option(abortOlderThan).map(UploadsCommand.parseAge), settings))

  private def read(command: ReadCommand, paths: JList[String], settings: ToolSettings): String =
    ToolJson.write(command.run(paths.asScala.toSeq, settings))

  private def rewrite(command: RewriteCommand, paths: JList[String], output: String, settings: ToolSettings): String =
    ToolJson.write(command.run(paths.asScala.toSeq, output, settings))

  private val ReadCommands: Map[String, ReadCommand] =
    Map("inspect" -> InspectCommand, "verify" -> VerifyCommand, "roundtrip" -> RoundtripCommand)

  private val Usage = "usage: FooterTool inspect|verify|roundtrip|add|strip|migrate|alp-decode|uploads [-D key=value]... " +
    "[--output OUT] [--to FORM] [--unsafe-in-place] [--abort-older-than AGE] PATH..."

  /** The command line after its command: options and paths in any order. */
  private[tools] final case class Arguments(paths: Vector[String] = Vector.empty, output: String = null,
      to: String = null, inPlace: Boolean = false, settings: ToolSettings = ToolSettings.Default,
      abortOlderThan: String = null)

  /** `args` after the command; an option without its value, or `-D` without `key=value`, is a path. */
  @tailrec private[tools] def parse(args: List[String], parsed: Arguments = Arguments()): Arguments = args match {
    case "--output" :: out :: rest => parse(rest, parsed.copy(output = out))
    case "--to" :: form :: rest => parse(rest, parsed.copy(to = form))
    case "--unsafe-in-place" :: rest => parse(rest, parsed.copy(inPlace = true))
    case "--abort-older-than" :: age :: rest => parse(rest, parsed.copy(abortOlderThan = age))
    case "-D" :: kv :: rest if kv.contains("=") => parse(rest, parsed.copy(settings = parsed.settings.set(kv)))
    case d :: rest if d.startsWith("-D") && d.contains("=") => parse(rest, parsed.copy(settings = parsed.settings.set(d.substring(2))))
    case path :: rest => parse(rest, parsed.copy(paths = parsed.paths :+ path))
    case Nil => parsed
  }

  /**
   * The command line's JVM (`python -m superspark.footer` runs it, one process per call):
   * `java -cp ... io.superspark.parquet.footer.tools.FooterTool COMMAND [-D key=value]... [--output OUT] [--to FORM] PATH...`;
   * prints the JSON array on one line. Exit code 64 for a usage error, else 0 (the caller
   * reads the statuses).
   */
  def main(args: Array[String]): Unit = {
    val command = args.headOption.getOrElse("")
    val a = parse(args.toList.drop(1))
    if (a.paths.isEmpty || (command == "migrate") != (a.to != null)) {
      System.err.println(Usage)
      sys.exit(64)
    }
    val results = command match {
      case c if ReadCommands.contains(c) => ReadCommands(c).run(a.paths, a.settings)
      case "add" | "strip" | "migrate" => RewriteCommand.named(command, a.to, a.inPlace).run(a.paths, a.output, a.settings)
      case "alp-decode" => AlpDecodeCommand.run(a.paths, a.output, a.settings)
      case "uploads" =>
        val age = try Option(a.abortOlderThan).map(UploadsCommand.parseAge) catch {
          case e: IllegalArgumentException => System.err.println(e.getMessage); sys.exit(64)
        }
        UploadsCommand.run(a.paths, age, a.settings)
      case _ => System.err.println(s"unknown command $command; $Usage"); sys.exit(64)
    }
    System.out.println(ToolJson.write(results))
    System.out.flush()
  }
}
