package io.superspark.bsup.functions

import io.superspark.bsup.{BsupVersion, SuperType, ValueCodec}
import io.superspark.bsup.spark.SuperTypes
import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.types.{DataType, StringType}
import org.apache.spark.unsafe.types.UTF8String

/** `sb_typeof(bin)`: the type of the cell's first value in the Super type syntax of its version. */
private[superspark] case class SbTypeOf(child: Expression, failFast: Boolean, name: String) extends CellExpression {
  override def dataType: DataType = StringType
  override def prettyName: String = name

  // One cache per syntax: version 0's, and that of the later versions.
  @transient private lazy val names = Array(0, BsupVersion.Latest).map(v =>
    new ReaderCache[UTF8String](t => UTF8String.fromString(SuperType.format(t, v))))

  override protected def decode(cell: Array[Byte]): Any =
    if (decoder.next()) names(if (decoder.context.version == 0) 0 else 1).get(decoder) else null

  override protected def withNewChildInternal(newChild: Expression): SbTypeOf = copy(child = newChild)
}

/**
 * `sb_schema_of(bin)`: the Spark type (DDL) `sb_decode` gives the cell's first value through
 * the shared type mapping, usable as `sb_decode`'s schema argument.
 */
private[superspark] case class SbSchemaOf(child: Expression, failFast: Boolean, name: String) extends CellExpression {
  override def dataType: DataType = StringType
  override def prettyName: String = name

  @transient private lazy val schemas = new ReaderCache[UTF8String](t => UTF8String.fromString(SuperTypes.toSpark(t).sql))

  override protected def decode(cell: Array[Byte]): Any = if (decoder.next()) schemas.get(decoder) else null

  override protected def withNewChildInternal(newChild: Expression): SbSchemaOf = copy(child = newChild)
}

/** `sb_to_sup(bin)`: the cell's values as Super JSON text (SUP), one per line. */
private[superspark] case class SbToSup(child: Expression, failFast: Boolean, name: String) extends CellExpression {
  override def dataType: DataType = StringType
  override def prettyName: String = name

  override protected def decode(cell: Array[Byte]): Any = {
    val sb = new java.lang.StringBuilder
    var n = 0
    // From version 1, SUP declares a named type once (`type port=uint16`) before its first use.
    val declared = new java.util.HashSet[String]()
    while (decoder.next()) {
      if (n > 0) sb.append('\n')
      val version = decoder.context.version
      if (version > 0) SupText.namedTypes(decoder.valueType, version).foreach { d =>
        if (declared.add(d)) sb.append(d).append('\n')
      }
      val v =
        if (decoder.valueLength < 0) null
        else ValueCodec.decodeBody(decoder.valueType, decoder.buf, decoder.valueOffset, decoder.valueLength,
          decoder.frameCursor)
      SupText.append(sb, decoder.valueType, v, version)
      n += 1
    }
    if (n == 0) null else UTF8String.fromString(sb.toString)
  }

  override protected def withNewChildInternal(newChild: Expression): SbToSup = copy(child = newChild)
}
