package io.superspark.bsup

/** Hand-built version 5 streams of recursive types (for BsupRecursiveSuite and the fuzzer's seeds). */
object RecursiveStreams {
  def hex(s: String): Array[Byte] = s.split("\\s+").filter(_.nonEmpty).map(Integer.parseInt(_, 16).toByte)

  private def uvarint(v: Long): Array[Byte] = { val b = new Array[Byte](10); b.take(Varint.putUvarint(b, 0, v)) }

  /** A version 5 frame: the version byte, the code (type in bits 4-5, low length bits), the rest of the length. */
  def frame(kind: Int, payload: Array[Byte]): Array[Byte] =
    Array(0x85.toByte, ((kind << 4) | (payload.length & 0xf)).toByte) ++ uvarint(payload.length >>> 4) ++ payload

  def tag(body: Array[Byte]): Array[Byte] = uvarint(body.length + 1L) ++ body

  def int64(v: Long): Array[Byte] = {
    val z = Varint.signedToUnsigned(v)
    tag(Iterator.iterate(z)(_ >>> 8).takeWhile(_ != 0).map(_.toByte).toArray)
  }

  /** A node value: `{v, next}` where next is the union's null member (selector 0) or its node member (1). */
  def nodeValue(vs: Seq[Long]): Array[Byte] =
    vs.init.foldRight(tag(int64(vs.last) ++ tag(hex("01 00")))) { (v, rest) => tag(int64(v) ++ tag(hex("02 01") ++ rest)) }

  /**
   * Types 32 `node` (named, inner id 34 as 4 bytes: a forward reference), 33 `(null|node)`,
   * 34 `{v:int64,next:33}`, 35 `{id:int64,list:32}`; then values `{id:i,list:<list i>}` of type 35.
   */
  def stream(lists: Seq[Long]*): Array[Byte] = streamOf(9, lists: _*)

  /** [[stream]] with `v` of the signed integer type `vType` (int8 6 .. int64 9). */
  def streamOf(vType: Int, lists: Seq[Long]*): Array[Byte] = {
    val types = hex("07 04") ++ "node".getBytes ++ hex("00 00 00 22") ++
      hex("04 02 1d 20") ++
      hex("00 02 01") ++ "v".getBytes ++ Array(vType.toByte, 4.toByte) ++ "next".getBytes ++ hex("21") ++
      hex("00 02 02") ++ "id".getBytes ++ hex("09 04") ++ "list".getBytes ++ hex("20")
    val values = lists.zipWithIndex.flatMap { case (l, i) =>
      hex("23") ++ tag(int64(i + 1L) ++ nodeValue(l))
    }.toArray
    frame(0, types) ++ frame(1, values) ++ hex("ff")
  }

  /** node={v:int64,next:(null|node)}, built the way a types frame builds it. */
  def recursiveNodeType: NamedType = SuperType.parse("node={v:int64,next:(null|node)}").asInstanceOf[NamedType]
}
