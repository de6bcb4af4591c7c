package io.superspark.bsup

import java.io.{BufferedInputStream, InputStream}

/**
 * The bytes a [[FrameReader]] reads: a stream (a file) or an array (a binary cell). Offsets
 * are offsets in the input (the file, or the cell), so errors can name them.
 */
private[superspark] abstract class ByteSource {
  /** Offset in the input of the next byte. */
  def offset: Long

  /** Bytes left when known, else -1. */
  def remaining: Long

  /** What the input is called in messages ("file", "cell"). */
  def what: String

  /** The next byte, or -1 at the end. */
  def read(): Int

  /**
   * Makes the next `n` bytes readable as `buffer[takenAt, takenAt + n)`; returns how many
   * it could take (less than `n` only at the end of the input). The bytes stay valid until
   * the next `take`.
   */
  def take(n: Int): Int
  def buffer: Array[Byte]
  def takenAt: Int

  /** Skips `n` bytes; returns how many it could skip. */
  def skip(n: Long): Long

  def close(): Unit = ()
}

/** The bytes `bytes[0, bytes.length)`, offsets counted from 0; [[reset]] points it at other bytes. */
private[superspark] final class ArraySource(private var bytes: Array[Byte]) extends ByteSource {
  private var pos = 0
  private var at = 0

  def reset(b: Array[Byte]): Unit = { bytes = b; pos = 0 }

  def offset: Long = pos
  def remaining: Long = bytes.length - pos
  def what: String = "cell"

  def read(): Int =
    if (pos >= bytes.length) -1 else { val b = bytes(pos) & 0xff; pos += 1; b }

  def take(n: Int): Int = {
    val got = math.min(n, bytes.length - pos)
    at = pos
    pos += got
    got
  }
  def buffer: Array[Byte] = bytes
  def takenAt: Int = at

  def skip(n: Long): Long = {
    val s = math.min(n, remaining.toLong)
    pos += s.toInt
    s
  }
}

/**
 * The bytes of `input`, whose first byte is at `startOffset` of a file of `fileLength` bytes
 * (-1: unknown). The buffer handed out by [[take]] grows only as far as bytes actually arrive,
 * so a false length never allocates more than the input holds.
 */
private[superspark] final class StreamSource(input: InputStream, startOffset: Long, fileLength: Long) extends ByteSource {
  private val in = input match {
    case b: BufferedInputStream => b
    case other => new BufferedInputStream(other, 1 << 16)
  }
  private var pos = startOffset
  private var buf = new Array[Byte](1 << 16)

  def offset: Long = pos
  def remaining: Long = if (fileLength >= 0) math.max(0L, fileLength - pos) else -1L
  def what: String = "file"

  def read(): Int = {
    val b = in.read()
    if (b >= 0) pos += 1
    b
  }

  def take(n: Int): Int = {
    if (buf.length < math.min(n, 1 << 20)) buf = new Array[Byte](math.min(n, 1 << 20))
    var got = 0
    while (got < n) {
      if (got == buf.length) buf = java.util.Arrays.copyOf(buf, math.min(n.toLong, buf.length * 2L).toInt)
      val r = in.read(buf, got, math.min(n, buf.length) - got)
      if (r < 0) return got
      got += r
      pos += r
    }
    got
  }
  def buffer: Array[Byte] = buf
  def takenAt: Int = 0

  def skip(n: Long): Long = {
    var left = n
    while (left > 0) {
      val s = in.skip(left)
      if (s > 0) left -= s
      else if (in.read() >= 0) left -= 1
      else { pos += n - left; return n - left }
    }
    pos += n
    n
  }

  override def close(): Unit = in.close()
}
