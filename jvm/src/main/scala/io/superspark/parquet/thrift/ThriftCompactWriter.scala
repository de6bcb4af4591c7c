package io.superspark.parquet.thrift

import java.nio.ByteBuffer
import io.superspark.parquet.thrift.UnrebuildableFooterException

/**
 * Apache Thrift's compact protocol, write side (the read side: [[ThriftCompactReader]]; the
 * compact type ids are in the companion), into a growing byte array: the
 * encodings of `TCompactProtocol` (field headers as deltas when 1..15 after the previous id,
 * else type + zigzag id; zigzag varints for i16/i32/i64; little-endian doubles; booleans in
 * the field header; list headers with the size in the high nibble below 15). Pure codec.
 */
private[superspark] final class ThriftCompactWriter(initialCapacity: Int) {
  import ThriftCompactWriter._

  private var buf = new Array[Byte](math.max(16, initialCapacity))
  private var n = 0
  private var lastId = 0
  private var stack = new Array[Int](16)
  private var depth = 0

  def size: Int = n
  def toByteArray: Array[Byte] = java.util.Arrays.copyOf(buf, n)

  private def ensure(extra: Int): Unit = if (n + extra > buf.length) {
    val want = math.max(buf.length.toLong * 2, n.toLong + extra)
    if (want > Int.MaxValue - 16) throw new UnrebuildableFooterException("the Thrift footer would exceed 2 GiB")
    buf = java.util.Arrays.copyOf(buf, want.toInt)
  }

  def byte(b: Int): Unit = { ensure(1); buf(n) = b.toByte; n += 1 }

  def bytes(b: Array[Byte], off: Int, len: Int): Unit = {
    ensure(len); System.arraycopy(b, off, buf, n, len); n += len
  }

  def varint(v: Long): Unit = {
    ensure(10)
    var x = v
    while ((x & ~0x7FL) != 0) { buf(n) = ((x & 0x7F) | 0x80).toByte; n += 1; x >>>= 7 }
    buf(n) = x.toByte
    n += 1
  }

  def zigzag32(v: Int): Unit = varint(((v << 1) ^ (v >> 31)).toLong & 0xFFFFFFFFL)
  def zigzag64(v: Long): Unit = varint((v << 1) ^ (v >> 63))

  def fieldHeader(tpe: Int, id: Int): Unit = {
    if (id > lastId && id - lastId <= 15) byte((id - lastId) << 4 | tpe)
    else { byte(tpe); zigzag32(id.toShort) }
    lastId = id
  }

  def structBegin(): Unit = {
    if (depth == stack.length) stack = java.util.Arrays.copyOf(stack, depth * 2)
    stack(depth) = lastId
    depth += 1
    lastId = 0
  }

  /**
   * Continues, in this writer, a struct begun in another one (whose bytes go before these)
   * after its field `lastId`: writes nothing; the next field header is relative to `lastId`.
   */
  def resumeStruct(lastId: Int): Unit = { structBegin(); this.lastId = lastId }

  def structEnd(): Unit = { byte(Stop); depth -= 1; lastId = stack(depth) }

  def structField(id: Int): Unit = { fieldHeader(Struct, id); structBegin() }

  def listHeader(elemType: Int, size: Int): Unit =
    if (size <= 14) byte(size << 4 | elemType) else { byte(0xF0 | elemType); varint(size.toLong) }

  def listField(id: Int, elemType: Int, size: Int): Unit = { fieldHeader(List, id); listHeader(elemType, size) }

  def i8Field(id: Int, v: Byte): Unit = { fieldHeader(I8, id); byte(v) }
  def i16Field(id: Int, v: Short): Unit = { fieldHeader(I16, id); zigzag32(v) }
  def i32Field(id: Int, v: Int): Unit = { fieldHeader(I32, id); zigzag32(v) }
  def i64Field(id: Int, v: Long): Unit = { fieldHeader(I64, id); zigzag64(v) }
  def boolField(id: Int, v: Boolean): Unit = fieldHeader(if (v) True else False, id)

  def doubleField(id: Int, v: Double): Unit = {
    fieldHeader(Double, id)
    val bits = java.lang.Double.doubleToLongBits(v)
    var i = 0
    while (i < 8) { byte((bits >>> (8 * i)).toInt); i += 1 }
  }

  def binary(b: Array[Byte]): Unit = { varint(b.length.toLong); bytes(b, 0, b.length) }

  /** A binary whose bytes are `b`'s remaining bytes (e.g. a FlatBuffer string). */
  def binary(b: ByteBuffer): Unit = {
    val len = b.remaining
    varint(len.toLong)
    ensure(len)
    b.duplicate().get(buf, n, len)
    n += len
  }

  def binaryField(id: Int, b: Array[Byte]): Unit = { fieldHeader(Binary, id); binary(b) }
  def binaryField(id: Int, b: ByteBuffer): Unit = { fieldHeader(Binary, id); binary(b) }
}

private[superspark] object ThriftCompactWriter {
  val Stop = 0
  val True = 1
  val False = 2
  val I8 = 3
  val I16 = 4
  val I32 = 5
  val I64 = 6
  val Double = 7
  val Binary = 8
  val List = 9
  val Set = 10
  val Map = 11
  val Struct = 12
  val Uuid = 13
}
