package io.superspark.parquet.logicaltypes

import java.util.Locale

import scala.jdk.CollectionConverters._

import org.apache.parquet.hadoop.metadata.{FileMetaData, ParquetMetadata}
import org.apache.parquet.schema.{GroupType, LogicalTypeAnnotation, MessageType, Type, Types}
import org.apache.parquet.schema.LogicalTypeAnnotation.{Float16LogicalTypeAnnotation, JsonLogicalTypeAnnotation, UUIDLogicalTypeAnnotation}
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName
import org.apache.spark.sql.types._
import org.json4s.{JArray, JObject, JString, JValue}
import org.json4s.jackson.JsonMethods

import io.superspark.errors.SuperSparkIllegalArgumentException

/**
 * Parquet UUID and JSON columns in Spark, with the tags of the Arrow layer
 * (python/superspark/arrow, docs/arrow.md): field metadata `arrow.extension.name` =
 * `arrow.uuid` on a binary(16) column, `arrow.json` on a string column. Below the top level
 * (in structs, arrays, maps) the top-level field carries `arrow.extension.nested`, a JSON list
 * of `{"path": [...], "name": ..., "metadata": ""}` whose path names the Arrow child fields
 * from the column down (struct field names, `element` for an array's values, `key`/`value`
 * for a map's).
 *
 * Read: Spark 4.3 refuses a file schema holding a UUID column (PARQUET_TYPE_ILLEGAL, even when
 * the column is not selected), so the footer handed to Spark has the UUID annotations dropped
 * (the columns stay FIXED_LEN_BYTE_ARRAY(16), which Spark reads as binary) and the inferred
 * schema is tagged. Write: tagged binary values are written as FIXED_LEN_BYTE_ARRAY(16) UUID,
 * tagged strings as BINARY JSON, at any depth.
 *
 * FLOAT16 (a top-level FIXED_LEN_BYTE_ARRAY(2) column), which Spark 4.3 refuses: the footer
 * handed to Spark has the annotation dropped (Spark reads the two bytes as binary), the
 * inferred schema says `float` with field metadata `super.type` = `float16` (the tag the bsup
 * source gives Super float16 columns, which `superspark.arrow.to_arrow` turns into
 * `halffloat`), and the scan turns the bytes into floats ([[Float16Columns]]). A `float`
 * column tagged so is written as FLOAT16. FLOAT16 below the top level stays refused.
 */
