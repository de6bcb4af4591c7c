package io.superspark.parquet.thrift

import java.io.{ByteArrayInputStream, ByteArrayOutputStream}

import scala.jdk.CollectionConverters._

import org.apache.parquet.format.{Encoding, Util}

/**
 * What parquet-java's Thrift converter cannot read, made readable for it.
 *
 * Newer writers put two things in a footer that parquet-java lacks: an encoding value (ALP = 10,
 * docs/alp.md, or any later one) and a logical type (a Thrift union member it does not know).
 * Its Thrift layer drops an unknown entry of a chunk's `encodings` list silently, fails with an
 * `IOException` on an unknown encoding in the page encoding stats (a required field), and its
 * `ParquetMetadataConverter` fails with a `NullPointerException` on an unknown logical type. [[readable]] gives a copy of
 * the footer, for parquet-java only, where:
 *  - every encoding value parquet-java lacks, in `encodings` and in the page encoding stats,
 *    reads [[UnknownEncoding]] (the bytes are patched in place, no other byte moves);
 *  - a logical type it lacks is dropped: the column reads as its physical type, as pyarrow does.
 *
 * The pages keep their real encodings, so no reader decodes them as [[UnknownEncoding]]. The
 * footer library knows no encoding here; the ALP scan finds its chunks by the marker
 * (`AlpFooter.mayBeAlp`) and reads their real encodings from the original bytes.
 */
private[superspark] object ThriftForParquetJava {

  /** parquet-java's Thrift parser of a footer (`Util.readFileMetaData`): the one place superspark calls it. */
  def parse(thrift: Array[Byte]): org.apache.parquet.format.FileMetaData =
    Util.readFileMetaData(new ByteArrayInputStream(thrift))

  /** [[parse]] of `len` bytes of `bytes` from `offset`. */
  def parse(bytes: Array[Byte], offset: Int, len: Int): org.apache.parquet.format.FileMetaData =
    Util.readFileMetaData(new ByteArrayInputStream(bytes, offset, len))

  /**
   * DELTA_LENGTH_BYTE_ARRAY (6): an encoding of BYTE_ARRAY chunks only, so never a real
   * encoding of the FLOAT/DOUBLE chunks that ALP encodes.
   */
  val UnknownEncoding: Int = Encoding.DELTA_LENGTH_BYTE_ARRAY.getValue

  private val parquetJavaEncodings: Set[String] = org.apache.parquet.column.Encoding.values().map(_.name).toSet

  private def known(e: Encoding): Boolean = e != null && parquetJavaEncodings(e.name)

  /**
   * Whether `e`, thrown by parquet-java's reading of a footer (its converter and Thrift layer,
   * nothing of ours in between), may be its failure on what [[readable]] removes: its Thrift
   * layer's `IOException` (a page encoding stat whose required encoding it lacks) or a
   * `NullPointerException` (a logical type it lacks). The stack trace is not consulted: after
   * many of them the JIT throws a preallocated one without it. A footer that [[readable]]
   * leaves as it is keeps its failure; any other exception is not retried.
   */
  def isUnreadableByParquetJava(e: Throwable): Boolean = e match {
    case _: NullPointerException | _: java.io.IOException => true
    case _ => false
  }

  /**
   * The footer without what parquet-java cannot read; None when it has nothing of the kind, or
   * is not a Thrift footer at all (then the caller's own failure stands).
   */
  def readable(thrift: Array[Byte]): Option[Array[Byte]] =
    try {
      val masked = maskUnknownEncodings(thrift)
      withoutUnknownLogicalTypes(masked.getOrElse(thrift)).orElse(masked)
    } catch {
      case _: MalformedThriftFooterException | _: java.io.IOException => None
    }

  /** Offsets and lengths of the encoding values parquet-java lacks, in every `ColumnMetaData`. */
  private def unknownEncodings(thrift: Array[Byte]): Seq[(Int, Int)] = {
    import ThriftWalker.{I32, List}
    val w = new ThriftWalker(thrift)
    val out = Seq.newBuilder[(Int, Int)]
    def value(): Unit = {
      val at = w.pos
      val v = w.i32()
      if (!known(Encoding.findByValue(v))) out += ((at, w.pos - at))
    }
    w.columnMetaData { (_, _) =>
      w.fields {
        case (2, List) => w.list(_ => value()); true // encodings
        case (13, List) => // encoding_stats: PageEncodingStats.encoding
          w.list { _ => w.fields { case (2, I32) => value(); true; case _ => false } }
          true
        case _ => false
      }
    }
    out.result()
  }

  /** A copy with each encoding value parquet-java lacks set to [[UnknownEncoding]], in as many bytes. */
  private def maskUnknownEncodings(thrift: Array[Byte]): Option[Array[Byte]] = {
    val at = unknownEncodings(thrift)
    if (at.isEmpty) None
    else {
      val out = thrift.clone()
      val zigzag = UnknownEncoding << 1 // < 0x80: one varint digit, padded with zero digits
      at.foreach { case (pos, n) =>
        var i = 0
        while (i < n) {
          val digit = if (i == 0) zigzag else 0
          out(pos + i) = (if (i < n - 1) digit | 0x80 else digit).toByte
          i += 1
        }
      }
      Some(out)
    }
  }

  private def withoutUnknownLogicalTypes(thrift: Array[Byte]): Option[Array[Byte]] = {
    val fmd = parse(thrift)
    val unknown = if (fmd.isSetSchema) fmd.getSchema.asScala.filter(e => e.isSetLogicalType && e.getLogicalType.getSetField == null)
      else Nil
    if (unknown.isEmpty) None
    else {
      unknown.foreach(_.unsetLogicalType())
      val out = new ByteArrayOutputStream(thrift.length)
      Util.writeFileMetaData(fmd, out)
      Some(out.toByteArray)
    }
  }
}
