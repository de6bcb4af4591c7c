package io.superspark.bsup

import scala.collection.mutable.ArrayBuffer

/**
 * The type context of one stream: the complex types defined by its types frames, numbered
 * in order from the first complex id of the stream's [[version]]. [[reset]] at each end of
 * stream.
 *
 * Types are interned (an equal type is the same object) and the expanded size of each is
 * bounded, so hashing, equality, text and compilation stay linear in the input even when a
 * small types frame describes a DAG whose tree is exponentially large.
 */
private[superspark] final class TypeContext {
  private val types = new ArrayBuffer[SuperType]()
  // Nesting depth and tree size of each complex type: bounded so that nothing recursing over a
  // type or a value (decoding, hashing, printing, compiling) can overflow the stack or blow up.
  private val depths = new ArrayBuffer[Int]()
  private val sizes = new ArrayBuffer[Long]()
  private val interned = new java.util.HashMap[SuperType, SuperType]()
  private val names = new java.util.HashMap[String, SuperType]()
  private var pendingDepth = 0
  private var pendingSize = 0L
  private var first = SuperType.FirstComplexId

  /** The Super Binary version of the stream (set at its first frame). */
  private var _version = 0
  def version: Int = _version
  def version_=(v: Int): Unit = { _version = v; first = BsupVersion.firstComplexId(v) }

  def reset(): Unit = { types.clear(); depths.clear(); sizes.clear(); interned.clear(); names.clear() }

  def size: Int = types.size

  def lookup(id: Int): SuperType =
    if (id < first) BsupVersion.primitive(_version, id)
    else {
      val i = id - first
      if (i < types.size) types(i) else null
    }

  /** The type of `id`, or an error at the cursor's position `at`. */
  def resolve(c: Cursor, id: Int, at: Int): SuperType = {
    val t = lookup(id)
    if (t == null) c.fail(s"type id $id is not defined in this stream", at)
    t
  }

  private def intern(t: SuperType): SuperType = {
    val old = interned.putIfAbsent(t, t)
    if (old == null) t else old
  }

  private def readType(c: Cursor): SuperType = {
    val at = c.pos
    val id = c.id()
    val t = resolve(c, id, at)
    note(id)
    t
  }

  /** Accounts for a reference to `id` in the depth and size of the typedef being read. */
  private def note(id: Int): Unit =
    if (id >= first) {
      pendingDepth = math.max(pendingDepth, depths(id - first))
      pendingSize += sizes(id - first)
    } else pendingSize += 1

  private def add(c: Cursor, t: SuperType, at: Int): Unit = {
    if (pendingDepth + 1 > TypeContext.MaxDepth) {
      c.fail(s"type nested more than ${TypeContext.MaxDepth} levels deep", at)
    }
    if (pendingSize + 1 > TypeContext.MaxNodes) {
      c.fail(s"type expands to more than ${TypeContext.MaxNodes} parts", at)
    }
    types += intern(t)
    depths += pendingDepth + 1
    sizes += pendingSize + 1
  }

  /** Reads every typedef of a (decompressed) types frame payload. */
  def readTypedefs(c: Cursor): Unit =
    if (_version == 0) readTypedefsV0(c) else readTypedefsV5(c)

  private def readRecord(c: Cursor, fieldType: () => SuperType): RecordType = {
    val n = c.count("record field count", 2)
    val fields = new Array[Field](n)
    val seen = new java.util.HashSet[String]()
    var i = 0
    while (i < n) {
      val nameAt = c.pos
      val name = c.countedString("field name")
      if (!seen.add(name)) c.fail(s"duplicate field name '$name'", nameAt)
      fields(i) = Field(name, fieldType())
      i += 1
    }
    RecordType(fields.toIndexedSeq)
  }

  private def readUnion(c: Cursor, at: Int, member: () => SuperType): UnionType = {
    val n = c.count("union type count")
    if (n == 0) c.fail("a union typedef needs at least one type", at)
    val ts = IndexedSeq.fill(n)(member())
    if (ts.distinct.size != n) c.fail("union types are not unique", at)
    UnionType(ts)
  }

  private def readEnum(c: Cursor): EnumType = {
    val n = c.count("enum symbol count")
    EnumType(IndexedSeq.fill(n)(c.countedString("enum symbol")))
  }

  private def checkName(c: Cursor, name: String, at: Int): Unit =
    if (SuperType.primitiveByName(name).isDefined) c.fail(s"type name '$name' is a primitive type", at)

  private def readTypedefsV0(c: Cursor): Unit = {
    while (c.hasMore) {
      val at = c.pos
      pendingDepth = 0
      pendingSize = 0
      val rt = () => readType(c)
      val t: SuperType = c.byte() match {
        case 0 => readRecord(c, rt)
        case 1 => ArrayType(readType(c))
        case 2 => SetType(readType(c))
        case 3 =>
          val k = readType(c)
          MapType(k, readType(c))
        case 4 => readUnion(c, at, rt)
        case 5 => readEnum(c)
        case 6 => ErrorType(readType(c))
        case 7 =>
          val name = c.countedString("type name")
          checkName(c, name, at)
          NamedType(name, readType(c))
        case code => c.fail(s"unknown typedef code $code", at)
      }
      add(c, t, at)
    }
  }

  /**
   * Version 5 typedefs: a named type holds its inner type's id as 4 big-endian bytes, which may
   * refer forward to a later typedef of the frame; all other references point backwards. The
   * frame is therefore read in two passes: the typedefs' shapes first, then the types, named
   * ones resolved through their (possibly later) inner type.
   */
  private def readTypedefsV5(c: Cursor): Unit = {
    final case class Def(at: Int, code: Int, ids: Array[Int], labels: IndexedSeq[String], name: String)
    val base = first + types.size
    val defs = new ArrayBuffer[Def]()
    while (c.hasMore) {
      val at = c.pos
      val next = base + defs.size
      def backRef(): Int = {
        val idAt = c.pos
        val id = c.id()
        if (id >= next) c.fail(s"type id $id refers forward (to a type not defined before it)", idAt)
        if (lookup(id) == null && id < base) c.fail(s"type id $id is not defined in this stream", idAt)
        id
      }
      val d = c.byte() match {
        case 0 =>
          val n = c.count("record field count", 2)
          val labels = new Array[String](n); val ids = new Array[Int](n)
          val seen = new java.util.HashSet[String]()
          var i = 0
          while (i < n) {
            val nameAt = c.pos
            labels(i) = c.countedString("field name")
            if (!seen.add(labels(i))) c.fail(s"duplicate field name '${labels(i)}'", nameAt)
            ids(i) = backRef()
            i += 1
          }
          Def(at, 0, ids, labels.toIndexedSeq, null)
        case code @ (1 | 2 | 6 | 8) => Def(at, code, Array(backRef()), IndexedSeq.empty, null)
        case 3 => val k = backRef(); Def(at, 3, Array(k, backRef()), IndexedSeq.empty, null)
        case 4 =>
          val n = c.count("union type count")
          if (n == 0) c.fail("a union typedef needs at least one type", at)
          Def(at, 4, Array.fill(n)(backRef()), IndexedSeq.empty, null)
        case 5 => Def(at, 5, Array.emptyIntArray, readEnum(c).symbols, null)
        case 7 =>
          val name = c.countedString("type name")
          checkName(c, name, at)
          if (c.remaining < 4) c.fail("truncated named type id (4 bytes)", c.pos)
          val b = c.buf; val p = c.pos
          val id = ((b(p) & 0xffL) << 24 | (b(p + 1) & 0xffL) << 16 | (b(p + 2) & 0xffL) << 8 | (b(p + 3) & 0xffL))
          if (id > Int.MaxValue) c.fail(s"type id $id out of range", p)
          c.pos += 4
          Def(at, 7, Array(id.toInt), IndexedSeq.empty, name)
        case code => c.fail(s"unknown typedef code $code", at)
      }
      defs += d
    }
    // Second pass: build in id order; a named type first builds its inner type.
    val end = base + defs.size
    val state = new Array[Byte](defs.size) // 0 unbuilt, 1 building, 2 built
    val built = new Array[SuperType](defs.size)
    val builtDepth = new Array[Int](defs.size)
    val builtSize = new Array[Long](defs.size)
    val pendingRefs = Array.fill[List[RecursiveRef]](defs.size)(Nil)
    def info(id: Int, from: Def, depth: Int): (SuperType, Int, Long) = {
      if (id < base) {
        val t = lookup(id)
        if (t == null) c.fail(s"type id $id is not defined in this stream", from.at)
        if (id >= first) (t, depths(id - first), sizes(id - first)) else (t, 0, 1L)
      } else if (id >= end) {
        c.fail(s"type id $id is not defined in this stream (named type '${from.name}')", from.at)
      } else build(id - base, depth)
    }
    def build(i: Int, depth: Int): (SuperType, Int, Long) = {
      val d = defs(i)
      if (state(i) == 2) return (built(i), builtDepth(i), builtSize(i))
      if (state(i) == 1) {
        // A cycle: the type refers back to itself. It must do so through its name (only named
        // types may refer forward, so every cycle holds one); the reference is bound below.
        if (d.code != 7) c.fail("a recursive type must refer back to itself through its name", d.at)
        val r = new RecursiveRef(d.name)
        pendingRefs(i) = r :: pendingRefs(i)
        return (r, 0, 1L)
      }
      if (depth > TypeContext.MaxDepth) c.fail(s"type nested more than ${TypeContext.MaxDepth} levels deep", d.at)
      state(i) = 1
      var maxDepth = 0
      var total = 0L
      val kids = d.ids.map { id =>
        val (t, dp, sz) = info(id, d, depth + 1)
        maxDepth = math.max(maxDepth, dp)
        total += sz
        t
      }
      val t: SuperType = d.code match {
        case 0 => RecordType(d.labels.indices.map(k => Field(d.labels(k), kids(k))))
        case 1 => ArrayType(kids(0))
        case 2 => SetType(kids(0))
        case 3 => MapType(kids(0), kids(1))
        case 4 =>
          if (kids.distinct.length != kids.length) c.fail("union types are not unique", d.at)
          UnionType(kids.toIndexedSeq)
        case 5 => EnumType(d.labels)
        case 6 => ErrorType(kids(0))
        case 7 =>
          val previous = names.get(d.name)
          if (previous != null && previous != kids(0)) {
            c.fail(s"type name '${d.name}' is defined again with another type (not allowed in version $version)", d.at)
          }
          if (kids(0).isInstanceOf[RecursiveRef]) c.fail(s"type '${d.name}' is defined as itself", d.at)
          names.put(d.name, kids(0))
          NamedType(d.name, kids(0))
        case 8 => FusionType(kids(0))
      }
      if (maxDepth + 1 > TypeContext.MaxDepth) c.fail(s"type nested more than ${TypeContext.MaxDepth} levels deep", d.at)
      if (total + 1 > TypeContext.MaxNodes) c.fail(s"type expands to more than ${TypeContext.MaxNodes} parts", d.at)
      state(i) = 2
      built(i) = intern(t); builtDepth(i) = maxDepth + 1; builtSize(i) = total + 1
      built(i) match {
        case n: NamedType => pendingRefs(i).foreach(_.bind(n)); pendingRefs(i) = Nil
        case _ =>
      }
      (built(i), builtDepth(i), builtSize(i))
    }
    var i = 0
    while (i < defs.size) {
      build(i, 0)
      types += built(i); depths += builtDepth(i); sizes += builtSize(i)
      i += 1
    }
  }
}

