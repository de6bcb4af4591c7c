package org.apache.spark.sql.superspark

import org.apache.parquet.hadoop.metadata.ParquetMetadata
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.util.RebaseDateTime.RebaseSpec
import org.apache.spark.sql.connector.expressions.aggregate.Aggregation
import org.apache.spark.sql.execution.datasources.parquet.ParquetUtils
import org.apache.spark.sql.types.StructType

/** Spark 4.3's `private[sql]` aggregate-from-footer helper, for the DSv2 interceptor's aggregate readers. */
object ParquetAggregates {
  def rowFromFooter(footer: ParquetMetadata, filePath: String, dataSchema: StructType, partitionSchema: StructType,
      aggregation: Aggregation, aggSchema: StructType, partitionValues: InternalRow,
      datetimeRebaseSpec: RebaseSpec): InternalRow =
    ParquetUtils.createAggInternalRowFromFooter(footer, filePath, dataSchema, partitionSchema, aggregation, aggSchema,
      partitionValues, datetimeRebaseSpec)
}
