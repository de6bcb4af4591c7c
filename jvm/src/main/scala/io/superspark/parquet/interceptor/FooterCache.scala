package io.superspark.parquet.interceptor

import io.superspark.parquet.footer.files.FooterBytes
import io.superspark.parquet.footer.codec.SchemaShare

/**
 * The verified-footer cache (issue 24): one per JVM, shared by the tasks of an executor and,
 * in the driver, by schema inference and planning. It holds a file's footer bytes as
 * [[FooterOpener]] read them (the extension part alone, or the whole footer) once their
 * FlatBuffer was found sound, so the next read of that footer, by another task or query, does
 * no I/O. The CRCs were checked when the bytes were read (once per instance,
 * `FooterBytes.located`), and so was the FlatBuffer's head (`FooterBytes.verifiedHead`); a hit
 * verifies the column chunks it reads while it decodes them, and decodes them as a
 * miss does.
 *
 * Keyed by path, length, modification time and, where the file system's status carries one
 * (Hadoop's `EtagSource`: S3A, ABFS), the object's ETag, or on `gs://` the object's generation
 * (`FooterFiles.versionOf`), as the file system reports them when
 * the file is opened (not as the planner listed them). A file rewritten in place gets a new
 * key and its old entry is never served (it ages out). On a store with an ETag a rewrite
 * always changes the key, whatever its length and time (S3's Last-Modified has one-second
 * resolution: a same-length rewrite within that second kept the old key before issue 31 and
 * was answered from the old footer's statistics).
 *
 * Where the status has no ETag (local files, HDFS, stores whose connector reports none), the
 * key alone cannot tell a same-length rewrite within the store's time resolution (1 ms
 * locally and on HDFS, 1 s on some stores, or a copy that preserves the modification time).
 * There each entry also keeps the file's last [[TailBytes]] bytes as read with the footer
 * (checked against the footer bytes they overlap), and a hit first reads those bytes again
 * and compares them ([[Entry.tail]]): a rewrite is then served from the cache only if it
 * keeps the path, the length, the time, the footer's length and the FlatBuffer's last bytes
 * and CRC-32 (about one chance in 2^32 per such rewrite). The check costs one small read per
 * hit (counted in the footer bytes read); with an ETag a hit does no I/O.
 *
 * Bounded in bytes (the footer bytes held; the entries' own overhead is a few hundred bytes):
 * least recently used entries go first; a footer larger than the bound is not kept. The bound
 * is the one given with each `put` (the session setting of the scan that inserts), so a smaller
 * bound set later takes effect at the next insert. One lock guards the map; it is held for map
 * operations only, never during I/O or decoding.
 */
