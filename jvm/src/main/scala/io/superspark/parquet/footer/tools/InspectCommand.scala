package io.superspark.parquet.footer.tools

import java.util.{LinkedHashMap => JMap}

import scala.jdk.CollectionConverters._

import org.apache.hadoop.conf.Configuration

import io.superspark.parquet.alp.AlpChoice
import io.superspark.parquet.footer.{FallbackReason, FlatBufferFooterException}
import io.superspark.parquet.footer.codec.{FooterForm, FooterLayout}
import io.superspark.parquet.footer.files.{FooterFiles, FooterReader}
import io.superspark.parquet.footer.tools.FooterWalk.Target

/**
 * `inspect`: per file, `status` (`present`, `absent`, `corrupt`), the form, UUID, footer, Thrift and
 * FlatBuffer bytes, both CRCs, the structure check, where the metadata came from, row groups,
 * columns, rows, `created_by`, and each ALP column chunk's encoding and why (docs/alp.md).
 */
private[superspark] object InspectCommand extends ReadCommand {

  def file(t: Target, conf: Configuration): JMap[String, Any] = {
    val footer = ReadCommand.readFooter(t, conf)
    val m = ToolResult(t.display, "absent", "file_bytes" -> footer.fileLength, "footer_offset" -> footer.footerOffset,
      "footer_bytes" -> footer.footer.length, "form" -> FooterFiles.formOf(footer).name)
    def uuid(form: FooterForm): Unit = if (form != FooterForm.Final) m.put("uuid", FooterLayout.uuidOf(form).toString)
    footer.located match {
      case FooterLayout.Absent =>
        m.put("extension", false)
        m.put("thrift_bytes", footer.footer.length)
      case FooterLayout.Corrupt(reason, form) =>
        m.put("status", "corrupt")
        m.put("extension", true)
        uuid(form)
        m.put("size_crc", if (reason.isInstanceOf[FallbackReason.SizeCrcMismatch]) "mismatch" else "ok")
        m.put("flatbuffer_crc", reason match {
          case _: FallbackReason.FlatBufferCrcMismatch => "mismatch"
          case _ => "unchecked"
        })
        m.put("reason", reason.toString)
      case FooterLayout.Present(ext) =>
        m.put("status", "present")
        m.put("extension", true)
        uuid(ext.form)
        if (ext.form != FooterForm.Final) m.put("thrift_bytes", ext.thriftPrefixLength + 1)
        m.put("flatbuffer_bytes", ext.flatBufferLength)
        m.put("size_crc", "ok")
        m.put("flatbuffer_crc", "ok")
    }
    val read = try FooterReader.read(footer) catch {
      case e: FlatBufferFooterException => // a final-form footer: nothing to fall back on
        m.put("status", "corrupt")
        m.put("reason", e.reason.toString)
        m.put("message", e.getMessage)
        return m
    }
    if (m.get("status") == "present") {
      m.put("structure", read.fallback.map(_.toString).getOrElse("ok"))
      if (read.fallback.isDefined) m.put("status", "corrupt")
    }
    m.put("metadata_source", read.source.name)
    val md = read.metadata
    m.put("row_groups", md.getBlocks.size)
    m.put("columns", md.getFileMetaData.getSchema.getColumns.size)
    m.put("num_rows", md.getBlocks.asScala.map(_.getRowCount).sum)
    m.put("created_by", md.getFileMetaData.getCreatedBy)
    Option(md.getFileMetaData.getKeyValueMetaData.get(AlpChoice.Key)).foreach { v =>
      val chunks = new java.util.ArrayList[Any]()
      AlpChoice.parse(v).foreach { c =>
        val e = new JMap[String, Any]()
        e.put("row_group", c.rowGroup)
        e.put("column", c.column)
        e.put("encoding", c.choice)
        e.put("reason", c.reason)
        chunks.add(e)
      }
      m.put("alp_chunks", chunks)
    }
    m
  }
}
