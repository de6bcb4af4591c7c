package io.superspark.parquet.footer.tools

import java.io.{FileNotFoundException, IOException}
import java.nio.ByteBuffer
import java.nio.file.{Files, Path}
import java.util.{LinkedHashMap => JMap}

import scala.annotation.tailrec
import scala.jdk.CollectionConverters._
import scala.util.chaining._
import scala.util.control.NonFatal

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.{FileSystem, Path => HPath}
import io.superspark.parquet.footer.{FallbackReason, FlatBufferFooterException, UnrepresentableFooterException}
import io.superspark.parquet.footer.codec.{FooterForm, FooterLayout, MetadataDiff, Projection, ThriftDiff}
import io.superspark.parquet.thrift.UnrebuildableFooterException
import io.superspark.parquet.footer.files.{FooterBytes, FooterFiles, FooterReader}
import io.superspark.parquet.thrift.{ThriftForParquetJava, UnrebuildableFooterException}

/**
 * The footer tools (`inspect`, `add`, `strip`, `verify`, `migrate`; ALP's `alp-decode` is `alp.AlpTool`, above this package) over files and directories: the one
 * implementation behind `python -m superspark.footer`, `superspark.footer` (through py4j) and the table
 * job ([[FooterTableJob]]). Paths go through Hadoop's `FileSystem` API (`file:`, `hdfs:`, `s3a:`, ...;
 * a path without a scheme is a local file). `add`, `strip` and `migrate` replace files crash-safely
 * ([[FooterRewrite]]); `inPlace` is the old, not crash-safe, opt-in path. Every command returns a JSON
 * array with one object per Parquet file; a file that fails gets `"status": "error"` (or `refused`) and
 * a message, the others are still processed.
 */
