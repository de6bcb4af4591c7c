package io.superspark.parquet.footer.tools

import java.util.{LinkedHashMap => JMap}
import java.util.concurrent.{Executors, TimeUnit}

import scala.jdk.CollectionConverters._

import org.apache.hadoop.fs.{Path => HPath}
import org.apache.spark.SparkException
import org.apache.spark.sql.{DataFrame, Row, SparkSession}
import org.apache.spark.sql.catalyst.FunctionIdentifier
import org.apache.spark.sql.catalyst.expressions.{Attribute, Expression, ExpressionInfo}
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.catalyst.types.DataTypeUtils
import org.apache.spark.sql.execution.command.LeafRunnableCommand
import org.apache.spark.sql.types.{DoubleType, StringType, StructField, StructType}
import org.apache.spark.util.SerializableConfiguration

/**
 * `add`, `strip` and `migrate` over a table's files as one Spark job (issue #23): the driver lists the
 * Parquet files under the table's path ([[FooterWalk]]: `_*` and `.*` skipped), each task runs the
 * same per-file rewrite as the command line ([[RewriteCommand.named]], crash-safe through [[FooterRewrite]]),
 * and the result is one row per file. Idempotent and resumable: a file already in the wanted form is
 * `already`, so a rerun after a crash rewrites only what the crashed run had not finished. A path in a
 * Delta table is refused (its files change only through a Delta commit).
 *
 * Entry points: [[run]] (`superspark.footer.migrate_table`, `add_table`, `strip_table`) and the SQL table
 * functions `superspark_footer_migrate_table(path, form)`, `superspark_footer_add_table(path)` and
 * `superspark_footer_strip_table(path)` ([[tableFunctions]]).
 */
