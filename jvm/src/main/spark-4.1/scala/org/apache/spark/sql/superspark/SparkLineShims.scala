package org.apache.spark.sql.superspark

/**
 * The Spark 4.1 line's side of the adapter (docs/spark-lines.md); the same members as every
 * line's `SparkLineShims`. Built against pyspark 4.1.4 (parquet-java 1.16). Against 4.2: no
 * setting to respect unknown type annotations. Against 4.3 also: no nanosecond timestamp
 * types, no `ParquetFilters` pruning by the required schema, no archive inputs.
 */
object SparkLineShims extends SparkLineAdapter with SparkLine40To42Shims with SparkLine41To43Shims with SparkLine40To41Shims {
  val SparkLine = "4.1"
  val ParquetLine = "1.16"
}
