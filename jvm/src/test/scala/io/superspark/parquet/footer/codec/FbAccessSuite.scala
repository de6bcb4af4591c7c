package io.superspark.parquet.footer.codec

import java.nio.ByteBuffer
import java.nio.charset.StandardCharsets.UTF_8

import com.google.flatbuffers.FlatBufferBuilder
import org.scalatest.funsuite.AnyFunSuite
import io.superspark.parquet.footer.fbs.KeyValue

/** [[FbAccess.string]] against the generated accessor it stands in for (flatbuffers-java's decoder). */
class FbAccessSuite extends AnyFunSuite {

  /** A KeyValue table whose key holds `bytes` as they are (valid UTF-8 or not) and whose val is absent. */
  private def keyValue(bytes: Array[Byte]): KeyValue = {
    val b = new FlatBufferBuilder(64)
    val key = b.createString(ByteBuffer.wrap(bytes))
    KeyValue.startKeyValue(b)
    KeyValue.addKey(b, key)
    b.finish(KeyValue.endKeyValue(b))
    KeyValue.getRootAsKeyValue(ByteBuffer.wrap(b.sizedByteArray()))
  }

  private def viaAccess(kv: KeyValue, slot: Int) = FbAccess.string(kv.getByteBuffer, FbAccess.pos(kv), slot)

  test("strings read as the generated accessor reads them: ASCII, other UTF-8, a literal replacement character") {
    for (s <- Seq("", "c1234", "héllo wörld", "名前", "emoji \uD83D\uDE00", "a \uFFFD b", "x" * 100000)) {
      val kv = keyValue(s.getBytes(UTF_8))
      assert(viaAccess(kv, 4) == kv.key() && kv.key() == s)
      assert(viaAccess(kv, 6) == null && kv.`val`() == null)
    }
  }

  test("malformed UTF-8 is refused as the generated accessor refuses it, never read as replacement characters") {
    val malformed = Seq(Array(0x61, 0xC3), Array(0xFF), Array(0x61, 0x80, 0x62), Array(0xED, 0xA0, 0x80), Array(0xF8, 0x88, 0x80, 0x80, 0x80))
    for (bytes <- malformed.map(_.map(_.toByte))) {
      val kv = keyValue(bytes)
      val expected = intercept[IllegalArgumentException](kv.key())
      val e = intercept[IllegalArgumentException](viaAccess(kv, 4))
      assert(e.getClass == expected.getClass && e.getMessage == expected.getMessage, bytes.toSeq)
      // The JDK's decoder alone would have read it, with replacement characters.
      assert(new String(bytes, UTF_8).contains('\uFFFD'))
    }
  }
}
