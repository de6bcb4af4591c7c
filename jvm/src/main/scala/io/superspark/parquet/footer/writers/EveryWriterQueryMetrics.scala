package io.superspark.parquet.footer.writers

import java.io.{ByteArrayInputStream, ByteArrayOutputStream, ObjectInputStream, ObjectOutputStream, ObjectStreamClass}
import java.util.Base64
import java.util.concurrent.ConcurrentHashMap

import scala.collection.mutable

import org.apache.spark.{SparkContext, TaskContext}
import org.apache.spark.rdd.RDD
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Attribute, SortOrder}
import org.apache.spark.sql.catalyst.plans.physical.Partitioning
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.execution.{ColumnarRule, SQLExecution, SparkPlan, UnaryExecNode}
import org.apache.spark.sql.execution.command.{DataWritingCommandExec, ExecutedCommandExec, RunnableCommand}
import org.apache.spark.sql.execution.datasources.v2.{SupportsV1Write, V2CommandExec, V2TableWriteExec}
import org.apache.spark.sql.execution.metric.{SQLMetric, SQLMetrics}
import org.apache.spark.sql.vectorized.ColumnarBatch
import org.apache.spark.util.AccumulatorV2

/**
 * The every-writer counts as SQL metrics of each write's plan (docs/every-writer.md, "Write
 * metrics"): with the setting on, a write command's physical plan gets an `EveryWriterFooter`
 * node on top ([[EveryWriterWriteExec]]), whose SQL metrics are its files by outcome.
 *
 * How the tasks reach them: while the command runs, its thread carries a local property naming
 * an accumulator of its own ([[OutcomeCounts]], serialized as a task would receive it). Jobs
 * inherit the thread's local properties, nested SQL executions (Delta's
 * `deltaTransactionalWrite`) and the threads the command starts included, so each task that
 * creates or closes a file through a wrapped file system adds the outcome to its copy, which
 * goes to the driver with the task's result. When the command returns, the node sets its SQL
 * metrics from the accumulator and posts them to its SQL execution, as Spark's own write
 * statistics do.
 */
