package io.superspark.parquet.alp

/** LSB-first bit packing (the order of Parquet's RLE/bit-packing hybrid), 0 to 64 bits a value. */
private[superspark] object AlpBitPacking {
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

  @inline private def word(in: Array[Byte], at: Int): Long = LittleEndianWords.get(in, at)

  /**
   * Whether every one of `count` values of `bitWidth` bits at `pos` can be read with one 64-bit
   * load ([[valueAt]]): widths up to 56, and the last value's word inside `in`.
   */
  def wordReadable(in: Array[Byte], pos: Int, count: Int, bitWidth: Int): Boolean =
    bitWidth <= 56 && (count == 0 || ((pos.toLong << 3) + (count - 1).toLong * bitWidth >>> 3) + 8 <= in.length)

  /** The value of at most 56 bits (`mask`) starting at bit `bit` of `in`: one unaligned load. */
  @inline def valueAt(in: Array[Byte], bit: Long, mask: Long): Long =
    (word(in, (bit >>> 3).toInt) >>> (bit & 7).toInt) & mask

  /**
   * Unpacks `count` values of `bitWidth` bits starting at `pos` (the caller checked the bounds).
   * One unaligned 64-bit load a value (two for widths over 56 whose bits straddle it) while a
   * whole word remains in `in`; bytes past the packed data but inside `in` are read and masked
   * off. The last values, within 8 bytes of the array's end, are gathered byte by byte.
   */
  def unpack(in: Array[Byte], pos: Int, count: Int, bitWidth: Int, out: Array[Long]): Unit = {
    if (bitWidth == 0) { java.util.Arrays.fill(out, 0, count, 0L); return }
    val mask = if (bitWidth == 64) -1L else (1L << bitWidth) - 1
    val lastWord = in.length - 8
    var bit = pos.toLong << 3
    var i = 0
    if (bitWidth <= 56) {
      while (i < count && (bit >>> 3) <= lastWord) {
        out(i) = valueAt(in, bit, mask)
        bit += bitWidth
        i += 1
      }
    } else {
      while (i < count && (bit >>> 3) + 8 <= lastWord) {
        val idx = (bit >>> 3).toInt
        val off = (bit & 7).toInt
        val lo = word(in, idx) >>> off
        out(i) = (if (off + bitWidth > 64) lo | (word(in, idx + 8) << (64 - off)) else lo) & mask
        bit += bitWidth
        i += 1
      }
    }
    while (i < count) {
      var idx = (bit >>> 3).toInt
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
