package io.superspark.parquet.footer.writers

import org.apache.hadoop.fs.Path

import io.superspark.SparkSessionSuite

/** [[EveryWriter.record]] tells the task metrics and the write command's SQL metrics apart. */
class EveryWriterRecordSuite extends SparkSessionSuite {
  test("a failing task-metrics sink does not cost the write command its SQL count") {
    val sc = spark.sparkContext
    EveryWriter.onRecord(_ => throw new IllegalStateException("task metrics broke"))
    val (_, counts) = try {
      EveryWriterQueryMetrics.counting(sc) {
        sc.parallelize(0 until 3, 3).foreach { i =>
          EveryWriter.record(new Path(s"/t/part-$i.parquet"), EveryWriter.Extended(0, Array.emptyByteArray))
        }
      }
    } finally EveryWriter.onRecord(_ => ())
    assert(counts == Map("extended" -> 3L))
  }
}
