package io.superspark.parquet.footer.codec;

import io.superspark.parquet.footer.fbs.ColumnOrder;
import io.superspark.parquet.footer.fbs.DecimalOptions;
import io.superspark.parquet.footer.fbs.FileMetaData;
import io.superspark.parquet.footer.fbs.GeographyType;
import io.superspark.parquet.footer.fbs.GeometryType;
import io.superspark.parquet.footer.fbs.IntOptions;
import io.superspark.parquet.footer.fbs.LogicalType;
import io.superspark.parquet.footer.fbs.SchemaElement;
import io.superspark.parquet.footer.fbs.TimeOptions;
import io.superspark.parquet.footer.fbs.VariantType;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.OriginalType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Type.Repetition;
import org.apache.parquet.schema.Types;
import io.superspark.parquet.footer.FooterDecodeException;

/**
 * The schema of a FlatBuffer footer: its tree shape (read once, validated) and its
 * conversion to a parquet-java {@link MessageType}, whole or pruned to some leaves.
 *
 * <p>The conversion makes the same {@link Types} builder calls, in the same order, as
 * parquet-java's {@code ParquetMetadataConverter.fromParquetSchema}, so the types (and the
 * errors for inconsistent schemas) are the ones parquet-java's Thrift path produces. Written
 * in Java because it uses parquet-java's self-typed builders the way parquet-java does.
 */
public final class FlatSchema {
  /** Deeper schemas are refused (the conversion recurses once per level). */
  public static final int MAX_DEPTH = 1000;

  private static final PrimitiveTypeName[] PRIMITIVES = {
    PrimitiveTypeName.BOOLEAN, PrimitiveTypeName.INT32, PrimitiveTypeName.INT64, PrimitiveTypeName.INT96,
    PrimitiveTypeName.FLOAT, PrimitiveTypeName.DOUBLE, PrimitiveTypeName.BINARY,
    PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY
  };
  private static final Repetition[] REPETITIONS = {Repetition.REQUIRED, Repetition.OPTIONAL, Repetition.REPEATED};
  private static final LogicalTypeAnnotation.TimeUnit[] TIME_UNITS = {
    LogicalTypeAnnotation.TimeUnit.MILLIS, LogicalTypeAnnotation.TimeUnit.MICROS, LogicalTypeAnnotation.TimeUnit.NANOS
  };
  /** Thrift ConvertedType value -> its name (the values match the Thrift enum). */
  private static final String[] CONVERTED = {
    "UTF8", "MAP", "MAP_KEY_VALUE", "LIST", "ENUM", "DECIMAL", "DATE", "TIME_MILLIS", "TIME_MICROS",
    "TIMESTAMP_MILLIS", "TIMESTAMP_MICROS", "UINT_8", "UINT_16", "UINT_32", "UINT_64", "INT_8", "INT_16",
    "INT_32", "INT_64", "JSON", "BSON", "INTERVAL"
  };

  /** The vtable slot of SchemaElement.name (field 0). */
  private static final int NAME_SLOT = 4;

  public final SchemaElement[] elements;
  public final String[] names;
  public final int[] parent;
  public final int[] firstChild;
  public final int[] childCount;
  /** Element index -> the index just after its subtree. */
  public final int[] subtreeEnd;
  /** Leaf ordinal -> element index. */
  public final int[] leafElement;
  /** Element index -> leaf ordinal, or -1 for groups. */
  public final int[] leafOrdinal;
  public final boolean hasColumnOrders;

  /** The vtable slot of FileMetaData.schema (field 1). */
  private static final int SCHEMA_SLOT = 6;