private[superspark] object FooterCache {

  /** `version`: the object's ETag where the status carries one (Hadoop's `EtagSource`), its generation on GCS, else "". */
  final case class Key(path: String, length: Long, modificationTime: Long, version: String = "")

  /**
   * A footer's bytes; `whole`: the whole footer (else the extension part alone, no Thrift part).
   * `tail`: the file's last [[TailBytes]] bytes (fewer in a shorter file) for a key without a
   * version, null for a key with one.
   */
  final case class Entry(bytes: FooterBytes, whole: Boolean, tail: Array[Byte] = null) {
    def size: Long = bytes.footer.length.toLong + (if (tail == null) 0 else tail.length)
  }

  /**
   * The tail compared on a hit without a version: it holds the footer length and magic, and
   * the end of the FlatBuffer with its CRC-32, its length and that length's CRC-32, in every
   * form (private, intermediate: 45 bytes; final: 16 bytes).
   */
  val TailBytes = 64

  /** Where the tail is read from in a file of `length` bytes, and how many bytes. */
  def tailRange(length: Long): (Long, Int) = {
    val n = math.min(length, TailBytes.toLong).toInt
    (length - n, n)
  }

  /**
   * Whether `tail` (the file's last bytes) agrees with `bytes` where they overlap: a file
   * replaced between the footer's read and the tail's does not agree (its FlatBuffer's CRC
   * differs), and its entry is not kept.
   */
  def agrees(bytes: FooterBytes, tail: Array[Byte]): Boolean = {
    val tailStart = bytes.fileLength - tail.length
    val from = math.max(tailStart, bytes.footerOffset)
    val until = math.min(bytes.fileLength, bytes.footerOffset + bytes.footer.length)
    from < until && java.util.Arrays.equals(
      tail, (from - tailStart).toInt, (until - tailStart).toInt,
      bytes.footer, (from - bytes.footerOffset).toInt, (until - bytes.footerOffset).toInt)
  }

  private val lock = new Object
  /** Access order: iteration starts at the least recently used entry. */
  private val entries = new java.util.LinkedHashMap[Key, Entry](16, 0.75f, true)
  /** The entries by path and length alone, for [[dataEnd]]: the last key put of each, and its data's end. */
  private val byFile = new java.util.HashMap[(String, Long), (Key, Long)]
  private def unindex(key: Key): Unit = {
    val at = byFile.get((key.path, key.length))
    if (at != null && at._1 == key) byFile.remove((key.path, key.length))
  }
  private var held = 0L
  private var evictions = 0L

  /** The cached footer of `key`, marked most recently used. */
  def get(key: Key): Option[Entry] = lock.synchronized(Option(entries.get(key)))

  /**
   * Keeps `bytes` for `key` within `maxBytes`, evicting least recently used entries; a footer
   * larger than `maxBytes` is not kept. Replaces an entry of the same key.
   */
  def put(key: Key, entry: Entry, maxBytes: Long): Unit = lock.synchronized {
    val size = entry.size
    val old = entries.remove(key)
    if (old != null) held -= old.size
    if (size <= maxBytes) {
      val it = entries.entrySet.iterator
      while (held + size > maxBytes && it.hasNext) {
        val e = it.next()
        held -= e.getValue.size
        it.remove()
        unindex(e.getKey)
        evictions += 1
      }
      entries.put(key, entry)
      byFile.put((key.path, key.length), (key, entry.bytes.dataEnd))
      held += size
    } else {
      unindex(key)
    }
  }

  /**
   * Where the data of the file at `path` of `length` bytes ends (its footer starts), when the
   * cache holds that file's footer: a scan that reads it from here reads none of the footer's
   * bytes from the file ([[FooterSplitPacking]]). Not marked as used; no version or time
   * checked (a hint for packing splits, never for reading).
   */
  def dataEnd(path: String, length: Long): Option[Long] = lock.synchronized {
    Option(byFile.get((path, length))).map(_._2)
      .orElse(Option[java.lang.Long](reported.get((path, length))).map(_.longValue))
  }

  /**
   * The data ends of footers other JVMs' caches hold, as their scans' tasks reported them
   * ([[DataEndReports]]): on a cluster's driver, the executors' footers, which this JVM's cache
   * does not hold. At most [[ReportedFiles]] files, least recently reported dropped first.
   */
  private val reported = new java.util.LinkedHashMap[(String, Long), java.lang.Long](16, 0.75f, true) {
    override def removeEldestEntry(e: java.util.Map.Entry[(String, Long), java.lang.Long]): Boolean =
      size > ReportedFiles
  }
  val ReportedFiles = 100000

  /** Another JVM's cache holds the footer of `path` of `length` bytes, whose data end at `end`. */
  def noteReported(path: String, length: Long, end: Long): Unit = lock.synchronized {
    reported.put((path, length), end)
  }

  private[interceptor] def reportedCount: Int = lock.synchronized(reported.size)

  /** Drops the entry of `key` (e.g. one whose bytes no longer decode for some projection). */
  def remove(key: Key): Unit = lock.synchronized {
    val old = entries.remove(key)
    if (old != null) held -= old.size
    unindex(key)
  }

  /** Footer bytes held now; never more than the bound of the last insert. */
  def heldBytes: Long = lock.synchronized(held)

  def size: Int = lock.synchronized(entries.size)

  /** The entries' bytes summed afresh (tests check `heldBytes` against it). */
  private[interceptor] def recount(): Long = lock.synchronized {
    var n = 0L
    entries.values.forEach(e => n += e.size)
    n
  }

  /** Entries evicted for room since the JVM started (or the last `clear`). */
  def evictionCount: Long = lock.synchronized(evictions)

  /**
   * Empties the cache, the data ends other JVMs reported, and the schemas kept apart from
   * footers ([[SchemaShare.Footers]]): the next read of any footer is cold.
   */
  def clear(): Unit = lock.synchronized {
    entries.clear()
    byFile.clear()
    reported.clear()
    held = 0
    evictions = 0
    SchemaShare.Footers.clear()
  }
}
