package io.superspark.parquet.alp.spark

import java.util.Locale

import scala.jdk.CollectionConverters._

import org.apache.parquet.hadoop.metadata.{BlockMetaData, ParquetMetadata}
import org.apache.parquet.schema.{MessageType, Type}
import org.apache.spark.internal.Logging
import org.apache.spark.sql.types.{DoubleType, FloatType, StructType}

import io.superspark.parquet.alp.{AlpChunkErrorReason, AlpChunkException, AlpChunkLocation, AlpChunkRef, AlpFooter, AlpFooterRefs}
import io.superspark.parquet.footer.files.FooterBytes
import io.superspark.parquet.logicaltypes.ParquetLogicalTypes

/**
 * One required column read through ALP: its position in the scan's required schema, its leaf
 * in the file, and the ALP data of each row group (keyed by [[AlpReadPlan.blockKey]]).
 */
private[superspark] final case class AlpReadColumn(requiredIndex: Int, name: String, leaf: Int, optional: Boolean,
    chunks: Map[(String, Long), AlpChunkLocation])

/**
 * Which required columns of one file a scan reads through ALP (docs/alp.md, "Reading"): the
 * top-level FLOAT/DOUBLE columns whose every row group of the split has ALP data, a ratified
 * chunk or a sound private-form extension of ours. A private-form column with an extension
 * missing, unknown or failing a check in any row group is read from its ordinary chunks
 * (`fallbacks` counts them); a ratified chunk that cannot be used is an error, since no other
 * data exists. `readSchema`: the required schema without the ALP columns (what Spark's reader reads).
 */
private[superspark] final case class AlpReadPlan(columns: Seq[AlpReadColumn], readSchema: StructType, fallbacks: Int)

