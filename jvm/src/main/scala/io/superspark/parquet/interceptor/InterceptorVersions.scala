package io.superspark.parquet.interceptor

import java.util.concurrent.atomic.AtomicBoolean

import org.apache.parquet.hadoop.ParquetFileReader
import org.apache.spark.internal.Logging

/**
 * The Spark and parquet-java versions the interceptor is correct for. Its read path runs
 * copies of Spark 4.3.0's reader code (`org.apache.spark.sql.superspark.ParquetFooterScan`,
 * `FooterScanExec`'s constructor, the aggregate readers) and the FlatBuffer decoder repeats
 * parquet-java 1.17's metadata rules; on another minor version either may differ from the code
 * it stands in for, and a difference is a wrong query answer. So the extension installs the
 * Parquet rules only for [[SupportedSpark]].x with [[SupportedParquet]].x, and otherwise leaves
 * Parquet to Spark, saying so once per JVM in a warning.
 */
object InterceptorVersions extends Logging {
  /** major.minor of the Spark version the copied reader code mirrors. */
  val SupportedSpark = "4.3"
  /** major.minor of the parquet-java version the FlatBuffer decoder follows. */
  val SupportedParquet = "1.17"

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