private[superspark] object EveryWriterQueryMetrics {
  /** The local property: the running write commands' accumulators, base64, comma-separated (outermost first). */
  val PropertyKey = "superspark.everyWriter.queryCounts"

  /** The node's name in the SQL tab and the plan. */
  val NodeName = "EveryWriterFooter"

  /** Each counter's SQL metric description. */
  val Descriptions: Seq[(String, String)] = Seq(
    "extended" -> "files with the footer added",
    EveryWriter.Reasons.AlreadyExtended -> "files left alone: already extended",
    EveryWriter.Reasons.Encrypted -> "files left alone: encrypted",
    EveryWriter.Reasons.NotParquetTail -> "files left alone: not a Parquet tail",
    EveryWriter.Reasons.TailOverLimit -> "files left alone: tail over the limit",
    EveryWriter.Reasons.Flushed -> "files left alone: flushed",
    EveryWriter.Reasons.SizeRecordedByWriter -> "files left alone: size recorded by the writer",
    EveryWriter.Reasons.Unrepresentable -> "files left alone: unrepresentable",
    EveryWriter.Reasons.DeltaLog -> "files left alone: Delta log",
    EveryWriter.Reasons.NotParquetName -> "files left alone: not *.parquet")
  require(Descriptions.map(_._1).sorted == EveryWriter.fileCounterNames.sorted)

  def createMetrics(sc: SparkContext): Map[String, SQLMetric] =
    Descriptions.map { case (name, d) => name -> SQLMetrics.createMetric(sc, d) }.toMap

  /** Commands that write files through `FileFormatWriter` or a DSv2 writer: the nodes that get the counts. */
  def writes(plan: SparkPlan): Boolean = plan match {
    case _: DataWritingCommandExec | _: V2TableWriteExec | _: SupportsV1Write => true
    case e: ExecutedCommandExec => writingCommand(e.cmd)
    // DSv2 CREATE/REPLACE TABLE AS SELECT, atomic or not (their trait is private to Spark's v2 package)
    case v: V2CommandExec => v.getClass.getName.startsWith(V2Package) && v.getClass.getSimpleName.endsWith("TableAsSelectExec")
    case _ => false
  }

  private val V2Package = classOf[V2TableWriteExec].getPackage.getName + "."

  // Runnable commands that write data files, by class name (Hive's and Delta's are not on the compile class path).
  private val WritingCommands = Set("SaveIntoDataSourceCommand", "InsertIntoDataSourceCommand", "InsertIntoDataSourceDirCommand",
    "CreateDataSourceTableAsSelectCommand", "CreateHiveTableAsSelectCommand", "OptimizedCreateHiveTableAsSelectCommand",
    "InsertIntoHiveDirCommand")
  private val DeltaWritingCommands = Set("WriteIntoDelta", "MergeIntoCommand", "UpdateCommand", "DeleteCommand",
    "OptimizeTableCommand", "CreateDeltaTableCommand", "DeltaReorgTableCommand", "CloneTableCommand",
    "DeltaInsertReplaceOnOrUsingCommand")

  private def writingCommand(cmd: RunnableCommand): Boolean = {
    val name = cmd.getClass.getName
    val simple = name.substring(name.lastIndexOf('.') + 1)
    WritingCommands(simple) || (name.startsWith("org.apache.spark.sql.delta.") && DeltaWritingCommands(simple))
  }

  /** Runs `body` (the command) with its own accumulator in the thread's local property; its counts after. */
  def counting[T](sc: SparkContext)(body: => T): (T, Map[String, Long]) = {
    val acc = new OutcomeCounts
    sc.register(acc) // unnamed: the stage page shows the everyWriter.* accumulators instead
    val before = sc.getLocalProperty(PropertyKey)
    val mine = Base64.getEncoder.encodeToString(TaskCopies.serialize(acc))
    sc.setLocalProperty(PropertyKey, if (before == null) mine else s"$before,$mine")
    val result = try body finally sc.setLocalProperty(PropertyKey, before)
    (result, acc.value)
  }

  /**
   * In the task's thread: adds `name` to each running write command's accumulator the task
   * carries; in a task of a micro-batch without one, to the batch's [[EveryWriterStreamExec]] metrics.
   */
  def add(name: String): Unit = {
    val tc = TaskContext.get()
    if (tc != null) {
      val prop = tc.getLocalProperty(PropertyKey)
      if (prop != null && prop.nonEmpty) prop.split(',').foreach { b =>
        TaskCopies.of[OutcomeCounts](tc, b, Base64.getDecoder.decode(b)).add(name)
      }
      else TaskCopies.registered[Map[String, SQLMetric]](tc, StreamMetricsKey).flatMap(_.get(name)).foreach(_.add(1L))
    }
  }

  /** The local property Structured Streaming's micro-batch engine sets on its thread while it plans and runs a batch (`MicroBatchExecution.BATCH_ID_KEY`). */
  private val BatchIdKey = "streaming.sql.batchId"

  /**
   * A micro-batch's plan: planned on a stream's thread while it runs a batch, over streaming
   * relations (the batch's data). Not the queries a batch's sink plans of its own (Delta's log
   * reads) nor a `foreachBatch` function's (the batch as a non-streaming Dataset).
   */
  def microBatch(sc: SparkContext, plan: SparkPlan): Boolean =
    sc.getLocalProperty(BatchIdKey) != null && plan.exists(_.logicalLink.exists(_.isStreaming))

  /**
   * `plan`, a micro-batch's, with [[EveryWriterStreamExec]] over the part its writing tasks run:
   * on top, or beneath a DSv2 write at the root (the engine reads the batch's commit progress
   * from that node).
   */
  def countStream(plan: SparkPlan): SparkPlan = plan match {
    case _: EveryWriterStreamExec => plan
    case w: V2TableWriteExec if w.child.isInstanceOf[EveryWriterStreamExec] => plan
    case w: V2TableWriteExec => w.withNewChildren(Seq(EveryWriterStreamExec(w.child)))
    case _ => EveryWriterStreamExec(plan)
  }

  private val StreamMetricsKey = "stream"

  /** In a task computing a micro-batch's plan: its files count in `metrics` (unless a write command's accumulator counts them, [[add]]). */
  private[writers] def streamTask(metrics: Map[String, SQLMetric]): Unit = {
    val tc = TaskContext.get()
    if (tc != null) TaskCopies.register(tc, StreamMetricsKey, metrics)
  }
}

