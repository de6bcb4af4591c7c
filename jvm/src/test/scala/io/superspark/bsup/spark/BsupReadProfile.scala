package io.superspark.bsup.spark

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.Path
import org.apache.spark.paths.SparkPath
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.UnsafeProjection
import org.apache.spark.sql.execution.datasources.PartitionedFile
import org.apache.spark.sql.types.StructType

/**
 * A single-threaded driver for profiling the `bsup` full scan without Spark's scheduling:
 * schema inference, the row reader (each row turned into an UnsafeRow, as Spark does) and the
 * columnar reader (its batches, all columns and two), timed separately, over the `.bsup` files
 * given. Run it under JFR to see where the time goes:
 *
 * {{{
 *   ./dev/sbt "Test/runMain io.superspark.bsup.spark.BsupReadProfile 20 bench/out/bsup/bsup/part-*.bsup"
 *   ./dev/sbt "Test/runMain io.superspark.bsup.spark.BsupReadProfile 20 bench/out/bsup/bsup bench/out/bsup/bsup5"
 * }}}
 */
object BsupReadProfile {
  def main(args: Array[String]): Unit = {
    val rounds = args(0).toInt
    // Files (one set), or directories (a set each, of their .bsup files): the sets' rounds
    // alternate in this JVM, as the bench's formats do in its one.
    val sets: Seq[(String, Seq[java.io.File])] = {
      val paths = args.drop(1).toSeq.map(new java.io.File(_))
      if (paths.forall(_.isDirectory)) paths.map(d => d.getName -> d.listFiles().filter(_.getName.endsWith(".bsup")).sorted.toSeq)
      else Seq("files" -> paths)
    }
    val conf = new Configuration()
    val opts = new BsupOptions(Map.empty[String, String], "_corrupt_record")
    final class Set(files: Seq[java.io.File]) {
      val withLength = files.map { f =>
        val p = new Path(f.getAbsolutePath); (p, p.getFileSystem(conf).getFileStatus(p).getLen)
      }
      val schema = BsupInference.inferSchema(withLength, conf, opts).get
      val proj = UnsafeProjection.create(schema)
      def infer(): Long = { BsupInference.inferSchema(withLength, conf, opts); 0L }
      private def file(p: Path, len: Long) =
        PartitionedFile(InternalRow.empty, SparkPath.fromPath(p), 0L, len, Array.empty[String], 0L, len)
      def read(): Long = {
        var n = 0L
        withLength.foreach { case (p, len) =>
          val it = new BsupRowIterator(file(p, len), conf, schema, opts)
          while (it.hasNext) { proj(it.next()); n += 1 }
          it.close()
        }
        n
      }
      // The columnar reader's batches of `cols` (all columns when empty); with `rows`, each row
      // then turned into an UnsafeRow, as Spark's ColumnarToRow does before a row consumer.
      private def batches(cols: Seq[String], rows: Boolean): Long = {
        val required = if (cols.isEmpty) schema else StructType(cols.map(schema(_)))
        val toRow = UnsafeProjection.create(required)
        var n = 0L
        withLength.foreach { case (p, len) =>
          val it = new BsupBatchReader(file(p, len), conf, required, new StructType(), opts, None, BsupBatchReader.Capacity)
          while (it.hasNext) {
            val b = it.next()
            if (rows) { val r = b.rowIterator(); while (r.hasNext) toRow(r.next()) }
            n += b.numRows()
          }
          it.close()
        }
        n
      }
      def batch(): Long = batches(Nil, rows = false)
      def batch2(): Long = batches(Seq("id", "s"), rows = false)
      def batchRows(): Long = batches(Nil, rows = true)
      def batch2Rows(): Long = batches(Seq("id", "s"), rows = true)
    }
    val built = sets.map { case (name, files) => name -> new Set(files) }
    // CPU time of this thread: the shared machine's load does not count.
    val cpu = java.lang.management.ManagementFactory.getThreadMXBean
    def time(f: () => Long): Double = { val t0 = cpu.getCurrentThreadCpuTime; f(); (cpu.getCurrentThreadCpuTime - t0) / 1e6 }
    // What is timed: schema inference, the row reader, the columnar reader (all columns; `id`
    // and `s`, as the bench's 2-column scan), each also with its rows made UnsafeRows.
    // PROFILE_ONLY=batch2 (say) times one of them.
    val all = Seq[(String, Set => Long)]("infer" -> (_.infer()), "read" -> (_.read()), "batch" -> (_.batch()),
      "batch2" -> (_.batch2()), "batchrows" -> (_.batchRows()), "batch2rows" -> (_.batch2Rows()))
    val whats = sys.env.get("PROFILE_ONLY").map(o => all.filter(_._1 == o)).getOrElse(all)
    built.foreach { case (_, s) => whats.foreach(_._2(s)) }
    val times = scala.collection.mutable.Map[(String, String), Seq[Double]]().withDefaultValue(Seq.empty)
    for (_ <- 0 until rounds; (name, s) <- built; (what, f) <- whats) {
      times((name, what)) :+= time(() => f(s))
    }
    def median(k: (String, String)): Double = { val t = times(k).sorted; t(t.size / 2) }
    for ((name, s) <- built; what <- whats.map(_._1)) {
      val t = times((name, what)).sorted
      println(f"$name%-8s $what%-6s median ${median((name, what))}%8.1f ms  min ${t.head}%8.1f ms CPU  ($rounds rounds, rows ${s.read()}%,d)")
    }
    if (built.size == 2) for (what <- whats.map(_._1)) {
      println(f"ratio=${built(1)._1}/${built(0)._1} $what CPU time ${median((built(1)._1, what)) / median((built(0)._1, what))}%.3f")
    }
  }
}
