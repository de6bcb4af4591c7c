package io.superspark.bsup.spark

import io.superspark.bsup._
import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.Path
import org.apache.spark.{SparkException, TaskContext}
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{GenericInternalRow, SpecificInternalRow}
import org.apache.spark.sql.execution.datasources.PartitionedFile
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String

/**
 * Rows of one split of a `.bsup` file: the values of the streams that start inside the
 * split's byte range, converted to `requiredSchema` (fields not required are skipped by their
 * tag length, never decoded). Malformed values follow `mode`: PERMISSIVE gives a row of nulls
 * with the error (file and byte offset) in the corrupt-record column when it is requested,
 * DROPMALFORMED drops the value, FAILFAST fails the query. A malformed *frame* ends the file
 * (nothing after it can be located safely) in the same three ways.
 */
private[superspark] final class BsupRowIterator(file: PartitionedFile, conf: Configuration, requiredSchema: StructType, opts: BsupOptions,
    filter: Option[BsupFilters.Compiled] = None)
  extends Iterator[InternalRow] {

  private val corruptIdx = BsupRowIterator.corruptIndex(requiredSchema, opts)
  private val width = requiredSchema.length
  private val wrapOrdinal = BsupRowIterator.wrapOrdinal(requiredSchema, corruptIdx)
  private val fullValueColumn = opts.variant

  private val reader: BsupReader = BsupRowIterator.open(file, conf, opts)
  private var nextRow: InternalRow = _
  private var finished = reader == null

  private val tops = new TopCache[TopReader](compileTop)
  private val src = new Src(null)
  private val mutableRow = new SpecificInternalRow(requiredSchema.fields.map(_.dataType).toIndexedSeq)

  Option(TaskContext.get()).foreach(_.addTaskCompletionListener[Unit](_ => close()))

  /** Converts top-level values of one type into rows. */
  private abstract class TopReader {
    /** Fills the row; false when the pushed filters reject it. */
    def fill(s: Src, off: Int, len: Int, row: InternalRow): Boolean
    /** Whether [[fill]] sets every column (to null where there is no value); else the row is cleared first. */
    def setsEveryColumn: Boolean = false
  }

  private val noColumns = width - (if (corruptIdx >= 0) 1 else 0) == 0

  private def compileTop(t: SuperType): TopReader = {
    // No data column required (e.g. count(*)): values are only located, never converted.
    if (noColumns) return new TopReader { def fill(s: Src, off: Int, len: Int, row: InternalRow): Boolean = true }
    val wrapped = fullValueColumn || (wrapOrdinal >= 0 && (t.underlying match {
      case r: RecordType => r.fieldIndex(SuperTypes.ValueColumn) < 0
      case _ => true
    }))
    if (wrapped) {
      if (wrapOrdinal < 0) new TopReader { def fill(s: Src, off: Int, len: Int, row: InternalRow): Boolean = true }
      else {
        val r = SparkReaders.compile(t, requiredSchema.fields(wrapOrdinal).dataType, opts.typeOptions, reuseRows = true)
        new TopReader {
          def fill(s: Src, off: Int, len: Int, row: InternalRow): Boolean = {
            r.readTo(s, off, len, row, wrapOrdinal); true
          }
        }
      }
    } else t.underlying match {
      case rt: RecordType =>
        val target = BsupRowIterator.recordTarget(requiredSchema, corruptIdx)
        val r = new SparkReaders.RecordReader(rt, target, opts.typeOptions, reuseRows = true)
        filter match {
          case Some(f) => new TopReader {
            def fill(s: Src, off: Int, len: Int, row: InternalRow): Boolean =
              r.readIntoIf(s, off, len, row, f.ordinals, f.pred)
            override def setsEveryColumn: Boolean = true
          }
          case None => new TopReader {
            def fill(s: Src, off: Int, len: Int, row: InternalRow): Boolean = { r.readInto(s, off, len, row); true }
            override def setsEveryColumn: Boolean = true
          }
        }
      case _ => new TopReader {
        def fill(s: Src, off: Int, len: Int, row: InternalRow): Boolean = BsupRowIterator.notARecord(s, off, t)
      }
    }
  }


  private def clear(row: InternalRow): Unit = {
    var i = 0
    while (i < width) { row.setNullAt(i); i += 1 }
  }

  private def corruptRow(msg: String): InternalRow = {
    val row = new GenericInternalRow(width)
    if (corruptIdx >= 0) row.update(corruptIdx, UTF8String.fromString(msg))
    row
  }

  private def advance(): Unit = {
    while (!finished && nextRow == null) {
      val more =
        try reader.next()
        catch {
          case e: BsupException =>
            finished = true
            if (opts.isFailFast) throw BsupRowIterator.malformed(e)
            if (!opts.isDropMalformed) nextRow = corruptRow(e.text)
            false
        }
      if (!more) finished = true
      else {
        // One mutable row, reused (and so are the rows of nested records, outside arrays and
        // maps): Spark copies each row (UnsafeProjection) before asking for the next, and
        // strings point into the frame buffer until then.
        val row = mutableRow
        try {
          val keep =
            if (reader.valueLength >= 0) {
              src.cursor = reader.frameCursor
              val top = tops(reader)
              if (!top.setsEveryColumn) clear(row)
              top.fill(src, reader.valueOffset, reader.valueLength, row)
            } else { clear(row); filter.forall(_.pred(row)) }
          if (keep) nextRow = row
        } catch {
          // Only format errors make malformed records: anything else is a bug and fails the task.
          case e: BsupException =>
            if (opts.isFailFast) throw BsupRowIterator.malformed(e)
            if (!opts.isDropMalformed) nextRow = corruptRow(e.text)
        }
      }
    }
  }

  override def hasNext: Boolean = { advance(); nextRow != null }

  override def next(): InternalRow = {
    if (!hasNext) throw new NoSuchElementException
    val r = nextRow
    nextRow = null
    r
  }

  def close(): Unit = if (reader != null) reader.close()
}

