package io.superspark.parquet.interceptor

import java.util.concurrent.TimeUnit.NANOSECONDS

import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.UnsafeProjection
import org.apache.spark.sql.execution.FileSourceScanExec
import org.apache.spark.sql.execution.datasources.parquet.ParquetFileFormat
import org.apache.spark.sql.execution.metric.SQLMetric
import org.apache.spark.sql.superspark.SparkInternals
import org.apache.spark.sql.vectorized.ColumnarBatch

/**
 * What every line's [[FooterScanExec]] adds to Spark's `FileSourceScanExec` (whose constructor
 * differs between Spark lines, so the class itself lives in `jvm/src/main/spark-<line>/`): the
 * footer counters as SQL metrics, a `FooterLibrary` entry in `EXPLAIN`, and Spark's read RDD
 * with its partitions joined by the bytes their tasks read ([[FooterSplitPacking]]; the three
 * places Spark's node hands its `inputRDD` on hand on this one, as Spark's do). Planning,
 * execution and codegen are Spark's. Tree copies keep the node (`otherCopyArgs`); an explicit
 * `copy` gives back a plain scan that still counts, unseen.
 */
private[superspark] trait FooterScanExecBase extends FileSourceScanExec {
  def footerMetrics: FooterSQLMetrics

  override protected def otherCopyArgs: Seq[AnyRef] = footerMetrics :: Nil

  override lazy val metrics: Map[String, SQLMetric] = super.metrics ++ footerMetrics.sqlMetrics

  /**
   * Whether this line's Spark leaves the scan's partitions to it (Spark 4.3's scans marked for
   * single-task execution coalesce them to one: not packed).
   */
  protected def mayPackSplits: Boolean = true

  /**
   * Spark's `inputRDD` packed ([[FooterSplitPacking]]) when the session packs splits, the scan is
   * not bucketed and packing joins some of its partitions; else None, and Spark's own code runs.
   */
  private lazy val packedInputRDD: Option[RDD[InternalRow]] =
    if (bucketedScan || !mayPackSplits || !FooterInterceptorConf.packSplits(conf)) None
    else Some(FooterSplitPacking.pack(inputRDD, conf, relation.sparkSession.sparkContext.defaultParallelism))
      .filter(_ ne inputRDD)

  override def inputRDDs(): Seq[RDD[InternalRow]] = packedInputRDD match {
    case Some(rdd) => rdd :: Nil
    case None => super.inputRDDs()
  }

  override protected def doExecute(): RDD[InternalRow] = packedInputRDD match {
    case None => super.doExecute()
    case Some(packed) => rows(packed)
  }

  override protected def doExecuteColumnar(): RDD[ColumnarBatch] = packedInputRDD match {
    case None => super.doExecuteColumnar()
    case Some(packed) => batches(packed.asInstanceOf[RDD[ColumnarBatch]])
  }

  /** What Spark's node does with its read RDD's rows: counted, made unsafe rows where needed. */
  private def rows(packed: RDD[InternalRow]): RDD[InternalRow] = {
    val numOutputRows = longMetric("numOutputRows")
    // Spark's vectorized Parquet reader gives rows that are not all unsafe rows.
    val toUnsafeRows = relation.fileFormat.isInstanceOf[ParquetFileFormat] && conf.parquetVectorizedReaderEnabled
    val outputSchema = schema
    SparkInternals.mapPartitionsWithIndexInternal(packed) { (index, rows: Iterator[InternalRow]) =>
      val project = if (toUnsafeRows) {
        val p = UnsafeProjection.create(outputSchema)
        p.initialize(index)
        p
      } else null
      rows.map { row =>
        numOutputRows += 1
        if (project == null) row else project(row)
      }
    }
  }

  /** What Spark's node does with its read RDD's batches: counted and timed. */
  private def batches(packed: RDD[ColumnarBatch]): RDD[ColumnarBatch] = {
    val numOutputRows = longMetric("numOutputRows")
    val scanTime = longMetric("scanTime")
    SparkInternals.mapPartitionsInternal(packed) { batches =>
      new Iterator[ColumnarBatch] {
        // The file scan reads as `hasNext` is asked: that is the scan's time.
        override def hasNext: Boolean = {
          val began = System.nanoTime()
          try batches.hasNext finally scanTime += NANOSECONDS.toMillis(System.nanoTime() - began)
        }
        override def next(): ColumnarBatch = {
          val batch = batches.next()
          numOutputRows += batch.numRows()
          batch
        }
      }
    }
  }

  // EXPLAIN: the footer library reads this scan's footers, with or without the footer cache
  // (after Spark's entries; `metadata` is a lazy val, which an override cannot extend).
  override def simpleString(maxFields: Int): String =
    s"${super.simpleString(maxFields)}, FooterLibrary: ${FooterInterceptorConf.explain(conf)}"

  // Never equal to Spark's own node, or tree transforms would keep the original child.
  override def canEqual(other: Any): Boolean = other.isInstanceOf[FooterScanExecBase]

  override def equals(other: Any): Boolean = other match {
    case o: FooterScanExecBase => super.equals(o)
    case _ => false
  }

  override def hashCode(): Int = super.hashCode()
}
