package io.superspark.parquet.interceptor

import org.apache.spark.sql.internal.SQLConf

/**
 * Session configs of the Parquet footer interceptor (read from the session's SQL conf, so
 * `spark.conf.set` and `SET` change them per query). See docs/parquet-interceptor.md.
 */
object FooterInterceptorConf {
  /** Write the FlatBuffers footer extension into every Parquet file Spark writes. */
  val WriteKey = "spark.superspark.parquet.footer.write"
  /** Decode footers through the footer library (extension when present, Thrift otherwise). */
  val ReadKey = "spark.superspark.parquet.footer.read"
  /** Fail on a damaged extension instead of falling back to the Thrift footer. */
  val StrictKey = "spark.superspark.parquet.footer.strict"

  def writeEnabled(conf: SQLConf): Boolean = conf.getConfString(WriteKey, "false").trim.toBoolean
  def readEnabled(conf: SQLConf): Boolean = conf.getConfString(ReadKey, "true").trim.toBoolean
  def strict(conf: SQLConf): Boolean = conf.getConfString(StrictKey, "false").trim.toBoolean
}
