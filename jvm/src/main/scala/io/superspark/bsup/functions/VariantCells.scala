package io.superspark.bsup.functions

import io.superspark.bsup._
import org.apache.spark.types.variant.{Variant, VariantUtil}
import org.apache.spark.unsafe.types.VariantVal

/**
 * `sb_encode` of a VARIANT: each value gets the Super type of its own structure (objects
 * records, arrays arrays of their elements' type or of a union of them, long int64, double
 * float64, float float32, decimal decimal128, string string, boolean bool, binary bytes,
 * date and timestamps time, uuid string, null null), the inverse of what `sb_decode` without a
 * schema gives, so `sb_decode(sb_encode(v))` returns an equal VARIANT for values without
 * dates or floats.
 */
private[superspark] final class VariantCellEncoder(version: Int = 0) {
  private val bytes = new java.io.ByteArrayOutputStream(256)

  def encode(v: VariantVal): Array[Byte] = {
    val (t, value) = VariantCellEncoder.convert(new Variant(v.getValue, v.getMetadata))
    bytes.reset()
    val w = new BsupWriter(bytes, BsupWriterOptions(compress = false, frameSize = 4096, version = version))
    w.write(t, value)
    w.close()
    bytes.toByteArray
  }
}

private[superspark] object VariantCellEncoder {
  /** The Super type and generic value (see `Values.scala`) of a variant value. */
  def convert(v: Variant): (SuperType, Any) = v.getType match {
    case VariantUtil.Type.OBJECT =>
      val n = v.objectSize()
      val fields = (0 until n).map { i =>
        val f = v.getFieldAtIndex(i)
        val (t, x) = convert(f.value)
        (Field(f.key, t), x)
      }
      (RecordType(fields.map(_._1)), fields.map(_._2))
    case VariantUtil.Type.ARRAY =>
      val elems = (0 until v.arraySize()).map(i => convert(v.getElementAtIndex(i)))
      val types = elems.map(_._1).distinct
      types match {
        case Seq() => (ArrayType(SuperType.nullType), IndexedSeq.empty)
        case Seq(t) => (ArrayType(t), elems.map(_._2))
        case _ =>
          // Nulls fit any member: a union of the other types (or of them and null).
          val members = types.filterNot(_ == SuperType.nullType) match {
            case Seq(one) => IndexedSeq(one)
            case ms => ms.toIndexedSeq
          }
          if (members.size == 1) (ArrayType(members.head), elems.map(_._2))
          else {
            val u = UnionType(members)
            (ArrayType(u), elems.map { case (t, x) => if (x == null) null else UnionValue(members.indexOf(t), x) })
          }
      }
    case VariantUtil.Type.NULL => (SuperType.nullType, null)
    case VariantUtil.Type.BOOLEAN => (SuperType.bool, v.getBoolean)
    case VariantUtil.Type.LONG => (SuperType.int64, v.getLong)
    case VariantUtil.Type.STRING => (SuperType.string, v.getString)
    case VariantUtil.Type.DOUBLE => (SuperType.float64, v.getDouble)
    case VariantUtil.Type.FLOAT => (SuperType.float32, v.getFloat)
    case VariantUtil.Type.DECIMAL => (SuperType.primitive(SuperType.Decimal128), v.getDecimal)
    case VariantUtil.Type.DATE => (SuperType.time, Time(v.getLong * 86400000000000L))
    case VariantUtil.Type.TIMESTAMP | VariantUtil.Type.TIMESTAMP_NTZ =>
      (SuperType.time, Time(Math.multiplyExact(v.getLong, 1000L)))
    case VariantUtil.Type.BINARY => (SuperType.bytes, Bytes(v.getBinary))
    case VariantUtil.Type.UUID => (SuperType.string, v.getUuid.toString)
  }
}
