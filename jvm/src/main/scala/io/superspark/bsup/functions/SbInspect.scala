package io.superspark.bsup.functions

import io.superspark.bsup.ValueCodec
import io.superspark.types.SuperTypes
import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.types.{DataType, StringType}
import org.apache.spark.unsafe.types.UTF8String

/** `sb_typeof(bin)`: the type of the cell's first value in Super type syntax. */
case class SbTypeOf(child: Expression, failFast: Boolean, name: String) extends CellExpression {
  override def dataType: DataType = StringType
  override def prettyName: String = name

  @transient private lazy val names = new ReaderCache[UTF8String](t => UTF8String.fromString(t.toString))

  override protected def decode(cell: Array[Byte]): Any = if (decoder.next()) names.get(decoder) else null

  override protected def withNewChildInternal(newChild: Expression): SbTypeOf = copy(child = newChild)
}

/**
 * `sb_schema_of(bin)`: the Spark type (DDL) `sb_decode` gives the cell's first value through
 * the shared type mapping, usable as `sb_decode`'s schema argument.
 */
case class SbSchemaOf(child: Expression, failFast: Boolean, name: String) extends CellExpression {
  override def dataType: DataType = StringType
  override def prettyName: String = name

  @transient private lazy val schemas = new ReaderCache[UTF8String](t => UTF8String.fromString(SuperTypes.toSpark(t).sql))

  override protected def decode(cell: Array[Byte]): Any = if (decoder.next()) schemas.get(decoder) else null

  override protected def withNewChildInternal(newChild: Expression): SbSchemaOf = copy(child = newChild)
}

/** `sb_to_sup(bin)`: the cell's values as Super JSON text (SUP), one per line. */
case class SbToSup(child: Expression, failFast: Boolean, name: String) extends CellExpression {
  override def dataType: DataType = StringType
  override def prettyName: String = name

  override protected def decode(cell: Array[Byte]): Any = {
    val sb = new java.lang.StringBuilder
    var n = 0
    while (decoder.next()) {
      if (n > 0) sb.append('\n')
      val v =
        if (decoder.valueLength < 0) null
        else ValueCodec.decodeBody(decoder.valueType, decoder.buf, decoder.valueOffset, decoder.valueLength,
          decoder.frameCursor)
      SupText.append(sb, decoder.valueType, v)
      n += 1
    }
    if (n == 0) null else UTF8String.fromString(sb.toString)
  }

  override protected def withNewChildInternal(newChild: Expression): SbToSup = copy(child = newChild)
}
