package io.superspark.bsup.spark

import java.math.{BigDecimal => JBigDecimal, BigInteger}

import io.superspark.bsup._
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{GenericInternalRow, SpecificInternalRow, UnsafeArrayData, UnsafeRow}
import org.apache.spark.sql.catalyst.expressions.codegen.UnsafeRowWriter
import org.apache.spark.sql.catalyst.util.{ArrayBasedMapData, GenericArrayData}
import org.apache.spark.sql.types.{ArrayType => SArrayType, MapType => SMapType, _}
import org.apache.spark.unsafe.Platform
import org.apache.spark.unsafe.types.UTF8String

/**
 * The source of the values being converted: the buffer, an error cursor (for messages with
 * byte offsets) and `next`, the position after the last tag read.
 */
private[superspark] final class Src(c: Cursor) {
  private var cur: Cursor = c
  /** The Super Binary version of the cursor's stream (a union's selector rules), read once per cursor set. */
  var version: Int = if (c == null) 0 else c.whereOf.version
  def cursor: Cursor = cur
  def cursor_=(c: Cursor): Unit = if (c ne cur) { cur = c; version = if (c == null) 0 else c.whereOf.version }

  var next: Int = 0
  /** The body length (-1: null) of the value of the last union read by [[SparkReaders.readUnion]]. */
  var unionValueLength: Int = 0
  def buf: Array[Byte] = cursor.buf
  def fail(at: Int, msg: String): Nothing = cursor.fail(msg, at)

  /** Reads a tag at `pos` (the body must end by `end`); returns the body length or -1 for null. */
  def tag(pos: Int, end: Int): Int = {
    val b = buf
    if (pos < end) {
      // A one-byte tag (a body of up to 126 bytes, or null): a uvarint by every rule.
      val x = b(pos)
      if (x >= 0) {
        next = pos + 1
        if (x == 0) return -1
        if (x - 1 <= end - next) return x - 1
      }
    }
    val n = Varint.uvarintLength(b, pos, end)
    if (n < 0) fail(pos, s"bad value tag: ${Varint.uvarintProblem(n)}")
    val v = Varint.uvarintValue(b, pos, n)
    next = pos + n
    val len = Varint.tagBodyLength(v, end - next)
    if (len == Varint.TagTooLong) {
      fail(pos, s"value length ${java.lang.Long.toUnsignedString(v - 1)} runs past the end of its container " +
        s"(${end - next} bytes left)")
    }
    len
  }

  /**
   * The number of elements of the container body `buf[off, end)`, each skipped by its tag;
   * with `checkOrder` (a set), elements must be in strictly increasing byte order, tag included.
   */
  def countElements(off: Int, end: Int, checkOrder: Boolean): Int = {
    var n = 0
    var p = off
    var prevStart = -1
    var prevEnd = -1
    while (p < end) {
      val start = p
      val l = tag(p, end)
      p = next + math.max(l, 0)
      n += 1
      if (checkOrder) {
        if (prevStart >= 0 && java.util.Arrays.compareUnsigned(buf, prevStart, prevEnd, buf, start, p) >= 0) {
          fail(start, "set element is not in increasing order (or is a duplicate)")
        }
        prevStart = start; prevEnd = p
      }
    }
    n
  }
}

/** Converts the non-null body `buf[off, off+len)` of a Super value to a Spark internal value. */
private[superspark] abstract class ValueReader {
  def read(s: Src, off: Int, len: Int): Any

  /** Stores the value in `row` at `o`; primitive readers override it to avoid boxing. */
  def readTo(s: Src, off: Int, len: Int, row: InternalRow, o: Int): Unit = row.update(o, read(s, off, len))
}

/**
 * Compiles readers from a Super type to a Spark type. The target may be the type's own
 * mapping ([[SuperTypes.toSpark]]), a merged schema, or a user schema: integers widen,
 * anything reads as a string in its text form, union members go to the union struct's field
 * of their type, and a union reads as one of its members. A value that cannot be converted
 * raises a [[BsupException]] (a malformed record).
 */
