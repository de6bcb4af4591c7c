package io.superspark.bsup.functions

import io.superspark.bsup._
import io.superspark.bsup.spark.{BsupErrors, BsupOptions, FieldWriter, SparkWriters, WriteConf}
import org.apache.spark.sql.AnalysisException
import org.apache.spark.sql.catalyst.expressions.ExprUtils
import io.superspark.bsup.spark.SuperTypes
import org.apache.spark.sql.catalyst.analysis.TypeCheckResult
import org.apache.spark.sql.catalyst.expressions.{Attribute, Expression, GenericInternalRow, UnaryExpression}
import org.apache.spark.sql.catalyst.expressions.codegen.CodegenFallback
import org.apache.spark.sql.types.{BinaryType, DataType, StructField, VariantType}
import org.apache.spark.unsafe.types.VariantVal

/**
 * `sb_encode(expr)`: the value as one Super Binary stream (a types frame when the type is
 * complex, a values frame holding the value, an end-of-stream marker), uncompressed. The
 * Super type is the one kept in the column's metadata (`super.type`, as columns read from
 * Super data carry it) when it still fits, else the default mapping of the Spark type.
 * The typedef bytes are computed once per expression; each row reuses the buffers.
 */
private[superspark] case class SbEncode(child: Expression, kept: Option[SuperType] = None, version: Int = 0)
  extends UnaryExpression with CodegenFallback {
  override def dataType: DataType = BinaryType
  override def nullable: Boolean = true
  override def nullIntolerant: Boolean = true
  override def prettyName: String = "sb_encode"

  /** The Super type values are written as. */
  @transient lazy val superType: SuperType =
    kept.filter(t => SbEncode.fits(t, child.dataType)).getOrElse(child match {
      // Cells keep the spec's decimals (Spark to Spark); the data source writes SuperDB's form.
      case a: Attribute => SuperTypes.superTypeOf(StructField(a.name, a.dataType, nullable = true, a.metadata),
        decimals = SuperTypes.DecimalForm.Spec)
      case _ => SuperTypes.fromSpark(child.dataType, SuperTypes.DecimalForm.Spec)
    })

  override def checkInputDataTypes(): TypeCheckResult =
    try { writer; TypeCheckResult.TypeCheckSuccess }
    catch {
      // No Super type for the Spark type (SuperTypes.fromSpark), or not the kept one's.
      case _: IllegalArgumentException | _: BsupErrors.BsupWriteException => TypeCheckResult.DataTypeMismatch(
        errorSubClass = "UNEXPECTED_INPUT_TYPE",
        messageParameters = Map(
          "paramIndex" -> "first",
          "requiredType" -> "a type with a Super type (not interval, calendar or user-defined types)",
          "inputSql" -> child.sql,
          "inputType" -> child.dataType.sql))
    }

  // Errors name the input column (or the expression's SQL).
  @transient private lazy val writer = SparkWriters.compile(superType, child.dataType,
    WriteConf(version, column = child match { case a: Attribute => a.name; case _ => child.sql }))

  @transient private lazy val encoder = new CellEncoder(superType, writer, version)

  @transient private lazy val variantEncoder = new VariantCellEncoder(version)

  override protected def nullSafeEval(input: Any): Any = child.dataType match {
    // A VARIANT value is written with the Super type of its own structure.
    case VariantType => variantEncoder.encode(input.asInstanceOf[VariantVal])
    case _ => encoder.encode(input)
  }

  // The type found on the resolved column (its metadata) is kept when the optimizer replaces
  // the column by the expression that computes it.
  override protected def withNewChildInternal(newChild: Expression): SbEncode =
    if (child.resolved && kept.isEmpty) SbEncode(newChild, Some(superType), version) else copy(child = newChild)
}

private[superspark] object SbEncode {
  private val allOptions = for (a <- Seq(false, true); b <- Seq(false, true)) yield SuperTypes.Options(a, b)

  /** True when values of Spark type `dt` are written as Super type `t`. */
  def fits(t: SuperType, dt: DataType): Boolean = allOptions.exists(o => SuperTypes.sameShape(SuperTypes.toSpark(t, o), dt))

  /** Builds the expression from a function call's arguments (expr [, options]). */
  def build(args: Seq[Expression]): SbEncode = {
    val options = args.drop(1).headOption.map(ExprUtils.convertToMapData).getOrElse(Map.empty[String, String])
    val version =
      try new BsupOptions(options, "_corrupt_record").version
      catch {
        case e: IllegalArgumentException => throw new AnalysisException(
          errorClass = "INVALID_PARAMETER_VALUE.PATTERN",
          messageParameters = Map("parameter" -> "`options`", "functionName" -> "`sb_encode`",
            "value" -> s"'${e.getMessage}'"))
      }
    SbEncode(args.head, None, version)
  }
}

/** Encodes values of one Super type as single-value streams, reusing its buffers. */
private[superspark] final class CellEncoder(t: SuperType, writer: FieldWriter, version: Int = 0) {
  private val (prefix, typeId) = CellEncoder.typesFrame(t, version)
  private val holder = new GenericInternalRow(1)
  private val body = new ByteBuf(256)
  private val out = new ByteBuf(256)

  def encode(value: Any): Array[Byte] = {
    holder.update(0, value)
    body.clear()
    body.putUvarint(typeId)
    writer.write(holder, 0, body)
    out.clear()
    out.put(prefix)
    if (version > 0) out.put(BsupVersion.frameByte(version))
    val len = body.size
    out.put(0x10 | (len & 0xf))
    out.putUvarint(len.toLong >>> 4)
    out.put(body.bytes, 0, len)
    out.put(FrameReader.EndOfStreamByte)
    out.toArray
  }
}

private[superspark] object CellEncoder {
  /**
   * The uncompressed types frame defining `t` (empty for a primitive type) and the type id of
   * `t`, taken from what the shared [[BsupWriter]] writes for a null value of `t`.
   */
  def typesFrame(t: SuperType, version: Int = 0): (Array[Byte], Int) = {
    val bytes = new java.io.ByteArrayOutputStream()
    val w = new BsupWriter(bytes, BsupWriterOptions(compress = false, version = version))
    val id = w.typeId(t)
    w.startValue(t).put(0)
    w.finishValue()
    w.close()
    val all = bytes.toByteArray
    val frames = FrameReader.overArray(all, "sb_encode")
    val frameLength = if (frames.nextHeader() == FrameReader.Types) { frames.skipPayload(); frames.src.offset.toInt } else 0
    (java.util.Arrays.copyOf(all, frameLength), id)
  }
}
