package io.superspark.parquet.alp.spark

import org.apache.spark.SparkContext
import org.apache.spark.util.{CollectionAccumulator, LongAccumulator}

import io.superspark.parquet.alp.AlpChoice

/**
 * The write metrics of ALP columns (docs/alp.md, "Which encoding a chunk gets"): named
 * accumulators of the write job, so they show on its stages and tasks in the Spark UI (and
 * to listeners, as `accumulables`): column chunks written as ALP (wholly or with some PLAIN
 * pages), column chunks that kept the ordinary encoding, PLAIN pages of the ratified form, and
 * each chunk's choice with its reason (`file: row group N, column: choice (reason)`).
 */
private[superspark] final class AlpWriteMetrics private (val alpChunks: LongAccumulator, val keptChunks: LongAccumulator,
    val plainPages: LongAccumulator, val choices: CollectionAccumulator[String]) extends Serializable {
  def record(file: String, c: AlpChoice): Unit = {
    if (c.kept) keptChunks.add(1) else alpChunks.add(1)
    plainPages.add(c.plainPages.toLong)
    choices.add(s"$file: row group ${c.rowGroup}, ${c.column}: ${c.choice} (${c.reason})")
  }
}

private[superspark] object AlpWriteMetrics {
  val AlpChunksName = "ALP column chunks written"
  val KeptChunksName = "ALP column chunks kept in the ordinary encoding"
  val PlainPagesName = "ALP pages kept PLAIN (ratified form)"
  val ChoicesName = "ALP encoding choices"

  /** New accumulators of one write, registered on the driver. */
  def register(sc: SparkContext): AlpWriteMetrics = {
    val choices = new CollectionAccumulator[String]
    sc.register(choices, ChoicesName)
    new AlpWriteMetrics(sc.longAccumulator(AlpChunksName), sc.longAccumulator(KeptChunksName),
      sc.longAccumulator(PlainPagesName), choices)
  }
}
