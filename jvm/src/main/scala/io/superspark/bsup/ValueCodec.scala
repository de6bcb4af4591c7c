package io.superspark.bsup

import java.math.{BigDecimal => JBigDecimal, BigInteger}
import java.net.InetAddress
import java.nio.charset.StandardCharsets
import java.util.Arrays

/**
 * Generic decoding and encoding of tag-encoded values to and from the value model described
 * in `Values.scala`. Decoding validates everything the format requires (sizes, UTF-8, union
 * selectors, enum indexes, set and map order) and never trusts a length before checking it
 * against the bytes that exist.
 */
private[superspark] object ValueCodec {
  /** Max bytes of a counted integer body per primitive id (signed ones carry a sign bit). */
  def maxIntBytes(id: Int): Int = id match {
    case SuperType.Uint8 => 1
    case SuperType.Uint16 => 2
    case SuperType.Uint32 => 4
    case SuperType.Uint64 => 8
    case SuperType.Uint128 => 16
    case SuperType.Uint256 => 32
    case SuperType.Int8 => 2
    case SuperType.Int16 => 3
    case SuperType.Int32 => 5
    case SuperType.Int64 | SuperType.Duration | SuperType.Time => 8
    case SuperType.Int128 => 17
    case SuperType.Int256 => 33
    case _ => -1
  }

  /** Fixed body size of a primitive id, or -1 when variable. */
  def fixedSize(id: Int): Int = id match {
    case SuperType.Float16 => 2
    case SuperType.Float32 | SuperType.Decimal32 => 4
    case SuperType.Float64 | SuperType.Decimal64 => 8
    case SuperType.Float128 | SuperType.Decimal128 => 16
    case SuperType.Float256 | SuperType.Decimal256 => 32
    case SuperType.Bool => 1
    case SuperType.Null => 0
    case _ => -1
  }

  /**
   * The range of a signed integer id (int64 and the 64-bit times: all of Long). Two functions,
   * not a map of pairs: they run per value (no boxed key, no tuple).
   */
  def signedMin(id: Int): Long = id match {
    case SuperType.Int8 => Byte.MinValue
    case SuperType.Int16 => Short.MinValue
    case SuperType.Int32 => Int.MinValue
    case _ => Long.MinValue
  }
  def signedMax(id: Int): Long = id match {
    case SuperType.Int8 => Byte.MaxValue
    case SuperType.Int16 => Short.MaxValue
    case SuperType.Int32 => Int.MaxValue
    case _ => Long.MaxValue
  }

  /** Checks a primitive body's size; returns normally or fails on the cursor. */
  def checkPrimitiveSize(c: Cursor, id: Int, off: Int, len: Int): Unit = {
    val fixed = fixedSize(id)
    if (fixed >= 0 && len != fixed) {
      c.fail(s"${SuperType.primitive(id).name} value has $len bytes, expected $fixed", off)
    }
    val maxInt = maxIntBytes(id)
    if (maxInt >= 0) {
      if (len > maxInt) c.fail(s"${SuperType.primitive(id).name} value has $len bytes, at most $maxInt allowed", off)
      checkMinimal(c, c.buf, off, len, SuperType.primitive(id).name)
      // Only int64's sign-magnitude "-0" has a meaning (Long.MinValue, as SuperDB writes it).
      if ((id == SuperType.Int128 || id == SuperType.Int256) && len == 1 && c.buf(off) == 1) {
        c.fail(s"${SuperType.primitive(id).name} value is a negative zero", off)
      }
    }
    if (id == SuperType.Null) c.fail("a value of type null must be null (it has a body)", off)
    if (id == SuperType.NoneId || id == SuperType.AllId) c.fail(s"a value of type ${SuperType.primitive(id).name} must be null", off)
    if (id == SuperType.Ip && len != 4 && len != 16) c.fail(s"ip value has $len bytes, expected 4 or 16", off)
    if (id == SuperType.Net && len != 8 && len != 32) c.fail(s"net value has $len bytes, expected 8 or 32", off)
  }

  /** The prefix length of a net value's bytes; malformed unless a network ([[ValueText.netPrefixLength]]). */
  def netPrefixLength(c: Cursor, b: Array[Byte], off: Int, len: Int): Int = {
    val n = ValueText.netPrefixLength(b, off, len)
    if (n < 0) c.fail("net value is not a network (its mask is not a prefix, or the address has bits outside it)", off)
    n
  }

  /**
   * A counted integer (values, union selectors, enum indexes) must be minimal: no trailing zero
   * byte. Another encoding of the same number would sort elsewhere among the bytes of a set or
   * map, and would re-encode differently.
   */
  def checkMinimal(c: Cursor, b: Array[Byte], off: Int, len: Int, what: String): Unit =
    if (len > 0 && b(off + len - 1) == 0) c.fail(s"$what value is not minimally encoded (it ends with a zero byte)", off)

  /** Reads one tag; returns the body length, or -1 for null. The body must fit the cursor. */
  def readTag(c: Cursor): Int = c.tag()

  /** Decodes the tag-encoded value at the cursor. */
  def decodeTagged(t: SuperType, c: Cursor): Any = walkTagged(t, c, build = true)

  /** Decodes the body `buf[off, off+len)` of a non-null value of type `t`. */
  def decodeBody(t: SuperType, buf: Array[Byte], off: Int, len: Int, parent: Cursor): Any =
    walk(t, buf, off, len, parent, build = true)

  /**
   * Checks the body `buf[off, off+len)` of a non-null value of type `t` by every rule
   * [[decodeBody]] applies, failing with the same errors, without building the value (no
   * strings, numbers or collections are allocated): what schema inference does with the
   * values it samples.
   */
  def checkBody(t: SuperType, buf: Array[Byte], off: Int, len: Int, parent: Cursor): Unit =
    walk(t, buf, off, len, parent, build = false)

  private def walkTagged(t: SuperType, c: Cursor, build: Boolean): Any = {
    val len = readTag(c)
    if (len < 0) null
    else {
      val off = c.pos
      c.pos += len
      walk(t, c.buf, off, len, c, build)
    }
  }

  /**
   * The one walk over a value's bytes: decodes it (`build`), or only checks it (returns null).
   * It recurses once per container level, so each container has its own small method: the
   * interpreter's frame of one method with every case was 0.5 KB, and a value nested
   * [[MaxValueDepth]] deep must fit a thread's stack before the JIT has compiled anything.
   */
  private def walk(t: SuperType, buf: Array[Byte], off: Int, len: Int, parent: Cursor, build: Boolean): Any = t match {
    case _: PrimitiveType =>
      val id = t.asInstanceOf[PrimitiveType].id
      if (build) decodePrimitive(id, buf, off, len, parent) else { checkPrimitive(id, buf, off, len, parent); null }
    // The common types first (the cases are tested in this order).
    case _: UnionType => walkUnion(t.asInstanceOf[UnionType].types, sub(parent, off, len), build)
    case _: RecordType => walkRecord(t.asInstanceOf[RecordType].fields, sub(parent, off, len), build)
    case _: ArrayType => walkArray(t.asInstanceOf[ArrayType].elem, sub(parent, off, len), build)
    case _: NamedType => walk(t.asInstanceOf[NamedType].inner, buf, off, len, parent, build)
    case _: RecursiveRef => walk(t.asInstanceOf[RecursiveRef].target, buf, off, len, parent, build)
    case _: SetType => walkSet(t.asInstanceOf[SetType].elem, sub(parent, off, len), build)
    case _: MapType => walkMap(t.asInstanceOf[MapType], sub(parent, off, len), build)
    // An error value is encoded exactly as its underlying value (as the reference does).
    case _: ErrorType =>
      val v = walk(t.asInstanceOf[ErrorType].inner, buf, off, len, parent, build)
      if (build) ErrorValue(v) else null
    case _: FusionType => walkFusion(t.asInstanceOf[FusionType].inner, sub(parent, off, len), build)
    case _: EnumType =>
      val idx = enumIndex(parent, buf, off, len, t.asInstanceOf[EnumType].symbols.size)
      if (build) EnumValue(idx) else null
  }

  private def walkRecord(fields: IndexedSeq[Field], c: Cursor, build: Boolean): Any = {
    val out = if (build) new Array[Any](fields.size) else null
    var i = 0
    while (i < fields.size) {
      if (!c.hasMore) c.fail(s"record value has $i fields, its type has ${fields.size}")
      val v = walkTagged(fields(i).typ, c, build)
      if (build) out(i) = v
      i += 1
    }
    expectEnd(c, "record")
    if (build) out.toIndexedSeq else null
  }

  private def walkArray(e: SuperType, c: Cursor, build: Boolean): Any = {
    val out = if (build) IndexedSeq.newBuilder[Any] else null
    while (c.hasMore) {
      val v = walkTagged(e, c, build)
      if (build) out += v
    }
    if (build) out.result() else null
  }

  private def walkSet(e: SuperType, c: Cursor, build: Boolean): Any = {
    val out = if (build) IndexedSeq.newBuilder[Any] else null
    var prevStart = -1; var prevEnd = -1
    while (c.hasMore) {
      val start = c.pos
      val v = walkTagged(e, c, build)
      if (build) out += v
      checkOrder(c, "set element", prevStart, prevEnd, start, c.pos)
      prevStart = start; prevEnd = c.pos
    }
    if (build) out.result() else null
  }

  private def walkMap(m: MapType, c: Cursor, build: Boolean): Any = {
    val out = if (build) IndexedSeq.newBuilder[(Any, Any)] else null
    var prevStart = -1; var prevEnd = -1
    while (c.hasMore) {
      val start = c.pos
      val k = walkTagged(m.key, c, build)
      checkOrder(c, "map key", prevStart, prevEnd, start, c.pos)
      prevStart = start; prevEnd = c.pos
      if (!c.hasMore) c.fail("map value missing after its key")
      val v = walkTagged(m.value, c, build)
      if (build) out += (k -> v)
    }
    if (build) out.result() else null
  }

  private def walkUnion(types: IndexedSeq[SuperType], c: Cursor, build: Boolean): Any = {
    // Most union values (every T|null slot of version 5), checked in place: a selector of at most
    // one byte (minimal), then the member value with a one-byte tag, ending the union. Anything
    // else goes the general way below, which gives the errors.
    val b = c.buf
    val off = c.pos
    val end = c.end
    if (end - off >= 2) {
      val st = b(off)
      if (st == 1 || (st == 2 && end - off >= 3 && b(off + 1) != 0)) {
        val sel = selectorValue(b, off + 1, st - 1, c.whereOf.version)
        val vp = off + st
        val vt = b(vp)
        if (sel >= 0 && sel < types.size && vt >= 0 && vp + math.max(vt, 1) == end) {
          c.pos = end
          val v = if (vt == 0) null else walk(types(sel.toInt), b, vp + 1, vt - 1, c, build)
          return if (build) UnionValue(sel.toInt, v) else null
        }
      }
    }
    val sel = unionSelector(c, types.size)
    val v = walkTagged(types(sel), c, build)
    expectEnd(c, "union")
    if (build) UnionValue(sel, v) else null
  }

  private def walkFusion(inner: SuperType, c: Cursor, build: Boolean): Any = {
    if (!c.hasMore) c.fail("fusion value has no value")
    val v = walkTagged(inner, c, build)
    val at = c.pos
    val tl = readTag(c)
    if (tl < 0) c.fail("fusion value has a null subtype", at)
    val subtype = TypeValues.decode(sub(c, c.pos, tl))
    c.pos += tl
    expectEnd(c, "fusion")
    if (build) FusionValue(v, subtype) else null
  }

  /**
   * Reads a union's selector element and checks its range: a counted integer, zig-zag signed
   * in version 0 and unsigned from version 1 (the version of the cursor's stream).
   */
  def unionSelector(c: Cursor, n: Int): Int = {
    val at = c.pos
    val len = readTag(c)
    if (len < 0 || len > 8) c.fail("bad union selector", at)
    checkMinimal(c, c.buf, c.pos, len, "union selector")
    val sel = selectorValue(c.buf, c.pos, len, c.whereOf.version)
    c.pos += len
    if (sel < 0 || sel >= n) c.fail(s"union selector $sel out of range for a union of $n types", at)
    if (!c.hasMore) c.fail("union value missing after its selector")
    sel.toInt
  }

  /** The selector in the counted bytes `buf[off, off+len)` under the rules of `version`. */
  def selectorValue(buf: Array[Byte], off: Int, len: Int, version: Int): Long =
    if (BsupVersion.unsignedSelector(version)) {
      val u = Varint.decodeCountedUnsigned(buf, off, len)
      if (u < 0) Long.MaxValue else u
    } else Varint.decodeCountedSigned(buf, off, len)

  /** The tagged selector element (tag and counted bytes) of member `sel` under the rules of `version`. */
  def selectorElement(sel: Int, version: Int): Array[Byte] = {
    val b = new ByteBuf(4); putCountedTagged(selectorBits(sel, version), b); b.toArray
  }

  /** The counted selector `sel` under the rules of `version`. */
  def selectorBits(sel: Int, version: Int): Long =
    if (BsupVersion.unsignedSelector(version)) sel.toLong else Varint.signedToUnsigned(sel)

  def enumIndex(c: Cursor, buf: Array[Byte], off: Int, len: Int, n: Int): Int = {
    if (len > 8) c.fail(s"enum value has $len bytes", off)
    checkMinimal(c, buf, off, len, "enum")
    val idx = Varint.decodeCountedUnsigned(buf, off, len)
    if (idx < 0 || idx >= n) c.fail(s"enum index $idx out of range for an enum of $n symbols", off)
    idx.toInt
  }

  def checkOrder(c: Cursor, what: String, ps: Int, pe: Int, s: Int, e: Int): Unit = {
    if (ps >= 0 && Arrays.compareUnsigned(c.buf, ps, pe, c.buf, s, e) >= 0) {
      c.fail(s"$what is not in increasing order (or is a duplicate)", s)
    }
  }

  private def expectEnd(c: Cursor, what: String): Unit =
    if (c.hasMore) c.fail(s"extra bytes at the end of a $what value")

  /**
   * Deepest nesting of containers in one value. Types alone nest at most
   * `TypeContext.MaxDepth` levels; a value of a recursive type can nest as deep as its bytes
   * go, so this bounds it (and the stack of every walk over the decoded value).
   */
  final val MaxValueDepth = 500

  /**
   * A cursor over the body of a container inside `parent`'s bytes, one level deeper. It is
   * `parent.child`, reused: walks nest, so a container's cursor is done with before its parent
   * asks for the next one (no allocation per container value).
   */
  def sub(parent: Cursor, off: Int, len: Int): Cursor = {
    if (parent.depth >= MaxValueDepth) parent.fail(s"value nested more than $MaxValueDepth levels deep", off)
    var c = parent.child
    if (c == null) {
      c = new Cursor(parent.buf, off, off + len, parent.whereOf)
      c.depth = parent.depth + 1
      parent.child = c
    } else { c.pos = off; c.end = off + len }
    c
  }

  /**
   * Checks a primitive body by every rule [[decodePrimitive]] applies (size, minimal integers,
   * ranges, UTF-8, ...), with the same errors, without building the value.
   */
  def checkPrimitive(id: Int, b: Array[Byte], off: Int, len: Int, c: Cursor): Unit = {
    checkPrimitiveSize(c, id, off, len)
    id match {
      case SuperType.Int8 | SuperType.Int16 | SuperType.Int32 =>
        val v = Varint.decodeCountedSigned(b, off, len)
        if (v < signedMin(id) || v > signedMax(id)) c.fail(s"${SuperType.primitive(id).name} value $v out of range", off)
      case SuperType.Decimal32 | SuperType.Decimal64 | SuperType.Decimal128 | SuperType.Decimal256 =>
        decimal(b, off, len, c)
      case SuperType.Bool =>
        val v = b(off)
        if (v != 0 && v != 1) c.fail(s"bool value byte is $v, expected 0 or 1", off)
      case SuperType.String =>
        if (!Cursor.isValidUtf8(b, off, len)) c.fail("invalid UTF-8 in a string value", off)
      case SuperType.Net => netPrefixLength(c, b, off, len)
      case SuperType.Type => TypeValues.decode(sub(c, off, len))
      case _ =>
    }
  }

  private def decimal(b: Array[Byte], off: Int, len: Int, c: Cursor): JBigDecimal =
    Numbers.decodeDecimal(b, off, len * 8).getOrElse(c.fail("decimal NaN or infinity is not supported", off))

  def decodePrimitive(id: Int, b: Array[Byte], off: Int, len: Int, c: Cursor): Any = id match {
    // Decoding these is their check.
    case SuperType.Decimal32 | SuperType.Decimal64 | SuperType.Decimal128 | SuperType.Decimal256 =>
      checkPrimitiveSize(c, id, off, len)
      decimal(b, off, len, c)
    case SuperType.Type =>
      checkPrimitiveSize(c, id, off, len)
      TypeValues.decode(sub(c, off, len))
    case _ =>
      checkPrimitive(id, b, off, len, c)
      id match {
        case SuperType.Uint8 | SuperType.Uint16 | SuperType.Uint32 => Varint.decodeCountedUnsigned(b, off, len)
        case SuperType.Uint64 | SuperType.Uint128 | SuperType.Uint256 => BigInt(Varint.decodeBigUnsigned(b, off, len))
        case SuperType.Int8 | SuperType.Int16 | SuperType.Int32 | SuperType.Int64 => Varint.decodeCountedSigned(b, off, len)
        case SuperType.Int128 | SuperType.Int256 => BigInt(Varint.decodeBigSigned(b, off, len))
        case SuperType.Duration => Duration(Varint.decodeCountedSigned(b, off, len))
        case SuperType.Time => Time(Varint.decodeCountedSigned(b, off, len))
        case SuperType.Float16 => Numbers.halfToFloat((b(off) & 0xff) | ((b(off + 1) & 0xff) << 8))
        case SuperType.Float32 => java.lang.Float.intBitsToFloat(Varint.decodeCountedUnsigned(b, off, 4).toInt)
        case SuperType.Float64 => java.lang.Double.longBitsToDouble(Varint.decodeCountedUnsigned(b, off, 8))
        case SuperType.Float128 => Numbers.wideFloatToDouble(b, off, 128)
        case SuperType.Float256 => Numbers.wideFloatToDouble(b, off, 256)
        case SuperType.Bool => b(off) == 1
        case SuperType.Bytes => Bytes(Arrays.copyOfRange(b, off, off + len))
        case SuperType.String => new String(b, off, len, StandardCharsets.UTF_8) // valid UTF-8 (checked)
        case SuperType.Ip => InetAddress.getByAddress(Arrays.copyOfRange(b, off, off + len))
        case SuperType.Net =>
          IpNet(InetAddress.getByAddress(Arrays.copyOfRange(b, off, off + len / 2)), netPrefixLength(c, b, off, len))
        case SuperType.Null => null
      }
  }

  // ---------------------------------------------------------------- encoding

  /** Appends `v` of type `t` as a tag-encoded value. */
  def encodeTagged(t: SuperType, v: Any, out: ByteBuf, version: Int = 0): Unit = {
    if (v == null) { out.put(0); return }
    def encodeTagged(t: SuperType, v: Any, out: ByteBuf): Unit = ValueCodec.encodeTagged(t, v, out, version)
    def encodeToArray(t: SuperType, v: Any): Array[Byte] = ValueCodec.encodeToArray(t, v, version)
    t match {
      case p: PrimitiveType => encodePrimitive(p.id, v, out, version)
      case NamedType(_, inner) => encodeTagged(inner, v, out)
      case r: RecursiveRef => encodeTagged(r.target, v, out)
      case ErrorType(inner) => encodeTagged(inner, v.asInstanceOf[ErrorValue].value, out)
      case _ =>
        val start = beginContainer(out)
        t match {
          case RecordType(fields) =>
            val vs = v.asInstanceOf[Seq[Any]]
            require(vs.size == fields.size, s"record value has ${vs.size} fields, type $t has ${fields.size}")
            var i = 0
            while (i < fields.size) { encodeTagged(fields(i).typ, vs(i), out); i += 1 }
          case ArrayType(e) => v.asInstanceOf[Seq[Any]].foreach(encodeTagged(e, _, out))
          case SetType(e) =>
            sortedEncoded(v.asInstanceOf[Seq[Any]].map(x => encodeToArray(e, x))).foreach(out.put)
          case MapType(kt, vt) =>
            val entries = v.asInstanceOf[Seq[(Any, Any)]].map { case (k, x) => (encodeToArray(kt, k), x) }
            val sorted = entries.sortWith((a, b) => Arrays.compareUnsigned(a._1, b._1) < 0)
            var prev: Array[Byte] = null
            sorted.foreach { case (k, x) =>
              if (prev == null || !Arrays.equals(prev, k)) { out.put(k); encodeTagged(vt, x, out) }
              prev = k
            }
          case UnionType(types) =>
            val u = v.asInstanceOf[UnionValue]
            require(u.selector >= 0 && u.selector < types.size, s"union selector ${u.selector} out of range")
            putCountedTagged(selectorBits(u.selector, version), out)
            encodeTagged(types(u.selector), u.value, out)
          case EnumType(symbols) =>
            val idx = v.asInstanceOf[EnumValue].index
            require(idx >= 0 && idx < symbols.size, s"enum index $idx out of range")
            Varint.putCounted(out, idx.toLong)
          case FusionType(inner) =>
            val f = v.asInstanceOf[FusionValue]
            encodeTagged(inner, f.value, out)
            putBodyTagged(TypeValues.encode(f.subtype, version), out)
          case other => throw new IllegalStateException(s"not a container: $other")
        }
        endContainer(out, start)
    }
  }

  /** Reserves one byte for a tag; returns where the body starts. */
  def beginContainer(out: ByteBuf): Int = { out.put(0); out.size }

  /** Writes the tag of the container begun at `start`, moving the body if the tag needs more than one byte. */
  def endContainer(out: ByteBuf, start: Int): Unit = {
    val len = out.size - start
    // A body under 127 bytes (most): its tag is the one byte reserved.
    if (len < 127) { out.bytes(start - 1) = (len + 1).toByte; return }
    val tag = len.toLong + 1
    val n = Varint.uvarintSize(tag)
    if (n > 1) out.insertGap(start, n - 1)
    Varint.putUvarint(out.bytes, start - 1, tag)
  }

  def sortedEncoded(elems: Seq[Array[Byte]]): Seq[Array[Byte]] = {
    val sorted = elems.sortWith((a, b) => Arrays.compareUnsigned(a, b) < 0)
    sorted.zipWithIndex.filter { case (e, i) => i == 0 || !Arrays.equals(sorted(i - 1), e) }.map(_._1)
  }

  def encodeToArray(t: SuperType, v: Any, version: Int = 0): Array[Byte] = {
    val b = new ByteBuf(32); encodeTagged(t, v, b, version); b.toArray
  }

  def putCountedTagged(u: Long, out: ByteBuf): Unit = {
    out.putUvarint(Varint.countedSize(u) + 1)
    Varint.putCounted(out, u)
  }

  /** A signed counted integer (int64, time, duration) with its tag. */
  def putSignedTagged(v: Long, out: ByteBuf): Unit = putCountedTagged(Varint.signedToUnsigned(v), out)

  /** A float64 with its tag: 8 little-endian bytes. */
  def putFloat64Tagged(x: Double, out: ByteBuf): Unit = { out.put(9); putLE(out, java.lang.Double.doubleToRawLongBits(x), 8) }

  def putBodyTagged(body: Array[Byte], out: ByteBuf): Unit = {
    out.putUvarint(body.length + 1L); out.put(body)
  }

  private def asLong(v: Any): Long = v match {
    case l: Long => l
    case i: Int => i.toLong
    case s: Short => s.toLong
    case b: Byte => b.toLong
    case b: BigInt => b.toLong
    case b: BigInteger => b.longValueExact()
    case d: Duration => d.nanos
    case t: Time => t.nanos
    case other => throw new IllegalArgumentException(s"not an integer: $other")
  }

  private def asBig(v: Any): BigInteger = v match {
    case b: BigInt => b.bigInteger
    case b: BigInteger => b
    case other => BigInteger.valueOf(asLong(other))
  }

  private def asDouble(v: Any): Double = v match {
    case d: Double => d
    case f: Float => f.toDouble
    case other => asLong(other).toDouble
  }

  /** The range of the unsigned types and of int128/int256: `(lo, hi)`, both included. */
  def bigIntRange(id: Int): (java.math.BigInteger, java.math.BigInteger) = {
    val one = java.math.BigInteger.ONE
    id match {
      case SuperType.Int128 | SuperType.Int256 =>
        val bits = if (id == SuperType.Int128) 127 else 255
        (one.shiftLeft(bits).negate, one.shiftLeft(bits).subtract(one))
      case _ => (java.math.BigInteger.ZERO, one.shiftLeft(maxIntBytes(id) * 8).subtract(one))
    }
  }

  private def inBigIntRange(id: Int, b: java.math.BigInteger): Boolean = {
    val (lo, hi) = bigIntRange(id)
    b.compareTo(lo) >= 0 && b.compareTo(hi) <= 0
  }

  def encodePrimitive(id: Int, v: Any, out: ByteBuf, version: Int = 0): Unit = id match {
    case SuperType.Uint8 | SuperType.Uint16 | SuperType.Uint32 | SuperType.Uint64 |
         SuperType.Uint128 | SuperType.Uint256 =>
      val b = asBig(v)
      require(inBigIntRange(id, b), s"$b out of range for ${SuperType.primitive(id).name}")
      putBodyTagged(Varint.bigUnsignedBytes(b), out)
    case SuperType.Int8 | SuperType.Int16 | SuperType.Int32 | SuperType.Int64 | SuperType.Duration | SuperType.Time =>
      val l = asLong(v)
      require(l >= signedMin(id) && l <= signedMax(id), s"$l out of range for ${SuperType.primitive(id).name}")
      putSignedTagged(l, out)
    case SuperType.Int128 | SuperType.Int256 =>
      val b = asBig(v)
      require(inBigIntRange(id, b), s"$b out of range")
      putBodyTagged(Varint.bigSignedBytes(b), out)
    case SuperType.Float16 =>
      val h = Numbers.floatToHalf(asDouble(v).toFloat)
      out.put(3); out.put(h & 0xff); out.put(h >>> 8)
    case SuperType.Float32 =>
      out.put(5); putLE(out, java.lang.Float.floatToRawIntBits(asDouble(v).toFloat).toLong & 0xffffffffL, 4)
    case SuperType.Float64 => putFloat64Tagged(asDouble(v), out)
    case SuperType.Float128 => putBodyTagged(Numbers.doubleToWideFloat(asDouble(v), 128), out)
    case SuperType.Float256 => putBodyTagged(Numbers.doubleToWideFloat(asDouble(v), 256), out)
    case SuperType.Decimal32 | SuperType.Decimal64 | SuperType.Decimal128 | SuperType.Decimal256 =>
      val d = v match {
        case d: JBigDecimal => d
        case d: BigDecimal => d.bigDecimal
        case other => new JBigDecimal(asBig(other))
      }
      putBodyTagged(Numbers.encodeDecimal(d, fixedSize(id) * 8), out)
    case SuperType.Bool => out.put(2); out.put(if (v.asInstanceOf[Boolean]) 1 else 0)
    case SuperType.Bytes =>
      val b = v match { case b: Bytes => b.toArray; case a: Array[Byte] => a }
      putBodyTagged(b, out)
    case SuperType.String => putBodyTagged(v.asInstanceOf[String].getBytes(StandardCharsets.UTF_8), out)
    case SuperType.Ip => putBodyTagged(v.asInstanceOf[InetAddress].getAddress, out)
    case SuperType.Net =>
      val n = v.asInstanceOf[IpNet]
      putBodyTagged(ValueText.parseNet(ValueText.ip(n.address) + "/" + n.prefixLength)
        .getOrElse(throw new IllegalArgumentException(s"bad net $n")), out)
    case SuperType.Type => putBodyTagged(TypeValues.encode(v.asInstanceOf[SuperType], version), out)
    case SuperType.Null => throw new IllegalArgumentException(s"a value of type null must be null, got $v")
  }

  def putLE(out: ByteBuf, v: Long, n: Int): Unit = {
    out.ensure(n)
    var i = 0
    while (i < n) { out.bytes(out.size + i) = (v >>> (8 * i)).toByte; i += 1 }
    out.size += n
  }
}
