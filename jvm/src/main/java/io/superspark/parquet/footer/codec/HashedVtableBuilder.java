package io.superspark.parquet.footer.codec;

import java.util.Arrays;

import com.google.flatbuffers.FlatBufferBuilder;

/**
 * A {@link FlatBufferBuilder} that writes the same bytes, with a cheaper {@link #endTable}.
 * FlatBufferBuilder writes each table's vtable, then compares it with every vtable written
 * so far (through the ByteBuffer) and drops it again when one is equal; a footer has about a
 * million tables and a dozen vtables. This builder looks the vtable's content up in a hash
 * table first and writes it only when it is new; otherwise the table points to the equal one,
 * as FlatBufferBuilder's table would (vtables written are all different, so the equal one is
 * the one it finds).
 *
 * <p>Only the builder's public API is used: {@code startTable}, {@code slot}, {@code endTable}
 * and {@code notNested} are overridden (the generated code and the builder's {@code add*}
 * methods go through them), and tables are written with {@code prep}/{@code putInt}/
 * {@code addShort} as FlatBufferBuilder writes them. One buffer per builder ({@code clear}
 * is not supported).
 */
public final class HashedVtableBuilder extends FlatBufferBuilder {
  /** offset() after each field of the open table was added; 0: not set. */
  private int[] fieldAt = new int[16];
  private int fields;
  private int objectStart;
  private boolean inTable;

  /** The vtable being ended, as written: its size in bytes, the table's size, the field offsets. */
  private int[] vtable = new int[18];
  /** Vtables written (content -> offset()), open addressing. */
  private int[][] keys = new int[64][];
  private int[] values = new int[64];
  private int count;

  public HashedVtableBuilder(int initialSize) {
    super(initialSize);
  }

  @Override
  public void notNested() {
    if (inTable) throw new AssertionError("FlatBuffers: object serialization must not be nested.");
  }

  @Override
  public void startTable(int numfields) {
    notNested();
    if (fieldAt.length < numfields) fieldAt = new int[numfields];
    Arrays.fill(fieldAt, 0, numfields, 0);
    fields = numfields;
    inTable = true;
    objectStart = offset();
  }

  @Override
  public void slot(int voffset) {
    fieldAt[voffset] = offset();
  }

  @Override
  public int endTable() {
    if (!inTable) throw new AssertionError("FlatBuffers: endTable called without startTable");
    prep(4, 0); // as addInt(0) for the table's vtable offset
    int vtableloc = offset() + 4;
    int last = fields - 1;
    while (last >= 0 && fieldAt[last] == 0) last--;
    int n = last + 3; // the vtable's size, the table's size, fields 0..last
    if (vtable.length < n) vtable = new int[n];
    vtable[0] = (short) (n * 2);
    vtable[1] = (short) (vtableloc - objectStart);
    for (int i = 0; i <= last; i++) vtable[i + 2] = (short) (fieldAt[i] != 0 ? vtableloc - fieldAt[i] : 0);
    int at = find(vtable, n);
    if (keys[at] != null) {
      putInt(values[at] - vtableloc);
    } else {
      // A new vtable right before the table (written after it: the buffer grows downwards).
      putInt(n * 2);
      for (int i = n - 1; i >= 0; i--) addShort((short) vtable[i]);
      insert(at, Arrays.copyOf(vtable, n), offset());
    }
    inTable = false;
    return vtableloc;
  }

  /**
   * Tables ended from now on do not point to a vtable written before: the objects written after
   * this call hold every vtable their tables use. The footer converter calls it before the schema's
   * elements, so their bytes are the same in every file of one schema ({@link SchemaShare}),
   * whatever the row groups before them. The bytes then differ from FlatBufferBuilder's (a few
   * vtables written twice), and are as valid.
   */
  public void forgetVtables() {
    Arrays.fill(keys, null);
    count = 0;
  }

  private int find(int[] key, int n) {
    int h = n;
    for (int i = 0; i < n; i++) h = 31 * h + key[i];
    int mask = keys.length - 1;
    int at = (h ^ (h >>> 16)) & mask;
    while (keys[at] != null && !Arrays.equals(keys[at], 0, keys[at].length, key, 0, n)) at = (at + 1) & mask;
    return at;
  }

  private void insert(int at, int[] key, int value) {
    keys[at] = key;
    values[at] = value;
    if (2 * ++count > keys.length) {
      int[][] oldKeys = keys;
      int[] oldValues = values;
      keys = new int[oldKeys.length * 2][];
      values = new int[oldKeys.length * 2];
      for (int i = 0; i < oldKeys.length; i++) {
        if (oldKeys[i] != null) {
          int j = find(oldKeys[i], oldKeys[i].length);
          keys[j] = oldKeys[i];
          values[j] = oldValues[i];
        }
      }
    }
  }
}
