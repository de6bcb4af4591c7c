package io.superspark.parquet.footer.codec

import org.scalatest.funsuite.AnyFunSuite
import io.superspark.parquet.footer.FallbackReason
import io.superspark.parquet.thrift.ThriftFields

/** The wire layout, byte by byte, and reading it backwards. */
class FooterLayoutSuite extends AnyFunSuite {

  private def hex(s: String): Array[Byte] =
    s.split("\\s+").filter(_.nonEmpty).map(Integer.parseInt(_, 16).toByte)

  private def show(b: Array[Byte]): String = b.map(x => f"${x & 0xFF}%02x").mkString(" ")

  test("ULEB128") {
    assert(show(FooterLayout.uleb128(0)) == "00")
    assert(show(FooterLayout.uleb128(127)) == "7f")
    assert(show(FooterLayout.uleb128(128)) == "80 01")
    assert(show(FooterLayout.uleb128(16384)) == "80 80 01")
    assert(show(FooterLayout.uleb128(32767)) == "ff ff 01")
    assert(show(FooterLayout.uleb128(Int.MaxValue)) == "ff ff ff ff 07")
    intercept[IllegalArgumentException](FooterLayout.uleb128(-1))
  }

  test("the field header is the spec's 08 FF FF 01 and the UUID is fixed") {
    assert(show(FooterLayout.FieldHeader) == "08 ff ff 01")
    assert(FooterLayout.FieldHeader.drop(1).sameElements(FooterLayout.uleb128(32767)))
    assert(FooterLayout.ExtensionUuid.toString == "bb020e68-d327-4698-a215-465ff5dc7e44")
    assert(show(FooterLayout.UuidBytes) == "bb 02 0e 68 d3 27 46 98 a2 15 46 5f f5 dc 7e 44")
  }

  private val thrift = hex("15 02 00") // struct { 1: i32 = 1 } stop
  private val fb = hex("aa bb cc")
  private val expected = hex(
    "15 02" + // Thrift without its stop byte
      " 08 ff ff 01" + // binary field 32767, long form
      " 1f" + // ULEB128(3 + 28)
      " aa bb cc" + // FlatBuffer
      " 4c f8 4d be" + // crc32(aa bb cc) LE
      " 03 00 00 00" + // K LE
      " f2 70 f1 33" + // crc32(03 00 00 00) LE
      " bb 02 0e 68 d3 27 46 98 a2 15 46 5f f5 dc 7e 44" + // UUID
      " 00") // stop

  test("appendExtension writes the layout byte by byte") {
    assert(show(FooterLayout.appendExtension(thrift, fb)) == show(expected))
  }

  test("extendedTail is appendExtension, the footer length and PAR1, in one array; locate reads it within the tail") {
    for (flatbuffer <- Seq(fb, Array.fill[Byte](200)(7)); form <- Seq(FooterForm.Private, FooterForm.Intermediate)) {
      val footer = FooterLayout.appendExtension(thrift, flatbuffer, form)
      val tail = FooterLayout.extendedTail(thrift, flatbuffer, form)
      assert(show(tail) == show(footer ++ FooterLayout.tail(footer.length)))
      assert(FooterLayout.extendedLength(thrift, flatbuffer) == footer.length)
      assert(FooterLayout.locate(tail, tail.length - 8) == FooterLayout.locate(footer))
      assert(FooterLayout.locate(tail, tail.length - 8).isInstanceOf[FooterLayout.Present])
    }
    assert(show(FooterLayout.extendedTail(thrift, fb)) == show(expected ++ FooterLayout.tail(expected.length)))
    intercept[IllegalArgumentException](FooterLayout.extendedTail(hex("15 02"), fb))
  }

  test("a multi-byte ULEB128 size") {
    val big = Array.fill[Byte](200)(7)
    val out = FooterLayout.appendExtension(thrift, big)
    assert(show(out.slice(2, 9)) == "08 ff ff 01 e4 01 07") // ULEB128(228) = e4 01
    assert(show(out.slice(8 + 200 + 4, 8 + 200 + 12)) == "c8 00 00 00 f5 19 bd 92")
    assert(FooterLayout.locate(out) == FooterLayout.Present(FooterLayout.Extension(2, 8, 200)))
  }