private[superspark] object BsupRowIterator {
  /** The reader of a split's streams (those that start inside it), or null when there are none. */
  def open(file: PartitionedFile, conf: Configuration, opts: BsupOptions): BsupReader = {
    val path = file.toPath
    val source = path.toString
    val fs = path.getFileSystem(conf)
    val fileLength = if (file.fileSize > 0) file.fileSize else fs.getFileStatus(path).getLen
    val end = file.start + file.length
    val start =
      if (file.start <= 0) 0L
      else {
        val in = fs.open(path)
        try BsupReader.firstStreamStart(in, file.start, source, fileLength)
        catch { case e: BsupException => if (opts.isFailFast) throw malformed(e) else -1L }
        finally in.close()
      }
    if (start < 0 || start >= end) null
    else {
      val in = fs.open(path)
      in.seek(start)
      new BsupReader(in, source, start, fileLength, end)
    }
  }

  /** The corrupt-record column's ordinal (a string column of that name), or -1. */
  def corruptIndex(requiredSchema: StructType, opts: BsupOptions): Int = {
    val i = requiredSchema.fieldNames.indexOf(opts.columnNameOfCorruptRecord)
    if (i >= 0 && requiredSchema.fields(i).dataType.isInstanceOf[StringType]) i else -1
  }

  /** The `value` column's ordinal when it is the only data column (non-record values go there), or -1. */
  def wrapOrdinal(requiredSchema: StructType, corruptIdx: Int): Int =
    if (requiredSchema.length - (if (corruptIdx >= 0) 1 else 0) == 1) requiredSchema.fieldNames.indexOf(SuperTypes.ValueColumn)
    else -1

  /** The struct a top-level record is read into: the corrupt-record column renamed so no field fills it. */
  def recordTarget(requiredSchema: StructType, corruptIdx: Int): StructType =
    if (corruptIdx >= 0) {
      StructType(requiredSchema.fields.zipWithIndex.map { case (f, i) =>
        if (i == corruptIdx) f.copy(name = "\u0000corrupt") else f
      })
    } else requiredSchema

  def notARecord(s: Src, off: Int, t: SuperType): Nothing =
    s.fail(off, s"a value of type $t is not a record and the schema has no '${SuperTypes.ValueColumn}' column")

  /** Spark's error for a malformed record in FAILFAST mode, naming file and byte offset. */
  def malformed(e: BsupException): SparkException = new SparkException(
    errorClass = "MALFORMED_RECORD_IN_PARSING.WITHOUT_SUGGESTION",
    messageParameters = Map("badRecord" -> e.text, "failFastMode" -> "FAILFAST"),
    cause = e)
}

/**
 * The compiled reader of each top-level value type a split meets: by the stream's type id
 * (cleared at each new stream, whose ids start over), then by the type itself (a type seen in an
 * earlier stream is not compiled again), the last one at hand. The row and the columnar readers'.
 */
private[spark] final class TopCache[T <: AnyRef](compile: SuperType => T) {
  private val byId = new java.util.HashMap[Integer, T]()
  private val byType = new java.util.HashMap[SuperType, T]()
  private var stream = -1
  private var lastId = -1
  private var last: T = _

  def apply(reader: BsupReader): T = {
    if (reader.streamNumber != stream) { byId.clear(); stream = reader.streamNumber; lastId = -1 }
    if (reader.typeId == lastId) return last
    var r = byId.get(reader.typeId)
    if (r == null) {
      r = byType.get(reader.valueType)
      if (r == null) { r = compile(reader.valueType); byType.put(reader.valueType, r) }
      byId.put(reader.typeId, r)
    }
    lastId = reader.typeId
    last = r
    r
  }
}