  /** {@code bb}: little-endian; {@code vectorPos}: the position of the schema vector's length word. */
  private FlatSchema(java.nio.ByteBuffer bb, int vectorPos) {
    int n = bb.getInt(vectorPos);
    if (n == 0) throw new FooterDecodeException("empty schema");
    elements = new SchemaElement[n];
    names = new String[n];
    parent = new int[n];
    firstChild = new int[n];
    childCount = new int[n];
    leafOrdinal = new int[n];
    subtreeEnd = new int[n];
    for (int i = 0; i < n; i++) {
      int at = vectorPos + 4 + 4 * i;
      SchemaElement e = new SchemaElement().__assign(at + bb.getInt(at), bb);
      elements[i] = e;
      names[i] = FbAccess.string(bb, FbAccess.pos(e), NAME_SLOT);
      if (names[i] == null) throw new FooterDecodeException("schema element " + i + " has no name");
    }
    // Depth-first shape, iteratively: a stack of (element, children still to visit).
    int[] stack = new int[Math.min(n, MAX_DEPTH) + 1];
    int[] remaining = new int[stack.length];
    int depth = 0;
    stack[0] = 0;
    remaining[0] = rootChildren(elements[0]);
    parent[0] = -1;
    firstChild[0] = 1;
    childCount[0] = remaining[0];
    int next = 1;
    int leaves = 0;
    int[] leafTmp = new int[n];
    leafOrdinal[0] = -1;
    while (depth >= 0) {
      if (remaining[depth] == 0) {
        subtreeEnd[stack[depth]] = next;
        depth--;
        continue;
      }
      remaining[depth]--;
      if (next >= n) throw new FooterDecodeException("schema ends before all children of a group are listed");
      int i = next++;
      SchemaElement e = elements[i];
      parent[i] = stack[depth];
      if (e.hasType()) {
        leafOrdinal[i] = leaves;
        leafTmp[leaves++] = i;
        subtreeEnd[i] = i + 1;
      } else {
        leafOrdinal[i] = -1;
        int c = e.numChildren();
        if (c < 0) throw new FooterDecodeException("group " + names[i] + " has " + c + " children");
        firstChild[i] = next;
        childCount[i] = c;
        if (depth + 1 >= stack.length) throw new FooterDecodeException("schema nested deeper than " + MAX_DEPTH);
        depth++;
        stack[depth] = i;
        remaining[depth] = c;
      }
    }
    if (next != n) throw new FooterDecodeException((n - next) + " schema elements lie outside the root's tree");
    leafElement = java.util.Arrays.copyOf(leafTmp, leaves);
    hasColumnOrders = leaves > 0 && elements[leafElement[0]].columnOrderType() != ColumnOrder.NONE;
  }

  private static int rootChildren(SchemaElement root) {
    int c = root.numChildren();
    if (c < 0) throw new FooterDecodeException("the schema root has " + c + " children");
    return c;
  }

  public static FlatSchema read(FileMetaData md) {
    int vector = FbAccess.vector(md.getByteBuffer(), FbAccess.pos(md), SCHEMA_SLOT);
    if (vector < 0) throw new FooterDecodeException("empty schema");
    return new FlatSchema(md.getByteBuffer(), vector);
  }

  /**
   * The schema whose vector's length word is at {@code vectorPos} of {@code bb} (little-endian),
   * which a head check ({@link FlatBufferVerifier}) found sound: for a schema kept apart from its
   * footer ({@link SchemaShare}).
   */
  static FlatSchema at(java.nio.ByteBuffer bb, int vectorPos) {
    return new FlatSchema(bb, vectorPos);
  }

  private volatile String[] topLevel;

  /**
   * The names of the root's children, in order: computed once per instance (a schema kept with
   * a cached footer is asked again by every scan of the file). The array is shared: read only.
   */
  public String[] topLevelNames() {
    String[] t = topLevel;
    if (t == null) {
      t = new String[childCount[0]];
      int k = 0;
      for (int i = 1; i < subtreeEnd[0]; i = subtreeEnd[i]) t[k++] = names[i];
      topLevel = t;
    }
    return t;
  }

  public int leafCount() {
    return leafElement.length;
  }

  public String[] leafPath(int leaf) {
    int e = leafElement[leaf];
    int d = 0;
    for (int p = e; p > 0; p = parent[p]) d++;
    String[] path = new String[d];
    for (int p = e; p > 0; p = parent[p]) path[--d] = names[p];
    return path;
  }

  /**
   * Leaves under the given paths (a path names a leaf or a group; unknown paths select
   * nothing), in schema order, without duplicates.
   */
  public int[] selectLeaves(String[][] paths) {
    boolean[] leafSelected = new boolean[leafElement.length];
    for (String[] path : paths) {
      if (path.length == 0) continue;
      int group = 0;
      int found = -1;
      for (int depth = 0; depth < path.length; depth++) {
        found = -1;
        if (leafOrdinal[group] >= 0) break;
        int child = firstChild[group];
        for (int k = 0; k < childCount[group]; k++) {
          if (names[child].equals(path[depth])) {
            found = child;
            break;
          }
          child = subtreeEnd[child];
        }
        if (found < 0) break;
        group = found;
      }
      if (found < 0) continue;
      for (int e = found; e < subtreeEnd[found]; e++) {
        if (leafOrdinal[e] >= 0) leafSelected[leafOrdinal[e]] = true;
      }
    }
    int n = 0;
    for (boolean b : leafSelected) if (b) n++;
    int[] out = new int[n];
    n = 0;
    for (int l = 0; l < leafSelected.length; l++) if (leafSelected[l]) out[n++] = l;
    return out;
  }

