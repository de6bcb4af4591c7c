package io.superspark.parquet.alp

import scala.jdk.CollectionConverters._

import org.apache.parquet.column.impl.ColumnReadStoreImpl
import org.apache.parquet.hadoop.ParquetFileReader
import org.apache.parquet.hadoop.metadata.BlockMetaData
import org.apache.parquet.io.InputFile
import org.apache.parquet.io.api.{Converter, GroupConverter, PrimitiveConverter}
import org.apache.parquet.schema.MessageType

/**
 * The private form's fallback: one row group of a flat FLOAT/DOUBLE column read from its
 * ordinary chunk with parquet-java's column reader, for when its ALP chunk fails a check
 * mid-scan. `sameRowGroup` picks the row group among the file's.
 */
private[superspark] object OrdinaryChunkReader {
  def read(file: InputFile, sameRowGroup: BlockMetaData => Boolean, column: String, t: AlpType,
      optional: Boolean): AlpValues = {
    val reader = ParquetFileReader.open(file)
    try {
      val blocks = reader.getRowGroups.asScala
      val index = blocks.indexWhere(sameRowGroup)
      if (index < 0) throw new IllegalStateException(s"$file: row group of the ALP chunk not found")
      val schema = reader.getFooter.getFileMetaData.getSchema
      val projected = new MessageType(schema.getName, schema.getType(schema.getFieldIndex(column)))
      reader.setRequestedSchema(projected)
      val pages = reader.readRowGroup(index)
      val descriptor = projected.getColumns.get(0)
      val store = new ColumnReadStoreImpl(pages, NoConverter, projected, reader.getFooter.getFileMetaData.getCreatedBy)
      val cr = store.getColumnReader(descriptor)
      val rows = blocks(index).getRowCount
      if (rows > Int.MaxValue - 16) throw new IllegalStateException(s"$file: row group of $rows rows")
      val out = AlpValues.allocate(t, rows.toInt, optional)
      val max = descriptor.getMaxDefinitionLevel
      var i = 0
      while (i < rows) {
        if (cr.getCurrentDefinitionLevel == max) {
          if (t == AlpType.Double) out.doubles(i) = cr.getDouble else out.floats(i) = cr.getFloat
        } else out.nulls(i) = true
        cr.consume()
        i += 1
      }
      out
    } finally reader.close()
  }

  private object NoConverter extends GroupConverter {
    private val leaf = new PrimitiveConverter {}
    override def getConverter(fieldIndex: Int): Converter = leaf
    override def start(): Unit = ()
    override def end(): Unit = ()
  }
}
