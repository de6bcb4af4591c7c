package io.superspark.parquet.footer.writers

import java.net.URI
import java.util.EnumSet

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.{CreateFlag, FSDataOutputStream, FileSystem, FilterFileSystem, LocalFileSystem, Path}
import org.apache.hadoop.fs.Options.ChecksumOpt
import org.apache.hadoop.fs.permission.FsPermission
import org.apache.hadoop.hdfs.DistributedFileSystem
import org.apache.hadoop.util.Progressable

import io.superspark.parquet.footer.codec.FooterForm

/** What the wrapping file systems share: their settings, and wrapping one created stream. */
private[writers] final class Holding(fs: FileSystem) {
  private var form: FooterForm = FooterForm.Private
  private var maxTail: Int = EveryWriter.DefaultMaxTail.toInt

  def configure(conf: Configuration): Unit = {
    form = FooterForm.parse(conf.get(EveryWriter.FormKey, "private")).filter(_ != FooterForm.Plain).getOrElse(FooterForm.Private)
    maxTail = math.max(16L, math.min(conf.getLong(EveryWriter.MaxTailKey, EveryWriter.DefaultMaxTail), Int.MaxValue - 64L)).toInt
  }

  /**
   * `create`'s stream, wrapped in a [[HeldTailStream]] when `f` is to be held. A create that
   * calls another create of the same file system on the same thread is wrapped once.
   */
  def apply(f: Path)(create: => FSDataOutputStream): FSDataOutputStream =
    if (Holding.depth.get > 0) create
    else {
      Holding.depth.set(Holding.depth.get + 1)
      val s = try create finally Holding.depth.set(Holding.depth.get - 1)
      val path = fs.makeQualified(f)
      EveryWriter.skipReason(path) match {
        case Some(skip) => EveryWriter.record(path, skip); s
        case None => new FSDataOutputStream(new HeldTailStream(s, path, EveryWriter.formFor(fs, path, form), maxTail), null)
      }
    }
}

private[writers] object Holding {
  val depth: ThreadLocal[Int] = ThreadLocal.withInitial(() => 0)
}

/**
 * The creates of a file system whose output streams are held ([[EveryWriter]]): mixed into
 * the scheme's own class (or a filter over it), it wraps what that class's creates return.
 */
private[writers] trait HoldsTails extends FileSystem {
  private val holding = new Holding(this)

  abstract override def initialize(name: URI, conf: Configuration): Unit = {
    super.initialize(name, conf)
    holding.configure(conf)
  }

  abstract override def create(f: Path, permission: FsPermission, overwrite: Boolean, bufferSize: Int,
      replication: Short, blockSize: Long, progress: Progressable): FSDataOutputStream =
    holding(f)(super.create(f, permission, overwrite, bufferSize, replication, blockSize, progress))

  abstract override def create(f: Path, permission: FsPermission, flags: EnumSet[CreateFlag], bufferSize: Int,
      replication: Short, blockSize: Long, progress: Progressable, checksumOpt: ChecksumOpt): FSDataOutputStream =
    holding(f)(super.create(f, permission, flags, bufferSize, replication, blockSize, progress, checksumOpt))

  abstract override def createNonRecursive(f: Path, permission: FsPermission, overwrite: Boolean, bufferSize: Int,
      replication: Short, blockSize: Long, progress: Progressable): FSDataOutputStream =
    holding(f)(super.createNonRecursive(f, permission, overwrite, bufferSize, replication, blockSize, progress))

  abstract override def createNonRecursive(f: Path, permission: FsPermission, flags: EnumSet[CreateFlag],
      bufferSize: Int, replication: Short, blockSize: Long, progress: Progressable): FSDataOutputStream =
    holding(f)(super.createNonRecursive(f, permission, flags, bufferSize, replication, blockSize, progress))
}

/** `file:` — Hadoop's `LocalFileSystem` (checksummed), its output streams held ([[EveryWriter]]). */
private[superspark] class EveryWriterLocalFileSystem extends LocalFileSystem with HoldsTails

/** `hdfs:` — HDFS's `DistributedFileSystem`, its output streams held ([[EveryWriter]]). */
private[superspark] class EveryWriterHdfs extends DistributedFileSystem with HoldsTails

/**
 * Any other scheme (`s3a:`, `gs:`, `abfs:`...): a filter over the scheme's own file system — the
 * class set for it before ([[EveryWriter.delegateKey]]), else the one Hadoop finds for the scheme
 * — whose output streams are held ([[EveryWriter]]).
 */
private[superspark] class EveryWriterFileSystem extends FilterFileSystem with HoldsTails {
  override def initialize(name: URI, conf: Configuration): Unit = {
    val scheme = name.getScheme
    val cls = Option(conf.get(EveryWriter.delegateKey(scheme))) match {
      case Some(c) => conf.getClassByName(c)
      case None =>
        val plain = new Configuration(conf)
        plain.unset(s"fs.$scheme.impl")
        FileSystem.getFileSystemClass(scheme, plain)
    }
    fs = cls.getDeclaredConstructor().newInstance().asInstanceOf[FileSystem]
    fs.initialize(name, conf)
    super.initialize(name, conf)
  }

  override def getScheme: String = fs.getScheme
}
