package io.superspark.parquet.alp

import scala.collection.mutable
import scala.jdk.CollectionConverters._

import io.superspark.parquet.footer.codec.FooterLayout
import io.superspark.parquet.thrift.{ThriftFields, ThriftWalker}

/**
 * One column chunk of a Thrift footer as the ALP forms see it. `metaStop`: offset of the
 * `ColumnMetaData` stop byte (where a field 32767 is appended); `encodings`: (offset, value)
 * of each `encodings` list element (each a 1-byte zigzag varint when below 64);
 * `extension`: the payload of a field 32767 of that `ColumnMetaData`, whoever wrote it.
 */
private[superspark] final case class AlpChunkRef(rowGroup: Int, column: Int, path: Seq[String], physicalType: Int, codec: Int,
    numValues: Long, totalCompressedSize: Long, dataPageOffset: Long, dictionaryPageOffset: Long, metaStop: Int,
    encodings: Seq[(Int, Int)], extension: Option[Array[Byte]]) {
  def isRatified: Boolean = encodings.exists(_._2 == AlpChunk.AlpEncoding)
  /** parquet-java's `ColumnChunkMetaData.getStartingPos`. */
  def startingPos: Long =
    if (dictionaryPageOffset > 0 && dictionaryPageOffset < dataPageOffset) dictionaryPageOffset else dataPageOffset
  def ourExtension: Option[Array[Byte]] = extension.filter(AlpExtension.isOurs)
}

/**
 * The ALP forms' view of a Thrift compact `FileMetaData` (docs/alp.md): a walk of row groups,
 * column chunks and their `ColumnMetaData` that builds no parquet-format objects (parquet-java
 * 1.17 drops field 32767 and cannot hold the ALP encoding), and the byte surgery of both forms:
 * appending the private form's field 32767 to chosen `ColumnMetaData`s, and switching the
 * `encodings` entries of ratified chunks between ALP (10) and a placeholder.
 */
