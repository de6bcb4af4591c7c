package io.superspark

import scala.reflect.ClassTag

import org.apache.spark.sql.catalyst.FunctionIdentifier
import org.apache.spark.sql.catalyst.analysis.FunctionRegistry.FunctionBuilder
import org.apache.spark.sql.catalyst.expressions.{Expression, ExpressionInfo}
import org.apache.spark.sql.superspark.SparkInternals

import io.superspark.expressions.SuperSparkVersion

/**
 * The function catalog: every SQL function superspark registers, with its documentation.
 * Each feature keeps its descriptions beside its expressions (built with [[function]]) and
 * adds them to [[all]] in one line; [[SuperSparkExtensions]] injects them.
 */
object SuperSparkFunctions {

  type FunctionDescription = (FunctionIdentifier, ExpressionInfo, FunctionBuilder)

  /** Every function superspark registers. */
  lazy val all: Seq[FunctionDescription] = core ++ io.superspark.bsup.functions.SuperBinaryFunctions.all

  private def core: Seq[FunctionDescription] = Seq(
    function[SuperSparkVersion](
      name = "superspark_version",
      usage = "_FUNC_() - Returns the version of the superspark extension loaded in this session.",
      arguments = "",
      examples =
        """
          |    > SELECT _FUNC_();
          |     0.1.0""".stripMargin,
      since = "0.1.0",
      group = "misc_funcs",
      arity = Set(0)) { _ => SuperSparkVersion() }
  )

  /** Names of all registered functions, for tests and docs. */
  def names: Seq[String] = all.map(_._1.funcName)

  /**
   * Describes one function. `usage`, `arguments` and `examples` follow Spark's
   * `ExpressionDescription` layout; the builder is called only with an accepted arity.
   */
  def function[T <: Expression : ClassTag](
      name: String,
      usage: String,
      arguments: String,
      examples: String,
      since: String,
      group: String,
      arity: Set[Int])(build: Seq[Expression] => Expression): FunctionDescription = {
    val argumentsText = if (arguments.isEmpty) "" else s"\n    Arguments:\n$arguments\n  "
    val examplesText = if (examples.isEmpty) "" else s"\n    Examples:$examples\n  "
    val info = new ExpressionInfo(
      implicitly[ClassTag[T]].runtimeClass.getCanonicalName,
      null, name, usage, argumentsText, examplesText, "", group, since, "", "built-in")
    val builder: FunctionBuilder = (children: Seq[Expression]) => {
      if (!arity.contains(children.length)) {
        throw SparkInternals.wrongNumArgsError(name, arity.toSeq.sorted, children.length)
      }
      build(children)
    }
    (FunctionIdentifier(name), info, builder)
  }
}
