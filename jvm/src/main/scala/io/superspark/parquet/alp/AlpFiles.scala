package io.superspark.parquet.alp

import java.nio.{ByteBuffer, ByteOrder}
import java.nio.file.{Files, Paths}

/**
 * Command line entry point exchanging ALP pages as files, for cross-checks with other
 * implementations (tests/alp_reference.py). Values files are raw little-endian IEEE-754 arrays.
 *
 * {{{
 *   java -cp superspark.jar:SPARK_JARS io.superspark.parquet.alp.AlpFiles encode double values.bin page.alp
 *   ... AlpFiles decode float page.alp values.bin
 * }}}
 * (SPARK_JARS: pyspark's jars folder, for the Scala library.) Exit status 2 with the error on stderr when a page does not decode.
 */
private[superspark] object AlpFiles {
  def main(args: Array[String]): Unit = args match {
    case Array(op @ ("encode" | "decode"), tpe @ ("double" | "float"), in, out) =>
      val bytes = Files.readAllBytes(Paths.get(in))
      val result =
        try run(op, tpe, bytes)
        catch { case e: AlpDecodeException => System.err.println(e.at(in).getMessage); sys.exit(2) }
      Files.write(Paths.get(out), result)
    case _ =>
      System.err.println("usage: AlpFiles encode|decode double|float IN OUT")
      sys.exit(1)
  }

  private def run(op: String, tpe: String, bytes: Array[Byte]): Array[Byte] = {
    val le = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN)
    (op, tpe) match {
      case ("encode", "double") =>
        val a = new Array[Double](bytes.length / 8); le.asDoubleBuffer().get(a); AlpCodec.encodeDoubles(a)
      case ("encode", _) =>
        val a = new Array[Float](bytes.length / 4); le.asFloatBuffer().get(a); AlpCodec.encodeFloats(a)
      case (_, "double") =>
        val a = AlpCodec.decodeDoubles(bytes)
        val b = ByteBuffer.allocate(a.length * 8).order(ByteOrder.LITTLE_ENDIAN)
        a.foreach(d => b.putLong(java.lang.Double.doubleToRawLongBits(d))); b.array()
      case _ =>
        val a = AlpCodec.decodeFloats(bytes)
        val b = ByteBuffer.allocate(a.length * 4).order(ByteOrder.LITTLE_ENDIAN)
        a.foreach(f => b.putInt(java.lang.Float.floatToRawIntBits(f))); b.array()
    }
  }
}