  test("appendField refuses a struct without a stop byte") {
    intercept[IllegalArgumentException](FooterLayout.appendExtension(hex("15 02"), fb))
    intercept[IllegalArgumentException](FooterLayout.appendExtension(Array.empty, fb))
  }

  test("locate reads it backwards; stripping restores the Thrift bytes") {
    FooterLayout.locate(expected) match {
      case FooterLayout.Present(ext) =>
        assert(ext == FooterLayout.Extension(thriftPrefixLength = 2, flatBufferOffset = 7, flatBufferLength = 3))
        assert(show(ext.thriftFooter(expected)) == show(thrift))
      case other => fail(other.toString)
    }
  }

  test("footers without our extension are Absent") {
    assert(FooterLayout.locate(thrift) == FooterLayout.Absent)
    assert(FooterLayout.locate(Array.emptyByteArray) == FooterLayout.Absent)
    val otherUuid = expected.clone()
    otherUuid(otherUuid.length - 2) = (otherUuid(otherUuid.length - 2) ^ 1).toByte
    assert(FooterLayout.locate(otherUuid) == FooterLayout.Absent)
    val noStop = expected.clone()
    noStop(noStop.length - 1) = 1
    assert(FooterLayout.locate(noStop) == FooterLayout.Absent)
  }

  test("corrupt sizes, header and CRC are reported with their offsets") {
    def flip(at: Int): Array[Byte] = { val b = expected.clone(); b(at) = (b(at) ^ 0x10).toByte; b }
    assert(FooterLayout.locate(flip(14)) == FooterLayout.Corrupt(FallbackReason.SizeCrcMismatch(14)))
    assert(FooterLayout.locate(flip(18)) == FooterLayout.Corrupt(FallbackReason.SizeCrcMismatch(14)))
    assert(FooterLayout.locate(flip(2)) == FooterLayout.Corrupt(FallbackReason.HeaderMismatch(2)))
    assert(FooterLayout.locate(flip(6)) == FooterLayout.Corrupt(FallbackReason.HeaderMismatch(2)))
    assert(FooterLayout.locate(flip(8)) == FooterLayout.Corrupt(FallbackReason.FlatBufferCrcMismatch(7, 3)))
    assert(FooterLayout.locate(flip(10)) == FooterLayout.Corrupt(FallbackReason.FlatBufferCrcMismatch(7, 3)))
    // A size (with a matching CRC) larger than the footer.
    val huge = expected.clone()
    FooterLayout.putIntLE(huge, 14, 1 << 30)
    FooterLayout.putIntLE(huge, 18, FooterLayout.crc32(huge, 14, 4))
    assert(FooterLayout.locate(huge) == FooterLayout.Corrupt(FallbackReason.SizeOutOfBounds(14, 1L << 30, 10)))
    val negative = expected.clone()
    FooterLayout.putIntLE(negative, 14, -5)
    FooterLayout.putIntLE(negative, 18, FooterLayout.crc32(negative, 14, 4))
    assert(FooterLayout.locate(negative).isInstanceOf[FooterLayout.Corrupt])
    val zero = expected.clone()
    FooterLayout.putIntLE(zero, 14, 0)
    FooterLayout.putIntLE(zero, 18, FooterLayout.crc32(zero, 14, 4))
    assert(FooterLayout.locate(zero).isInstanceOf[FooterLayout.Corrupt])
  }

  test("file tail: footer length LE and PAR1") {
    assert(show(FooterLayout.tail(0x01020304)) == "04 03 02 01 50 41 52 31")
  }

  test("a Thrift reader sees the appended field; ThriftFields finds it in foreign extensions") {
    assert(!ThriftFields.hasExtensionField(thrift))
    assert(ThriftFields.hasExtensionField(expected))
    val foreign = FooterLayout.appendField(thrift, Array.fill[Byte](40)(3))
    assert(FooterLayout.locate(foreign) == FooterLayout.Absent)
    assert(ThriftFields.hasExtensionField(foreign))
  }
}
