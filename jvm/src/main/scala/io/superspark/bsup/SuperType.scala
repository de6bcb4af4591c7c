package io.superspark.bsup

/**
 * The types of the super data model, as carried by Super Binary (version 0).
 *
 * Types are plain values with structural equality: two streams that define the same record
 * type get equal `SuperType`s even though their stream-local type ids differ. A named type
 * is equal to another only if both name and underlying type are equal.
 */
private[superspark] sealed trait SuperType {
  /** The type in Super (SUP) type syntax, e.g. `{a:int64,b:[string],c:(int64|string)}`. */
  override def toString: String = SuperType.format(this)

  /** The type with every outer name removed. */
  def underlying: SuperType = this

  /**
   * True when the type holds a [[RecursiveRef]]: its values can nest without a bound set by
   * the type. Computed once per (interned) node, so linear in the distinct parts of a DAG.
   */
  lazy val isRecursive: Boolean = this match {
    case _: RecursiveRef => true
    case _: PrimitiveType | _: EnumType => false
    case RecordType(fields) => fields.exists(_.typ.isRecursive)
    case ArrayType(e) => e.isRecursive
    case SetType(e) => e.isRecursive
    case MapType(k, v) => k.isRecursive || v.isRecursive
    case UnionType(ts) => ts.exists(_.isRecursive)
    case ErrorType(e) => e.isRecursive
    case NamedType(_, inner) => inner.isRecursive
    case FusionType(inner) => inner.isRecursive
  }

  /**
   * The names of the [[RecursiveRef]]s in this type whose named type does not enclose them
   * here (a part of a recursive type taken alone, like the `(null|node)` of `node`'s field).
   */
  lazy val freeRefs: Set[String] = this match {
    case r: RecursiveRef => Set(r.name)
    case _: PrimitiveType | _: EnumType => Set.empty
    case RecordType(fields) => fields.foldLeft(Set.empty[String])(_ ++ _.typ.freeRefs)
    case ArrayType(e) => e.freeRefs
    case SetType(e) => e.freeRefs
    case MapType(k, v) => k.freeRefs ++ v.freeRefs
    case UnionType(ts) => ts.foldLeft(Set.empty[String])(_ ++ _.freeRefs)
    case ErrorType(e) => e.freeRefs
    case NamedType(name, inner) => inner.freeRefs - name
    case FusionType(inner) => inner.freeRefs
  }
}

private[superspark] final case class PrimitiveType(id: Int, name: String) extends SuperType {
  override def toString: String = name
}

private[superspark] final case class Field(name: String, typ: SuperType)

// Complex types cache their hash code: a type that shares sub-types (a DAG, as types frames
// can build) then hashes in time linear in its distinct parts, not in its expanded size.
private[superspark] final case class RecordType(fields: IndexedSeq[Field]) extends SuperType {
  def fieldIndex(name: String): Int = fields.indexWhere(_.name == name)
  override val hashCode: Int = scala.util.hashing.MurmurHash3.productHash(this)
}
private[superspark] final case class ArrayType(elem: SuperType) extends SuperType {
  override val hashCode: Int = scala.util.hashing.MurmurHash3.productHash(this)
}
private[superspark] final case class SetType(elem: SuperType) extends SuperType {
  override val hashCode: Int = scala.util.hashing.MurmurHash3.productHash(this)
}
private[superspark] final case class MapType(key: SuperType, value: SuperType) extends SuperType {
  override val hashCode: Int = scala.util.hashing.MurmurHash3.productHash(this)
}
private[superspark] final case class UnionType(types: IndexedSeq[SuperType]) extends SuperType {
  override val hashCode: Int = scala.util.hashing.MurmurHash3.productHash(this)
}
private[superspark] final case class EnumType(symbols: IndexedSeq[String]) extends SuperType {
  override val hashCode: Int = scala.util.hashing.MurmurHash3.productHash(this)
}
private[superspark] final case class ErrorType(inner: SuperType) extends SuperType {
  override val hashCode: Int = scala.util.hashing.MurmurHash3.productHash(this)
}
private[superspark] final case class NamedType(name: String, inner: SuperType) extends SuperType {
  override def underlying: SuperType = inner.underlying
  /** True when the definition refers back to this name: a recursive type. */
  def refersToItself: Boolean = inner.freeRefs.contains(name)

  // A named type equals a recursive reference bound to an equal named type (the same type,
  // seen from inside or outside its definition), so both hash by the name alone.
  override def equals(o: Any): Boolean = o match {
    case n: NamedType => (n eq this) || (n.name == name && n.inner == inner)
    case r: RecursiveRef => r.name == name && r.isBound && ((r.target eq this) || r.target == this)
    case _ => false
  }
  override val hashCode: Int = RecursiveRef.hashOf(name)
}
/**
 * A reference to the named type `name` from inside that type's own definition: a recursive
 * type (Super Binary version 4 on), e.g. `node={v:int64,next:(node|null)}` holds
 * `RecursiveRef("node")` where the definition refers back to `node`. The type is thereby a
 * finite tree; [[target]] (set once the named type is built) leads back to the definition.
 *
 * Equality: the same name and, once both targets are set, the same definition text (the
 * name alone while a stream's types are being built, where a name has one definition); a
 * reference also equals a named type equal to its target (the same type seen from outside its
 * definition, as in a union typedef of the same types frame). The hash code is the name's, as
 * a named type's, so it never changes.
 */
