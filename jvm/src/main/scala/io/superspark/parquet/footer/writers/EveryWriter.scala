package io.superspark.parquet.footer.writers

import java.nio.charset.StandardCharsets
import java.util.concurrent.ConcurrentHashMap
import java.util.concurrent.atomic.AtomicLong

import scala.jdk.CollectionConverters._

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.Path
import org.slf4j.LoggerFactory

import io.superspark.parquet.footer.codec.{FooterForm, FooterLayout}
import io.superspark.parquet.footer.files.FooterFiles
import io.superspark.parquet.thrift.{ThriftFields, ThriftForParquetJava}

/**
 * The footer for every writer (docs/parquet-footer.md, "Every writer"): Hadoop `FileSystem`s
 * whose output streams for `*.parquet` files hold back the file's last bytes and, at close,
 * write them with the FlatBuffers footer extension added to the Thrift footer. Nothing before
 * the footer changes; a file that cannot take the footer is written exactly as its writer wrote
 * it, counted by reason ([[EveryWriter.counts]]) and logged once.
 *
 * The settings travel in Hadoop configurations (so every task's job configuration carries
 * them to the executors): the `fs.<scheme>.impl` of each wrapped scheme, and the keys below.
 */
private[superspark] object EveryWriter {
  private val log = LoggerFactory.getLogger(getClass)

  /** The footer form written (private, intermediate or final). */
  val FormKey = "superspark.everyWriter.form"
  /** Most bytes one open stream holds back: a footer (with its length and magic) longer than this is left alone. */
  val MaxTailKey = "superspark.everyWriter.maxTailBytes"
  /** The file system class a wrapped scheme delegates to, when it had one set before (`fs.<scheme>.impl`). */
  def delegateKey(scheme: String): String = s"superspark.everyWriter.delegate.$scheme"

  val DefaultMaxTail: Long = 64L << 20

  /** The wrapper class for `scheme`: ones that keep the scheme's own class type (casts in Hadoop and Spark), else the filter. */
  def wrapperClass(scheme: String): String = scheme match {
    case "file" => classOf[EveryWriterLocalFileSystem].getName
    case "hdfs" => classOf[EveryWriterHdfs].getName
    case _ => classOf[EveryWriterFileSystem].getName
  }

  /**
   * Sets `conf` so that every file system of `schemes` made from it (or from a copy: the jobs'
   * configurations) wraps its output streams. Idempotent. A class set before for a scheme becomes
   * that scheme's delegate.
   */
  def configure(conf: Configuration, schemes: Seq[String], form: FooterForm, maxTailBytes: Long): Unit = {
    conf.set(FormKey, form.name)
    conf.setLong(MaxTailKey, maxTailBytes)
    schemes.foreach { scheme =>
      val key = s"fs.$scheme.impl"
      val wrapper = wrapperClass(scheme)
      Option(conf.get(key)).filter(_ != wrapper).foreach(prev => conf.set(delegateKey(scheme), prev))
      conf.set(key, wrapper)
    }
  }

  /** What became of one file. */
  sealed abstract class Outcome(val name: String)
  /** The new tail: `tail` up to `keep`, then `newFooter` (the extended footer, its length and magic). */
  final case class Extended(keep: Int, newFooter: Array[Byte]) extends Outcome("extended")
  /** Written as its writer wrote it, for `reason` (one of [[Reasons]]). */
  final case class LeftAlone(reason: String, detail: String) extends Outcome(reason)

  /** Why a file was left alone (counter names). */
  object Reasons {
    val AlreadyExtended = "alreadyExtended"
    val Encrypted = "encrypted"
    val NotParquetTail = "notParquetTail"
    val TailOverLimit = "tailOverLimit"
    val Flushed = "flushed"
    val SizeRecordedByWriter = "sizeRecordedByWriter"
    val Unrepresentable = "unrepresentable"
    val DeltaLog = "deltaLog"
    val NotParquetName = "notParquetName"
    val all: Seq[String] = Seq(AlreadyExtended, Encrypted, NotParquetTail, TailOverLimit, Flushed,
      SizeRecordedByWriter, Unrepresentable, DeltaLog, NotParquetName)
  }

  private val EncryptedMagic = "PARE".getBytes(StandardCharsets.US_ASCII)
  /** Iceberg's key in the footer's key-value metadata: its manifests record the writer's own byte count. */
  val IcebergSchemaKey = "iceberg.schema"
  private val IcebergKeyBytes = IcebergSchemaKey.getBytes(StandardCharsets.UTF_8)

  /**
   * The outcome for a file whose last bytes are `tail` (`tail.length` of them; the file may be
   * longer). Never throws: a footer that does not parse or cannot be represented is left alone.
   */
  def extendTail(path: String, tail: Array[Byte], form: FooterForm): Outcome = {
    val n = tail.length
    if (n >= 4 && java.util.Arrays.equals(tail, n - 4, n, EncryptedMagic, 0, 4)) {
      return LeftAlone(Reasons.Encrypted, "encrypted footer (PARE)")
    }
    if (n < 12 || !java.util.Arrays.equals(tail, n - 4, n, FooterLayout.Magic, 0, 4)) {
      return LeftAlone(Reasons.NotParquetTail, s"the last bytes are not a Parquet footer (no PAR1 at byte ${n - 4} of the tail)")
    }
    val footerLength = FooterLayout.getIntLE(tail, n - 8).toLong & 0xFFFFFFFFL
    val footerStart = n - 8 - footerLength
    if (footerStart < 0) {
      return LeftAlone(Reasons.TailOverLimit, s"a footer of $footerLength bytes is longer than the ${n - 8} bytes held")
    }
    val thrift = java.util.Arrays.copyOfRange(tail, footerStart.toInt, n - 8)
    FooterLayout.locate(thrift) match {
      case FooterLayout.Absent =>
      case _ => return LeftAlone(Reasons.AlreadyExtended, "the footer already carries the extension")
    }
    try {
      // FileMetaData field 8, encryption_algorithm: a plaintext footer of an encrypted file, signed
      if (ThriftFields.hasField(thrift, 8)) {
        return LeftAlone(Reasons.Encrypted, "an encrypted file's plaintext footer (signed: it cannot change)")
      }
      if (indexOf(thrift, IcebergKeyBytes) >= 0 &&
          Option(ThriftForParquetJava.parse(thrift).getKey_value_metadata).exists(_.asScala.exists(_.getKey == IcebergSchemaKey))) {
        return LeftAlone(Reasons.SizeRecordedByWriter,
          "an Iceberg data file (iceberg.schema): Iceberg's manifests record the writer's byte count")
      }
      Extended(footerStart.toInt, FooterFiles.tailFor(path, thrift, form))
    } catch {
      case e: Exception => LeftAlone(Reasons.Unrepresentable, s"the footer cannot take the extension: ${e.getMessage}")
    }
  }

  private def indexOf(in: Array[Byte], what: Array[Byte]): Int = {
    val first = what(0)
    var i = 0
    val last = in.length - what.length
    while (i <= last) {
      if (in(i) == first && java.util.Arrays.equals(in, i, i + what.length, what, 0, what.length)) return i
      i += 1
    }
    -1
  }

  // ---- counters: one per outcome, per JVM ----

  private val counters = new ConcurrentHashMap[String, AtomicLong]()
  private def counter(name: String) = counters.computeIfAbsent(name, _ => new AtomicLong)
  /** Bytes held back by the streams open now, and the most held at once since the last reset. */
  private val heldNow = new AtomicLong
  private val heldPeak = new AtomicLong

  /**
   * Told each outcome's counter name, in the thread that created or closed the file: the task's
   * thread for a task's files ([[EveryWriterPlugin]] adds them to the task's accumulators).
   */
  @volatile private var listener: String => Unit = _ => ()
  def onRecord(f: String => Unit): Unit = listener = f

  def record(path: Path, outcome: Outcome): Unit = {
    counter(outcome.name).incrementAndGet()
    // two sinks, each on its own: one that fails does not cost the other its count
    def inform(sink: String)(tell: => Unit): Unit =
      try tell catch {
        case e: Exception => log.warn(s"$path: the every-writer $sink failed (the file is unaffected)", e)
      }
    inform("task metrics")(listener(outcome.name))
    inform("SQL metrics")(EveryWriterQueryMetrics.add(outcome.name))
    outcome match {
      case LeftAlone(reason, detail) if reason != Reasons.NotParquetName && reason != Reasons.DeltaLog =>
        log.info(s"$path: written without the footer extension ($reason): $detail")
      case LeftAlone(reason, detail) => log.debug(s"$path: not held ($reason): $detail")
      case _ => log.debug(s"$path: written with the footer extension")
    }
  }

  def held(delta: Long): Unit = {
    val now = heldNow.addAndGet(delta)
    heldPeak.accumulateAndGet(now, math.max)
  }

  val HeldPeak = "heldBytesPeak"
  /** The counters of files: extended, and left alone by reason. */
  val fileCounterNames: Seq[String] = "extended" +: Reasons.all
  val counterNames: Seq[String] = fileCounterNames :+ HeldPeak

  /** One counter of this JVM (`heldBytesPeak`: the held bytes' peak). */
  def count(name: String): Long = if (name == HeldPeak) heldPeak.get else counter(name).get

  /** The counters of this JVM: files extended, files left alone by reason, and the held bytes' peak. */
  def counts: Map[String, Long] = counterNames.map(k => k -> count(k)).toMap

  // What this JVM has sent to the driver ([[EveryWriterPlugin]], executors), and what the driver got.
  private var sent = Map.empty[String, Long]
  private val remote = new ConcurrentHashMap[String, AtomicLong]()

  /** What changed since the last call: each counter's gain, and the held peak itself when it moved. */
  def takeGained(): Map[String, Long] = synchronized {
    val (now, before) = (counts, sent)
    sent = now
    now.collect { case (k, v) if v != before.getOrElse(k, 0L) => k -> (if (k == HeldPeak) v else v - before.getOrElse(k, 0L)) }
  }

  /** On the driver: an executor's gains (its held peak is a maximum, not a gain). */
  def addRemote(gained: Map[String, Long]): Unit = gained.foreach { case (k, v) =>
    val c = remote.computeIfAbsent(k, _ => new AtomicLong)
    if (k == HeldPeak) c.accumulateAndGet(v, math.max) else c.addAndGet(v)
  }

  /** The application's counts on the driver: this JVM's and every remote executor's (with [[EveryWriterPlugin]]). */
  def applicationCounts: Map[String, Long] = counts.map { case (k, v) =>
    val r = Option(remote.get(k)).fold(0L)(_.get)
    k -> (if (k == HeldPeak) math.max(v, r) else v + r)
  }

  def reset(): Unit = synchronized { counters.clear(); heldPeak.set(heldNow.get); remote.clear(); sent = Map.empty }

  /** `path` is to be held: a `*.parquet` name, not in a Delta log. None: held; else why not. */
  def skipReason(path: Path): Option[LeftAlone] = {
    val name = path.getName
    if (!name.endsWith(".parquet")) Some(LeftAlone(Reasons.NotParquetName, "not named *.parquet"))
    else if (inDeltaLog(path)) Some(LeftAlone(Reasons.DeltaLog, "a Delta log file (_delta_log)"))
    else None
  }

  private def inDeltaLog(path: Path): Boolean = {
    var p = path.getParent
    while (p != null) {
      if (p.getName == "_delta_log") return true
      p = p.getParent
    }
    false
  }

  /** The form to write into `path`: the final form is refused inside Delta tables, so the intermediate one is written there. */
  def formFor(fs: org.apache.hadoop.fs.FileSystem, path: Path, form: FooterForm): FooterForm =
    if (form != FooterForm.Final) form
    else {
      var p = path.getParent
      var inDelta = false
      while (p != null && !inDelta) {
        inDelta = try fs.exists(new Path(p, "_delta_log")) catch { case _: java.io.IOException => false }
        p = p.getParent
      }
      if (inDelta) FooterForm.Intermediate else form
    }
}
