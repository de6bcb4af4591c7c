package io.superspark.parquet.alp

import java.nio.ByteBuffer

import io.superspark.parquet.footer.codec.{FlatBufferVerifier, FooterForm, FooterLayout}
import io.superspark.parquet.footer.files.{FooterBytes, FooterFiles}

/**
 * The column chunks of a file's footer in any footer form, with the private form's ALP
 * extensions: from the Thrift `ColumnMetaData`s (plain, private and intermediate footer forms)
 * or, in the final (PAR3) form, whose Thrift footer is rebuilt from the FlatBuffer, from the
 * FlatBuffer's extension slot ([[AlpFooter.slotData]]).
 */
private[superspark] object AlpFooterRefs {
  def of(footer: FooterBytes): IndexedSeq[AlpChunkRef] = {
    val refs = AlpFooter.scan(FooterFiles.thriftFooter(footer))
    if (FooterFiles.formOf(footer) != FooterForm.Final) refs
    else slot(footer).fold(refs) { entries =>
      refs.map(r => entries.get((r.rowGroup, r.column)).fold(r)(p => r.copy(extension = Some(p))))
    }
  }

  private def slot(footer: FooterBytes): Option[Map[(Int, Int), Array[Byte]]] = footer.located match {
    case FooterLayout.Present(ext) =>
      val buf = ByteBuffer.wrap(footer.footer, ext.flatBufferOffset, ext.flatBufferLength).slice()
      if (FlatBufferVerifier.verifyHead(buf).isDefined) None
      else {
        val md = io.superspark.parquet.footer.fbs.FileMetaData.getRootAsFileMetaData(buf)
        (0 until md.extensionsLength()).map(i => md.extensions(i)).find { e =>
          e.uuid() != null && e.uuid().msb() == AlpExtension.Uuid.getMostSignificantBits &&
            e.uuid().lsb() == AlpExtension.Uuid.getLeastSignificantBits
        }.map { e =>
          val d = e.dataAsByteBuffer()
          val data = new Array[Byte](if (d == null) 0 else d.remaining)
          if (d != null) d.get(data)
          AlpFooter.parseSlot(data)
        }
      }
    case _ => None
  }
}
