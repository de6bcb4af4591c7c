package io.superspark.parquet.footer.writers

import java.util.{Map => JMap}

import com.codahale.metrics.Gauge
import org.apache.spark.api.plugin.{DriverPlugin, ExecutorPlugin, PluginContext, SparkPlugin}

/**
 * The application's [[EveryWriter]] counts on a cluster (`spark.plugins`; `superspark.session`
 * adds it when `spark.superspark.parquet.footer.everyWriter` is on). Each executor JVM sends what
 * its counters gained to the driver as its tasks end, before the task reports to the scheduler
 * (an `ask`), so the driver's [[EveryWriter.applicationCounts]] hold every file of a job once the
 * job has ended. An executor inside the driver JVM (local mode) sends nothing: its counters are
 * the driver's. Executors also publish their counters as gauges in Spark's metrics system
 * (`plugin.io.superspark.parquet.footer.writers.EveryWriterPlugin.everyWriter.<counter>`).
 */
class EveryWriterPlugin extends SparkPlugin {
  override def driverPlugin(): DriverPlugin = new DriverPlugin {
    override def receive(message: Any): AnyRef = message match {
      case EveryWriterPlugin.Gained(counts) => EveryWriter.addRemote(counts); java.lang.Boolean.TRUE
      case other => throw new IllegalArgumentException(s"EveryWriterPlugin: unexpected message $other")
    }
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
    }

    private def send(): Unit = if (remote) {
      val gained = EveryWriter.takeGained()
      if (gained.nonEmpty) ctx.ask(EveryWriterPlugin.Gained(gained))
    }

    override def onTaskSucceeded(): Unit = send()
    override def onTaskFailed(reason: org.apache.spark.TaskFailedReason): Unit = send()
    override def shutdown(): Unit = try send() catch { case _: Exception => () } // the driver may be gone
  }
}

object EveryWriterPlugin {
  /** What one executor's counters gained since it last sent (`heldBytesPeak`: its peak, not a gain). */
  final case class Gained(counts: Map[String, Long])
}
