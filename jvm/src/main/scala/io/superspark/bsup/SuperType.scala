package io.superspark.bsup

/**
 * The types of the super data model, as carried by Super Binary (version 0).
 *
 * Types are plain values with structural equality: two streams that define the same record
 * type get equal `SuperType`s even though their stream-local type ids differ. A named type
 * is equal to another only if both name and underlying type are equal.
 */
sealed trait SuperType {
  /** The type in Super (SUP) type syntax, e.g. `{a:int64,b:[string],c:(int64|string)}`. */
  override def toString: String = SuperType.format(this)

  /** The type with every outer name removed. */
  def underlying: SuperType = this
}

final case class PrimitiveType(id: Int, name: String) extends SuperType {
  override def toString: String = name
}

final case class Field(name: String, typ: SuperType)

// Complex types cache their hash code: a type that shares sub-types (a DAG, as types frames
// can build) then hashes in time linear in its distinct parts, not in its expanded size.
final case class RecordType(fields: IndexedSeq[Field]) extends SuperType {
  def fieldIndex(name: String): Int = fields.indexWhere(_.name == name)
  override val hashCode: Int = scala.util.hashing.MurmurHash3.caseClassHash(this)
}
final case class ArrayType(elem: SuperType) extends SuperType {
  override val hashCode: Int = scala.util.hashing.MurmurHash3.caseClassHash(this)
}
final case class SetType(elem: SuperType) extends SuperType {
  override val hashCode: Int = scala.util.hashing.MurmurHash3.caseClassHash(this)
}
final case class MapType(key: SuperType, value: SuperType) extends SuperType {
  override val hashCode: Int = scala.util.hashing.MurmurHash3.caseClassHash(this)
}
final case class UnionType(types: IndexedSeq[SuperType]) extends SuperType {
  override val hashCode: Int = scala.util.hashing.MurmurHash3.caseClassHash(this)
}
final case class EnumType(symbols: IndexedSeq[String]) extends SuperType {
  override val hashCode: Int = scala.util.hashing.MurmurHash3.caseClassHash(this)
}
final case class ErrorType(inner: SuperType) extends SuperType {
  override val hashCode: Int = scala.util.hashing.MurmurHash3.caseClassHash(this)
}
final case class NamedType(name: String, inner: SuperType) extends SuperType {
  override def underlying: SuperType = inner.underlying
  override val hashCode: Int = scala.util.hashing.MurmurHash3.caseClassHash(this)
}
/**
 * A fusion type (Super Binary version 2 on): a value of the supertype `inner` that also
 * carries the type it had before fusion (see [[FusionValue]]).
 */
final case class FusionType(inner: SuperType) extends SuperType {
  override val hashCode: Int = scala.util.hashing.MurmurHash3.caseClassHash(this)
}

object SuperType {
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
   */
  def format(t: SuperType, version: Int = 0): String = {
    val sb = new java.lang.StringBuilder
    def loop(t: SuperType): Unit = if (sb.length > MaxTextLength) () else t match {
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
      case NamedType(name, inner) => appendName(sb, name); sb.append('='); loop(inner)
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
          val n = parseName(); expect('='); NamedType(n, parseType())
        case _ =>
          val n = parseName()
          if (peek == '=') { pos += 1; NamedType(n, parseType()) }
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
  }
}
