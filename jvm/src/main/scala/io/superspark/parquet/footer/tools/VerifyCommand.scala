package io.superspark.parquet.footer.tools

import java.nio.ByteBuffer
import java.util.{LinkedHashMap => JMap}

import org.apache.hadoop.conf.Configuration

import io.superspark.parquet.footer.codec.{FooterForm, FooterLayout, MetadataDiff, Projection, ThriftDiff}
import io.superspark.parquet.footer.files.{FooterBytes, FooterFiles, FooterReader}
import io.superspark.parquet.footer.tools.FooterWalk.Target
import io.superspark.parquet.thrift.{ThriftForParquetJava, UnrebuildableFooterException}

/**
 * `verify`: `valid` when the CRCs and the structure check out, the FlatBuffer decodes to exactly what
 * parquet-java reads from the Thrift footer ([[MetadataDiff]]) and the fields `ParquetMetadata` does not
 * carry match the Thrift struct ([[ThriftDiff]]); else `absent`, `corrupt` or `mismatch` (the first
 * difference). `add` and `migrate` run the same check ([[footer]]) before they write.
 */
private[superspark] object VerifyCommand extends ReadCommand {

  def file(t: Target, conf: Configuration): JMap[String, Any] = footer(t.display, ReadCommand.readFooter(t, conf))

  /** The check of `footer`, the footer of the file `p`. */
  def footer(p: String, footer: FooterBytes): JMap[String, Any] = {
    footer.located match {
      case FooterLayout.Absent => ToolResult(p, "absent", "form" -> FooterForm.Plain.name)
      case FooterLayout.Corrupt(reason, form) => ToolResult(p, "corrupt", "reason" -> reason.toString, "form" -> form.name)
      case FooterLayout.Present(ext) =>
        val buf = ByteBuffer.wrap(footer.footer, ext.flatBufferOffset, ext.flatBufferLength).slice()
        // Eager statistics: the whole buffer verified before ThriftDiff reads it.
        FooterReader.decodeFlatBuffer(buf, Projection(lazyStatistics = false), ext.form) match {
          case Left(reason) => ToolResult(p, "corrupt", "reason" -> reason.toString, "form" -> ext.form.name)
          case Right(fromFlatBuffer) =>
            // The final form has no Thrift footer: its rebuild must read back as the FlatBuffer does.
            val thriftBytes = try Right(FooterFiles.thriftFooter(footer)) catch {
              case e: UnrebuildableFooterException => Left(e.reason)
            }
            val difference = thriftBytes match {
              case Left(reason) => Some(s"no Thrift footer can be rebuilt: $reason")
              case Right(bytes) =>
                val thrift = ThriftForParquetJava.parse(bytes)
                MetadataDiff.diff(fromFlatBuffer, FooterReader.thrift(footer.copy(footer = bytes, isFinal = false)))
                  .orElse(ThriftDiff.diff(thrift, buf))
            }
            difference match {
              case Some(d) => ToolResult(p, "mismatch", "reason" -> d, "form" -> ext.form.name)
              case None => ToolResult(p, "valid", "form" -> ext.form.name, "flatbuffer_bytes" -> ext.flatBufferLength,
                "thrift_bytes" -> thriftBytes.toOption.get.length)
            }
        }
    }
  }

  /** Whether `footer` carries an extension that verifies. */
  def isValid(p: String, footer: FooterBytes): Boolean = this.footer(p, footer).get("status") == "valid"
}
