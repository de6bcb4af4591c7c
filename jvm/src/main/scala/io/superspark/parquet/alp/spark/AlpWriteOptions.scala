package io.superspark.parquet.alp.spark

import java.util.Locale

import org.apache.hadoop.conf.Configuration
import org.apache.spark.sql.catalyst.util.CaseInsensitiveMap
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.superspark.SuperSparkSQLConf
import org.apache.spark.sql.types.{DoubleType, FloatType, StructType}

import io.superspark.parquet.alp.AlpForm
import io.superspark.parquet.logicaltypes.ParquetLogicalTypes

/**
 * Which columns a Parquet write encodes with ALP, and in which form (docs/alp.md): the write
 * options `alpColumns` / `alpForm`, else the settings `spark.superspark.parquet.alp.columns` /
 * `.form`. Only top-level `float`/`double` columns qualify (not FLOAT16-tagged ones); a named
 * column that does not is an error naming it. The choice reaches the write support
 * ([[AlpWriteSupport]]) through the job's Hadoop configuration.
 */
private[superspark] object AlpWriteOptions {
  val ColumnsOption = "alpColumns"
  val FormOption = "alpForm"
  private val OrdinalsKey = "superspark.alp.ordinals"
  private val FormKey = "superspark.alp.form"

  /** The ALP columns' ordinals in `schema` and the form; None when no column is chosen. */
  def resolve(schema: StructType, options: Map[String, String], conf: SQLConf): Option[(Seq[Int], AlpForm)] = {
    val opts = CaseInsensitiveMap(options)
    val names = opts.getOrElse(ColumnsOption, SuperSparkSQLConf.alpColumns(conf)).trim
    if (names.isEmpty) return None
    val formName = opts.getOrElse(FormOption, SuperSparkSQLConf.alpForm(conf))
    val form = AlpForm.parse(formName).getOrElse(throw new IllegalArgumentException(
      s"$FormOption: '$formName' is not one of ${AlpForm.all.mkString(", ")}"))
    def eligible(i: Int) = {
      val f = schema(i)
      (f.dataType == FloatType || f.dataType == DoubleType) && !ParquetLogicalTypes.isFloat16Column(f)
    }
    val ordinals = if (names == "*") schema.indices.filter(eligible)
    else names.split(",").map(_.trim).filter(_.nonEmpty).toSeq.distinct.map { n =>
      val i = schema.fieldNames.indexOf(n) match {
        case -1 => schema.fieldNames.indexWhere(_.toLowerCase(Locale.ROOT) == n.toLowerCase(Locale.ROOT))
        case i => i
      }
      if (i < 0) throw new IllegalArgumentException(s"$ColumnsOption: no column '$n' in ${schema.simpleString}")
      if (!eligible(i)) throw new IllegalArgumentException(s"$ColumnsOption: column '$n' is " +
        s"${schema(i).dataType.simpleString}; ALP encodes top-level float and double columns only")
      i
    }.sorted
    if (ordinals.isEmpty) None
    else {
      if (form == AlpForm.Ratified && ordinals.size == schema.size) {
        throw new IllegalArgumentException("the ratified ALP form needs at least one column that is not ALP-encoded " +
          "(parquet-java writes the other columns); use the private form or keep one column out of alpColumns")
      }
      Some((ordinals, form))
    }
  }

  def set(conf: Configuration, ordinals: Seq[Int], form: AlpForm): Unit = {
    conf.set(OrdinalsKey, ordinals.mkString(","))
    conf.set(FormKey, form.name)
  }

  def get(conf: Configuration): Option[(Seq[Int], AlpForm)] =
    Option(conf.get(OrdinalsKey)).filter(_.nonEmpty).map { s =>
      (s.split(",").map(_.toInt).toSeq, AlpForm.parse(conf.get(FormKey, "private")).get)
    }
}
