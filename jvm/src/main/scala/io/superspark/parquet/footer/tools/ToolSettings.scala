package io.superspark.parquet.footer.tools

import scala.jdk.CollectionConverters._

import org.apache.hadoop.conf.Configuration

/**
 * What one call of a footer command runs with, passed to the command: the Hadoop settings paths
 * are opened with. `base` is the SparkSession's Hadoop configuration when the Python API runs in
 * one (a copy taken when the settings are made), else none: Hadoop's defaults and the
 * `core-site.xml` on the class path (`HADOOP_CONF_DIR`, which the command line puts there).
 * `hadoop` holds the settings given as Hadoop's own tools take them (`-D key=value`), over the
 * base; they carry the tools' own keys too (`superspark.footer.replace`,
 * `superspark.footer.staleTempSeconds`, `superspark.footer.conditionalWrite`, `superspark.footer.serverSideCopy`:
 * [[FooterRewrite]]).
 * Immutable: each call makes its own, and [[conf]] gives each command a configuration of its own.
 */
private[superspark] final class ToolSettings private (val base: Option[Configuration], val hadoop: Map[String, String]) {

  /** A new configuration for one command: the base, then the `-D` settings. */
  def conf(): Configuration = {
    val c = base.fold(new Configuration())(new Configuration(_))
    hadoop.foreach { case (k, v) => c.set(k, v) }
    c
  }

  /** These settings and `key` = `value` (a later setting of a key wins, as with `-D`). */
  def set(key: String, value: String): ToolSettings = new ToolSettings(base, hadoop + (key -> value))

  /** These settings and a `key=value` pair (the command line's `-D`). */
  def set(keyValue: String): ToolSettings = {
    val at = keyValue.indexOf('=')
    require(at >= 0, s"not key=value: $keyValue")
    set(keyValue.substring(0, at), keyValue.substring(at + 1))
  }

  override def toString: String = s"ToolSettings(base = ${base.isDefined}, ${hadoop.keys.toSeq.sorted.mkString(", ")})"
}

private[superspark] object ToolSettings {

  /** No base and no `-D` settings: Hadoop's defaults and the `core-site.xml` on the class path. */
  val Default: ToolSettings = new ToolSettings(None, Map.empty)

  /** `keyValues` (`key=value` each, as `-D` takes them) over `base` (null: none). */
  def of(keyValues: java.util.List[String], base: Configuration): ToolSettings =
    Option(keyValues).map(_.asScala).getOrElse(Nil).foldLeft(new ToolSettings(Option(base).map(new Configuration(_)), Map.empty))(_.set(_))
}
