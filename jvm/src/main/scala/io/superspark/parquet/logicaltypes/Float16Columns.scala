package io.superspark.parquet.logicaltypes

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{GenericInternalRow, UnsafeProjection}
import org.apache.spark.sql.types.{BinaryType, DataType, Decimal, FloatType, StructType}
import org.apache.spark.sql.vectorized.{ColumnVector, ColumnarArray, ColumnarBatch, ColumnarMap}
import org.apache.spark.unsafe.types.UTF8String

/**
 * The scan side of FLOAT16 columns ([[ParquetLogicalTypes]]): Spark's reader reads a
 * top-level FLOAT16 column (annotation dropped) as its two bytes, `binary`; this turns those
 * bytes into the `float` the schema says, in column batches (a view over the reader's
 * vector, nothing copied) and in rows.
 */
private[superspark] object Float16Columns {
  /** Positions of the top-level `float` columns tagged FLOAT16 in a scan's required schema. */
  def positions(required: StructType): Array[Int] =
    required.fields.indices.filter(i => ParquetLogicalTypes.isFloat16Column(required(i))).toArray

  /** The schema Spark's reader reads: the FLOAT16 columns as `binary`. */
  def asRead(required: StructType, positions: Array[Int]): StructType =
    StructType(required.fields.zipWithIndex.map { case (f, i) =>
      if (positions.contains(i)) f.copy(dataType = BinaryType) else f
    })

  /**
   * Converts the output of a reader of `read` (the FLOAT16 columns at `positions` as binary)
   * followed by the partition columns `partition`.
   */
  final class Converter(read: StructType, partition: StructType, positions: Array[Int]) extends Serializable {
    private val readTypes: Array[DataType] = (read.fields ++ partition.fields).map(_.dataType)
    private val outTypes: Array[DataType] = readTypes.indices.map(i =>
      if (positions.contains(i)) FloatType else readTypes(i)).toArray

    def apply(rows: Iterator[InternalRow]): Iterator[InternalRow] = {
      val projection = UnsafeProjection.create(outTypes)
      val out = new GenericInternalRow(readTypes.length)
      val isFloat16 = readTypes.indices.map(positions.contains).toArray
      def convertRow(r: InternalRow): InternalRow = {
        var i = 0
        while (i < readTypes.length) {
          out.update(i,
            if (r.isNullAt(i)) null
            else if (isFloat16(i)) Float16.fromBytes(r.getBinary(i), 0)
            else r.get(i, readTypes(i)))
          i += 1
        }
        projection(out)
      }
      // Spark's reader hands column batches through its Iterator[InternalRow] (erased types).
      // Closeable (not just AutoCloseable): FileScanRDD closes a file's iterator only then.
      new Iterator[Any] with java.io.Closeable {
        override def hasNext: Boolean = rows.hasNext
        override def next(): Any = (rows.next(): Any) match {
          case b: ColumnarBatch =>
            val columns = Array.tabulate[ColumnVector](b.numCols()) { i =>
              if (isFloat16(i)) new Float16Vector(b.column(i)) else b.column(i)
            }
            new ColumnarBatch(columns, b.numRows())
          case r: InternalRow => convertRow(r)
        }
        override def close(): Unit = rows match {
          case c: AutoCloseable => c.close()
          case _ =>
        }
      }.asInstanceOf[Iterator[InternalRow]]
    }
  }

  /** A `float` view of a vector of FLOAT16 values' bytes (owned by the reader). */
  private final class Float16Vector(bytes: ColumnVector) extends ColumnVector(FloatType) {
    override def close(): Unit = ()
    override def hasNull: Boolean = bytes.hasNull
    override def numNulls: Int = bytes.numNulls
    override def isNullAt(rowId: Int): Boolean = bytes.isNullAt(rowId)
    override def getFloat(rowId: Int): Float = Float16.fromBytes(bytes.getBinary(rowId), 0)
    private def unsupported = throw new UnsupportedOperationException("a FLOAT16 column is read as float")
    override def getBoolean(rowId: Int): Boolean = unsupported
    override def getByte(rowId: Int): Byte = unsupported
    override def getShort(rowId: Int): Short = unsupported
    override def getInt(rowId: Int): Int = unsupported
    override def getLong(rowId: Int): Long = unsupported
    override def getDouble(rowId: Int): Double = unsupported
    override def getArray(rowId: Int): ColumnarArray = unsupported
    override def getMap(ordinal: Int): ColumnarMap = unsupported
    override def getDecimal(rowId: Int, precision: Int, scale: Int): Decimal = unsupported
    override def getUTF8String(rowId: Int): UTF8String = unsupported
    override def getBinary(rowId: Int): Array[Byte] = unsupported
    override def getChild(ordinal: Int): ColumnVector = unsupported
  }
}
