package io.superspark.bsup.spark

import io.superspark.bsup._
import org.apache.spark.sql.types.{ArrayType => SArrayType, MapType => SMapType, _}

/**
 * The one mapping between Super types and Spark SQL types, used by the `bsup` data source,
 * the SQL functions and the Arrow layer. The table (also in docs/bsup.md):
 *
 * | Super                           | Spark                                                   |
 * |---------------------------------|---------------------------------------------------------|
 * | int8, int16, int32, int64       | byte, short, int, long                                  |
 * | uint8, uint16, uint32           | short, int, long (next wider signed)                    |
 * | uint64                          | decimal(20,0)                                           |
 * | int128, uint128                 | decimal(38,0) (values beyond 38 digits: corrupt)        |
 * | int256, uint256                 | string (decimal text)                                   |
 * | float16, float32                | float                                                   |
 * | float64, float128, float256     | double (float128/256 rounded)                           |
 * | decimal32..decimal256           | string (exact decimal text)                             |
 * | bool, bytes, string             | boolean, binary, string                                 |
 * | time                            | timestamp (µs), or long ns with `timeAsLong`            |
 * | duration                        | long ns, or interval day to second with `durationAsInterval` |
 * | ip, net                         | string (`10.0.0.1`, `10.0.0.0/8`)                       |
 * | type                            | string (Super type syntax)                              |
 * | null                            | void (NullType)                                         |
 * | enum                            | string (the symbol)                                     |
 * | error(T)                        | T's mapping                                             |
 * | record                          | struct                                                  |
 * | array, set                      | array                                                   |
 * | map                             | map                                                     |
 * | union(T1..Tn)                   | struct<selector:int, `T1`:..., ..., `Tn`:...>           |
 * | deciaml_S_P=float64 (SuperDB), decimal_P_S=string (ours) | decimal(P,S)              |
 * | named N=T                       | T's mapping                                             |
 * | T|null, T|none (option, v5)     | T's mapping, nullable                                   |
 * | none                            | null                                                    |
 * | fusion(all) (type any, v5)      | variant                                                 |
 * | fusion(T)                       | T's mapping (the subtype is dropped)                    |
 * | recursive N=T (v4+: T refers to N) | variant (records objects, arrays arrays, ...)        |
 *
 * Each column produced from a Super type carries that type, in Super type syntax, in its
 * field metadata under [[MetadataKey]]; [[superTypeOf]] reads it back so that writing the
 * column restores the exact Super type (uint64 stays uint64, ip stays ip, names stay).
 */
