package io.superspark.delta.lake

import org.apache.hadoop.fs.{Path => HPath}

import org.apache.spark.sql.{Row, SparkSession}
import org.apache.spark.sql.delta.{DeltaLog, DeltaOperations}
import org.apache.spark.sql.delta.actions.{Action, AddFile}
import org.apache.spark.util.SerializableConfiguration

import io.superspark.parquet.footer.codec.FooterForm
import io.superspark.parquet.footer.tools.{DeltaTableRewriteRefusedException, FooterTableJob, FooterWalk, RewriteCommand, ToolResult}

/**
 * A footer rewrite of a Delta table as a Delta commit, the way OPTIMIZE replaces files (issue #23):
 * each data file of the current version is rewritten by a Spark task into a new file beside it
 * (never in place: the log names the old one), then one commit removes the old files and adds the
 * new ones with `dataChange = false`, keeping each file's partition values, statistics, tags and
 * deletion vector (a footer rewrite moves no row, so the vectors' row positions still hold). Time
 * travel to earlier versions reads the old files until VACUUM removes them. Files already in the
 * wanted form are `already` and stay; a rerun after a crash before the commit rewrites again into
 * the same new names (the crashed run's files are not in the log, and VACUUM removes them).
 * Compiled on the Spark lines with a Delta Lake release (build.sbt).
 */
private[superspark] object DeltaFooterRewrite {

  /** The new file's name: the old one with the form, so reruns write the same names. */
  private def newName(name: String, command: String, to: String): String = {
    val stem = name.stripSuffix(".parquet")
    s"$stem.superspark-${Option(to).getOrElse(command)}.parquet"
  }

  def rewrite(spark: SparkSession, table: String, command: String, to: String): Seq[Row] = {
    RewriteCommand.named(command, to, inPlace = false) // checks the command and the form first
    if (command == "migrate" && FooterForm.parse(to).contains(FooterForm.Final)) {
      // Delta reads its files with Spark's own Parquet reader, which needs PAR1 files.
      throw new DeltaTableRewriteRefusedException(table, table, "migrate to the final form: Delta reads its data " +
        "files with Spark's own Parquet reader, which cannot open final-form (PAR3) files; use the private or " +
        "intermediate form")
    }
    val log = DeltaLog.forTable(spark, table)
    val txn = log.startTransaction()
    txn.filterFiles() // the whole table is read: a concurrent change to any file conflicts with the commit
    // The files with all their statistics (deletion vectors need numRecords; data skipping the rest).
    val adds = txn.snapshot.allFiles.collect().toSeq
    if (adds.isEmpty) return Nil
    val base = log.dataPath
    val jobs = adds.map { a =>
      val rel = a.toPath
      val src = if (rel.isAbsolute) rel else new HPath(base, rel)
      (a.path, src.toString, new HPath(src.getParent, newName(src.getName, command, to)).toString)
    }
    val sc = spark.sparkContext
    val conf = sc.broadcast(new SerializableConfiguration(spark.sessionState.newHadoopConf()))
    sc.setJobDescription(s"superspark footer $command of Delta table $table")
    val results = try sc.parallelize(jobs, math.max(1, math.min(jobs.size, sc.defaultParallelism * 4))).map {
      case (logPath, src, dst) =>
        val c = conf.value.value
        val rewrite = RewriteCommand.named(command, to, inPlace = false)
        val m = ToolResult.guarded(src)(rewrite.file(FooterWalk.Target(new HPath(src), src, ""), Some(new HPath(dst)), c))
        val status = FooterTableJob.tableStatus(String.valueOf(m.get("status")))
        val dstPath = new HPath(dst)
        val fs = dstPath.getFileSystem(c)
        val size = if (status == "done") fs.getFileStatus(dstPath).getLen else -1L
        if (status != "done") fs.delete(dstPath, false) // an unchanged copy, or a partial one
        (logPath, src, dst, status, Option(m.get("message")).map(_.toString).orNull, size)
    }.collect().toSeq finally sc.setJobDescription(null)

    val now = System.currentTimeMillis()
    val byPath = adds.map(a => a.path -> a).toMap
    val done = results.filter(_._4 == "done")
    if (done.nonEmpty) {
      val actions: Seq[Action] = done.flatMap { case (logPath, _, dst, _, _, size) =>
        val old = byPath(logPath)
        val oldRel = old.toPath
        val name = new HPath(dst).getName
        val newRel = if (oldRel.isAbsolute) new HPath(dst).toUri.toString
          else Option(oldRel.getParent).filter(_.toString.nonEmpty).fold(new HPath(name))(new HPath(_, name)).toUri.toString
        Seq(old.removeWithTimestamp(now, dataChange = false),
          old.copy(path = newRel, size = size, modificationTime = now, dataChange = false))
      }
      txn.commit(actions, DeltaOperations.Reorg(Nil, applyPurge = false))
    }
    results.map { case (_, src, dst, status, message, _) =>
      Row(if (status == "done") dst else src, status, message, status, null, to, "delta-commit", null)
    }
  }
}
