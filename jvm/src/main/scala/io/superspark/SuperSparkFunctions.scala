package io.superspark

import io.superspark.expressions.FunctionDescriptions.{function, FunctionDescription}
import io.superspark.expressions.SuperSparkVersion

/**
 * The function catalog: every SQL function superspark registers, with its documentation.
 * Each feature keeps its descriptions beside its expressions (built with
 * [[io.superspark.expressions.FunctionDescriptions.function]]) and
 * adds them to [[all]] in one line; [[SuperSparkExtensions]] injects them.
 */
object SuperSparkFunctions {

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
}
