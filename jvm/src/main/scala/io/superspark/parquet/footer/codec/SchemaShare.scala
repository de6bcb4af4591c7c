package io.superspark.parquet.footer.codec

import java.nio.{ByteBuffer, ByteOrder}

/**
 * Schemas of FlatBuffer footers, kept apart from their footers so that a footer whose schema
 * repeats one of them is given it without its elements walked and read again. The files of
 * one table repeat one schema: at 10,000 columns the head check and read of the schema were a
 * third of a first query's task time (issue 39).
 *
 * An entry is the bytes the head check of a schema's elements read
 * ([[FlatBufferVerifier.HeadSchema]]: `lo` to `hi`, their tables, vtables and strings), copied,
 * where each element starts in them, and the [[FlatSchema]] read from the copy. Another buffer
 * repeats it when its schema vector has as many entries, pointing at elements that start at the
 * same places in a run of the same bytes, a run apart from the vector (a writer builds the
 * vector after the row groups, so the distance between them differs from file to file).
 * FlatBuffers' offsets are relative: the check of those elements would read the same bytes and
 * pass, and they read the same. The comparison is the whole cost of a hit.
 *
 * Bounded: at most `maxBytes` of copies and `maxEntries` entries, the least recently used
 * dropped first; a schema whose checked bytes exceed `maxBytes / 4` is not kept.
 */
private[superspark] final class SchemaShare(maxBytes: Long, maxEntries: Int) {
  /**
   * `copy`: the schema's vector, then from `base` the elements' bytes it points into, which the
   * schema reads; `starts(i)`: where element i starts in those bytes.
   */
  private final class Entry(val copy: Array[Byte], val base: Int, val starts: Array[Int], val schema: FlatSchema) {
    def length: Int = copy.length - base
    def held: Long = copy.length + 4L * starts.length
  }

  // most recently used first; a handful of entries, so a list under a lock (held for list operations only)
  private val entries = new java.util.ArrayList[Entry]()
  private var held = 0L

  /** Where entry `i` of the vector at `vectorPos` points (its bytes in the buffer: checked by the caller). */
  private def target(bb: ByteBuffer, vectorPos: Int, i: Int): Long = {
    val at = vectorPos + 4L + 4L * i
    at + (bb.getInt(at.toInt).toLong & 0xFFFFFFFFL)
  }

  /**
   * The schema kept whose elements `bb` repeats, its schema vector at `vectorPos` with `count`
   * entries inside the buffer (checked by the caller), or null.
   */
  def find(buf: ByteBuffer, vectorPos: Int, count: Int): FlatSchema = {
    val bb = buf.duplicate().order(ByteOrder.LITTLE_ENDIAN)
    // compared outside the lock (a comparison reads the schema's bytes once)
    val kept = entries.synchronized(entries.toArray(new Array[Entry](0)))
    var i = 0
    while (i < kept.length) {
      val e = kept(i)
      if (e.starts.length == count && repeats(bb, vectorPos, e)) {
        if (i > 0) entries.synchronized { if (entries.remove(e)) entries.add(0, e) }
        return e.schema
      }
      i += 1
    }
    null
  }

  /** Whether the elements' bytes `[lo, hi)` overlap the vector of `count` entries at `vectorPos`. */
  private def overlaps(lo: Long, hi: Long, vectorPos: Int, count: Int): Boolean =
    lo < vectorPos + 4L + 4L * count && vectorPos < hi

  private def repeats(bb: ByteBuffer, vectorPos: Int, e: Entry): Boolean = {
    val lo = target(bb, vectorPos, 0) - e.starts(0)
    val hi = lo + e.length
    if (lo < 0 || hi > bb.limit() || overlaps(lo, hi, vectorPos, e.starts.length)) return false
    val same =
      if (bb.hasArray) java.util.Arrays.equals(bb.array(), bb.arrayOffset() + lo.toInt, bb.arrayOffset() + hi.toInt,
        e.copy, e.base, e.copy.length)
      else bb.duplicate().position(lo.toInt).limit(hi.toInt).mismatch(ByteBuffer.wrap(e.copy, e.base, e.length).slice()) == -1
    var i = 1
    while (same && i < e.starts.length) {
      if (target(bb, vectorPos, i) - lo != e.starts(i)) return false
      i += 1
    }
    same
  }

  /**
   * The schema of `bb` that `head` describes (a sound head check without a shared schema),
   * read from a copy of its elements' bytes and kept; read from `bb` itself when too large to
   * keep or when its vector lies among its elements. A schema that does not read
   * (FooterDecodeException) is not kept.
   */
  def read(buf: ByteBuffer, head: FlatBufferVerifier.HeadSchema): FlatSchema = {
    val bb = buf.duplicate().order(ByteOrder.LITTLE_ENDIAN)
    val length = head.hi.toLong - head.lo
    val count = bb.getInt(head.vectorPos)
    if (head.lo < 0 || length <= 0 || length > maxBytes / 4 || overlaps(head.lo, head.hi, head.vectorPos, count))
      return FlatSchema.at(bb, head.vectorPos)
    // the copy: a vector of `count` entries, then the elements' bytes it points into
    val vectorBytes = 4 + 4 * count
    val copy = ByteBuffer.allocate(vectorBytes + length.toInt).order(ByteOrder.LITTLE_ENDIAN)
    val starts = new Array[Int](count)
    copy.putInt(0, count)
    var i = 0
    while (i < count) {
      starts(i) = (target(bb, head.vectorPos, i) - head.lo).toInt
      copy.putInt(4 + 4 * i, vectorBytes + starts(i) - (4 + 4 * i))
      i += 1
    }
    bb.duplicate().position(head.lo).get(copy.array(), vectorBytes, length.toInt)
    val schema = FlatSchema.at(copy, 0)
    val e = new Entry(copy.array(), vectorBytes, starts, schema)
    entries.synchronized {
      entries.add(0, e)
      held += e.held
      while (held > maxBytes || entries.size > maxEntries) held -= entries.remove(entries.size - 1).held
    }
    schema
  }

  def clear(): Unit = entries.synchronized { entries.clear(); held = 0L }

  /** Entries and bytes kept (tests). */
  def size: (Int, Long) = entries.synchronized((entries.size, held))
}

private[superspark] object SchemaShare {
  /** The schemas of the footers this JVM reads ([[io.superspark.parquet.footer.files.FooterReader.head]]). */
  val Footers = new SchemaShare(maxBytes = 64L << 20, maxEntries = 64)
}