private[superspark] object SuperTypes {
  /** Field metadata key holding the column's Super type in Super type syntax. */
  final val MetadataKey = "super.type"

  /** Name of the union struct's field holding the member index. */
  final val UnionSelector = "selector"

  /** Name of the column that holds a top-level value that is not a record. */
  final val ValueColumn = "value"

  final case class Options(timeAsLong: Boolean = false, durationAsInterval: Boolean = false)

  val DefaultOptions: Options = Options()

  /** The Spark type of values of `t`. */
  def toSpark(t: SuperType, opts: Options = DefaultOptions): DataType = t match {
    case p: PrimitiveType => primitiveToSpark(p.id, opts)
    case NamedDecimal(d) => d
    // A recursive type (its definition refers back to its name) nests without a bound that a
    // Spark type could follow: its values are VARIANTs, the metadata keeps the Super type.
    case n: NamedType if n.refersToItself => VariantType
    case _: RecursiveRef => VariantType
    case NamedType(_, inner) => toSpark(inner, opts)
    case ErrorType(inner) => toSpark(inner, opts)
    case RecordType(fields) =>
      StructType(fields.map(f => StructField(f.name, toSpark(f.typ, opts), nullable = true)))
    case ArrayType(e) => SArrayType(toSpark(e, opts), containsNull = true)
    case SetType(e) => SArrayType(toSpark(e, opts), containsNull = true)
    case MapType(k, v) => SMapType(toSpark(k, opts), toSpark(v, opts), valueContainsNull = true)
    case u: UnionType => optionOf(u) match {
      case Some(t) => toSpark(t, opts)
      case None => unionStruct(u, opts)
    }
    case _: EnumType => StringType
    case FusionType(SuperType.all) => VariantType
    case FusionType(inner) => toSpark(inner, opts)
  }

  /**
   * The one member of a union whose other members are `null` or `none` (`T|null`, or an option
   * type `T|none` of version 5): such a union maps to a nullable `T` column, not a union struct.
   */
  def optionOf(u: UnionType): Option[SuperType] = {
    val rest = u.types.filter(m => m != SuperType.nullType && m != SuperType.none)
    if (rest.size == 1 && rest.size < u.types.size) Some(rest.head) else None
  }

  /**
   * The union struct of a multi-type union: the selector, then one field per member. The
   * `null` and `none` members get no field (a union that holds a null, such as SuperDB's
   * `int64|string|null` or our version 5 writer's `null|{a:int64}|[int64]`, is a nullable union
   * struct: its null member reads as a null struct), so the selector counts the other members.
   */
  def unionStruct(u: UnionType, opts: Options = DefaultOptions): StructType =
    StructType(StructField(UnionSelector, IntegerType, nullable = true) +:
      valueMembers(u).map(m => StructField(unionMemberName(m), toSpark(m, opts), nullable = true)))

  /** The members of `u` other than `null` and `none`, in the union's order. */
  def valueMembers(u: UnionType): IndexedSeq[SuperType] = u.types.filter(m => !isNullMember(m))

  /** True for the members that hold only a null: `null` and `none`. */
  def isNullMember(m: SuperType): Boolean = m == SuperType.nullType || m == SuperType.none

  /**
   * `t` with every option union (`T|null`, `T|none`) replaced by its `T` and every other union
   * without its null member, in SuperDB's order, at every depth: the type a union member had
   * before the version 5 writer gave its nullable slots a null member (up to member order).
   * Union struct fields are matched to union members by it (a member `{a:int64}` written as
   * `{a:int64|null}` is still the field `{a:int64}`).
   */
  def withoutNullUnions(t: SuperType): SuperType = t match {
    // Multi-type unions: without their null member and in SuperDB's order (the version 5 writer
    // adds the one and sorts by the other), so a member matches whatever order it was written in.
    case u: UnionType => optionOf(u) match {
      case Some(m) => withoutNullUnions(m)
      case None => superdbUnion(u.types.filterNot(isNullMember).map(withoutNullUnions))
    }
    case RecordType(fs) => RecordType(fs.map(f => Field(f.name, withoutNullUnions(f.typ))))
    case io.superspark.bsup.ArrayType(e) => io.superspark.bsup.ArrayType(withoutNullUnions(e))
    case SetType(e) => SetType(withoutNullUnions(e))
    case io.superspark.bsup.MapType(k, v) => io.superspark.bsup.MapType(withoutNullUnions(k), withoutNullUnions(v))
    case n: NamedType if !n.isRecursive => NamedType(n.name, withoutNullUnions(n.inner))
    case ErrorType(e) => ErrorType(withoutNullUnions(e))
    case other => other
  }

  /** The name of a union member's field in the union struct: the member type's text. */
  def unionMemberName(member: SuperType): String = member.toString

  def primitiveToSpark(id: Int, opts: Options = DefaultOptions): DataType = id match {
    case SuperType.Int8 => ByteType
    case SuperType.Int16 | SuperType.Uint8 => ShortType
    case SuperType.Int32 | SuperType.Uint16 => IntegerType
    case SuperType.Int64 | SuperType.Uint32 => LongType
    case SuperType.Uint64 => DecimalType(20, 0)
    case SuperType.Int128 | SuperType.Uint128 => DecimalType(38, 0)
    case SuperType.Int256 | SuperType.Uint256 => StringType
    case SuperType.Float16 | SuperType.Float32 => FloatType
    case SuperType.Float64 | SuperType.Float128 | SuperType.Float256 => DoubleType
    case SuperType.Decimal32 | SuperType.Decimal64 | SuperType.Decimal128 | SuperType.Decimal256 => StringType
    case SuperType.Bool => BooleanType
    case SuperType.Bytes => BinaryType
    case SuperType.String | SuperType.Ip | SuperType.Net | SuperType.Type => StringType
    case SuperType.Time => if (opts.timeAsLong) LongType else TimestampType
    case SuperType.Duration => if (opts.durationAsInterval) DayTimeIntervalType() else LongType
    case SuperType.Null | SuperType.NoneId => NullType
    case SuperType.AllId => VariantType
  }

  /** Field metadata key holding the Super Binary version the column was read from (absent: 0). */
  final val VersionKey = "super.version"

  /** `schema` with every top-level column marked as read from Super Binary version `v`. */
  def withVersion(schema: StructType, v: Int): StructType = StructType(schema.fields.map(f =>
    f.copy(metadata = new MetadataBuilder().withMetadata(f.metadata).putLong(VersionKey, v.toLong).build())))

  /** The version all columns of `schema` were read from, when they agree and one is kept. */
  def versionOf(schema: StructType): Option[Int] = {
    val vs = schema.fields.map(f => if (f.metadata.contains(VersionKey)) Some(f.metadata.getLong(VersionKey).toInt) else None)
    if (vs.nonEmpty && vs.forall(_ == vs.head)) vs.head else None
  }

  def metadataFor(t: SuperType): Metadata = new MetadataBuilder().putString(MetadataKey, t.toString).build()

  /** A nullable column of Super type `t`, its type kept in the metadata. */
  def toStructField(name: String, t: SuperType, opts: Options = DefaultOptions): StructField =
    StructField(name, toSpark(t, opts), nullable = true, metadataFor(t))

  /** The Spark schema of a stream of values of type `t`: a record's fields, else one `value` column. */
  def toSchema(t: SuperType, opts: Options = DefaultOptions): StructType = t.underlying match {
    case RecordType(fields) => StructType(fields.map(f => toStructField(f.name, f.typ, opts)))
    case _ => StructType(Seq(toStructField(ValueColumn, t, opts)))
  }

  // ------------------------------------------------------------- decimals

  /** How a Spark decimal is written (the `decimalAs` write option); see docs/bsup.md. */
  sealed abstract class DecimalForm(val name: String)
  object DecimalForm {
    /** SuperDB's convention: the named float64 `deciaml_<scale>_<precision>` (sic); exact values only. */
    case object Float64 extends DecimalForm("float64")
    /** The named string `decimal_<precision>_<scale>` holding the exact decimal text. */
    case object Text extends DecimalForm("string")
    /** The spec's decimal128 / decimal256 (SuperDB implements neither). */
    case object Spec extends DecimalForm("spec")
    val all: Seq[DecimalForm] = Seq(Float64, Text, Spec)
  }

  /**
   * The named types that carry a Spark decimal's precision and scale: SuperDB's
   * `deciaml_<s>_<p>=float64` (the name as SuperDB spells it, scale first) and our exact form
   * `decimal_<p>_<s>=string`. `unapply` gives the Spark decimal type a named type stands for.
   */
  object NamedDecimal {
    private val SuperdbName = "deciaml_([0-9]{1,2})_([0-9]{1,2})".r
    private val TextName = "decimal_([0-9]{1,2})_([0-9]{1,2})".r

    def apply(d: DecimalType, form: DecimalForm): SuperType = form match {
      case DecimalForm.Float64 => NamedType(s"deciaml_${d.scale}_${d.precision}", SuperType.float64)
      case DecimalForm.Text => NamedType(s"decimal_${d.precision}_${d.scale}", SuperType.string)
      case DecimalForm.Spec =>
        SuperType.primitive(if (d.precision <= 34) SuperType.Decimal128 else SuperType.Decimal256)
    }

    def unapply(t: SuperType): Option[DecimalType] = t match {
      case NamedType(SuperdbName(s, p), inner) if inner == SuperType.float64 => decimal(p.toInt, s.toInt)
      case NamedType(TextName(p, s), inner) if inner == SuperType.string => decimal(p.toInt, s.toInt)
      case _ => None
    }

    /**
     * The decimal a float64 of a named decimal stands for: its exact binary value rounded half up
     * to the scale (SuperDB writes 1.2345 of decimal(18,4) as 1.2345000000000002). Null when it is
     * not finite or does not fit. Every decimal of up to 15 digits comes back exactly from its
     * nearest float64; the writer checks each value against this function.
     */
    def fromDouble(x: Double, d: DecimalType): Decimal =
      if (java.lang.Double.isNaN(x) || java.lang.Double.isInfinite(x)) null
      else {
        val v = Decimal(new java.math.BigDecimal(x).setScale(d.scale, java.math.RoundingMode.HALF_UP))
        if (v.changePrecision(d.precision, d.scale)) v else null
      }

    private def decimal(p: Int, s: Int): Option[DecimalType] =
      if (p >= 1 && p <= DecimalType.MAX_PRECISION && s <= p) Some(DecimalType(p, s)) else None
  }

  // ------------------------------------------------------------- nulls as unions (version 5)

  /** True when `t` holds a null without a typed null: the type `null` or a union with `null` or `none`. */
  def holdsNull(t: SuperType): Boolean = t.underlying match {
    case p: PrimitiveType => p.id == SuperType.Null || p.id == SuperType.NoneId
    case UnionType(ts) => ts.exists(m => m == SuperType.nullType || m == SuperType.none)
    case _ => false
  }

  /**
   * `t|null` with its members in SuperDB's order: `null` after a primitive type (or a name of
   * one, e.g. `deciaml_4_18|null`), before a complex type (`null|[int64|null]`), as SuperDB's
   * version 5 writer orders them (see `spark_like` in ../shared/interop/superdb). A union gets
   * `null` as one more member (a union cannot be a union's member): `uint32|uint64|null`.
   */
  def orNull(t: SuperType): UnionType = t match {
    case UnionType(ms) => superdbUnion(if (ms.exists(isNullMember)) ms else ms :+ SuperType.nullType)
    case _ => superdbUnion(IndexedSeq(t, SuperType.nullType))
  }

  /**
   * The members in SuperDB's canonical order. SuperDB sorts a union's members whenever it makes
   * or reads a union type (its type context's union lookup sorts them, stably), and a union
   * value's selector indexes that sorted list: a union written in another order is read by
   * SuperDB with its selectors pointing at the wrong members. The order (`CompareTypes` in
   * SuperDB's `type.go`, restated here): named types first (by name); then by kind, primitive <
   * record < array < set < map < union < enum < error < fusion; primitives by id (so `null`, 29,
   * comes after the other primitives of Spark's types and before every complex type); records
   * by field count, then field names, then field types; arrays and sets by element; maps by key
   * then value; unions by member count then members; enums by symbol count then symbols; errors
   * by their type. Checked against SuperDB's `spark_like` (`int64|null`, `deciaml_4_18|null`,
   * `null|[int64|null]`) and `unions` (`{a:int64}|[int64]`) files.
   */
  def superdbUnion(members: IndexedSeq[SuperType]): UnionType =
    UnionType(members.sortWith((a, b) => compareSuperdb(a, b) < 0))

  /** SuperDB's order of types (see [[superdbUnion]]); java.util's stable sort keeps ties in place. */
  def compareSuperdb(a: SuperType, b: SuperType): Int = {
    def named(t: SuperType): Option[String] = t match {
      case n: NamedType => Some(n.name)
      case r: RecursiveRef => Some(r.name)
      case _ => None
    }
    def kind(t: SuperType): Int = t match {
      case _: PrimitiveType => 0
      case _: RecordType => 1
      case _: io.superspark.bsup.ArrayType => 2
      case _: SetType => 3
      case _: io.superspark.bsup.MapType => 4
      case _: UnionType => 5
      case _: EnumType => 6
      case _: ErrorType => 7
      case _ => 8
    }
    def seq(xs: IndexedSeq[SuperType], ys: IndexedSeq[SuperType]): Int =
      if (xs.size != ys.size) Integer.compare(xs.size, ys.size)
      else xs.iterator.zip(ys.iterator).map { case (x, y) => compareSuperdb(x, y) }.find(_ != 0).getOrElse(0)
    if (a == b) 0
    else (named(a), named(b)) match {
      case (Some(x), Some(y)) => x.compareTo(y)
      case (Some(_), None) => -1
      case (None, Some(_)) => 1
      case _ =>
        val k = Integer.compare(kind(a), kind(b))
        if (k != 0) k
        else (a, b) match {
          case (p: PrimitiveType, q: PrimitiveType) => Integer.compare(p.id, q.id)
          case (RecordType(fa), RecordType(fb)) =>
            if (fa.size != fb.size) Integer.compare(fa.size, fb.size)
            else fa.iterator.zip(fb.iterator).map { case (x, y) => x.name.compareTo(y.name) }.find(_ != 0)
              .getOrElse(seq(fa.map(_.typ), fb.map(_.typ)))
          case (io.superspark.bsup.ArrayType(x), io.superspark.bsup.ArrayType(y)) => compareSuperdb(x, y)
          case (SetType(x), SetType(y)) => compareSuperdb(x, y)
          case (io.superspark.bsup.MapType(k1, v1), io.superspark.bsup.MapType(k2, v2)) =>
            val c = compareSuperdb(k1, k2); if (c != 0) c else compareSuperdb(v1, v2)
          case (UnionType(x), UnionType(y)) => seq(x, y)
          case (EnumType(x), EnumType(y)) =>
            if (x.size != y.size) Integer.compare(x.size, y.size)
            else x.iterator.zip(y.iterator).map { case (p, q) => p.compareTo(q) }.find(_ != 0).getOrElse(0)
          case (ErrorType(x), ErrorType(y)) => compareSuperdb(x, y)
          case _ => 0
        }
    }
  }

  /**
   * The type version 5 writes for values of Spark type `dt` kept as `t`: every nullable slot
   * (the column itself, struct fields, array elements, map values) whose type cannot hold a
   * null becomes `t|null`, at every depth, as SuperDB writes a nullable table. A map key is
   * never null (its fields may be); a union (Spark union struct) gets no null member (its selectors would change),
   * but the slots inside its members do.
   */
  def withNullUnions(t: SuperType, dt: DataType, nullable: Boolean): SuperType = {
    val inner = (t, dt) match {
      // A name has one type in a version 5 stream, wherever it is used: its slots all get a
      // null member, whatever the Spark nullability where it appears (a value without nulls
      // fits either way).
      case (NamedType(n, it), _) if !t.isRecursive =>
        val w = nullableSlots(it)
        if (w == it) t else NamedType(n, w)
      case (RecordType(fs), st: StructType) if fs.size == st.length =>
        RecordType(fs.zip(st.fields).map { case (f, sf) => Field(f.name, withNullUnions(f.typ, sf.dataType, sf.nullable)) })
      case (io.superspark.bsup.ArrayType(e), SArrayType(et, cn)) => io.superspark.bsup.ArrayType(withNullUnions(e, et, cn))
      case (SetType(e), SArrayType(et, cn)) => SetType(withNullUnions(e, et, cn))
      // A key is never null (its own slots may be).
      case (io.superspark.bsup.MapType(k, v), SMapType(kt, vt, vn)) =>
        io.superspark.bsup.MapType(withNullUnions(k, kt, nullable = false), withNullUnions(v, vt, vn))
      // A union struct (a multi-type union): each member's own slots (a member is never null
      // when it is selected), a `null` member when the slot is nullable, and the members in
      // SuperDB's order (which sorts them on read: see [[superdbUnion]]). The union writer maps
      // the struct's fields to these members by [[unionFieldMembers]].
      case (u @ UnionType(ms), st: StructType) if isUnionStruct(st) && unionFieldMembers(u, st).isDefined =>
        val fieldOf = unionFieldMembers(u, st).get
        val written = ms.indices.map { k =>
          val j = fieldOf.indexOf(k)
          if (j >= 0) withNullUnions(ms(k), st.fields(j + 1).dataType, nullable = false) else nullableSlots(ms(k))
        }
        val withNull = if (nullable && !written.exists(isNullMember)) written :+ SuperType.nullType else written
        return superdbUnion(withNull)
      // `T|null` of a plain Spark column: T's own slots.
      case (u: UnionType, _) if optionOf(u).isDefined =>
        val m = optionOf(u).get
        UnionType(u.types.map(x => if (x eq m) withNullUnions(m, dt, nullable = false) else x))
      case _ => t
    }
    if (nullable && !holdsNull(inner) && !inner.isInstanceOf[UnionType]) orNull(inner) else inner
  }

  /**
   * `t` with a null member in every slot that can hold one (record fields, array and set
   * elements, map values, at every depth): [[withNullUnions]] without a Spark type, for named
   * types (one type per name in a stream) and union members no Spark field holds.
   */
  def nullableSlots(t: SuperType): SuperType = {
    def slot(x: SuperType): SuperType = { val y = nullableSlots(x); if (holdsNull(y)) y else orNull(y) }
    t match {
      case n: NamedType if n.isRecursive => t
      case NamedType(n, it) => NamedType(n, nullableSlots(it))
      case RecordType(fs) => RecordType(fs.map(f => Field(f.name, slot(f.typ))))
      case io.superspark.bsup.ArrayType(e) => io.superspark.bsup.ArrayType(slot(e))
      case SetType(e) => SetType(slot(e))
      case io.superspark.bsup.MapType(k, v) => io.superspark.bsup.MapType(nullableSlots(k), slot(v))
      case UnionType(ms) => superdbUnion(ms.map(nullableSlots).distinct)
      case _ => t
    }
  }

  private def isUnionStruct(st: StructType): Boolean =
    st.nonEmpty && st.fields(0).name == UnionSelector && st.fields(0).dataType == IntegerType

  /**
   * For each member field of the union struct `st` (its fields after the selector), the index of
   * the member of `u` it holds, when every field finds one: by its name (the member's type text),
   * else by the name's type with its option unions removed ([[withoutNullUnions]]: a member whose
   * nullable slots the version 5 writer made unions), else, when the fields are exactly the
   * members (a union struct with a `null` field, or no name found), by position. `None` when
   * the struct does not describe `u`.
   */
  def unionFieldMembers(u: UnionType, st: StructType): Option[IndexedSeq[Int]] = {
    val fields = st.fields.toIndexedSeq.drop(1)
    val stripped = u.types.map(withoutNullUnions)
    val taken = new Array[Boolean](u.types.size)
    val found = fields.map { f =>
      val byName = u.types.indices.find(k => !taken(k) && unionMemberName(u.types(k)) == f.name)
      val k = byName.orElse {
        val parsed = try Some(withoutNullUnions(SuperType.parse(f.name))) catch { case _: IllegalArgumentException => None }
        parsed.flatMap(p => u.types.indices.find(k => !taken(k) && !isNullMember(u.types(k)) && stripped(k) == p))
      }
      k.foreach(taken(_) = true)
      k.getOrElse(-1)
    }
    if (found.forall(_ >= 0)) Some(found)
    else if (fields.size == u.types.size) Some(u.types.indices)
    else if (fields.size == valueMembers(u).size) Some(u.types.indices.filterNot(k => isNullMember(u.types(k))))
    else None
  }

  /**
   * The primitive types that SuperDB (v0.1.0 and the version 5 code) does not implement: it
   * refuses a file holding them. Its Go code has no type for 128- and 256-bit integers,
   * float128/256 or any decimal.
   */
  def superdbLacks(id: Int): Boolean =
    id == SuperType.Uint128 || id == SuperType.Uint256 || id == SuperType.Int128 || id == SuperType.Int256 ||
      id == SuperType.Float128 || id == SuperType.Float256 || (id >= SuperType.Decimal32 && id <= SuperType.Decimal256)

  /** The first type in `t` that SuperDB cannot read, if any. */
  def superdbUnreadable(t: SuperType): Option[SuperType] = {
    val seen = new java.util.IdentityHashMap[SuperType, java.lang.Boolean]()
    def loop(t: SuperType): Option[SuperType] = if (seen.put(t, true) != null) None else t match {
      case p: PrimitiveType => if (superdbLacks(p.id)) Some(p) else None
      case RecordType(fs) => fs.iterator.map(f => loop(f.typ)).collectFirst { case Some(x) => x }
      case io.superspark.bsup.ArrayType(e) => loop(e)
      case SetType(e) => loop(e)
      case io.superspark.bsup.MapType(k, v) => loop(k).orElse(loop(v))
      case UnionType(ts) => ts.iterator.map(loop).collectFirst { case Some(x) => x }
      case ErrorType(e) => loop(e)
      case NamedType(_, e) => loop(e)
      case FusionType(e) => loop(e)
      case _ => None
    }
    loop(t)
  }

  /** The default Super type of a Spark type (the inverse of [[toSpark]] where it is one to one). */
  def fromSpark(dt: DataType, decimals: DecimalForm = DecimalForm.Float64): SuperType = dt match {
    case BooleanType => SuperType.bool
    case ByteType => SuperType.int8
    case ShortType => SuperType.primitive(SuperType.Int16)
    case IntegerType => SuperType.int32
    case LongType => SuperType.int64
    case FloatType => SuperType.float32
    case DoubleType => SuperType.float64
    case d: DecimalType => NamedDecimal(d, decimals)
    case StringType | _: CharType | _: VarcharType => SuperType.string
    case _: StringType => SuperType.string
    case BinaryType => SuperType.bytes
    case DateType | TimestampType | TimestampNTZType => SuperType.time
    case _: DayTimeIntervalType => SuperType.duration
    case _: YearMonthIntervalType => SuperType.int32
    case NullType => SuperType.nullType
    case VariantType => SuperType.string
    case SArrayType(e, _) => io.superspark.bsup.ArrayType(fromSpark(e, decimals))
    case SMapType(k, v, _) => io.superspark.bsup.MapType(fromSpark(k, decimals), fromSpark(v, decimals))
    case s: StructType => RecordType(s.fields.map(f => Field(f.name, superTypeOf(f, decimals = decimals))).toIndexedSeq)
    case other => throw new IllegalArgumentException(s"Spark type ${other.catalogString} has no Super type")
  }

  /**
   * The Super type to write a column as: the one kept in its metadata when that still maps
   * to the column's Spark type, else [[fromSpark]] of the Spark type.
   */
  def superTypeOf(f: StructField, opts: Options = DefaultOptions,
      decimals: DecimalForm = DecimalForm.Float64): SuperType =
    keptType(f).getOrElse(fromSpark(f.dataType, decimals))

  /** The Super type kept in the metadata of `f` when it still maps to the column's Spark type. */
  def keptType(f: StructField): Option[SuperType] = {
    val kept =
      if (f.metadata.contains(MetadataKey)) {
        try Some(SuperType.parse(f.metadata.getString(MetadataKey))) catch { case _: IllegalArgumentException => None }
      } else None
    kept.filter(t => allOptions.exists(o => sameShape(toSpark(t, o), f.dataType)))
  }

  /**
   * The Super type a column is written as at `version`. Version 5 has no typed nulls: each
   * nullable slot becomes a union with `null` ([[withNullUnions]]), also in a type kept in the
   * metadata (a plain `int64` read from SuperDB's data is written back as `int64|null` when the
   * Spark column is nullable, as every inferred column is: values stay, and a null that merging
   * or a join put there is written as SuperDB reads it).
   */
  def writeType(f: StructField, version: Int, decimals: DecimalForm = DecimalForm.Float64): SuperType = {
    val t = superTypeOf(f, decimals = decimals)
    if (version == 0) t else withNullUnions(t, f.dataType, f.nullable)
  }

  private val allOptions = for (a <- Seq(false, true); b <- Seq(false, true)) yield Options(a, b)

  /** Spark types equal up to nullability and metadata. */
  def sameShape(a: DataType, b: DataType): Boolean = (a, b) match {
    case (SArrayType(x, _), SArrayType(y, _)) => sameShape(x, y)
    case (SMapType(k1, v1, _), SMapType(k2, v2, _)) => sameShape(k1, k2) && sameShape(v1, v2)
    case (s1: StructType, s2: StructType) =>
      s1.length == s2.length && s1.fields.zip(s2.fields).forall { case (x, y) =>
        x.name == y.name && sameShape(x.dataType, y.dataType)
      }
    case (_: StringType, _: StringType) => true
    case _ => a == b
  }

  // ------------------------------------------------------------- merging

  private val signedOrder = Seq(SuperType.Int8, SuperType.Int16, SuperType.Int32, SuperType.Int64)

  /** Smallest signed id holding both integer ids (uint64 excluded), if any. */
  private def widenInts(a: Int, b: Int): Option[Int] = {
    def need(id: Int): Int = id match {
      case SuperType.Uint8 => 1
      case SuperType.Uint16 => 2
      case SuperType.Uint32 => 3
      case x if signedOrder.contains(x) => signedOrder.indexOf(x)
      case _ => -1
    }
    val (na, nb) = (need(a), need(b))
    if (na < 0 || nb < 0) None
    else {
      val unsignedBoth = !signedOrder.contains(a) && !signedOrder.contains(b)
      if (unsignedBoth) Some(math.max(a, b)) else Some(signedOrder(math.max(na, nb)))
    }
  }

  private val floats = Set(SuperType.Float16, SuperType.Float32, SuperType.Float64)

  private def members(t: SuperType): IndexedSeq[SuperType] = t match {
    case UnionType(ts) => ts
    case other => IndexedSeq(other)
  }

  /**
   * The type of a column holding values of both `a` and `b`: records merge field by field,
   * containers merge their elements, integers and floats widen, null gives way to anything,
   * and anything else becomes a union of both.
   */
  def merge(a: SuperType, b: SuperType): SuperType = (a, b) match {
    case _ if a == b => a
    case (_: UnionType, _) | (_, _: UnionType) => union(a, b)
    case _ => tryMerge(a, b).getOrElse(union(a, b))
  }

  /** `a` and `b` merged without making a union of them (their parts may become unions). */
  private def tryMerge(a: SuperType, b: SuperType): Option[SuperType] = (a, b) match {
    case _ if a == b => Some(a)
    case (p: PrimitiveType, _) if p.id == SuperType.Null => Some(b)
    case (_, p: PrimitiveType) if p.id == SuperType.Null => Some(a)
    // Recursive types merge only when equal: a merged definition would be neither one. Unequal
    // ones (a name defined otherwise in another stream) meet as type `any`, a VARIANT column that
    // holds both. Records that merely hold them still merge field by field.
    case _ if selfRecursive(a) || selfRecursive(b) => Some(FusionType(SuperType.all))
    case (p: PrimitiveType, q: PrimitiveType) =>
      widenInts(p.id, q.id).map(SuperType.primitive)
        .orElse(if (floats(p.id) && floats(q.id)) Some(SuperType.float64) else None)
    case (RecordType(fa), RecordType(fb)) =>
      val names = (fa.map(_.name) ++ fb.map(_.name)).distinct
      Some(RecordType(names.map { n =>
        (fa.find(_.name == n), fb.find(_.name == n)) match {
          case (Some(x), Some(y)) => Field(n, merge(x.typ, y.typ))
          case (Some(x), None) => x
          case (None, Some(y)) => y
          case _ => throw new IllegalStateException(n)
        }
      }))
    case (io.superspark.bsup.ArrayType(x), io.superspark.bsup.ArrayType(y)) => Some(io.superspark.bsup.ArrayType(merge(x, y)))
    case (SetType(x), SetType(y)) => Some(SetType(merge(x, y)))
    case (io.superspark.bsup.MapType(k1, v1), io.superspark.bsup.MapType(k2, v2)) =>
      Some(io.superspark.bsup.MapType(merge(k1, k2), merge(v1, v2)))
    case (NamedType(n1, x), NamedType(n2, y)) if n1 == n2 => tryMerge(x, y).map(NamedType(n1, _))
    case (NamedType(_, x), _) if x == b => Some(b)
    case (_, NamedType(_, y)) if y == a => Some(a)
    case _ => None
  }

  private def selfRecursive(t: SuperType): Boolean = t match {
    case n: NamedType => n.refersToItself
    case _: RecursiveRef => true
    case _ => false
  }

  private def union(a: SuperType, b: SuperType): SuperType = {
    // Each member of b widens a compatible member of a (ints, floats, records, containers),
    // else it becomes a new member.
    val ms = scala.collection.mutable.ArrayBuffer[SuperType](members(a): _*)
    members(b).filterNot(ms.contains).foreach { x =>
      val i = ms.indexWhere(m => tryMerge(m, x).isDefined)
      if (i >= 0) ms(i) = tryMerge(ms(i), x).get else ms += x
    }
    if (ms.size == 1) ms.head else UnionType(ms.toIndexedSeq)
  }

  /** The index of the member of `u` that holds values of `t` (itself, or one it widens to). */
  def unionMemberFor(u: UnionType, t: SuperType): Int = {
    val exact = u.types.indexOf(t)
    if (exact >= 0) exact
    else {
      val widened = u.types.indexWhere(m => tryMerge(m, t).contains(m))
      // A plain type meets a named one (or a name means another type in another stream):
      // the member with the same underlying type holds it.
      if (widened >= 0) widened else u.types.indexWhere(m => m.underlying == t.underlying)
    }
  }
}
