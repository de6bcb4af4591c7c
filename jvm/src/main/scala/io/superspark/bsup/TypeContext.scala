package io.superspark.bsup

import scala.collection.mutable.ArrayBuffer

/**
 * The type context of one stream: the complex types defined by its types frames, numbered
 * from 30 in order. [[reset]] at each end of stream.
 */
final class TypeContext {
  private val types = new ArrayBuffer[SuperType]()
  // Nesting depth of each complex type: bounded so that nothing recursing over a type or a
  // value (decoding, hashing, printing) can overflow the stack.
  private val depths = new ArrayBuffer[Int]()
  private var pendingDepth = 0

  def reset(): Unit = { types.clear(); depths.clear() }

  def size: Int = types.size

  def lookup(id: Int): SuperType =
    if (id < SuperType.FirstComplexId) SuperType.primitive(id)
    else {
      val i = id - SuperType.FirstComplexId
      if (i < types.size) types(i) else null
    }

  /** The type of `id`, or an error at the cursor's position `at`. */
  def resolve(c: Cursor, id: Int, at: Int): SuperType = {
    val t = lookup(id)
    if (t == null) c.fail(s"type id $id is not defined in this stream", at)
    t
  }

  private def readType(c: Cursor): SuperType = {
    val at = c.pos
    val id = c.id()
    val t = resolve(c, id, at)
    if (id >= SuperType.FirstComplexId) pendingDepth = math.max(pendingDepth, depths(id - SuperType.FirstComplexId))
    t
  }

  /** Reads every typedef of a (decompressed) types frame payload. */
  def readTypedefs(c: Cursor): Unit = {
    while (c.hasMore) {
      val at = c.pos
      pendingDepth = 0
      val t: SuperType = c.byte() match {
        case 0 =>
          val n = c.count("record field count", 2)
          val fields = new Array[Field](n)
          val seen = new java.util.HashSet[String]()
          var i = 0
          while (i < n) {
            val nameAt = c.pos
            val name = c.countedString("field name")
            if (!seen.add(name)) c.fail(s"duplicate field name '$name'", nameAt)
            fields(i) = Field(name, readType(c))
            i += 1
          }
          RecordType(fields.toIndexedSeq)
        case 1 => ArrayType(readType(c))
        case 2 => SetType(readType(c))
        case 3 =>
          val k = readType(c)
          MapType(k, readType(c))
        case 4 =>
          val n = c.count("union type count")
          if (n == 0) c.fail("a union typedef needs at least one type", at)
          val ts = IndexedSeq.fill(n)(readType(c))
          if (ts.distinct.size != n) c.fail("union types are not unique", at)
          UnionType(ts)
        case 5 =>
          val n = c.count("enum symbol count")
          EnumType(IndexedSeq.fill(n)(c.countedString("enum symbol")))
        case 6 => ErrorType(readType(c))
        case 7 =>
          val name = c.countedString("type name")
          if (SuperType.primitiveByName(name).isDefined) c.fail(s"type name '$name' is a primitive type", at)
          NamedType(name, readType(c))
        case code => c.fail(s"unknown typedef code $code", at)
      }
      if (pendingDepth + 1 > TypeContext.MaxDepth) {
        c.fail(s"type nested more than ${TypeContext.MaxDepth} levels deep", at)
      }
      types += t
      depths += pendingDepth + 1
    }
  }
}

object TypeContext {
  /** Deepest nesting of complex types accepted in a stream. */
  final val MaxDepth = 200
}

/** Type values (the `type` type): the context-free encoding of section 4 of the spec. */
object TypeValues {
  def encode(t: SuperType, out: ByteBuf): Unit = {
    val bound = new java.util.HashMap[String, SuperType]()
    def loop(t: SuperType): Unit = t match {
      case p: PrimitiveType => out.put(p.id)
      case RecordType(fields) =>
        out.put(30); out.putUvarint(fields.size)
        fields.foreach { f => putName(f.name); loop(f.typ) }
      case ArrayType(e) => out.put(31); loop(e)
      case SetType(e) => out.put(32); loop(e)
      case MapType(k, v) => out.put(33); loop(k); loop(v)
      case UnionType(ts) => out.put(34); out.putUvarint(ts.size); ts.foreach(loop)
      case EnumType(ss) => out.put(35); out.putUvarint(ss.size); ss.foreach(putName)
      case ErrorType(e) => out.put(36); loop(e)
      case NamedType(name, inner) =>
        if (bound.get(name) == inner) { out.put(38); putName(name) }
        else { out.put(37); putName(name); loop(inner); bound.put(name, inner) }
    }
    def putName(s: String): Unit = {
      val b = s.getBytes(java.nio.charset.StandardCharsets.UTF_8)
      out.putUvarint(b.length); out.put(b)
    }
    loop(t)
  }

  def encode(t: SuperType): Array[Byte] = { val b = new ByteBuf(32); encode(t, b); b.toArray }

  /** Decodes a type value filling all of `c`'s remaining bytes. */
  def decode(c: Cursor): SuperType = {
    val bound = new java.util.HashMap[String, SuperType]()
    var depth = 0
    def loop(): SuperType = {
      val at = c.pos
      depth += 1
      if (depth > TypeContext.MaxDepth) c.fail("type value nested too deeply", at)
      val code = c.byte()
      val t: SuperType =
        if (code < 30) SuperType.primitive(code)
        else code match {
          case 30 =>
            val n = c.count("record field count", 2)
            RecordType(IndexedSeq.fill(n) { val name = c.countedString("field name"); Field(name, loop()) })
          case 31 => ArrayType(loop())
          case 32 => SetType(loop())
          case 33 => val k = loop(); MapType(k, loop())
          case 34 =>
            val n = c.count("union type count")
            if (n == 0) c.fail("a union type needs at least one type", at)
            UnionType(IndexedSeq.fill(n)(loop()))
          case 35 =>
            val n = c.count("enum symbol count")
            EnumType(IndexedSeq.fill(n)(c.countedString("enum symbol")))
          case 36 => ErrorType(loop())
          case 37 =>
            val name = c.countedString("type name")
            val inner = loop()
            bound.put(name, inner)
            NamedType(name, inner)
          case 38 =>
            val name = c.countedString("type name")
            val inner = bound.get(name)
            if (inner == null) c.fail(s"type value refers to undefined name '$name'", at)
            NamedType(name, inner)
          case other => c.fail(s"unknown type value code $other", at)
        }
      depth -= 1
      t
    }
    val t = loop()
    if (c.hasMore) c.fail("extra bytes after a type value")
    t
  }
}
