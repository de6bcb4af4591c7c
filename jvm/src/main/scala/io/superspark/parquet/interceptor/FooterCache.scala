package io.superspark.parquet.interceptor

import io.superspark.parquet.footer.files.FooterBytes

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
 * Keyed by path, length and modification time, as the file system reports them when the file
 * is opened (not as the planner listed them): a file rewritten in place gets a new key, and
 * its old entry is never served (it ages out). A rewrite of the same length within the file
 * system's mtime resolution (1 ms locally; 1 s on some object stores) would not be seen: the
 * same limit as Spark's own file status cache.
 *
 * Bounded in bytes (the footer bytes held; the entries' own overhead is a few hundred bytes):
 * least recently used entries go first; a footer larger than the bound is not kept. The bound
 * is the one given with each `put` (the session setting of the scan that inserts), so a smaller
 * bound set later takes effect at the next insert. One lock guards the map; it is held for map
 * operations only, never during I/O or decoding.
 */
private[superspark] object FooterCache {

  final case class Key(path: String, length: Long, modificationTime: Long)

  /** A footer's bytes; `whole`: the whole footer (else the extension part alone, no Thrift part). */
  final case class Entry(bytes: FooterBytes, whole: Boolean) {
    def size: Long = bytes.footer.length.toLong
  }

  private val lock = new Object
  /** Access order: iteration starts at the least recently used entry. */
  private val entries = new java.util.LinkedHashMap[Key, Entry](16, 0.75f, true)
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
      val it = entries.values.iterator
      while (held + size > maxBytes && it.hasNext) {
        held -= it.next().size
        it.remove()
        evictions += 1
      }
      entries.put(key, entry)
      held += size
    }
  }

  /** Drops the entry of `key` (e.g. one whose bytes no longer decode for some projection). */
  def remove(key: Key): Unit = lock.synchronized {
    val old = entries.remove(key)
    if (old != null) held -= old.size
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

  def clear(): Unit = lock.synchronized {
    entries.clear()
    held = 0
    evictions = 0
  }
}
