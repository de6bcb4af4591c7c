package io.superspark.parquet.footer

import java.nio.ByteBuffer
import java.nio.channels.FileChannel
import java.nio.file.{Files, Path, Paths, StandardOpenOption}
import java.util.{LinkedHashMap => JMap}

import scala.jdk.CollectionConverters._
import scala.util.control.NonFatal

import com.fasterxml.jackson.databind.ObjectMapper

/**
 * The footer tools (`inspect`, `add`, `strip`, `verify`) over files and directories: the one
 * implementation behind `python -m superspark.footer` and `superspark.footer` (through py4j).
 * Every command returns a JSON array with one object per Parquet file; a file that fails
 * gets `"status": "error"` and a message, the others are still processed.
 */
object FooterTool {

  private val json = new ObjectMapper()

  def inspect(paths: java.util.List[String]): String = run(paths, inspectFile)
  def verify(paths: java.util.List[String]): String = run(paths, verifyFile)
  def add(paths: java.util.List[String], output: String): String = runWithOutput(paths, output, addFile)
  def strip(paths: java.util.List[String], output: String): String = runWithOutput(paths, output, stripFile)

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
        java.util.Arrays.equals(b.array, FooterLayout.Magic)
      }
    } finally ch.close()
  } catch { case NonFatal(_) => false }

  private def run(paths: java.util.List[String], f: Path => JMap[String, Any]): String =
    json.writeValueAsString(expand(paths.asScala.toSeq).map { case (p, _) => guarded(p)(f(p)) }.asJava)

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
    json.writeValueAsString(results.asJava)
  }

  private def guarded(p: Path)(body: => JMap[String, Any]): JMap[String, Any] =
    try body catch {
      case e: UnrepresentableFooterException => result(p, "refused", "message" -> e.getMessage)
      case NonFatal(e) => result(p, "error", "message" -> Option(e.getMessage).getOrElse(e.toString))
    }

  private def result(p: Path, status: String, fields: (String, Any)*): JMap[String, Any] = {
    val m = new JMap[String, Any]()
    m.put("path", p.toString)
    m.put("status", status)
    fields.foreach { case (k, v) => m.put(k, v) }
    m
  }

  private def located(footer: FooterBytes) = FooterLayout.locate(footer.footer)

  // ---- inspect ----

  private def inspectFile(p: Path): JMap[String, Any] = {
    val footer = FooterFiles.readFooter(p)
    val m = result(p, "absent", "file_bytes" -> footer.fileLength, "footer_offset" -> footer.footerOffset,
      "footer_bytes" -> footer.footer.length)
    located(footer) match {
      case FooterLayout.Absent =>
        m.put("extension", false)
        m.put("thrift_bytes", footer.footer.length)
      case FooterLayout.Corrupt(reason) =>
        m.put("status", "corrupt")
        m.put("extension", true)
        m.put("uuid", FooterLayout.ExtensionUuid.toString)
        m.put("size_crc", if (reason.isInstanceOf[FallbackReason.SizeCrcMismatch]) "mismatch" else "ok")
        m.put("flatbuffer_crc", reason match {
          case _: FallbackReason.FlatBufferCrcMismatch => "mismatch"
          case _ => "unchecked"
        })
        m.put("reason", reason.toString)
      case FooterLayout.Present(ext) =>
        m.put("status", "present")
        m.put("extension", true)
        m.put("uuid", FooterLayout.ExtensionUuid.toString)
        m.put("thrift_bytes", ext.thriftPrefixLength + 1)
        m.put("flatbuffer_bytes", ext.flatBufferLength)
        m.put("size_crc", "ok")
        m.put("flatbuffer_crc", "ok")
    }
    val read = FooterReader.read(footer)
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
      case FooterLayout.Absent => result(p, "absent")
      case FooterLayout.Corrupt(reason) => result(p, "corrupt", "reason" -> reason.toString)
      case FooterLayout.Present(ext) =>
        val buf = ByteBuffer.wrap(footer.footer, ext.flatBufferOffset, ext.flatBufferLength).slice()
        FooterReader.decodeFlatBuffer(buf) match {
          case Left(reason) => result(p, "corrupt", "reason" -> reason.toString)
          case Right(fromFlatBuffer) =>
            val thrift = org.apache.parquet.format.Util.readFileMetaData(
              new java.io.ByteArrayInputStream(ext.thriftFooter(footer.footer)))
            MetadataDiff.diff(fromFlatBuffer, FooterReader.thrift(footer)).orElse(ThriftDiff.diff(thrift, buf)) match {
              case Some(d) => result(p, "mismatch", "reason" -> d)
              case None => result(p, "valid", "flatbuffer_bytes" -> ext.flatBufferLength,
                "thrift_bytes" -> (ext.thriftPrefixLength + 1))
            }
        }
    }
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
      if (alreadyValid) FooterFiles.withLengthAndMagic(footer.footer) else FooterFiles.extendedTail(p.toString, thrift)
    if (!alreadyValid || out.isDefined) FooterFiles.rewriteTail(p, footer, newTail, out)
    result(out.getOrElse(p), if (alreadyValid) "unchanged" else "added",
      "source" -> p.toString,
      "thrift_bytes" -> thrift.length,
      "flatbuffer_bytes" -> (FooterLayout.locate(java.util.Arrays.copyOf(newTail, newTail.length - 8)) match {
        case FooterLayout.Present(ext) => ext.flatBufferLength
        case _ => 0
      }),
      "seconds" -> (System.nanoTime() - started) / 1e9)
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

  /** `java -cp ... io.superspark.parquet.footer.FooterTool inspect|add|strip|verify PATH...` (JSON). */
  def main(args: Array[String]): Unit = {
    if (args.length < 2) {
      System.err.println("usage: FooterTool inspect|add|strip|verify PATH...")
      sys.exit(64)
    }
    val paths = args.drop(1).toSeq.asJava
    val out = args(0) match {
      case "inspect" => inspect(paths)
      case "verify" => verify(paths)
      case "add" => add(paths, null)
      case "strip" => strip(paths, null)
      case other => System.err.println(s"unknown command $other"); sys.exit(64)
    }
    println(out)
  }
}
