package io.superspark.bsup.functions

import io.superspark.bsup._
import io.superspark.bsup.spark.{Src, ValueReader}
import org.apache.spark.SparkException
import org.apache.spark.sql.catalyst.analysis.TypeCheckResult
import org.apache.spark.sql.catalyst.expressions.UnaryExpression
import org.apache.spark.sql.catalyst.expressions.codegen.{CodeGenerator, CodegenContext, ExprCode}
import org.apache.spark.sql.types.BinaryType

/**
 * The functions that read a binary cell holding Super Binary streams: one [[CellDecoder]]
 * per expression instance (so per task: its type context survives from row to row), and
 * errors either as Spark errors (FAILFAST) or as null (PERMISSIVE and the `try_` forms).
 */
private[superspark] abstract class CellExpression extends UnaryExpression {

  /** Errors fail the query (else the result is null). */
  def failFast: Boolean

  override def checkInputDataTypes(): TypeCheckResult = child.dataType match {
    case BinaryType => TypeCheckResult.TypeCheckSuccess
    case other => TypeCheckResult.DataTypeMismatch(
      errorSubClass = "UNEXPECTED_INPUT_TYPE",
      messageParameters = Map("paramIndex" -> "first", "requiredType" -> "\"BINARY\"",
        "inputSql" -> s"\"${child.sql}\"", "inputType" -> s"\"${other.sql}\""))
  }
  override def nullable: Boolean = true
  override def nullIntolerant: Boolean = true

  @transient protected lazy val decoder = new CellDecoder(CellExpression.Source)
  @transient protected lazy val src = new Src(null)

  /** The result for a cell (not null); may throw [[BsupException]]. */
  protected def decode(cell: Array[Byte]): Any

  /** False when [[decode]] points the decoder at the cell itself (see `CellDecoder.first`). */
  protected def resetsDecoder: Boolean = true

  final override protected def nullSafeEval(input: Any): Any = {
    val cell = input.asInstanceOf[Array[Byte]]
    try {
      if (resetsDecoder) decoder.reset(cell)
      decode(cell)
    } catch {
      // Only format errors become nulls: anything else is a bug and fails the query.
      case e: BsupException => if (failFast) throw CellExpression.malformed(e, prettyName) else null
    }
  }

  /** [[nullSafeEval]] for generated code (the cell is not null). */
  final def evalCell(cell: Any): Any = nullSafeEval(cell)

  // Generated code evaluates the child (no interpreted child, no copy of its bytes through a
  // row) and calls the decoder held by this instance.
  override protected def doGenCode(ctx: CodegenContext, ev: ExprCode): ExprCode = {
    val self = ctx.addReferenceObj("cellExpression", this)
    val boxed = CodeGenerator.boxedType(dataType)
    nullSafeCodeGen(ctx, ev, cell => {
      val out = ctx.freshName("decoded")
      s"""Object $out = $self.evalCell($cell);
         |${ev.isNull} = $out == null;
         |if (!${ev.isNull}) ${ev.value} = ($boxed) $out;""".stripMargin
    })
  }

  /** Points `src` at the current value's frame. */
  protected def currentSrc(): Src = { src.cursor = decoder.frameCursor; src }
}

private[superspark] object CellExpression {
  /** The name errors give to the input (byte offsets are offsets in the cell). */
  final val Source = "cell"

  /** Spark's error for a malformed cell, naming the byte offset and the problem. */
  def malformed(e: BsupException, function: String): SparkException = new SparkException(
    errorClass = "MALFORMED_RECORD_IN_PARSING.WITHOUT_SUGGESTION",
    messageParameters = Map("badRecord" -> s"$function: ${e.text}", "failFastMode" -> "FAILFAST"),
    cause = e)
}

/**
 * Value readers compiled once per type of a cell's values, kept while the decoder's type
 * context stays the same (a column of one type compiles one reader), and by type across
 * contexts.
 */
private[superspark] final class ReaderCache[T <: AnyRef](compile: SuperType => T) {
  private var version = -1
  private var byId = new Array[AnyRef](64)
  private val byType = new java.util.HashMap[SuperType, T]()

  def get(d: CellDecoder): T = {
    if (d.contextVersion != version) {
      java.util.Arrays.fill(byId, null)
      version = d.contextVersion
    }
    val id = d.typeId
    if (id < byId.length) {
      val r = byId(id)
      if (r != null) return r.asInstanceOf[T]
    }
    var r = byType.get(d.valueType)
    if (r == null) {
      r = compile(d.valueType)
      if (byType.size > 1024) byType.clear()
      byType.put(d.valueType, r)
    }
    if (id >= byId.length && id < (1 << 16)) byId = java.util.Arrays.copyOf(byId, math.max(id + 1, byId.length * 2))
    if (id < byId.length) byId(id) = r
    r
  }
}

private[superspark] object ReaderCache {
  def readers(compile: SuperType => ValueReader): ReaderCache[ValueReader] = new ReaderCache(compile)
}
