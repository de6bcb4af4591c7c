package io.superspark.parquet.interceptor

import java.net.URI
import java.util.concurrent.ConcurrentLinkedQueue

import scala.jdk.CollectionConverters._

import org.apache.hadoop.fs.{FSDataInputStream, FSInputStream, Path, RawLocalFileSystem}

/**
 * The local file system under the scheme `countfs` (register it with
 * `spark.hadoop.fs.countfs.impl`), which records every read a caller asks of an input stream:
 * file, position, length. What the caller asked, not what a buffer below fetched, so a test can
 * tell which bytes of a file a scan read, and how often.
 */
class CountingFileSystem extends RawLocalFileSystem {
  override def getUri: URI = URI.create("countfs:///")
  override def getScheme: String = "countfs"

  override def open(f: Path, bufferSize: Int): FSDataInputStream =
    new FSDataInputStream(new CountingFileSystem.Counting(super.open(f, bufferSize), f.toUri.getPath))
}

object CountingFileSystem {
  final case class Read(file: String, position: Long, length: Int)

  private val reads = new ConcurrentLinkedQueue[Read]()

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
    override def close(): Unit = in.close()
  }
}