  /** Elements to keep for these leaves: the leaves and their ancestors. */
  public boolean[] includeMask(int[] leaves) {
    boolean[] include = new boolean[elements.length];
    for (int l : leaves) {
      for (int e = leafElement[l]; e > 0 && !include[e]; e = parent[e]) include[e] = true;
    }
    return include;
  }

  /** The whole schema (include == null) or the elements marked in include (root implied). */
  public MessageType toMessageType(boolean[] include) {
    SchemaElement root = elements[0];
    Types.MessageTypeBuilder builder = Types.buildMessage();
    if (root.hasFieldId()) builder.id(root.fieldId());
    buildChildren(builder, 0, include);
    return builder.named(names[0]);
  }

  @SuppressWarnings({"rawtypes", "unchecked"})
  private void buildChildren(Types.GroupBuilder builder, int group, boolean[] include) {
    int child = firstChild[group];
    for (int k = 0; k < childCount[group]; k++) {
      int i = child;
      child = subtreeEnd[i];
      if (include != null && !include[i]) continue;
      SchemaElement e = elements[i];
      Types.Builder childBuilder;
      if (e.hasType()) {
        Types.PrimitiveBuilder primitiveBuilder = builder.primitive(primitive(e.type()), repetition(e));
        if (e.hasTypeLength()) primitiveBuilder.length(e.typeLength());
        if (e.hasPrecision()) primitiveBuilder.precision(e.precision());
        if (e.hasScale()) primitiveBuilder.scale(e.scale());
        if (hasColumnOrders) {
          org.apache.parquet.schema.ColumnOrder order = e.columnOrderType() == ColumnOrder.TypeDefinedOrder
              ? org.apache.parquet.schema.ColumnOrder.typeDefined()
              : org.apache.parquet.schema.ColumnOrder.undefined();
          if (order.getColumnOrderName() == org.apache.parquet.schema.ColumnOrder.ColumnOrderName.TYPE_DEFINED_ORDER
              && (e.type() == io.superspark.parquet.footer.fbs.Type.INT96
                  || (e.hasConvertedType() && "INTERVAL".equals(convertedName(e.convertedType()))))) {
            order = org.apache.parquet.schema.ColumnOrder.undefined();
          }
          primitiveBuilder.columnOrder(order);
        }
        childBuilder = primitiveBuilder;
      } else {
        childBuilder = builder.group(repetition(e));
        buildChildren((Types.GroupBuilder) childBuilder, i, include);
      }
      LogicalTypeAnnotation logical = logicalType(e);
      if (logical != null) childBuilder.as(logical);
      if (e.hasConvertedType()) {
        OriginalType originalType = convertedType(e).toOriginalType();
        OriginalType newOriginalType = logical != null ? logical.toOriginalType() : null;
        if (!originalType.equals(newOriginalType)) childBuilder.as(originalType);
      }
      if (e.hasFieldId()) childBuilder.id(e.fieldId());
      childBuilder.named(names[i]);
    }
  }

  private static PrimitiveTypeName primitive(byte t) {
    if (t < 0 || t >= PRIMITIVES.length) throw new FooterDecodeException("unknown physical type " + t);
    return PRIMITIVES[t];
  }

  private Repetition repetition(SchemaElement e) {
    byte r = e.repetitionType();
    if (!e.hasRepetitionType() || r < 0 || r >= REPETITIONS.length) {
      throw new FooterDecodeException("schema element " + e.name() + " has no valid repetition type");
    }
    return REPETITIONS[r];
  }

  private static String convertedName(byte v) {
    if (v < 0 || v >= CONVERTED.length) throw new FooterDecodeException("unknown converted type " + v);
    return CONVERTED[v];
  }

  private static LogicalTypeAnnotation.TimeUnit timeUnit(byte u) {
    if (u < 0 || u >= TIME_UNITS.length) throw new FooterDecodeException("unknown time unit " + u);
    return TIME_UNITS[u];
  }

