package io.superspark.parquet.footer

import java.nio.ByteBuffer

import scala.collection.mutable.ArrayBuffer

/**
 * The top-level column names of a footer's FlatBuffer extension, read without decoding any
 * row group: lets a reader turn the columns it wants (matched case-insensitively, as Spark
 * does by default) into the exact paths of a [[Projection]]. Added for the Spark interceptor.
 */
object FooterColumns {
  /** None when the footer has no usable extension (then read without a column projection). */
  def topLevelNames(footer: FooterBytes): Option[Array[String]] = FooterLayout.locate(footer.footer) match {
    case FooterLayout.Present(ext) =>
      val buf = ByteBuffer.wrap(footer.footer, ext.flatBufferOffset, ext.flatBufferLength).slice()
      if (FlatBufferVerifier.verifyHead(buf).isDefined) None
      else {
        try {
          val schema = FlatSchema.read(FlatBufferDecoder.root(buf))
          val out = ArrayBuffer.empty[String]
          var i = 1
          while (i < schema.subtreeEnd(0)) {
            out += schema.names(i)
            i = schema.subtreeEnd(i)
          }
          Some(out.toArray)
        } catch {
          case _: RuntimeException => None
        }
      }
    case _ => None
  }
}
