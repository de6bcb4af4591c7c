package io.superspark.parquet.footer

import java.nio.ByteBuffer
import java.nio.channels.FileChannel
import java.nio.file.{Files, Path, Paths, StandardOpenOption}
import java.util.{LinkedHashMap => JMap}

import scala.jdk.CollectionConverters._
import scala.util.chaining._
import scala.util.control.NonFatal

/**
 * The footer tools (`inspect`, `add`, `strip`, `verify`, `migrate`) over files and directories: the one
 * implementation behind `python -m superspark.footer` and `superspark.footer` (through py4j).
 * Every command returns a JSON array with one object per Parquet file; a file that fails
 * gets `"status": "error"` and a message, the others are still processed.
 */
object FooterTool {

  def inspect(paths: java.util.List[String]): String = run(paths, inspectFile)
  def verify(paths: java.util.List[String]): String = run(paths, verifyFile)
  def add(paths: java.util.List[String], output: String): String = runWithOutput(paths, output, addFile)
  def strip(paths: java.util.List[String], output: String): String = runWithOutput(paths, output, stripFile)
  /** Per file: does the Thrift footer rebuilt from its FlatBuffer equal the original bytes? */
  def roundtrip(paths: java.util.List[String]): String = run(paths, roundtripFile)
  /** Rewrites each file's footer into `to` (plain, private, intermediate, final); data pages untouched. */
  def migrate(paths: java.util.List[String], output: String, to: String): String = {
    val form = FooterForm.parse(to).getOrElse(throw new IllegalArgumentException(
      s"unknown footer form '$to' (expected one of ${FooterForm.all.mkString(", ")})"))
    runWithOutput(paths, output, migrateFile(form))
  }

  /**
   * `alp-decode`: rewrites each file holding ALP data (docs/alp.md) so that every reader opens
   * it: ratified ALP chunks become PLAIN, private-form ALP data is dropped. Files without ALP
   * data are `unchanged` (copied to `output` when given).
   */
  def alpDecode(paths: java.util.List[String], output: String): String = runWithOutput(paths, output, alpDecodeFile)

  private def alpDecodeFile(p: Path, out: Option[Path]): JMap[String, Any] = {
    val footer = FooterFiles.readFooter(p)
    out.foreach(o => Option(o.toAbsolutePath.getParent).foreach(Files.createDirectories(_)))
    if (!io.superspark.parquet.alp.AlpDecodeRewrite.hasAlp(footer)) {
      out.foreach(o => Files.copy(p, o, java.nio.file.StandardCopyOption.REPLACE_EXISTING))
      result(out.getOrElse(p), "unchanged", "source" -> p.toString)
    } else {
      val r = io.superspark.parquet.alp.AlpDecodeRewrite.rewrite(p, out.getOrElse(p),
        new org.apache.hadoop.conf.Configuration())
      result(out.getOrElse(p), "decoded", "source" -> p.toString, "alp_chunks_decoded" -> r.decoded,
        "private_alp_dropped" -> r.dropped, "bytes_before" -> r.bytesBefore, "bytes_after" -> r.bytesAfter)
    }
  }

  /** Files named by `paths`: files as given, directories walked (skipping `_*` and `.*`). */
  def expand(paths: Seq[String]): Seq[(Path, Path)] = paths.flatMap { p =>
    val path = Paths.get(p)
    if (Files.isDirectory(path)) {
      val stream = Files.walk(path)
      try stream.iterator.asScala.filter { f =>
        Files.isRegularFile(f) && !path.relativize(f).iterator.asScala.exists { part =>
          val n = part.toString
          n.startsWith(".") || n.startsWith("_")
        } && hasParquetMagic(f)
      }.toSeq.sorted.map(f => (f, path.relativize(f))) finally stream.close()
    } else Seq((path, path.getFileName))
  }