private[superspark] object TypeContext {
  /** Deepest nesting of complex types accepted in a stream. */
  final val MaxDepth = 200

  /** Largest tree (type nodes, counting every use of a shared part) accepted for one type. */
  final val MaxNodes = 100000L
}

/**
 * Type values (the `type` type): the context-free encoding of section 4 of the spec. The codes
 * of complex types start at [[BsupVersion.typeValueBase]] (30 in version 0, 32 in version 5):
 * record, array, set, map, union, enum, error, name definition, name reference, fusion.
 */
private[superspark] object TypeValues {
  def encode(t: SuperType, out: ByteBuf, version: Int): Unit = {
    require(version >= 4 || !t.isRecursive, s"recursive type $t does not exist in Super Binary version $version")
    val base = BsupVersion.typeValueBase(version)
    val bound = new java.util.HashMap[String, SuperType]()
    val defining = new java.util.HashSet[String]()
    def loop(t: SuperType): Unit = t match {
      case p: PrimitiveType => out.put(p.id)
      // Inside its definition a recursive reference is the name; alone, the definition itself.
      case r: RecursiveRef if defining.contains(r.name) || bound.get(r.name) == r.target.inner =>
        out.put(base + 8); putName(r.name)
      case r: RecursiveRef => loop(r.target)
      case RecordType(fields) =>
        out.put(base); out.putUvarint(fields.size)
        fields.foreach { f => putName(f.name); loop(f.typ) }
      case ArrayType(e) => out.put(base + 1); loop(e)
      case SetType(e) => out.put(base + 2); loop(e)
      case MapType(k, v) => out.put(base + 3); loop(k); loop(v)
      case UnionType(ts) => out.put(base + 4); out.putUvarint(ts.size); ts.foreach(loop)
      case EnumType(ss) => out.put(base + 5); out.putUvarint(ss.size); ss.foreach(putName)
      case ErrorType(e) => out.put(base + 6); loop(e)
      case NamedType(name, inner) =>
        if (bound.get(name) == inner) { out.put(base + 8); putName(name) }
        else {
          out.put(base + 7); putName(name)
          val outer = defining.add(name)
          loop(inner)
          if (outer) defining.remove(name)
          bound.put(name, inner)
        }
      case FusionType(inner) =>
        require(version >= 2, s"fusion types do not exist in Super Binary version $version")
        out.put(base + 9); loop(inner)
    }
    def putName(s: String): Unit = {
      val b = s.getBytes(java.nio.charset.StandardCharsets.UTF_8)
      out.putUvarint(b.length); out.put(b)
    }
    loop(t)
  }

  def encode(t: SuperType, version: Int = 0): Array[Byte] = { val b = new ByteBuf(32); encode(t, b, version); b.toArray }

  /** Decodes a type value filling all of `c`'s remaining bytes (in the version of `c`'s stream). */
  def decode(c: Cursor): SuperType = decode(c, c.whereOf.version)

  def decode(c: Cursor, version: Int): SuperType = {
    val base = BsupVersion.typeValueBase(version)
    val bound = new java.util.HashMap[String, SuperType]()
    var depth = 0
    // Parts of the expanded tree: a name reference repeats the whole named type.
    var parts = 0L
    val sizeOf = new java.util.HashMap[String, java.lang.Long]()
    // Names whose definition is being read, with the recursive references made to each.
    val defining = new java.util.HashMap[String, java.util.ArrayList[RecursiveRef]]()
    def loop(): SuperType = {
      val at = c.pos
      depth += 1
      if (depth > TypeContext.MaxDepth) c.fail("type value nested too deeply", at)
      val before = parts
      parts += 1
      val code = c.byte()
      val t: SuperType =
        if (code < base) {
          val p = BsupVersion.primitive(version, code)
          if (p == null) c.fail(s"unknown type value code $code", at)
          p
        } else code - base match {
          case 0 =>
            val n = c.count("record field count", 2)
            RecordType(IndexedSeq.fill(n) { val name = c.countedString("field name"); Field(name, loop()) })
          case 1 => ArrayType(loop())
          case 2 => SetType(loop())
          case 3 => val k = loop(); MapType(k, loop())
          case 4 =>
            val n = c.count("union type count")
            if (n == 0) c.fail("a union type needs at least one type", at)
            UnionType(IndexedSeq.fill(n)(loop()))
          case 5 =>
            val n = c.count("enum symbol count")
            EnumType(IndexedSeq.fill(n)(c.countedString("enum symbol")))
          case 6 => ErrorType(loop())
          case 7 =>
            val name = c.countedString("type name")
            val outer = !defining.containsKey(name)
            if (outer) defining.put(name, new java.util.ArrayList[RecursiveRef]())
            val refs = defining.get(name)
            val inner = loop()
            if (inner.isInstanceOf[RecursiveRef]) c.fail(s"type '$name' is defined as itself", at)
            val named = NamedType(name, inner)
            if (outer) { refs.forEach(r => r.bind(named)); defining.remove(name) }
            bound.put(name, inner)
            sizeOf.put(name, parts - before)
            named
          case 8 =>
            val name = c.countedString("type name")
            val refs = defining.get(name)
            if (refs != null) {
              // A reference from inside the name's own definition: a recursive type (version 4 on).
              if (version < 4) c.fail(s"recursive type '$name' does not exist in Super Binary version $version", at)
              val r = new RecursiveRef(name)
              refs.add(r)
              r
            } else {
              val inner = bound.get(name)
              if (inner == null) c.fail(s"type value refers to undefined name '$name'", at)
              parts += sizeOf.get(name)
              NamedType(name, inner)
            }
          case 9 if version >= 2 => FusionType(loop())
          case _ => c.fail(s"unknown type value code $code", at)
        }
      if (parts > TypeContext.MaxNodes) c.fail(s"type value expands to more than ${TypeContext.MaxNodes} parts", at)
      depth -= 1
      t
    }
    val t = loop()
    if (c.hasMore) c.fail("extra bytes after a type value")
    t
  }
}
