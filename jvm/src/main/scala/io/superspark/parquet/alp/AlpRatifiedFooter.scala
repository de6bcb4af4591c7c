package io.superspark.parquet.alp

import java.io.ByteArrayOutputStream

import scala.jdk.CollectionConverters._

import org.apache.parquet.format.{ColumnChunk, ColumnMetaData, ColumnOrder, CompressionCodec, Encoding, FieldRepetitionType, SchemaElement, Statistics, Type, TypeDefinedOrder, Util}
import io.superspark.parquet.thrift.ThriftForParquetJava

/**
 * The ratified form's footer: the Thrift footer of a file written without the ALP columns
 * (their values went to ALP chunks only) gets them back, at their places in the schema and in
 * every row group, as column chunks whose data pages are ALP (`encodings` lists ALP = 10,
 * written by [[AlpFooter.markAlpEncodings]] after serialization: parquet-format 2.10's Java
 * classes have no ALP value). Statistics (null count, min/max) are the writer's own.
 */
private[superspark] object AlpRatifiedFooter {
  /** What the `encodings` list holds for ALP until [[AlpFooter.markAlpEncodings]]: BIT_PACKED, a levels-only encoding no value page uses here. */
  private val AlpPlaceholder = Encoding.BIT_PACKED

  def insert(thrift: Array[Byte], specs: Seq[AlpColumnSpec], chunks: Seq[AlpWrittenChunk]): Array[Byte] = {
    val md = ThriftForParquetJava.parse(thrift)
    val ordered = specs.sortBy(_.leaf)
    md.setSchema(withColumns(md.getSchema.asScala.toSeq, ordered).asJava)
    val byRowGroup = chunks.groupBy(_.rowGroup)
    md.getRow_groups.asScala.zipWithIndex.foreach { case (rg, i) =>
      val mine = byRowGroup.getOrElse(i, Nil).sortBy(_.spec.leaf)
      require(mine.size == specs.size, s"row group $i has ${mine.size} of ${specs.size} ALP chunks")
      val cols = new java.util.ArrayList[ColumnChunk](rg.getColumns)
      mine.foreach(c => cols.add(c.spec.leaf, columnChunk(c)))
      rg.setColumns(cols)
      val compressed = mine.map(_.chunk.bytes.length.toLong).sum
      rg.setTotal_byte_size(rg.getTotal_byte_size + mine.map(_.chunk.uncompressedSize).sum)
      if (rg.isSetTotal_compressed_size) rg.setTotal_compressed_size(rg.getTotal_compressed_size + compressed)
      if (rg.isSetFile_offset && mine.nonEmpty) rg.setFile_offset(math.min(rg.getFile_offset, mine.map(_.offset).min))
    }
    if (md.isSetColumn_orders) {
      val leaves = md.getColumn_orders.size + specs.size
      md.setColumn_orders(Seq.fill(leaves)(ColumnOrder.TYPE_ORDER(new TypeDefinedOrder())).asJava)
    }
    val out = new ByteArrayOutputStream(thrift.length + chunks.size * 96)
    Util.writeFileMetaData(md, out)
    AlpFooter.markAlpEncodings(out.toByteArray, chunks.filter(_.chunk.alpPages > 0).map(c => (c.rowGroup, c.spec.leaf)).toSet,
      AlpPlaceholder.getValue)
  }

  /** The schema list with the ALP columns put back among the top-level fields, by leaf index. */
  private def withColumns(schema: Seq[SchemaElement], specs: Seq[AlpColumnSpec]): Seq[SchemaElement] = {
    val root = schema.head.deepCopy()
    // the top-level subtrees of the list, each with its leaf count
    val subtrees = Seq.newBuilder[(Seq[SchemaElement], Int)]
    var i = 1
    def subtree(at: Int): (Int, Int) = { // (end, leaves)
      val e = schema(at)
      if (e.isSetType || !e.isSetNum_children) (at + 1, 1)
      else {
        var p = at + 1; var leaves = 0; var k = 0
        while (k < e.getNum_children) { val (end, l) = subtree(p); p = end; leaves += l; k += 1 }
        (p, leaves)
      }
    }
    while (i < schema.size) {
      val (end, leaves) = subtree(i)
      subtrees += ((schema.slice(i, end), leaves))
      i = end
    }
    val out = Seq.newBuilder[SchemaElement]
    var leaf = 0
    var pending = specs
    def flush(): Unit = while (pending.nonEmpty && pending.head.leaf == leaf) {
      out += element(pending.head); leaf += 1; pending = pending.tail
    }
    subtrees.result().foreach { case (elems, leaves) => flush(); out ++= elems; leaf += leaves }
    flush()
    require(pending.isEmpty, s"ALP columns ${pending.map(_.name).mkString(", ")} lie beyond the schema's leaves")
    root.setNum_children(root.getNum_children + specs.size)
    root +: out.result()
  }

  private def element(s: AlpColumnSpec): SchemaElement = {
    val e = new SchemaElement(s.name)
    e.setType(if (s.t == AlpType.Float) Type.FLOAT else Type.DOUBLE)
    e.setRepetition_type(if (s.optional) FieldRepetitionType.OPTIONAL else FieldRepetitionType.REQUIRED)
    s.fieldId.foreach(e.setField_id)
    e
  }

  private def columnChunk(c: AlpWrittenChunk): ColumnChunk = {
    // RLE: the definition levels of optional columns; PLAIN: pages kept PLAIN (AlpEncodingChoice);
    // AlpPlaceholder stands for ALP until markAlpEncodings (parquet-format's Java enum has no ALP)
    val encodings = (if (c.spec.optional) Seq(Encoding.RLE) else Nil) ++
      (if (c.chunk.plainPages > 0) Seq(Encoding.PLAIN) else Nil) ++ (if (c.chunk.alpPages > 0) Seq(AlpPlaceholder) else Nil)
    val md = new ColumnMetaData(if (c.spec.t == AlpType.Float) Type.FLOAT else Type.DOUBLE, encodings.asJava,
      Seq(c.spec.name).asJava, CompressionCodec.findByValue(c.codec), c.chunk.rows.toLong, c.chunk.uncompressedSize,
      c.chunk.bytes.length.toLong, c.offset)
    val st = new Statistics()
    st.setNull_count(c.stats.nullCount)
    c.stats.min.foreach(b => st.setMin_value(b))
    c.stats.max.foreach(b => st.setMax_value(b))
    md.setStatistics(st)
    val cc = new ColumnChunk(c.offset)
    cc.setMeta_data(md)
    cc
  }
}
