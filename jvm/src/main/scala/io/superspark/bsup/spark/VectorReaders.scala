package io.superspark.bsup.spark

import io.superspark.bsup._
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.execution.vectorized.WritableColumnVector
import org.apache.spark.sql.types.{ArrayType => SArrayType, MapType => SMapType, _}
import org.apache.spark.unsafe.types.UTF8String

/**
 * Columnar decoding: Super values written straight into Spark's `WritableColumnVector`s (the
 * columnar `bsup` reader, [[BsupBatchReader]]). Records, arrays, sets, maps, `T|null` unions and
 * the primitives Spark stores unboxed (integers, times, floats, strings) are decoded into the
 * vectors, nested values through the child vectors. Every other pair of Super and Spark types
 * (other unions, union structs, fusions, enums, decimals, text forms, ...) is converted by the
 * row reader's own [[ValueReader]] and the value stored: the same value by construction. The
 * walk over records, arrays and maps follows [[SparkReaders]]' readers check for check, so the
 * same bytes give the same values and the same errors (message and offset).
 */
private[superspark] object VectorReaders {

  /** Writes the non-null value with body `buf[off, off+len)` at `row` of its vector. */
  abstract class VReader {
    def read(s: Src, off: Int, len: Int, row: Int): Unit
  }

  /**
   * A vector being filled, with its Spark type, its children (struct fields, an array's
   * elements, a map's keys and values) and `count`, the elements appended to the children of an
   * array or map vector in the current batch.
   */
  final class Sink(val vec: WritableColumnVector, val dt: DataType, private var cap: Int) {
    var count = 0
    /** `count` when the row being read began (restored when the row is dropped). */
    var mark = 0
    val children: Array[Sink] = dt match {
      case st: StructType => st.fields.indices.map(i => new Sink(vec.getChild(i), st(i).dataType, cap)).toArray
      // Elements: their vectors' capacity is not public; the first reserve asks for what it needs.
      case SArrayType(e, _) => Array(new Sink(vec.getChild(0), e, 0))
      case SMapType(k, v, _) => Array(new Sink(vec.getChild(0), k, 0), new Sink(vec.getChild(1), v, 0))
      case _ => Array.empty
    }
    private val nested = dt.isInstanceOf[SArrayType] || dt.isInstanceOf[SMapType]
    private val struct = dt.isInstanceOf[StructType]

    /** Room for `n` values (struct vectors do not grow their children themselves). */
    def reserve(n: Int): Unit = if (n > cap) {
      val c = math.max(n, cap * 2)
      vec.reserve(c)
      cap = c
      if (struct) { var i = 0; while (i < children.length) { children(i).reserve(c); i += 1 } }
    }

    /** Every sink under this one that appends to child vectors (arrays and maps). */
    def appending: Seq[Sink] = (if (nested) Seq(this) else Nil) ++ children.flatMap(_.appending)

    /** The start of a batch (the top vector is reset by the caller). */
    def resetCounts(): Unit = { count = 0; mark = 0; children.foreach(_.resetCounts()) }

    /**
     * Undoes the rows `[from, to)` of this vector: null flags cleared (a later value writes over
     * them without clearing), and the elements appended since the marks dropped.
     */
    def undo(from: Int, to: Int): Unit = {
      if (to > from) {
        vec.putNotNulls(from, to - from)
        if (struct) children.foreach(_.undo(from, to))
      }
      if (nested) {
        children.foreach(_.undo(mark, count))
        count = mark
      }
    }

    /** Appends `n` elements to the children: returns the first one's index. */
    def append(n: Int): Int = {
      val start = count
      count = start + n
      var i = 0
      while (i < children.length) { children(i).reserve(count); i += 1 }
      start
    }

    /** Stores a Spark internal value (null included) at `row`. */
    def putAny(row: Int, v: Any): Unit = {
      if (v == null) { vec.putNull(row); return }
      vec.putNotNull(row)
      dt match {
        case BooleanType => vec.putBoolean(row, v.asInstanceOf[Boolean])
        case ByteType => vec.putByte(row, v.asInstanceOf[Byte])
        case ShortType => vec.putShort(row, v.asInstanceOf[Short])
        case IntegerType | DateType | _: YearMonthIntervalType => vec.putInt(row, v.asInstanceOf[Int])
        case LongType | TimestampType | TimestampNTZType | _: DayTimeIntervalType => vec.putLong(row, v.asInstanceOf[Long])
        case FloatType => vec.putFloat(row, v.asInstanceOf[Float])
        case DoubleType => vec.putDouble(row, v.asInstanceOf[Double])
        case d: DecimalType => vec.putDecimal(row, v.asInstanceOf[Decimal], d.precision)
        case _: StringType => vec.putByteArray(row, v.asInstanceOf[UTF8String].getBytes)
        case BinaryType => vec.putByteArray(row, v.asInstanceOf[Array[Byte]])
        case st: StructType =>
          val r = v.asInstanceOf[InternalRow]
          var i = 0
          while (i < st.length) {
            children(i).putAny(row, if (r.isNullAt(i)) null else r.get(i, st(i).dataType))
            i += 1
          }
        case SArrayType(e, _) =>
          val a = v.asInstanceOf[org.apache.spark.sql.catalyst.util.ArrayData]
          val n = a.numElements()
          val start = append(n)
          var i = 0
          while (i < n) { children(0).putAny(start + i, if (a.isNullAt(i)) null else a.get(i, e)); i += 1 }
          vec.putArray(row, start, n)
        case SMapType(kt, vt, _) =>
          val m = v.asInstanceOf[org.apache.spark.sql.catalyst.util.MapData]
          val n = m.numElements()
          val (ks, vs) = (m.keyArray(), m.valueArray())
          val start = append(n)
          var i = 0
          while (i < n) {
            children(0).putAny(start + i, ks.get(i, kt))
            children(1).putAny(start + i, if (vs.isNullAt(i)) null else vs.get(i, vt))
            i += 1
          }
          vec.putArray(row, start, n)
        case other => throw new IllegalStateException(s"no columnar form for ${other.catalogString}")
      }
    }
  }

  /** Spark types the columnar reader stores (the others keep the row reader). */
  def supports(dt: DataType): Boolean = dt match {
    case BooleanType | ByteType | ShortType | IntegerType | LongType | FloatType | DoubleType | DateType |
         TimestampType | TimestampNTZType | BinaryType => true
    case _: DecimalType | _: StringType | _: YearMonthIntervalType | _: DayTimeIntervalType => true
    case st: StructType => st.forall(f => supports(f.dataType))
    case SArrayType(e, _) => supports(e)
    case SMapType(k, v, _) => supports(k) && supports(v)
    case _ => false
  }

  private def stored(r: ValueReader, sink: Sink): VReader = new VReader {
    def read(s: Src, off: Int, len: Int, row: Int): Unit = sink.putAny(row, r.read(s, off, len))
  }

  /** The columnar reader of values of `src` as `target`, into `sink` (see [[SparkReaders.compile]]). */
  def compile(src: SuperType, target: DataType, opts: SuperTypes.Options, sink: Sink): VReader = (src, target) match {
    case (_: FusionType, _) | (_, VariantType) => stored(SparkReaders.compile(src, target, opts), sink)
    case (u: UnionType, _) => SparkReaders.compile(src, target, opts) match {
      case o: SparkReaders.OptionReader => new OptionV(o, compile(SuperTypes.optionOf(u).get, target, opts, sink), sink)
      case r => stored(r, sink)
    }
    case (_, st: StructType) if SparkReaders.isUnionStruct(st) => stored(SparkReaders.compile(src, target, opts), sink)
    case (NamedType(_, inner), _) => compile(inner, target, opts, sink)
    case (ErrorType(inner), _) => compile(inner, target, opts, sink)
    case (r: RecordType, st: StructType) => new RecordV(r, st, opts, sink.children)
    case (ArrayType(e), SArrayType(te, _)) => new ArrayV(e, te, opts, sink, checkOrder = false)
    case (SetType(e), SArrayType(te, _)) => new ArrayV(e, te, opts, sink, checkOrder = true)
    case (MapType(k, v), SMapType(tk, tv, _)) => new MapV(k, v, tk, tv, opts, sink)
    case (_: PrimitiveType, _) => primitive(SparkReaders.compile(src, target, opts), target, sink)
    case _ => stored(SparkReaders.compile(src, target, opts), sink)
  }

  private def primitive(r: ValueReader, target: DataType, sink: Sink): VReader = {
    val v = sink.vec
    r match {
      case i: SparkReaders.IntReader => i.kind match {
        case 0 => new VReader { def read(s: Src, off: Int, len: Int, row: Int): Unit = v.putByte(row, i.long(s, off, len).toByte) }
        case 1 => new VReader { def read(s: Src, off: Int, len: Int, row: Int): Unit = v.putShort(row, i.long(s, off, len).toShort) }
        case 2 => new VReader { def read(s: Src, off: Int, len: Int, row: Int): Unit = v.putInt(row, i.long(s, off, len).toInt) }
        case _ => new VReader { def read(s: Src, off: Int, len: Int, row: Int): Unit = v.putLong(row, i.long(s, off, len)) }
      }
      case t: SparkReaders.ScaledReader => target match {
        case DateType => new VReader { def read(s: Src, off: Int, len: Int, row: Int): Unit = v.putInt(row, t.long(s, off, len).toInt) }
        case _ => new VReader { def read(s: Src, off: Int, len: Int, row: Int): Unit = v.putLong(row, t.long(s, off, len)) }
      }
      case d: SparkReaders.DoubleReader =>
        if (d.asFloat) new VReader { def read(s: Src, off: Int, len: Int, row: Int): Unit = v.putFloat(row, d.value(s, off, len).toFloat) }
        else new VReader { def read(s: Src, off: Int, len: Int, row: Int): Unit = v.putDouble(row, d.value(s, off, len)) }
      case SparkReaders.BoolReader => new VReader {
        def read(s: Src, off: Int, len: Int, row: Int): Unit = v.putBoolean(row, SparkReaders.BoolReader.value(s, off, len))
      }
      case SparkReaders.StringReader => new VReader {
        def read(s: Src, off: Int, len: Int, row: Int): Unit = {
          if (!Cursor.isValidUtf8(s.buf, off, len)) s.fail(off, "invalid UTF-8 in a string value")
          v.putByteArray(row, s.buf, off, len)
        }
      }
      case other => stored(other, sink)
    }
  }

  /** `T|null`: the member's body (see [[SparkReaders.OptionReader.body]]) or null. */
  final class OptionV(val option: SparkReaders.OptionReader, val member: VReader, sink: Sink) extends VReader {
    def read(s: Src, off: Int, len: Int, row: Int): Unit = {
      val l = option.body(s, off, len)
      if (l < 0) sink.vec.putNull(row) else member.read(s, s.next, l, row)
    }
  }

  /**
   * A record into the vectors `sinks` (a struct's children, or the batch's columns): the walk of
   * [[SparkReaders.RecordReader]].
   */
  final class RecordV(src: RecordType, target: StructType, opts: SuperTypes.Options, sinks: Array[Sink]) extends VReader {
    private val n = src.fields.size
    private val ordinals = src.fields.map(f => target.fieldNames.indexOf(f.name)).toArray
    private val readers: Array[VReader] = src.fields.zip(ordinals).map { case (f, o) =>
      if (o >= 0) compile(f.typ, target.fields(o).dataType, opts, sinks(o)) else null
    }.toArray
    private val last = ordinals.lastIndexWhere(_ >= 0)
    private val unfilled = (0 until target.length).filterNot(ordinals.contains).toArray

    /** The target's columns that no field of the record fills: null in `row`. */
    private def nullUnfilled(row: Int): Unit = {
      var k = 0
      while (k < unfilled.length) { sinks(unfilled(k)).vec.putNull(row); k += 1 }
    }

    def read(s: Src, off: Int, len: Int, row: Int): Unit = {
      nullUnfilled(row)
      val end = off + len
      var p = off
      var i = 0
      while (i <= last) {
        if (p >= end) s.fail(off, s"record value has $i fields, its type has $n")
        val l = s.tag(p, end)
        p = s.next
        val o = ordinals(i)
        if (l >= 0) {
          if (o >= 0) readers(i).read(s, p, l, row)
          p += l
        } else if (o >= 0) sinks(o).vec.putNull(row)
        i += 1
      }
      if (last == n - 1 && p != end) s.fail(p, "extra bytes at the end of a record value")
    }

    private val offsets = new Array[Int](n)
    private val lengths = new Array[Int](n)

    /**
     * [[SparkReaders.RecordReader.readIntoIf]]: the fields of `filterOrdinals` first, the others
     * only when `pred` holds on `view` (the batch's row being read); returns whether it held.
     */
    def readIf(s: Src, off: Int, len: Int, row: Int, filterOrdinals: Set[Int], pred: InternalRow => Boolean,
        view: InternalRow): Boolean = {
      nullUnfilled(row)
      val end = off + len
      var p = off
      var i = 0
      while (i <= last) {
        if (p >= end) s.fail(off, s"record value has $i fields, its type has $n")
        val l = s.tag(p, end)
        p = s.next
        offsets(i) = p
        lengths(i) = l
        val o = ordinals(i)
        if (o >= 0 && filterOrdinals.contains(o)) {
          if (l >= 0) readers(i).read(s, p, l, row) else sinks(o).vec.putNull(row)
        }
        if (l >= 0) p += l
        i += 1
      }
      if (last == n - 1 && p != end) s.fail(p, "extra bytes at the end of a record value")
      if (!pred(view)) return false
      i = 0
      while (i <= last) {
        val o = ordinals(i)
        if (o >= 0 && !filterOrdinals.contains(o)) {
          if (lengths(i) >= 0) readers(i).read(s, offsets(i), lengths(i), row) else sinks(o).vec.putNull(row)
        }
        i += 1
      }
      true
    }
  }

  /**
   * An array or set into an array vector: the walk of [[SparkReaders.ArrayReader]] (sets: order
   * checked first; arrays of ints, longs and doubles in one pass until a null element, then
   * the general walk: all tags, then the values), so errors come in the same order.
   */
  final class ArrayV(e: SuperType, te: DataType, opts: SuperTypes.Options, sink: Sink, checkOrder: Boolean)
      extends VReader {
    private val child = sink.children(0)
    private val elem = compile(e, te, opts, child)
    private val option = elem match { case o: OptionV => o.option; case _ => null }
    private val base = elem match { case o: OptionV => o.member; case r => r }
    // The row reader's one-pass case: int, long and double elements (SparkReaders.ArrayReader.primitive).
    private val onePass = SparkReaders.compile(e, te, opts) match {
      case o: SparkReaders.OptionReader => isPrimitive(o.member)
      case r => isPrimitive(r)
    }
    private def isPrimitive(r: ValueReader): Boolean = r match {
      case i: SparkReaders.IntReader => i.kind == 2 || i.kind == 3
      case d: SparkReaders.DoubleReader => !d.asFloat
      case _ => false
    }

    def read(s: Src, off: Int, len: Int, row: Int): Unit = {
      val end = off + len
      if (onePass && !checkOrder && primitivePass(s, off, end, row)) return
      val n = s.countElements(off, end, checkOrder)
      if (onePass && checkOrder && primitivePass(s, off, end, row)) return
      val first = sink.append(n)
      var p = off
      var i = 0
      while (p < end) {
        val l = s.tag(p, end)
        p = s.next
        if (l >= 0) { elem.read(s, p, l, first + i); p += l } else child.vec.putNull(first + i)
        i += 1
      }
      sink.vec.putArray(row, first, n)
    }

    /** The elements in one pass; false (nothing kept) at the first null element. */
    private def primitivePass(s: Src, off: Int, end: Int, row: Int): Boolean = {
      val first = sink.count
      var p = off
      var i = 0
      while (p < end) {
        val l = s.tag(p, end)
        if (l < 0) { sink.count = first; return false }
        p = s.next
        var vp = p
        var vl = l
        if (option != null) {
          vl = option.body(s, p, l)
          if (vl < 0) { sink.count = first; return false }
          vp = s.next
        }
        sink.append(1)
        base.read(s, vp, vl, first + i)
        p += l
        i += 1
      }
      sink.vec.putArray(row, first, i)
      true
    }
  }

  /** A map into a map vector: the walk of [[SparkReaders.MapReader]]. */
  final class MapV(k: SuperType, v: SuperType, tk: DataType, tv: DataType, opts: SuperTypes.Options, sink: Sink)
      extends VReader {
    private val keys = sink.children(0)
    private val values = sink.children(1)
    private val key = compile(k, tk, opts, keys)
    private val value = compile(v, tv, opts, values)

    def read(s: Src, off: Int, len: Int, row: Int): Unit = {
      val first = sink.count
      val end = off + len
      var p = off
      var i = 0
      var prevStart = -1; var prevEnd = -1
      while (p < end) {
        val start = p
        val kl = s.tag(p, end)
        p = s.next
        if (kl < 0) s.fail(start, "map key is null (Spark maps cannot hold null keys)")
        sink.append(1)
        key.read(s, p, kl, first + i); p += kl
        if (prevStart >= 0 && java.util.Arrays.compareUnsigned(s.buf, prevStart, prevEnd, s.buf, start, p) >= 0) {
          s.fail(start, "map key is not in increasing order (or is a duplicate)")
        }
        prevStart = start; prevEnd = p
        if (p >= end) s.fail(start, "map value missing after its key")
        val vl = s.tag(p, end)
        p = s.next
        if (vl < 0) values.vec.putNull(first + i) else { value.read(s, p, vl, first + i); p += vl }
        i += 1
      }
      sink.vec.putArray(row, first, i)
    }
  }
}
