package io.superspark.parquet.interceptor

import org.apache.spark.sql.internal.SQLConf

import io.superspark.parquet.footer.FooterForm

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

  /**
   * The footer form written when footer writing is on: `private` (default; Thrift + extension
   * with UUID1), `intermediate` (UUID2, v1 FlatBuffer) or `final` (FlatBuffer only, PAR3 tail:
   * only superspark reads such files).
   */
  val FormKey = "spark.superspark.parquet.footer.form"
  private val WritableForms = Seq(FooterForm.Private, FooterForm.Intermediate, FooterForm.Final)

  def form(conf: SQLConf): FooterForm = {
    val value = conf.getConfString(FormKey, FooterForm.Private.name)
    FooterForm.parse(value).filter(WritableForms.contains).getOrElse(throw new IllegalArgumentException(
      s"$FormKey must be one of ${WritableForms.mkString(", ")}, not '$value'"))
  }
}
