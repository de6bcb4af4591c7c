package io.superspark.parquet.alp.spark

import scala.jdk.CollectionConverters._

import org.apache.hadoop.conf.Configuration
import org.apache.parquet.hadoop.ParquetFileReader
import org.apache.parquet.hadoop.metadata.BlockMetaData
import org.apache.parquet.hadoop.util.HadoopInputFile
import org.apache.parquet.io.SeekableInputStream
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.execution.datasources.parquet.{SpecificParquetRecordReaderBase, VectorizedParquetRecordReader}
import org.apache.spark.sql.execution.metric.SQLMetric
import org.apache.spark.sql.execution.vectorized.{OffHeapColumnVector, OnHeapColumnVector, WritableColumnVector}
import org.apache.spark.sql.types.StructType
import org.apache.spark.sql.vectorized.{ColumnVector, ColumnarBatch}

import io.superspark.parquet.alp.{AlpChunk, AlpChunkException, AlpChunkLocation, AlpColumnReader, AlpType, AlpValues, OrdinaryChunkReader, ParquetPageCompression}

/**
 * The batches of Spark's vectorized reader (reading `plan.readSchema`, the required columns
 * without the ALP ones) with the ALP columns decoded into their own column vectors, in the
 * required schema's order followed by the partition columns. Spark's batches never cross a row
 * group, and with column-index filtering off (the caller's configuration) every row group
 * the reader keeps after split, statistics, dictionary and bloom-filter pruning is read whole:
 * the row groups are taken from the reader's own `ParquetFileReader`, so the decoded ALP rows
 * line up with Spark's. `stream`: a stream of the file for the ALP chunks, owned (closed) by this reader.
 */
