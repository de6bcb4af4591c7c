package io.superspark

import org.apache.spark.sql.SparkSessionExtensions

/**
 * The one entry point: `spark.sql.extensions=io.superspark.SuperSparkExtensions`.
 *
 * Registers every SQL function of [[SuperSparkFunctions]] (with its `ExpressionInfo`, so
 * `SHOW FUNCTIONS` and `DESCRIBE FUNCTION EXTENDED` document it) and the planner and
 * optimizer rules of the format features.
 */
class SuperSparkExtensions extends (SparkSessionExtensions => Unit) {
  override def apply(extensions: SparkSessionExtensions): Unit = {
    SuperSparkFunctions.all.foreach(extensions.injectFunction)
    extensions.injectHintResolutionRule(parquet.interceptor.RouteParquetReads)
    extensions.injectPostHocResolutionRule(parquet.interceptor.SwapParquetFormat)
    extensions.injectColumnar(parquet.interceptor.FooterScanColumnarRule)
    extensions.injectHintResolutionRule(parquet.interceptor.v2.RouteParquetV2Reads)
  }
}
