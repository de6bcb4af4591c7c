package io.superspark.parquet.interceptor

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.execution.{ColumnarRule, FileSourceScanExec, SparkPlan}

/**
 * Physical rule (before columnar transitions): scans of a [[FooterScanFormat]] become
 * [[FooterScanExec]] while the read path is on, so their footer counters are SQL metrics.
 */
private[superspark] case class InstrumentFooterScans(session: SparkSession) extends Rule[SparkPlan] {
  override def apply(plan: SparkPlan): SparkPlan = {
    if (!FooterInterceptorConf.readEnabled(conf)) plan
    else plan.transformUp {
      case s: FileSourceScanExec if s.getClass == classOf[FileSourceScanExec] &&
          s.relation.fileFormat.isInstanceOf[FooterScanFormat] => FooterScanExec(s)
    }
  }
}

/** [[InstrumentFooterScans]] as the extension's columnar rule. */
private[superspark] case class FooterScanColumnarRule(session: SparkSession) extends ColumnarRule {
  override def preColumnarTransitions: Rule[SparkPlan] = InstrumentFooterScans(session)
}