/** Files by outcome name: one accumulator per running write command ([[EveryWriterQueryMetrics]]). */
private[superspark] final class OutcomeCounts extends AccumulatorV2[String, Map[String, Long]] {
  private val counts = mutable.HashMap.empty[String, Long]
  override def isZero: Boolean = synchronized(counts.isEmpty)
  override def copy(): OutcomeCounts = { val c = new OutcomeCounts; c.merge(this); c }
  override def reset(): Unit = synchronized(counts.clear())
  override def add(name: String): Unit = synchronized(counts(name) = counts.getOrElse(name, 0L) + 1)
  override def merge(other: AccumulatorV2[String, Map[String, Long]]): Unit = {
    val theirs = other.value
    synchronized(theirs.foreach { case (k, v) => counts(k) = counts.getOrElse(k, 0L) + v })
  }
  override def value: Map[String, Long] = synchronized(counts.toMap)
}

/**
 * A task's copies of driver accumulators: each deserialized once per task, in the task's thread,
 * from the bytes the driver serialized, which registers it with the task exactly as an
 * accumulator of a task's closure is; its value goes to the driver with the task's result. Also
 * copies the task got in its closure (a micro-batch's SQL metrics), kept for the files it writes.
 * Each task's copies are dropped when it completes.
 */
private[writers] object TaskCopies {
  private val tasks = new ConcurrentHashMap[java.lang.Long, ConcurrentHashMap[String, AnyRef]]()

  def of[T <: AnyRef](tc: TaskContext, key: String, bytes: => Array[Byte]): T =
    copiesOf(tc).computeIfAbsent(key, _ => deserialize(bytes)).asInstanceOf[T]

  /** Keeps `value`, a copy the task already holds (an accumulator of its closure), under `key` while the task runs; the first one kept stays. */
  def register(tc: TaskContext, key: String, value: AnyRef): Unit = copiesOf(tc).putIfAbsent(key, value)

  /** The copy kept under `key` for the task, if any. */
  def registered[T <: AnyRef](tc: TaskContext, key: String): Option[T] =
    Option(tasks.get(java.lang.Long.valueOf(tc.taskAttemptId()))).flatMap(c => Option(c.get(key))).map(_.asInstanceOf[T])

  private def copiesOf(tc: TaskContext): ConcurrentHashMap[String, AnyRef] = {
    val id = java.lang.Long.valueOf(tc.taskAttemptId())
    var copies = tasks.get(id)
    if (copies == null) {
      copies = new ConcurrentHashMap[String, AnyRef]()
      val before = tasks.putIfAbsent(id, copies)
      if (before != null) copies = before
      else tc.addTaskCompletionListener[Unit](_ => tasks.remove(id))
    }
    copies
  }

  /** `a` as a task would receive it (`AccumulatorV2.writeReplace`: a zero copy carrying the driver's id and name). */
  def serialize(a: AccumulatorV2[_, _]): Array[Byte] = {
    val bytes = new ByteArrayOutputStream()
    val out = new ObjectOutputStream(bytes)
    out.writeObject(a)
    out.close()
    bytes.toByteArray
  }

  private def deserialize(bytes: Array[Byte]): AnyRef = {
    val loader = getClass.getClassLoader
    val in = new ObjectInputStream(new ByteArrayInputStream(bytes)) {
      override def resolveClass(desc: ObjectStreamClass): Class[_] = Class.forName(desc.getName, false, loader)
    }
    try in.readObject() finally in.close()
  }
}

/**
 * A write command with the every-writer counts of the files it wrote as SQL metrics
 * ([[EveryWriterQueryMetrics]]). Runs the command as it is; only the counts are added.
 */
