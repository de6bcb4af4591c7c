package io.superspark.bsup

import java.util.Arrays

/** A growable byte buffer for encoding (not thread safe). */
final class ByteBuf(initial: Int = 256) {
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

  /** Opens space for `n` bytes at `at`, moving the bytes after it to the right. */
  def insertGap(at: Int, n: Int): Unit = {
    ensure(n)
    System.arraycopy(bytes, at, bytes, at + n, size - at)
    size += n
  }

  def toArray: Array[Byte] = Arrays.copyOf(bytes, size)
}
