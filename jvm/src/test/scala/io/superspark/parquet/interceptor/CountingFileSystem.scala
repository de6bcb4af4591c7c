package io.superspark.parquet.interceptor

import java.net.URI
import java.util.concurrent.ConcurrentLinkedQueue
import java.util.concurrent.atomic.AtomicInteger

import scala.jdk.CollectionConverters._

import org.apache.hadoop.fs.{FSDataInputStream, FSInputStream, Path, RawLocalFileSystem}

/**
 * The local file system under the scheme `countfs` (register it with
 * `spark.hadoop.fs.countfs.impl`), which records every read a caller asks of an input stream:
 * file, position, length. What the caller asked, not what a buffer below fetched, so a test can
 * tell which bytes of a file a scan read, and how often; and how many of its streams are open.
 */
class CountingFileSystem extends RawLocalFileSystem {
  override def getUri: URI = URI.create("countfs:///")
  override def getScheme: String = "countfs"

  override def open(f: Path, bufferSize: Int): FSDataInputStream = {
    val in = super.open(f, bufferSize)
    CountingFileSystem.opened.incrementAndGet()
    new FSDataInputStream(new CountingFileSystem.Counting(in, f.toUri.getPath))
  }
}

object CountingFileSystem {
  final case class Read(file: String, position: Long, length: Int)

  private val reads = new ConcurrentLinkedQueue[Read]()
  private val opened = new AtomicInteger()

  /** Streams of this file system opened and not closed yet (all files, since the JVM started). */
  def openStreams: Int = opened.get

  def reset(): Unit = reads.clear()

  /** Reads of `file` (a local path) since the last reset. */
  def readsOf(file: String): Seq[Read] = reads.asScala.filter(_.file == file).toSeq

  /** How many times each byte of [from, until) of `file` was read since the last reset. */
  def timesRead(file: String, from: Long, until: Long): Array[Int] = {
    val counts = new Array[Int]((until - from).toInt)
    for (r <- readsOf(file); p <- math.max(r.position, from) until math.min(r.position + r.length, until)) {
      counts((p - from).toInt) += 1
    }
    counts
  }

  private final class Counting(in: FSDataInputStream, file: String) extends FSInputStream {
    override def seek(pos: Long): Unit = in.seek(pos)
    override def getPos: Long = in.getPos
    override def seekToNewSource(targetPos: Long): Boolean = false
    override def read(): Int = {
      val at = in.getPos
      val b = in.read()
      if (b >= 0) reads.add(Read(file, at, 1))
      b
    }
    override def read(b: Array[Byte], off: Int, len: Int): Int = {
      val at = in.getPos
      val n = in.read(b, off, len)
      if (n > 0) reads.add(Read(file, at, n))
      n
    }
    override def available(): Int = in.available()
    private var closed = false
    override def close(): Unit = {
      if (!closed) { closed = true; opened.decrementAndGet() }
      in.close()
    }
  }
}