private[superspark] object FooterTool {

  /**
   * Hadoop settings given as Hadoop's own tools take them (`-D key=value`), over the base: the
   * SparkSession's Hadoop configuration when the Python API runs through one ([[setBaseConf]]),
   * else Hadoop's defaults and the `core-site.xml` found on the class path (`HADOOP_CONF_DIR`,
   * which the command line puts there).
   */
  @volatile private var settings: Map[String, String] = Map.empty
  @volatile private var baseConf: Configuration = null

  def setConf(key: String, value: String): Unit = synchronized { settings += key -> value }
  def setBaseConf(conf: Configuration): Unit = baseConf = conf

  /** A new configuration for one command: the base and the `-D` settings. */
  def hadoopConf(): Configuration = {
    val base = baseConf
    val conf = if (base == null) new Configuration() else new Configuration(base)
    settings.foreach { case (k, v) => conf.set(k, v) }
    conf
  }

  def inspect(paths: java.util.List[String]): String = run(paths, (t, c) => inspectFile(t, c))
  def verify(paths: java.util.List[String]): String = run(paths, (t, c) => verifyFile(t, c))
  def add(paths: java.util.List[String], output: String): String = add(paths, output, false)
  def add(paths: java.util.List[String], output: String, inPlace: Boolean): String =
    runWithOutput(paths, output, rewriter("add", null, inPlace))
  def strip(paths: java.util.List[String], output: String): String = strip(paths, output, false)
  def strip(paths: java.util.List[String], output: String, inPlace: Boolean): String =
    runWithOutput(paths, output, rewriter("strip", null, inPlace))
  /** Per file: does the Thrift footer rebuilt from its FlatBuffer equal the original bytes? */
  def roundtrip(paths: java.util.List[String]): String = run(paths, (t, c) => roundtripFile(t, c))
  /** Rewrites each file's footer into `to` (plain, private, intermediate, final); data pages untouched. */
  def migrate(paths: java.util.List[String], output: String, to: String): String = migrate(paths, output, to, false)
  def migrate(paths: java.util.List[String], output: String, to: String, inPlace: Boolean): String =
    runWithOutput(paths, output, rewriter("migrate", to, inPlace))

  /**
   * The rewrite of one command (`add`, `strip`, `migrate` with `to`): what the command line, the Python API
   * and each task of [[FooterTableJob]] run per file.
   */
  def rewriter(command: String, to: String, inPlace: Boolean): (Target, Option[HPath], Configuration) => JMap[String, Any] =
    command match {
      case "add" => addFile(inPlace)
      case "strip" => stripFile(inPlace)
      case "migrate" =>
        val form = FooterForm.parse(to).getOrElse(throw new IllegalArgumentException(
          s"unknown footer form '$to' (expected one of ${FooterForm.all.mkString(", ")})"))
        migrateFile(form, inPlace)
      case other => throw new IllegalArgumentException(s"unknown rewrite command '$other' (add, strip or migrate)")
    }

  /** A file to process: its path, how the results name it, and its path relative to the argument it came from. */
  final case class Target(path: HPath, display: String, relative: String)

  /** Local files named by `paths`: files as given, directories walked (skipping `_*` and `.*`). */
  def expand(paths: Seq[String]): Seq[(Path, Path)] = {
    val conf = hadoopConf()
    walk(paths, conf).collect { case Right(t) =>
      (FooterRewrite.localFile(t.path.getFileSystem(conf), t.path).get, java.nio.file.Paths.get(t.relative))
    }
  }

  /**
   * Files named by `paths` (Hadoop paths; no scheme: local files): files as given, directories walked (skipping
   * names that start with `_` or `.`, taking files that end in PAR1 or PAR3). A path in a Delta table (a
   * `_delta_log` folder at it, above it, or in a folder of the walk) gives a refusal instead of its files.
   * The walk also finishes what a killed rewrite of the `delete-rename` kind left ([[FooterRewrite.recoverReady]]).
   */
  def walk(paths: Seq[String], conf: Configuration): Seq[Either[JMap[String, Any], Target]] = walk(paths, conf, true)

  /**
   * [[walk]]; `checkAll` false: a file named `*.parquet` is taken without opening it (the table job's driver
   * lists tens of thousands; its tasks report a file that is not Parquet after all as `failed`).
   */
  def walk(paths: Seq[String], conf: Configuration, checkAll: Boolean): Seq[Either[JMap[String, Any], Target]] =
    walk(paths, conf, checkAll, refuseDelta = true)

  /**
   * [[walk]]; `refuseDelta` false (the read-only commands: inspect, verify, roundtrip): files in a Delta
   * table are taken like any other, since nothing is written (a folder's `_delta_log` is skipped as every
   * `_` name is).
   */
  def walk(paths: Seq[String], conf: Configuration, checkAll: Boolean,
      refuseDelta: Boolean): Seq[Either[JMap[String, Any], Target]] =
    paths.flatMap { p =>
    val path = new HPath(p)
    val fs = path.getFileSystem(conf)
    val status = try Some(fs.getFileStatus(path)) catch { case _: FileNotFoundException => None }
    (if (refuseDelta) deltaTableOf(fs, fs.makeQualified(path)) else None) match {
      case Some(table) => Seq(Left(result(p, "refused", "message" -> deltaRefusal(p, table.toString))))
      case None if status.isEmpty => Seq(Left(result(p, "error", "message" -> s"$p: no such file or directory")))
      case None if status.get.isDirectory =>
        def rec(dir: HPath, display: String, rel: String): Seq[Either[JMap[String, Any], Target]] = {
          val children = fs.listStatus(dir)
          val names = children.map(_.getPath.getName).toSet
          if (refuseDelta && names.contains("_delta_log")) return Seq(Left(result(display, "refused", "message" -> deltaRefusal(display, display))))
          if (names.exists(n => FooterRewrite.isOurs(n) && n.endsWith(".ready"))) {
            FooterRewrite.recoverReady(fs, dir, names)
            return rec(dir, display, rel)
          }
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
        rec(path, p, "")
      case None => Seq(Right(Target(path, p, path.getName)))
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

  private def run(paths: java.util.List[String], f: (Target, Configuration) => JMap[String, Any]): String = {
    val conf = hadoopConf()
    ToolJson.write(walk(paths.asScala.toSeq, conf, checkAll = true, refuseDelta = false).map {
      case Left(refusal) => refusal
      case Right(t) => guarded(t.display)(f(t, conf))
    })
  }

  /** Runs `f` on every file of `paths`, its output under `output` (a file for a single file, else a folder). */
  private[parquet] def runWithOutput(paths: java.util.List[String], output: String,
      f: (Target, Option[HPath], Configuration) => JMap[String, Any]): String = {
    val conf = hadoopConf()
    val files = walk(paths.asScala.toSeq, conf)
    def isDir(p: String) = { val h = new HPath(p); val fs = h.getFileSystem(conf); fs.exists(h) && fs.getFileStatus(h).isDirectory }
    val single = paths.size == 1 && files.size == 1 && !isDir(paths.get(0))
    val results = files.map {
      case Left(refusal) => refusal
      case Right(t) =>
        val out = Option(output).map(o => if (single && !isDir(o)) new HPath(o) else new HPath(o, t.relative))
        guarded(t.display)(f(t, out, conf))
    }
    ToolJson.write(results)
  }

  /** One file's result, failures included: `refused` (nothing written, with the reason) or `error`. */
  def guarded(display: String)(body: => JMap[String, Any]): JMap[String, Any] =
    try body catch {
      case e: UnrepresentableFooterException => result(display, "refused", "message" -> e.getMessage)
      case e: UnrebuildableFooterException => result(display, "refused", "message" -> e.getMessage)
      case e: RewriteRefusedException => result(display, "refused", "message" -> e.getMessage)
      case NonFatal(e) => result(display, "error", "message" -> Option(e.getMessage).getOrElse(e.toString))
    }

  private[parquet] def result(p: String, status: String, fields: (String, Any)*): JMap[String, Any] = {
    val m = new JMap[String, Any]()
    m.put("path", p)
    m.put("status", status)
    fields.foreach { case (k, v) => m.put(k, v) }
    m
  }

  private def readFooter(t: Target, conf: Configuration): FooterBytes = {
    val fs = t.path.getFileSystem(conf)
    val length = fs.getFileStatus(t.path).getLen
    val in = fs.open(t.path)
    try FooterFiles.readFooter(t.display, length, { (off, len) => val b = new Array[Byte](len); in.readFully(off, b); b })
    finally in.close()
  }

  /** Opens the file for a rewrite ([[FooterRewrite.open]]: lock, leftovers, footer, snapshot) around `body`. */
  private def rewriting(t: Target, conf: Configuration)(body: FooterRewrite.Opened => JMap[String, Any]): JMap[String, Any] = {
    val opened = FooterRewrite.open(t.path, conf)
    try body(opened) finally opened.close()
  }

  private def located(footer: FooterBytes) = footer.located

  // ---- inspect ----

  private def inspectFile(t: Target, conf: Configuration): JMap[String, Any] = {
    val footer = readFooter(t, conf)
    val m = result(t.display, "absent", "file_bytes" -> footer.fileLength, "footer_offset" -> footer.footerOffset,
      "footer_bytes" -> footer.footer.length, "form" -> FooterFiles.formOf(footer).name)
    def uuid(form: FooterForm): Unit = if (form != FooterForm.Final) m.put("uuid", FooterLayout.uuidOf(form).toString)
    located(footer) match {
      case FooterLayout.Absent =>
        m.put("extension", false)
        m.put("thrift_bytes", footer.footer.length)
      case FooterLayout.Corrupt(reason, form) =>
        m.put("status", "corrupt")
        m.put("extension", true)
        uuid(form)
        m.put("size_crc", if (reason.isInstanceOf[FallbackReason.SizeCrcMismatch]) "mismatch" else "ok")
        m.put("flatbuffer_crc", reason match {
          case _: FallbackReason.FlatBufferCrcMismatch => "mismatch"
          case _ => "unchecked"
        })
        m.put("reason", reason.toString)
      case FooterLayout.Present(ext) =>
        m.put("status", "present")
        m.put("extension", true)
        uuid(ext.form)
        if (ext.form != FooterForm.Final) m.put("thrift_bytes", ext.thriftPrefixLength + 1)
        m.put("flatbuffer_bytes", ext.flatBufferLength)
        m.put("size_crc", "ok")
        m.put("flatbuffer_crc", "ok")
    }
    val read = try FooterReader.read(footer) catch {
      case e: FlatBufferFooterException => // a final-form footer: nothing to fall back on
        m.put("status", "corrupt")
        m.put("reason", e.reason.toString)
        m.put("message", e.getMessage)
        return m
    }
    if (m.get("status") == "present") {
      m.put("structure", read.fallback.map(_.toString).getOrElse("ok"))
      if (read.fallback.isDefined) m.put("status", "corrupt")
    }
    m.put("metadata_source", read.source.name)
    val md = read.metadata
    m.put("row_groups", md.getBlocks.size)
    m.put("columns", md.getFileMetaData.getSchema.getColumns.size)
    m.put("num_rows", md.getBlocks.asScala.map(_.getRowCount).sum)
    m.put("created_by", md.getFileMetaData.getCreatedBy)
    // ALP columns: each column chunk's encoding and why (the writer's sample, docs/alp.md)
    Option(md.getFileMetaData.getKeyValueMetaData.get(io.superspark.parquet.alp.AlpChoice.Key)).foreach { v =>
      val chunks = new java.util.ArrayList[Any]()
      io.superspark.parquet.alp.AlpChoice.parse(v).foreach { c =>
        val e = new JMap[String, Any]()
        e.put("row_group", c.rowGroup)
        e.put("column", c.column)
        e.put("encoding", c.choice)
        e.put("reason", c.reason)
        chunks.add(e)
      }
      m.put("alp_chunks", chunks)
    }
    m
  }

  // ---- verify ----

  private def verifyFile(t: Target, conf: Configuration): JMap[String, Any] = verifyFooter(t.display, readFooter(t, conf))

  private def verifyFooter(p: String, footer: FooterBytes): JMap[String, Any] = {
    located(footer) match {
      case FooterLayout.Absent => result(p, "absent", "form" -> FooterForm.Plain.name)
      case FooterLayout.Corrupt(reason, form) => result(p, "corrupt", "reason" -> reason.toString, "form" -> form.name)
      case FooterLayout.Present(ext) =>
        val buf = ByteBuffer.wrap(footer.footer, ext.flatBufferOffset, ext.flatBufferLength).slice()
        // Eager statistics: the whole buffer verified before ThriftDiff reads it.
        FooterReader.decodeFlatBuffer(buf, Projection(lazyStatistics = false), ext.form) match {
          case Left(reason) => result(p, "corrupt", "reason" -> reason.toString, "form" -> ext.form.name)
          case Right(fromFlatBuffer) =>
            // The final form has no Thrift footer: its rebuild must read back as the FlatBuffer does.
            val thriftBytes = try Right(FooterFiles.thriftFooter(footer)) catch {
              case e: UnrebuildableFooterException => Left(e.reason)
            }
            val difference = thriftBytes match {
              case Left(reason) => Some(s"no Thrift footer can be rebuilt: $reason")
              case Right(bytes) =>
                val thrift = ThriftForParquetJava.parse(bytes)
                MetadataDiff.diff(fromFlatBuffer, FooterReader.thrift(footer.copy(footer = bytes, isFinal = false)))
                  .orElse(ThriftDiff.diff(thrift, buf))
            }
            difference match {
              case Some(d) => result(p, "mismatch", "reason" -> d, "form" -> ext.form.name)
              case None => result(p, "valid", "form" -> ext.form.name, "flatbuffer_bytes" -> ext.flatBufferLength,
                "thrift_bytes" -> thriftBytes.toOption.get.length)
            }
        }
    }
  }

  // ---- roundtrip ----

  /**
   * Thrift -> FlatBuffer -> Thrift on the file's plain Thrift footer: `exact` (the same bytes),
   * `equivalent` (other bytes, but parquet-java parses both to equal Thrift objects and the
   * same `ParquetMetadata`), `different` (with the first difference) or `refused`.
   */
  private def roundtripFile(t: Target, conf: Configuration): JMap[String, Any] = {
    val p = t.display
    val footer = readFooter(t, conf)
    val original = FooterFiles.thriftFooter(footer)
    def parse(b: Array[Byte]) = ThriftForParquetJava.parse(b)
    val tmd = parse(original)
    val rebuilt = FooterFiles.convertAndRebuild(tmd, original)._2 match {
      case Right(bytes) => bytes
      case Left(reason) => throw new UnrebuildableFooterException(reason)
    }
    val m = result(p, "exact", "created_by" -> tmd.getCreated_by, "thrift_bytes" -> original.length,
      "rebuilt_bytes" -> rebuilt.length)
    if (!java.util.Arrays.equals(original, rebuilt)) {
      val n = math.min(original.length, rebuilt.length)
      val at = java.util.Arrays.mismatch(original, 0, n, rebuilt, 0, n)
      m.put("first_difference", if (at < 0) n else at)
      def read(b: Array[Byte]) = FooterReader.thrift(FooterBytes(p, footer.fileLength, footer.footerOffset, b))
      val objects = if (parse(rebuilt) == tmd) None else Some("parquet-java parses the two to different Thrift objects")
      objects.orElse(MetadataDiff.diff(read(rebuilt), read(original))) match {
        case Some(d) => m.put("status", "different"); m.put("reason", d)
        case None => m.put("status", "equivalent")
      }
    }
    m
  }

  // ---- add / strip ----

  private def addFile(inPlace: Boolean)(t: Target, out: Option[HPath], conf: Configuration): JMap[String, Any] =
    rewriting(t, conf) { opened =>
      val started = System.nanoTime()
      val footer = opened.footer
      val alreadyValid = located(footer) match {
        case FooterLayout.Present(_) => verifyFooter(t.display, footer).get("status") == "valid"
        case _ => false
      }
      val thrift = FooterFiles.thriftFooter(footer)
      val newTail =
        if (alreadyValid) FooterFiles.withLengthAndMagic(footer.footer)
        else FooterFiles.extendedTail(t.display, thrift, threads = FooterFiles.toolThreads)
      val how = if (!alreadyValid || out.isDefined) Some(FooterRewrite.replaceTail(opened, newTail, out, conf, inPlace)) else None
      result(out.map(_.toString).getOrElse(t.display), if (alreadyValid) "unchanged" else "added",
        "source" -> t.display,
        "thrift_bytes" -> thrift.length,
        "flatbuffer_bytes" -> flatBufferBytes(newTail),
        "seconds" -> (System.nanoTime() - started) / 1e9).tap(m => how.foreach(h => m.put("replace", h.name)))
    }

  /** FlatBuffer size in a new tail (0 when it has none). */
  private def flatBufferBytes(tail: Array[Byte]): Int = {
    val n = tail.length
    val isFinal = java.util.Arrays.equals(tail, n - 4, n, FooterLayout.FinalMagic, 0, 4)
    (if (isFinal) FooterLayout.locateFinal(tail, n - 4) else FooterLayout.locate(tail, n - 8)) match {
      case FooterLayout.Present(ext) => ext.flatBufferLength
      case _ => 0
    }
  }

  private def stripFile(inPlace: Boolean)(t: Target, out: Option[HPath], conf: Configuration): JMap[String, Any] =
    rewriting(t, conf) { opened =>
      val footer = opened.footer
      val present = located(footer) match {
        case FooterLayout.Absent => false
        case _ => true // present, or damaged (delimited through the Thrift fields)
      }
      val thrift = FooterFiles.thriftFooter(footer)
      val how = if (present || out.isDefined) {
        Some(FooterRewrite.replaceTail(opened, FooterFiles.withLengthAndMagic(thrift), out, conf, inPlace))
      } else None
      result(out.map(_.toString).getOrElse(t.display), if (present) "stripped" else "unchanged", "source" -> t.display,
        "thrift_bytes" -> thrift.length).tap(m => how.foreach(h => m.put("replace", h.name)))
    }

  /**
   * `migrate --to form`: the file's plain Thrift footer (stripped of the extension, or rebuilt
   * from a final-form FlatBuffer), then the tail of `form`. A file already in `form` whose
   * extension verifies is `unchanged`; only the tail is rewritten.
   */
  private def migrateFile(to: FooterForm, inPlace: Boolean)(t: Target, out: Option[HPath], conf: Configuration): JMap[String, Any] =
    rewriting(t, conf) { opened =>
      val started = System.nanoTime()
      val footer = opened.footer
      val from = FooterFiles.formOf(footer)
      val unchanged = from == to && (to == FooterForm.Plain || verifyFooter(t.display, footer).get("status") == "valid")
      val thrift = if (unchanged && to != FooterForm.Final) None else Some(FooterFiles.thriftFooter(footer))
      val newTail = if (unchanged) {
        if (footer.isFinal) java.util.Arrays.copyOf(footer.footer, footer.footer.length + 4).tap(t =>
          System.arraycopy(FooterLayout.FinalMagic, 0, t, t.length - 4, 4))
        else FooterFiles.withLengthAndMagic(footer.footer)
      } else FooterFiles.tailFor(t.display, thrift.get, to, threads = FooterFiles.toolThreads)
      val how = if (!unchanged || out.isDefined) Some(FooterRewrite.replaceTail(opened, newTail, out, conf, inPlace)) else None
      val m = result(out.map(_.toString).getOrElse(t.display), if (unchanged) "unchanged" else "migrated",
        "source" -> t.display, "from" -> from.name, "to" -> to.name, "tail_bytes" -> newTail.length,
        "flatbuffer_bytes" -> flatBufferBytes(newTail), "seconds" -> (System.nanoTime() - started) / 1e9)
      thrift.foreach(t => m.put("thrift_bytes", t.length))
      how.foreach(h => m.put("replace", h.name))
      m
    }

  /**
   * The command line's JVM (`python -m superspark.footer` runs it, one process per call):
   * `java -cp ... io.superspark.parquet.footer.tools.FooterTool COMMAND [-D key=value]... [--output OUT] [--to FORM] PATH...`;
   * prints the JSON array on one line. Exit code 64 for a usage error, else 0 (the caller
   * reads the statuses).
   */
  def main(args: Array[String]): Unit = {
    val usage = "usage: FooterTool inspect|verify|roundtrip|add|strip|migrate [-D key=value]... [--output OUT] [--to FORM] " +
      "[--unsafe-in-place] PATH..."
    var output: String = null
    var to: String = null
    var inPlace = false
    val paths = new java.util.ArrayList[String]()
    var i = 1
    while (i < args.length) {
      args(i) match {
        case "--output" if i + 1 < args.length => output = args(i + 1); i += 1
        case "--to" if i + 1 < args.length => to = args(i + 1); i += 1
        case "--unsafe-in-place" => inPlace = true
        case "-D" if i + 1 < args.length && args(i + 1).contains("=") =>
          val kv = args(i + 1); setConf(kv.substring(0, kv.indexOf('=')), kv.substring(kv.indexOf('=') + 1)); i += 1
        case d if d.startsWith("-D") && d.contains("=") =>
          setConf(d.substring(2, d.indexOf('=')), d.substring(d.indexOf('=') + 1))
        case p => paths.add(p)
      }
      i += 1
    }
    val command = args.headOption.getOrElse("")
    if (paths.isEmpty || (command == "migrate") != (to != null)) {
      System.err.println(usage)
      sys.exit(64)
    }
    val out = command match {
      case "inspect" => inspect(paths)
      case "verify" => verify(paths)
      case "roundtrip" => roundtrip(paths)
      case "add" => add(paths, output, inPlace)
      case "strip" => strip(paths, output, inPlace)
      case "migrate" => migrate(paths, output, to, inPlace)
      case other => System.err.println(s"unknown command $other; $usage"); sys.exit(64)
    }
    System.out.println(out)
    System.out.flush()
  }
}