private[superspark] object ParquetLogicalTypes {
  val ExtensionNameKey = "arrow.extension.name"
  val NestedKey = "arrow.extension.nested"
  val Uuid = "arrow.uuid"
  val Json = "arrow.json"
  /** Field metadata key and value of a half-float column (as the bsup source tags Super float16). */
  val SuperTypeKey = io.superspark.bsup.spark.SuperTypes.MetadataKey
  val Float16Tag = "float16"

  /** A tagged value: `path` is the Arrow path below the top-level `column` (empty: the column). */
  final case class Tag(column: String, path: Seq[String], name: String)

  private def isUuid(t: Type) = t.isPrimitive && t.getLogicalTypeAnnotation.isInstanceOf[UUIDLogicalTypeAnnotation]
  private def isJson(t: Type) = t.isPrimitive && t.getLogicalTypeAnnotation.isInstanceOf[JsonLogicalTypeAnnotation]

  private def isFloat16(t: Type) = t.isPrimitive && t.getLogicalTypeAnnotation.isInstanceOf[Float16LogicalTypeAnnotation]

  private def hasUuid(t: Type): Boolean =
    if (t.isPrimitive) isUuid(t) else t.asGroupType.getFields.asScala.exists(hasUuid)

  private def needsRewrite(schema: MessageType): Boolean =
    hasUuid(schema) || schema.getFields.asScala.exists(isFloat16)

  /**
   * The footer as Spark can read it: UUID annotations and top-level FLOAT16 annotations
   * dropped, everything else the same.
   */
  def forSpark(md: ParquetMetadata): ParquetMetadata = {
    val schema = md.getFileMetaData.getSchema
    if (!needsRewrite(schema)) md
    else {
      val fm = md.getFileMetaData
      new ParquetMetadata(new FileMetaData(forSpark(schema), fm.getKeyValueMetaData, fm.getCreatedBy,
        fm.getEncryptionType, fm.getFileDecryptor), md.getBlocks)
    }
  }

  /** A file schema as Spark can read it: UUID and top-level FLOAT16 annotations dropped. */
  def forSpark(schema: MessageType): MessageType =
    if (!needsRewrite(schema)) schema
    else new MessageType(schema.getName, schema.getFields.asScala.map { t =>
      if (isFloat16(t)) t.asPrimitiveType.withLogicalTypeAnnotation(null) else stripUuid(t)
    }.asJava)

  private def stripUuid(t: Type): Type =
    if (isUuid(t)) t.asPrimitiveType.withLogicalTypeAnnotation(null)
    else if (t.isPrimitive || !hasUuid(t)) t
    else t.asGroupType.withNewFields(t.asGroupType.getFields.asScala.map(stripUuid).asJava)

  // ---- how Spark lays out arrays and maps in Parquet (standard and legacy layouts) ----

  /** The element type of a Parquet list that Spark reads as an array. */
  private def listElement(t: Type): Option[Type] = {
    if (t.isRepetition(Type.Repetition.REPEATED)) Some(t) // legacy: the repeated field itself
    else if (t.isPrimitive || t.asGroupType.getFieldCount != 1) None
    else {
      val g = t.asGroupType
      val r = g.getType(0)
      if (!r.isRepetition(Type.Repetition.REPEATED)) None
      else if (r.isPrimitive) Some(r)
      else if (r.asGroupType.getFieldCount == 1 && r.getName != "array" && r.getName != s"${g.getName}_tuple") {
        Some(r.asGroupType.getType(0))
      } else Some(r)
    }
  }

  private def mapKeyValue(t: Type): Option[(Type, Type)] =
    if (t.isPrimitive || t.asGroupType.getFieldCount != 1 || t.asGroupType.getType(0).isPrimitive) None
    else {
      val kv = t.asGroupType.getType(0).asGroupType
      if (kv.getFieldCount != 2) None else Some((kv.getType(0), kv.getType(1)))
    }

  /** A group's fields by name (exact, then case-insensitive, as Spark resolves them). */
  private final class Children(g: GroupType) {
    private val fields = g.getFields.asScala
    private val exact = fields.map(t => t.getName -> t).toMap
    private lazy val lower = fields.reverseIterator.map(t => t.getName.toLowerCase(Locale.ROOT) -> t).toMap
    def apply(name: String): Option[Type] = exact.get(name).orElse(lower.get(name.toLowerCase(Locale.ROOT)))
  }

  private def child(g: GroupType, name: String): Option[Type] = new Children(g)(name)

  // ---- read: tag the Spark schema from the file schema ----

  private def withMetadata(f: StructField, key: String, value: String): StructField =
    f.copy(metadata = new MetadataBuilder().withMetadata(f.metadata).putString(key, value).build())

  /** UUID/JSON values of a Parquet type read as Spark type `dt`: (Arrow path, tag). */
  private def tagsIn(dt: DataType, t: Type, path: Vector[String]): Seq[(Vector[String], String)] = dt match {
    case BinaryType if isUuid(t) && t.asPrimitiveType.getTypeLength == 16 => Seq(path -> Uuid)
    case StringType if isJson(t) => Seq(path -> Json)
    case s: StructType if !t.isPrimitive =>
      val children = new Children(t.asGroupType)
      s.fields.toSeq.flatMap(f => children(f.name).toSeq.flatMap(c => tagsIn(f.dataType, c, path :+ f.name)))
    case a: ArrayType => listElement(t).toSeq.flatMap(e => tagsIn(a.elementType, e, path :+ "element"))
    case m: MapType => mapKeyValue(t).toSeq.flatMap { case (k, v) =>
      tagsIn(m.keyType, k, path :+ "key") ++ tagsIn(m.valueType, v, path :+ "value")
    }
    case _ => Nil
  }

  /**
   * Tags the columns that hold UUID or JSON values in `parquet` (at any depth); top-level
   * FLOAT16 columns (read by Spark as binary) become `float` tagged `super.type` = `float16`.
   */
  def tag(schema: StructType, parquet: GroupType): StructType = {
    val children = new Children(parquet)
    StructType(schema.fields.map { f =>
      if (f.dataType == BinaryType && children(f.name).exists(isFloat16)) {
        withMetadata(f.copy(dataType = FloatType), SuperTypeKey, Float16Tag)
      } else children(f.name).map(t => tagsIn(f.dataType, t, Vector.empty)).getOrElse(Nil) match {
        case Seq((Seq(), name)) => withMetadata(f, ExtensionNameKey, name)
        case Seq() => f
        case nested => withMetadata(f, NestedKey, nestedJson(nested))
      }
    })
  }

  private def nestedJson(tags: Seq[(Seq[String], String)]): String = JsonMethods.compact(JArray(tags.toList.map {
    case (path, name) => JObject("path" -> JArray(path.toList.map(JString(_))), "name" -> JString(name),
      "metadata" -> JString(""))
  }))

  // ---- write: find the tags of a Spark schema, annotate the Parquet write schema ----

  /** A top-level `float` column tagged `super.type` = `float16`. */
  def isFloat16Column(f: StructField): Boolean = f.dataType == FloatType &&
    f.metadata.contains(SuperTypeKey) && f.metadata.getString(SuperTypeKey) == Float16Tag

  /**
   * The UUID/JSON/FLOAT16 tags of a write schema whose Spark types fit them; other tags are
   * ignored.
   */
  def writeTags(schema: StructType): Seq[Tag] = schema.fields.toSeq.flatMap { f =>
    val md = f.metadata
    if (isFloat16Column(f)) Seq(Tag(f.name, Nil, Float16Tag))
    else if (md.contains(ExtensionNameKey)) {
      Seq(Tag(f.name, Nil, md.getString(ExtensionNameKey))).filter(t => fits(f.dataType, t.name))
    } else if (md.contains(NestedKey)) {
      parseNested(f.name, md.getString(NestedKey)).filter(t => typeAt(f.dataType, t.path).exists(fits(_, t.name)))
    } else Nil
  }

  private def fits(dt: DataType, name: String): Boolean = (name, dt) match {
    case (Uuid, BinaryType) | (Json, StringType) => true
    case _ => false
  }

  /** The tags of a column's `arrow.extension.nested`; one that cannot be read is `SUPERSPARK_INVALID_ARROW_NESTED_METADATA`. */
  private def parseNested(column: String, text: String): Seq[Tag] = {
    def invalid(reason: String, params: (String, String)*) = new SuperSparkIllegalArgumentException(
      s"SUPERSPARK_INVALID_ARROW_NESTED_METADATA.$reason", Map("column" -> s"`$column`", "key" -> NestedKey) ++ params)
    val entries = try JsonMethods.parse(text) catch {
      case e: Exception => throw invalid("NOT_JSON", "detail" -> String.valueOf(e.getMessage))
    }
    entries match {
      case JArray(items) => items.map {
        case o: JObject =>
          val path = (o \ "path") match {
            case JArray(ps) => ps.collect { case JString(p) => p }
            case _ => Nil
          }
          val name = (o \ "name") match {
            case JString(n) => n
            case _ => ""
          }
          if (path.isEmpty || name.isEmpty) throw invalid("ENTRY_WITHOUT_PATH_OR_NAME", "entry" -> JsonMethods.compact(o))
          Tag(column, path, name)
        case other: JValue => throw invalid("ENTRY_NOT_AN_OBJECT", "entry" -> JsonMethods.compact(other))
      }
      case _ => throw invalid("NOT_A_LIST")
    }
  }

  /** The Spark type at an Arrow path (a list's value field matches any name, as in Arrow). */
  private def typeAt(dt: DataType, path: Seq[String]): Option[DataType] = (path, dt) match {
    case (Seq(), t) => Some(t)
    case (p +: rest, s: StructType) => s.fields.find(_.name == p).flatMap(f => typeAt(f.dataType, rest))
    case (_ +: rest, a: ArrayType) => typeAt(a.elementType, rest)
    case ("key" +: rest, m: MapType) => typeAt(m.keyType, rest)
    case ("value" +: rest, m: MapType) => typeAt(m.valueType, rest)
    case _ => None
  }

  def hasWriteTags(schema: DataType): Boolean = schema match {
    case s: StructType => writeTags(s).nonEmpty
    case _ => false
  }

  private def annotateLeaf(t: Type, name: String): Type = name match {
    case Uuid if t.isPrimitive && t.asPrimitiveType.getPrimitiveTypeName == PrimitiveTypeName.BINARY =>
      val b = Types.primitive(PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY, t.getRepetition).length(16)
        .as(LogicalTypeAnnotation.uuidType())
      (if (t.getId != null) b.id(t.getId.intValue) else b).named(t.getName)
    case Json if t.isPrimitive && t.asPrimitiveType.getPrimitiveTypeName == PrimitiveTypeName.BINARY =>
      t.asPrimitiveType.withLogicalTypeAnnotation(LogicalTypeAnnotation.jsonType())
    case Float16Tag if t.isPrimitive && t.asPrimitiveType.getPrimitiveTypeName == PrimitiveTypeName.FLOAT =>
      val b = Types.primitive(PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY, t.getRepetition).length(2)
        .as(LogicalTypeAnnotation.float16Type())
      (if (t.getId != null) b.id(t.getId.intValue) else b).named(t.getName)
    case _ => t
  }

  private def replaceChild(g: GroupType, old: Type, updated: Type): GroupType =
    if (old eq updated) g else g.withNewFields(g.getFields.asScala.map(f => if (f eq old) updated else f).asJava)

  /**
   * `t` (the Parquet type Spark's write support made for Spark type `dt`) with the value at
   * `path` annotated, plus the Parquet field names down to it (for the value checks).
   */
  private def annotateAt(t: Type, dt: DataType, path: Seq[String], name: String): (Type, Seq[String]) = {
    def down(c: Type, cdt: DataType, rest: Seq[String]): (Type, Seq[String]) = {
      val (updated, names) = annotateAt(c, cdt, rest, name)
      (replaceChild(t.asGroupType, c, updated), c.getName +: names)
    }
    (path, dt) match {
      case (Seq(), _) => (annotateLeaf(t, name), Nil)
      case (p +: rest, s: StructType) if !t.isPrimitive =>
        (s.fields.find(_.name == p), child(t.asGroupType, p)) match {
          case (Some(f), Some(c)) => down(c, f.dataType, rest)
          case _ => (t, Nil)
        }
      case (_ +: rest, a: ArrayType) if !t.isPrimitive && t.asGroupType.getFieldCount == 1 =>
        val r = t.asGroupType.getType(0)
        if (r.isPrimitive || r.asGroupType.getFieldCount != 1) down(r, a.elementType, rest) // legacy
        else {
          val (updated, names) = annotateAt(r.asGroupType.getType(0), a.elementType, rest, name)
          val newR = replaceChild(r.asGroupType, r.asGroupType.getType(0), updated)
          (replaceChild(t.asGroupType, r, newR), Seq(r.getName, r.asGroupType.getType(0).getName) ++ names)
        }
      case (kv +: rest, m: MapType) if (kv == "key" || kv == "value") && mapKeyValue(t).isDefined =>
        val r = t.asGroupType.getType(0).asGroupType
        val (c, cdt) = if (kv == "key") (r.getType(0), m.keyType) else (r.getType(1), m.valueType)
        val (updated, names) = annotateAt(c, cdt, rest, name)
        (replaceChild(t.asGroupType, r, replaceChild(r, c, updated)), Seq(r.getName, c.getName) ++ names)
      case _ => (t, Nil)
    }
  }

  /**
   * The write schema with the tagged values given their Parquet logical types, and the Parquet
   * paths (field names from the root) of the UUID values.
   */
  def annotate(message: MessageType, schema: StructType, tags: Seq[Tag]): (MessageType, Seq[Seq[String]]) = {
    var fields = message.getFields.asScala.toVector
    val uuidPaths = Seq.newBuilder[Seq[String]]
    tags.foreach { tag =>
      val i = fields.indexWhere(_.getName == tag.column)
      val sparkField = schema.fields.find(_.name == tag.column)
      if (i >= 0 && sparkField.isDefined) {
        val (updated, names) = annotateAt(fields(i), sparkField.get.dataType, tag.path, tag.name)
        if (!(updated eq fields(i))) {
          fields = fields.updated(i, updated)
          if (tag.name == Uuid) uuidPaths += (tag.column +: names)
        }
      }
    }
    (new MessageType(message.getName, fields.asJava), uuidPaths.result())
  }
}
