package io.superspark.bsup

import java.util.Arrays

/** A growable byte buffer for encoding (not thread safe). */
private[superspark] final class ByteBuf(initial: Int = 256) {
  var bytes: Array[Byte] = new Array[Byte](math.max(initial, 16))
  var size: Int = 0

  def clear(): Unit = size = 0

  def ensure(extra: Int): Unit = {
    val need = size + extra
    if (need > bytes.length) {
      var n = bytes.length * 2
      while (n < need) n *= 2
      bytes = Arrays.copyOf(bytes, n)
    }
  }

  def put(b: Int): Unit = { ensure(1); bytes(size) = b.toByte; size += 1 }

  def put(src: Array[Byte], off: Int, len: Int): Unit = {
    ensure(len); System.arraycopy(src, off, bytes, size, len); size += len
  }

  def put(src: Array[Byte]): Unit = put(src, 0, src.length)

  def putUvarint(v: Long): Unit = {
    ensure(10)
    var x = v
    while ((x & ~0x7fL) != 0) { bytes(size) = ((x & 0x7f) | 0x80).toByte; size += 1; x >>>= 7 }
    bytes(size) = x.toByte; size += 1
  }

  /** Appends `v` as 4 big-endian bytes. */
  def putFixed32(v: Int): Unit = { ensure(4); size += 4; setFixed32(size - 4, v) }

  /** Overwrites the 4 bytes at `at` with `v`, big-endian. */
  def setFixed32(at: Int, v: Int): Unit = {
    bytes(at) = (v >>> 24).toByte; bytes(at + 1) = (v >>> 16).toByte
    bytes(at + 2) = (v >>> 8).toByte; bytes(at + 3) = v.toByte
  }

  /** Opens space for `n` bytes at `at`, moving the bytes after it to the right. */
  def insertGap(at: Int, n: Int): Unit = {
    ensure(n)
    System.arraycopy(bytes, at, bytes, at + n, size - at)
    size += n
  }

  def toArray: Array[Byte] = Arrays.copyOf(bytes, size)
}
