package io.superspark.bsup.functions

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{BoundReference, GenericInternalRow, UnsafeProjection}
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String

/**
 * A single-threaded driver for profiling `sb_decode` without Spark's scheduling: the bench's
 * records (bench/sb_functions: 7 mixed fields) encoded by `sb_encode`, then decoded and
 * turned into UnsafeRows as a projection does, timed in this thread's CPU time. Run it under
 * JFR to see where the time goes. With spark-avro on the class path (`java -cp` with the test
 * class path and bench/out/jars/spark-avro_*.jar) it times `from_avro` on the same records too:
 *
 * {{{
 *   ./dev/sbt "Test/runMain io.superspark.bsup.functions.SbDecodeProfile 1000000 10 [version]"
 * }}}
 */
object SbDecodeProfile {
  val schema: StructType = StructType(Seq(
    StructField("id", LongType), StructField("i", IntegerType), StructField("s", StringType),
    StructField("d", DoubleType), StructField("b", BooleanType), StructField("ts", TimestampType),
    StructField("t", StringType)))

  /** The bench's record for `id`. */
  def record(id: Long): InternalRow = new GenericInternalRow(Array[Any](
    id, (id % 1000).toInt, UTF8String.fromString(s"user-${id * 7919 % 100003}"), id / 3.0, id % 2 == 0,
    (1700000000L + id) * 1000000L, UTF8String.fromString(s"tag${id % 13}")))

  def cells(rows: Int, version: Int): Array[Array[Byte]] = {
    val enc = SbEncode(BoundReference(0, schema, nullable = true), version = version)
    Array.tabulate(rows)(i => enc.eval(InternalRow(record(i.toLong))).asInstanceOf[Array[Byte]])
  }

  def main(args: Array[String]): Unit = {
    val rows = args(0).toInt
    val rounds = args(1).toInt
    val version = if (args.length > 2) args(2).toInt else 0
    val input = cells(rows, version)
    val dec = SbDecode(BoundReference(0, BinaryType, nullable = true), schema, Map.empty, all = false,
      failFast = true, "sb_decode")
    report(s"sb_decode v$version", rows, rounds, () => round(input, UnsafeProjection.create(Seq(dec))))
    // from_avro on the same records, when spark-avro is on the class path (java -cp ... with
    // bench/out/jars/spark-avro_*.jar): reached by reflection, as the build does not depend on it.
    avro(rows).foreach { case (avroIn, from) =>
      report("from_avro", rows, rounds, () => round(avroIn, UnsafeProjection.create(Seq(from))))
    }
  }

  /** One pass over `cells` through `proj` (each result's struct read, as a consumer would); CPU ms. */
  private def round(cells: Array[Array[Byte]], proj: UnsafeProjection): Double = {
    val cpu = java.lang.management.ManagementFactory.getThreadMXBean
    val in = new GenericInternalRow(1)
    val t0 = cpu.getCurrentThreadCpuTime
    var i = 0
    var h = 0L
    while (i < cells.length) { in.update(0, cells(i)); h += proj(in).getStruct(0, 7).getLong(0); i += 1 }
    require(h == cells.length.toLong * (cells.length - 1) / 2)
    (cpu.getCurrentThreadCpuTime - t0) / 1e6
  }

  private def report(what: String, rows: Int, rounds: Int, round: () => Double): Unit = {
    round()
    val t = Seq.fill(rounds)(round()).sorted
    println(f"$what%-14s median ${t(t.size / 2)}%7.1f ms  min ${t.head}%7.1f ms CPU for $rows%,d cells: " +
      f"${t(t.size / 2) * 1e6 / rows}%.0f ns/cell")
  }

  private def avro(rows: Int): Option[(Array[Array[Byte]], org.apache.spark.sql.catalyst.expressions.Expression)] = {
    val cls = try Some(Class.forName("org.apache.spark.sql.avro.CatalystDataToAvro"))
      catch { case _: ClassNotFoundException => None }
    cls.map { toCls =>
      type E = org.apache.spark.sql.catalyst.expressions.Expression
      val to = toCls.getConstructors.head.newInstance(BoundReference(0, schema, nullable = false), None).asInstanceOf[E]
      val avroRows = Array.tabulate(rows)(i => to.eval(InternalRow(record(i.toLong))).asInstanceOf[Array[Byte]])
      val conv = Class.forName("org.apache.spark.sql.avro.SchemaConverters")
      val avroSchema = conv.getMethod("toAvroType", classOf[DataType], classOf[Boolean], classOf[String], classOf[String])
        .invoke(null, schema, java.lang.Boolean.FALSE, "topLevelRecord", "").toString
      val fromCls = Class.forName("org.apache.spark.sql.avro.AvroDataToCatalyst")
      val from = fromCls.getConstructors.head.newInstance(BoundReference(0, BinaryType, nullable = true), avroSchema,
        Map.empty[String, String]).asInstanceOf[E]
      (avroRows, from)
    }
  }
}
