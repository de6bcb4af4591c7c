package io.superspark.delta

import org.apache.spark.sql.{Row, SparkSession}

/**
 * Footer rewrites of a Delta table as a Delta commit (`DeltaFooterRewrite`, compiled on the Spark
 * lines with a Delta Lake release, `jvm/src/main/delta/`). Shared code reaches it only through
 * [[DeltaTables.available]], so a jar without it, or a session without Delta Lake's jar, loads no
 * Delta class.
 */
trait DeltaTables {
  /** Rewrites every data file of the table's current version; one row per file (`FooterTableJob.Schema`). */
  def rewrite(spark: SparkSession, table: String, command: String, to: String): Seq[Row]
}

object DeltaTables {
  private def load(name: String): Class[_] =
    Class.forName(name, true, Option(Thread.currentThread.getContextClassLoader).getOrElse(getClass.getClassLoader))

  /** This jar's Delta table rewrite, when it has one and Delta Lake is on the classpath. */
  def available: Option[DeltaTables] =
    try {
      load("org.apache.spark.sql.delta.DeltaLog")
      Some(load("io.superspark.delta.DeltaFooterRewrite$").getField("MODULE$").get(null).asInstanceOf[DeltaTables])
    } catch {
      case _: ClassNotFoundException => None
    }
}
