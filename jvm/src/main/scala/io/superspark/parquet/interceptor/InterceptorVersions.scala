package io.superspark.parquet.interceptor

import java.util.concurrent.atomic.AtomicBoolean

import org.apache.parquet.hadoop.ParquetFileReader
import org.apache.spark.internal.Logging

/**
 * The Spark and parquet-java versions the interceptor is correct for. Its read path runs
 * copies of its Spark line's reader code (`org.apache.spark.sql.superspark.ParquetReaderCopy`,
 * `FooterScanExec`'s constructor, the aggregate readers) and the FlatBuffer decoder repeats
 * its parquet-java's metadata rules; on another minor version either may differ from the code
 * it stands in for, and a difference is a wrong query answer. So the extension installs the
 * Parquet rules only for [[SupportedSpark]].x with [[SupportedParquet]].x, and otherwise leaves
 * Parquet to Spark, saying so once per JVM in a warning. Each Spark line has its own jar
 * ([[SupportedSpark]] is the line this one is built for); a jar of another line refuses to
 * start ([[requireJarLine]]).
 */
private[superspark] object InterceptorVersions extends Logging {
  /** major.minor of the Spark version the copied reader code mirrors. */
  val SupportedSpark: String = org.apache.spark.sql.superspark.SparkLineShims.SparkLine
  /** major.minor of the parquet-java version the FlatBuffer decoder follows. */
  val SupportedParquet: String = org.apache.spark.sql.superspark.SparkLineShims.ParquetLine

  /**
   * JVM system property that replaces the versions found, for tests only:
   * `spark=4.2.1,parquet=1.15.2` (either part may be left out).
   */
  val OverrideProperty = "superspark.test.interceptorVersions"

  final case class Found(spark: String, parquet: String)

  /** parquet-java's version: the parquet-hadoop jar's manifest, else `org.apache.parquet.Version`. */
  def parquetVersion: String =
    Option(classOf[ParquetFileReader].getPackage).flatMap(p => Option(p.getImplementationVersion))
      .getOrElse(org.apache.parquet.Version.VERSION_NUMBER)

  /** The versions in this JVM (or those of [[OverrideProperty]]). */
  def found(): Found = {
    val real = Found(org.apache.spark.SPARK_VERSION, parquetVersion)
    sys.props.get(OverrideProperty).fold(real) { spec =>
      val parts = spec.split(",").map(_.trim).filter(_.nonEmpty).map { p =>
        p.split("=", 2) match {
          case Array(k, v) => k.trim -> v.trim
          case _ => throw new IllegalArgumentException(s"$OverrideProperty: expected name=version, got '$p'")
        }
      }.toMap
      Found(parts.getOrElse("spark", real.spark), parts.getOrElse("parquet", real.parquet))
    }
  }

  private def majorMinor(version: String): String = version.split("[.-]").take(2).mkString(".")

  /** The Spark lines superspark builds a jar for, `superspark-spark<line>_2.13` each. */
  val SupportedLines: Seq[String] = Seq("4.0", "4.1", "4.2", "4.3")

  /**
   * Fails the session's start when this jar was built for another Spark line than the running
   * one: its line-specific code (`jvm/src/main/spark-<line>/`) would call APIs that are not
   * there. Checks the real Spark version ([[OverrideProperty]] does not apply).
   */
  def requireJarLine(sparkVersion: String = org.apache.spark.SPARK_VERSION): Unit = {
    val running = majorMinor(sparkVersion)
    if (running != SupportedSpark) {
      val advice = if (SupportedLines.contains(running)) s"use the superspark-spark${running}_2.13 jar"
        else s"Spark $running has no superspark jar; supported lines: ${SupportedLines.mkString(", ")}"
      throw new SparkLineMismatchException(Map("jarLine" -> SupportedSpark, "sparkVersion" -> sparkVersion,
        "advice" -> advice))
    }
  }

  def supports(f: Found): Boolean =
    majorMinor(f.spark) == SupportedSpark && majorMinor(f.parquet) == SupportedParquet

  private val warned = new AtomicBoolean(false)

  /**
   * Whether the Parquet interceptor may be installed in this JVM. When not, the first call logs
   * one warning naming the versions found and the versions supported.
   */
  def interceptorEnabled(): Boolean = {
    val f = found()
    val ok = supports(f)
    if (!ok && warned.compareAndSet(false, true)) logWarning(message(f))
    ok
  }

  def message(f: Found): String =
    s"superspark: the Parquet footer interceptor is off: found Spark ${f.spark} with parquet-java ${f.parquet}, " +
      s"supported Spark $SupportedSpark.x with parquet-java $SupportedParquet.x. Parquet reads and writes use " +
      "Spark's own code; bsup, the sb_* functions and the Arrow layer are unaffected."
}

/** `SUPERSPARK_SPARK_LINE_MISMATCH`: this jar's Spark line is not the running one ([[InterceptorVersions.requireJarLine]]). */
private[superspark] final class SparkLineMismatchException(val params: Map[String, String])
    extends org.apache.spark.SparkException(
      io.superspark.errors.SuperSparkErrors.message("SUPERSPARK_SPARK_LINE_MISMATCH", params), null,
      Some("SUPERSPARK_SPARK_LINE_MISMATCH"), params, Array.empty[org.apache.spark.QueryContext])
    with io.superspark.errors.SuperSparkThrowable {
  def condition: String = "SUPERSPARK_SPARK_LINE_MISMATCH"
  override def getCondition: String = condition
  override def getMessageParameters: java.util.Map[String, String] = super[SuperSparkThrowable].getMessageParameters
  override def getSqlState: String = super[SuperSparkThrowable].getSqlState
}
