package io.superspark.bsup

import java.net.InetAddress

/**
 * The generic value model of the codec's API ([[ValueCodec]]):
 *
 *  - int8..int64, uint8..uint32: `Long`; uint64 and the 128/256-bit integers: `BigInt`
 *  - duration, time: [[Duration]] and [[Time]] (signed nanoseconds)
 *  - float16, float32: `Float`; float64, float128, float256: `Double`
 *  - decimal32..256: `java.math.BigDecimal`
 *  - bool: `Boolean`; bytes: [[Bytes]]; string: `String`
 *  - ip: `java.net.InetAddress`; net: [[IpNet]]; type: [[SuperType]]; null type: `null`
 *  - record, array, set: `IndexedSeq[Any]`; map: `IndexedSeq[(Any, Any)]`
 *  - union: [[UnionValue]]; enum: [[EnumValue]]; error: [[ErrorValue]]; fusion: [[FusionValue]]
 *  - a named type's value is its underlying type's value; a null of any type is `null`.
 */
private[superspark] final case class Duration(nanos: Long)
private[superspark] final case class Time(nanos: Long)
private[superspark] final case class UnionValue(selector: Int, value: Any)
private[superspark] final case class EnumValue(index: Int)
private[superspark] final case class ErrorValue(value: Any)
/** A value of a fusion type: its value as the supertype, and the type it had before fusion. */
private[superspark] final case class FusionValue(value: Any, subtype: SuperType)

/** A byte string with value equality. */
private[superspark] final case class Bytes(bytes: IndexedSeq[Byte]) {
  def toArray: Array[Byte] = bytes.toArray
}
private[superspark] object Bytes {
  def apply(a: Array[Byte]): Bytes = new Bytes(a.toIndexedSeq)
}

/** An IP network: an address and a prefix length. */
private[superspark] final case class IpNet(address: InetAddress, prefixLength: Int) {
  override def toString: String = s"${ValueText.ip(address)}/$prefixLength"
}

/** Values paired with their types. */
private[superspark] final case class Value(typ: SuperType, value: Any)