  private def hasParquetMagic(f: Path): Boolean = try {
    val ch = FileChannel.open(f, StandardOpenOption.READ)
    try {
      ch.size >= 12 && {
        val b = ByteBuffer.allocate(4)
        ch.read(b, ch.size - 4)
        java.util.Arrays.equals(b.array, FooterLayout.Magic) || java.util.Arrays.equals(b.array, FooterLayout.FinalMagic)
      }
    } finally ch.close()
  } catch { case NonFatal(_) => false }

  private def run(paths: java.util.List[String], f: Path => JMap[String, Any]): String =
    ToolJson.write(expand(paths.asScala.toSeq).map { case (p, _) => guarded(p)(f(p)) })

  private def runWithOutput(paths: java.util.List[String], output: String,
      f: (Path, Option[Path]) => JMap[String, Any]): String = {
    val files = expand(paths.asScala.toSeq)
    val single = paths.size == 1 && files.size == 1 && !Files.isDirectory(Paths.get(paths.get(0)))
    val results = files.map { case (p, rel) =>
      val out = Option(output).map { o =>
        if (single && !Files.isDirectory(Paths.get(o))) Paths.get(o) else Paths.get(o).resolve(rel)
      }
      guarded(p)(f(p, out))
    }
    ToolJson.write(results)
  }

  private def guarded(p: Path)(body: => JMap[String, Any]): JMap[String, Any] =
    try body catch {
        case e: UnrepresentableFooterException => result(p, "refused", "message" -> e.getMessage)
      case e: UnrebuildableFooterException => result(p, "refused", "message" -> e.getMessage)
      case NonFatal(e) => result(p, "error", "message" -> Option(e.getMessage).getOrElse(e.toString))
    }

  private def result(p: Path, status: String, fields: (String, Any)*): JMap[String, Any] = {
    val m = new JMap[String, Any]()
    m.put("path", p.toString)
    m.put("status", status)
    fields.foreach { case (k, v) => m.put(k, v) }
    m
  }

  private def located(footer: FooterBytes) = FooterLayout.locate(footer)

  // ---- inspect ----