private[superspark] object SparkReaders {
  private def mismatch(src: SuperType, target: DataType): ValueReader = new ValueReader {
    def read(s: Src, off: Int, len: Int): Any =
      s.fail(off, s"a value of type $src cannot be read as Spark type ${target.catalogString}")
  }

  /**
   * @param reuseRows records reuse one row object per reader (set in full for each value): only
   *                  for readers whose rows are copied before the next value is read, i.e. the
   *                  data source's rows (turned into UnsafeRows at once) outside arrays and maps
   */
  def compile(src: SuperType, target: DataType, opts: SuperTypes.Options, reuseRows: Boolean = false): ValueReader =
    (src, target) match {
    case (_, VariantType) => new VariantReader(src)
    // A fusion value reads as its value of the supertype (its first element).
    case (FusionType(inner), _) =>
      val r = compile(inner, target, opts, reuseRows)
      new ValueReader {
        def read(s: Src, off: Int, len: Int): Any = {
          val vl = s.tag(off, off + len)
          if (vl < 0) null else r.read(s, s.next, vl)
        }
      }
    // `T|null` (or `T|none`) read as a nullable T: a null member's value is always null.
    case (u: UnionType, _) if SuperTypes.optionOf(u).isDefined && !isUnionStructOf(u, target) =>
      val m = SuperTypes.optionOf(u).get
      new OptionReader(compile(m, target, opts, reuseRows), u.types.indexOf(m), u.types.size)
    case (u: UnionType, _) =>
      val rs = u.types.map(m => compile(m, target, opts, reuseRows)).toArray
      new ValueReader {
        def read(s: Src, off: Int, len: Int): Any = {
          val sel = readUnion(s, off, len, rs.length)
          val l = s.unionValueLength
          if (l < 0) null else rs(sel).read(s, s.next, l)
        }
      }
    case (_, st: StructType) if isUnionStruct(st) && !src.underlying.isInstanceOf[UnionType] &&
        (!src.underlying.isInstanceOf[RecordType] || st.fieldNames.exists(_.startsWith("{"))) =>
      memberToUnionStruct(src, st, opts)
    // Names and errors unwrap after the union struct case, whose members may be named or errors.
    case (NamedType(_, inner), _) => compile(inner, target, opts, reuseRows)
    // An error value is encoded exactly as its underlying value.
    case (ErrorType(inner), _) => compile(inner, target, opts, reuseRows)
    case (r: RecordType, st: StructType) => new RecordReader(r, st, opts, reuseRows)
    case (ArrayType(e), SArrayType(te, _)) => new ArrayReader(compile(e, te, opts), false)
    case (SetType(e), SArrayType(te, _)) => new ArrayReader(compile(e, te, opts), true)
    case (MapType(k, v), SMapType(tk, tv, _)) => new MapReader(compile(k, tk, opts), compile(v, tv, opts))
    case (EnumType(symbols), _: StringType) =>
      val utf = symbols.map(UTF8String.fromString).toArray
      new ValueReader {
        def read(s: Src, off: Int, len: Int): Any = utf(ValueCodec.enumIndex(s.cursor, s.buf, off, len, utf.length))
      }
    case (p: PrimitiveType, _) => primitive(p.id, target, opts).getOrElse(mismatch(src, target))
    case (_, _: StringType) => new TextReader(src)
    case _ => mismatch(src, target)
  }

  def isUnionStruct(st: StructType): Boolean =
    st.nonEmpty && st.fields(0).name == SuperTypes.UnionSelector && st.fields(0).dataType == IntegerType

  /** True when `target` is the union struct of `u` (a user schema may ask for `T|null` as one). */
  private def isUnionStructOf(u: UnionType, target: DataType): Boolean = target match {
    case st: StructType => isUnionStruct(st) && st.length == u.types.size + 1 &&
      st.fields.drop(1).map(_.name).sameElements(u.types.map(SuperTypes.unionMemberName))
    case _ => false
  }

  /**
   * A union with one member besides `null`/`none`, read as that member or null; a value of
   * the null member must be a null tag (else malformed, as everywhere).
   */
  final class OptionReader(val member: ValueReader, memberSel: Int, n: Int) extends ValueReader {
    // The member's selector element (tag and counted bytes) under each selector rule: a value
    // whose body starts with it needs only its value tag parsed.
    private def selectorElement(version: Int): Array[Byte] = {
      ValueCodec.selectorElement(memberSel, version)
    }
    private val signedSel = selectorElement(0)
    private val unsignedSel = selectorElement(BsupVersion.Latest)

    /**
     * The member value's body length (-1: null), its offset in `s.next`. Any other body (the
     * null member, a malformed union) goes through [[readUnion]], which gives the errors.
     */
    def body(s: Src, off: Int, len: Int): Int = {
      val sel = if (BsupVersion.unsignedSelector(s.version)) unsignedSel else signedSel
      val b = s.buf
      val k = sel.length
      if (len > k && b(off) == sel(0) && (k == 1 || java.util.Arrays.equals(b, off + 1, off + k, sel, 1, k))) {
        // Most member values: a one-byte tag (a body under 127 bytes) whose body ends the union.
        val x = b(off + k)
        if (x > 0 && x == len - k) { s.next = off + k + 1; return x - 1 }
        val end = off + len
        val vl = s.tag(off + k, end)
        if (s.next + math.max(vl, 0) == end) return vl
      }
      general(s, off, len)
    }

    private def general(s: Src, off: Int, len: Int): Int = {
      val sel = readUnion(s, off, len, n)
      val l = s.unionValueLength
      if (l >= 0 && sel != memberSel) s.fail(s.next, "a value of type null or none has a body")
      l
    }
    def read(s: Src, off: Int, len: Int): Any = {
      val l = body(s, off, len)
      if (l < 0) null else member.read(s, s.next, l)
    }
    override def readTo(s: Src, off: Int, len: Int, row: InternalRow, o: Int): Unit = {
      val l = body(s, off, len)
      if (l < 0) row.setNullAt(o) else member.readTo(s, s.next, l, row, o)
    }
  }

  /**
   * Reads a union container: returns the selector; `s.next` is then the value's body offset and
   * `s.unionValueLength` its length (-1: null). No tuple, as this runs for every nullable value
   * of version 5 data.
   */
  def readUnion(s: Src, off: Int, len: Int, n: Int): Int = {
    val end = off + len
    val sl = s.tag(off, end)
    if (sl < 0 || sl > 8) s.fail(off, "bad union selector")
    ValueCodec.checkMinimal(s.cursor, s.buf, s.next, sl, "union selector")
    val sel = ValueCodec.selectorValue(s.buf, s.next, sl, s.version)
    if (sel < 0 || sel >= n) s.fail(off, s"union selector $sel out of range for a union of $n types")
    val vp = s.next + sl
    if (vp >= end) s.fail(off, "union value missing after its selector")
    val vl = s.tag(vp, end)
    if (s.next + math.max(vl, 0) != end) s.fail(off, "extra bytes at the end of a union value")
    s.unionValueLength = vl
    sel.toInt
  }

  /** A non-union value read into a union struct (a merged column): into the field of its type. */
  private def memberToUnionStruct(src: SuperType, st: StructType, opts: SuperTypes.Options): ValueReader = {
    val name = SuperTypes.unionMemberName(src)
    lazy val memberTypes = st.fields.drop(1).map(f =>
      try SuperType.parse(f.name) catch { case _: IllegalArgumentException => SuperType.nullType })
    lazy val stripped = SuperTypes.withoutNullUnions(src)
    val idx = st.fieldNames.indexOf(name) match {
      case i if i >= 1 => i
      // The same member without the null unions the version 5 writer gave its nullable slots.
      case _ if memberTypes.exists(m => SuperTypes.withoutNullUnions(m) == stripped) =>
        memberTypes.indexWhere(m => SuperTypes.withoutNullUnions(m) == stripped) + 1
      case _ =>
        // A member the value widens into, found from the members' names (their type text).
        SuperTypes.unionMemberFor(UnionType(memberTypes.toIndexedSeq), src) + 1
    }
    if (idx < 1) return mismatch(src, st)
    val r = compile(src, st.fields(idx).dataType, opts)
    new ValueReader {
      def read(s: Src, off: Int, len: Int): Any = {
        val row = new GenericInternalRow(st.length)
        row.update(0, idx - 1)
        row.update(idx, r.read(s, off, len))
        row
      }
    }
  }

  /** A record into a struct; `reuseRows`: see [[compile]] (it applies to the nested records too). */
  final class RecordReader(src: RecordType, target: StructType, opts: SuperTypes.Options, reuseRows: Boolean = false)
      extends ValueReader {
    private val n = src.fields.size
    private val ordinals = src.fields.map(f => target.fieldNames.indexOf(f.name)).toArray
    private val readers: Array[ValueReader] = src.fields.zip(ordinals).map { case (f, o) =>
      if (o >= 0) compile(f.typ, target.fields(o).dataType, opts, reuseRows) else null
    }.toArray
    // A `T|null` field (version 5's nullable field) is read here through its OptionReader's
    // `body` and its member's reader: one virtual call per value, as for a plain field.
    private val options: Array[OptionReader] = readers.map { case o: OptionReader => o; case _ => null }
    private val bases: Array[ValueReader] = readers.map { case o: OptionReader => o.member; case r => r }
    private val width = target.length
    // Fields after the last required one are not even walked (values are read lazily).
    private val last = ordinals.lastIndexWhere(_ >= 0)
    // Target fields that no field of the record fills: null in every row.
    private val unfilled = (0 until width).filterNot(ordinals.contains).toArray

    // Typed (unboxed) when reused: allocated once.
    private val reused = if (reuseRows) new SpecificInternalRow(target.fields.map(_.dataType).toIndexedSeq) else null

    def read(s: Src, off: Int, len: Int): Any = {
      val row = if (reuseRows) reused else new GenericInternalRow(width)
      readInto(s, off, len, row)
      row
    }

    /**
     * Sets every field of `row` (a reused row: null where the record has no value); fields not
     * in the target are skipped unread.
     */
    def readInto(s: Src, off: Int, len: Int, row: InternalRow): Unit = {
      setUnfilledNull(row)
      val end = off + len
      var p = off
      var i = 0
      while (i <= last) {
        if (p >= end) s.fail(off, s"record value has $i fields, its type has $n")
        val l = s.tag(p, end)
        p = s.next
        val o = ordinals(i)
        if (l >= 0) {
          if (o >= 0) readField(s, i, p, l, row, o)
          p += l
        } else if (o >= 0) row.setNullAt(o)
        i += 1
      }
      if (last == n - 1 && p != end) s.fail(p, "extra bytes at the end of a record value")
    }

    /** Reads the non-null value of field `i` (body `[p, p+l)`) into `row` at `o`. */
    private def readField(s: Src, i: Int, p: Int, l: Int, row: InternalRow, o: Int): Unit = {
      val option = options(i)
      if (option == null) bases(i).readTo(s, p, l, row, o)
      else {
        val vl = option.body(s, p, l)
        if (vl < 0) row.setNullAt(o) else bases(i).readTo(s, s.next, vl, row, o)
      }
    }

    private def setUnfilledNull(row: InternalRow): Unit = {
      var k = 0
      while (k < unfilled.length) { row.setNullAt(unfilled(k)); k += 1 }
    }

    private val offsets = new Array[Int](n)
    private val lengths = new Array[Int](n)

    /**
     * Like [[readInto]], but converts the fields of `filterOrdinals` first and the others only
     * when `pred` holds; returns whether it held.
     */
    def readIntoIf(s: Src, off: Int, len: Int, row: InternalRow, filterOrdinals: Set[Int],
        pred: InternalRow => Boolean): Boolean = {
      setUnfilledNull(row)
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
          if (l >= 0) readField(s, i, p, l, row, o) else row.setNullAt(o)
        }
        if (l >= 0) p += l
        i += 1
      }
      if (last == n - 1 && p != end) s.fail(p, "extra bytes at the end of a record value")
      if (!pred(row)) return false
      i = 0
      while (i <= last) {
        val o = ordinals(i)
        if (o >= 0 && !filterOrdinals.contains(o)) {
          if (lengths(i) >= 0) readField(s, i, offsets(i), lengths(i), row, o) else row.setNullAt(o)
        }
        i += 1
      }
      true
    }
  }

  final class ArrayReader(elem: ValueReader, checkOrder: Boolean) extends ValueReader {
    // Arrays of ints, longs or doubles are decoded in one pass into a scratch array (grown as
    // elements arrive, never sized from a length) and built unboxed; a null element sends the
    // array to the general path. So do elements of `T|null` (version 5's nullable elements).
    private val option = elem match { case o: OptionReader => o; case _ => null }
    private val base = if (option != null) option.member else elem
    private val primitive = base match {
      case r: IntReader if r.kind == 2 => 4
      case r: IntReader if r.kind == 3 => 8
      case r: DoubleReader if !r.asFloat => 8
      case _ => 0
    }
    private val intElem = if (primitive != 0) base match { case r: IntReader => r; case _ => null } else null
    private val doubleElem = if (primitive != 0) base match { case r: DoubleReader => r; case _ => null } else null
    private var ints = new Array[Int](if (primitive == 4) 16 else 0)
    private var longs = new Array[Long](if (primitive == 8) 16 else 0)

    def read(s: Src, off: Int, len: Int): Any = {
      if (primitive != 0 && !checkOrder) {
        val a = readPrimitive(s, off, off + len)
        if (a != null) return a
      }
      val end = off + len
      val n = s.countElements(off, end, checkOrder)
      if (primitive != 0 && checkOrder) {
        val a = readPrimitive(s, off, end)
        if (a != null) return a
      }
      val out = new Array[Any](n)
      var p = off; var i = 0
      while (p < end) {
        val l = s.tag(p, end)
        p = s.next
        if (l >= 0) { out(i) = elem.read(s, p, l); p += l }
        i += 1
      }
      new GenericArrayData(out)
    }

    /** The elements as an unboxed array, or null when one of them is null. */
    private def readPrimitive(s: Src, off: Int, end: Int): UnsafeArrayData = {
      var p = off
      var i = 0
      while (p < end) {
        val l = s.tag(p, end)
        if (l < 0) return null
        p = s.next
        var vp = p
        var vl = l
        if (option != null) {
          vl = option.body(s, p, l)
          if (vl < 0) return null
          vp = s.next
        }
        if (primitive == 4) {
          if (i == ints.length) ints = java.util.Arrays.copyOf(ints, i * 2)
          ints(i) = intElem.long(s, vp, vl).toInt
        } else {
          if (i == longs.length) longs = java.util.Arrays.copyOf(longs, i * 2)
          longs(i) = if (intElem != null) intElem.long(s, vp, vl)
            else java.lang.Double.doubleToRawLongBits(doubleElem.value(s, vp, vl))
        }
        p += l
        i += 1
      }
      if (primitive == 4) UnsafeArrayData.fromPrimitiveArray(ints, Platform.INT_ARRAY_OFFSET, i, 4)
      else UnsafeArrayData.fromPrimitiveArray(longs, Platform.LONG_ARRAY_OFFSET, i, 8)
    }
  }

  final class MapReader(key: ValueReader, value: ValueReader) extends ValueReader {
    def read(s: Src, off: Int, len: Int): Any = {
      val ks = new java.util.ArrayList[Any]()
      val vs = new java.util.ArrayList[Any]()
      val end = off + len
      var p = off
      var prevStart = -1; var prevEnd = -1
      while (p < end) {
        val start = p
        val kl = s.tag(p, end)
        p = s.next
        if (kl < 0) s.fail(start, "map key is null (Spark maps cannot hold null keys)")
        ks.add(key.read(s, p, kl)); p += kl
        if (prevStart >= 0 && java.util.Arrays.compareUnsigned(s.buf, prevStart, prevEnd, s.buf, start, p) >= 0) {
          s.fail(start, "map key is not in increasing order (or is a duplicate)")
        }
        prevStart = start; prevEnd = p
        if (p >= end) s.fail(start, "map value missing after its key")
        val vl = s.tag(p, end)
        p = s.next
        if (vl < 0) vs.add(null) else { vs.add(value.read(s, p, vl)); p += vl }
      }
      new ArrayBasedMapData(new GenericArrayData(ks.toArray), new GenericArrayData(vs.toArray))
    }
  }

  /** Any value as a string: its text form (for primitives SUP-like, for others via the generic model). */
  final class TextReader(src: SuperType) extends ValueReader {
    def read(s: Src, off: Int, len: Int): Any =
      UTF8String.fromString(ValueText.format(src, ValueCodec.decodeBody(src, s.buf, off, len, s.cursor)))
  }

  private def checked(s: Src, id: Int, off: Int, len: Int): Unit = ValueCodec.checkPrimitiveSize(s.cursor, id, off, len)

  private def intValue(s: Src, id: Int, off: Int, len: Int): Long = id match {
    case SuperType.Uint8 | SuperType.Uint16 | SuperType.Uint32 | SuperType.Uint64 =>
      Varint.decodeCountedUnsigned(s.buf, off, len)
    case _ => Varint.decodeCountedSigned(s.buf, off, len)
  }

  private def isSmallInt(id: Int): Boolean = id <= SuperType.Uint32 || (id >= SuperType.Int8 && id <= SuperType.Int64)
  private def isInt(id: Int): Boolean = id <= SuperType.Int256

  private def bigValue(s: Src, id: Int, off: Int, len: Int): BigInteger = id match {
    case SuperType.Uint8 | SuperType.Uint16 | SuperType.Uint32 | SuperType.Uint64 | SuperType.Uint128 | SuperType.Uint256 =>
      Varint.decodeBigUnsigned(s.buf, off, len)
    case SuperType.Int128 | SuperType.Int256 => Varint.decodeBigSigned(s.buf, off, len)
    case _ if len <= 8 => BigInteger.valueOf(Varint.decodeCountedSigned(s.buf, off, len))
    case _ => Varint.decodeBigSigned(s.buf, off, len)
  }

  /** An integer of primitive `id` read as a Spark integral type `kind` (0 byte, 1 short, 2 int, 3 long). */
  final class IntReader(id: Int, lo: Long, hi: Long, val kind: Int) extends ValueReader {
    private val maxBytes = ValueCodec.maxIntBytes(id)
    private val unsigned = id <= SuperType.Uint64
    private val name = SuperType.primitive(id).name

    def long(s: Src, off: Int, len: Int): Long = {
      if (len > maxBytes) s.fail(off, s"$name value has $len bytes, at most $maxBytes allowed")
      if (len > 0 && s.buf(off + len - 1) == 0) ValueCodec.checkMinimal(s.cursor, s.buf, off, len, name)
      val v =
        if (unsigned) {
          if (len == 8 && s.buf(off + 7) < 0) s.fail(off, s"$name value does not fit the column type")
          Varint.decodeCountedUnsigned(s.buf, off, len)
        } else Varint.decodeCountedSigned(s.buf, off, len)
      if (v < lo || v > hi) s.fail(off, s"$name value $v does not fit the column type")
      v
    }

    def read(s: Src, off: Int, len: Int): Any = {
      val v = long(s, off, len)
      kind match { case 0 => v.toByte; case 1 => v.toShort; case 2 => v.toInt; case _ => v }
    }

    override def readTo(s: Src, off: Int, len: Int, row: InternalRow, o: Int): Unit = {
      val v = long(s, off, len)
      kind match {
        case 0 => row.setByte(o, v.toByte)
        case 1 => row.setShort(o, v.toShort)
        case 2 => row.setInt(o, v.toInt)
        case _ => row.setLong(o, v)
      }
    }
  }

  private def ranged(lo: Long, hi: Long, id: Int, kind: Int): ValueReader = {
    // The Super type's own range narrows the Spark type's.
    val (tlo, thi) = id match {
      case SuperType.Int8 => (Byte.MinValue.toLong, Byte.MaxValue.toLong)
      case SuperType.Int16 => (Short.MinValue.toLong, Short.MaxValue.toLong)
      case SuperType.Int32 => (Int.MinValue.toLong, Int.MaxValue.toLong)
      case SuperType.Uint8 => (0L, 255L)
      case SuperType.Uint16 => (0L, 65535L)
      case SuperType.Uint32 => (0L, 4294967295L)
      case _ => (Long.MinValue, Long.MaxValue)
    }
    new IntReader(id, math.max(lo, tlo), math.min(hi, thi), kind)
  }

  /** A signed counted integer (time, duration) scaled down by `divisor` (floor for time). */
  final class ScaledReader(divisor: Long, floor: Boolean, asInt: Boolean) extends ValueReader {
    def long(s: Src, off: Int, len: Int): Long = {
      if (len > 8) s.fail(off, s"time or duration value has $len bytes, at most 8 allowed")
      if (len > 0 && s.buf(off + len - 1) == 0) ValueCodec.checkMinimal(s.cursor, s.buf, off, len, "time or duration")
      val v = Varint.decodeCountedSigned(s.buf, off, len)
      if (divisor == 1) v else if (floor) Math.floorDiv(v, divisor) else v / divisor
    }
    def read(s: Src, off: Int, len: Int): Any = if (asInt) long(s, off, len).toInt else long(s, off, len)
    override def readTo(s: Src, off: Int, len: Int, row: InternalRow, o: Int): Unit =
      if (asInt) row.setInt(o, long(s, off, len).toInt) else row.setLong(o, long(s, off, len))
  }

  final class DoubleReader(id: Int, val asFloat: Boolean) extends ValueReader {
    private val size = ValueCodec.fixedSize(id)
    def value(s: Src, off: Int, len: Int): Double = {
      if (len != size) s.fail(off, s"${SuperType.primitive(id).name} value has $len bytes, expected $size")
      floatValue(s, id, off)
    }
    def read(s: Src, off: Int, len: Int): Any = if (asFloat) value(s, off, len).toFloat else value(s, off, len)
    override def readTo(s: Src, off: Int, len: Int, row: InternalRow, o: Int): Unit =
      if (asFloat) row.setFloat(o, value(s, off, len).toFloat) else row.setDouble(o, value(s, off, len))
  }

  /**
   * A string, validated as UTF-8. The UTF8String points into the frame buffer without a copy:
   * rows are turned into UnsafeRows (copied) before the reader moves to another frame.
   */
  object StringReader extends ValueReader {
    def read(s: Src, off: Int, len: Int): Any = {
      if (!Cursor.isValidUtf8(s.buf, off, len)) s.fail(off, "invalid UTF-8 in a string value")
      UTF8String.fromAddress(s.buf, org.apache.spark.unsafe.Platform.BYTE_ARRAY_OFFSET + off, len)
    }
    // Into an UnsafeRow being written, the bytes are copied once, without a UTF8String.
    override def readTo(s: Src, off: Int, len: Int, row: InternalRow, o: Int): Unit = row match {
      case w: UnsafeStructRow =>
        if (!Cursor.isValidUtf8(s.buf, off, len)) s.fail(off, "invalid UTF-8 in a string value")
        w.writeBytes(o, s.buf, off, len)
      case _ => row.update(o, read(s, off, len))
    }
  }

  object BoolReader extends ValueReader {
    def value(s: Src, off: Int, len: Int): Boolean = {
      checked(s, SuperType.Bool, off, len)
      val b = s.buf(off)
      if (b != 0 && b != 1) s.fail(off, s"bool value byte is $b, expected 0 or 1")
      b == 1
    }
    def read(s: Src, off: Int, len: Int): Any = value(s, off, len)
    override def readTo(s: Src, off: Int, len: Int, row: InternalRow, o: Int): Unit = row.setBoolean(o, value(s, off, len))
  }

  object BytesReader extends ValueReader {
    def read(s: Src, off: Int, len: Int): Any = {
      checked(s, SuperType.Bytes, off, len)
      java.util.Arrays.copyOfRange(s.buf, off, off + len)
    }
    override def readTo(s: Src, off: Int, len: Int, row: InternalRow, o: Int): Unit = row match {
      case w: UnsafeStructRow => checked(s, SuperType.Bytes, off, len); w.writeBytes(o, s.buf, off, len)
      case _ => row.update(o, read(s, off, len))
    }
  }

  /** True for the Spark types an [[UnsafeStructRow]] holds in its fixed slot or as bytes. */
  def isFlat(t: DataType): Boolean = t match {
    case NullType | BooleanType | ByteType | ShortType | IntegerType | LongType | FloatType | DoubleType |
         DateType | TimestampType | TimestampNTZType | BinaryType | _: StringType | _: DecimalType |
         _: DayTimeIntervalType | _: YearMonthIntervalType => true
    case _ => false
  }

  /**
   * A record read straight into a reused UnsafeRow (see [[UnsafeStructRow]]): `reader` as
   * compiled for a struct of flat fields ([[isFlat]]), a record or a `record|null` union;
   * any other reader is returned as it is.
   */
  def toUnsafe(reader: ValueReader, target: DataType): ValueReader = (reader, target) match {
    case (r: RecordReader, st: StructType) if st.forall(f => isFlat(f.dataType)) => new UnsafeRecordReader(null, r, st)
    case (o: OptionReader, st: StructType) if o.member.isInstanceOf[RecordReader] && st.forall(f => isFlat(f.dataType)) =>
      new UnsafeRecordReader(o, o.member.asInstanceOf[RecordReader], st)
    case _ => reader
  }

  /**
   * Reads a record (or, with `option`, a `record|null` union) into one reused UnsafeRow: its
   * fields are written where the projection that receives the row copies them from, in one
   * block, instead of one by one through a typed row.
   */
  final class UnsafeRecordReader(option: OptionReader, record: RecordReader, target: StructType) extends ValueReader {
    private val out = new UnsafeStructRow(target)
    def read(s: Src, off: Int, len: Int): Any = {
      var o = off
      var l = len
      if (option != null) {
        l = option.body(s, off, len)
        if (l < 0) return null
        o = s.next
      }
      out.start()
      record.readInto(s, o, l, out)
      out.row
    }
  }

  private def floatValue(s: Src, id: Int, off: Int): Double = id match {
    case SuperType.Float16 => Numbers.halfToFloat((s.buf(off) & 0xff) | ((s.buf(off + 1) & 0xff) << 8)).toDouble
    case SuperType.Float32 => java.lang.Float.intBitsToFloat(Varint.decodeCountedUnsigned(s.buf, off, 4).toInt).toDouble
    case SuperType.Float64 => java.lang.Double.longBitsToDouble(Varint.decodeCountedUnsigned(s.buf, off, 8))
    case SuperType.Float128 => Numbers.wideFloatToDouble(s.buf, off, 128)
    case SuperType.Float256 => Numbers.wideFloatToDouble(s.buf, off, 256)
  }

  private def isFloat(id: Int) = id >= SuperType.Float16 && id <= SuperType.Float256
  private def isDecimal(id: Int) = id >= SuperType.Decimal32 && id <= SuperType.Decimal256

  private def primitive(id: Int, target: DataType, opts: SuperTypes.Options): Option[ValueReader] = {
    def r(f: (Src, Int, Int) => Any): Option[ValueReader] = Some(new ValueReader {
      def read(s: Src, off: Int, len: Int): Any = { checked(s, id, off, len); f(s, off, len) }
    })
    target match {
      case NullType => r((_, _, _) => null)
      case ByteType if isSmallInt(id) => Some(ranged(Byte.MinValue, Byte.MaxValue, id, 0))
      case ShortType if isSmallInt(id) => Some(ranged(Short.MinValue, Short.MaxValue, id, 1))
      case IntegerType if isSmallInt(id) => Some(ranged(Int.MinValue, Int.MaxValue, id, 2))
      case LongType if isSmallInt(id) => Some(ranged(Long.MinValue, Long.MaxValue, id, 3))
      case LongType if id == SuperType.Time || id == SuperType.Duration => Some(new ScaledReader(1, false, false))
      case d: DecimalType if isInt(id) => r { (s, off, len) =>
        val dec = Decimal(new JBigDecimal(bigValue(s, id, off, len)))
        if (!dec.changePrecision(d.precision, d.scale)) s.fail(off, s"${SuperType.primitive(id).name} value $dec does not fit ${d.catalogString}")
        dec
      }
      case d: DecimalType if isDecimal(id) => r { (s, off, len) =>
        val v = Numbers.decodeDecimal(s.buf, off, len * 8).getOrElse(s.fail(off, "decimal NaN or infinity"))
        val dec = Decimal(v)
        if (!dec.changePrecision(d.precision, d.scale)) s.fail(off, s"decimal value $v does not fit ${d.catalogString}")
        dec
      }
      // SuperDB's decimals (a named float64) and any float read as a decimal: rounded half up to its scale.
      case d: DecimalType if isFloat(id) => r { (s, off, len) =>
        val x = floatValue(s, id, off)
        val dec = SuperTypes.NamedDecimal.fromDouble(x, d)
        if (dec == null) s.fail(off, s"${SuperType.primitive(id).name} value $x does not fit ${d.catalogString}")
        dec
      }
      // Our exact decimals (a named string) and any decimal text.
      case d: DecimalType if id == SuperType.String => r { (s, off, len) =>
        val text = new String(s.buf, off, len, java.nio.charset.StandardCharsets.UTF_8)
        val dec = try Decimal(new JBigDecimal(text)) catch { case _: NumberFormatException => null }
        if (dec == null || !dec.changePrecision(d.precision, d.scale)) s.fail(off, s"string '$text' is not a ${d.catalogString}")
        dec
      }
      case FloatType if id == SuperType.Float16 || id == SuperType.Float32 => Some(new DoubleReader(id, true))
      case DoubleType if isFloat(id) => Some(new DoubleReader(id, false))
      case DoubleType if isSmallInt(id) => r((s, off, len) => intValue(s, id, off, len).toDouble)
      case BooleanType if id == SuperType.Bool => Some(BoolReader)
      case BinaryType if id == SuperType.Bytes => Some(BytesReader)
      case _: StringType if id == SuperType.String => Some(StringReader)
      case _: StringType if id == SuperType.Ip => r((s, off, len) => UTF8String.fromString(ValueText.ipBytes(s.buf, off, len)))
      case _: StringType if id == SuperType.Net => r { (s, off, len) =>
        UTF8String.fromString(ValueText.netBytes(s.buf, off, len, ValueCodec.netPrefixLength(s.cursor, s.buf, off, len)))
      }
      case _: StringType if isInt(id) => r((s, off, len) => UTF8String.fromString(bigValue(s, id, off, len).toString))
      case _: StringType if isDecimal(id) => r { (s, off, len) =>
        UTF8String.fromString(Numbers.decodeDecimal(s.buf, off, len * 8).map(_.toString).getOrElse("NaN"))
      }
      case _: StringType if id == SuperType.Type => r { (s, off, len) =>
        UTF8String.fromString(TypeValues.decode(new Cursor(s.buf, off, off + len, s.cursor.whereOf)).toString)
      }
      case _: StringType if id != SuperType.Bytes => Some(new TextReader(SuperType.primitive(id)))
      case TimestampType | TimestampNTZType if id == SuperType.Time => Some(new ScaledReader(1000L, true, false))
      case DateType if id == SuperType.Time => Some(new ScaledReader(86400000000000L, true, true))
      case _: DayTimeIntervalType if id == SuperType.Duration => Some(new ScaledReader(1000L, false, false))
      case _: YearMonthIntervalType if isSmallInt(id) => Some(ranged(Int.MinValue, Int.MaxValue, id, 2))
      case _ => None
    }
  }
}

