package io.superspark.parquet.interceptor

import java.net.URI
import java.security.MessageDigest

import org.apache.hadoop.fs.{EtagSource, FileStatus, Path, RawLocalFileSystem}

/**
 * The local file system under the scheme `etagfs` (register it with `spark.hadoop.fs.etagfs.impl`),
 * whose file statuses carry an ETag as S3A's do (Hadoop's `EtagSource`): the MD5 of the file's
 * contents, as S3 gives for a single-part upload. A test can then give two files the same
 * length and modification time and still tell them apart by ETag, as on S3.
 */
class EtagFileSystem extends RawLocalFileSystem {
  override def getUri: URI = URI.create("etagfs:///")
  override def getScheme: String = "etagfs"

  override def getFileStatus(f: Path): FileStatus = {
    val st = super.getFileStatus(f)
    if (st.isDirectory) st else {
      val bytes = java.nio.file.Files.readAllBytes(java.nio.file.Path.of(pathToFile(f).getPath))
      val md5 = MessageDigest.getInstance("MD5").digest(bytes).map(b => f"${b & 0xff}%02x").mkString
      new EtagFileSystem.Status(st.getLen, st.getModificationTime, st.getPath, "\"" + md5 + "\"")
    }
  }
}

object EtagFileSystem {
  final class Status(length: Long, mtime: Long, path: Path, etag: String)
      extends FileStatus(length, false, 1, 32L << 20, mtime, mtime, null, null, null, path) with EtagSource {
    override def getEtag: String = etag
  }
}