  private def inspectFile(p: Path): JMap[String, Any] = {
    val footer = FooterFiles.readFooter(p)
    val m = result(p, "absent", "file_bytes" -> footer.fileLength, "footer_offset" -> footer.footerOffset,
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
    m
  }

  // ---- verify ----

  private def verifyFile(p: Path): JMap[String, Any] = {
    val footer = FooterFiles.readFooter(p)
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
                val thrift = org.apache.parquet.format.Util.readFileMetaData(new java.io.ByteArrayInputStream(bytes))
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
  private def roundtripFile(p: Path): JMap[String, Any] = {
    val footer = FooterFiles.readFooter(p)
    val original = FooterFiles.thriftFooter(footer)
    def parse(b: Array[Byte]) = org.apache.parquet.format.Util.readFileMetaData(new java.io.ByteArrayInputStream(b))
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
      def read(b: Array[Byte]) = FooterReader.thrift(FooterBytes(p.toString, footer.fileLength, footer.footerOffset, b))
      val objects = if (parse(rebuilt) == tmd) None else Some("parquet-java parses the two to different Thrift objects")
      objects.orElse(MetadataDiff.diff(read(rebuilt), read(original))) match {
        case Some(d) => m.put("status", "different"); m.put("reason", d)
        case None => m.put("status", "equivalent")
      }
    }
    m
  }

  // ---- add / strip ----

  private def addFile(p: Path, out: Option[Path]): JMap[String, Any] = {
    val started = System.nanoTime()
    val footer = FooterFiles.readFooter(p)
    val alreadyValid = located(footer) match {
      case FooterLayout.Present(_) => verifyFile(p).get("status") == "valid"
      case _ => false
    }
    val thrift = FooterFiles.thriftFooter(footer)
    val newTail =
      if (alreadyValid) FooterFiles.withLengthAndMagic(footer.footer) else FooterFiles.extendedTail(p.toString, thrift, threads = FooterFiles.toolThreads)
    if (!alreadyValid || out.isDefined) FooterFiles.rewriteTail(p, footer, newTail, out)
    result(out.getOrElse(p), if (alreadyValid) "unchanged" else "added",
      "source" -> p.toString,
      "thrift_bytes" -> thrift.length,
      "flatbuffer_bytes" -> flatBufferBytes(newTail),
      "seconds" -> (System.nanoTime() - started) / 1e9)
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

  private def stripFile(p: Path, out: Option[Path]): JMap[String, Any] = {
    val footer = FooterFiles.readFooter(p)
    val present = located(footer) match {
      case FooterLayout.Absent => false
      case _ => true // present, or damaged (delimited through the Thrift fields)
    }
    val thrift = FooterFiles.thriftFooter(footer)
    if (present || out.isDefined) FooterFiles.rewriteTail(p, footer, FooterFiles.withLengthAndMagic(thrift), out)
    result(out.getOrElse(p), if (present) "stripped" else "unchanged", "source" -> p.toString,
      "thrift_bytes" -> thrift.length)
  }

  /**
   * `migrate --to form`: the file's plain Thrift footer (stripped of the extension, or rebuilt
   * from a final-form FlatBuffer), then the tail of `form`. A file already in `form` whose
   * extension verifies is `unchanged`; only the tail is rewritten.
   */
  private def migrateFile(to: FooterForm)(p: Path, out: Option[Path]): JMap[String, Any] = {
    val started = System.nanoTime()
    val footer = FooterFiles.readFooter(p)
    val from = FooterFiles.formOf(footer)
    val unchanged = from == to && (to == FooterForm.Plain || verifyFile(p).get("status") == "valid")
    val thrift = if (unchanged && to != FooterForm.Final) None else Some(FooterFiles.thriftFooter(footer))
    val newTail = if (unchanged) {
      if (footer.isFinal) java.util.Arrays.copyOf(footer.footer, footer.footer.length + 4).tap(t =>
        System.arraycopy(FooterLayout.FinalMagic, 0, t, t.length - 4, 4))
      else FooterFiles.withLengthAndMagic(footer.footer)
    } else FooterFiles.tailFor(p.toString, thrift.get, to, threads = FooterFiles.toolThreads)
    if (!unchanged || out.isDefined) FooterFiles.rewriteTail(p, footer, newTail, out)
    val m = result(out.getOrElse(p), if (unchanged) "unchanged" else "migrated", "source" -> p.toString,
      "from" -> from.name, "to" -> to.name, "tail_bytes" -> newTail.length,
      "flatbuffer_bytes" -> flatBufferBytes(newTail), "seconds" -> (System.nanoTime() - started) / 1e9)
    thrift.foreach(t => m.put("thrift_bytes", t.length))
    m
  }

  /**
   * The command line's JVM (`python -m superspark.footer` runs it, one process per call):
   * `java -cp ... io.superspark.parquet.footer.FooterTool COMMAND [--output OUT] [--to FORM] PATH...`;
   * prints the JSON array on one line. Exit code 64 for a usage error, else 0 (the caller
   * reads the statuses).
   */
  def main(args: Array[String]): Unit = {
    val usage = "usage: FooterTool inspect|verify|roundtrip|add|strip|alp-decode|migrate [--output OUT] [--to FORM] PATH..."
    var output: String = null
    var to: String = null
    val paths = new java.util.ArrayList[String]()
    var i = 1
    while (i < args.length) {
      args(i) match {
        case "--output" if i + 1 < args.length => output = args(i + 1); i += 1
        case "--to" if i + 1 < args.length => to = args(i + 1); i += 1
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
      case "add" => add(paths, output)
      case "strip" => strip(paths, output)
      case "migrate" => migrate(paths, output, to)
      case "alp-decode" => alpDecode(paths, output)
      case other => System.err.println(s"unknown command $other; $usage"); sys.exit(64)
    }
    System.out.println(out)
    System.out.flush()
  }
}
