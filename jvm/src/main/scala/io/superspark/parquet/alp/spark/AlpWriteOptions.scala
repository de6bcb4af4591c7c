package io.superspark.parquet.alp.spark

import java.util.Locale

import org.apache.hadoop.conf.Configuration
import org.apache.spark.sql.catalyst.util.CaseInsensitiveMap
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.superspark.SuperSparkSQLConf
import org.apache.spark.sql.types.{DoubleType, FloatType, StructType}

import io.superspark.errors.SuperSparkIllegalArgumentException
import io.superspark.parquet.alp.AlpForm
import io.superspark.parquet.logicaltypes.ParquetLogicalTypes

/**
 * Which columns a Parquet write encodes with ALP, and in which form (docs/alp.md): the write
 * options `alpColumns` / `alpForm`, else the settings `spark.superspark.parquet.alp.columns` /
 * `.form`. Only top-level `float`/`double` columns qualify (not FLOAT16-tagged ones); a named
 * column that does not is an error naming it (`SUPERSPARK_ALP_INVALID_OPTION`, docs/errors.md). The choice reaches the write support
 * ([[AlpWriteSupport]]) through the job's Hadoop configuration.
 */
private[superspark] object AlpWriteOptions {
  val ColumnsOption = "alpColumns"
  val FormOption = "alpForm"
  private val OrdinalsKey = "superspark.alp.ordinals"
  private val FormKey = "superspark.alp.form"

  /**
   * The ALP columns' ordinals in `schema` and the form; None when no column is chosen. A bad
   * choice is `SUPERSPARK_ALP_INVALID_OPTION`, naming the option (or the setting it came from).
   */
  def resolve(schema: StructType, options: Map[String, String], conf: SQLConf): Option[(Seq[Int], AlpForm)] = {
    val opts = CaseInsensitiveMap(options)
    val columnsOption = if (opts.contains(ColumnsOption)) ColumnsOption else SuperSparkSQLConf.AlpColumns.key
    val names = opts.getOrElse(ColumnsOption, SuperSparkSQLConf.alpColumns(conf)).trim
    if (names.isEmpty) return None
    val formOption = if (opts.contains(FormOption)) FormOption else SuperSparkSQLConf.AlpForm.key
    val formName = opts.getOrElse(FormOption, SuperSparkSQLConf.alpForm(conf))
    val form = AlpForm.parse(formName).getOrElse(throw invalid("FORM", formOption,
      "value" -> s"'$formName'", "forms" -> AlpForm.all.mkString(", ")))
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
      if (i < 0) throw invalid("NO_SUCH_COLUMN", columnsOption, "column" -> s"`$n`", "schema" -> schema.simpleString)
      if (!eligible(i)) {
        val t = schema(i).dataType.simpleString + (if (ParquetLogicalTypes.isFloat16Column(schema(i))) " (FLOAT16)" else "")
        throw invalid("NOT_FLOAT_OR_DOUBLE", columnsOption, "column" -> s"`$n`", "type" -> t)
      }
      i
    }.sorted
    if (ordinals.isEmpty) None
    else {
      if (form == AlpForm.Ratified && ordinals.size == schema.size) {
        throw invalid("RATIFIED_FORM_NEEDS_ANOTHER_COLUMN", columnsOption)
      }
      Some((ordinals, form))
    }
  }

  private def invalid(reason: String, option: String, params: (String, String)*): SuperSparkIllegalArgumentException =
    new SuperSparkIllegalArgumentException(s"SUPERSPARK_ALP_INVALID_OPTION.$reason",
      Map("option" -> s"'$option'") ++ params)

  def set(conf: Configuration, ordinals: Seq[Int], form: AlpForm): Unit = {
    conf.set(OrdinalsKey, ordinals.mkString(","))
    conf.set(FormKey, form.name)
  }

  def get(conf: Configuration): Option[(Seq[Int], AlpForm)] =
    Option(conf.get(OrdinalsKey)).filter(_.nonEmpty).map { s =>
      (s.split(",").map(_.toInt).toSeq, AlpForm.parse(conf.get(FormKey, "private")).get)
    }
}
