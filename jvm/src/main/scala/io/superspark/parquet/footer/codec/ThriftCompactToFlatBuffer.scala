package io.superspark.parquet.footer.codec

import java.io.{ByteArrayOutputStream, IOException}
import java.nio.ByteBuffer

import org.apache.parquet.format.{ColumnOrder, CompressionCodec, ConvertedType, Encoding, FieldRepetitionType, FileMetaData => TFileMetaData, PageType, Type, TypeDefinedOrder, Util}

import io.superspark.parquet.footer.{fbs => fb}
import io.superspark.parquet.footer.codec.FlatBufferBuild.{FooterExtension, StatisticsFields, refuse}
import io.superspark.parquet.thrift.{ThriftCompactReader, ThriftCompactWriter, ThriftExtras}
import io.superspark.parquet.thrift.{ThriftCompactWriter => T} // compact type ids
import io.superspark.parquet.thrift.{ThriftFormatReason => R}

/**
 * Thrift compact `FileMetaData` bytes -> the FlatBuffer of parquet3.fbs, in one pass over the
 * bytes ([[ThriftCompactReader]]): the one Thrift -> FlatBuffer encoder. The tables it builds
 * from values already read (extension slot, `Statistics`, root) are in [[FlatBufferBuild]].
 * Small vectors that repeat across column chunks (encodings, page encoding stats, level
 * histograms, file paths) are written once and shared, keyed by their Thrift bytes. It
 * refuses, with [[UnrepresentableFooterException]], whatever the FlatBuffer cannot carry
 * faithfully: encryption, unknown enum values or logical types, and schemas or column chunks
 * that contradict each other (those a Thrift reader would reject too). It reads the fields
 * parquet-java 1.17 drops but the FlatBuffer keeps (`Statistics.nan_count`, the IEEE 754 total
 * column order) directly. Fields the FlatBuffer does not know are skipped, as parquet-java's
 * reader skips them; the caller detects the loss, since the Thrift rebuilt from the FlatBuffer
 * then differs from the original bytes (`FooterFiles.buildFlatBuffer`). Malformed bytes raise
 * [[MalformedThriftFooterException]] with the offset. [[ThriftCompactToFlatBuffer.convertParsed]]
 * takes a footer parsed by parquet-java instead. Pure codec, no I/O.
 */
private[superspark] object ThriftCompactToFlatBuffer {

  /** The FlatBuffer of Thrift compact footer bytes, with `extensions` in its extension slot. */
  def convert(thrift: Array[Byte], extensions: Seq[FooterExtension] = Nil,
      sizeHint: Int = 64 * 1024): Array[Byte] = convert(thrift, extensions, sizeHint, Map.empty, null)

  private def convert(thrift: Array[Byte], extensions: Seq[FooterExtension], sizeHint: Int,
      nanCounts: Map[(Int, Int), Long], orderIds: Array[Int]): Array[Byte] =
    try new ThriftCompactToFlatBuffer(thrift, extensions, sizeHint, readAheadRows = false, nanCounts, orderIds).build()
    catch {
      case _: RowCountGuessWrong =>
        new ThriftCompactToFlatBuffer(thrift, extensions, sizeHint, readAheadRows = true, nanCounts, orderIds).build()
    }

  /**
   * The FlatBuffer of a footer parsed by parquet-java (`ThriftForParquetJava.parse`): parquet-java's
   * own writer (`Util.writeFileMetaData`) writes it back as canonical Thrift compact bytes, which
   * [[convert]] encodes. `extras`, read from the original bytes, puts back what parquet-java's
   * parser dropped: the NaN counts by (row group, column) and, for the column orders it read as
   * an empty union, the IEEE 754 total order (any other unknown member: an undefined order).
   * What the parser read as null or as an empty union and its writer cannot write (an unknown
   * encoding in a list, logical type or time unit) is refused first.
   */
  def convertParsed(md: TFileMetaData, extensions: Seq[FooterExtension] = Nil,
      extras: ThriftExtras = ThriftExtras.Empty, sizeHint: Int = 64 * 1024): Array[Byte] = {
    refuseUnwritable(md)
    val orders = md.getColumn_orders
    val orderIds = if (orders == null) null else Array.tabulate(orders.size) { i =>
      if (orders.get(i).isSetTYPE_ORDER) ThriftExtras.TypeOrderId.toInt
      else if (i < extras.columnOrderIds.size && extras.columnOrderIds(i) == ThriftExtras.Ieee754TotalOrderId) {
        ThriftExtras.Ieee754TotalOrderId.toInt
      } else 0
    }
    val writable = if (orderIds == null || orderIds.forall(_ == ThriftExtras.TypeOrderId)) md else {
      val copy = md.deepCopy()
      copy.getColumn_orders.replaceAll(o => if (o.isSetTYPE_ORDER) o else ColumnOrder.TYPE_ORDER(new TypeDefinedOrder))
      copy
    }
    val out = new ByteArrayOutputStream(sizeHint)
    try Util.writeFileMetaData(writable, out) catch {
      case e: IOException => refuse(s"parquet-java cannot write this footer back: ${e.getMessage}")
    }
    convert(out.toByteArray, extensions, sizeHint, extras.nanCounts, orderIds)
  }

  /** Refuses, in the words of the bytes path, what parquet-java parsed but cannot write back. */
  private def refuseUnwritable(md: TFileMetaData): Unit = {
    if (md.isSetEncryption_algorithm || md.isSetFooter_signing_key_metadata) refuseEncrypted()
    if (md.getSchema != null) md.getSchema.forEach { e =>
      if (e.isSetLogicalType) {
        val lt = e.getLogicalType
        if (lt.getSetField == null) refuse("unknown logical type")
        val unit = if (lt.isSetTIME) lt.getTIME.getUnit else if (lt.isSetTIMESTAMP) lt.getTIMESTAMP.getUnit else null
        if (unit != null && unit.getSetField == null) refuse("unknown time unit")
      }
    }
    if (md.getRow_groups != null) md.getRow_groups.forEach { rg =>
      if (rg.getColumns != null) rg.getColumns.forEach { c =>
        if (c.isSetMeta_data && c.getMeta_data.getEncodings != null && c.getMeta_data.getEncodings.contains(null)) {
          refuse("unknown encoding value")
        }
      }
    }
  }

  private def refuseEncrypted(): Nothing = refuse("the file is encrypted (plaintext footer with encryption_algorithm)")

  /** A row group's num_rows differs from the first chunk's num_values taken for it. */
  private[footer] final class RowCountGuessWrong extends RuntimeException(null, null, false, false)

  /**
   * parquet-format's EdgeInterpolationAlgorithm values (SPHERICAL, VINCENTY, THOMAS, ANDOYER,
   * KARNEY), listed here: the transcoder works on the bytes, on every line, and parquet-format
   * 1.15 (Spark 4.0) has no such enum.
   */
  private val edgeInterpolationAlgorithm: Int => AnyRef = v => if (v >= 0 && v <= 4) Integer.valueOf(v) else null

  /** An enum value parquet-java knows (it reads others as null). */
  private def known(v: Int, what: String, find: Int => AnyRef): Byte =
    if (find(v) == null) refuse(s"unknown $what value $v") else v.toByte
}

