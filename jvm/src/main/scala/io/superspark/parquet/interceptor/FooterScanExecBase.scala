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

  /** Spark's `inputRDD`, packed when the session packs splits and the scan is not bucketed. */
  private lazy val packedInputRDD: RDD[InternalRow] =
    if (bucketedScan || !FooterInterceptorConf.packSplits(conf)) inputRDD
    else FooterSplitPacking.pack(inputRDD, conf, relation.sparkSession.sparkContext.defaultParallelism)

  override def inputRDDs(): Seq[RDD[InternalRow]] = packedInputRDD :: Nil

  override protected def doExecute(): RDD[InternalRow] = {
    val numOutputRows = longMetric("numOutputRows")
    // Spark's vectorized Parquet reader gives rows that are not all unsafe rows.
    val toUnsafeRows = relation.fileFormat.isInstanceOf[ParquetFileFormat] && conf.parquetVectorizedReaderEnabled
    val outputSchema = schema
    SparkInternals.mapPartitionsWithIndexInternal(packedInputRDD) { (index, rows: Iterator[InternalRow]) =>
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

  override protected def doExecuteColumnar(): RDD[ColumnarBatch] = {
    val numOutputRows = longMetric("numOutputRows")
    val scanTime = longMetric("scanTime")
    SparkInternals.mapPartitionsInternal(packedInputRDD.asInstanceOf[RDD[ColumnarBatch]]) { batches =>
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
