package io.superspark.bsup;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * Byte arrays read eight bytes at a time (little-endian words). In Java, as a VarHandle's `get`
 * called from Scala returns a boxed value.
 */
final class ByteWords {
  private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

  private ByteWords() {}

  /** The index of the first byte of {@code b[off, end)} with its high bit set, or {@code end}. */
  static int asciiPrefixEnd(byte[] b, int off, int end) {
    int i = off;
    while (i + 8 <= end && (((long) LONGS.get(b, i)) & 0x8080808080808080L) == 0) i += 8;
    while (i < end && b[i] >= 0) i++;
    return i;
  }

  /**
   * The unsigned little-endian integer of the {@code len} bytes at {@code b[off]} (0 to 8 in the format): one
   * word read and masked when eight bytes are there to read, else byte by byte (longer lengths
   * keep their last eight bytes, as the loop does).
   */
  static long unsignedLE(byte[] b, int off, int len) {
    if (len > 0 && len <= 8 && off + 8 <= b.length) {
      long w = (long) LONGS.get(b, off);
      return len == 8 ? w : w & ((1L << (len << 3)) - 1);
    }
    long v = 0L;
    for (int i = len - 1; i >= 0; i--) v = (v << 8) | (b[off + i] & 0xffL);
    return v;
  }
}
