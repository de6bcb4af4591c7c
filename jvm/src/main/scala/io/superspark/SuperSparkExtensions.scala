package io.superspark

import org.apache.spark.sql.SparkSessionExtensions
import org.apache.spark.sql.superspark.SuperSparkSQLConf

import io.superspark.parquet.interceptor.InterceptorVersions

/**
 * The one entry point: `spark.sql.extensions=io.superspark.SuperSparkExtensions`.
 *
 * Registers superspark's SQL config entries, every SQL function of [[SuperSparkFunctions]] (with
 * its `ExpressionInfo`, so `SHOW FUNCTIONS` and `DESCRIBE FUNCTION EXTENDED` document it), the footer
 * table functions (`superspark_footer_migrate_table` and its siblings, [[parquet.footer.tools.FooterTableJob]]) and,
 * on the Spark and parquet-java versions the Parquet interceptor supports
 * ([[InterceptorVersions]]), the interceptor's analyzer and planner rules. On other versions
 * Parquet is left to Spark entirely (one warning in the log); bsup, the functions and the
 * Arrow layer work either way. Every file-source relation gets a canonical form built in linear
 * time ([[planning.LinearCanonicalization]]). A jar built for another Spark line stops the session's start
 * with `SUPERSPARK_SPARK_LINE_MISMATCH`.
 */
class SuperSparkExtensions extends (SparkSessionExtensions => Unit) {
  override def apply(extensions: SparkSessionExtensions): Unit = {
    InterceptorVersions.requireJarLine()
    SuperSparkSQLConf.register()
    parquet.footer.writers.EveryWriterSetup.install()
    SuperSparkFunctions.all.foreach(extensions.injectFunction)
    parquet.footer.tools.FooterTableJob.tableFunctions.foreach(extensions.injectTableFunction)
    if (InterceptorVersions.interceptorEnabled()) {
      extensions.injectHintResolutionRule(parquet.interceptor.RouteParquetReads)
      extensions.injectPostHocResolutionRule(parquet.interceptor.SwapParquetFormat)
      extensions.injectColumnar(parquet.interceptor.FooterScanColumnarRule)
      extensions.injectHintResolutionRule(parquet.interceptor.v2.RouteParquetV2Reads)
    }
    extensions.injectColumnar(parquet.footer.writers.EveryWriterColumnarRule)
    // After the interceptor's swap, so the relation it leaves is the one made linear.
    extensions.injectPostHocResolutionRule(_ => planning.LinearCanonicalization)
  }
}
