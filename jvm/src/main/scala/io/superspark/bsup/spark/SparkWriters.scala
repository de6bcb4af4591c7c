package io.superspark.bsup.spark

import java.nio.charset.StandardCharsets

import io.superspark.bsup._
import org.apache.spark.sql.catalyst.expressions.SpecializedGetters
import org.apache.spark.sql.types.{ArrayType => SArrayType, MapType => SMapType, _}

/** Appends the value at `ordinal` of a row or array as a tag-encoded Super value. */
private[superspark] abstract class FieldWriter {
  def write(g: SpecializedGetters, ordinal: Int, out: ByteBuf): Unit
}

/**
 * How writers are compiled: the Super Binary `version`, whether a null may be written as a
 * typed null (a null tag where the Super type has no null member: version 0, or version 5
 * with `superdbReadable=false`), the column path being compiled (for error messages), and the
 * `T|null` union the writer's values are a member of, if any (`option`: it wraps the one
 * writer compiled for `T`; the writers of `T`'s parts get none).
 */
private[superspark] final case class WriteConf(version: Int = 0, typedNulls: Boolean = true, column: String = "",
    option: Option[UnionType] = None) {
  def field(name: String): WriteConf = copy(column = if (column.isEmpty) name else s"$column.$name", option = None)
  def element: WriteConf = copy(column = s"$column[]", option = None)
  def mapKey: WriteConf = copy(option = None)
  def mapValue: WriteConf = copy(column = s"$column{}", option = None)
  /** The conf of a union's member writers (their values are wrapped by the union's writer). */
  def member: WriteConf = copy(option = None)
  /** The conf of the writer of `T` in the `T|null` union `u`. */
  def optional(u: UnionType): WriteConf = copy(option = Some(u))

  /** What a writer of Super type `t` for Spark type `dt` puts for a null and around a value. */
  def nulls(t: SuperType, dt: DataType): Slot = new Slot(typedNulls, column, t, dt, option, version)
}

private[superspark] object WriteConf {
  /** The conf of a data source write at `version`: version 5 writes no typed nulls unless allowed. */
  def forWrite(version: Int, superdbReadable: Boolean): WriteConf = WriteConf(version, version == 0 || !superdbReadable)
}

/**
 * What a writer of Super type `t` (for Spark type `dt`) puts for a null and around a value. In
 * a `T|null` union (`option`: SuperDB's nullable value, version 5) a null is the union's null
 * member and a value is wrapped as its member `T`, the union's bytes precomputed. Elsewhere the
 * Super type has no null member: a null is a null tag (a typed null), or an error where typed
 * nulls are not allowed.
 */
private[superspark] final class Slot(typed: Boolean, column: String, t: SuperType, dt: DataType, option: Option[UnionType], version: Int) {
  /** True when a value is wrapped: [[begin]], the member's tagged value, `ValueCodec.endContainer`. */
  val wraps: Boolean = option.isDefined

  private def selector(sel: Int): Array[Byte] = {
    ValueCodec.selectorElement(sel, version)
  }
  private val valueSelector: Array[Byte] = option.map(u => selector(u.types.indexOf(SuperTypes.optionOf(u).get))).orNull
  private val nullValue: Array[Byte] = option.map { u =>
    val b = new ByteBuf(8)
    val start = ValueCodec.beginContainer(b)
    b.put(selector(u.types.indexWhere(SuperTypes.holdsNull))); b.put(0)
    ValueCodec.endContainer(b, start)
    b.toArray
  }.orNull

  def putNull(out: ByteBuf): Unit =
    if (nullValue != null) out.put(nullValue)
    else if (typed) out.put(0)
    else throw BsupErrors.nullWithoutUnion(column, t, dt)

  private[this] val selectorLength = if (valueSelector == null) 0 else valueSelector.length
  private[this] val selector0: Byte = if (valueSelector == null) 0 else valueSelector(0)

  /**
   * Opens the union value around a member value (`ValueCodec.beginContainer`, then the member's
   * selector, in one bounds check); returns the start for `ValueCodec.endContainer`.
   */
  def begin(out: ByteBuf): Int = {
    out.ensure(1 + selectorLength)
    val p = out.size
    val b = out.bytes
    b(p) = 0
    b(p + 1) = selector0
    if (selectorLength > 1) System.arraycopy(valueSelector, 1, b, p + 2, selectorLength - 1)
    out.size = p + 1 + selectorLength
    p + 1
  }
}