private[superspark] final class RecursiveRef(val name: String) extends SuperType {
  @volatile private var _target: NamedType = null

  /** The named type referred to. */
  def target: NamedType = {
    val t = _target
    if (t == null) throw new IllegalStateException(s"recursive reference to '$name' is not bound")
    t
  }

  /** Binds the reference to its named type (once). */
  def bind(t: NamedType): Unit = {
    require(t.name == name, s"cannot bind a reference to '$name' to type '${t.name}'")
    if (_target == null) _target = t
  }

  def isBound: Boolean = _target != null

  override def underlying: SuperType = target.underlying

  private lazy val definition: String = SuperType.format(target)

  override def equals(o: Any): Boolean = o match {
    case r: RecursiveRef =>
      (r eq this) || (r.name == name && (!isBound || !r.isBound || (r._target eq _target) || definition == r.definition))
    case n: NamedType => n == this
    case _ => false
  }
  override val hashCode: Int = RecursiveRef.hashOf(name)
}

private[superspark] object RecursiveRef {
  /** The hash code of a named type and of a reference to it. */
  def hashOf(name: String): Int = name.hashCode * 31 + 0x5eca
}

/**
 * A fusion type (Super Binary version 2 on): a value of the supertype `inner` that also
 * carries the type it had before fusion (see [[FusionValue]]).
 */
private[superspark] final case class FusionType(inner: SuperType) extends SuperType {
  override val hashCode: Int = scala.util.hashing.MurmurHash3.productHash(this)
}