private[superspark] final class AlpBatchReader(reader: VectorizedParquetRecordReader, plan: AlpReadPlan, required: StructType,
    partitionColumns: Int, capacity: Int, offHeap: Boolean, file: HadoopInputFile, stream: SeekableInputStream,
    path: String,
    conf: Configuration, chunksDecoded: SQLMetric, fallbacks: SQLMetric, returningBatch: Boolean) extends Iterator[Any] with java.io.Closeable {

  private val blocks: Iterator[BlockMetaData] =
    AlpBatchReader.rowGroupsOf(reader).iterator.filter(_.getRowCount > 0)
  private val codecs = scala.collection.mutable.Map.empty[Int, ParquetPageCompression]
  private val columns: Array[AlpColumnFill] = plan.columns.map { c =>
    val t = required(c.requiredIndex).dataType
    new AlpColumnFill(c, if (offHeap) new OffHeapColumnVector(capacity, t) else new OnHeapColumnVector(capacity, t))
  }.toArray
  private val alpAt: Map[Int, Int] = plan.columns.map(_.requiredIndex).zipWithIndex.toMap
  private var rgLeft = 0L
  private var rows: Iterator[InternalRow] = Iterator.empty
  private var pending = false
  private var finished = false
  private var closed = false

  private def advance(): Boolean = {
    if (!pending && !finished) {
      pending = reader.nextKeyValue()
      finished = !pending
      // the file's reader, stream and vectors are released at its end, as Spark's
      // RecordReaderIterator does; FileScanRDD closes this iterator too (a LIMIT stops early)
      if (finished) close()
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
    if (n > 0 && rgLeft == 0) {
      if (!blocks.hasNext) throw new IllegalStateException(s"$path: the reader returned rows past its row groups")
      val block = blocks.next()
      columns.foreach(_.startRowGroup(block))
      rgLeft = block.getRowCount
    }
    if (n > rgLeft) throw new IllegalStateException(s"$path: a batch of $n rows, $rgLeft left in the row group")
    columns.foreach(_.fill(n))
    rgLeft -= n
    var read = 0
    val out = new ColumnarBatch(Array.tabulate[ColumnVector](required.length + partitionColumns) { i =>
      alpAt.get(i) match {
        case Some(k) => columns(k).vector
        case None => val c = batch.column(read); read += 1; c
      }
    }, n)
    if (!returningBatch) rows = out.rowIterator().asScala
    out
  }

  /**
   * One ALP column of the scan: the current row group's checked chunk bytes, read one page at
   * a time. A page without nulls is decoded straight into the batch's column vector (its own
   * array on-heap, [[AlpBatchReader.arrayOf]]: no page buffer, no copy), the batch's rows only;
   * a page with nulls (and every page off-heap) is decoded into a reused page buffer (a page's
   * rows at most) from which each batch's rows are put into `vector` with `putDoubles` /
   * `putFloats` and `putNulls`. A private-form chunk that fails (crc32 at the row group's
   * start, a page mid-way) is replaced by the row group's ordinary chunk from the row it reached.
   */
  private final class AlpColumnFill(c: AlpReadColumn, val vector: WritableColumnVector) {
    private var loc: AlpChunkLocation = _
    private var blockKey: (String, Long) = _
    private var cursor: AlpChunk.PageCursor = _
    private var buffer: AlpValues = _ // capacity for the largest page so far
    private var direct: AlpChunk.Page = _ // the current page, decoded straight into the vector
    private var page: AlpValues = _   // or the rows of the current page (or the ordinary chunk's)
    private var pageRows = 0
    private var pagePos = 0
    private var pageHasNulls = false
    private var rgPos = 0
    private def where = s"$path, column ${c.name}"

    def startRowGroup(block: BlockMetaData): Unit = {
      blockKey = AlpReadPlan.blockKey(block)
      loc = c.chunks.getOrElse(blockKey, throw new IllegalStateException(
        s"$path: row group at byte ${blockKey._2} has no planned ALP data for ${c.name}"))
      if (loc.values != block.getRowCount) throw new IllegalStateException(
        s"$where: ALP chunk of ${loc.values} rows for a row group of ${block.getRowCount}")
      page = null
      direct = null
      pageRows = 0
      pagePos = 0
      rgPos = 0
      cursor = null
      guarded {
        val bytes = AlpColumnReader.readChecked({ (off, len) =>
          val b = new Array[Byte](len); stream.seek(off); stream.readFully(b); b
        }, loc, where)
        val compression = codecs.getOrElseUpdate(loc.codec, AlpColumnReader.pageCompression(loc, where, conf))
        cursor = new AlpChunk.PageCursor(bytes, 0, bytes.length, loc.t, c.optional, loc.values.toInt, compression,
          loc.pages)
      }
    }

    /** Puts the next `n` rows of the row group into the vector, from row 0. */
    def fill(n: Int): Unit = {
      vector.reset()
      var filled = 0
      while (filled < n) {
        if (pagePos == pageRows) guarded(nextPage())
        val m = math.min(n - filled, pageRows - pagePos)
        var done = false
        if (direct != null) guarded {
          // a page without nulls: its values pagePos.. are the rows pagePos..
          if (loc.t == AlpType.Double) direct.doubles(pagePos, m, AlpBatchReader.doublesOf(vector), filled)
          else direct.floats(pagePos, m, AlpBatchReader.floatsOf(vector), filled)
          done = true
        }
        if (!done) copy(filled, m)
        pagePos += m
        filled += m
        rgPos += m
      }
    }

    /** Rows `pagePos..` of the page buffer (or the ordinary chunk) into the vector from row `filled`. */
    private def copy(filled: Int, m: Int): Unit = {
      if (page.t == AlpType.Double) vector.putDoubles(filled, m, page.doubles, pagePos)
      else vector.putFloats(filled, m, page.floats, pagePos)
      val nulls = page.nulls
      if (pageHasNulls) {
        var i = 0
        while (i < m) {
          if (nulls(pagePos + i)) {
            var j = i + 1
            while (j < m && nulls(pagePos + j)) j += 1
            vector.putNulls(filled + i, j - i)
            i = j
          } else i += 1
        }
      }
    }

    private def nextPage(): Unit = {
      val rowsAt = cursor.rowsDone
      val n = cursor.nextRows()
      if (rowsAt != rgPos) throw new IllegalStateException(s"$where: page at row $rowsAt, the scan is at $rgPos")
      if (buffer == null || buffer.rows < n) buffer = AlpValues.allocate(loc.t, n, c.optional)
      val opened = cursor.open(buffer.nulls, 0)
      pageRows = n
      pagePos = 0
      if (!opened.hasNulls && AlpBatchReader.arrayOf(vector) != null) {
        direct = opened
        page = null
      } else {
        val view = new AlpValues(loc.t, n, buffer.doubles, buffer.floats, buffer.nulls)
        opened.decodeInto(view, 0)
        pageHasNulls = opened.hasNulls
        direct = null
        page = view
      }
      if (cursor.rowsLeft == 0) chunksDecoded.add(1)
    }

    /** Runs a step on the ALP chunk; a private-form failure switches to the ordinary chunk. */
    private def guarded(step: => Unit): Unit =
      try step catch {
        case e: AlpChunkException if loc.ratified => throw e.at(s"$where (ALP chunk at byte ${loc.offset})")
        // the private form keeps the ordinary chunk: read it instead, from the row reached
        case e: AlpChunkException =>
          AlpBatchReader.logWarning(s"${e.at(s"$where (ALP chunk at byte ${loc.offset})").getMessage}; " +
            "reading the ordinary chunk")
          fallbacks.add(1)
          cursor = null
          direct = null
          val key = blockKey
          page = OrdinaryChunkReader.read(file, AlpReadPlan.blockKey(_) == key, c.name, loc.t, c.optional)
          if (page.rows != loc.values) throw new IllegalStateException(
            s"$where: ordinary chunk of ${page.rows} rows for a row group of ${loc.values}")
          pageRows = page.rows
          pagePos = rgPos
          pageHasNulls = page.nulls != null
      }
  }

  /** Closes Spark's reader, the ALP stream and codecs, and the ALP vectors; once. */
  override def close(): Unit = if (!closed) {
    closed = true
    try reader.close() finally {
      try stream.close() finally {
        try codecs.values.foreach(_.close()) finally columns.foreach(_.vector.close())
      }
    }
  }
}

private[superspark] object AlpBatchReader extends org.apache.spark.internal.Logging {
  override def logWarning(msg: => String): Unit = super.logWarning(msg)

  private def field(name: String): Option[java.lang.reflect.Field] = try {
    val f = classOf[OnHeapColumnVector].getDeclaredField(name)
    f.setAccessible(true)
    Some(f)
  } catch { case _: ReflectiveOperationException | _: RuntimeException => None }
  private lazy val doubleData = field("doubleData")
  private lazy val floatData = field("floatData")

  /**
   * The on-heap vector's own value array (`doubleData` / `floatData`, Spark 4.0-4.3), which
   * ALP pages are decoded into directly; null for off-heap vectors (or a Spark without the
   * field), which take the page buffer and `putDoubles` instead. Valid until the vector grows
   * (the scan's vectors have the batch capacity from the start and never do).
   */
  def arrayOf(v: WritableColumnVector): AnyRef = v match {
    case o: OnHeapColumnVector =>
      val f = if (o.dataType == org.apache.spark.sql.types.DoubleType) doubleData else floatData
      f.map(_.get(o)).orNull
    case _ => null
  }
  def doublesOf(v: WritableColumnVector): Array[Double] = arrayOf(v).asInstanceOf[Array[Double]]
  def floatsOf(v: WritableColumnVector): Array[Float] = arrayOf(v).asInstanceOf[Array[Float]]

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
