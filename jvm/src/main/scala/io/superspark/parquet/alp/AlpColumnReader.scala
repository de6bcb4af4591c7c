package io.superspark.parquet.alp

import java.util.zip.CRC32

import org.apache.hadoop.conf.Configuration

import io.superspark.parquet.alp.AlpChunkErrorReason.{BadExtension, ChecksumMismatch}

/**
 * Where one column chunk's ALP data lies: the chunk itself (ratified form), or the private
 * form's ALP chunk named by its extension (with the chunk's crc32). `codec`: Parquet's
 * `CompressionCodec` value of the column.
 */
private[superspark] final case class AlpChunkLocation(t: AlpType, offset: Long, size: Long, pages: Int, values: Long, crc32: Option[Int],
    codec: Int, ratified: Boolean)

private[superspark] object AlpChunkLocation {
  /**
   * The ALP data of a column chunk: Right(None) when it has none (no ALP encoding, no extension
   * of ours), Left(reason) when its extension or ratified chunk does not hold up against the
   * file (`dataEnd`: where the footer starts).
   */
  def of(ref: AlpChunkRef, dataEnd: Long): Either[AlpChunkErrorReason, Option[AlpChunkLocation]] = {
    if (ref.physicalType != AlpExtension.FloatType && ref.physicalType != AlpExtension.DoubleType) Right(None)
    else if (ref.isRatified) itself(ref, dataEnd).map(Some(_))
    else ref.ourExtension match {
      case None => Right(None)
      case Some(payload) =>
        try {
          val e = AlpExtension.parse(payload, dataEnd)
          if (e.physicalType != ref.physicalType) {
            Left(BadExtension(1, s"extension type ${e.physicalType}, column type ${ref.physicalType}"))
          } else if (ref.numValues >= 0 && e.values != ref.numValues) {
            Left(BadExtension(22, s"extension holds ${e.values} values, the column chunk ${ref.numValues}"))
          } else {
            Right(Some(AlpChunkLocation(e.alpType, e.offset, e.size, e.pages, e.values, Some(e.crc32),
              e.codec.getOrElse(ref.codec),
              ratified = false)))
          }
        } catch { case x: AlpChunkException => Left(x.reason) }
    }
  }

  private def tpe(physical: Int) = if (physical == AlpExtension.FloatType) AlpType.Float else AlpType.Double

  /**
   * The column chunk itself as the data [[AlpChunk.PageCursor]] reads: a ratified chunk, or an
   * ordinary chunk of PLAIN pages (no dictionary) of a column that is ratified in other row
   * groups (the writer kept PLAIN where ALP lost, [[AlpEncodingChoice]]).
   */
  def itself(ref: AlpChunkRef, dataEnd: Long): Either[AlpChunkErrorReason, AlpChunkLocation] = {
    val size = ref.totalCompressedSize
    if (ref.physicalType != AlpExtension.FloatType && ref.physicalType != AlpExtension.DoubleType) {
      Left(BadExtension(0, s"physical type ${ref.physicalType} in an ALP column"))
    } else if (ref.dataPageOffset < 4 || size <= 0 || ref.dataPageOffset > dataEnd - size || size > Int.MaxValue - 16) {
      Left(BadExtension(0, s"ratified chunk [${ref.dataPageOffset}, +$size) lies outside the data [4, $dataEnd)"))
    } else if (ref.numValues < 0 || ref.numValues > Int.MaxValue) {
      Left(BadExtension(0, s"ratified chunk of ${ref.numValues} values"))
    } else if (!ref.isRatified && ref.dictionaryPageOffset > 0 && ref.dictionaryPageOffset < ref.dataPageOffset) {
      Left(BadExtension(0, s"chunk with a dictionary page at ${ref.dictionaryPageOffset} in an ALP column"))
    } else {
      Right(AlpChunkLocation(tpe(ref.physicalType), ref.dataPageOffset, size, -1, ref.numValues, None, ref.codec,
        ratified = true))
    }
  }
}

/**
 * Library-level reader of one ALP column chunk (no Spark): reads its bytes with `readAt`
 * (offset, length), checks the crc32 (private form), decompresses with parquet-java's codec
 * and decodes all its rows. Errors: [[AlpChunkException]] naming `where` and the chunk offset.
 */
private[superspark] object AlpColumnReader {
  /** Most rows a chunk byte can stand for (an all-null page of 65,536 rows is ~25 bytes). */
  val MaxRowsPerByte = 4096L

  def read(readAt: (Long, Int) => Array[Byte], loc: AlpChunkLocation, optional: Boolean, conf: Configuration,
      where: String): AlpValues = {
    val compression = pageCompression(loc, where, conf)
    try {
      val bytes = readChecked(readAt, loc, where)
      try decodeChecked(bytes, loc, optional, compression)
      catch { case e: AlpChunkException => throw e.at(s"$where (ALP chunk at byte ${loc.offset})") }
    } finally compression.close()
  }

  /** parquet-java's codec for the chunk's pages; the caller closes it. */
  def pageCompression(loc: AlpChunkLocation, where: String, conf: Configuration = new Configuration(false))
      : ParquetPageCompression = {
    val codec = ParquetPageCompression.codecName(loc.codec).getOrElse(
      throw new AlpChunkException(BadExtension(0, s"unknown compression codec ${loc.codec}"), where))
    new ParquetPageCompression(codec, conf)
  }

  /** The chunk's bytes read with `readAt` and checked ([[check]]); errors name `where` and the chunk offset. */
  def readChecked(readAt: (Long, Int) => Array[Byte], loc: AlpChunkLocation, where: String): Array[Byte] = {
    val bytes = readAt(loc.offset, loc.size.toInt)
    try check(bytes, loc)
    catch { case e: AlpChunkException => throw e.at(s"$where (ALP chunk at byte ${loc.offset})") }
    bytes
  }

  /**
   * Checks the chunk's bytes before any page is decoded: the crc32 (private form), and the
   * value count against the bytes (bounds every allocation made from it).
   */
  def check(bytes: Array[Byte], loc: AlpChunkLocation): Unit = {
    loc.crc32.foreach { expected =>
      val c = new CRC32()
      c.update(bytes)
      if (c.getValue.toInt != expected) throw new AlpChunkException(ChecksumMismatch(0, c.getValue.toInt, expected))
    }
    // a page of at most 2^31 rows takes at least ~20 bytes: bounds the allocation by the bytes read
    if (loc.values > bytes.length.toLong * MaxRowsPerByte || loc.values > Int.MaxValue - 16) {
      throw new AlpChunkException(AlpChunkErrorReason.CountMismatch(0, "value count", loc.values,
        bytes.length.toLong * MaxRowsPerByte))
    }
  }

  /** Checks and decodes the chunk's bytes. */
  def decode(bytes: Array[Byte], loc: AlpChunkLocation, optional: Boolean, compression: PageCompression): AlpValues = {
    check(bytes, loc)
    decodeChecked(bytes, loc, optional, compression)
  }

  private def decodeChecked(bytes: Array[Byte], loc: AlpChunkLocation, optional: Boolean,
      compression: PageCompression): AlpValues = {
    val out = AlpValues.allocate(loc.t, loc.values.toInt, optional)
    AlpChunk.decode(bytes, 0, bytes.length, out, compression, loc.pages)
    out
  }
}