private[superspark] object SuperType {
  /** The types `t` is built of, one level down (a record's field types, a union's members, ...). */
  def children(t: SuperType): Seq[SuperType] = t match {
    case RecordType(fs) => fs.map(_.typ)
    case ArrayType(e) => e :: Nil
    case SetType(e) => e :: Nil
    case MapType(k, v) => k :: v :: Nil
    case UnionType(ts) => ts
    case ErrorType(e) => e :: Nil
    case NamedType(_, e) => e :: Nil
    case FusionType(e) => e :: Nil
    case _ => Nil
  }

  // Primitive type ids (section 3 of the spec).
  final val Uint8 = 0; final val Uint16 = 1; final val Uint32 = 2; final val Uint64 = 3
  final val Uint128 = 4; final val Uint256 = 5
  final val Int8 = 6; final val Int16 = 7; final val Int32 = 8; final val Int64 = 9
  final val Int128 = 10; final val Int256 = 11
  final val Duration = 12; final val Time = 13
  final val Float16 = 14; final val Float32 = 15; final val Float64 = 16
  final val Float128 = 17; final val Float256 = 18
  final val Decimal32 = 19; final val Decimal64 = 20; final val Decimal128 = 21; final val Decimal256 = 22
  final val Bool = 23; final val Bytes = 24; final val String = 25; final val Ip = 26; final val Net = 27
  final val Type = 28; final val Null = 29

  /** The first stream-local id of a complex typedef. */
  final val FirstComplexId = 30

  private val names = Array(
    "uint8", "uint16", "uint32", "uint64", "uint128", "uint256",
    "int8", "int16", "int32", "int64", "int128", "int256",
    "duration", "time",
    "float16", "float32", "float64", "float128", "float256",
    "decimal32", "decimal64", "decimal128", "decimal256",
    "bool", "bytes", "string", "ip", "net", "type", "null")

  /** The primitive types of version 3 on that version 0 lacks: ids 30 and 31 there. */
  final val NoneId = 30; final val AllId = 31
  val none: PrimitiveType = new PrimitiveType(NoneId, "none")
  val all: PrimitiveType = new PrimitiveType(AllId, "all")

  /** The 30 primitive types of every version, indexed by id. */
  val primitives: IndexedSeq[PrimitiveType] = names.indices.map(i => new PrimitiveType(i, names(i)))

  private val byName: Map[String, PrimitiveType] = (primitives :+ none :+ all).map(p => p.name -> p).toMap

  def primitive(id: Int): PrimitiveType = if (id == NoneId) none else if (id == AllId) all else primitives(id)
  def primitiveByName(name: String): Option[PrimitiveType] = byName.get(name)

  val uint8: PrimitiveType = primitives(Uint8)
  val uint16: PrimitiveType = primitives(Uint16)
  val uint32: PrimitiveType = primitives(Uint32)
  val uint64: PrimitiveType = primitives(Uint64)
  val int8: PrimitiveType = primitives(Int8)
  val int16: PrimitiveType = primitives(Int16)
  val int32: PrimitiveType = primitives(Int32)
  val int64: PrimitiveType = primitives(Int64)
  val duration: PrimitiveType = primitives(Duration)
  val time: PrimitiveType = primitives(Time)
  val float16: PrimitiveType = primitives(Float16)
  val float32: PrimitiveType = primitives(Float32)
  val float64: PrimitiveType = primitives(Float64)
  val bool: PrimitiveType = primitives(Bool)
  val bytes: PrimitiveType = primitives(Bytes)
  val string: PrimitiveType = primitives(String)
  val ip: PrimitiveType = primitives(Ip)
  val net: PrimitiveType = primitives(Net)
  val typeType: PrimitiveType = primitives(Type)
  val nullType: PrimitiveType = primitives(Null)

  def record(fields: (String, SuperType)*): RecordType =
    RecordType(fields.map { case (n, t) => Field(n, t) }.toIndexedSeq)

  /** Longest type text [[format]] writes (a small DAG of types can expand exponentially). */
  final val MaxTextLength = 1 << 20

  /**
   * Formats `t` in SUP type syntax; names are written with their definition each time.
   * `version` 0 writes sets and maps as `|[t]|` and `|{k:v}|` (the SUP of version 0); later
   * versions write `set[t]` and `map{k:v}`, and a named type as its name alone (SUP declares
   * names apart, `type port=uint16`). Text longer than [[MaxTextLength]] is cut with `...`.
   * A recursive reference is its name inside its definition; elsewhere (a part of a recursive
   * type printed alone) version 0 writes the definition there.
   */
  def format(t: SuperType, version: Int = 0): String = {
    val sb = new java.lang.StringBuilder
    val defining = new java.util.HashSet[String]()
    def loop(t: SuperType): Unit = if (sb.length > MaxTextLength) () else t match {
      case r: RecursiveRef if version > 0 || defining.contains(r.name) => appendName(sb, r.name)
      case r: RecursiveRef => loop(r.target)
      case p: PrimitiveType => sb.append(p.name)
      case RecordType(fields) =>
        sb.append('{')
        var first = true
        fields.foreach { f =>
          if (!first) sb.append(',')
          first = false
          appendName(sb, f.name)
          sb.append(':')
          loop(f.typ)
        }
        sb.append('}')
      case ArrayType(e) => sb.append('['); loop(e); sb.append(']')
      case SetType(e) if version > 0 => sb.append("set["); loop(e); sb.append(']')
      case MapType(k, v) if version > 0 => sb.append("map{"); loop(k); sb.append(':'); loop(v); sb.append('}')
      case SetType(e) => sb.append("|["); loop(e); sb.append("]|")
      case MapType(k, v) => sb.append("|{"); loop(k); sb.append(':'); loop(v); sb.append("}|")
      case FusionType(inner) => sb.append("fusion("); loop(inner); sb.append(')')
      case UnionType(types) =>
        sb.append('(')
        types.zipWithIndex.foreach { case (m, i) => if (i > 0) sb.append('|'); loop(m) }
        sb.append(')')
      case EnumType(symbols) =>
        sb.append("enum(")
        symbols.zipWithIndex.foreach { case (s, i) => if (i > 0) sb.append(','); appendName(sb, s) }
        sb.append(')')
      case ErrorType(inner) => sb.append("error("); loop(inner); sb.append(')')
      case NamedType(name, _) if version > 0 => appendName(sb, name)
      case NamedType(name, inner) =>
        appendName(sb, name); sb.append('=')
        val outer = defining.add(name)
        loop(inner)
        if (outer) defining.remove(name)
    }
    loop(t)
    if (sb.length > MaxTextLength) { sb.setLength(MaxTextLength); sb.append("...") }
    sb.toString
  }

  /** A field, enum symbol or type name as SUP writes it: bare if an identifier, else quoted. */
  def formatName(name: String): String = { val sb = new java.lang.StringBuilder; appendName(sb, name); sb.toString }

  private def isIdentifier(s: String): Boolean =
    s.nonEmpty && (Character.isLetter(s.charAt(0)) || s.charAt(0) == '_' || s.charAt(0) == '$') &&
      s.forall(c => Character.isLetterOrDigit(c) || c == '_' || c == '$')

  private def appendName(sb: java.lang.StringBuilder, name: String): Unit = {
    if (isIdentifier(name) && !byName.contains(name)) sb.append(name)
    else {
      sb.append('"')
      name.foreach {
        case '"' => sb.append("\\\"")
        case '\\' => sb.append("\\\\")
        case '\n' => sb.append("\\n")
        case '\t' => sb.append("\\t")
        case '\r' => sb.append("\\r")
        case c if c < 0x20 => sb.append("\\u%04x".format(c.toInt))
        case c => sb.append(c)
      }
      sb.append('"')
    }
  }

  /**
   * Parses a type written in the syntax of [[format]] (the subset of SUP type syntax that
   * names every type where it is defined). Throws `IllegalArgumentException` on bad input.
   */
  def parse(text: String): SuperType = new TypeParser(text).parseAll()

  private final class TypeParser(s: String) {
    private var pos = 0
    // Names whose definition is being parsed: a bare such name is a recursive reference.
    private val defining = new java.util.HashMap[String, java.util.ArrayList[RecursiveRef]]()

    private def named(n: String): NamedType = {
      val outer = !defining.containsKey(n)
      if (outer) defining.put(n, new java.util.ArrayList[RecursiveRef]())
      val refs = defining.get(n)
      val inner = parseType()
      if (inner.isInstanceOf[RecursiveRef]) fail(s"type '$n' is defined as itself")
      val t = NamedType(n, inner)
      if (outer) { refs.forEach(r => r.bind(t)); defining.remove(n) }
      t
    }

    def parseAll(): SuperType = {
      val t = parseType()
      skipWs()
      if (pos != s.length) fail("unexpected text")
      t
    }

    private def fail(msg: String): Nothing =
      throw new IllegalArgumentException(s"bad Super type '$s' at character $pos: $msg")

    private def skipWs(): Unit = while (pos < s.length && Character.isWhitespace(s.charAt(pos))) pos += 1

    private def peek: Char = { skipWs(); if (pos < s.length) s.charAt(pos) else '\u0000' }

    private def expect(c: Char): Unit = { if (peek != c) fail(s"expected '$c'"); pos += 1 }

    private def lookingAt(prefix: String): Boolean = { skipWs(); s.startsWith(prefix, pos) }

    private def parseName(): String = {
      skipWs()
      if (peek == '"') {
        pos += 1
        val sb = new java.lang.StringBuilder
        while (pos < s.length && s.charAt(pos) != '"') {
          val c = s.charAt(pos)
          if (c == '\\') {
            if (pos + 1 >= s.length) fail("bad escape")
            s.charAt(pos + 1) match {
              case 'n' => sb.append('\n'); pos += 2
              case 't' => sb.append('\t'); pos += 2
              case 'r' => sb.append('\r'); pos += 2
              case 'u' =>
                if (pos + 6 > s.length) fail("bad escape")
                sb.append(Integer.parseInt(s.substring(pos + 2, pos + 6), 16).toChar); pos += 6
              case other => sb.append(other); pos += 2
            }
          } else { sb.append(c); pos += 1 }
        }
        if (pos >= s.length) fail("unterminated name")
        pos += 1
        sb.toString
      } else {
        val start = pos
        while (pos < s.length && (Character.isLetterOrDigit(s.charAt(pos)) || s.charAt(pos) == '_' ||
          s.charAt(pos) == '$')) pos += 1
        if (start == pos) fail("expected a name")
        s.substring(start, pos)
      }
    }

    private def parseList[T](close: Char, item: () => T, sep: Char = ','): IndexedSeq[T] = {
      val out = IndexedSeq.newBuilder[T]
      if (peek == close) { pos += 1; return out.result() }
      var more = true
      while (more) {
        out += item()
        if (peek == sep) pos += 1 else { expect(close); more = false }
      }
      out.result()
    }

    def parseType(): SuperType = {
      if (lookingAt("|[")) {
        pos += 2; val e = parseType(); expect(']'); expect('|'); SetType(e)
      } else if (lookingAt("|{")) {
        pos += 2; val k = parseType(); expect(':'); val v = parseType(); expect('}'); expect('|')
        MapType(k, v)
      } else peek match {
        case '{' =>
          pos += 1
          RecordType(parseList('}', () => { val n = parseName(); expect(':'); Field(n, parseType()) }))
        case '[' => pos += 1; val e = parseType(); expect(']'); ArrayType(e)
        case '(' =>
          pos += 1
          val ts = parseList(')', () => parseType(), '|')
          if (ts.isEmpty) fail("a union needs at least one type")
          // A parenthesized single type, as SUP writes `(port=uint16)`, is that type.
          if (ts.size == 1) ts.head else UnionType(ts)
        case '"' =>
          val n = parseName()
          if (peek == '=') { pos += 1; named(n) } else reference(n)
        case _ =>
          val n = parseName()
          if (peek == '=') { pos += 1; named(n) }
          else if (defining.containsKey(n)) reference(n)
          else if (n == "enum" && peek == '(') { pos += 1; EnumType(parseList(')', () => parseName())) }
          else if (n == "error" && peek == '(') { pos += 1; val t = parseType(); expect(')'); ErrorType(t) }
          else if (n == "fusion" && peek == '(') { pos += 1; val t = parseType(); expect(')'); FusionType(t) }
          else if (n == "set" && peek == '[') { pos += 1; val e = parseType(); expect(']'); SetType(e) }
          else if (n == "map" && peek == '{') {
            pos += 1; val k = parseType(); expect(':'); val v = parseType(); expect('}'); MapType(k, v)
          }
          else byName.getOrElse(n, fail(s"unknown type '$n'"))
      }
    }

    private def reference(n: String): RecursiveRef = {
      val refs = defining.get(n)
      if (refs == null) fail(s"unknown type '$n'")
      val r = new RecursiveRef(n)
      refs.add(r)
      r
    }
  }
}
