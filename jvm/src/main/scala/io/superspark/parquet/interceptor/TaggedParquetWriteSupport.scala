package io.superspark.parquet.interceptor

import org.apache.hadoop.conf.Configuration
import org.apache.parquet.hadoop.api.WriteSupport.WriteContext
import org.apache.parquet.io.api.{Binary, RecordConsumer}
import org.apache.spark.sql.execution.datasources.parquet.ParquetWriteSupport
import org.apache.spark.sql.types.{DataType, StructType}

/**
 * Spark's `ParquetWriteSupport` with the columns tagged `arrow.uuid` / `arrow.json` written
 * with the Parquet UUID / JSON logical types ([[ParquetLogicalTypes.annotate]]). A UUID value
 * that is not 16 bytes long is refused with an error naming the column.
 */
class TaggedParquetWriteSupport extends ParquetWriteSupport {
  private var uuidFields: Set[Int] = Set.empty
  private var names: Array[String] = Array.empty

  override def init(configuration: Configuration): WriteContext = {
    val context = super.init(configuration)
    val schema = DataType.fromJson(configuration.get(ParquetWriteSupport.SPARK_ROW_SCHEMA)).asInstanceOf[StructType]
    val tags = ParquetLogicalTypes.writeTags(schema)
    names = schema.fieldNames
    uuidFields = schema.fields.indices.filter(i => tags.get(names(i)).contains(ParquetLogicalTypes.Uuid)).toSet
    new WriteContext(ParquetLogicalTypes.annotate(context.getSchema, tags), context.getExtraMetaData)
  }

  override def prepareForWrite(recordConsumer: RecordConsumer): Unit =
    super.prepareForWrite(if (uuidFields.isEmpty) recordConsumer else new UuidCheck(recordConsumer))

  /** Checks the length of values written to top-level UUID columns, passes everything on. */
  private final class UuidCheck(rc: RecordConsumer) extends RecordConsumer {
    private var depth = 0
    private var top = -1
    override def startMessage(): Unit = { depth = 0; rc.startMessage() }
    override def endMessage(): Unit = rc.endMessage()
    override def startField(field: String, index: Int): Unit = {
      if (depth == 0) top = index
      rc.startField(field, index)
    }
    override def endField(field: String, index: Int): Unit = rc.endField(field, index)
    override def startGroup(): Unit = { depth += 1; rc.startGroup() }
    override def endGroup(): Unit = { depth -= 1; rc.endGroup() }
    override def addInteger(value: Int): Unit = rc.addInteger(value)
    override def addLong(value: Long): Unit = rc.addLong(value)
    override def addBoolean(value: Boolean): Unit = rc.addBoolean(value)
    override def addBinary(value: Binary): Unit = {
      if (depth == 0 && uuidFields.contains(top) && value.length != 16) {
        throw new IllegalArgumentException(s"column ${names(top)} is tagged ${ParquetLogicalTypes.Uuid} " +
          s"but holds a ${value.length}-byte value; a UUID is 16 bytes")
      }
      rc.addBinary(value)
    }
    override def addFloat(value: Float): Unit = rc.addFloat(value)
    override def addDouble(value: Double): Unit = rc.addDouble(value)
    override def flush(): Unit = rc.flush()
  }
}
