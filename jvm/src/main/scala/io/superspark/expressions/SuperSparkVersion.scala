package io.superspark.expressions

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.LeafExpression
import org.apache.spark.sql.catalyst.expressions.codegen.CodegenFallback
import org.apache.spark.sql.types.{DataType, StringType}
import org.apache.spark.unsafe.types.UTF8String


/** `superspark_version()`: the version of the loaded extension; folded to a literal. */
private[superspark] case class SuperSparkVersion() extends LeafExpression with CodegenFallback {
  override def nullable: Boolean = false
  override def foldable: Boolean = true
  override def dataType: DataType = StringType
  override def prettyName: String = "superspark_version"
  override def eval(input: InternalRow): Any = UTF8String.fromString(BuildInfo.version)
}
