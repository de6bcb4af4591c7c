package org.apache.spark.sql.superspark

import java.util.Locale

import org.apache.spark.internal.config.{ConfigBuilder, ConfigEntry}
import org.apache.spark.sql.internal.SQLConf

/**
 * superspark's settings as registered SQL configuration entries (Spark's `SQLConf.buildConf`,
 * as Delta's `DeltaSQLConf` does): `SET -v` lists them with their docs and defaults, and a bad
 * value fails with Spark's error naming the key. `ConfigBuilder`/`ConfigEntry` are
 * `private[spark]`, hence this package; the rest of superspark reads them through
 * the interceptor's `FooterInterceptorConf`.
 *
 * Entries register when this object is first used; [[SuperSparkSQLConf.register]] (called by
 * the extension) makes that happen before the session's conf is set.
 */
object SuperSparkSQLConf {
  private val Since = "0.1.0"

  /** A new entry, registered in Spark's SQL conf as it is created. */
  private def entry[T](key: String)(build: ConfigBuilder => ConfigEntry[T]): ConfigEntry[T] = build(SQLConf.buildConf(key))

  val FooterRead: ConfigEntry[Boolean] = entry[Boolean]("spark.superspark.parquet.footer.read")(
    _.doc("Decode Parquet footers through superspark's footer library: the FlatBuffers footer " +
      "extension when a file has a sound one (projected to the task's columns and row groups), the " +
      "Thrift footer otherwise. false: Spark's own Parquet code, unchanged. Has no effect when the " +
      "interceptor is off for this Spark/parquet-java version (see docs/parquet-interceptor.md).")
      .version(Since).booleanConf.createWithDefault(true))

  val FooterWrite: ConfigEntry[Boolean] = entry[Boolean]("spark.superspark.parquet.footer.write")(
    _.doc("Write the FlatBuffers footer extension into every Parquet file Spark writes.")
      .version(Since).booleanConf.createWithDefault(false))

  val FooterStrict: ConfigEntry[Boolean] = entry[Boolean]("spark.superspark.parquet.footer.strict")(
    _.doc("Fail a read on a damaged footer extension (CRC, size or structure check fails) with an error " +
      "naming the file and byte offset, instead of falling back to the Thrift footer.")
      .version(Since).booleanConf.createWithDefault(false))

  val FooterCacheEnabled: ConfigEntry[Boolean] = entry[Boolean]("spark.superspark.parquet.footer.cache.enabled")(
    _.doc("Keep verified footers (the FlatBuffers extension's bytes) in a cache per JVM, shared by the tasks of an " +
      "executor and by the driver, keyed by path, length and modification time (or the store's version: S3's ETag, " +
      "GCS's generation), so the next task or query over the same files reads no footer bytes. Bounded by " +
      "spark.superspark.parquet.footer.cache.maxBytes. See docs/footer-cache.md for the keys and the measurement " +
      "behind the default.")
      .version(Since).booleanConf.createWithDefault(true))

  val FooterCacheMaxBytes: ConfigEntry[Long] = entry[Long]("spark.superspark.parquet.footer.cache.maxBytes")(
    _.doc("Most footer bytes the footer cache of one JVM holds (least recently used footers are evicted first; a " +
      "footer larger than this is not cached). Takes effect at the next footer a scan inserts. 0 keeps nothing.")
      .version(Since).bytesConf(org.apache.spark.network.util.ByteUnit.BYTE)
      .checkValue(_ >= 0, "must be 0 or more bytes").createWithDefaultString("128m"))

  val FooterPackSplits: ConfigEntry[Boolean] = entry[Boolean]("spark.superspark.parquet.footer.cache.packSplits")(
    _.doc("Pack a scan's splits into tasks by the bytes a task reads from each file: a file whose footer this " +
      "JVM's footer cache holds (on a cluster: an executor's cache held it when an earlier scan's task opened it) " +
      "counts its data alone, not the footer the scan will not read (Spark counts the " +
      "file's whole length against spark.sql.files.maxPartitionBytes). Only joins Spark's partitions, never splits " +
      "them; bucketed scans are left as Spark plans them. See docs/footer-cache.md.")
      .version(Since).booleanConf.createWithDefault(true))

  val LinearCanonicalization: ConfigEntry[Boolean] = entry[Boolean]("spark.superspark.plan.linearCanonicalization")(
    _.doc("Build the canonical form of a file-source relation (Spark's LogicalRelation) in time linear in its " +
      "columns instead of Spark 4.0-4.3's quadratic time. Delta's scan preparation canonicalizes every scanned " +
      "relation: a query of a 10,000-column Delta table plans in a fraction of a second instead of seconds. The " +
      "canonical form is the same plan either way. See docs/planning.md.")
      .version(Since).booleanConf.createWithDefault(true))

  val FooterFormValues: Seq[String] = Seq("private", "intermediate", "final")

  val FooterForm: ConfigEntry[String] = entry[String]("spark.superspark.parquet.footer.form")(
    _.doc("Which footer form Spark writes when spark.superspark.parquet.footer.write is true: " +
      FooterFormValues.mkString(", ") + ".")
      .version(Since).stringConf.transform(_.trim.toLowerCase(Locale.ROOT))
      .checkValues(FooterFormValues.toSet).createWithDefault("private"))

  val AlpColumns: ConfigEntry[String] = entry[String]("spark.superspark.parquet.alp.columns")(
    _.doc("Top-level FLOAT/DOUBLE columns Spark writes with the ALP encoding (docs/alp.md): a comma-separated " +
      "list of names, or * for every top-level float and double column; empty (the default): none. The write " +
      "option alpColumns overrides it per write. Nested columns keep the ordinary encoding.")
      .version(Since).stringConf.createWithDefault(""))