/**
 * The row a [[SparkReaders.RecordReader]] fills when its result is an UnsafeRow: every setter
 * writes straight into an UnsafeRowWriter's buffer (fields of [[SparkReaders.isFlat]] types
 * only; `update` takes their boxed or object forms). It is a write-only row: its getters are
 * those of an empty generic row.
 */
private[superspark] final class UnsafeStructRow(target: StructType) extends GenericInternalRow(0) {
  private val writer = new UnsafeRowWriter(target.length, 64)
  private val precision = target.fields.map(_.dataType match { case d: DecimalType => d.precision; case _ => 0 })
  private val scale = target.fields.map(_.dataType match { case d: DecimalType => d.scale; case _ => 0 })

  /** Starts a new row: no field set. */
  def start(): Unit = { writer.reset(); writer.zeroOutNullBytes() }
  def row: UnsafeRow = writer.getRow

  override def numFields: Int = target.length
  def writeBytes(o: Int, b: Array[Byte], off: Int, len: Int): Unit = writer.write(o, b, off, len)

  // A null decimal too wide for the fixed slot keeps its variable-length space, as Spark's
  // projections do (the row may be updated in place later).
  override def setNullAt(o: Int): Unit =
    if (precision(o) > Decimal.MAX_LONG_DIGITS) writer.write(o, null: Decimal, precision(o), scale(o))
    else writer.setNullAt(o)
  override def setBoolean(o: Int, v: Boolean): Unit = writer.write(o, v)
  override def setByte(o: Int, v: Byte): Unit = writer.write(o, v)
  override def setShort(o: Int, v: Short): Unit = writer.write(o, v)
  override def setInt(o: Int, v: Int): Unit = writer.write(o, v)
  override def setLong(o: Int, v: Long): Unit = writer.write(o, v)
  override def setFloat(o: Int, v: Float): Unit = writer.write(o, v)
  override def setDouble(o: Int, v: Double): Unit = writer.write(o, v)
  override def setDecimal(o: Int, v: Decimal, p: Int): Unit = writer.write(o, v, precision(o), scale(o))
  override def update(o: Int, v: Any): Unit = v match {
    case null => setNullAt(o)
    case u: UTF8String => writer.write(o, u)
    case b: Array[Byte] => writer.write(o, b)
    case d: Decimal => writer.write(o, d, precision(o), scale(o))
    case b: Boolean => writer.write(o, b)
    case b: Byte => writer.write(o, b)
    case x: Short => writer.write(o, x)
    case x: Int => writer.write(o, x)
    case x: Long => writer.write(o, x)
    case x: Float => writer.write(o, x)
    case x: Double => writer.write(o, x)
    case other => throw new IllegalStateException(s"a ${other.getClass.getName} in a flat struct")
  }
}
