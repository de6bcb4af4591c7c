package io.superspark.bsup.spark

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.Path
import org.apache.spark.paths.SparkPath
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.UnsafeProjection
import org.apache.spark.sql.execution.datasources.PartitionedFile

/**
 * A single-threaded driver for profiling the `bsup` full scan without Spark's scheduling:
 * schema inference and the row reader (each row turned into an UnsafeRow, as Spark does),
 * timed separately, over the `.bsup` files given. Run it under JFR to see where the time goes:
 *
 * {{{
 *   ./dev/sbt "Test/runMain io.superspark.bsup.spark.BsupReadProfile 20 bench/out/bsup/bsup/part-*.bsup"
 * }}}
 */
object BsupReadProfile {
  def main(args: Array[String]): Unit = {
    val rounds = args(0).toInt
    val files = args.drop(1).toSeq.map(f => new Path(new java.io.File(f).getAbsolutePath))
    val conf = new Configuration()
    val opts = new BsupOptions(Map.empty[String, String], "_corrupt_record")
    val withLength = files.map(p => (p, p.getFileSystem(conf).getFileStatus(p).getLen))
    val schema = BsupInference.inferSchema(withLength, conf, opts).get
    val proj = UnsafeProjection.create(schema)
    def infer(): Long = { BsupInference.inferSchema(withLength, conf, opts); 0L }
    def read(): Long = {
      var n = 0L
      withLength.foreach { case (p, len) =>
        val file = PartitionedFile(InternalRow.empty, SparkPath.fromPath(p), 0L, len, Array.empty[String], 0L, len)
        val it = new BsupRowIterator(file, conf, schema, opts)
        while (it.hasNext) { proj(it.next()); n += 1 }
        it.close()
      }
      n
    }
    // CPU time of this thread: the shared machine's load does not count.
    val cpu = java.lang.management.ManagementFactory.getThreadMXBean
    def timed(name: String, f: () => Long): Unit = {
      val ts = (0 until rounds).map { _ =>
        val t0 = cpu.getCurrentThreadCpuTime; f(); (cpu.getCurrentThreadCpuTime - t0) / 1e6
      }.sorted
      println(f"$name%-6s median ${ts(ts.size / 2)}%8.1f ms  min ${ts.head}%8.1f ms CPU  (${rounds} rounds, rows ${read()}%,d)")
    }
    read(); infer()
    timed("infer", () => infer())
    timed("read", () => read())
  }
}
