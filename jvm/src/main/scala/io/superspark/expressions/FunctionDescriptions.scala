package io.superspark.expressions

import scala.reflect.ClassTag

import org.apache.spark.sql.catalyst.FunctionIdentifier
import org.apache.spark.sql.catalyst.analysis.FunctionRegistry.FunctionBuilder
import org.apache.spark.sql.catalyst.expressions.{Expression, ExpressionInfo}
import org.apache.spark.sql.superspark.SparkInternals

/**
 * How a SQL function of superspark is described: its `ExpressionInfo` and a builder that checks
 * the arity. Each feature builds its descriptions here, beside its expressions; the catalog
 * (`io.superspark.SuperSparkFunctions`) collects them.
 */
private[superspark] object FunctionDescriptions {

  type FunctionDescription = (FunctionIdentifier, ExpressionInfo, FunctionBuilder)

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
