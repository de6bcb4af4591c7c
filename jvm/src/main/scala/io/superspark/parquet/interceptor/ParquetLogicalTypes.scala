package io.superspark.parquet.interceptor

import java.util.Locale

import scala.jdk.CollectionConverters._

import org.apache.parquet.hadoop.metadata.{FileMetaData, ParquetMetadata}
import org.apache.parquet.schema.{GroupType, LogicalTypeAnnotation, MessageType, PrimitiveType, Type, Types}
import org.apache.parquet.schema.LogicalTypeAnnotation.{JsonLogicalTypeAnnotation, UUIDLogicalTypeAnnotation}
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName
import org.apache.spark.sql.types.{BinaryType, DataType, MetadataBuilder, StringType, StructField, StructType}

/**
 * Parquet UUID and JSON columns in Spark, with the tags of the Arrow layer
 * (python/superspark/arrow, docs/arrow.md): field metadata `arrow.extension.name` =
 * `arrow.uuid` on a binary(16) column, `arrow.json` on a string column.
 *
 * Read: Spark 4.3 refuses a file schema holding a UUID column (PARQUET_TYPE_ILLEGAL, even when
 * the column is not selected), so the footer handed to Spark has the UUID annotation dropped
 * (the column stays FIXED_LEN_BYTE_ARRAY(16), which Spark reads as binary) and the inferred
 * schema is tagged. Write: a tagged binary column is written as FIXED_LEN_BYTE_ARRAY(16) UUID,
 * a tagged string column as BINARY JSON.
 */
object ParquetLogicalTypes {
  val ExtensionNameKey = "arrow.extension.name"
  val Uuid = "arrow.uuid"
  val Json = "arrow.json"

  private def isUuid(t: Type) = t.isPrimitive && t.getLogicalTypeAnnotation.isInstanceOf[UUIDLogicalTypeAnnotation]
  private def isJson(t: Type) = t.isPrimitive && t.getLogicalTypeAnnotation.isInstanceOf[JsonLogicalTypeAnnotation]

  private def hasUuid(t: Type): Boolean =
    if (t.isPrimitive) isUuid(t) else t.asGroupType.getFields.asScala.exists(hasUuid)

  /** The footer as Spark can read it: UUID annotations dropped, everything else the same. */
  def forSpark(md: ParquetMetadata): ParquetMetadata = {
    val schema = md.getFileMetaData.getSchema
    if (!hasUuid(schema)) md
    else {
      val fm = md.getFileMetaData
      val stripped = new MessageType(schema.getName, schema.getFields.asScala.map(stripUuid).asJava)
      new ParquetMetadata(new FileMetaData(stripped, fm.getKeyValueMetaData, fm.getCreatedBy,
        fm.getEncryptionType, fm.getFileDecryptor), md.getBlocks)
    }
  }

  private def stripUuid(t: Type): Type =
    if (isUuid(t)) t.asPrimitiveType.withLogicalTypeAnnotation(null)
    else if (t.isPrimitive || !hasUuid(t)) t
    else t.asGroupType.withNewFields(t.asGroupType.getFields.asScala.map(stripUuid).asJava)

  private def tagged(f: StructField, name: String): StructField =
    f.copy(metadata = new MetadataBuilder().withMetadata(f.metadata).putString(ExtensionNameKey, name).build())

  /** Tags the fields (top level and inside structs) that are UUID or JSON columns in `parquet`. */
  def tag(schema: StructType, parquet: GroupType): StructType = {
    val byName = parquet.getFields.asScala.map(t => t.getName -> t).toMap
    val byLower = parquet.getFields.asScala.map(t => t.getName.toLowerCase(Locale.ROOT) -> t).toMap
    StructType(schema.fields.map { f =>
      byName.get(f.name).orElse(byLower.get(f.name.toLowerCase(Locale.ROOT))) match {
        case Some(t) if isUuid(t) && f.dataType == BinaryType => tagged(f, Uuid)
        case Some(t) if isJson(t) && f.dataType == StringType => tagged(f, Json)
        case Some(t) if !t.isPrimitive && f.dataType.isInstanceOf[StructType] =>
          f.copy(dataType = tag(f.dataType.asInstanceOf[StructType], t.asGroupType))
        case _ => f
      }
    })
  }

  /** Top-level columns to write with a logical type: name -> tag. */
  def writeTags(schema: StructType): Map[String, String] = schema.fields.flatMap { f =>
    val tag = if (f.metadata.contains(ExtensionNameKey)) Some(f.metadata.getString(ExtensionNameKey)) else None
    (tag, f.dataType) match {
      case (Some(Uuid), BinaryType) => Some(f.name -> Uuid)
      case (Some(Json), StringType) => Some(f.name -> Json)
      case _ => None
    }
  }.toMap

  def hasWriteTags(schema: DataType): Boolean = schema match {
    case s: StructType => writeTags(s).nonEmpty
    case _ => false
  }

  /** The write schema with the tagged top-level columns given their Parquet logical types. */
  def annotate(message: MessageType, tags: Map[String, String]): MessageType = {
    if (tags.isEmpty) return message
    val fields = message.getFields.asScala.map { t =>
      tags.get(t.getName) match {
        case Some(Uuid) if t.isPrimitive && t.asPrimitiveType.getPrimitiveTypeName == PrimitiveTypeName.BINARY =>
          val b = Types.primitive(PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY, t.getRepetition).length(16)
            .as(LogicalTypeAnnotation.uuidType())
          (if (t.getId != null) b.id(t.getId.intValue) else b).named(t.getName)
        case Some(Json) if t.isPrimitive && t.asPrimitiveType.getPrimitiveTypeName == PrimitiveTypeName.BINARY =>
          t.asPrimitiveType.withLogicalTypeAnnotation(LogicalTypeAnnotation.jsonType())
        case _ => t
      }
    }
    new MessageType(message.getName, fields.asJava)
  }
}
