package io.superspark.bsup

/**
 * The inputs of issue 12's "Bad input" section (found by a mutation fuzzer in an earlier
 * version of the decoders), each with the problem its error must name. Every one must give a
 * [[BsupException]] with an offset inside the input, through every decode path.
 */
object BadInputs {
  def hex(s: String): Array[Byte] = s.replace(" ", "").grouped(2).map(Integer.parseInt(_, 16).toByte).toArray

  /** name -> (bytes, text the error names) */
  val all: Seq[(String, Array[Byte], String)] = Seq(
    ("frame length 2^63+1 wraps", hex("14 81 80 80 80 80 80 80 80 80 01") ++ new Array[Byte](20), "too large"),
    ("value tag 2^63 or more", hex("160119155345435245542d50415353574f52442d313233341d0019a98080808080808080016162"),
      "runs past the end of its container"),
    ("frame length 2^64-1", hex("15 ff ff ff ff ff ff ff ff ff 01"), "too large"),
    ("types frame length 2^64-1", hex("03 ff ff ff ff ff ff ff ff ff 01"), "too large"),
    ("values frame length 2^64-1", hex("10 ff ff ff ff ff ff ff ff ff 01"), "too large"),
    ("frame length uvarint of 11 bytes", hex("10 ff ff ff ff ff ff ff ff ff ff 01"), "longer than 10 bytes"),
    ("frame length 10th byte over 64 bits", hex("10 ff ff ff ff ff ff ff ff ff 02"), "over 64 bits"),
    ("LZ4 size 2^63 or more", hex("5d 00 00 ff ff ff ff ff ff ff ff ff 01 10 41"), "impossible"),
    ("string length 2^64-1", hex("1b 00 19 ff ff ff ff ff ff ff ff ff 01 ff"), "runs past the end of its container"),
    ("field name length 2^63", hex("0e 00 00 01 80 80 80 80 80 80 80 80 80 01 61 09 ff"), "field name length"),
    ("type id 2^63", hex("1b 00 80 80 80 80 80 80 80 80 80 01 00 ff"), "type id"),
    ("record count 2^64-1", hex("0b 00 00 ff ff ff ff ff ff ff ff ff 01 ff"), "record field count"),
    ("version 6 byte", hex("86 13 00 09 02 02 ff"), "version 6"),
    ("version change inside a stream", hex("13 00 09 02 02 85 13 00 09 02 02 ff"), "version changes from 0 to 5"))
}
