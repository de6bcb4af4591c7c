package io.superspark.planning

import org.apache.spark.sql.catalyst.catalog.CatalogTable
import org.apache.spark.sql.catalyst.expressions.{AttributeReference, AttributeSeq}
import org.apache.spark.sql.catalyst.plans.QueryPlan
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.connector.read.streaming.SparkDataStream
import org.apache.spark.sql.execution.datasources.LogicalRelation
import org.apache.spark.sql.sources.BaseRelation
import org.apache.spark.sql.superspark.{AnalyzerTransforms, SuperSparkSQLConf}

/**
 * A [[LogicalRelation]] whose canonical form is built in time linear in its columns.
 *
 * Spark 4.0-4.3's `LogicalRelation.doCanonicalize` normalizes each output attribute against
 * `output` converted to an `AttributeSeq` anew for that attribute, and each conversion builds
 * its own exprId-to-ordinal map: n maps of n entries, 10^8 map insertions for a 10,000-column
' * relation (5-6 s on the bench machine, docs/planning.md). Delta's `PrepareDeltaScan` asks for
 * the canonical form of every scan it prepares, so every query of a wide Delta table pays it.
 * This class builds the map once. Its canonical form is the very plan Spark's would be (a plain
 * `LogicalRelation`, so `sameResult` and the cache manager see no difference), and it is a
 * `LogicalRelation` to every pattern match, `unapply` included; `copy` gives back a plain one.
 * It is not `==` to a plain one over the same fields (see `equals`).
 */
final class LinearCanonicalRelation(
    baseRelation: BaseRelation,
    attributes: Seq[AttributeReference],
    table: Option[CatalogTable],
    streaming: Boolean,
    dataStream: Option[SparkDataStream])
  extends LogicalRelation(baseRelation, attributes, table, streaming, dataStream) {

  override def doCanonicalize(): LogicalPlan = {
    val input: AttributeSeq = output
    copy(output = output.map(QueryPlan.normalizeExpressions(_, input)), catalogTable = None)
  }

  // Unequal to Spark's own relation over the same fields: a transform keeps a replaced child
  // only when it is unequal to the old one (TreeNode.mapChildren's fastEquals). Plans are
  // compared through their canonical forms, which are Spark's own class either way.
  override def canEqual(that: Any): Boolean = that.isInstanceOf[LinearCanonicalRelation]
  override def equals(that: Any): Boolean = that.isInstanceOf[LinearCanonicalRelation] && super.equals(that)
  override def hashCode(): Int = super.hashCode()
}

/**
 * The post-hoc resolution rule that gives each resolved `LogicalRelation` the linear
 * canonicalization, while `spark.superspark.plan.linearCanonicalization` is true; catalog
 * relations too (they come from the session catalog's cache already marked analyzed).
 */
object LinearCanonicalization extends Rule[LogicalPlan] {
  override def apply(plan: LogicalPlan): LogicalPlan =
    if (!SuperSparkSQLConf.linearCanonicalization(conf)) plan
    else AnalyzerTransforms.transformUp(plan) {
      case r: LogicalRelation if r.getClass == classOf[LogicalRelation] =>
        val linear = new LinearCanonicalRelation(r.relation, r.output, r.catalogTable, r.isStreaming, r.stream)
        linear.copyTagsFrom(r)
        linear
    }
}