/**
 * `nanCounts` (by row group and column) fill `Statistics.nan_count` where the bytes have none;
 * `orderIds` (not null) replace the column orders' union member ids read from the bytes.
 * `readAheadRows`: each row group's num_rows (its chunks need it, but it comes after them) is
 * read ahead by skipping the row group once; otherwise the first chunk's num_values is taken
 * for it (they agree unless the first column is repeated) and checked when num_rows comes,
 * [[ThriftCompactToFlatBuffer.RowCountGuessWrong]] (then `convert` starts over, reading ahead).
 */
private final class ThriftCompactToFlatBuffer(thrift: Array[Byte], extensions: Seq[FooterExtension],
    sizeHint: Int, readAheadRows: Boolean, nanCounts: Map[(Int, Int), Long], givenOrderIds: Array[Int]) {
  import ThriftCompactToFlatBuffer._

  private val r = new ThriftCompactReader(thrift)
  // FlatBufferBuilder's bytes, with vtables deduplicated by hash (a million tables), but for the
  // schema's elements, which get vtables of their own (forgetVtables)
  private val b: HashedVtableBuilder = new HashedVtableBuilder(math.max(1024, sizeHint))
  b.forceDefaults(true) // every add* below writes: presence is decided here

  // Vectors shared between chunks, keyed by their Thrift bytes (equal content, equal bytes
  // for a canonical writer).
  private val encodingsCache = new RangeCache(thrift)
  private val encodingStatsCache = new RangeCache(thrift)
  private val longsCache = new RangeCache(thrift)
  private val stringCache = new RangeCache(thrift)

  // The schema, read first (its elements are written after the row groups).
  private var schemaAt: Array[Int] = _
  private var leafTypes: Array[Byte] = _
  /** Per leaf: its path_in_schema as Thrift compact list bytes. */
  private var leafPaths: Array[Array[Byte]] = _
  private var leafCount = 0

  private def missing(struct: String, field: String): Nothing = r.fail(R.MissingField(r.pos, struct, field))

  private def slice(at: Int, len: Int): ByteBuffer = ByteBuffer.wrap(thrift, at, len)

  /** Reads a binary and writes it as a FlatBuffer string. */
  private def newString(): Int = { val at = r.binary(); b.createString(utf8(at, r.pos)) }

  /**
   * The bytes of a Thrift string, refused unless valid UTF-8: parquet-java reads invalid bytes
   * as U+FFFD, which the FlatBuffer could not give back (parquet-java's path,
   * [[ThriftCompactToFlatBuffer.convertParsed]], decides then).
   */
  private def utf8(from: Int, until: Int): ByteBuffer = {
    var i = from
    while (i < until && thrift(i) >= 0) i += 1
    if (i < until) {
      try java.nio.charset.StandardCharsets.UTF_8.newDecoder().decode(slice(from, until - from))
      catch { case _: java.nio.charset.CharacterCodingException => refuse(s"a string at Thrift footer offset $from is not UTF-8") }
    }
    slice(from, until - from)
  }

  /** A string shared by content (file paths, created_by). */
  private def sharedString(): Int = {
    val at = r.binary()
    val until = r.pos
    cached(stringCache, at, until)(b.createString(utf8(at, until)))
  }

  private def copyBinary(): Array[Byte] = { val at = r.binary(); java.util.Arrays.copyOfRange(thrift, at, r.pos) }

  private def i32(struct: String): Int = { r.expect(struct, T.I32); r.i32() }
  private def i64(struct: String): Long = { r.expect(struct, T.I64); r.i64() }
  private def bool(struct: String): Boolean = { r.expect(struct, T.True); r.boolValue }
  private def i8(struct: String): Byte = { r.expect(struct, T.I8); r.byte().toByte }

  private def list(struct: String, elemType: Int): Int = {
    r.expect(struct, T.List)
    val at = r.pos
    r.listHeader()
    if (r.listType != elemType) r.fail(R.UnexpectedType(at, struct + " list", r.fieldId, r.listType))
    r.listSize
  }

  private def struct(name: String): Unit = { r.expect(name, T.Struct); r.structBegin() }

  def build(): Array[Byte] = {
    var version = 0
    var numRows = 0L
    var seen = 0 // bits: version, schema, num_rows, row_groups
    var rowGroups: Array[Int] = null
    var kv = 0
    var createdBy = 0
    var orderIds: Array[Int] = null
    r.structBegin()
    while (r.nextField()) r.fieldId match {
      case 1 => version = i32("FileMetaData"); seen |= 1
      case 2 => schema(); seen |= 2
      case 3 => numRows = i64("FileMetaData"); seen |= 4
      case 4 =>
        if (schemaAt == null) refuse("the row groups come before the schema")
        val n = list("FileMetaData.row_groups", T.Struct)
        rowGroups = new Array[Int](n)
        var i = 0
        while (i < n) { rowGroups(i) = rowGroup(i); i += 1 }
        seen |= 8
      case 5 => kv = keyValues("FileMetaData")
      case 6 => r.expect("FileMetaData", T.Binary); createdBy = sharedString()
      case 7 => orderIds = columnOrders(); if (givenOrderIds != null) orderIds = givenOrderIds
      case 8 | 9 => refuseEncrypted()
      case _ => r.skip()
    }
    if (r.pos != thrift.length) r.fail(R.TrailingBytes(r.pos, thrift.length - r.pos))
    Seq(1 -> "version", 2 -> "schema", 4 -> "num_rows", 8 -> "row_groups").foreach { case (bit, name) =>
      if ((seen & bit) == 0) missing("FileMetaData", name)
    }
    if (orderIds != null && orderIds.length != leafCount) {
      refuse(s"${orderIds.length} column orders for $leafCount leaf columns")
    }
    // the schema's elements with vtables of their own, written together: the same bytes in each
    // file of one schema, whatever its row groups (SchemaShare: read once for all of them)
    b.forgetVtables()
    val schemaVec = schemaElements(orderIds)
    val rowGroupsVec = fb.FileMetaData.createRowGroupsVector(b, rowGroups)
    val extensionsVec = FlatBufferBuild.extensionsVector(b, extensions)
    FlatBufferBuild.finishRoot(b, version, schemaVec, numRows, rowGroupsVec, kv, createdBy, extensionsVec)
  }

  // ---- schema ----

  /** First pass: where each element starts, the leaves' types and paths (checked: names, repetition of groups, the tree's extent). */
  private def schema(): Unit = {
    val n = list("FileMetaData.schema", T.Struct)
    if (n == 0) refuse("empty schema")
    schemaAt = new Array[Int](n)
    val types = new Array[Int](n)
    val children = new Array[Int](n)
    val nameAt = new Array[Int](n)
    val repetition = new Array[Boolean](n)
    var i = 0
    while (i < n) {
      schemaAt(i) = r.pos
      types(i) = -1
      nameAt(i) = -1
      r.structBegin()
      while (r.nextField()) r.fieldId match {
        case 1 => types(i) = known(i32("SchemaElement"), "physical type", Type.findByValue)
        case 3 => r.expect("SchemaElement", T.I32); r.i32(); repetition(i) = true
        case 4 => r.expect("SchemaElement", T.Binary); nameAt(i) = r.pos; r.binary()
        case 5 => children(i) = i32("SchemaElement")
        case _ => r.skip()
      }
      if (nameAt(i) < 0) refuse(if (i == 0) "the schema root has no name" else s"schema element $i has no name")
      i += 1
    }
    // The leaves in tree order (an explicit stack: schemas can nest deeply).
    val types8 = scala.collection.mutable.ArrayBuilder.make[Byte]
    val paths = scala.collection.mutable.ArrayBuilder.make[Array[Byte]]
    val counts = scala.collection.mutable.ArrayBuffer(children(0))
    val path = scala.collection.mutable.ArrayBuffer.empty[Int]
    var next = 1
    while (counts.nonEmpty) {
      if (counts.last <= 0) {
        counts.remove(counts.length - 1)
        if (path.nonEmpty) path.remove(path.length - 1)
      } else {
        counts(counts.length - 1) -= 1
        if (next >= n) refuse("schema ends before all children of a group are listed")
        val at = next
        next += 1
        if (types(at) >= 0) {
          types8 += types(at).toByte
          val p = new ThriftCompactWriter(64)
          p.listHeader(ThriftCompactWriter.Binary, path.length + 1)
          (path :+ at).foreach { e =>
            val s = new ThriftCompactReader(thrift)
            s.pos = nameAt(e)
            val len = s.binaryLength()
            p.varint(len.toLong)
            p.bytes(thrift, s.pos, len)
          }
          paths += p.toByteArray
        } else {
          if (!repetition(at)) refuse(s"group ${groupName(at, nameAt)} has no repetition type")
          path += at
          counts += children(at)
        }
      }
    }
    if (next != n) refuse(s"schema lists ${n - next} elements outside the root's tree")
    leafTypes = types8.result()
    leafPaths = paths.result()
    leafCount = leafTypes.length
  }

  private def groupName(at: Int, nameAt: Array[Int]): String = {
    val s = new ThriftCompactReader(thrift)
    s.pos = nameAt(at)
    val len = s.binaryLength()
    new String(thrift, s.pos, len, java.nio.charset.StandardCharsets.UTF_8)
  }

  /** `column_orders`: per leaf, the id of the union member set (0: none). */
  private def columnOrders(): Array[Int] = {
    val n = list("FileMetaData.column_orders", T.Struct)
    val ids = new Array[Int](n)
    var i = 0
    while (i < n) {
      r.structBegin()
      while (r.nextField()) { ids(i) = if (r.fieldId == 1 && r.fieldType != T.Struct) 0 else r.fieldId; r.skip() }
      i += 1
    }
    ids
  }

  /** Second pass: the SchemaElement tables, in order. */
  private def schemaElements(orderIds: Array[Int]): Int = {
    val offsets = new Array[Int](schemaAt.length)
    val saved = r.pos
    var leaf = 0
    var i = 0
    while (i < schemaAt.length) {
      r.pos = schemaAt(i)
      val orderId = if (i > 0 && orderIds != null) orderIds(leaf) else -1
      val isLeaf = schemaElement(offsets, i, orderId)
      if (isLeaf && i > 0) leaf += 1
      i += 1
    }
    r.pos = saved
    fb.FileMetaData.createSchemaVector(b, offsets)
  }

  /** Writes schema element `i` into `offsets(i)`; true when it has a physical type. */
  private def schemaElement(offsets: Array[Int], i: Int, orderIdIfLeaf: Int): Boolean = {
    val S = "SchemaElement"
    var name = 0
    var tpe = -1
    var typeLength, repetition, numChildren, converted, scale, precision, fieldId = 0
    var set = 0 // bits: type_length, repetition, num_children, converted, scale, precision, field_id
    var ltType: Byte = 0
    var ltValue = 0
    r.structBegin()
    while (r.nextField()) r.fieldId match {
      case 1 => tpe = r.i32()
      case 2 => typeLength = i32(S); set |= 1
      case 3 => repetition = known(i32(S), "repetition type", FieldRepetitionType.findByValue); set |= 2
      case 4 => name = newString()
      case 5 => numChildren = r.i32(); set |= 4
      case 6 => converted = known(i32(S), "converted type", ConvertedType.findByValue); set |= 8
      case 7 => scale = i32(S); set |= 16
      case 8 => precision = i32(S); set |= 32
      case 9 => fieldId = i32(S); set |= 64
      case 10 => struct(S); val lt = logicalType(); ltType = (lt >>> 32).toByte; ltValue = lt.toInt
      case _ => r.skip()
    }
    val isLeaf = tpe >= 0 && i > 0
    val (orderType, orderValue) = if (!isLeaf || orderIdIfLeaf < 0) (0.toByte, 0) else {
      fb.Empty.startEmpty(b)
      val empty = fb.Empty.endEmpty(b)
      orderIdIfLeaf match {
        case 1 => (fb.ColumnOrder.TypeDefinedOrder, empty)
        case 2 => (fb.ColumnOrder.IEEE754TotalOrder, empty)
        case _ => (fb.ColumnOrder.UndefinedOrder, empty)
      }
    }
    fb.SchemaElement.startSchemaElement(b)
    fb.SchemaElement.addName(b, name)
    if (tpe >= 0) fb.SchemaElement.addType(b, tpe.toByte)
    if ((set & 2) != 0) fb.SchemaElement.addRepetitionType(b, repetition.toByte)
    if (ltType != 0) {
      fb.SchemaElement.addLogicalTypeType(b, ltType)
      fb.SchemaElement.addLogicalType(b, ltValue)
    }
    if ((set & 1) != 0) fb.SchemaElement.addTypeLength(b, typeLength)
    if ((set & 4) != 0) fb.SchemaElement.addNumChildren(b, numChildren) // presence kept (v1)
    if ((set & 64) != 0) fb.SchemaElement.addFieldId(b, fieldId)
    if (orderType != 0) {
      fb.SchemaElement.addColumnOrderType(b, orderType)
      fb.SchemaElement.addColumnOrder(b, orderValue)
    }
    if ((set & 8) != 0) fb.SchemaElement.addConvertedType(b, converted.toByte)
    if ((set & 16) != 0) fb.SchemaElement.addScale(b, scale)
    if ((set & 32) != 0) fb.SchemaElement.addPrecision(b, precision)
    offsets(i) = fb.SchemaElement.endSchemaElement(b)
    tpe >= 0
  }

  private def empty(): Int = { fb.Empty.startEmpty(b); fb.Empty.endEmpty(b) }

  /** Skips the rest of an empty struct (members unknown to the FlatBuffer are dropped, as parquet-java drops them). */
  private def skipStruct(): Unit = while (r.nextField()) r.skip()

  /** A `LogicalType` union (its struct begun): (FlatBuffer union type << 32) | value offset. */
  private def logicalType(): Long = {
    val L = "LogicalType"
    if (!r.nextField()) refuse("unknown logical type")
    val id = r.fieldId
    struct(L)
    val (tpe, value) = id match {
      case 1 => skipStruct(); (fb.LogicalType.StringType, empty())
      case 2 => skipStruct(); (fb.LogicalType.MapType, empty())
      case 3 => skipStruct(); (fb.LogicalType.ListType, empty())
      case 4 => skipStruct(); (fb.LogicalType.EnumType, empty())
      case 5 =>
        var scale, precision = 0
        var set = 0
        while (r.nextField()) r.fieldId match {
          case 1 => scale = i32("DecimalType"); set |= 1
          case 2 => precision = i32("DecimalType"); set |= 2
          case _ => r.skip()
        }
        if ((set & 1) == 0) missing("DecimalType", "scale")
        if ((set & 2) == 0) missing("DecimalType", "precision")
        (fb.LogicalType.DecimalType, fb.DecimalOptions.createDecimalOptions(b, precision, scale))
      case 6 => skipStruct(); (fb.LogicalType.DateType, empty())
      case 7 | 8 =>
        val what = if (id == 7) "TimeType" else "TimestampType"
        var utc: java.lang.Boolean = null
        var unit = -1
        while (r.nextField()) r.fieldId match {
          case 1 => utc = bool(what)
          case 2 =>
            struct(what)
            if (!r.nextField()) refuse("unknown time unit")
            unit = r.fieldId match {
              case 1 => fb.TimeUnit.MILLIS
              case 2 => fb.TimeUnit.MICROS
              case 3 => fb.TimeUnit.NANOS
              case _ => refuse("unknown time unit")
            }
            struct("TimeUnit")
            skipStruct()
            if (r.nextField()) refuse("time unit with two members")
          case _ => r.skip()
        }
        if (utc == null) missing(what, "isAdjustedToUTC")
        if (unit < 0) missing(what, "unit")
        (if (id == 7) fb.LogicalType.TimeType else fb.LogicalType.TimestampType,
          fb.TimeOptions.createTimeOptions(b, utc, unit.toByte))
      case 10 =>
        var bitWidth: java.lang.Byte = null
        var signed: java.lang.Boolean = null
        while (r.nextField()) r.fieldId match {
          case 1 => bitWidth = i8("IntType")
          case 2 => signed = bool("IntType")
          case _ => r.skip()
        }
        if (bitWidth == null) missing("IntType", "bitWidth")
        if (signed == null) missing("IntType", "isSigned")
        (fb.LogicalType.IntType, fb.IntOptions.createIntOptions(b, bitWidth, signed))
      case 11 => skipStruct(); (fb.LogicalType.NullType, empty())
      case 12 => skipStruct(); (fb.LogicalType.JsonType, empty())
      case 13 => skipStruct(); (fb.LogicalType.BsonType, empty())
      case 14 => skipStruct(); (fb.LogicalType.UUIDType, empty())
      case 15 => skipStruct(); (fb.LogicalType.Float16Type, empty())
      case 16 =>
        var version: java.lang.Byte = null
        while (r.nextField()) r.fieldId match {
          case 1 => version = i8("VariantType")
          case _ => r.skip()
        }
        fb.VariantType.startVariantType(b)
        if (version != null) fb.VariantType.addSpecificationVersion(b, version)
        (fb.LogicalType.VariantType, fb.VariantType.endVariantType(b))
      case 17 =>
        var crs = 0
        while (r.nextField()) r.fieldId match {
          case 1 => r.expect("GeometryType", T.Binary); crs = newString()
          case _ => r.skip()
        }
        fb.GeometryType.startGeometryType(b)
        if (crs != 0) fb.GeometryType.addCrs(b, crs)
        (fb.LogicalType.GeometryType, fb.GeometryType.endGeometryType(b))
      case 18 =>
        var crs = 0
        var algorithm = -1
        while (r.nextField()) r.fieldId match {
          case 1 => r.expect("GeographyType", T.Binary); crs = newString()
          case 2 => algorithm = known(i32("GeographyType"), "edge interpolation algorithm", edgeInterpolationAlgorithm)
          case _ => r.skip()
        }
        fb.GeographyType.startGeographyType(b)
        if (crs != 0) fb.GeographyType.addCrs(b, crs)
        if (algorithm >= 0) fb.GeographyType.addAlgorithm(b, algorithm.toByte)
        (fb.LogicalType.GeographyType, fb.GeographyType.endGeographyType(b))
      case other => refuse(s"logical type $other")
    }
    if (r.nextField()) refuse("logical type with two members")
    (tpe.toLong << 32) | (value & 0xFFFFFFFFL)
  }

  // ---- row groups ----

  /** A row group's num_rows, read ahead (its chunks come first and need it). */
  private def rowGroupRows(): Long = r.peek {
    var rows = -1L
    var found = false
    r.structBegin()
    while (r.nextField()) {
      if (r.fieldId == 3) { rows = i64("RowGroup"); found = true } else r.skip()
    }
    if (!found) missing("RowGroup", "num_rows")
    rows
  }

  /** The first chunk's num_values (when the row group starts with its chunks), read ahead. */
  private def firstChunkValues(): Option[Long] = r.peek {
    def field(id: Int, tpe: Int): Boolean = {
      var found = false
      while (!found && r.nextField()) if (r.fieldId == id && r.fieldType == tpe) found = true else r.skip()
      found
    }
    r.structBegin()
    if (r.nextField() && r.fieldId == 1 && r.fieldType == T.List) {
      r.listHeader()
      if (r.listSize > 0 && r.listType == T.Struct) {
        r.structBegin()
        if (field(3, T.Struct)) {
          r.structBegin()
          if (field(5, T.I64)) Some(r.i64()) else None
        } else None
      } else None
    } else None
  }

  private def rowGroup(index: Int): Int = {
    val RG = "RowGroup"
    val rows = if (readAheadRows) rowGroupRows() else firstChunkValues().getOrElse(rowGroupRows())
    var rowsSeen = false
    var columns = -1
    var totalByteSize, fileOffset, totalCompressed = 0L
    var ordinal: Short = 0
    var sorting = 0
    var set = 0 // bits: total_byte_size, file_offset, total_compressed_size, ordinal
    r.structBegin()
    while (r.nextField()) r.fieldId match {
      case 1 =>
        val n = list("RowGroup.columns", T.Struct)
        if (n == 0) refuse(s"row group $index has no column chunks")
        if (n != leafCount) refuse(s"row group $index has $n column chunks for $leafCount leaf columns")
        val chunks = new Array[Int](n)
        var j = 0
        while (j < n) { chunks(j) = columnChunk(rows, index, j); j += 1 }
        columns = fb.RowGroup.createColumnsVector(b, chunks)
      case 2 => totalByteSize = i64(RG); set |= 1
      case 3 =>
        if (i64(RG) != rows) { if (readAheadRows) refuse(s"row group $index gives num_rows twice") else throw new RowCountGuessWrong }
        rowsSeen = true
      case 4 =>
        val n = list("RowGroup.sorting_columns", T.Struct)
        val offsets = new Array[Int](n)
        var i = 0
        while (i < n) {
          var idx = 0
          var descending, nullsFirst: java.lang.Boolean = null
          var hasIdx = false
          r.structBegin()
          while (r.nextField()) r.fieldId match {
            case 1 => idx = i32("SortingColumn"); hasIdx = true
            case 2 => descending = bool("SortingColumn")
            case 3 => nullsFirst = bool("SortingColumn")
            case _ => r.skip()
          }
          if (!hasIdx) missing("SortingColumn", "column_idx")
          if (descending == null) missing("SortingColumn", "descending")
          if (nullsFirst == null) missing("SortingColumn", "nulls_first")
          offsets(i) = fb.SortingColumn.createSortingColumn(b, idx, descending, nullsFirst)
          i += 1
        }
        sorting = fb.RowGroup.createSortingColumnsVector(b, offsets)
      case 5 => fileOffset = i64(RG); set |= 2
      case 6 => totalCompressed = i64(RG); set |= 4
      case 7 => r.expect(RG, T.I16); ordinal = r.i32().toShort; set |= 8
      case _ => r.skip()
    }
    if (columns < 0) missing(RG, "columns")
    if (!rowsSeen) missing(RG, "num_rows")
    if ((set & 1) == 0) missing(RG, "total_byte_size")
    fb.RowGroup.startRowGroup(b)
    fb.RowGroup.addColumns(b, columns)
    fb.RowGroup.addTotalByteSize(b, totalByteSize)
    fb.RowGroup.addNumRows(b, rows)
    if (sorting != 0) fb.RowGroup.addSortingColumns(b, sorting)
    if ((set & 2) != 0) fb.RowGroup.addFileOffset(b, fileOffset)
    if ((set & 4) != 0) fb.RowGroup.addTotalCompressedSize(b, totalCompressed)
    if ((set & 8) != 0) fb.RowGroup.addOrdinal(b, ordinal)
    fb.RowGroup.endRowGroup(b)
  }

  private def columnChunk(rowGroupRows: Long, rg: Int, col: Int): Int = {
    val CC = "ColumnChunk"
    var filePath = 0
    var fileOffset, oiOffset, ciOffset = 0L
    var oiLength, ciLength = 0
    var set = 0 // bits: file_offset, oi offset, oi length, ci offset, ci length
    var meta = -1
    r.structBegin()
    while (r.nextField()) r.fieldId match {
      case 1 => r.expect(CC, T.Binary); filePath = sharedString()
      case 2 => fileOffset = i64(CC); set |= 1
      case 3 => struct(CC); meta = columnMetaData(rowGroupRows, rg, col)
      case 4 => oiOffset = i64(CC); set |= 2
      case 5 => oiLength = i32(CC); set |= 4
      case 6 => ciOffset = i64(CC); set |= 8
      case 7 => ciLength = i32(CC); set |= 16
      case 8 | 9 => refuse(s"column chunk $col of row group $rg is encrypted")
      case _ => r.skip()
    }
    if (meta < 0) refuse(s"column chunk $col of row group $rg has no metadata")
    if ((set & 1) == 0) missing(CC, "file_offset")
    fb.ColumnChunk.startColumnChunk(b)
    if (filePath != 0) fb.ColumnChunk.addFilePath(b, filePath)
    fb.ColumnChunk.addMetaData(b, meta)
    if ((set & 8) != 0) fb.ColumnChunk.addColumnIndexOffset(b, ciOffset)
    if ((set & 16) != 0) fb.ColumnChunk.addColumnIndexLength(b, ciLength)
    if ((set & 2) != 0) fb.ColumnChunk.addOffsetIndexOffset(b, oiOffset)
    if ((set & 4) != 0) fb.ColumnChunk.addOffsetIndexLength(b, oiLength)
    fb.ColumnChunk.addFileOffset(b, fileOffset)
    fb.ColumnChunk.endColumnChunk(b)
  }

  /**
   * A `ColumnMetaData` (its struct begun). Encodings, encoding stats, size and geospatial
   * statistics are written after the struct is read.
   */
  private def columnMetaData(rowGroupRows: Long, rg: Int, col: Int): Int = {
    val CM = "ColumnMetaData"
    var codec = 0
    var numValues, totalUncompressed, totalCompressed, dataPageOffset, indexPageOffset, dictPageOffset = 0L
    var bloomOffset = 0L
    var bloomLength = 0
    var set = 0 // bits: type, codec, num_values, uncompressed, compressed, data page, index page, dict page,
    //             bloom offset, bloom length, path
    var kv = 0
    var stats = 0
    var encodingsAt, encodingStatsAt, sizeStatsAt, geoStatsAt = -1
    var encodingsEnd, encodingStatsEnd = -1
    while (r.nextField()) r.fieldId match {
      case 1 =>
        val t = i32(CM)
        if (t != leafTypes(col)) {
          refuse(s"column chunk $col of row group $rg: physical type ${Type.findByValue(t)} differs from the schema's")
        }
        set |= 1
      case 2 => r.expect(CM, T.List); encodingsAt = r.pos; r.skip(); encodingsEnd = r.pos
      case 3 =>
        r.expect(CM, T.List)
        // The schema's path, encoded: the list is exactly these bytes when they match (a list
        // delimits itself).
        val at = r.pos
        val want = leafPaths(col)
        if (want.length <= thrift.length - at && java.util.Arrays.equals(thrift, at, at + want.length, want, 0, want.length)) {
          r.pos = at + want.length
        } else {
          r.skip()
          refuse(s"column chunk $col of row group $rg: path differs from the schema's")
        }
        set |= 1024
      case 4 => codec = known(i32(CM), "compression codec", CompressionCodec.findByValue); set |= 2
      case 5 => numValues = i64(CM); set |= 4
      case 6 => totalUncompressed = i64(CM); set |= 8
      case 7 => totalCompressed = i64(CM); set |= 16
      case 8 => kv = keyValues(CM)
      case 9 => dataPageOffset = i64(CM); set |= 32
      case 10 => indexPageOffset = i64(CM); set |= 64
      case 11 => dictPageOffset = i64(CM); set |= 128
      case 12 => struct(CM); stats = statistics(leafTypes(col), rg, col)
      case 13 => r.expect(CM, T.List); encodingStatsAt = r.pos; r.skip(); encodingStatsEnd = r.pos
      case 14 => bloomOffset = i64(CM); set |= 256
      case 15 => bloomLength = i32(CM); set |= 512
      case 16 => r.expect(CM, T.Struct); sizeStatsAt = r.pos; r.skip()
      case 17 => r.expect(CM, T.Struct); geoStatsAt = r.pos; r.skip()
      case _ => r.skip()
    }
    if ((set & 1) == 0) missing(CM, "type")
    if (encodingsAt < 0) missing(CM, "encodings")
    if ((set & 1024) == 0) missing(CM, "path_in_schema")
    if ((set & 2) == 0) missing(CM, "codec")
    if ((set & 4) == 0) missing(CM, "num_values")
    if ((set & 8) == 0) missing(CM, "total_uncompressed_size")
    if ((set & 16) == 0) missing(CM, "total_compressed_size")
    if ((set & 32) == 0) missing(CM, "data_page_offset")
    val end = r.pos
    val encodings = cached(encodingsCache, encodingsAt, encodingsEnd)(encodingsVector)
    val encodingStats = if (encodingStatsAt < 0) 0 else encodingStatsVector(encodingStatsAt, encodingStatsEnd)
    val sizeStats = if (sizeStatsAt < 0) 0 else at(sizeStatsAt) { r.structBegin(); sizeStatistics() }
    val geoStats = if (geoStatsAt < 0) 0 else at(geoStatsAt) { r.structBegin(); geospatialStatistics() }
    r.pos = end
    fb.ColumnMetadata.startColumnMetadata(b)
    if (codec != 0) fb.ColumnMetadata.addCodec(b, codec.toByte)
    if (numValues != rowGroupRows) fb.ColumnMetadata.addNumValues(b, numValues)
    fb.ColumnMetadata.addTotalUncompressedSize(b, totalUncompressed)
    fb.ColumnMetadata.addTotalCompressedSize(b, totalCompressed)
    if (kv != 0) fb.ColumnMetadata.addKeyValueMetadata(b, kv)
    fb.ColumnMetadata.addDataPageOffset(b, dataPageOffset)
    if ((set & 64) != 0) fb.ColumnMetadata.addIndexPageOffset(b, indexPageOffset)
    if ((set & 128) != 0) fb.ColumnMetadata.addDictionaryPageOffset(b, dictPageOffset)
    if (stats != 0) fb.ColumnMetadata.addStatistics(b, stats)
    fb.ColumnMetadata.addEncodings(b, encodings)
    if (encodingStats != 0) fb.ColumnMetadata.addEncodingStats(b, encodingStats)
    if ((set & 256) != 0) fb.ColumnMetadata.addBloomFilterOffset(b, bloomOffset)
    if ((set & 512) != 0) fb.ColumnMetadata.addBloomFilterLength(b, bloomLength)
    if (sizeStats != 0) fb.ColumnMetadata.addSizeStatistics(b, sizeStats)
    if (geoStats != 0) fb.ColumnMetadata.addGeospatialStatistics(b, geoStats)
    fb.ColumnMetadata.endColumnMetadata(b)
  }

  /** Reads from `offset` (then the caller restores the position). */
  private def at(offset: Int)(read: => Int): Int = { r.pos = offset; read }

  /**
   * A vector or string shared by its Thrift bytes [from, until): written once by `write`
   * (reading from `from`); the reader is left at `until`.
   */
  private def cached(cache: RangeCache, from: Int, until: Int)(write: => Int): Int = {
    val hit = cache.get(from, until)
    val off = if (hit >= 0) hit else {
      r.pos = from
      val written = write
      cache.put(from, until, written)
      written
    }
    r.pos = until
    off
  }

  private def encodingsVector: Int = {
    r.listHeader()
    if (r.listType != T.I32) r.fail(R.UnexpectedType(r.pos - 1, "ColumnMetaData.encodings list", 2, r.listType))
    val values = new Array[Byte](r.listSize)
    var i = 0
    while (i < values.length) { values(i) = known(r.i32(), "encoding", Encoding.findByValue); i += 1 }
    fb.ColumnMetadata.createEncodingsVector(b, values)
  }

  private def encodingStatsVector(from: Int, until: Int): Int =
    cached(encodingStatsCache, from, until) {
      r.listHeader()
      if (r.listType != T.Struct) r.fail(R.UnexpectedType(from, "ColumnMetaData.encoding_stats list", 13, r.listType))
      val n = r.listSize
      val pageTypes, encodings = new Array[Byte](n)
      val counts = new Array[Int](n)
      var i = 0
      while (i < n) {
        var set = 0
        r.structBegin()
        while (r.nextField()) r.fieldId match {
          case 1 => pageTypes(i) = known(i32("PageEncodingStats"), "page type", PageType.findByValue); set |= 1
          case 2 => encodings(i) = known(i32("PageEncodingStats"), "encoding", Encoding.findByValue); set |= 2
          case 3 => counts(i) = i32("PageEncodingStats"); set |= 4
          case _ => r.skip()
        }
        if (set != 7) missing("PageEncodingStats", if ((set & 1) == 0) "page_type" else if ((set & 2) == 0) "encoding" else "count")
        i += 1
      }
      fb.ColumnMetadata.startEncodingStatsVector(b, n)
      i = n - 1
      while (i >= 0) { fb.PageEncodingStats.createPageEncodingStats(b, pageTypes(i), encodings(i), counts(i)); i -= 1 }
      b.endVector()
    }

  private def statistics(physicalType: Byte, rg: Int, col: Int): Int = {
    val S = "Statistics"
    val f = new StatisticsFields
    while (r.nextField()) r.fieldId match {
      case 1 => r.expect(S, T.Binary); f.legacyMax = copyBinary()
      case 2 => r.expect(S, T.Binary); f.legacyMin = copyBinary()
      case 3 => f.nullCount = i64(S)
      case 4 => f.distinctCount = i64(S)
      case 5 => r.expect(S, T.Binary); f.maxValue = copyBinary()
      case 6 => r.expect(S, T.Binary); f.minValue = copyBinary()
      case 7 => f.isMaxValueExact = bool(S)
      case 8 => f.isMinValueExact = bool(S)
      case 9 => f.nanCount = i64(S)
      case _ => r.skip()
    }
    if (f.nanCount == null && nanCounts.nonEmpty) nanCounts.get((rg, col)).foreach(n => f.nanCount = n)
    FlatBufferBuild.statistics(b, f, physicalType)
  }

  /** A list<i64> histogram, shared by content. */
  private def longs(): Int = {
    r.expect("SizeStatistics", T.List)
    val from = r.pos
    r.skipValue(T.List)
    val until = r.pos
    val off = cached(longsCache, from, until) {
      r.listHeader()
      if (r.listType != T.I64) r.fail(R.UnexpectedType(from, "SizeStatistics histogram", r.fieldId, r.listType))
      val values = new Array[Long](r.listSize)
      var i = 0
      while (i < values.length) { values(i) = r.i64(); i += 1 }
      fb.SizeStatistics.createRepetitionLevelHistogramVector(b, values)
    }
    r.pos = until
    off
  }

  private def sizeStatistics(): Int = {
    var unencoded: java.lang.Long = null
    var rep, defs = 0
    while (r.nextField()) r.fieldId match {
      case 1 => unencoded = i64("SizeStatistics")
      case 2 => rep = longs()
      case 3 => defs = longs()
      case _ => r.skip()
    }
    fb.SizeStatistics.startSizeStatistics(b)
    if (unencoded != null) fb.SizeStatistics.addUnencodedByteArrayDataBytes(b, unencoded)
    if (rep != 0) fb.SizeStatistics.addRepetitionLevelHistogram(b, rep)
    if (defs != 0) fb.SizeStatistics.addDefinitionLevelHistogram(b, defs)
    fb.SizeStatistics.endSizeStatistics(b)
  }

  private def geospatialStatistics(): Int = {
    val G = "GeospatialStatistics"
    val box = new Array[Double](8)
    var boxSet = -1 // bits per coordinate; -1: no bbox
    var types = 0
    while (r.nextField()) r.fieldId match {
      case 1 =>
        struct(G)
        boxSet = 0
        while (r.nextField()) {
          val id = r.fieldId
          if (id >= 1 && id <= 8) {
            r.expect("BoundingBox", T.Double)
            box(id - 1) = r.double()
            boxSet |= 1 << (id - 1)
          } else r.skip()
        }
        if ((boxSet & 15) != 15) missing("BoundingBox", "xmin, xmax, ymin and ymax")
      case 2 =>
        val n = list(G, T.I32)
        val values = new Array[Int](n)
        var i = 0
        while (i < n) { values(i) = r.i32(); i += 1 }
        types = fb.GeospatialStatistics.createGeospatialTypesVector(b, values)
      case _ => r.skip()
    }
    val bbox = if (boxSet < 0) 0 else {
      fb.BoundingBox.startBoundingBox(b)
      fb.BoundingBox.addXmin(b, box(0))
      fb.BoundingBox.addXmax(b, box(1))
      fb.BoundingBox.addYmin(b, box(2))
      fb.BoundingBox.addYmax(b, box(3))
      if ((boxSet & 16) != 0) fb.BoundingBox.addZmin(b, box(4))
      if ((boxSet & 32) != 0) fb.BoundingBox.addZmax(b, box(5))
      if ((boxSet & 64) != 0) fb.BoundingBox.addMmin(b, box(6))
      if ((boxSet & 128) != 0) fb.BoundingBox.addMmax(b, box(7))
      fb.BoundingBox.endBoundingBox(b)
    }
    fb.GeospatialStatistics.startGeospatialStatistics(b)
    if (bbox != 0) fb.GeospatialStatistics.addBbox(b, bbox)
    if (types != 0) fb.GeospatialStatistics.addGeospatialTypes(b, types)
    fb.GeospatialStatistics.endGeospatialStatistics(b)
  }

  // ---- key-value metadata ----

  private def keyValues(struct: String): Int = {
    val n = list(struct + ".key_value_metadata", T.Struct)
    val offsets = new Array[Int](n)
    var i = 0
    while (i < n) {
      var key, value = 0
      var hasKey = false
      r.structBegin()
      while (r.nextField()) r.fieldId match {
        case 1 => r.expect("KeyValue", T.Binary); key = newString(); hasKey = true
        case 2 => r.expect("KeyValue", T.Binary); value = newString()
        case _ => r.skip()
      }
      if (!hasKey) refuse("key-value metadata entry without a key")
      fb.KeyValue.startKeyValue(b)
      fb.KeyValue.addKey(b, key)
      if (value != 0) fb.KeyValue.addVal(b, value)
      offsets(i) = fb.KeyValue.endKeyValue(b)
      i += 1
    }
    b.startVector(4, offsets.length, 4)
    var j = offsets.length - 1
    while (j >= 0) { b.addOffset(offsets(j)); j -= 1 }
    b.endVector()
  }
}