private[superspark] object AlpReadPlan extends Logging {

  /** A row group's identity in both the full footer and a projected one: first column's path and start. */
  def blockKey(b: BlockMetaData): (String, Long) = {
    val c = b.getColumns.get(0)
    (c.getPath.toDotString, c.getStartingPos)
  }

  /**
   * Whether a file may have ALP data, from parquet-java's footer objects alone: superspark's
   * `superspark.alp` key (its private form's extensions are invisible there), or a chunk
   * that [[AlpFooter.mayBeAlp]] (ratified chunks of any writer).
   */
  def mayHaveAlp(footer: ParquetMetadata): Boolean =
    footer.getFileMetaData.getKeyValueMetaData.containsKey(AlpFooter.HintKey) ||
      footer.getBlocks.asScala.exists(_.getColumns.asScala.exists(AlpFooter.mayBeAlp))

  /**
   * Whether superspark's writer kept the ordinary encoding in every chunk of every required
   * FLOAT/DOUBLE column of the file (its `superspark.alp.choices` key; [[AlpEncodingChoice]]):
   * then no footer walk and no stream are needed, Spark's reader reads those columns as they
   * are. False when the key is absent (another writer, an older file) or any such chunk has ALP.
   */
  def keptEverywhere(footer: ParquetMetadata, required: StructType, caseSensitive: Boolean): Boolean =
    Option(footer.getFileMetaData.getKeyValueMetaData.get(io.superspark.parquet.alp.AlpChoice.Key)).exists { v =>
      def norm(s: String) = if (caseSensitive) s else s.toLowerCase(Locale.ROOT)
      val wanted = required.fields.filter(f => f.dataType == FloatType || f.dataType == DoubleType).map(f => norm(f.name)).toSet
      io.superspark.parquet.alp.AlpChoice.parse(v).forall(c => !wanted(norm(c.column)) || c.choice.startsWith("kept "))
    }

  private def refKey(r: AlpChunkRef): (String, Long) = (r.path.mkString("."), r.startingPos)

  /**
   * The plan for `footer` (the footer Spark's reader is given: the split's row groups) of the
   * file whose footer bytes are `bytes`; None when no required column has ALP data.
   */
  def plan(path: String, bytes: FooterBytes, footer: ParquetMetadata, fileSchema: MessageType, required: StructType,
      caseSensitive: Boolean): Option[AlpReadPlan] = {
    val candidates = required.fields.indices.filter { i =>
      val t = required(i).dataType
      (t == FloatType || t == DoubleType) && !ParquetLogicalTypes.isFloat16Column(required(i))
    }
    if (candidates.isEmpty) return None
    val refs = AlpFooterRefs.of(bytes)
    if (!refs.exists(r => r.isRatified || r.ourExtension.isDefined)) return None
    // leaves by the footer's own column order (the schema Spark gets may be projected)
    val leaves = refs.filter(_.rowGroup == 0).sortBy(_.column).map(_.path)
    val byGroupKey = refs.groupBy(_.rowGroup).map { case (rg, rs) => rg -> rs.map(r => r.column -> r).toMap }
    val blocks = footer.getBlocks.asScala.toSeq
    val dataEnd = bytes.footerOffset
    def norm(s: String) = if (caseSensitive) s else s.toLowerCase(Locale.ROOT)
    var fallbacks = 0
    val columns = candidates.flatMap { i =>
      val field = required(i)
      val leaf = leaves.indexWhere(p => p.length == 1 && norm(p.head) == norm(field.name))
      val fileField = fileSchema.getFields.asScala.find(f => norm(f.getName) == norm(field.name))
      if (leaf < 0 || fileField.isEmpty || !fileField.get.isPrimitive) None
      else {
        val prim = fileField.get.asPrimitiveType
        val wanted = if (field.dataType == DoubleType) "DOUBLE" else "FLOAT"
        val located = blocks.map { b =>
          val key = blockKey(b)
          // the block's row group: the one whose chunk at the block's first column has that key
          val rg = refs.find(r => refKey(r) == key).map(_.rowGroup)
          val ref = rg.flatMap(byGroupKey(_).get(leaf))
          key -> ref.map(r => (r, AlpChunkLocation.of(r, dataEnd)))
        }
        val anyRatified = located.exists(_._2.exists(_._1.isRatified))
        // a ratified column's row groups whose pages were all kept PLAIN are ordinary chunks: read by the same cursor
        val locations = if (!anyRatified) located else located.map {
          case (k, Some((r, Right(None)))) => k -> Some((r, AlpChunkLocation.itself(r, dataEnd).map(Some(_))))
          case other => other
        }
        def where = s"$path, column ${field.name}"
        if (prim.getPrimitiveTypeName.name != wanted) {
          if (anyRatified) throw new AlpChunkException(AlpChunkErrorReason.BadExtension(0,
            s"the ALP column is ${prim.getPrimitiveTypeName} and is read as ${field.dataType.simpleString}"), where)
          None
        } else if (locations.forall(_._2.exists(_._2.exists(_.isDefined)))) {
          Some(AlpReadColumn(i, field.name, leaf, prim.getRepetition == Type.Repetition.OPTIONAL,
            locations.map { case (k, v) => k -> v.get._2.toOption.get.get }.toMap))
        } else {
          locations.foreach {
            case (_, Some((r, Left(reason)))) =>
              if (anyRatified) throw new AlpChunkException(reason, s"$where, row group ${r.rowGroup}")
              logWarning(s"$where, row group ${r.rowGroup}: ALP extension not used ($reason); " +
                "reading the ordinary chunk")
            case (k, None) if anyRatified =>
              throw new IllegalStateException(s"$where: row group at byte ${k._2} not found in the footer")
            case _ =>
          }
          if (locations.exists(_._2.exists(x => x._2.isLeft || x._2.exists(_.isDefined)))) fallbacks += 1
          None
        }
      }
    }
    if (columns.isEmpty && fallbacks == 0) None
    else {
      val alp = columns.map(_.requiredIndex).toSet
      Some(AlpReadPlan(columns, StructType(required.fields.indices.filterNot(alp).map(required(_))), fallbacks))
    }
  }
}
