package io.superspark.parquet.footer.codec;

import com.google.flatbuffers.Struct;
import com.google.flatbuffers.Table;
import com.google.flatbuffers.Utf8;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * Positions behind flatbuffers-java's table and struct views (their {@code bb_pos} is
 * protected and has no getter), and raw vector reads that copy straight from the backing
 * array instead of duplicating the ByteBuffer per call. The decoder uses positions as cache
 * keys: the writer shares identical vectors, so one position means one content.
 * Only used on buffers that passed {@link FlatBufferVerifier}.
 */
public final class FbAccess {
  private static final VarHandle TABLE_POS;
  private static final VarHandle STRUCT_POS;

  static {
    try {
      TABLE_POS = MethodHandles.privateLookupIn(Table.class, MethodHandles.lookup())
          .findVarHandle(Table.class, "bb_pos", int.class);
      STRUCT_POS = MethodHandles.privateLookupIn(Struct.class, MethodHandles.lookup())
          .findVarHandle(Struct.class, "bb_pos", int.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  private FbAccess() {}

  public static int pos(Table t) {
    return (int) TABLE_POS.get(t);
  }

  public static int pos(Struct s) {
    return (int) STRUCT_POS.get(s);
  }

  /** Position of the vector (its length word) a table field points to, or -1 when absent. */
  public static int vector(ByteBuffer bb, int tablePos, int slot) {
    int vt = tablePos - bb.getInt(tablePos);
    if (slot >= (bb.getShort(vt) & 0xFFFF)) return -1;
    int o = bb.getShort(vt + slot) & 0xFFFF;
    if (o == 0) return -1;
    int at = tablePos + o;
    return at + bb.getInt(at);
  }

  /**
   * The string field at {@code slot} (4 + 2 x its field id) of the table at {@code tablePos}, or
   * null when absent: what the generated accessor returns, decoded faster. The JDK's UTF-8
   * decoder (an intrinsic for ASCII: column names, Spark's schema JSON) decodes it; a string in
   * which it finds malformed UTF-8 (a replacement character in its result) is decoded again by
   * flatbuffers-java's own decoder, so such a string is refused (or read) as the accessor does.
   * At 10,000 columns, names and key-value metadata decode several times faster (issue 39).
   */
  public static String string(ByteBuffer bb, int tablePos, int slot) {
    int vec = vector(bb, tablePos, slot);
    if (vec < 0) return null;
    int n = bb.getInt(vec);
    if (bb.hasArray()) {
      String s = new String(bb.array(), bb.arrayOffset() + vec + 4, n, StandardCharsets.UTF_8);
      if (s.indexOf('\uFFFD') < 0) return s;
    }
    return Utf8.getDefault().decodeUtf8(bb, vec + 4, n);
  }

  /** prefix followed by the bytes of the byte vector at vecPos. */
  public static byte[] bytes(ByteBuffer bb, int vecPos, byte[] prefix) {
    int n = bb.getInt(vecPos);
    byte[] out = new byte[prefix.length + n];
    System.arraycopy(prefix, 0, out, 0, prefix.length);
    if (bb.hasArray()) {
      System.arraycopy(bb.array(), bb.arrayOffset() + vecPos + 4, out, prefix.length, n);
    } else {
      for (int i = 0; i < n; i++) out[prefix.length + i] = bb.get(vecPos + 4 + i);
    }
    return out;
  }

  /** The long vector at vecPos as a mutable list (parquet-java's histograms). */
  public static java.util.List<Long> longs(ByteBuffer bb, int vecPos) {
    int n = bb.getInt(vecPos);
    java.util.ArrayList<Long> out = new java.util.ArrayList<>(n);
    for (int i = 0; i < n; i++) out.add(bb.getLong(vecPos + 4 + 8 * i));
    return out;
  }
}
