package io.superspark.parquet.alp

/** LSB-first bit packing (the order of Parquet's RLE/bit-packing hybrid), 0 to 64 bits a value. */
object AlpBitPacking {
  def packedBytes(count: Int, bitWidth: Int): Int = ((count.toLong * bitWidth + 7) >>> 3).toInt

  /** Packs `count` values of `bitWidth` bits from `values` into `out` at `outPos`; returns the end. */
  def pack(values: Array[Long], count: Int, bitWidth: Int, out: Array[Byte], outPos: Int): Int = {
    val end = outPos + packedBytes(count, bitWidth)
    if (bitWidth == 0) return end
    java.util.Arrays.fill(out, outPos, end, 0.toByte)
    var bit = 0L
    var i = 0
    while (i < count) {
      var x = values(i)
      var left = bitWidth
      while (left > 0) {
        val idx = outPos + (bit >>> 3).toInt
        val off = (bit & 7).toInt
        val take = math.min(8 - off, left)
        out(idx) = (out(idx) | ((x & ((1 << take) - 1)) << off).toInt).toByte
        x >>>= take
        left -= take
        bit += take
      }
      i += 1
    }
    end
  }

  /** Unpacks `count` values of `bitWidth` bits starting at `pos` (the caller checked the bounds). */
  def unpack(in: Array[Byte], pos: Int, count: Int, bitWidth: Int, out: Array[Long]): Unit = {
    if (bitWidth == 0) { java.util.Arrays.fill(out, 0, count, 0L); return }
    val mask = if (bitWidth == 64) -1L else (1L << bitWidth) - 1
    var bit = 0L
    var i = 0
    while (i < count) {
      var idx = pos + (bit >>> 3).toInt
      val off = (bit & 7).toInt
      var acc = (in(idx) & 0xffL) >>> off
      var got = 8 - off
      idx += 1
      while (got < bitWidth) {
        acc |= (in(idx) & 0xffL) << got
        got += 8
        idx += 1
      }
      out(i) = acc & mask
      bit += bitWidth
      i += 1
    }
  }

  /** Bits needed for the unsigned value `maxDelta`. */
  def bitWidth(maxDelta: Long): Int = 64 - java.lang.Long.numberOfLeadingZeros(maxDelta)
}
