package io.superspark.parquet.footer.writers

import java.io.OutputStream

import org.apache.hadoop.fs.{Abortable, FSDataOutputStream, Path, StreamCapabilities, Syncable}
import org.apache.hadoop.fs.statistics.{IOStatistics, IOStatisticsSource}

import io.superspark.parquet.footer.codec.FooterForm

/**
 * An output stream that passes every byte to `out` except the last `maxTail` written, which it
 * holds in a ring buffer (grown on demand, at most `maxTail` bytes). At [[close]] the held
 * bytes are written with the footer extension added when [[EveryWriter.extendTail]] finds a
 * Parquet footer in them, else as they are; then `out` is closed. Bytes before the footer are
 * never changed, and their order never: what reaches `out` is always a prefix of what the
 * writer wrote, until the tail.
 *
 * `hflush`/`hsync` mid-file give the hold up: the held bytes are written, the stream passes
 * everything through from then on, and the file is left alone ([[EveryWriter.Reasons.Flushed]]);
 * one asked for once the whole file is written (the held bytes end with `PAR1`) is kept for the
 * close (see `pendingSync`). `flush` flushes what `out` has. [[abort]] drops the held bytes and
 * aborts `out` when it can.
 */
private[superspark] final class HeldTailStream(out: FSDataOutputStream, path: Path, form: FooterForm, maxTail: Int)
    extends OutputStream with Syncable with StreamCapabilities with IOStatisticsSource with Abortable {

  private var buf = new Array[Byte](math.min(maxTail, 64 * 1024))
  /** Index of the oldest held byte in `buf`, and how many are held. */
  private var head = 0
  private var size = 0
  private var passThrough = false
  private var flushedReason: String = null
  private var closed = false
  private var accounted = buf.length.toLong
  EveryWriter.held(accounted)

  private def grow(need: Int): Unit = if (need > buf.length && buf.length < maxTail) {
    val cap = math.min(maxTail.toLong, math.max(need.toLong, buf.length.toLong * 2)).toInt
    val nb = new Array[Byte](cap)
    copyHeld(nb, 0)
    buf = nb
    head = 0
    EveryWriter.held(cap - accounted)
    accounted = cap
  }

  /** The held bytes, oldest first, into `dst` at `at`. */
  private def copyHeld(dst: Array[Byte], at: Int): Unit = {
    val first = math.min(size, buf.length - head)
    System.arraycopy(buf, head, dst, at, first)
    System.arraycopy(buf, 0, dst, at + first, size - first)
  }

  /** Writes the `n` oldest held bytes to `out` and drops them. */
  private def release(n: Int): Unit = if (n > 0) {
    val first = math.min(n, buf.length - head)
    out.write(buf, head, first)
    if (n > first) out.write(buf, 0, n - first)
    head = (head + n) % buf.length
    size -= n
  }

  private def releaseAll(): Unit = { release(size); head = 0 }

  /** Appends `len` bytes (at most the free space). */
  private def append(b: Array[Byte], off: Int, len: Int): Unit = {
    val tail = (head + size) % buf.length
    val first = math.min(len, buf.length - tail)
    System.arraycopy(b, off, buf, tail, first)
    System.arraycopy(b, off + first, buf, 0, len - first)
    size += len
  }

  override def write(b: Int): Unit = write(Array(b.toByte), 0, 1)

  override def write(b: Array[Byte], off: Int, len: Int): Unit = {
    if (closed) throw new java.io.IOException(s"$path: stream closed")
    honourPendingSync()
    if (passThrough) { out.write(b, off, len); return }
    if (len >= maxTail) {
      // the new bytes alone fill the hold: everything before their last maxTail bytes goes out
      releaseAll()
      out.write(b, off, len - maxTail)
      grow(maxTail)
      head = 0
      append(b, off + len - maxTail, maxTail)
      return
    }
    grow(size + len)
    val over = size + len - buf.length
    if (over > 0) release(over)
    append(b, off, len)
  }

  override def flush(): Unit = out.flush()

  private def giveUp(reason: String): Unit = if (!passThrough) {
    releaseAll()
    passThrough = true
    flushedReason = reason
    dropBuffer()
  }

  /**
   * A sync asked for when the held bytes already end with a Parquet footer's magic (the writer
   * has written its whole file: parquet-java 1.15 calls `hflush` in `close`): kept pending, so
   * that the close that follows writes the footer extended and syncs before closing. Any write
   * after it gives the hold up first.
   */
  private var pendingSync: String = null

  private def endsWithMagic: Boolean = size >= 4 && {
    val m = io.superspark.parquet.footer.codec.FooterLayout.Magic
    (0 until 4).forall(i => buf((head + size - 4 + i) % buf.length) == m(i))
  }

  private def sync(kind: String): Unit =
    if (passThrough) { if (kind == "hsync") out.hsync() else out.hflush() }
    else if (endsWithMagic) { if (pendingSync != "hsync") pendingSync = kind }
    else { giveUp(kind); if (kind == "hsync") out.hsync() else out.hflush() }

  override def hflush(): Unit = sync("hflush")
  override def hsync(): Unit = sync("hsync")

  /** A write after a pending sync: the bytes it promised visible go out now, and the hold ends. */
  private def honourPendingSync(): Unit = if (pendingSync != null) {
    val kind = pendingSync
    pendingSync = null
    giveUp(kind)
    if (kind == "hsync") out.hsync() else out.hflush()
  }

  private def dropBuffer(): Unit = {
    EveryWriter.held(-accounted)
    accounted = 0
    buf = null
  }

  override def close(): Unit = if (!closed) {
    closed = true
    try {
      if (passThrough) {
        EveryWriter.record(path, EveryWriter.LeftAlone(EveryWriter.Reasons.Flushed,
          s"the writer called $flushedReason: the bytes written by then are visible, so its tail cannot change"))
      } else {
        val tail = new Array[Byte](size)
        copyHeld(tail, 0)
        dropBuffer()
        val outcome = EveryWriter.extendTail(path.toString, tail, form)
        outcome match {
          case EveryWriter.Extended(keep, newFooter) =>
            out.write(tail, 0, keep)
            out.write(newFooter)
          case _ => out.write(tail)
        }
        if (pendingSync == "hsync") out.hsync() else if (pendingSync != null) out.hflush()
        EveryWriter.record(path, outcome)
      }
    } finally {
      if (buf != null) dropBuffer()
      out.close()
    }
  }

  override def abort(): Abortable.AbortableResult = {
    closed = true
    if (buf != null) dropBuffer()
    out.abort()
  }

  override def hasCapability(capability: String): Boolean = out.hasCapability(capability)
  override def getIOStatistics: IOStatistics = out.getIOStatistics
}