  val AlpFormValues: Seq[String] = Seq("private", "ratified")

  val AlpForm: ConfigEntry[String] = entry[String]("spark.superspark.parquet.alp.form")(
    _.doc("How ALP columns are written: private (an ALP chunk at the start of each row group plus the ordinary " +
      "chunk, located by a field-32767 extension: every reader reads the file) or ratified (only the ALP chunk, " +
      "Encoding ALP = 10: readers without ALP support fail). The write option alpForm overrides it.")
      .version(Since).stringConf.transform(_.trim.toLowerCase(Locale.ROOT))
      .checkValues(AlpFormValues.toSet).createWithDefault("private"))

  val AlpRead: ConfigEntry[Boolean] = entry[Boolean]("spark.superspark.parquet.alp.read")(
    _.doc("Decode ALP column chunks (both forms) straight into the vectorized reader's batches. false: the " +
      "private form is read from its ordinary chunks, the ratified form cannot be read.")
      .version(Since).booleanConf.createWithDefault(true))

  /** A static entry (set before the application starts), registered in Spark's SQL conf as it is created. */
  private def staticEntry[T](key: String)(build: ConfigBuilder => ConfigEntry[T]): ConfigEntry[T] =
    build(SQLConf.buildStaticConf(key))

  val EveryWriter: ConfigEntry[Boolean] = staticEntry[Boolean]("spark.superspark.parquet.footer.everyWriter")(
    _.doc("Every Parquet data file (*.parquet) that any JVM writer of this application creates through Hadoop's " +
      "FileSystem API (Delta Lake, Structured Streaming, Hive tables, parquet-java's ParquetWriter...), on the driver " +
      "and on every executor, carries the FlatBuffers footer in the form spark.superspark.parquet.footer.form names " +
      "as the application starts (the final form is written as intermediate inside Delta tables). Each open file holds " +
      "its last spark.superspark.parquet.footer.everyWriter.maxTailBytes bytes back until it is closed. Files that " +
      "cannot take the footer are written as their writer wrote them, counted and logged (docs/parquet-footer.md).")
      .version(Since).booleanConf.createWithDefault(false))

  val EveryWriterMaxTailBytes: ConfigEntry[Long] = staticEntry[Long]("spark.superspark.parquet.footer.everyWriter.maxTailBytes")(
    _.doc("Most bytes one open Parquet file holds back with everyWriter on: the memory bound per open writer. A file " +
      "whose footer (with its length and magic) is longer is written without the extension.")
      .version(Since).bytesConf(org.apache.spark.network.util.ByteUnit.BYTE)
      .checkValue(v => v >= 16 && v <= Int.MaxValue - 64L, "must be between 16 bytes and 2 GiB").createWithDefaultString("64m"))

  val EveryWriterSchemesDefault = "file,hdfs,s3a,gs,abfs,abfss,wasb,wasbs,viewfs"

  val EveryWriterSchemes: ConfigEntry[String] = staticEntry[String]("spark.superspark.parquet.footer.everyWriter.schemes")(
    _.doc("The file system schemes whose writes everyWriter holds (comma-separated).")
      .version(Since).stringConf.createWithDefault(EveryWriterSchemesDefault))

  /** Makes sure the entries are registered (initializes this object). */
  val BsupInferenceThreads: ConfigEntry[Int] = entry[Int]("spark.superspark.bsup.inference.threads")(
    _.doc("Most files whose first values the bsup data source's schema inference reads at once, on the driver " +
      "(a thread each, as Spark reads Parquet footers in parallel). The schema does not depend on it: the files' " +
      "types are merged in file order. 1 reads them one after another.")
      .version(Since).intConf.checkValue(_ >= 1, "must be 1 or more").createWithDefault(8))

  val BsupVectorized: ConfigEntry[Boolean] = entry[Boolean]("spark.superspark.bsup.vectorized.enabled")(
    _.doc("Read the bsup data source in columnar batches, values decoded straight into Spark's column vectors, " +
      "when every column read has a type the vectors hold (not VARIANT or void). false: the row reader. Both " +
      "give the same rows.")
      .version(Since).booleanConf.createWithDefault(true))

  def register(): Unit = ()

  def footerRead(conf: SQLConf): Boolean = conf.getConf(FooterRead)
  def footerWrite(conf: SQLConf): Boolean = conf.getConf(FooterWrite)
  def footerStrict(conf: SQLConf): Boolean = conf.getConf(FooterStrict)
  def footerForm(conf: SQLConf): String = conf.getConf(FooterForm)
  def footerCacheEnabled(conf: SQLConf): Boolean = conf.getConf(FooterCacheEnabled)
  def footerCacheMaxBytes(conf: SQLConf): Long = conf.getConf(FooterCacheMaxBytes)
  def footerPackSplits(conf: SQLConf): Boolean = conf.getConf(FooterPackSplits)
  def linearCanonicalization(conf: SQLConf): Boolean = conf.getConf(LinearCanonicalization)
  def alpColumns(conf: SQLConf): String = conf.getConf(AlpColumns)
  def alpForm(conf: SQLConf): String = conf.getConf(AlpForm)
  def alpRead(conf: SQLConf): Boolean = conf.getConf(AlpRead)
  def bsupInferenceThreads(conf: SQLConf): Int = conf.getConf(BsupInferenceThreads)
  def bsupVectorized(conf: SQLConf): Boolean = conf.getConf(BsupVectorized)
}