/**
 * FlatBuffer offsets keyed by the content of byte ranges of one array (open addressing; no
 * key objects): the small vectors and strings shared between column chunks.
 */
private final class RangeCache(bytes: Array[Byte]) {
  private var from = new Array[Int](64)
  private var until = new Array[Int](64)
  private var value = Array.fill(64)(-1)
  private var size = 0

  private def hash(f: Int, u: Int): Int = {
    var h = u - f
    var i = f
    while (i < u) { h = 31 * h + bytes(i); i += 1 }
    h ^ (h >>> 16)
  }

  private def slot(f: Int, u: Int): Int = {
    val mask = value.length - 1
    var i = hash(f, u) & mask
    while (value(i) >= 0 && !java.util.Arrays.equals(bytes, from(i), until(i), bytes, f, u)) i = (i + 1) & mask
    i
  }

  /** The value stored for the content of bytes[f, u), or -1. */
  def get(f: Int, u: Int): Int = value(slot(f, u))

  def put(f: Int, u: Int, v: Int): Unit = {
    if (2 * (size + 1) > value.length) grow()
    val i = slot(f, u)
    if (value(i) < 0) size += 1
    from(i) = f; until(i) = u; value(i) = v
  }

  private def grow(): Unit = {
    val (f0, u0, v0) = (from, until, value)
    from = new Array[Int](f0.length * 2)
    until = new Array[Int](f0.length * 2)
    value = Array.fill(f0.length * 2)(-1)
    size = 0
    var i = 0
    while (i < v0.length) { if (v0(i) >= 0) put(f0(i), u0(i), v0(i)); i += 1 }
  }
}
