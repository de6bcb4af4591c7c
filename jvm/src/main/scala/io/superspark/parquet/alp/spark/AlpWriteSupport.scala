package io.superspark.parquet.alp.spark

import scala.jdk.CollectionConverters._

import org.apache.hadoop.conf.Configuration
import org.apache.parquet.hadoop.api.WriteSupport.WriteContext
import org.apache.parquet.schema.MessageType
import org.apache.spark.sql.catalyst.{InternalRow, ProjectingInternalRow}
import org.apache.spark.sql.execution.datasources.parquet.ParquetWriteSupport
import org.apache.spark.sql.types.{DataType, DoubleType, StructType}

import io.superspark.parquet.alp.{AlpColumnSpec, AlpForm, AlpType, AlpValues}
import io.superspark.parquet.logicaltypes.TaggedParquetWriteSupport

/**
 * [[TaggedParquetWriteSupport]] that also keeps the values of the ALP columns
 * ([[AlpWriteOptions]]) of the rows written since the last row group, for the file writer to
 * write as ALP chunks when parquet-java starts the row group (the interceptor's `FooterFileWriter`). In the
 * ratified form parquet-java is given the schema without the ALP columns (they are written as
 * ALP only, and put back into the footer by [[io.superspark.parquet.alp.AlpRatifiedFooter]]);
 * Spark's row metadata keeps the full schema.
 */
private[superspark] class AlpWriteSupport extends TaggedParquetWriteSupport {
  private var ordinals: Array[Int] = Array.empty
  private var specList: Seq[AlpColumnSpec] = Nil
  private var alpForm: AlpForm = AlpForm.Private
  private var projection: ProjectingInternalRow = _
  private var buffers: Array[ColumnBuffer] = Array.empty

  def specs: Seq[AlpColumnSpec] = specList
  def form: AlpForm = alpForm

  override def init(configuration: Configuration): WriteContext = {
    val full = super.init(configuration)
    AlpWriteOptions.get(configuration) match {
      case None => full
      case Some((ords, form)) =>
        val schema = DataType.fromJson(configuration.get(ParquetWriteSupport.SPARK_ROW_SCHEMA)).asInstanceOf[StructType]
        ordinals = ords.toArray
        alpForm = form
        specList = ords.map(o => spec(schema, o, full.getSchema))
        buffers = specList.map(s => new ColumnBuffer(s.t, s.optional)).toArray
        val metadata = new java.util.HashMap[String, String](full.getExtraMetaData)
        metadata.put(io.superspark.parquet.alp.AlpFooter.HintKey, form.name)
        if (form == AlpForm.Private) new WriteContext(full.getSchema, metadata)
        else {
          val kept = schema.indices.filterNot(ords.contains)
          val reduced = StructType(kept.map(schema(_)))
          val conf = new Configuration(configuration)
          conf.set(ParquetWriteSupport.SPARK_ROW_SCHEMA, reduced.json)
          val context = super.init(conf)
          projection = ProjectingInternalRow(reduced, kept)
          new WriteContext(context.getSchema, metadata)
        }
    }
  }

  private def spec(schema: StructType, ordinal: Int, message: MessageType): AlpColumnSpec = {
    val f = schema(ordinal)
    val leaf = message.getColumns.asScala.indexWhere(_.getPath.sameElements(Array(f.name)))
    require(leaf >= 0, s"column ${f.name} is not a leaf of the Parquet schema")
    val id = Option(message.getType(message.getFieldIndex(f.name)).getId).map(_.intValue)
    AlpColumnSpec(f.name, leaf, if (f.dataType == DoubleType) AlpType.Double else AlpType.Float, f.nullable, id)
  }

  override def write(row: InternalRow): Unit = {
    var i = 0
    while (i < ordinals.length) { buffers(i).add(row, ordinals(i)); i += 1 }
    if (projection == null) super.write(row)
    else { projection.project(row); super.write(projection) }
  }

  /** The values kept since the last call, one [[AlpValues]] per spec; empties the buffers. */
  def takeRowGroup(): Seq[AlpValues] = buffers.toSeq.map(_.take())
}

/** A growing buffer of one column's values and nulls. */
private final class ColumnBuffer(t: AlpType, optional: Boolean) {
  private var doubles = if (t == AlpType.Double) new Array[Double](1024) else null
  private var floats = if (t == AlpType.Float) new Array[Float](1024) else null
  private var nulls = if (optional) new Array[Boolean](1024) else null
  private var n = 0

  def add(row: InternalRow, ordinal: Int): Unit = {
    val cap = if (doubles != null) doubles.length else floats.length
    if (n == cap) {
      val grown = math.min(Int.MaxValue - 16L, cap * 2L).toInt
      if (grown <= n) throw new IllegalStateException("an ALP row group holds at most 2^31 values")
      if (doubles != null) doubles = java.util.Arrays.copyOf(doubles, grown)
      else floats = java.util.Arrays.copyOf(floats, grown)
      if (nulls != null) nulls = java.util.Arrays.copyOf(nulls, grown)
    }
    if (row.isNullAt(ordinal)) {
      if (nulls == null) throw new IllegalStateException(s"null in the non-nullable ALP column at ordinal $ordinal")
      nulls(n) = true
      if (doubles != null) doubles(n) = 0 else floats(n) = 0
    } else {
      if (nulls != null) nulls(n) = false
      if (doubles != null) doubles(n) = row.getDouble(ordinal) else floats(n) = row.getFloat(ordinal)
    }
    n += 1
  }

  def take(): AlpValues = {
    val v = new AlpValues(t, n, doubles, floats, nulls)
    doubles = if (doubles != null) new Array[Double](math.max(1024, n)) else null
    floats = if (floats != null) new Array[Float](math.max(1024, n)) else null
    nulls = if (nulls != null) new Array[Boolean](math.max(1024, n)) else null
    n = 0
    v
  }
}
