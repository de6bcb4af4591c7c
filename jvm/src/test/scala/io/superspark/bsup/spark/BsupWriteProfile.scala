package io.superspark.bsup.spark

import io.superspark.bsup.BsupWriter
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{GenericInternalRow, UnsafeProjection, UnsafeRow}
import org.apache.spark.sql.catalyst.util.GenericArrayData
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String

/**
 * A single-threaded driver for profiling the `bsup` write path without Spark's scheduling:
 * the bench's rows (`bench/bsup/bench.py`'s DataFrame, with its nullability in Spark 4.3:
 * `id`, `ts`, `nested` and `arr` not null, the rest nullable) as UnsafeRows, written by the data source's row writer ([[BsupOutputWriter]]'s
 * `StructWriter` and `BsupWriter`, lz4) to a byte-counting sink. Run it under JFR:
 *
 * {{{
 *   ./dev/sbt "Test/runMain io.superspark.bsup.spark.BsupWriteProfile 20 5"     # rounds, version
 *   ./dev/sbt "Test/runMain io.superspark.bsup.spark.BsupWriteProfile 20 0,5"   # versions alternating
 * }}}
 */
object BsupWriteProfile {
  val schema: StructType = StructType(Seq(
    StructField("id", LongType, nullable = false),
    StructField("i", IntegerType, nullable = true),
    StructField("s", StringType, nullable = true),
    StructField("ts", TimestampType, nullable = false),
    StructField("d", DoubleType, nullable = true),
    StructField("nested", StructType(Seq(
      StructField("a", IntegerType, nullable = true), StructField("b", StringType, nullable = true))), nullable = false),
    StructField("arr", ArrayType(IntegerType, containsNull = true), nullable = false)))

  /** Row `id` of the bench's DataFrame, as an UnsafeRow (copied). */
  def rows(n: Int): Array[UnsafeRow] = {
    val proj = UnsafeProjection.create(schema)
    Array.tabulate(n) { k =>
      val id = k.toLong
      proj(new GenericInternalRow(Array[Any](
        id, (id % 1000).toInt, UTF8String.fromString(s"user-${id * 7919 % 100003}"),
        (1700000000L + id) * 1000000L, id / 3.0,
        new GenericInternalRow(Array[Any]((id % 7).toInt, UTF8String.fromString(s"n${id % 13}"))),
        new GenericArrayData(Array[Any]((id % 5).toInt, (id % 11).toInt, (id % 17).toInt))))).copy()
    }
  }

  def main(args: Array[String]): Unit = {
    val rounds = args(0).toInt
    // One version, or several ("0,5"): their rounds alternate in this JVM, as in the bench's.
    val versions = args(1).split(",").toSeq
    val data = rows(1000000)
    var bytes = 0L
    def write(version: String): Long = {
      val opts = new BsupOptions(Map("compression" -> "lz4", "version" -> version), "_corrupt_record")
      val recordType = BsupOutputWriter.recordType(schema, opts)
      val sink = new java.io.OutputStream {
        def write(b: Int): Unit = bytes += 1
        override def write(b: Array[Byte], off: Int, len: Int): Unit = bytes += len
      }
      val rowWriter = new SparkWriters.StructWriter(recordType, schema,
        WriteConf.forWrite(opts.version, opts.superdbReadable))
      val w = new BsupWriter(sink, opts.writerOptions)
      var k = 0
      while (k < data.length) {
        val buf = w.startValue(recordType)
        rowWriter.writeStruct(data(k): InternalRow, buf)
        w.finishValue()
        k += 1
      }
      w.close()
      data.length
    }
    val cpu = java.lang.management.ManagementFactory.getThreadMXBean
    versions.foreach { v =>
      println(s"version $v: ${BsupOutputWriter.recordType(schema, new BsupOptions(Map("version" -> v), "_c"))}")
      write(v)
    }
    val ts = versions.map(_ -> scala.collection.mutable.ArrayBuffer[Double]()).toMap
    val sizes = scala.collection.mutable.Map[String, Long]()
    for (_ <- 0 until rounds; v <- versions) {
      bytes = 0L
      val t0 = cpu.getCurrentThreadCpuTime; write(v); ts(v) += (cpu.getCurrentThreadCpuTime - t0) / 1e6
      sizes(v) = bytes
    }
    val medians = versions.map { v =>
      val t = ts(v).sorted
      println(f"version $v write  median ${t(t.size / 2)}%8.1f ms  min ${t.head}%8.1f ms CPU  ($rounds rounds, rows ${data.length}%,d, ${sizes(v)}%,d bytes)")
      t(t.size / 2)
    }
    if (versions.size == 2) println(f"ratio=${versions(1)}/${versions(0)} CPU time ${medians(1) / medians(0)}%.3f")
  }
}
