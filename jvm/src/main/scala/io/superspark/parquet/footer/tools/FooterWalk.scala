package io.superspark.parquet.footer.tools

import java.io.{FileNotFoundException, IOException}
import java.nio.file.{Path, Paths}
import java.util.{LinkedHashMap => JMap}

import scala.annotation.tailrec

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.{FileSystem, Path => HPath}

import io.superspark.parquet.footer.codec.FooterLayout

/**
 * The files the footer commands run over, for every command (the command line, the Python API,
 * the table job): paths are Hadoop paths (`file:`, `hdfs:`, `s3a:`, ...; no scheme: local files);
 * a file is taken as given, a directory is walked, skipping names that start with `_` or `.`
 * (`_delta_log`, `_SUCCESS`, the rewrites' temporary files) and taking files that end in PAR1 or
 * PAR3. A path in a Delta table (a `_delta_log` folder at it, above it, or in a folder of the walk)
 * gives a refusal instead of its files when the command writes. The walk also finishes what a killed
 * rewrite of the `delete-rename` kind left ([[FooterRewrite.recoverReady]]).
 */
private[superspark] object FooterWalk {

  /** A file to process: its path, how the results name it, and its path relative to the argument it came from. */
  final case class Target(path: HPath, display: String, relative: String)

  /**
   * The files of `paths`, each a [[Target]] or a result that stands for it (`refused`: in a Delta table;
   * `error`: no such path). `checkAll` false: a file named `*.parquet` is taken without opening it (the
   * table job's driver lists tens of thousands; its tasks report a file that is not Parquet after all as
   * `failed`). `refuseDelta` false (the read-only commands: inspect, verify, roundtrip): files in a Delta
   * table are taken like any other, since nothing is written (a folder's `_delta_log` is skipped as every
   * `_` name is).
   */
  def walk(paths: Seq[String], conf: Configuration, checkAll: Boolean = true,
      refuseDelta: Boolean = true): Seq[Either[JMap[String, Any], Target]] =
    paths.flatMap { p =>
      val path = new HPath(p)
      val fs = path.getFileSystem(conf)
      val status = try Some(fs.getFileStatus(path)) catch { case _: FileNotFoundException => None }
      (if (refuseDelta) deltaTableOf(fs, fs.makeQualified(path)) else None) match {
        case Some(table) => Seq(Left(ToolResult(p, "refused", "message" -> deltaRefusal(p, table.toString))))
        case None if status.isEmpty => Seq(Left(ToolResult(p, "error", "message" -> s"$p: no such file or directory")))
        case None if status.get.isDirectory => directory(fs, path, p, checkAll, refuseDelta)
        case None => Seq(Right(Target(path, p, path.getName)))
      }
    }

  private def directory(fs: FileSystem, root: HPath, rootDisplay: String, checkAll: Boolean,
      refuseDelta: Boolean): Seq[Either[JMap[String, Any], Target]] = {
    def rec(dir: HPath, display: String, rel: String): Seq[Either[JMap[String, Any], Target]] = {
      val children = fs.listStatus(dir)
      val names = children.map(_.getPath.getName).toSet
      if (refuseDelta && names.contains("_delta_log")) {
        Seq(Left(ToolResult(display, "refused", "message" -> deltaRefusal(display, display))))
      } else if (names.exists(n => FooterRewrite.isOurs(n) && n.endsWith(".ready"))) {
        FooterRewrite.recoverReady(fs, dir, names)
        rec(dir, display, rel)
      } else {
        children.toSeq.filterNot { c =>
          val n = c.getPath.getName
          n.startsWith(".") || n.startsWith("_")
        }.sortBy(_.getPath.getName).flatMap { c =>
          val n = c.getPath.getName
          val childRel = if (rel.isEmpty) n else s"$rel/$n"
          val childDisplay = if (display.endsWith("/")) display + n else s"$display/$n"
          if (c.isDirectory) rec(c.getPath, childDisplay, childRel)
          else if ((!checkAll && n.endsWith(".parquet")) || hasParquetMagic(fs, c.getPath, c.getLen)) {
            Seq(Right(Target(c.getPath, childDisplay, childRel)))
          }
          else Nil
        }
      }
    }
    rec(root, rootDisplay, "")
  }

  /** Local files named by `paths` (Hadoop's default settings) with their paths relative to their argument. */
  def localFiles(paths: Seq[String]): Seq[(Path, Path)] = {
    val conf = ToolSettings.Default.conf()
    walk(paths, conf).collect { case Right(t) =>
      (FooterRewrite.localFile(t.path.getFileSystem(conf), t.path).get, Paths.get(t.relative))
    }
  }

  /** The Delta table `path` is in: the nearest of it and its ancestors that holds a `_delta_log` folder. */
  def deltaTableOf(fs: FileSystem, path: HPath): Option[HPath] =
    Iterator.iterate(path)(_.getParent).takeWhile(_ != null).find(p => fs.exists(new HPath(p, "_delta_log")))

  /** Why a path in a Delta table is not rewritten, and the table command to use. */
  def deltaRefusal(path: String, table: String): String =
    s"$path is in the Delta table $table: its files change only through a Delta commit, never behind its " +
      s"transaction log. Use the table command for it: superspark.footer.migrate_table(spark, '$table', to=...) " +
      "(SQL: superspark_footer_migrate_table), which commits the rewritten files on Spark lines with Delta support " +
      "and refuses the table where there is none yet"

  /**
   * Does `f` end in PAR1 or PAR3? `listed` is its length when the folder was listed; a concurrent rewrite can
   * have replaced it since (longer or shorter), so a miss is checked again at the length it has now.
   */
  private[footer] def hasParquetMagic(fs: FileSystem, f: HPath, listed: Long): Boolean = {
    def endsInMagic(length: Long): Boolean = length >= 12 && (try {
      val in = fs.open(f)
      try {
        val b = new Array[Byte](4)
        in.readFully(length - 4, b)
        java.util.Arrays.equals(b, FooterLayout.Magic) || java.util.Arrays.equals(b, FooterLayout.FinalMagic)
      } finally in.close()
    } catch { case _: IOException => false }) // gone, shorter than listed, unreadable: not taken
    @tailrec def check(length: Long, tries: Int): Boolean = endsInMagic(length) || {
      val now = try fs.getFileStatus(f).getLen catch { case _: FileNotFoundException => length }
      now != length && tries > 0 && check(now, tries - 1)
    }
    check(listed, 3)
  }
}
