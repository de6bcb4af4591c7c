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
    }
    val built = sets.map { case (name, files) => name -> new Set(files) }
    // CPU time of this thread: the shared machine's load does not count.
    val cpu = java.lang.management.ManagementFactory.getThreadMXBean
    def time(f: () => Long): Double = { val t0 = cpu.getCurrentThreadCpuTime; f(); (cpu.getCurrentThreadCpuTime - t0) / 1e6 }
    built.foreach { case (_, s) => s.read(); s.infer() }
    val times = scala.collection.mutable.Map[(String, String), Seq[Double]]().withDefaultValue(Seq.empty)
    for (_ <- 0 until rounds; (name, s) <- built) {
      times((name, "infer")) :+= time(() => s.infer())
      times((name, "read")) :+= time(() => s.read())
    }
    def median(k: (String, String)): Double = { val t = times(k).sorted; t(t.size / 2) }
    for ((name, s) <- built; what <- Seq("infer", "read")) {
      val t = times((name, what)).sorted
      println(f"$name%-8s $what%-6s median ${median((name, what))}%8.1f ms  min ${t.head}%8.1f ms CPU  ($rounds rounds, rows ${s.read()}%,d)")
    }
    if (built.size == 2) for (what <- Seq("infer", "read")) {
      println(f"ratio=${built(1)._1}/${built(0)._1} $what CPU time ${median((built(1)._1, what)) / median((built(0)._1, what))}%.3f")
    }
  }
}
