package io.superspark.bsup

import java.io.OutputStream

import net.jpountz.lz4.LZ4Factory

/** Options of [[BsupWriter]]. */
private[superspark] final case class BsupWriterOptions(
    compress: Boolean = true,
    /** Values (and typedefs) are flushed as a frame once they reach this many bytes. */
    frameSize: Int = BsupWriterOptions.DefaultFrameSize,
    /** A stream is ended once this many uncompressed value bytes were written to it (0: never). */
    streamSize: Long = 0L,
    /** The Super Binary version written: 0 (the spec's, SuperDB v0.1.0) or 5 (current SuperDB). */
    version: Int = 0)

private[superspark] object BsupWriterOptions {
  final val DefaultFrameSize: Int = 512 * 1024
}

/**
 * A Super Binary writer. Values are buffered per frame; each flush writes a types frame with
 * the typedefs defined since the previous flush, then a values frame, each LZ4-compressed
 * (block format) when that makes it smaller. Streams end at [[endStream]], at [[close]], and
 * every `streamSize` value bytes, each with its own type context.
 *
 * For speed callers may encode a value themselves: `val b = startValue(t)`, append exactly
 * one tag-encoded value to `b`, then [[finishValue]].
 */
private[superspark] final class BsupWriter(out: OutputStream, opts: BsupWriterOptions = BsupWriterOptions()) extends AutoCloseable {
  require(opts.frameSize > 0, "frameSize must be positive")
  require(BsupVersion.isSupported(opts.version), s"Super Binary version ${opts.version} cannot be written (0 or 5)")

  /** The Super Binary version this writer writes. */
  val version: Int = opts.version
  private val firstId = BsupVersion.firstComplexId(version)

  private val typedefs = new ByteBuf(1024)
  private val values = new ByteBuf(math.min(opts.frameSize, 1 << 20) + 1024)
  private val ids = new java.util.HashMap[SuperType, Integer]()
  private var nextId = firstId
  private var streamBytes = 0L
  private var streamOpen = false
  private var compressBuf: Array[Byte] = Array.emptyByteArray
  private val header = new Array[Byte](32)
  private lazy val compressor = LZ4Factory.fastestInstance().fastCompressor()

  /** Bytes written to `out` so far. */
  var position: Long = 0L

  /** The stream-local id of `t`, emitting its typedefs (and those of its parts) if new. */
  def typeId(t: SuperType): Int = t match {
    case p: PrimitiveType =>
      require(BsupVersion.primitive(version, p.id) == p, s"type $p does not exist in Super Binary version $version")
      p.id
    // A recursive reference is its named type, whose id exists (it is given before its inner type).
    case r: RecursiveRef =>
      require(version >= 4, s"recursive type ${r.target} cannot be written in Super Binary version $version")
      typeId(r.target)
    case NamedType(name, inner) if version > 0 && ids.get(t) == null =>
      // As the reference writes it: the name first, its inner type's id as 4 bytes that may
      // point forward to the inner typedef written right after.
      typedefs.put(7); putName(name)
      val patch = typedefs.size
      typedefs.putFixed32(0)
      val id = nextId
      nextId += 1
      ids.put(t, id)
      names.put(name, inner)
      typedefs.setFixed32(patch, typeId(inner))
      id
    case _ =>
      val known = ids.get(t)
      if (known != null) known
      else {
        t match {
          case RecordType(fields) =>
            val fieldIds = fields.map(f => typeId(f.typ))
            typedefs.put(0); typedefs.putUvarint(fields.size)
            fields.zip(fieldIds).foreach { case (f, id) => putName(f.name); typedefs.putUvarint(id) }
          case ArrayType(e) => val id = typeId(e); typedefs.put(1); typedefs.putUvarint(id)
          case SetType(e) => val id = typeId(e); typedefs.put(2); typedefs.putUvarint(id)
          case MapType(k, v) =>
            val kid = typeId(k); val vid = typeId(v)
            typedefs.put(3); typedefs.putUvarint(kid); typedefs.putUvarint(vid)
          case UnionType(ts) =>
            val tids = ts.map(typeId)
            typedefs.put(4); typedefs.putUvarint(ts.size); tids.foreach(i => typedefs.putUvarint(i))
          case EnumType(ss) => typedefs.put(5); typedefs.putUvarint(ss.size); ss.foreach(putName)
          case ErrorType(e) => val id = typeId(e); typedefs.put(6); typedefs.putUvarint(id)
          case NamedType(name, inner) =>
            val id = typeId(inner); typedefs.put(7); putName(name); typedefs.putUvarint(id)
          case FusionType(e) =>
            require(version >= 2, s"fusion types do not exist in Super Binary version $version")
            val id = typeId(e); typedefs.put(8); typedefs.putUvarint(id)
          case _: PrimitiveType | _: RecursiveRef => throw new IllegalStateException(t.toString)
        }
        val id = nextId
        nextId += 1
        ids.put(t, id)
        id
      }
  }

  private def putName(s: String): Unit = {
    val b = s.getBytes(java.nio.charset.StandardCharsets.UTF_8)
    typedefs.putUvarint(b.length); typedefs.put(b)
  }

  // Version 5: the inner type of each name of the stream (a name cannot be redefined in a stream).
  private val names = new java.util.HashMap[String, SuperType]()

  /** True when `t` gives a name of the current stream another type (version 5 only). */
  private def redefines(t: SuperType): Boolean = {
    val seen = new java.util.IdentityHashMap[SuperType, java.lang.Boolean]()
    def loop(t: SuperType): Boolean = seen.put(t, true) == null && (t match {
      case NamedType(n, inner) =>
        val old = names.get(n)
        (old != null && old != inner) || loop(inner)
      case other => SuperType.children(other).exists(loop)
    })
    loop(t)
  }

  // The type of the previous value and its id (cleared at each stream's end): rows of one schema
  // skip the map lookups (and the equality walks) of their type.
  private var lastType: SuperType = null
  private var lastId = 0

  def startValue(t: SuperType): ByteBuf = {
    if (t ne lastType) {
      // Version 5 forbids redefining a name inside a stream: such a value starts a new stream.
      if (version > 0 && !t.isInstanceOf[PrimitiveType] && ids.get(t) == null && redefines(t)) endStream()
      lastId = typeId(t)
      lastType = t
    }
    values.putUvarint(lastId)
    values
  }

  def finishValue(): Unit = {
    streamOpen = true
    if (values.size >= opts.frameSize || typedefs.size >= opts.frameSize) flush()
  }

  /** Writes one value of the generic model (see `Values.scala`). */
  def write(t: SuperType, v: Any): Unit = {
    val b = startValue(t)
    ValueCodec.encodeTagged(t, v, b, version)
    finishValue()
  }

  def write(v: Value): Unit = write(v.typ, v.value)

  /** Writes a control frame (after flushing pending values, to keep their order). */
  def writeControl(encoding: Int, body: Array[Byte]): Unit = {
    flush()
    val payload = new Array[Byte](body.length + 1)
    payload(0) = encoding.toByte
    System.arraycopy(body, 0, payload, 1, body.length)
    writeFrame(2, payload, payload.length)
  }

  /** Writes pending typedefs and values as frames. */
  def flush(): Unit = {
    flushFrames()
    if (opts.streamSize > 0 && streamBytes >= opts.streamSize) endStream()
  }

  private def flushFrames(): Unit = {
    if (typedefs.size > 0) writeFrame(0, typedefs.bytes, typedefs.size)
    if (values.size > 0) writeFrame(1, values.bytes, values.size)
    streamBytes += values.size
    typedefs.clear()
    values.clear()
  }

  /** Ends the current stream (if anything was written to it) and resets the type context. */
  def endStream(): Unit = {
    flushFrames()
    if (streamOpen) {
      out.write(FrameReader.EndOfStreamByte)
      position += 1
    }
    streamOpen = false
    streamBytes = 0
    ids.clear()
    names.clear()
    lastType = null
    nextId = firstId
  }

  private def writeFrame(frameType: Int, b: Array[Byte], len: Int): Unit = {
    streamOpen = true
    if (version > 0) { out.write(BsupVersion.frameByte(version)); position += 1 }
    if (opts.compress) {
      val max = compressor.maxCompressedLength(len)
      if (compressBuf.length < max) compressBuf = new Array[Byte](max)
      val zlen = compressor.compress(b, 0, len, compressBuf, 0, max)
      if (zlen < len) {
        val total = zlen + 1 + Varint.uvarintSize(len)
        var h = 0
        header(h) = ((frameType << 4) | (total & 0xf) | 0x40).toByte; h += 1
        h += Varint.putUvarint(header, h, (total >>> 4).toLong)
        header(h) = 0; h += 1
        h += Varint.putUvarint(header, h, len.toLong)
        out.write(header, 0, h)
        out.write(compressBuf, 0, zlen)
        position += h + zlen
        return
      }
    }
    var h = 0
    header(h) = ((frameType << 4) | (len & 0xf)).toByte; h += 1
    h += Varint.putUvarint(header, h, (len >>> 4).toLong)
    out.write(header, 0, h)
    out.write(b, 0, len)
    position += h + len
  }

  override def close(): Unit = {
    endStream()
    out.close()
  }
}
