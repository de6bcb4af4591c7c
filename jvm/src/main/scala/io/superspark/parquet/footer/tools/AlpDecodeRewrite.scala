package io.superspark.parquet.footer.tools

import java.io.{BufferedOutputStream, ByteArrayOutputStream}
import java.nio.ByteBuffer
import java.nio.channels.FileChannel
import java.nio.file.{Files, Path, StandardCopyOption, StandardOpenOption}

import scala.jdk.CollectionConverters._

import org.apache.hadoop.conf.Configuration
import org.apache.parquet.format.Util

import io.superspark.parquet.footer.files.{FooterBytes, FooterFiles, FooterReader}
import io.superspark.parquet.footer.codec.FooterLayout
import io.superspark.parquet.alp.{AlpChunk, AlpChunkException, AlpChunkLocation, AlpColumnReader, AlpFooter, AlpFooterRefs, ParquetPageCompression}
import io.superspark.parquet.thrift.ThriftForParquetJava

/**
 * `alp-decode` (docs/alp.md, "Migrating"): rewrites a Parquet file so that every reader opens
 * it. Ratified ALP chunks become ordinary PLAIN chunks (same codec, statistics kept); the
 * private form's ALP chunks and their field-32767 extensions are dropped; every other chunk is
 * copied byte for byte. The footer is written plain (Thrift only; `footer add` puts the
 * FlatBuffer back). Page indexes and bloom filters are not carried over (their offsets would
 * be stale), and the `superspark.alp` key-value hint is removed.
 */
private[superspark] object AlpDecodeRewrite {

  /** What a rewrite did: ALP chunks decoded to PLAIN, private-form extensions dropped, file sizes. */
  final case class Result(decoded: Int, dropped: Int, bytesBefore: Long, bytesAfter: Long)

  /** True when the file holds ALP data of either form. */
  def hasAlp(footer: FooterBytes): Boolean = AlpFooterRefs.of(footer).exists(r => r.isRatified || r.ourExtension.isDefined)

  /** Rewrites `in` into `out` (may be `in`: written next to it, then moved into place). */
  def rewrite(in: Path, out: Path, conf: Configuration): Result = {
    val footer = FooterFiles.readFooter(in)
    val thrift = FooterFiles.thriftFooter(footer)
    val refs = AlpFooterRefs.of(footer).map(r => (r.rowGroup, r.column) -> r).toMap
    val masked = AlpFooter.maskAlpEncodings(thrift).getOrElse(thrift)
    val md = ThriftForParquetJava.parse(masked)
    val schema = FooterReader.thrift(FooterBytes(in.toString, footer.fileLength, footer.footerOffset, masked))
      .getFileMetaData.getSchema
    val leaves = schema.getColumns.asScala.toIndexedSeq
    val tmp = Files.createTempFile(out.toAbsolutePath.getParent, s".${out.getFileName}", ".tmp")
    val ch = FileChannel.open(in, StandardOpenOption.READ)
    var decoded = 0
    try {
      val readAt = (off: Long, len: Int) => {
        val b = ByteBuffer.allocate(len)
        while (b.hasRemaining) if (ch.read(b, off + b.position()) < 0) throw new java.io.EOFException(s"$in: ends at $off")
        b.array()
      }
      val os = new BufferedOutputStream(Files.newOutputStream(tmp), 1 << 20)
      var pos = 0L
      def write(b: Array[Byte]): Unit = { os.write(b); pos += b.length }
      try {
        write(FooterLayout.Magic)
        md.getRow_groups.asScala.zipWithIndex.foreach { case (rg, i) =>
          var total = 0L
          var compressed = 0L
          rg.getColumns.asScala.zipWithIndex.foreach { case (cc, j) =>
            val ref = refs((i, j))
            val cmd = cc.getMeta_data
            val start = pos
            if (ref.isRatified) {
              val loc = AlpChunkLocation.of(ref, footer.footerOffset) match {
                case Right(Some(l)) => l
                case Right(None) => throw new IllegalStateException(s"$in: chunk ($i, $j) is not ALP")
                case Left(reason) => throw new AlpChunkException(reason, s"$in, row group $i, column ${ref.path.mkString(".")}")
              }
              val optional = leaves(j).getMaxDefinitionLevel > 0
              val values = AlpColumnReader.read(readAt, loc, optional, conf, s"$in, column ${ref.path.mkString(".")}")
              val codec = ParquetPageCompression.codecName(ref.codec).get
              val compression = new ParquetPageCompression(codec, conf)
              val plain = try AlpChunk.encodePlain(values, compression) finally compression.close()
              write(plain.bytes)
              cmd.setData_page_offset(start)
              cmd.unsetDictionary_page_offset()
              cmd.unsetIndex_page_offset()
              cmd.unsetEncoding_stats()
              cmd.setTotal_compressed_size(plain.bytes.length.toLong)
              cmd.setTotal_uncompressed_size(plain.uncompressedSize)
              decoded += 1
            } else {
              val size = cmd.getTotal_compressed_size
              val delta = start - ref.startingPos
              var off = 0L
              while (off < size) {
                val n = math.min(size - off, 1 << 20).toInt
                write(readAt(ref.startingPos + off, n))
                off += n
              }
              cmd.setData_page_offset(cmd.getData_page_offset + delta)
              if (cmd.isSetDictionary_page_offset) cmd.setDictionary_page_offset(cmd.getDictionary_page_offset + delta)
              if (cmd.isSetIndex_page_offset) cmd.setIndex_page_offset(cmd.getIndex_page_offset + delta)
            }
            cc.setFile_offset(start)
            cc.unsetColumn_index_offset(); cc.unsetColumn_index_length()
            cc.unsetOffset_index_offset(); cc.unsetOffset_index_length()
            cmd.unsetBloom_filter_offset(); cmd.unsetBloom_filter_length()
            if (j == 0 && rg.isSetFile_offset) rg.setFile_offset(start)
            total += cmd.getTotal_uncompressed_size
            compressed += cmd.getTotal_compressed_size
          }
          rg.setTotal_byte_size(total)
          if (rg.isSetTotal_compressed_size) rg.setTotal_compressed_size(compressed)
        }
        if (md.isSetKey_value_metadata) {
          md.setKey_value_metadata(md.getKey_value_metadata.asScala
            .filterNot(kv => kv.getKey == AlpFooter.HintKey || kv.getKey == io.superspark.parquet.alp.AlpChoice.Key).asJava)
        }
        val f = new ByteArrayOutputStream()
        Util.writeFileMetaData(md, f)
        write(FooterFiles.withLengthAndMagic(f.toByteArray))
      } finally os.close()
      Files.move(tmp, out, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE)
      Files.deleteIfExists(out.resolveSibling(s".${out.getFileName}.crc"))
    } catch {
      case e: Throwable => Files.deleteIfExists(tmp); throw e
    } finally ch.close()
    Result(decoded, refs.values.count(_.ourExtension.isDefined), footer.fileLength, Files.size(out))
  }
}