private[superspark] object AlpFooter {
  /**
   * Key-value metadata naming the ALP form of a file superspark wrote: tells the scan to look
   * for ALP data in the footer's column metadata (which parquet-java's footer objects drop).
   */
  val HintKey = "superspark.alp"

  /**
   * The encoding that stands for ALP (10) in the `encodings` of the footers the footer library
   * reads with parquet-java, which lacks ALP (`ThriftForParquetJava.UnknownEncoding`,
   * DELTA_LENGTH_BYTE_ARRAY: an encoding of BYTE_ARRAY columns only, never of a FLOAT/DOUBLE
   * chunk, [[mayBeAlp]]).
   */
  val ReadMarker: Int = io.superspark.parquet.thrift.ThriftForParquetJava.UnknownEncoding

  private val valueEncodings = {
    import org.apache.parquet.column.Encoding._
    Set(PLAIN, PLAIN_DICTIONARY, RLE_DICTIONARY, BYTE_STREAM_SPLIT, DELTA_BINARY_PACKED, DELTA_BYTE_ARRAY)
  }

  /**
   * Whether a chunk of parquet-java's footer objects may be an ALP chunk (ratified form, any
   * writer): a FLOAT/DOUBLE chunk that lists [[ReadMarker]], or no value encoding at all
   * (parquet-java's converter drops the encodings it does not know, such as ALP = 10, and a
   * FLOAT/DOUBLE chunk always has a value encoding). The scan then checks the footer bytes.
   */
  def mayBeAlp(c: org.apache.parquet.hadoop.metadata.ColumnChunkMetaData): Boolean = {
    import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName.{DOUBLE, FLOAT}
    val t = c.getPrimitiveType.getPrimitiveTypeName
    (t == DOUBLE || t == FLOAT) && {
      val e = c.getEncodings
      e.contains(org.apache.parquet.column.Encoding.DELTA_LENGTH_BYTE_ARRAY) || !e.asScala.exists(valueEncodings)
    }
  }

  import ThriftWalker.{Binary, I32, I64, List}

  /** Every column chunk of the footer, in row-group then column order. */
  def scan(thrift: Array[Byte]): IndexedSeq[AlpChunkRef] = {
    val w = new ThriftWalker(thrift)
    import w.{fields, list, pos}
    val out = IndexedSeq.newBuilder[AlpChunkRef]

    w.columnMetaData { (rg, col) =>
      var tpe = -1; var codec = -1; var numValues = -1L; var compressed = -1L; var dataPage = -1L; var dict = -1L
      val path = mutable.ArrayBuffer.empty[String]
      val encodings = mutable.ArrayBuffer.empty[(Int, Int)]
      var ext: Option[Array[Byte]] = None
      val stop = fields {
        case (1, I32) => tpe = w.i32(); true
        case (2, List) => list { _ => val at = pos; encodings += ((at, w.i32())) }; true
        case (3, List) => list { _ => path += w.string() }; true
        case (4, I32) => codec = w.i32(); true
        case (5, I64) => numValues = w.i64(); true
        case (7, I64) => compressed = w.i64(); true
        case (9, I64) => dataPage = w.i64(); true
        case (11, I64) => dict = w.i64(); true
        case (id, Binary) if ThriftFields.ExtensionFieldIds(id) =>
          ext = Some(w.binary()); true
        case _ => false
      }
      out += AlpChunkRef(rg, col, path.toSeq, tpe, codec, numValues, compressed, dataPage, dict, stop,
        encodings.toSeq, ext)
    }
    out.result()
  }

  /** The footer with a field 32767 holding `payload` appended to the given chunks' `ColumnMetaData`. */
  def withExtensions(thrift: Array[Byte], payloads: Map[(Int, Int), Array[Byte]]): Array[Byte] = {
    if (payloads.isEmpty) return thrift
    val refs = scan(thrift).filter(r => payloads.contains((r.rowGroup, r.column)))
    require(refs.size == payloads.size, s"footer has ${refs.size} of the ${payloads.size} column chunks to extend")
    refs.foreach { r =>
      require(r.extension.isEmpty, s"column chunk (${r.rowGroup}, ${r.column}) already carries a field 32767")
    }
    val out = new java.io.ByteArrayOutputStream(thrift.length + payloads.size * 64)
    var from = 0
    refs.sortBy(_.metaStop).foreach { r =>
      out.write(thrift, from, r.metaStop - from)
      val payload = payloads((r.rowGroup, r.column))
      out.write(FooterLayout.FieldHeader)
      out.write(FooterLayout.uleb128(payload.length))
      out.write(payload)
      from = r.metaStop // the stop byte stays
    }
    out.write(thrift, from, thrift.length - from)
    out.toByteArray
  }

  // ---- the same extensions in the FlatBuffer footer's v1 extension slot ----

  /**
   * The FlatBuffer footer's copy of the private form's column extensions (docs/alp.md): one
   * entry of its extension slot named by [[AlpExtension.Uuid]], holding
   * `[count u32][count x (row group u32, column u32, extension payload)]`, little-endian, every
   * payload of one size (51 bytes; 50 in files of layout version 1); None when the footer has
   * no extension of ours. Final-form (PAR3) files keep it there only.
   */
  def slotData(thrift: Array[Byte]): Option[Array[Byte]] = {
    val ours = scan(thrift).flatMap(r => r.ourExtension.map(p => (r.rowGroup, r.column, p)))
    if (ours.isEmpty) None
    else {
      val size = ours.head._3.length
      require(ours.forall(_._3.length == size), "extension payloads of different sizes")
      val b = java.nio.ByteBuffer.allocate(4 + ours.size * (8 + size)).order(java.nio.ByteOrder.LITTLE_ENDIAN)
      b.putInt(ours.size)
      ours.foreach { case (rg, col, p) => b.putInt(rg).putInt(col).put(p) }
      Some(b.array())
    }
  }

  /** The entries of [[slotData]]: (row group, column) -> payload; an error when the sizes disagree. */
  def parseSlot(data: Array[Byte]): Map[(Int, Int), Array[Byte]] = {
    val b = java.nio.ByteBuffer.wrap(data).order(java.nio.ByteOrder.LITTLE_ENDIAN)
    def bad(why: String) = throw new AlpChunkException(AlpChunkErrorReason.BadExtension(0, why))
    if (data.length < 4) bad(s"slot of ${data.length} bytes")
    val n = b.getInt()
    val sizes = Seq(AlpExtension.Size, AlpExtension.SizeV1)
    val size = if (n < 0) None else if (n == 0) Some(0) else sizes.find(s => 4L + n.toLong * (8 + s) == data.length)
    if (size.isEmpty || (n == 0 && data.length != 4)) bad(s"slot of ${data.length} bytes for $n entries")
    (0 until n).map { _ =>
      val key = (b.getInt(), b.getInt())
      val p = new Array[Byte](size.get)
      b.get(p)
      key -> p
    }.toMap
  }

  /** Zigzag varint bytes of small encoding values. */
  private def zigzag(v: Int): Byte = (v << 1).toByte

  /**
   * A copy of the footer whose ALP (10) `encodings` entries read `placeholder` (PLAIN by
   * default), for parquet-java, which cannot parse the ALP encoding; None when it has none.
   * The pages themselves still say ALP, so no other reader decodes them as `placeholder`.
   */
  def maskAlpEncodings(thrift: Array[Byte], placeholder: Int = 0): Option[Array[Byte]] = {
    val at = scan(thrift).flatMap(_.encodings.collect { case (pos, AlpChunk.AlpEncoding) => pos })
    if (at.isEmpty) None
    else {
      val out = thrift.clone()
      at.foreach(pos => out(pos) = zigzag(placeholder))
      Some(out)
    }
  }

  /** The footer with the `placeholder` entries of `encodings` of the given chunks set to ALP (10). */
  def markAlpEncodings(thrift: Array[Byte], chunks: Set[(Int, Int)], placeholder: Int = 0): Array[Byte] = {
    val out = thrift.clone()
    val refs = scan(thrift).filter(r => chunks((r.rowGroup, r.column)))
    require(refs.size == chunks.size, s"footer has ${refs.size} of the ${chunks.size} ALP column chunks")
    refs.foreach { r =>
      val slots = r.encodings.collect { case (pos, v) if v == placeholder => pos }
      require(slots.nonEmpty, s"column chunk (${r.rowGroup}, ${r.column}) lists no encoding $placeholder to mark")
      slots.foreach(pos => out(pos) = zigzag(AlpChunk.AlpEncoding))
    }
    out
  }
}
