package io.superspark.parquet.alp;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * Unaligned little-endian 64-bit loads from a byte array. In Java because the VarHandle must be
 * a static final field for the JIT to compile each load to one instruction (a Scala object's
 * val is an instance field of the module, which the JIT does not treat as a constant).
 */
final class LittleEndianWords {
  private static final VarHandle LONG_LE = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

  private LittleEndianWords() {}

  /** The 8 bytes at {@code at} (bounds-checked by the VarHandle) as a little-endian long. */
  static long get(byte[] in, int at) {
    return (long) LONG_LE.get(in, at);
  }
}