private[superspark] object FooterTableJob {

  /** One row per file: its path, `done` / `already` / `refused` / `failed`, why, and what the tool reported. */
  val Schema: StructType = StructType(Seq(
    StructField("path", StringType, nullable = false),
    StructField("status", StringType, nullable = false),
    StructField("reason", StringType),
    StructField("tool_status", StringType),
    StructField("from_form", StringType),
    StructField("to_form", StringType),
    StructField("replace", StringType),
    StructField("seconds", DoubleType)))

  /** The table status of a tool status. */
  def tableStatus(toolStatus: String): String = toolStatus match {
    case "added" | "stripped" | "migrated" => "done"
    case "unchanged" => "already"
    case "refused" => "refused"
    case _ => "failed"
  }

  private def row(m: JMap[String, Any]): Row = {
    def s(k: String) = Option(m.get(k)).map(_.toString).orNull
    Row(s("path"), tableStatus(s("status")), s("message"), s("status"), s("from"), s("to"), s("replace"),
      Option(m.get("seconds")).map(_.asInstanceOf[Double]).orNull)
  }

  /** Runs the job and returns its result as a DataFrame (computed: the files are rewritten when this returns). */
  def run(spark: SparkSession, path: String, command: String, to: String, progress: Boolean): DataFrame =
    spark.createDataFrame(results(spark, path, command, to, progress).asJava, Schema)

  /** The rewrite of every Parquet file under `path` as one Spark job; one row per file ([[Schema]]). */
  def results(spark: SparkSession, path: String, command: String, to: String, progress: Boolean): Seq[Row] =
    results(spark, path, command, to, progress, inPlace = false)

  /**
   * [[results]], or with `inPlace` the old in-place rewrite in every task: only for `make bench-rewrite`'s side
   * by side figures (not crash-safe; neither the Python API nor SQL offers it).
   */
  def results(spark: SparkSession, path: String, command: String, to: String, progress: Boolean,
      inPlace: Boolean): Seq[Row] = {
    RewriteCommand.named(command, to, inPlace) // checks the command and the form before anything runs
    val conf = spark.sessionState.newHadoopConf()
    val root = new HPath(path)
    val fs = root.getFileSystem(conf)
    if (!fs.exists(root)) {
      throw new SparkException(errorClass = "PATH_NOT_FOUND", messageParameters = Map("path" -> path), cause = null)
    }
    val qualified = fs.makeQualified(root)
    FooterWalk.deltaTableOf(fs, qualified).foreach { t =>
      // The table itself, on a line with Delta Lake: a Delta commit that replaces its files
      // (io.superspark.delta.lake.DeltaFooterRewrite). A folder inside a table, or no Delta here: refused.
      io.superspark.delta.DeltaTables.available.filter(_ => !inPlace && t == qualified) match {
        case Some(delta) => return delta.rewrite(spark, t.toString, command, to)
        case None => throw deltaTable(path, t.toString)
      }
    }
    val listed = FooterWalk.walk(Seq(path), conf, checkAll = false)
    listed.collectFirst { case Left(m) if m.get("status") == "refused" => throw deltaTable(path, m.get("path").toString) }
    val files = listed.collect { case Right(t) => t.display }
    if (files.isEmpty) return Nil
    val sc = spark.sparkContext
    // Tasks of about 50 files (at least 4 per core, for balance and a moving progress bar).
    val slices = math.min(files.size, math.max(sc.defaultParallelism * 4, (files.size + 49) / 50))
    val hadoopConf = sc.broadcast(new SerializableConfiguration(conf))
    val done = sc.longAccumulator("superspark footer files rewritten")
    val rdd = sc.parallelize(files, slices).mapPartitions { it =>
      val c = hadoopConf.value.value
      val rewrite = RewriteCommand.named(command, to, inPlace)
      it.map { f =>
        val t = FooterWalk.Target(new HPath(f), f, "")
        val r = row(ToolResult.guarded(f)(rewrite.file(t, None, c)))
        done.add(1)
        r
      }
    }
    val bar = if (progress) Some(progressBar(files.size, () => done.value)) else None
    sc.setJobDescription(s"superspark footer $command${Option(to).map(" --to " + _).getOrElse("")} $path")
    try rdd.collect().toSeq finally {
      sc.setJobDescription(null)
      bar.foreach(_.apply())
    }
  }

  /**
   * A progress bar on stderr (the command line's terminal): files finished of `total`, redrawn twice a
   * second (the counts arrive as tasks end). Returns the function that draws the last state and stops it.
   */
  private def progressBar(total: Int, finished: () => Long): () => Unit = {
    val started = System.nanoTime()
    def draw(): Unit = {
      val n = math.min(finished(), total.toLong)
      val width = 30
      val full = (n * width / math.max(total, 1)).toInt
      val secs = (System.nanoTime() - started) / 1e9
      System.err.print(f"\r[${"=" * full}${" " * (width - full)}] $n%,d/$total%,d files $secs%.1f s")
      System.err.flush()
    }
    val timer = Executors.newSingleThreadScheduledExecutor { r =>
      val t = new Thread(r, "superspark-footer-progress"); t.setDaemon(true); t
    }
    timer.scheduleAtFixedRate(() => draw(), 0, 500, TimeUnit.MILLISECONDS)
    () => { timer.shutdownNow(); timer.awaitTermination(1, TimeUnit.SECONDS); draw(); System.err.println() }
  }

  private def deltaTable(path: String, table: String): DeltaTableRewriteRefusedException =
    new DeltaTableRewriteRefusedException(path, table, FooterWalk.deltaRefusal(path, table))

  // ---- SQL ----

  /** The command the SQL table functions plan: the job runs when it executes, once per query. */
  final case class FooterTableCommand(command: String, path: String, to: String) extends LeafRunnableCommand {
    override val output: Seq[Attribute] = DataTypeUtils.toAttributes(Schema)
    override def run(spark: SparkSession): Seq[Row] = results(spark, path, command, to, progress = false)
  }

  private def stringArg(function: String, e: Expression, name: String): String = {
    if (!e.foldable || e.dataType != StringType || e.eval() == null) {
      throw new SparkException(errorClass = "INVALID_PARAMETER_VALUE.STRING",
        messageParameters = Map("parameter" -> s"`$name`", "functionName" -> s"`$function`",
          "invalidValue" -> e.sql), cause = null)
    }
    e.eval().toString
  }

  type TableFunctionDescription = (FunctionIdentifier, ExpressionInfo, Seq[Expression] => LogicalPlan)

  private def tableFunction(name: String, command: String, withForm: Boolean, usage: String,
      examples: String): TableFunctionDescription = {
    val arguments = "\n    Arguments:\n      * path - a table's folder (any Hadoop file system), a string literal\n" +
      (if (withForm) "      * form - private, intermediate, final or plain, a string literal\n" else "") + "  "
    val info = new ExpressionInfo(classOf[FooterTableCommand].getCanonicalName, null, name, usage, arguments,
      s"\n    Examples:$examples\n  ", "", "table_funcs", "0.1.0", "", "built-in")
    val builder = (args: Seq[Expression]) => {
      val arity = if (withForm) 2 else 1
      if (args.length != arity) throw org.apache.spark.sql.superspark.SparkInternals.wrongNumArgsError(name, Seq(arity), args.length)
      FooterTableCommand(command, stringArg(name, args.head, "path"), if (withForm) stringArg(name, args(1), "form") else null)
    }
    (FunctionIdentifier(name), info, builder)
  }

  private val resultText = "Returns one row per Parquet file: path, status (done, already, refused, failed), " +
    "reason, tool_status, from_form, to_form, replace (how the file was replaced) and seconds."

  /** The SQL table functions, injected by the extension. */
  lazy val tableFunctions: Seq[TableFunctionDescription] = Seq(
    tableFunction("superspark_footer_migrate_table", "migrate", withForm = true,
      "_FUNC_(path, form) - Rewrites the footer of every Parquet file under path into form as a Spark job, " +
        "each file crash-safely; files already in form are left alone (a rerun finishes an interrupted run). " +
        "Refuses a Delta table. " + resultText,
      """
        |    > SELECT status, count(*) FROM _FUNC_('/data/events', 'final') GROUP BY status;
        |     done	1000""".stripMargin),
    tableFunction("superspark_footer_add_table", "add", withForm = false,
      "_FUNC_(path) - Adds the FlatBuffers footer extension to every Parquet file under path as a Spark job, " +
        "each file crash-safely. " + resultText,
      """
        |    > SELECT * FROM _FUNC_('/data/events') WHERE status = 'failed';""".stripMargin),
    tableFunction("superspark_footer_strip_table", "strip", withForm = false,
      "_FUNC_(path) - Removes the footer extension from every Parquet file under path as a Spark job, each " +
        "file crash-safely. " + resultText,
      """
        |    > SELECT * FROM _FUNC_('/data/events');""".stripMargin))
}
