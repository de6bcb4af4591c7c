package io.superspark.parquet.interceptor

import scala.jdk.CollectionConverters._

import org.apache.hadoop.conf.Configuration
import org.apache.parquet.hadoop.ParquetFileReader
import org.apache.parquet.hadoop.metadata.BlockMetaData
import org.apache.parquet.hadoop.util.HadoopInputFile
import org.apache.parquet.io.SeekableInputStream
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.execution.datasources.parquet.{SpecificParquetRecordReaderBase, VectorizedParquetRecordReader}
import org.apache.spark.sql.execution.vectorized.{OffHeapColumnVector, OnHeapColumnVector, WritableColumnVector}
import org.apache.spark.sql.types.StructType
import org.apache.spark.sql.vectorized.{ColumnVector, ColumnarBatch}

import io.superspark.parquet.alp.{AlpChunkException, AlpColumnReader, AlpType, AlpValues, OrdinaryChunkReader}

/**
 * The batches of Spark's vectorized reader (reading `plan.readSchema`, the required columns
 * without the ALP ones) with the ALP columns decoded into their own column vectors, in the
 * required schema's order followed by the partition columns. Spark's batches never cross a row
 * group, and with column-index filtering off (the caller's configuration) every row group
 * the reader keeps after split, statistics, dictionary and bloom-filter pruning is read whole:
 * the row groups are taken from the reader's own `ParquetFileReader`, so the decoded ALP rows
 * line up with Spark's.
 */
final class AlpBatchReader(reader: VectorizedParquetRecordReader, plan: AlpReadPlan, required: StructType,
    partitionColumns: Int, capacity: Int, offHeap: Boolean, file: HadoopInputFile, path: String,
    conf: Configuration, metrics: FooterMetrics, returningBatch: Boolean) extends Iterator[Any] with AutoCloseable {

  private val blocks: Iterator[BlockMetaData] =
    AlpBatchReader.rowGroupsOf(reader).iterator.filter(_.getRowCount > 0)
  private val vectors: Array[WritableColumnVector] = plan.columns.map { c =>
    val t = required(c.requiredIndex).dataType
    if (offHeap) new OffHeapColumnVector(capacity, t) else new OnHeapColumnVector(capacity, t)
  }.toArray
  private val alpAt: Map[Int, Int] = plan.columns.map(_.requiredIndex).zipWithIndex.toMap
  private var values: Array[AlpValues] = Array.empty
  private var rgPos = 0
  private var rgLeft = 0L
  private var rows: Iterator[InternalRow] = Iterator.empty
  private val stream: SeekableInputStream = file.newStream()
  private var pending = false
  private var finished = false

  private def advance(): Boolean = {
    if (!pending && !finished) {
      pending = reader.nextKeyValue()
      finished = !pending
    }
    pending
  }

  override def hasNext: Boolean =
    if (returningBatch) advance()
    else {
      while (!rows.hasNext && advance()) nextBatch()
      rows.hasNext
    }

  override def next(): Any =
    if (returningBatch) { if (!advance()) throw new NoSuchElementException; nextBatch() }
    else { if (!hasNext) throw new NoSuchElementException; rows.next() }

  private def nextBatch(): ColumnarBatch = {
    pending = false
    val batch = reader.getCurrentValue.asInstanceOf[ColumnarBatch]
    val n = batch.numRows()
    if (n > 0 && rgLeft == 0) loadRowGroup()
    if (n > rgLeft) throw new IllegalStateException(s"$path: a batch of $n rows, $rgLeft left in the row group")
    var k = 0
    while (k < vectors.length) {
      val v = vectors(k)
      val a = values(k)
      v.reset()
      if (a.t == AlpType.Double) v.putDoubles(0, n, a.doubles, rgPos) else v.putFloats(0, n, a.floats, rgPos)
      if (a.nulls != null) { var i = 0; while (i < n) { if (a.nulls(rgPos + i)) v.putNull(i); i += 1 } }
      k += 1
    }
    rgPos += n
    rgLeft -= n
    var read = 0
    val columns = Array.tabulate[ColumnVector](required.length + partitionColumns) { i =>
      alpAt.get(i) match {
        case Some(k) => vectors(k)
        case None => val c = batch.column(read); read += 1; c
      }
    }
    val out = new ColumnarBatch(columns, n)
    if (!returningBatch) rows = out.rowIterator().asScala
    out
  }

  private def loadRowGroup(): Unit = {
    if (!blocks.hasNext) throw new IllegalStateException(s"$path: the reader returned rows past its row groups")
    val block = blocks.next()
    val key = AlpReadPlan.blockKey(block)
    values = plan.columns.map { c =>
      val loc = c.chunks.getOrElse(key, throw new IllegalStateException(
        s"$path: row group at byte ${key._2} has no planned ALP data for ${c.name}"))
      var decoded = true
      val v = try AlpColumnReader.read({ (off, len) =>
        val b = new Array[Byte](len); stream.seek(off); stream.readFully(b); b
      }, loc, c.optional, conf, s"$path, column ${c.name}") catch {
        // the private form keeps the ordinary chunk: read it instead
        case e: AlpChunkException if !loc.ratified =>
          AlpBatchReader.logWarning(s"${e.getMessage}; reading the ordinary chunk")
          metrics.alpFallbacks.add(1)
          decoded = false
          OrdinaryChunkReader.read(file, AlpReadPlan.blockKey(_) == key, c.name, loc.t, c.optional)
      }
      if (v.rows != block.getRowCount) throw new IllegalStateException(
        s"$path, column ${c.name}: ALP chunk of ${v.rows} rows for a row group of ${block.getRowCount}")
      if (decoded) metrics.alpChunks.add(1)
      v
    }.toArray
    rgPos = 0
    rgLeft = block.getRowCount
  }

  override def close(): Unit = {
    try reader.close() finally {
      try stream.close() finally vectors.foreach(_.close())
    }
  }
}

object AlpBatchReader extends org.apache.spark.internal.Logging {
  override def logWarning(msg: => String): Unit = super.logWarning(msg)

  private lazy val readerField = {
    val f = classOf[SpecificParquetRecordReaderBase[_]].getDeclaredField("reader")
    f.setAccessible(true)
    f
  }

  /** The row groups a Spark 4.3 Parquet reader reads (its ParquetFileReader's, after pruning). */
  def rowGroupsOf(reader: VectorizedParquetRecordReader): Seq[BlockMetaData] = {
    val rowGroupReader = readerField.get(reader)
    val inner = rowGroupReader.getClass.getDeclaredField("reader")
    inner.setAccessible(true)
    inner.get(rowGroupReader).asInstanceOf[ParquetFileReader].getRowGroups.asScala.toSeq
  }
}