  /** As parquet-java's getLogicalTypeAnnotation(ConvertedType, SchemaElement). */
  private static LogicalTypeAnnotation convertedType(SchemaElement e) {
    switch (convertedName(e.convertedType())) {
      case "UTF8": return LogicalTypeAnnotation.stringType();
      case "MAP": return LogicalTypeAnnotation.mapType();
      case "MAP_KEY_VALUE": return LogicalTypeAnnotation.MapKeyValueTypeAnnotation.getInstance();
      case "LIST": return LogicalTypeAnnotation.listType();
      case "ENUM": return LogicalTypeAnnotation.enumType();
      case "DECIMAL": return LogicalTypeAnnotation.decimalType(e.scale(), e.precision());
      case "DATE": return LogicalTypeAnnotation.dateType();
      case "TIME_MILLIS": return LogicalTypeAnnotation.timeType(true, LogicalTypeAnnotation.TimeUnit.MILLIS);
      case "TIME_MICROS": return LogicalTypeAnnotation.timeType(true, LogicalTypeAnnotation.TimeUnit.MICROS);
      case "TIMESTAMP_MILLIS": return LogicalTypeAnnotation.timestampType(true, LogicalTypeAnnotation.TimeUnit.MILLIS);
      case "TIMESTAMP_MICROS": return LogicalTypeAnnotation.timestampType(true, LogicalTypeAnnotation.TimeUnit.MICROS);
      case "INTERVAL": return LogicalTypeAnnotation.IntervalLogicalTypeAnnotation.getInstance();
      case "INT_8": return LogicalTypeAnnotation.intType(8, true);
      case "INT_16": return LogicalTypeAnnotation.intType(16, true);
      case "INT_32": return LogicalTypeAnnotation.intType(32, true);
      case "INT_64": return LogicalTypeAnnotation.intType(64, true);
      case "UINT_8": return LogicalTypeAnnotation.intType(8, false);
      case "UINT_16": return LogicalTypeAnnotation.intType(16, false);
      case "UINT_32": return LogicalTypeAnnotation.intType(32, false);
      case "UINT_64": return LogicalTypeAnnotation.intType(64, false);
      case "JSON": return LogicalTypeAnnotation.jsonType();
      case "BSON": return LogicalTypeAnnotation.bsonType();
      default: throw new FooterDecodeException("unknown converted type " + e.convertedType());
    }
  }

  /** As parquet-java's getLogicalTypeAnnotation(LogicalType); null when absent. */
  private static LogicalTypeAnnotation logicalType(SchemaElement e) {
    byte t = e.logicalTypeType();
    switch (t) {
      case LogicalType.NONE: return null;
      case LogicalType.StringType: return LogicalTypeAnnotation.stringType();
      case LogicalType.MapType: return LogicalTypeAnnotation.mapType();
      case LogicalType.ListType: return LogicalTypeAnnotation.listType();
      case LogicalType.EnumType: return LogicalTypeAnnotation.enumType();
      case LogicalType.DecimalType: {
        DecimalOptions d = (DecimalOptions) e.logicalType(new DecimalOptions());
        return LogicalTypeAnnotation.decimalType(d.scale(), d.precision());
      }
      case LogicalType.DateType: return LogicalTypeAnnotation.dateType();
      case LogicalType.TimeType: {
        TimeOptions o = (TimeOptions) e.logicalType(new TimeOptions());
        return LogicalTypeAnnotation.timeType(o.isAdjustedToUtc(), timeUnit(o.unit()));
      }
      case LogicalType.TimestampType: {
        TimeOptions o = (TimeOptions) e.logicalType(new TimeOptions());
        return LogicalTypeAnnotation.timestampType(o.isAdjustedToUtc(), timeUnit(o.unit()));
      }
      case LogicalType.IntType: {
        IntOptions o = (IntOptions) e.logicalType(new IntOptions());
        return LogicalTypeAnnotation.intType(o.bitWidth(), o.isSigned());
      }
      // UNKNOWN, VARIANT, GEOMETRY, GEOGRAPHY: through the parquet-java adapter (null, no annotation, on 1.15)
      case LogicalType.NullType: return ParquetJavaShims.unknownType();
      case LogicalType.JsonType: return LogicalTypeAnnotation.jsonType();
      case LogicalType.BsonType: return LogicalTypeAnnotation.bsonType();
      case LogicalType.UUIDType: return LogicalTypeAnnotation.uuidType();
      case LogicalType.Float16Type: return LogicalTypeAnnotation.float16Type();
      case LogicalType.VariantType: {
        VariantType v = (VariantType) e.logicalType(new VariantType());
        return ParquetJavaShims.variantType(v.hasSpecificationVersion() ? v.specificationVersion() : (byte) 0);
      }
      case LogicalType.GeometryType: {
        GeometryType g = (GeometryType) e.logicalType(new GeometryType());
        return ParquetJavaShims.geometryType(g.crs());
      }
      case LogicalType.GeographyType: {
        GeographyType g = (GeographyType) e.logicalType(new GeographyType());
        return ParquetJavaShims.geographyType(g.crs(), g.hasAlgorithm() ? g.algorithm() : -1);
      }
      default: throw new FooterDecodeException("unknown logical type " + t);
    }
  }
}
