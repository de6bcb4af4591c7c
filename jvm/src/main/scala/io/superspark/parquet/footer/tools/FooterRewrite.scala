package io.superspark.parquet.footer.tools

import java.io.{Closeable, FileNotFoundException, IOException}
import java.nio.ByteBuffer
import java.nio.channels.{FileChannel, FileLock, OverlappingFileLockException}
import java.nio.file.{AtomicMoveNotSupportedException, Files, NoSuchFileException, StandardCopyOption, StandardOpenOption, Path => NioPath}

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.{ChecksumFileSystem, FSDataOutputStream, FileContext, FileStatus, FileSystem, LocalFileSystem, Options, Path, RawLocalFileSystem}
import io.superspark.parquet.footer.files.{FooterBytes, FooterFiles}

/**
 * The one way `add`, `strip` and `migrate` (the command line, the Python API and the Spark table
 * job) replace a Parquet file's tail, through Hadoop's `FileSystem` API (`file:`, `hdfs:`,
 * `s3a:`, ...).
 *
 * Crash-safe by default: the new file (the old data bytes, then the new tail) is written to a
 * temporary file next to the target, `.NAME.superspark-rewrite.tmp` (a leading `.`: Spark and our
 * own walk skip it), forced to disk, and renamed over the target ([[Replace]]). A kill at any
 * instant leaves the target with its old bytes or its complete new form. The old in-place
 * rewrite ([[InPlace]]: write the changed bytes into the file, truncate) is kept only as an
 * explicit opt-in: a kill during it leaves an unreadable file.
 *
 * Concurrency: on a local file system a rewrite holds an OS lock on `.NAME.superspark-rewrite.lock`
 * (a second run on the same file is refused, [[RewriteRefusedException]]); everywhere, the target's
 * length, modification time (and, locally, inode and nanosecond time) and last bytes are checked
 * again right before the rename, and a file that changed since it was read is refused.
 */
