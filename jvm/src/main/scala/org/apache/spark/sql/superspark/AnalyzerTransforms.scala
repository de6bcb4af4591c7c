package org.apache.spark.sql.superspark

import org.apache.spark.sql.catalyst.plans.logical.{AnalysisHelper, LogicalPlan}

/** `transformUp` from an analyzer rule, including subtrees already marked analyzed. */
object AnalyzerTransforms {
  /**
   * Catalog relations come from the session catalog's relation cache already marked
   * analyzed, so `resolveOperators*` would skip them: the parquet interceptor's rule must
   * still swap their file format.
   */
  def transformUp(plan: LogicalPlan)(rule: PartialFunction[LogicalPlan, LogicalPlan]): LogicalPlan =
    AnalysisHelper.allowInvokingTransformsInAnalyzer(plan.transformUp(rule))
}
