package io.superspark.parquet.alp

import org.apache.hadoop.conf.Configuration
import org.apache.parquet.bytes.BytesInput
import org.apache.parquet.hadoop.CodecFactory
import org.apache.parquet.hadoop.metadata.CompressionCodecName

/**
 * Page compression with parquet-java's codecs (the ones the file's other chunks use), for
 * [[AlpChunk]]. `close()` releases the codec pool.
 */
private[superspark] final class ParquetPageCompression(codec: CompressionCodecName, conf: Configuration) extends PageCompression
    with AutoCloseable {
  private val factory = new CodecFactory(conf, 0)
  private lazy val compressor = factory.getCompressor(codec)
  private lazy val decompressor = factory.getDecompressor(codec)

  override def isIdentity: Boolean = codec == CompressionCodecName.UNCOMPRESSED

  def compress(body: Array[Byte]): Array[Byte] =
    if (codec == CompressionCodecName.UNCOMPRESSED) body else bytes(compressor.compress(BytesInput.from(body)))

  def decompress(in: Array[Byte], off: Int, len: Int, uncompressedSize: Int): Array[Byte] =
    if (codec == CompressionCodecName.UNCOMPRESSED) java.util.Arrays.copyOfRange(in, off, off + len)
    else bytes(decompressor.decompress(BytesInput.from(in, off, len), uncompressedSize))

  private def bytes(b: BytesInput): Array[Byte] = {
    val size = b.size
    if (size > Int.MaxValue - 16) throw new java.io.IOException(s"$size bytes do not fit one page")
    val out = new Array[Byte](size.toInt)
    new java.io.DataInputStream(b.toInputStream).readFully(out)
    out
  }

  override def close(): Unit = factory.release()
}

private[superspark] object ParquetPageCompression {
  /** parquet-java's codec name for Parquet's `CompressionCodec` value (None when unknown). */
  def codecName(value: Int): Option[CompressionCodecName] =
    CompressionCodecName.values().find(c => c.getParquetCompressionCodec != null &&
      c.getParquetCompressionCodec.getValue == value)
}
