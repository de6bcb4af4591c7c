package io.superspark.parquet.interceptor

import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.superspark.SuperSparkSQLConf

import io.superspark.parquet.footer.codec.FooterForm

/**
 * Session configs of the Parquet footer interceptor (read from the session's SQL conf, so
 * `spark.conf.set` and `SET` change them per query). They are registered SQL config entries
 * ([[SuperSparkSQLConf]]): `SET -v` lists them, bad values fail naming the key.
 * See docs/parquet-interceptor.md.
 */
private[superspark] object FooterInterceptorConf {
  /** Write the FlatBuffers footer extension into every Parquet file Spark writes. */
  val WriteKey: String = SuperSparkSQLConf.FooterWrite.key
  /** Decode footers through the footer library (extension when present, Thrift otherwise). */
  val ReadKey: String = SuperSparkSQLConf.FooterRead.key
  /** Fail on a damaged extension instead of falling back to the Thrift footer. */
  val StrictKey: String = SuperSparkSQLConf.FooterStrict.key
  /** Which footer form Spark writes when the write path is on (`private|intermediate|final`). */
  val FormKey: String = SuperSparkSQLConf.FooterForm.key

  /** The verified-footer cache ([[FooterCache]]) on or off, and its bound in bytes. */
  val CacheEnabledKey: String = SuperSparkSQLConf.FooterCacheEnabled.key
  val CacheMaxBytesKey: String = SuperSparkSQLConf.FooterCacheMaxBytes.key

  /** Pack a scan's splits by the bytes its tasks read ([[FooterSplitPacking]]). */
  val PackSplitsKey: String = SuperSparkSQLConf.FooterPackSplits.key

  /** Whether scans of this session pack their splits: the setting, with the footer cache on. */
  def packSplits(conf: SQLConf): Boolean = cacheBytes(conf) > 0 && SuperSparkSQLConf.footerPackSplits(conf)

  /** The footer cache's bound for a scan of this session: 0 when the cache is off. */
  def cacheBytes(conf: SQLConf): Long =
    if (SuperSparkSQLConf.footerCacheEnabled(conf)) SuperSparkSQLConf.footerCacheMaxBytes(conf) else 0L

  /**
   * What `EXPLAIN` shows of the footer library on a scan node (`FooterLibrary`): that it reads
   * the footers, and the footer cache's bound or that the cache is off.
   */
  def explain(conf: SQLConf): String = cacheBytes(conf) match {
    case 0L => "footer cache off"
    case n => s"footer cache on, maxBytes $n"
  }

  def writeEnabled(conf: SQLConf): Boolean = SuperSparkSQLConf.footerWrite(conf)
  def readEnabled(conf: SQLConf): Boolean = SuperSparkSQLConf.footerRead(conf)
  def strict(conf: SQLConf): Boolean = SuperSparkSQLConf.footerStrict(conf)

  /**
   * The footer form written when footer writing is on: `private` (default; Thrift + extension
   * with UUID1), `intermediate` (UUID2, v1 FlatBuffer) or `final` (FlatBuffer only, PAR3 tail:
   * only superspark reads such files). The registered entry has already checked the value.
   */
  def form(conf: SQLConf): FooterForm = {
    val value = SuperSparkSQLConf.footerForm(conf)
    FooterForm.parse(value).getOrElse(throw new IllegalStateException(s"$FormKey: unchecked value '$value'"))
  }
}