private[superspark] case class EveryWriterWriteExec(child: SparkPlan) extends UnaryExecNode {
  override def nodeName: String = EveryWriterQueryMetrics.NodeName
  override def output: Seq[Attribute] = child.output
  override def outputPartitioning: Partitioning = child.outputPartitioning
  override def outputOrdering: Seq[SortOrder] = child.outputOrdering
  override lazy val metrics: Map[String, SQLMetric] = EveryWriterQueryMetrics.createMetrics(sparkContext)

  private def counted[T](body: => T): T = {
    val sc = sparkContext
    val (result, counts) = EveryWriterQueryMetrics.counting(sc)(body)
    metrics.foreach { case (name, m) => m.set(counts.getOrElse(name, 0L)) }
    SQLMetrics.postDriverMetricUpdates(sc, sc.getLocalProperty(SQLExecution.EXECUTION_ID_KEY), metrics.values.toSeq)
    result
  }

  // A command runs when it is first executed; each way in counts it.
  override def executeCollect(): Array[InternalRow] = counted(child.executeCollect())
  override def executeTake(n: Int): Array[InternalRow] = counted(child.executeTake(n))
  override def executeTail(n: Int): Array[InternalRow] = counted(child.executeTail(n))
  override def executeToIterator(): Iterator[InternalRow] = counted(child.executeToIterator())
  override protected def doExecute(): RDD[InternalRow] = counted(child.execute())
  override protected def withNewChildInternal(newChild: SparkPlan): EveryWriterWriteExec = copy(child = newChild)
}

/**
 * A Structured Streaming micro-batch's plan with the every-writer counts of the files its tasks
 * write as SQL metrics ([[EveryWriterQueryMetrics]]). A micro-batch has no write command: its
 * sink (the file sink, Delta's) runs the batch's plan in its own write job, in the batch's SQL
 * execution, after the plan's `execute()` has returned. So the tasks count: each task that
 * computes this node hands its copies of the node's metrics to the files it writes, and Spark
 * sends their values to the driver with the task's result, as for any SQL metric.
 */
private[superspark] case class EveryWriterStreamExec(child: SparkPlan) extends UnaryExecNode {
  override def nodeName: String = EveryWriterQueryMetrics.NodeName
  override def output: Seq[Attribute] = child.output
  override def outputPartitioning: Partitioning = child.outputPartitioning
  override def outputOrdering: Seq[SortOrder] = child.outputOrdering
  override def supportsColumnar: Boolean = child.supportsColumnar
  override lazy val metrics: Map[String, SQLMetric] = EveryWriterQueryMetrics.createMetrics(sparkContext)

  override protected def doExecute(): RDD[InternalRow] = {
    val m = metrics
    child.execute().mapPartitions({ rows => EveryWriterQueryMetrics.streamTask(m); rows }, preservesPartitioning = true)
  }
  override protected def doExecuteColumnar(): RDD[ColumnarBatch] = {
    val m = metrics
    child.executeColumnar().mapPartitions({ batches => EveryWriterQueryMetrics.streamTask(m); batches }, preservesPartitioning = true)
  }
  override protected def withNewChildInternal(newChild: SparkPlan): EveryWriterStreamExec = copy(child = newChild)
}

/**
 * Physical rule (after columnar transitions, so on the plan's root and on the final plan of an
 * adaptive write), when the application runs with `spark.superspark.parquet.footer.everyWriter`:
 * a write command at the root gets [[EveryWriterWriteExec]], a Structured Streaming micro-batch's
 * plan [[EveryWriterStreamExec]].
 */
private[superspark] case class CountEveryWriterWrites(session: SparkSession) extends Rule[SparkPlan] {
  override def apply(plan: SparkPlan): SparkPlan = plan match {
    case _: EveryWriterWriteExec | _: EveryWriterStreamExec => plan
    case _ if !EveryWriterSetup.enabled(session.sparkContext) => plan
    case p if EveryWriterQueryMetrics.microBatch(session.sparkContext, p) => EveryWriterQueryMetrics.countStream(p)
    case p if EveryWriterQueryMetrics.writes(p) => EveryWriterWriteExec(p)
    case _ => plan
  }
}

/** [[CountEveryWriterWrites]] as the extension's columnar rule. */
private[superspark] case class EveryWriterColumnarRule(session: SparkSession) extends ColumnarRule {
  override def postColumnarTransitions: Rule[SparkPlan] = CountEveryWriterWrites(session)
}
