package io.superspark.parquet.logicaltypes

import scala.collection.mutable

import org.apache.hadoop.conf.Configuration
import org.apache.parquet.hadoop.api.WriteSupport.WriteContext
import org.apache.parquet.io.api.{Binary, RecordConsumer}
import org.apache.spark.sql.execution.datasources.parquet.ParquetWriteSupport
import org.apache.spark.sql.types.{DataType, StructType}

/**
 * Spark's `ParquetWriteSupport` with the values tagged `arrow.uuid` / `arrow.json` (top level
 * or nested, see [[ParquetLogicalTypes]]) written with the Parquet UUID / JSON logical types.
 * A UUID value that is not 16 bytes long is refused with an error naming the column.
 * Top-level `float` columns tagged `super.type` = `float16` are written as FLOAT16
 * (FIXED_LEN_BYTE_ARRAY(2), each value rounded to the nearest half, ties to even).
 */
private[superspark] class TaggedParquetWriteSupport extends ParquetWriteSupport {
  private var uuidPaths: Seq[Seq[String]] = Nil
  private var float16Paths: Seq[Seq[String]] = Nil

  override def init(configuration: Configuration): WriteContext = {
    val context = super.init(configuration)
    val schema = DataType.fromJson(configuration.get(ParquetWriteSupport.SPARK_ROW_SCHEMA)).asInstanceOf[StructType]
    val tags = ParquetLogicalTypes.writeTags(schema)
    val (annotated, uuids) = ParquetLogicalTypes.annotate(context.getSchema, schema, tags)
    uuidPaths = uuids
    float16Paths = tags.collect { case t if t.name == ParquetLogicalTypes.Float16Tag => Seq(t.column) }
    new WriteContext(annotated, context.getExtraMetaData)
  }

  override def prepareForWrite(recordConsumer: RecordConsumer): Unit =
    super.prepareForWrite(if (uuidPaths.isEmpty && float16Paths.isEmpty) recordConsumer
      else new TaggedValues(recordConsumer, uuidPaths, float16Paths))
}

/**
 * A trie of Parquet field names; `uuid` / `float16` mark the end of a UUID / FLOAT16
 * column's path.
 */
private final class PathNode(val uuid: Boolean, val float16: Boolean, val children: Map[String, PathNode])

private object PathNode {
  def of(uuids: Seq[Seq[String]], float16s: Seq[Seq[String]]): PathNode = {
    val (uEnds, uLonger) = uuids.partition(_.isEmpty)
    val (fEnds, fLonger) = float16s.partition(_.isEmpty)
    val heads = (uLonger ++ fLonger).map(_.head).distinct
    new PathNode(uEnds.nonEmpty, fEnds.nonEmpty, heads.map { k =>
      k -> of(uLonger.filter(_.head == k).map(_.tail), fLonger.filter(_.head == k).map(_.tail))
    }.toMap)
  }
}

/**
 * Passes everything on, checking the length of the values written at the Parquet paths of
 * UUID columns and writing the floats of FLOAT16 columns as halves (tracked field by field,
 * no allocation per UUID value).
 */
private final class TaggedValues(rc: RecordConsumer, uuids: Seq[Seq[String]], float16s: Seq[Seq[String]])
    extends RecordConsumer {
  private val root = PathNode.of(uuids, float16s)
  private val stack = mutable.ArrayBuffer.empty[PathNode] // null: off every UUID path
  private val names = mutable.ArrayBuffer.empty[String]

  private def current: PathNode = if (stack.isEmpty) root else stack.last

  override def startMessage(): Unit = { stack.clear(); names.clear(); rc.startMessage() }
  override def endMessage(): Unit = rc.endMessage()
  override def startField(field: String, index: Int): Unit = {
    val here = current
    stack += (if (here == null) null else here.children.getOrElse(field, null))
    names += field
    rc.startField(field, index)
  }
  override def endField(field: String, index: Int): Unit = {
    stack.remove(stack.length - 1)
    names.remove(names.length - 1)
    rc.endField(field, index)
  }
  override def startGroup(): Unit = rc.startGroup()
  override def endGroup(): Unit = rc.endGroup()
  override def addInteger(value: Int): Unit = rc.addInteger(value)
  override def addLong(value: Long): Unit = rc.addLong(value)
  override def addBoolean(value: Boolean): Unit = rc.addBoolean(value)
  override def addBinary(value: Binary): Unit = {
    val here = current
    if (here != null && here.uuid && value.length != 16) {
      throw new IllegalArgumentException(s"column ${names.mkString(".")} is tagged ${ParquetLogicalTypes.Uuid} " +
        s"but holds a ${value.length}-byte value; a UUID is 16 bytes")
    }
    rc.addBinary(value)
  }
  override def addFloat(value: Float): Unit = {
    val here = current
    if (here != null && here.float16) rc.addBinary(Binary.fromConstantByteArray(Float16.toBytes(value)))
    else rc.addFloat(value)
  }
  override def addDouble(value: Double): Unit = rc.addDouble(value)
  override def flush(): Unit = rc.flush()
}
