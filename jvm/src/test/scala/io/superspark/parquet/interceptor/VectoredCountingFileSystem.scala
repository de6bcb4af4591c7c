package io.superspark.parquet.interceptor

import java.net.URI
import java.nio.ByteBuffer
import java.util.concurrent.atomic.AtomicInteger
import java.util.function.IntFunction

import org.apache.hadoop.fs.{FSDataInputStream, FileRange, LocalFileSystem, Path, RawLocalFileSystem}

/**
 * Hadoop's checksummed local file system under the scheme `vecfs` (register it with
 * `spark.hadoop.fs.vecfs.impl`), counting the vectored reads its input streams are asked for.
 */
class VectoredCountingFileSystem extends LocalFileSystem(new VectoredCountingFileSystem.Raw) {
  override def getUri: URI = URI.create("vecfs:///")
  override def getScheme: String = "vecfs"

  override def open(f: Path, bufferSize: Int): FSDataInputStream = {
    val in = super.open(f, bufferSize)
    new FSDataInputStream(in) {
      override def readVectored(ranges: java.util.List[_ <: FileRange], allocate: IntFunction[ByteBuffer]): Unit = {
        VectoredCountingFileSystem.calls.incrementAndGet()
        super.readVectored(ranges, allocate)
      }
    }
  }
}

object VectoredCountingFileSystem {
  /** The raw local file system beneath, under the same scheme. */
  final class Raw extends RawLocalFileSystem {
    override def getUri: URI = URI.create("vecfs:///")
    override def getScheme: String = "vecfs"
  }

  private val calls = new AtomicInteger()
  /** Vectored reads asked of this file system's streams since the JVM started. */
  def vectoredReads: Int = calls.get
}
