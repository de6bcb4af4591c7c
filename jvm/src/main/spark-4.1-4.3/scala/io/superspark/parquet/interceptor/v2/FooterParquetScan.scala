package io.superspark.parquet.interceptor.v2

import org.apache.hadoop.conf.Configuration
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.connector.expressions.aggregate.Aggregation
import org.apache.spark.sql.connector.metric.CustomMetric
import org.apache.spark.sql.connector.read.VariantExtraction
import org.apache.spark.sql.execution.datasources.PartitioningAwareFileIndex
import org.apache.spark.sql.execution.datasources.v2.parquet.ParquetScan
import org.apache.spark.sql.sources.Filter
import org.apache.spark.sql.types.StructType
import org.apache.spark.sql.util.CaseInsensitiveStringMap

/** [[FooterParquetScanBase]] with the `ParquetScan` constructor of Spark 4.1, 4.2 and 4.3 (pushed variant extractions). */
private[superspark] class FooterParquetScan(
    sparkSession: SparkSession,
    hadoopConf: Configuration,
    fileIndex: PartitioningAwareFileIndex,
    dataSchema: StructType,
    readDataSchema: StructType,
    readPartitionSchema: StructType,
    pushedFilters: Array[Filter],
    options: CaseInsensitiveStringMap,
    pushedAggregate: Option[Aggregation],
    partitionFilters: Seq[Expression],
    dataFilters: Seq[Expression],
    pushedVariantExtractions: Array[VariantExtraction])
  extends ParquetScan(sparkSession, hadoopConf, fileIndex, dataSchema, readDataSchema, readPartitionSchema,
    pushedFilters, options, pushedAggregate, partitionFilters, dataFilters, pushedVariantExtractions)
  with FooterParquetScanBase {
  // Here, not in the trait: `Scan.supportedCustomMetrics` is an interface default ParquetScan does not override.
  override def supportedCustomMetrics(): Array[CustomMetric] = footerCustomMetrics(super.supportedCustomMetrics())
}

private[superspark] object FooterParquetScan {
  def apply(s: ParquetScan): FooterParquetScan = new FooterParquetScan(s.sparkSession, s.hadoopConf, s.fileIndex,
    s.dataSchema, s.readDataSchema, s.readPartitionSchema, s.pushedFilters, s.options, s.pushedAggregate,
    s.partitionFilters, s.dataFilters, s.pushedVariantExtractions)
}
