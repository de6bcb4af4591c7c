package io.superspark.parquet.footer.writers

import java.util.{Base64, Map => JMap}

import scala.jdk.CollectionConverters._

import com.codahale.metrics.Gauge
import org.apache.spark.{SparkContext, TaskContext}
import org.apache.spark.api.plugin.{DriverPlugin, ExecutorPlugin, PluginContext, SparkPlugin}
import org.apache.spark.scheduler.{SparkListener, SparkListenerTaskEnd}
import org.apache.spark.util.LongAccumulator

/**
 * The application's [[EveryWriter]] counts on a cluster (`spark.plugins`; `superspark.session`
 * adds it when `spark.superspark.parquet.footer.everyWriter` is on).
 *
 *  - Each executor JVM sends what its counters gained to the driver as its tasks end, before the
 *    task reports to the scheduler (an `ask`), so the driver's [[EveryWriter.applicationCounts]]
 *    hold every file of a job once the job has ended. An executor inside the driver JVM (local
 *    mode) sends nothing: its counters are the driver's.
 *  - Write metrics: a named accumulator per file counter (`everyWriter.extended`,
 *    `everyWriter.tailOverLimit`, ...), registered on the driver. A task that creates or closes
 *    a file adds its outcome to the task's copy, so the Spark UI shows each task's files on its
 *    stage page (and listeners get them in `taskInfo.accumulables`); [[EveryWriterPlugin.StageCounts]]
 *    sums them per stage. Files written outside a task (the driver's own writers) are in the
 *    counts only.
 *  - Executors publish their counters as gauges in Spark's metrics system
 *    (`plugin.io.superspark.parquet.footer.writers.EveryWriterPlugin.everyWriter.<counter>`).
 */
class EveryWriterPlugin extends SparkPlugin {
  override def driverPlugin(): DriverPlugin = new DriverPlugin {
    // AccumulatorContext holds accumulators weakly: these references keep them for the application.
    private var accumulators = Seq.empty[(String, LongAccumulator)]

    override def init(sc: SparkContext, ctx: PluginContext): JMap[String, String] = {
      accumulators = EveryWriter.fileCounterNames.map(n => n -> sc.longAccumulator(EveryWriterPlugin.AccumulatorPrefix + n))
      val stages = new EveryWriterPlugin.StageCounts(accumulators.map { case (n, a) => a.id -> n }.toMap)
      sc.addSparkListener(stages)
      EveryWriterPlugin.driverStages = Some(stages)
      // to every executor plugin's init (extraConf): each accumulator as a task would receive it
      accumulators.map { case (n, a) => n -> Base64.getEncoder.encodeToString(TaskCopies.serialize(a)) }.toMap.asJava
    }

    override def receive(message: Any): AnyRef = message match {
      case EveryWriterPlugin.Gained(counts) => EveryWriter.addRemote(counts); java.lang.Boolean.TRUE
      case other => throw new IllegalArgumentException(s"EveryWriterPlugin: unexpected message $other")
    }

    override def shutdown(): Unit = EveryWriterPlugin.driverStages = None
  }

  override def executorPlugin(): ExecutorPlugin = new ExecutorPlugin {
    private var ctx: PluginContext = _
    private var remote = false

    override def init(ctx: PluginContext, extraConf: JMap[String, String]): Unit = {
      this.ctx = ctx
      remote = ctx.executorID != "driver" // SparkContext.DRIVER_IDENTIFIER (private[spark])
      EveryWriter.counterNames.foreach { name =>
        ctx.metricRegistry.register(s"everyWriter.$name", new Gauge[Long] {
          override def getValue: Long = EveryWriter.count(name)
        })
      }
      val serialized = extraConf.asScala.collect {
        case (k, v) if EveryWriter.fileCounterNames.contains(k) => k -> Base64.getDecoder.decode(v)
      }.toMap
      if (serialized.nonEmpty) EveryWriter.onRecord(new EveryWriterPlugin.TaskMetrics(serialized).add)
    }

    private def send(): Unit = if (remote) {
      val gained = EveryWriter.takeGained()
      if (gained.nonEmpty) ctx.ask(EveryWriterPlugin.Gained(gained))
    }

    override def onTaskSucceeded(): Unit = send()
    override def onTaskFailed(reason: org.apache.spark.TaskFailedReason): Unit = send()
    override def shutdown(): Unit = {
      EveryWriter.onRecord(_ => ())
      try send() catch { case _: Exception => () } // the driver may be gone
    }
  }
}

object EveryWriterPlugin {
  /** What one executor's counters gained since it last sent (`heldBytesPeak`: its peak, not a gain). */
  final case class Gained(counts: Map[String, Long])

  /** The write metrics' names: this, then the counter's name. */
  val AccumulatorPrefix = "everyWriter."

  /** The running application's per-stage sums of the write metrics (on the driver, while the plugin runs). */
  @volatile private[writers] var driverStages: Option[StageCounts] = None

  /**
   * On an executor: each task's copies of the write metrics, deserialized in the task's thread
   * from the bytes the driver sent ([[TaskCopies]]).
   */
  private final class TaskMetrics(serialized: Map[String, Array[Byte]]) {
    def add(name: String): Unit = {
      val tc = TaskContext.get()
      if (tc != null) serialized.get(name).foreach(bytes => TaskCopies.of[LongAccumulator](tc, AccumulatorPrefix + name, bytes).add(1))
    }
  }

  /**
   * The write metrics summed per stage attempt, from the tasks' updates (the most recent
   * `MaxStages` stages that wrote files).
   */
  final class StageCounts(ids: Map[Long, String]) extends SparkListener {
    private val MaxStages = 1000
    private val stages = new java.util.LinkedHashMap[(Int, Int), Map[String, Long]]() {
      override def removeEldestEntry(e: JMap.Entry[(Int, Int), Map[String, Long]]): Boolean = size() > MaxStages
    }

    override def onTaskEnd(end: SparkListenerTaskEnd): Unit = if (end.taskInfo != null) {
      val updates = end.taskInfo.accumulables.flatMap(a => ids.get(a.id).zip(a.update.collect { case n: java.lang.Long => n.longValue }))
      if (updates.nonEmpty) stages.synchronized {
        val key = (end.stageId, end.stageAttemptId)
        val before = Option(stages.get(key)).getOrElse(Map.empty[String, Long])
        stages.put(key, updates.foldLeft(before) { case (m, (n, v)) => m.updated(n, m.getOrElse(n, 0L) + v) })
      }
    }

    /** (stage id, attempt, counts) in the order the stages first wrote. */
    def snapshot: Seq[(Int, Int, Map[String, Long])] = stages.synchronized {
      stages.asScala.toSeq.map { case ((s, a), m) => (s, a, m) }
    }
  }
}
