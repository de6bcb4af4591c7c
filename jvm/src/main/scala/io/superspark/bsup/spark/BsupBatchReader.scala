package io.superspark.bsup.spark

import io.superspark.bsup._
import org.apache.hadoop.conf.Configuration
import org.apache.spark.TaskContext
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.execution.datasources.PartitionedFile
import org.apache.spark.sql.execution.vectorized.OnHeapColumnVector
import org.apache.spark.sql.types._
import org.apache.spark.sql.vectorized.{ColumnVector, ColumnarBatch, ColumnarBatchRow}
import org.apache.spark.unsafe.types.UTF8String

import VectorReaders._

/**
 * Columnar batches of one split of a `.bsup` file: the rows of [[BsupRowIterator]] (the same
 * values, modes, corrupt-record column and pushed filters), decoded straight into
 * `OnHeapColumnVector`s of `requiredSchema` followed by the partition columns (constant in a
 * file). Fields not required are skipped by their tag length, never decoded. A row that a
 * filter rejects, or that DROPMALFORMED drops, is undone in the vectors (null flags and
 * appended elements) and its slot reused.
 */
private[superspark] final class BsupBatchReader(file: PartitionedFile, conf: Configuration, requiredSchema: StructType,
    partitionSchema: StructType, opts: BsupOptions, filter: Option[BsupFilters.Compiled], capacity: Int)
  extends Iterator[ColumnarBatch] {

  private val corruptIdx = BsupRowIterator.corruptIndex(requiredSchema, opts)
  private val width = requiredSchema.length
  private val wrapOrdinal = BsupRowIterator.wrapOrdinal(requiredSchema, corruptIdx)
  private val noColumns = width - (if (corruptIdx >= 0) 1 else 0) == 0

  private val vectors = OnHeapColumnVector.allocateColumns(capacity, requiredSchema)
  private val partVectors = OnHeapColumnVector.allocateColumns(capacity, partitionSchema)
  private val sinks = requiredSchema.fields.indices.map(i =>
    new Sink(vectors(i), requiredSchema(i).dataType, capacity)).toArray
  private val appending = sinks.flatMap(_.appending)
  private val batch = new ColumnarBatch((vectors ++ partVectors).toArray[ColumnVector])
  private val view = new ColumnarBatchRow(vectors.toArray[ColumnVector])

  private val reader: BsupReader = BsupRowIterator.open(file, conf, opts)
  private var finished = reader == null
  private val src = new Src(null)
  private var prepared = false
  private var hasBatch = false

  Option(TaskContext.get()).foreach(_.addTaskCompletionListener[Unit](_ => close()))

  /** Reads values of one Super type into the row `row` of the batch. */
  private abstract class Top {
    /** Writes the row; false when the pushed filters reject it. */
    def fill(s: Src, off: Int, len: Int, row: Int): Boolean
    /** Whether [[fill]] sets every column; else the row's other columns are set null first. */
    def setsEveryColumn: Boolean = false
    /**
     * The column [[fill]] sets (-1: none). It is not set null first: a value's vector write
     * does not clear a null flag (only undoing a row does).
     */
    def sets: Int = -1
  }

  private def compileTop(t: SuperType): Top = {
    if (noColumns) return new Top { def fill(s: Src, off: Int, len: Int, row: Int): Boolean = true }
    val wrapped = opts.variant || (wrapOrdinal >= 0 && (t.underlying match {
      case r: RecordType => r.fieldIndex(SuperTypes.ValueColumn) < 0
      case _ => true
    }))
    if (wrapped) {
      if (wrapOrdinal < 0) new Top { def fill(s: Src, off: Int, len: Int, row: Int): Boolean = true }
      else {
        val r = VectorReaders.compile(t, requiredSchema(wrapOrdinal).dataType, opts.typeOptions, sinks(wrapOrdinal))
        new Top {
          def fill(s: Src, off: Int, len: Int, row: Int): Boolean = { r.read(s, off, len, row); true }
          override def sets: Int = wrapOrdinal
        }
      }
    } else t.underlying match {
      case rt: RecordType =>
        val r = new RecordV(rt, BsupRowIterator.recordTarget(requiredSchema, corruptIdx), opts.typeOptions, sinks)
        filter match {
          case Some(f) => new Top {
            def fill(s: Src, off: Int, len: Int, row: Int): Boolean = {
              view.rowId = row
              r.readIf(s, off, len, row, f.ordinals, f.pred, view)
            }
            override def setsEveryColumn: Boolean = true
          }
          case None => new Top {
            def fill(s: Src, off: Int, len: Int, row: Int): Boolean = { r.read(s, off, len, row); true }
            override def setsEveryColumn: Boolean = true
          }
        }
      case _ => new Top {
        def fill(s: Src, off: Int, len: Int, row: Int): Boolean = BsupRowIterator.notARecord(s, off, t)
      }
    }
  }

  private val tops = new TopCache[Top](compileTop)

  /** Sets the row's columns null, but for column `except`. */
  private def nullRow(row: Int, except: Int = -1): Unit = {
    var i = 0
    while (i < width) { if (i != except) vectors(i).putNull(row); i += 1 }
  }

  /** Undoes what a dropped (or failed) row wrote at `row`. */
  private def undo(row: Int): Unit = {
    var i = 0
    while (i < width) { sinks(i).undo(row, row + 1); i += 1 }
  }

  private def corrupt(row: Int, msg: String): Unit = {
    undo(row)
    nullRow(row)
    if (corruptIdx >= 0) {
      vectors(corruptIdx).putNotNull(row)
      vectors(corruptIdx).putByteArray(row, UTF8String.fromString(msg).getBytes)
    }
  }

  /** Reads the next value into `row`: whether a row was written there. */
  private def readOne(row: Int): Boolean = {
    var k = 0
    while (k < appending.length) { appending(k).mark = appending(k).count; k += 1 }
    val more =
      try reader.next()
      catch {
        case e: BsupException =>
          finished = true
          if (opts.isFailFast) throw BsupRowIterator.malformed(e)
          if (!opts.isDropMalformed) { corrupt(row, e.text); return true }
          false
      }
    if (!more) { finished = true; return false }
    try {
      val keep =
        if (reader.valueLength >= 0) {
          src.cursor = reader.frameCursor
          val t = tops(reader)
          if (!t.setsEveryColumn) nullRow(row, t.sets)
          t.fill(src, reader.valueOffset, reader.valueLength, row)
        } else {
          nullRow(row)
          filter.forall { f => view.rowId = row; f.pred(view) }
        }
      if (!keep) undo(row)
      keep
    } catch {
      case e: BsupException =>
        if (opts.isFailFast) throw BsupRowIterator.malformed(e)
        if (opts.isDropMalformed) { undo(row); false }
        else { corrupt(row, e.text); true }
    }
  }

  private def fillBatch(): Boolean = {
    vectors.foreach(_.reset())
    sinks.foreach(_.resetCounts())
    var n = 0
    while (n < capacity && !finished) {
      if (readOne(n)) n += 1
    }
    if (n > 0) {
      var i = 0
      while (i < partVectors.length) {
        val sink = new Sink(partVectors(i), partitionSchema(i).dataType, capacity)
        partVectors(i).reset()
        val v = if (file.partitionValues.isNullAt(i)) null else file.partitionValues.get(i, partitionSchema(i).dataType)
        var r = 0
        while (r < n) { sink.putAny(r, v); r += 1 }
        i += 1
      }
    }
    batch.setNumRows(n)
    n > 0
  }

  override def hasNext: Boolean = {
    if (!prepared) { hasBatch = fillBatch(); prepared = true }
    hasBatch
  }

  override def next(): ColumnarBatch = {
    if (!hasNext) throw new NoSuchElementException
    prepared = false
    batch
  }

  def close(): Unit = {
    if (reader != null) reader.close()
    batch.close()
  }
}

private[superspark] object BsupBatchReader {
  /** Rows a batch holds (as Spark's vectorized Parquet reader's default). */
  val Capacity = 4096
}
