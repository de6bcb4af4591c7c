package org.apache.spark.sql.superspark

import org.apache.parquet.schema.MessageType
import org.apache.spark.sql.catalyst.util.RebaseDateTime.RebaseSpec
import org.apache.spark.sql.execution.datasources.parquet.{ParquetFilters, ParquetOptions}
import org.apache.spark.sql.types.StructType

/** The members of `SparkLineShims` that Spark 4.0, 4.1 and 4.2 share (docs/spark-lines.md). */
trait SparkLine40To42Shims {
  /** No pruning by the required schema before 4.3. */
  def parquetFilters(schema: MessageType, pushDownDate: Boolean, pushDownTimestamp: Boolean,
      pushDownDecimal: Boolean, pushDownStringPredicate: Boolean, pushDownInFilterThreshold: Int,
      caseSensitive: Boolean, datetimeRebaseSpec: RebaseSpec, requiredSchema: StructType): ParquetFilters =
    new ParquetFilters(schema, pushDownDate, pushDownTimestamp, pushDownDecimal, pushDownStringPredicate,
      pushDownInFilterThreshold, caseSensitive, datetimeRebaseSpec)

  /** Archive inputs are new in 4.3. */
  def archiveFormatEnabled(options: ParquetOptions): Boolean = false

  /**
   * Whether Spark's vectorized reader decodes FIXED_LEN_BYTE_ARRAY pages of every encoding
   * (FLOAT16 columns are read as those bytes, [[io.superspark.parquet.logicaltypes.Float16Columns]]).
   * Before 4.3 it refuses BYTE_STREAM_SPLIT FIXED_LEN_BYTE_ARRAY pages ("Unsupported encoding"),
   * so FLOAT16 columns, which may be written so, are read by the row reader.
   */
  val vectorizedFloat16: Boolean = false
}