/**
 * Compiles writers from a Spark type to a Super type: the inverse of [[SuperTypes.toSpark]],
 * honouring a Super type kept in metadata (a decimal(20,0) column of `uint64` is written as
 * uint64, a string column of `ip` as ip, ...). Values that do not fit their Super type (a
 * negative number for uint64, text that is not an IP address) fail the write with a message.
 */
private[superspark] object SparkWriters {
  private def mismatch(c: WriteConf, t: SuperType, dt: DataType): Nothing =
    throw BsupErrors.cannotWriteType("MISMATCH", c.column, t, dt)

  /**
   * A writer whose [[Slot]] handles a null and, in a `T|null` union, wraps each value: one
   * virtual call and one null check per value, whether or not the slot is a union.
   */
  abstract class NonNull(slot: Slot) extends FieldWriter {
    private[this] val wraps = slot.wraps
    final def write(g: SpecializedGetters, i: Int, out: ByteBuf): Unit =
      if (g.isNullAt(i)) slot.putNull(out)
      else if (!wraps) put(g, i, out)
      else { val start = slot.begin(out); put(g, i, out); ValueCodec.endContainer(out, start) }
    /** Appends the non-null value at `i`, tag-encoded. */
    def put(g: SpecializedGetters, i: Int, out: ByteBuf): Unit
  }

  private def putBody(out: ByteBuf, b: Array[Byte]): Unit = { out.putUvarint(b.length + 1L); out.put(b) }

  /** The integer value at `i` of a Spark column of `dt` written as `t` (for the errors: column `c`). */
  private def getLong(dt: DataType, g: SpecializedGetters, i: Int, c: WriteConf, t: SuperType): Long = dt match {
    case ByteType => g.getByte(i).toLong
    case ShortType => g.getShort(i).toLong
    case IntegerType | DateType | _: YearMonthIntervalType => g.getInt(i).toLong
    case LongType | TimestampType | TimestampNTZType | _: DayTimeIntervalType => g.getLong(i)
    case d: DecimalType =>
      val bd = g.getDecimal(i, d.precision, d.scale).toJavaBigDecimal
      try bd.longValueExact() catch {
        case _: ArithmeticException => throw BsupErrors.invalidValue(c.column, bd.toPlainString, "a 64-bit integer", t, dt)
      }
    case _ => mismatch(c, t, dt)
  }

  /** Can [[getLong]] read `dt`'s values (decimals: those that are integers)? */
  private def integral(dt: DataType): Boolean = dt match {
    case ByteType | ShortType | IntegerType | DateType | _: YearMonthIntervalType | LongType | TimestampType |
         TimestampNTZType | _: DayTimeIntervalType | _: DecimalType => true
    case _ => false
  }

  /** Can [[getDouble]] read `dt`'s values? */
  private def numeric(dt: DataType): Boolean = integral(dt) || dt == FloatType || dt == DoubleType

  private def getBig(dt: DataType, g: SpecializedGetters, i: Int, c: WriteConf, t: SuperType): java.math.BigInteger = dt match {
    case d: DecimalType =>
      val bd = g.getDecimal(i, d.precision, d.scale).toJavaBigDecimal
      try bd.toBigIntegerExact catch {
        case _: ArithmeticException => throw BsupErrors.invalidValue(c.column, bd.toPlainString, "an integer", t, dt)
      }
    case _: StringType =>
      val s = g.getUTF8String(i).toString
      try new java.math.BigInteger(s.trim) catch {
        case _: NumberFormatException => throw BsupErrors.invalidValue(c.column, s"'$s'", "an integer", t, dt)
      }
    case other => java.math.BigInteger.valueOf(getLong(other, g, i, c, t))
  }

  private def getDouble(dt: DataType, g: SpecializedGetters, i: Int, c: WriteConf, t: SuperType): Double = dt match {
    case FloatType => g.getFloat(i).toDouble
    case DoubleType => g.getDouble(i)
    case d: DecimalType => g.getDecimal(i, d.precision, d.scale).toDouble
    case other => getLong(other, g, i, c, t).toDouble
  }

  private def recursiveUnsupported(c: WriteConf, t: SuperType, dt: DataType): Nothing =
    throw BsupErrors.cannotWriteType("RECURSIVE", c.column, t, dt)

  private def getText(g: SpecializedGetters, i: Int): String = g.getUTF8String(i).toString

  private final val NanosPerDay = 86400000000000L

  /**
   * Spark's days or microseconds (`unit` nanoseconds each) since the epoch as a Super `time`
   * (int64 nanoseconds: 1677-09-21 to 2262-04-11); a value outside fails the write. The day
   * or microsecond that holds the range's first nanosecond (it starts before it; the reader
   * floors that nanosecond to it) is written as that nanosecond.
   */
  private def timeNanos(v: Long, unit: Long, column: String, dt: DataType): Long =
    if (v == Math.floorDiv(Long.MinValue, unit)) Long.MinValue
    else try Math.multiplyExact(v, unit) catch {
      case _: ArithmeticException =>
        val text = if (unit == NanosPerDay) java.time.LocalDate.ofEpochDay(v).toString
          else java.time.Instant.EPOCH.plus(v, java.time.temporal.ChronoUnit.MICROS).toString
        throw BsupErrors.valueOutOfRange(column, text, SuperType.time, dt,
          s"${java.time.Instant.ofEpochSecond(0, Long.MinValue)} to ${java.time.Instant.ofEpochSecond(0, Long.MaxValue)}")
    }

  def compile(t: SuperType, dt: DataType, version: Int): FieldWriter = compile(t, dt, WriteConf(version))

  def compile(t: SuperType, dt: DataType, c: WriteConf): FieldWriter = t match {
    case _ if t.isRecursive => recursiveUnsupported(c, t, dt)
    case _: RecursiveRef => recursiveUnsupported(c, t, dt)
    case SuperTypes.NamedDecimal(d) if dt == d => namedDecimal(t, d, c)
    case NamedType(_, inner) => compile(inner, dt, c)
    // An error value is encoded exactly as its underlying value.
    case ErrorType(inner) => compile(inner, dt, c)
    case r: RecordType => dt match {
      case st: StructType => new StructWriter(r, st, c)
      case _ => mismatch(c, t, dt)
    }
    case ArrayType(e) => dt match {
      case SArrayType(et, _) => new ArrayWriter(compile(e, et, c.element), sorted = false, c.nulls(t, dt))
      case _ => mismatch(c, t, dt)
    }
    case SetType(e) => dt match {
      case SArrayType(et, _) => new ArrayWriter(compile(e, et, c.element), sorted = true, c.nulls(t, dt))
      case _ => mismatch(c, t, dt)
    }
    case MapType(k, v) => dt match {
      case SMapType(kt, vt, _) => new MapWriter(compile(k, kt, c.mapKey), compile(v, vt, c.mapValue), c.nulls(t, dt))
      case _ => mismatch(c, t, dt)
    }
    case u: UnionType => dt match {
      case st: StructType if SparkReaders.isUnionStruct(st) && SuperTypes.unionFieldMembers(u, st).isDefined =>
        new UnionWriter(u, st, SuperTypes.unionFieldMembers(u, st).get, c)
      // `T|null` (or `T|none`) of a plain Spark column: a null is the null member, a value the
      // other. The writer of `T` wraps its values itself; one that cannot (of a union or a null
      // type) is wrapped by an OptionWriter.
      case _ if SuperTypes.optionOf(u).isDefined =>
        val m = SuperTypes.optionOf(u).get
        compile(m, dt, c.optional(u)) match {
          case w: NonNull => w
          case _ => new OptionWriter(c.optional(u).nulls(m, dt), compile(m, dt, c.member))
        }
      case _ => mismatch(c, t, dt)
    }
    case EnumType(symbols) =>
      val index = symbols.zipWithIndex.toMap
      new NonNull(c.nulls(t, dt)) {
        def put(g: SpecializedGetters, i: Int, out: ByteBuf): Unit = {
          val s = getText(g, i)
          val idx = index.getOrElse(s, throw BsupErrors.invalidValue(c.column, s"'$s'", s"a symbol of $t", t, dt))
          out.putUvarint(Varint.countedSize(idx.toLong) + 1); Varint.putCounted(out, idx.toLong)
        }
      }
    case FusionType(_) => throw BsupErrors.cannotWriteType("FUSION", c.column, t, dt)
    case p: PrimitiveType => primitive(p.id, dt, c)
  }

  /**
   * A Spark decimal as a named decimal type: SuperDB's named float64 (each value must come back
   * from its float64 exactly, by [[SuperTypes.NamedDecimal.fromDouble]], else the write fails)
   * or the exact decimal text.
   */
  private def namedDecimal(t: SuperType, d: DecimalType, c: WriteConf): FieldWriter = {
    val nulls = c.nulls(t, d)
    if (t.underlying == SuperType.float64) new NonNull(nulls) {
      def put(g: SpecializedGetters, i: Int, out: ByteBuf): Unit = {
        val v = g.getDecimal(i, d.precision, d.scale)
        val x = v.toDouble
        if (SuperTypes.NamedDecimal.fromDouble(x, d) != v) throw BsupErrors.decimalNotExact(c.column, v, t, d)
        ValueCodec.encodePrimitive(SuperType.Float64, x, out)
      }
    } else new NonNull(nulls) {
      def put(g: SpecializedGetters, i: Int, out: ByteBuf): Unit = {
        val v = g.getDecimal(i, d.precision, d.scale).toJavaBigDecimal
        putBody(out, v.toPlainString.getBytes(StandardCharsets.UTF_8))
      }
    }
  }

  private def primitive(id: Int, dt: DataType, c: WriteConf): FieldWriter = {
    val version = c.version
    val t = SuperType.primitive(id)
    val nulls = c.nulls(t, dt)
    id match {
      case SuperType.Int8 | SuperType.Int16 | SuperType.Int32 | SuperType.Int64 =>
        if (!integral(dt)) mismatch(c, t, dt)
        val (lo, hi) = (ValueCodec.signedMin(id), ValueCodec.signedMax(id))
        // The common getters chosen once, not per value.
        val width = dt match {
          case IntegerType | DateType | _: YearMonthIntervalType => 4
          case LongType | TimestampType | TimestampNTZType | _: DayTimeIntervalType => 8
          case _ => 0
        }
        new NonNull(nulls) {
          def put(g: SpecializedGetters, i: Int, out: ByteBuf): Unit = {
            val v = if (width == 4) g.getInt(i).toLong else if (width == 8) g.getLong(i) else getLong(dt, g, i, c, t)
            if (v < lo || v > hi) throw BsupErrors.valueOutOfRange(c.column, v.toString, t, dt, s"$lo to $hi")
            ValueCodec.putSignedTagged(v, out)
          }
        }
      case SuperType.Uint8 | SuperType.Uint16 | SuperType.Uint32 | SuperType.Uint64 |
           SuperType.Uint128 | SuperType.Uint256 | SuperType.Int128 | SuperType.Int256 =>
        if (!integral(dt) && !dt.isInstanceOf[StringType]) mismatch(c, t, dt)
        val (lo, hi) = ValueCodec.bigIntRange(id)
        new NonNull(nulls) {
          def put(g: SpecializedGetters, i: Int, out: ByteBuf): Unit = {
            val b = getBig(dt, g, i, c, t)
            if (b.compareTo(lo) < 0 || b.compareTo(hi) > 0) throw BsupErrors.valueOutOfRange(c.column, b.toString, t, dt, s"$lo to $hi")
            ValueCodec.encodePrimitive(id, BigInt(b), out)
          }
        }
      // Times and durations: signed 64-bit counted integers, written unboxed.
      case SuperType.Time => dt match {
        case DateType => new NonNull(nulls) {
          def put(g: SpecializedGetters, i: Int, out: ByteBuf): Unit =
            ValueCodec.putSignedTagged(timeNanos(g.getInt(i).toLong, NanosPerDay, c.column, dt), out)
        }
        case TimestampType | TimestampNTZType => new NonNull(nulls) {
          def put(g: SpecializedGetters, i: Int, out: ByteBuf): Unit =
            ValueCodec.putSignedTagged(timeNanos(g.getLong(i), 1000L, c.column, dt), out)
        }
        case LongType => new NonNull(nulls) {
          def put(g: SpecializedGetters, i: Int, out: ByteBuf): Unit = ValueCodec.putSignedTagged(g.getLong(i), out)
        }
        case _ => mismatch(c, t, dt)
      }
      case SuperType.Duration => dt match {
        case _: DayTimeIntervalType => new NonNull(nulls) {
          def put(g: SpecializedGetters, i: Int, out: ByteBuf): Unit = {
            val micros = g.getLong(i)
            val nanos = try Math.multiplyExact(micros, 1000L) catch {
              case _: ArithmeticException => throw BsupErrors.valueOutOfRange(c.column, java.time.Duration.ofNanos(0)
                .plus(micros, java.time.temporal.ChronoUnit.MICROS).toString, SuperType.primitive(SuperType.Duration), dt,
                s"${java.time.Duration.ofNanos(Long.MinValue)} to ${java.time.Duration.ofNanos(Long.MaxValue)}")
            }
            ValueCodec.putSignedTagged(nanos, out)
          }
        }
        case _ if integral(dt) => new NonNull(nulls) {
          def put(g: SpecializedGetters, i: Int, out: ByteBuf): Unit = ValueCodec.putSignedTagged(getLong(dt, g, i, c, t), out)
        }
        case _ => mismatch(c, t, dt)
      }
      case SuperType.Float64 if dt == DoubleType => new NonNull(nulls) {
        def put(g: SpecializedGetters, i: Int, out: ByteBuf): Unit = ValueCodec.putFloat64Tagged(g.getDouble(i), out)
      }
      case SuperType.Float16 | SuperType.Float32 | SuperType.Float64 | SuperType.Float128 | SuperType.Float256 =>
        if (!numeric(dt)) mismatch(c, t, dt)
        new NonNull(nulls) {
          def put(g: SpecializedGetters, i: Int, out: ByteBuf): Unit = ValueCodec.encodePrimitive(id, getDouble(dt, g, i, c, t), out)
        }
      case SuperType.Decimal32 | SuperType.Decimal64 | SuperType.Decimal128 | SuperType.Decimal256 =>
        if (!numeric(dt) && !dt.isInstanceOf[StringType]) mismatch(c, t, dt)
        new NonNull(nulls) {
          def put(g: SpecializedGetters, i: Int, out: ByteBuf): Unit = {
            val bd = dt match {
              case d: DecimalType => g.getDecimal(i, d.precision, d.scale).toJavaBigDecimal
              case _: StringType =>
                val s = getText(g, i)
                try new java.math.BigDecimal(s.trim) catch {
                  case _: NumberFormatException => throw BsupErrors.invalidValue(c.column, s"'$s'", "a decimal number", t, dt)
                }
              case other => java.math.BigDecimal.valueOf(getDouble(other, g, i, c, t))
            }
            ValueCodec.encodePrimitive(id, bd, out)
          }
        }
      case SuperType.Bool | SuperType.Bytes if dt != (if (id == SuperType.Bool) BooleanType else BinaryType) =>
        mismatch(c, t, dt)
      case SuperType.Bool => new NonNull(nulls) {
        def put(g: SpecializedGetters, i: Int, out: ByteBuf): Unit = { out.put(2); out.put(if (g.getBoolean(i)) 1 else 0) }
      }
      case SuperType.Bytes => new NonNull(nulls) {
        def put(g: SpecializedGetters, i: Int, out: ByteBuf): Unit = putBody(out, g.getBinary(i))
      }
      case SuperType.String => dt match {
        case _: StringType => new NonNull(nulls) {
          def put(g: SpecializedGetters, i: Int, out: ByteBuf): Unit = {
            val s = g.getUTF8String(i)
            val n = s.numBytes()
            out.putUvarint(n + 1L)
            out.ensure(n)
            s.writeToMemory(out.bytes, org.apache.spark.unsafe.Platform.BYTE_ARRAY_OFFSET + out.size)
            out.size += n
          }
        }
        case VariantType => new NonNull(nulls) {
          def put(g: SpecializedGetters, i: Int, out: ByteBuf): Unit =
            putBody(out, g.getVariant(i).toJson(java.time.ZoneOffset.UTC).getBytes(StandardCharsets.UTF_8))
        }
        case other => new NonNull(nulls) {
          def put(g: SpecializedGetters, i: Int, out: ByteBuf): Unit =
            putBody(out, String.valueOf(g.get(i, other)).getBytes(StandardCharsets.UTF_8))
        }
      }
      case SuperType.Ip => new NonNull(nulls) {
        def put(g: SpecializedGetters, i: Int, out: ByteBuf): Unit = {
          val s = getText(g, i)
          putBody(out, ValueText.parseIp(s).getOrElse(throw BsupErrors.invalidValue(c.column, s"'$s'", "an IP address", t, dt)))
        }
      }
      case SuperType.Net => new NonNull(nulls) {
        def put(g: SpecializedGetters, i: Int, out: ByteBuf): Unit = {
          val s = getText(g, i)
          putBody(out, ValueText.parseNet(s).getOrElse(throw BsupErrors.invalidValue(c.column, s"'$s'", "an IP network", t, dt)))
        }
      }
      case SuperType.Type => new NonNull(nulls) {
        def put(g: SpecializedGetters, i: Int, out: ByteBuf): Unit = {
          val s = getText(g, i)
          val typ = try SuperType.parse(s) catch { // the type parser's error: the text is not a type
            case _: IllegalArgumentException => throw BsupErrors.invalidValue(c.column, s"'$s'", "a Super type's text", t, dt)
          }
          putBody(out, TypeValues.encode(typ, version))
        }
      }
      case SuperType.Null | SuperType.NoneId => new FieldWriter {
        def write(g: SpecializedGetters, i: Int, out: ByteBuf): Unit = out.put(0)
      }
    }
  }

  final class StructWriter(t: RecordType, st: StructType, c: WriteConf) extends NonNull(c.nulls(t, st)) {
    if (t.fields.size != st.length) mismatch(c, t, st)
    private val writers = t.fields.zip(st.fields).map { case (f, sf) => compile(f.typ, sf.dataType, c.field(f.name)) }.toArray
    private val n = writers.length

    def put(g: SpecializedGetters, i: Int, out: ByteBuf): Unit = writeStruct(g.getStruct(i, n), out)

    def writeStruct(row: SpecializedGetters, out: ByteBuf): Unit = {
      val start = ValueCodec.beginContainer(out)
      var j = 0
      while (j < n) { writers(j).write(row, j, out); j += 1 }
      ValueCodec.endContainer(out, start)
    }
  }

  final class ArrayWriter(elem: FieldWriter, sorted: Boolean, slot: Slot) extends NonNull(slot) {
    def put(g: SpecializedGetters, i: Int, out: ByteBuf): Unit = {
      val a = g.getArray(i)
      val n = a.numElements()
      val start = ValueCodec.beginContainer(out)
      if (!sorted) {
        var j = 0
        while (j < n) { elem.write(a, j, out); j += 1 }
      } else {
        val tmp = new ByteBuf(64)
        val elems = (0 until n).map { j => tmp.clear(); elem.write(a, j, tmp); tmp.toArray }
        ValueCodec.sortedEncoded(elems).foreach(out.put)
      }
      ValueCodec.endContainer(out, start)
    }
  }

  final class MapWriter(key: FieldWriter, value: FieldWriter, slot: Slot) extends NonNull(slot) {
    def put(g: SpecializedGetters, i: Int, out: ByteBuf): Unit = {
      val m = g.getMap(i)
      val ks = m.keyArray(); val vs = m.valueArray()
      val tmp = new ByteBuf(64)
      val entries = (0 until m.numElements()).map { j =>
        tmp.clear(); key.write(ks, j, tmp); val k = tmp.toArray
        tmp.clear(); value.write(vs, j, tmp); (k, tmp.toArray)
      }.sortWith((a, b) => java.util.Arrays.compareUnsigned(a._1, b._1) < 0)
      val start = ValueCodec.beginContainer(out)
      var prev: Array[Byte] = null
      entries.foreach { case (k, v) =>
        if (prev == null || !java.util.Arrays.equals(prev, k)) { out.put(k); out.put(v) }
        prev = k
      }
      ValueCodec.endContainer(out, start)
    }
  }

  /**
   * A union struct: `selector` names the member field (else the first non-null member field is
   * used); `memberOf(j)` is the union member that field `j + 1` holds ([[SuperTypes.unionFieldMembers]]:
   * the union's members may be in another order, SuperDB's, and may include a `null` the struct
   * has no field for). A null struct (or one with no member set) is the union's `null` member
   * when it has one (version 5: the writer gives every nullable union slot one), else the slot's
   * null (a typed null, or an error at version 5).
   */
  final class UnionWriter(u: UnionType, st: StructType, memberOf: IndexedSeq[Int], c: WriteConf) extends FieldWriter {
    private val version = c.version
    private val fieldCount = st.length - 1
    private val members = Array.tabulate(fieldCount)(j => compile(u.types(memberOf(j)), st.fields(j + 1).dataType, c.member))
    private val selectors = Array.tabulate(fieldCount)(j => ValueCodec.selectorElement(memberOf(j), version))
    private val n = st.length
    private val nulls = c.nulls(u, st)
    private val nullValue: Array[Byte] = u.types.indexWhere(SuperTypes.isNullMember) match {
      case k if k < 0 => null
      case k =>
        val b = new ByteBuf(8)
        val start = ValueCodec.beginContainer(b)
        b.put(ValueCodec.selectorElement(k, version)); b.put(0)
        ValueCodec.endContainer(b, start)
        b.toArray
    }

    private def putNull(out: ByteBuf): Unit = if (nullValue != null) out.put(nullValue) else nulls.putNull(out)

    def write(g: SpecializedGetters, i: Int, out: ByteBuf): Unit =
      if (g.isNullAt(i)) putNull(out)
      else {
        val row = g.getStruct(i, n)
        var sel = if (row.isNullAt(0)) -1 else row.getInt(0)
        if (sel < 0) {
          var j = 1
          while (j < n && sel < 0) { if (!row.isNullAt(j)) sel = j - 1; j += 1 }
        }
        if (sel < 0) putNull(out)
        else {
          if (sel >= fieldCount) {
            throw BsupErrors.invalidValue(c.column, s"the selector $sel", s"a member's selector (0 to ${fieldCount - 1})", u, st)
          }
          val start = ValueCodec.beginContainer(out)
          out.put(selectors(sel))
          members(sel).write(row, sel + 1, out)
          ValueCodec.endContainer(out, start)
        }
      }
  }

  /**
   * `T|null` (or `T|none`) around a writer of `T` that cannot wrap its values itself (of a
   * union or a null type): a null is the union's null member, any other value its member.
   */
  final class OptionWriter(slot: Slot, member: FieldWriter) extends FieldWriter {
    def write(g: SpecializedGetters, i: Int, out: ByteBuf): Unit =
      if (g.isNullAt(i)) slot.putNull(out)
      else { val start = slot.begin(out); member.write(g, i, out); ValueCodec.endContainer(out, start) }
  }
}
