package io.superspark.parquet.interceptor

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
 */
class TaggedParquetWriteSupport extends ParquetWriteSupport {
  private var uuidPaths: Seq[Seq[String]] = Nil

  override def init(configuration: Configuration): WriteContext = {
    val context = super.init(configuration)
    val schema = DataType.fromJson(configuration.get(ParquetWriteSupport.SPARK_ROW_SCHEMA)).asInstanceOf[StructType]
    val (annotated, uuids) = ParquetLogicalTypes.annotate(context.getSchema, schema, ParquetLogicalTypes.writeTags(schema))
    uuidPaths = uuids
    new WriteContext(annotated, context.getExtraMetaData)
  }

  override def prepareForWrite(recordConsumer: RecordConsumer): Unit =
    super.prepareForWrite(if (uuidPaths.isEmpty) recordConsumer else new UuidCheck(recordConsumer, uuidPaths))
}

/** A trie of Parquet field names; `uuid` marks the end of a UUID column's path. */
private final class PathNode(val uuid: Boolean, val children: Map[String, PathNode])

private object PathNode {
  def of(paths: Seq[Seq[String]]): PathNode = {
    val (ends, longer) = paths.partition(_.isEmpty)
    new PathNode(ends.nonEmpty, longer.groupBy(_.head).map { case (k, ps) => k -> of(ps.map(_.tail)) })
  }
}

/**
 * Passes everything on, checking the length of the values written at the Parquet paths of
 * UUID columns (tracked field by field, no allocation per value).
 */
private final class UuidCheck(rc: RecordConsumer, paths: Seq[Seq[String]]) extends RecordConsumer {
  private val root = PathNode.of(paths)
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
  override def addFloat(value: Float): Unit = rc.addFloat(value)
  override def addDouble(value: Double): Unit = rc.addDouble(value)
  override def flush(): Unit = rc.flush()
}
