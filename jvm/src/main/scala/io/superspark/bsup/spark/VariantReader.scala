package io.superspark.bsup.spark

import java.util.{ArrayList => JArrayList}

import io.superspark.bsup._
import org.apache.spark.types.variant.VariantBuilder
import org.apache.spark.unsafe.types.VariantVal

/**
 * Reads any Super value as a Spark VARIANT: records become objects, arrays and sets arrays,
 * maps with string keys objects (other maps, and maps with a null key, arrays of `{key, value}`
 * objects), unions their
 * member's value, enums their symbol, errors `{error: value}`, integers long (or decimal, or
 * string when wider than 38 digits), time a timestamp, duration long nanoseconds, floats
 * double, decimals decimal (or string), ip/net/type their text.
 */
private[superspark] final class VariantReader(src: SuperType) extends ValueReader {
  def read(s: Src, off: Int, len: Int): Any = {
    val v = ValueCodec.decodeBody(src, s.buf, off, len, s.cursor)
    val b = new VariantBuilder(false)
    VariantReader.append(b, src, v)
    val r = b.result()
    new VariantVal(r.getValue, r.getMetadata)
  }
}

private[superspark] object VariantReader {
  private def appendBig(b: VariantBuilder, x: BigInt): Unit =
    if (x.isValidLong) b.appendLong(x.toLong)
    else if (x.abs.toString.length <= 38) b.appendDecimal(new java.math.BigDecimal(x.bigInteger))
    else b.appendString(x.toString)

  def append(b: VariantBuilder, t: SuperType, v: Any): Unit = if (v == null) b.appendNull() else t match {
    case NamedType(_, inner) => append(b, inner, v)
    case r: RecursiveRef => append(b, r.target, v)
    case ErrorType(inner) =>
      val start = b.getWritePos
      val fields = new JArrayList[VariantBuilder.FieldEntry]()
      fields.add(new VariantBuilder.FieldEntry("error", b.addKey("error"), b.getWritePos - start))
      append(b, inner, v.asInstanceOf[ErrorValue].value)
      b.finishWritingObject(start, fields)
    case RecordType(fs) =>
      val vs = v.asInstanceOf[Seq[Any]]
      val start = b.getWritePos
      val fields = new JArrayList[VariantBuilder.FieldEntry]()
      fs.indices.foreach { i =>
        fields.add(new VariantBuilder.FieldEntry(fs(i).name, b.addKey(fs(i).name), b.getWritePos - start))
        append(b, fs(i).typ, vs(i))
      }
      b.finishWritingObject(start, fields)
    case ArrayType(e) => appendArray(b, e, v.asInstanceOf[Seq[Any]])
    case SetType(e) => appendArray(b, e, v.asInstanceOf[Seq[Any]])
    case MapType(k, vt) =>
      val entries = v.asInstanceOf[Seq[(Any, Any)]]
      // Object keys cannot be null: a map with a null key is an array of {key, value} objects.
      if (k.underlying == SuperType.string && !entries.exists(_._1 == null)) {
        val start = b.getWritePos
        val fields = new JArrayList[VariantBuilder.FieldEntry]()
        entries.foreach { case (key, x) =>
          val name = key.asInstanceOf[String]
          fields.add(new VariantBuilder.FieldEntry(name, b.addKey(name), b.getWritePos - start))
          append(b, vt, x)
        }
        b.finishWritingObject(start, fields)
      } else {
        appendArray(b, RecordType(IndexedSeq(Field("key", k), Field("value", vt))),
          entries.map { case (key, x) => IndexedSeq(key, x) })
      }
    case UnionType(ts) =>
      val u = v.asInstanceOf[UnionValue]
      append(b, ts(u.selector), u.value)
    case EnumType(symbols) => b.appendString(symbols(v.asInstanceOf[EnumValue].index))
    case FusionType(inner) => append(b, inner, v.asInstanceOf[FusionValue].value)
    case _: PrimitiveType => v match {
      case l: Long => b.appendLong(l)
      case x: BigInt => appendBig(b, x)
      case Time(ns) => b.appendTimestamp(Math.floorDiv(ns, 1000L))
      case Duration(ns) => b.appendLong(ns)
      case f: Float => b.appendFloat(f)
      case d: Double => b.appendDouble(d)
      case d: java.math.BigDecimal =>
        if (d.precision <= 38 && d.scale >= 0 && d.scale <= 38) b.appendDecimal(d) else b.appendString(d.toString)
      case z: Boolean => b.appendBoolean(z)
      case x: Bytes => b.appendBinary(x.toArray)
      case x: String => b.appendString(x)
      case a: java.net.InetAddress => b.appendString(ValueText.ip(a))
      case other => b.appendString(other.toString)
    }
  }

  private def appendArray(b: VariantBuilder, e: SuperType, vs: Seq[Any]): Unit = {
    val start = b.getWritePos
    val offsets = new JArrayList[Integer]()
    vs.foreach { x => offsets.add(b.getWritePos - start); append(b, e, x) }
    b.finishWritingArray(start, offsets)
  }
}