private[superspark] object FooterRewrite {

  /** What temporary files of a rewrite are called: `.NAME` + this + `.tmp` / `.ready` / `.lock`. */
  val Marker = ".superspark-rewrite"

  /** How the new file replaces the old one. */
  sealed abstract class Replace(val name: String)
  /** rename(2) over the target (local file systems), or HDFS's rename with OVERWRITE: atomic. */
  case object RenameOver extends Replace("rename")
  /** Object stores (no rename): the new object is written under the target's key and replaces it when it is
   *  complete (the upload's commit); a failed or refused write is aborted and the old object stays. */
  case object ObjectOverwrite extends Replace("object")
  /** File systems whose rename cannot overwrite: the temporary file is renamed `.NAME.superspark-rewrite.ready`,
   *  the target deleted, the `.ready` file renamed to the target; a run killed in between leaves the `.ready`
   *  file, which the next walk of the directory renames into place ([[recoverReady]]). */
  case object DeleteThenRename extends Replace("delete-rename")
  /** `s3a://` with a data part of at least 5 MiB: one multipart upload to the target's key, the data part copied
   *  on the store (`UploadPartCopy`), the new tail uploaded; completed only while the object is unchanged
   *  ([[S3ServerSideRewrite]]). A failed or refused upload is aborted and the old object stays. */
  case object ServerSideCopy extends Replace("server-copy")
  /** The opt-in fast path: the changed bytes written into the file, then truncated. Not crash-safe. */
  case object InPlace extends Replace("in-place")

  /** Hadoop configuration key: `auto` (default), `rename`, `object` or `delete-rename`. */
  val ReplaceKey = "superspark.footer.replace"
  /** Hadoop configuration key: seconds after which another process's temporary file counts as left over by a
   *  killed run on file systems without OS locks (default 600). */
  val StaleSecondsKey = "superspark.footer.staleTempSeconds"

  /** Schemes of object stores, where nothing is renamed in place. */
  val ObjectStoreSchemes: Set[String] = Set("s3a", "s3", "s3n", "gs", "oss", "cosn", "obs", "wasb", "wasbs")

  def replaceFor(fs: FileSystem, conf: Configuration): Replace = conf.get(ReplaceKey, "auto").trim match {
    case "auto" =>
      if (localFile(fs, new Path("/")).isDefined || fs.getScheme == "hdfs" || fs.getScheme == "viewfs") RenameOver
      else if (ObjectStoreSchemes(fs.getScheme)) ObjectOverwrite
      else DeleteThenRename
    case "rename" => RenameOver
    case "object" => ObjectOverwrite
    case "delete-rename" => DeleteThenRename
    case other => throw new IllegalArgumentException(s"$ReplaceKey: unknown value '$other' " +
      "(expected auto, rename, object or delete-rename)")
  }

  /** The local file behind `path` on a local Hadoop file system (with or without checksum files). */
  def localFile(fs: FileSystem, path: Path): Option[NioPath] = fs match {
    case l: LocalFileSystem => Some(l.getRawFileSystem.asInstanceOf[RawLocalFileSystem].pathToFile(path).toPath)
    case r: RawLocalFileSystem => Some(r.pathToFile(path).toPath)
    case _ => None
  }

  private def sibling(p: Path, suffix: String): Path = new Path(p.getParent, s".${p.getName}$Marker$suffix")
  def tempPath(p: Path): Path = sibling(p, ".tmp")
  def readyPath(p: Path): Path = sibling(p, ".ready")
  def lockPath(p: Path): Path = sibling(p, ".lock")
  /** Is `name` one of our temporary files (or its checksum sidecar)? */
  def isOurs(name: String): Boolean = name.startsWith(".") && name.contains(Marker + ".")
  /** The target name of a temporary file name `.NAME.superspark-rewrite.SUFFIX` (checksum sidecars: None). */
  def targetOf(name: String): Option[String] = {
    val at = name.lastIndexOf(Marker + ".")
    if (name.startsWith(".") && !name.startsWith("..") && at > 1) Some(name.substring(1, at)) else None
  }

  // ---- opening a file for a rewrite ----

  /** An OS lock (local file systems) on the target's `.lock` file; removes the file when released. */
  final class LocalLock private (file: NioPath, channel: FileChannel, lock: FileLock) extends Closeable {
    def close(): Unit = try { Files.deleteIfExists(file); lock.release() } finally channel.close()
  }

  object LocalLock {
    /** The lock, or a refusal when another process (or thread) holds it. */
    def acquire(target: NioPath): LocalLock = {
      val file = target.resolveSibling(s".${target.getFileName}$Marker.lock")
      val channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE)
      val lock = try channel.tryLock() catch { case _: OverlappingFileLockException => null }
      if (lock == null) {
        channel.close()
        throw new RewriteRefusedException(s"$target: another rewrite of this file is running (it holds $file)")
      }
      new LocalLock(file, channel, lock)
    }
  }

  /** What was read of a file: enough to tell later whether it changed. */
  final case class Snapshot(length: Long, modificationTime: Long, localKey: Option[(AnyRef, Long)],
      lastBytes: Array[Byte], etag: String = "")

  /** A file opened for a rewrite: its footer, what it looked like, and the lock held on it. */
  final class Opened private[FooterRewrite] (val fs: FileSystem, val path: Path, val footer: FooterBytes,
      val snapshot: Snapshot, lock: Option[LocalLock]) extends Closeable {
    def close(): Unit = lock.foreach(_.close())
  }

  private val LastBytes = 64 * 1024

  private def snapshotOf(fs: FileSystem, path: Path, st: FileStatus, read: (Long, Int) => Array[Byte]): Snapshot = {
    val n = math.min(st.getLen, LastBytes.toLong).toInt
    Snapshot(st.getLen, st.getModificationTime, localKey(fs, path), read(st.getLen - n, n), FooterFiles.versionOf(st))
  }

  private def localKey(fs: FileSystem, path: Path): Option[(AnyRef, Long)] = localFile(fs, path).map { f =>
    val a = Files.readAttributes(f, classOf[java.nio.file.attribute.BasicFileAttributes])
    (a.fileKey, a.lastModifiedTime.to(java.util.concurrent.TimeUnit.NANOSECONDS))
  }

  /**
   * Opens `path` for a rewrite: takes the lock (local file systems), removes a temporary file a killed run
   * left, reads the footer and the snapshot. The caller closes it (releasing the lock).
   */
  def open(path: Path, conf: Configuration): Opened = {
    val fs = path.getFileSystem(conf)
    val lock = localFile(fs, path).map(LocalLock.acquire)
    try {
      lock.foreach(_ => removeLeftovers(fs, path))
      val st = fs.getFileStatus(path)
      val in = fs.open(path)
      try {
        def readAt(off: Long, len: Int): Array[Byte] = { val b = new Array[Byte](len); in.readFully(off, b); b }
        val footer = FooterFiles.readFooter(path.toString, st.getLen, readAt)
        new Opened(fs, path, footer, snapshotOf(fs, path, st, readAt), lock)
      } finally in.close()
    } catch {
      case e: Throwable => lock.foreach(_.close()); throw e
    }
  }

  /** Under the lock: the temporary file (and its checksum file) a killed run left next to `path`. */
  private def removeLeftovers(fs: FileSystem, path: Path): Unit = {
    val tmp = tempPath(path)
    if (fs.exists(tmp)) fs.delete(tmp, false)
    fs match { // a checksum file whose data file is gone (the raw file system was used for the data)
      case c: ChecksumFileSystem =>
        val crc = c.getChecksumFile(tmp)
        if (c.getRawFileSystem.exists(crc)) c.getRawFileSystem.delete(crc, false)
      case _ =>
    }
  }

  /** Has the file changed since `snapshot`? Then why (None: unchanged). */
  def changed(fs: FileSystem, path: Path, snapshot: Snapshot): Option[String] = {
    val st = try fs.getFileStatus(path) catch { case _: FileNotFoundException => null }
    if (st == null) Some("it was deleted")
    else if (st.getLen != snapshot.length) Some(s"its length is now ${st.getLen} bytes, was ${snapshot.length}")
    else if (st.getModificationTime != snapshot.modificationTime) Some("its modification time changed")
    else if (localKey(fs, path) != snapshot.localKey) Some("it was replaced or modified (inode or nanosecond time)")
    else {
      val n = snapshot.lastBytes.length
      val now = new Array[Byte](n)
      val in = fs.open(path)
      try in.readFully(st.getLen - n, now) finally in.close()
      if (java.util.Arrays.equals(now, snapshot.lastBytes)) None else Some(s"its last $n bytes changed")
    }
  }

  private def refuseIfChanged(fs: FileSystem, path: Path, snapshot: Snapshot): Unit =
    changed(fs, path, snapshot).foreach { why =>
      throw new RewriteRefusedException(s"$path changed since it was read ($why); not rewritten")
    }

  // ---- replacing the tail ----

  /** Chunk of the copies and writes (the JDK moves a heap buffer through a direct one of its size). */
  private val Chunk = 1 << 20

  /**
   * Replaces the tail of `src` (from its footer start) by `newTail`: in `output` when given (a new file,
   * written and renamed into place the same way), else over `src` itself. Returns how it was replaced.
   * `inPlace`: the old, not crash-safe in-place rewrite (local files only, no `output`).
   */
  def replaceTail(src: Opened, newTail: Array[Byte], output: Option[Path], conf: Configuration,
      inPlace: Boolean = false): Replace = {
    if (inPlace && output.isEmpty) {
      val file = localFile(src.fs, src.path).getOrElse(throw new RewriteRefusedException(
        s"${src.path}: the in-place rewrite works on local files only (${src.fs.getScheme}: is not)"))
      refuseIfChanged(src.fs, src.path, src.snapshot)
      rewriteInPlace(file, src.footer, newTail)
      return InPlace
    }
    val target = output.getOrElse(src.path)
    val fs = target.getFileSystem(conf)
    val how = replaceFor(fs, conf)
    if (output.isDefined) Option(target.getParent).foreach(fs.mkdirs)
    (localFile(fs, target), how) match {
      case (Some(_), ObjectOverwrite) =>
        throw new IllegalArgumentException(s"$ReplaceKey=object would truncate a local file before it is read")
      case (Some(localTarget), _) => replaceLocal(src, newTail, fs, target, localTarget, output.isEmpty, how)
      case (None, ObjectOverwrite) =>
        val etag = if (output.isEmpty && conf.getBoolean(ConditionalKey, true)) src.snapshot.etag else ""
        if (serverSide(src, newTail, fs, target, etag, conf)) return ServerSideCopy
        val out = createObject(fs, target, etag)
        try {
          copyAndAppend(src, newTail, out)
          if (output.isEmpty) changed(src.fs, src.path, src.snapshot).foreach { why =>
            throw new RewriteRefusedException(s"${src.path} changed since it was read ($why); not rewritten")
          }
          out.hsync()
        } catch {
          case e: Throwable =>
            try out.abort() catch { case _: UnsupportedOperationException => }
            try out.close() catch { case _: IOException => }
            throw e
        }
        // the upload completes here: with an ETag condition the store refuses it (HTTP 412) when
        // another writer replaced the object since it was read
        try out.close() catch {
          case e: IOException if etag.nonEmpty && preconditionFailed(e) =>
            throw new RewriteRefusedException(s"${src.path} changed since it was read (the store refused the " +
              s"write: the object's ETag is no longer $etag, another writer replaced it); not rewritten")
        }
      case (None, _) =>
        val tmp = tempPath(target)
        val out = try fs.create(tmp, false) catch {
          case e: org.apache.hadoop.fs.FileAlreadyExistsException => staleOrBusy(fs, tmp, conf, e); fs.create(tmp, false)
          // HDFS: the temporary file of a killed run is still open under the dead client's lease
          case e: java.io.IOException if leaseHeld(e) => staleOrBusy(fs, tmp, conf, e); fs.create(tmp, false)
        }
        var committed = false
        try {
          try {
            copyAndAppend(src, newTail, out)
            out.hsync()
          } finally out.close()
          if (output.isEmpty) refuseIfChanged(src.fs, src.path, src.snapshot)
          if (how == RenameOver) FileContext.getFileContext(fs.getUri, conf).rename(tmp, target, Options.Rename.OVERWRITE)
          else deleteThenRename(fs, tmp, target)
          committed = true
        } finally if (!committed) fs.delete(tmp, false)
    }
    how
  }

  /**
   * A local target (with Java's file API: no Hadoop shell calls): the temporary file gets the data bytes (a
   * kernel copy), the new tail, the old file's permissions and, when the old file had one, a Hadoop checksum
   * file (`.NAME.crc`, [[ChecksumFile]]); both are forced to disk before the rename.
   */
  private def replaceLocal(src: Opened, newTail: Array[Byte], fs: FileSystem, target: Path, localTarget: NioPath,
      overSource: Boolean, how: Replace): Unit = {
    val localSrc = localFile(src.fs, src.path).orNull
    val crcOf = (f: NioPath) => f.resolveSibling(s".${f.getFileName}.crc")
    val checksums = fs.isInstanceOf[ChecksumFileSystem] && overSource && Files.exists(crcOf(localTarget))
    val tmp = localFile(fs, tempPath(target)).get
    var committed = false
    try {
      val sums = if (checksums) Some(new ChecksumFile) else None
      val ch = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE)
      try {
        copyData(src, localSrc, ch, sums)
        writeAll(ch, newTail, sums)
        ch.force(true)
      } finally ch.close()
      if (localSrc != null) copyPermissions(localSrc, tmp)
      sums.foreach(_.write(crcOf(tmp)))
      if (overSource) refuseIfChanged(src.fs, src.path, src.snapshot)
      if (how == DeleteThenRename) deleteThenRename(fs, tempPath(target), target)
      else {
        // The old checksum file goes first: at every instant the target is readable (without a checksum file
        // Hadoop reads it unchecked), never a new file with the old file's checksums.
        Files.deleteIfExists(crcOf(localTarget))
        atomicMove(tmp, localTarget)
        if (checksums) atomicMove(crcOf(tmp), crcOf(localTarget))
        forceDirectory(localTarget.toAbsolutePath.getParent)
      }
      committed = true
    } finally if (!committed) {
      Files.deleteIfExists(tmp)
      Files.deleteIfExists(crcOf(tmp))
    }
  }

  /** The data bytes (before the footer) of `src` into `ch`: a kernel copy for a local file without checksums. */
  private def copyData(src: Opened, localSrc: NioPath, ch: FileChannel, sums: Option[ChecksumFile]): Unit = {
    val end = src.footer.footerOffset
    if (localSrc != null && sums.isEmpty) {
      val in = FileChannel.open(localSrc, StandardOpenOption.READ)
      try {
        var pos = 0L
        while (pos < end) pos += in.transferTo(pos, end - pos, ch)
      } finally in.close()
    } else {
      val in = src.fs.open(src.path)
      try {
        val buf = new Array[Byte](Chunk)
        var pos = 0L
        while (pos < end) {
          val n = math.min(Chunk.toLong, end - pos).toInt
          in.readFully(pos, buf, 0, n)
          writeAll(ch, java.util.Arrays.copyOf(buf, n), sums)
          pos += n
        }
      } finally in.close()
    }
  }

  private def writeAll(ch: FileChannel, bytes: Array[Byte], sums: Option[ChecksumFile]): Unit = {
    var off = 0
    while (off < bytes.length) {
      val buf = ByteBuffer.wrap(bytes, off, math.min(Chunk, bytes.length - off))
      while (buf.hasRemaining) off += ch.write(buf)
    }
    sums.foreach(_.update(bytes, 0, bytes.length))
  }

  private def copyPermissions(from: NioPath, to: NioPath): Unit =
    try Files.setPosixFilePermissions(to, Files.getPosixFilePermissions(from)) catch {
      case _: UnsupportedOperationException => // not a POSIX file system: the default permissions stay
    }

  /**
   * Hadoop's checksum file for a local file (`ChecksumFileSystem`'s format: `crc\0`, the bytes per checksum as
   * a big-endian int, then the big-endian CRC-32 of every 512-byte chunk, the last one short).
   */
  final class ChecksumFile(bytesPerSum: Int = 512) {
    private val out = new java.io.ByteArrayOutputStream()
    private val crc = new java.util.zip.CRC32()
    private var inChunk = 0
    out.write(Array[Byte]('c', 'r', 'c', 0))
    putInt(bytesPerSum)

    private def putInt(v: Int): Unit = { out.write(v >>> 24); out.write(v >>> 16); out.write(v >>> 8); out.write(v) }

    def update(b: Array[Byte], from: Int, length: Int): Unit = {
      var off = from
      val end = from + length
      while (off < end) {
        val n = math.min(bytesPerSum - inChunk, end - off)
        crc.update(b, off, n)
        inChunk += n
        off += n
        if (inChunk == bytesPerSum) { putInt(crc.getValue.toInt); crc.reset(); inChunk = 0 }
      }
    }

    /** Writes the checksum file (with the last, short chunk's sum) and forces it to disk. */
    def write(f: NioPath): Unit = {
      if (inChunk > 0) { putInt(crc.getValue.toInt); crc.reset(); inChunk = 0 }
      val ch = FileChannel.open(f, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE)
      try {
        val buf = ByteBuffer.wrap(out.toByteArray)
        while (buf.hasRemaining) ch.write(buf)
        ch.force(true)
      } finally ch.close()
    }
  }

  private def deleteThenRename(fs: FileSystem, tmp: Path, target: Path): Unit = {
    val ready = readyPath(target)
    if (!fs.rename(tmp, ready)) throw new IOException(s"cannot rename $tmp to $ready")
    if (fs.exists(target) && !fs.delete(target, false)) throw new IOException(s"cannot delete $target")
    if (!fs.rename(ready, target)) throw new IOException(s"cannot rename $ready to $target (the new file stays there)")
  }

  /** Hadoop configuration key: rewrite `s3a://` objects on the store ([[ServerSideCopy]]) when possible (default true). */
  val ServerSideCopyKey = "superspark.footer.serverSideCopy"
  /** Tests only: an object whose bytes another writer (this process) puts over the target after the part copies,
   *  right before the server-side rewrite's CompleteMultipartUpload (the two-writers race, made deterministic). */
  private[superspark] val TestReplaceBeforeCompleteKey = "superspark.footer.test.replaceBeforeComplete"

  /** How many object rewrites of this JVM took each path: server-side copy, or streamed through the client. */
  val serverSideCopies = new java.util.concurrent.atomic.AtomicLong
  val streamedCopies = new java.util.concurrent.atomic.AtomicLong
  /** Bytes the server-side rewrites of this JVM sent as part bodies (the new tails): S3A's IOStatistics do not see
   *  them (they go through S3A's client, not its streams). */
  val serverSideBytesSent = new java.util.concurrent.atomic.AtomicLong

  private val log = org.slf4j.LoggerFactory.getLogger(getClass.getName.stripSuffix("$"))

  private val S3AClass = "org.apache.hadoop.fs.s3a.S3AFileSystem"

  /** Are `fs` an S3A file system and S3A's and the AWS SDK's classes loadable here (hadoop-aws is never in our jar)? */
  private[tools] def isS3A(fs: FileSystem): Boolean =
    Iterator.iterate[Class[_]](fs.getClass)(_.getSuperclass).takeWhile(_ != null).exists(_.getName == S3AClass) &&
      s3aLoadable

  private lazy val s3aLoadable: Boolean = try {
    val loader = getClass.getClassLoader
    Class.forName(S3AClass, false, loader)
    Class.forName("software.amazon.awssdk.services.s3.S3Client", false, loader)
    Class.forName("org.apache.hadoop.fs.s3a.S3AInternals", false, loader)
    true
  } catch { case _: ClassNotFoundException | _: LinkageError => false }

  /**
   * The server-side rewrite when it applies (`s3a://` source and target on one file system, a data part of at
   * least 5 MiB, [[ServerSideCopyKey]] on, no S3A encryption setting): true when done. False when today's
   * streamed path is to be taken (also when the store refuses the calls: nothing was changed); one INFO line
   * says which path the object took and why. A refusal (412) is thrown as [[RewriteRefusedException]].
   */
  private def serverSide(src: Opened, newTail: Array[Byte], fs: FileSystem, target: Path, etag: String,
      conf: Configuration): Boolean = {
    val why: Option[String] =
      if (!isS3A(fs)) None // not S3: no line (the streamed path is the only one)
      else if (!conf.getBoolean(ServerSideCopyKey, true)) Some(s"$ServerSideCopyKey=false")
      else if (src.fs.getUri != fs.getUri || !isS3A(src.fs)) Some("the source is on another file system or bucket")
      else if (src.footer.footerOffset < S3ServerSideRewrite.MinPart)
        Some(s"its data part (${src.footer.footerOffset} bytes) is below S3's 5 MiB part minimum")
      else if (Option(conf.getTrimmed("fs.s3a.encryption.algorithm")).exists(_.nonEmpty))
        Some("fs.s3a.encryption.algorithm is set (the server-side copy does not send encryption settings)")
      else {
        val replacement = Option(conf.getTrimmed(TestReplaceBeforeCompleteKey)).filter(_.nonEmpty)
        val beforeComplete = () => replacement.foreach { other =>
          org.apache.hadoop.fs.FileUtil.copy(fs, new Path(other), fs, target, false, true, conf)
        }
        try {
          S3ServerSideRewrite.rewrite(src, newTail, fs, target, etag, conf, beforeComplete)
          serverSideCopies.incrementAndGet()
          serverSideBytesSent.addAndGet(newTail.length.toLong)
          log.info(s"$target: footer rewritten server-side (multipart upload, data part copied on the store)")
          return true
        } catch {
          case e: S3ServerSideRewrite.Unsupported => Some(s"the store refused the server-side copy (${e.getMessage})")
          // S3A's classes seen through another class loader than superspark's: nothing was sent
          case e @ (_: LinkageError | _: ClassCastException) => Some(s"S3A's client is not usable from superspark ($e)")
        }
      }
    streamedCopies.incrementAndGet()
    why.foreach(w => log.info(s"$target: footer rewrite streams the object through the client (not server-side: $w)"))
    false
  }

  /** Hadoop configuration key: send an object store's rewrite as a conditional write on the ETag read (default true). */
  val ConditionalKey = "superspark.footer.conditionalWrite"
  /** Hadoop's `createFile` option (3.4.2+; S3A sends it as `If-Match`): the write fails unless the object's ETag is this. */
  val ConditionalEtagOption = "fs.option.create.conditional.overwrite.etag"

  /**
   * The new object under `target`'s key: a write that the store completes only while the object's ETag is
   * still `etag` (S3's conditional write, `If-Match`; docs/storage.md, "Two writers on one object"), when one
   * is given and the connector takes the option; an unconditional overwrite otherwise (a connector that does
   * not know the option refuses it at `build`).
   */
  private def createObject(fs: FileSystem, target: Path, etag: String): FSDataOutputStream =
    if (etag.isEmpty) fs.create(target, true)
    else {
      try fs.createFile(target).overwrite(true).must(ConditionalEtagOption, etag).build()
      catch { case _: IllegalArgumentException | _: UnsupportedOperationException => fs.create(target, true) }
    }

  /** A store's refusal of a conditional write (S3: HTTP 412 Precondition Failed; S3A's RemoteFileChangedException). */
  private def preconditionFailed(e: Throwable): Boolean =
    Iterator.iterate(e)(_.getCause).takeWhile(_ != null).exists { t =>
      t.getClass.getName.endsWith("RemoteFileChangedException") ||
        Option(t.getMessage).exists(m => m.contains("PreconditionFailed") || m.contains("Status Code: 412"))
    }

  /** Another process's temporary file: left over (older than [[StaleSecondsKey]]: removed) or a running rewrite. */
  /** HDFS's refusal to create a file another client still holds open (`AlreadyBeingCreatedException`). */
  private def leaseHeld(e: java.io.IOException): Boolean = {
    val name = e match {
      case r: org.apache.hadoop.ipc.RemoteException => r.getClassName
      case other => other.getClass.getName
    }
    name.endsWith("AlreadyBeingCreatedException")
  }

  private def staleOrBusy(fs: FileSystem, tmp: Path, conf: Configuration, e: Exception): Unit = {
    val age = (System.currentTimeMillis - fs.getFileStatus(tmp).getModificationTime) / 1000
    if (age < conf.getLong(StaleSecondsKey, 600)) {
      throw new RewriteRefusedException(s"another rewrite of this file is running ($tmp exists, written ${age}s ago)")
    }
    fs.delete(tmp, false)
  }

  private def copyAndAppend(src: Opened, newTail: Array[Byte], out: FSDataOutputStream): Unit = {
    val in = src.fs.open(src.path)
    try {
      val buf = new Array[Byte](Chunk)
      var pos = 0L
      while (pos < src.footer.footerOffset) {
        val n = math.min(Chunk.toLong, src.footer.footerOffset - pos).toInt
        in.readFully(pos, buf, 0, n)
        out.write(buf, 0, n)
        pos += n
      }
    } finally in.close()
    var off = 0
    while (off < newTail.length) {
      val n = math.min(Chunk, newTail.length - off)
      out.write(newTail, off, n)
      off += n
    }
  }

  private def forceFile(f: NioPath): Unit = {
    val ch = FileChannel.open(f, StandardOpenOption.READ)
    try ch.force(true) finally ch.close()
  }

  private def forceDirectory(d: NioPath): Unit = try forceFile(d) catch {
    case _: IOException => // some file systems do not open directories; the rename itself is done
  }

  private def atomicMove(from: NioPath, to: NioPath): Unit =
    try Files.move(from, to, StandardCopyOption.ATOMIC_MOVE) catch {
      case e: AtomicMoveNotSupportedException => throw new IOException(s"no atomic rename from $from to $to", e)
    }

  /**
   * [[DeleteThenRename]]'s recovery, for a directory being walked: a `.NAME.superspark-rewrite.ready` file whose
   * target is missing is a complete new file whose run was killed between the delete and the rename: it is
   * renamed into place. One whose target exists is removed (the run was killed before the delete).
   */
  def recoverReady(fs: FileSystem, dir: Path, names: Set[String]): Unit = names.foreach { name =>
    if (name.endsWith(Marker + ".ready")) targetOf(name).foreach { target =>
      val ready = new Path(dir, name)
      if (names.contains(target)) fs.delete(ready, false) else fs.rename(ready, new Path(dir, target))
    }
  }

  /**
   * The opt-in in-place rewrite: writes `newTail` from the first byte that differs from the footer as read,
   * truncates, forces. A kill between its writes leaves an unreadable file. A stale checksum file is removed.
   */
  private def rewriteInPlace(file: NioPath, footer: FooterBytes, newTail: Array[Byte]): Unit = {
    val oldTail = footer.footer
    val n = math.min(oldTail.length, newTail.length)
    val m = java.util.Arrays.mismatch(oldTail, 0, n, newTail, 0, n)
    val from = if (m < 0) n else m
    val ch = FileChannel.open(file, StandardOpenOption.WRITE)
    try {
      var off = from
      var pos = footer.footerOffset + from
      while (off < newTail.length) {
        val buf = ByteBuffer.wrap(newTail, off, math.min(Chunk, newTail.length - off))
        while (buf.hasRemaining) {
          val w = ch.write(buf, pos)
          pos += w
          off += w
        }
      }
      ch.truncate(footer.footerOffset + newTail.length)
      ch.force(true)
    } finally ch.close()
    try Files.deleteIfExists(file.resolveSibling(s".${file.getFileName}.crc")) catch { case _: NoSuchFileException => }
  }
}
