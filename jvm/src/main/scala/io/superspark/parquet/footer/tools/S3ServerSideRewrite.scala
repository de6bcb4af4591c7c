package io.superspark.parquet.footer.tools

import java.util.{LinkedHashMap => JMap}

import scala.jdk.CollectionConverters._
import scala.util.control.NonFatal

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.{FileSystem, Path}
import org.apache.hadoop.fs.s3a.S3AFileSystem
import software.amazon.awssdk.core.sync.RequestBody
import software.amazon.awssdk.services.s3.S3Client
import software.amazon.awssdk.services.s3.model.{AbortMultipartUploadRequest, CompleteMultipartUploadRequest,
  CompletedMultipartUpload, CompletedPart, CreateMultipartUploadRequest, ListMultipartUploadsRequest, S3Exception,
  UploadPartCopyRequest, UploadPartRequest}

/**
 * The server-side footer rewrite on `s3a://` ([[FooterRewrite.ServerSideCopy]]) and the `uploads` command's
 * listing: the only class of superspark that links to S3A's and the AWS SDK's types. [[FooterRewrite]] loads
 * it only for a file system that is an `S3AFileSystem` (hadoop-aws and the SDK are provided, never in the jar).
 *
 * The new object is one multipart upload to the target's key: the data part (the bytes before the old
 * footer) copied on the store by `UploadPartCopy` of the old object's byte ranges (parts of at most 5 GiB,
 * every one at least 5 MiB, the data part being at least that), each with `x-amz-copy-source-if-match` on the
 * ETag read; then the new tail uploaded as the last part; then `CompleteMultipartUpload` with `If-Match` on
 * the ETag read (when the object is rewritten over itself and `superspark.footer.conditionalWrite` is on). A
 * 412 from the store is a refusal ([[RewriteRefusedException]]); the upload is aborted on any failure. S3 is
 * reached through S3A's own client (`getS3AInternals().getAmazonS3Client`), so credentials, endpoint and
 * retries are the user's S3A settings.
 */
private[tools] object S3ServerSideRewrite {

  /** S3's smallest part (all but the last) and largest part. */
  val MinPart: Long = 5L << 20
  val MaxPart: Long = 5L << 30

  /** The store refused the calls themselves (e.g. 501 NotImplemented): nothing was changed, stream instead. */
  final class Unsupported(message: String, cause: Throwable) extends Exception(message, cause)

  private def s3(fs: FileSystem): S3AFileSystem = fs.asInstanceOf[S3AFileSystem]

  private def client(fs: FileSystem, reason: String): S3Client = s3(fs).getS3AInternals.getAmazonS3Client(reason)

  /** Byte ranges `[from, until)` of `length` bytes: as few parts as S3 allows, each in `[MinPart, MaxPart]`. */
  def ranges(length: Long): Seq[(Long, Long)] = {
    require(length >= MinPart, s"$length bytes: a part copy needs at least $MinPart")
    val n = ((length + MaxPart - 1) / MaxPart).toInt
    val base = length / n
    val extra = length % n
    var from = 0L
    (0 until n).map { i =>
      val size = base + (if (i < extra) 1 else 0)
      val r = (from, from + size)
      from += size
      r
    }
  }

  private def status(e: Throwable): Option[(Int, String)] =
    Iterator.iterate(e)(_.getCause).takeWhile(_ != null).collectFirst {
      case s: S3Exception => (s.statusCode, Option(s.awsErrorDetails).flatMap(d => Option(d.errorCode)).getOrElse(""))
    }

  private def refusedStatus(e: Throwable): Boolean = status(e).exists(_._1 == 412)

  private def unsupportedStatus(e: Throwable): Boolean =
    status(e).exists { case (code, error) => code == 501 || error == "NotImplemented" }

  /**
   * Writes `src`'s data bytes and `newTail` as the object `target` (on the same S3A file system). `etag`: the
   * CompleteMultipartUpload condition ("" none); the part copies are always conditional on the ETag read.
   * Throws [[Unsupported]] when the store refuses the calls (nothing changed), [[RewriteRefusedException]]
   * on a 412.
   */
  def rewrite(src: FooterRewrite.Opened, newTail: Array[Byte], fs: FileSystem, target: Path, etag: String,
      conf: Configuration, beforeComplete: () => Unit): Unit = {
    val from = s3(src.fs)
    val to = s3(fs)
    val readEtag = src.snapshot.etag
    val s3c = client(fs, "superspark footer rewrite (server-side copy)")
    val (bucket, key) = (to.getBucket, to.pathToKey(target))
    val (srcBucket, srcKey) = (from.getBucket, from.pathToKey(src.path))
    val uploadId = try {
      s3c.createMultipartUpload(CreateMultipartUploadRequest.builder().bucket(bucket).key(key)
        .contentType("application/octet-stream").build()).uploadId()
    } catch {
      case NonFatal(e) if unsupportedStatus(e) => throw new Unsupported(s"CreateMultipartUpload: ${e.getMessage}", e)
    }
    var completed = false
    try {
      val parts = Vector.newBuilder[CompletedPart]
      val copies = ranges(src.footer.footerOffset)
      copies.zipWithIndex.foreach { case ((start, until), i) =>
        val req = UploadPartCopyRequest.builder().sourceBucket(srcBucket).sourceKey(srcKey)
          .destinationBucket(bucket).destinationKey(key).uploadId(uploadId).partNumber(i + 1)
          .copySourceRange(s"bytes=$start-${until - 1}")
        if (readEtag.nonEmpty) req.copySourceIfMatch(readEtag)
        val r = try s3c.uploadPartCopy(req.build()) catch {
          case NonFatal(e) if i == 0 && unsupportedStatus(e) => throw new Unsupported(s"UploadPartCopy: ${e.getMessage}", e)
          case NonFatal(e) if refusedStatus(e) => throw new RewriteRefusedException(s"${src.path} changed since it " +
            s"was read (the store refused the part copy: the object's ETag is no longer $readEtag); not rewritten")
        }
        parts += CompletedPart.builder().partNumber(i + 1).eTag(r.copyPartResult().eTag()).build()
      }
      val last = copies.size + 1
      val up = s3c.uploadPart(UploadPartRequest.builder().bucket(bucket).key(key).uploadId(uploadId).partNumber(last)
        .contentLength(newTail.length.toLong).build(), RequestBody.fromBytes(newTail))
      parts += CompletedPart.builder().partNumber(last).eTag(up.eTag()).build()
      beforeComplete()
      val complete = CompleteMultipartUploadRequest.builder().bucket(bucket).key(key).uploadId(uploadId)
        .multipartUpload(CompletedMultipartUpload.builder().parts(parts.result().asJava).build())
      val withCondition = etag.nonEmpty && (try { complete.ifMatch(etag); true } catch {
        case _: NoSuchMethodError => false // an SDK before If-Match on CompleteMultipartUpload (2.28)
      })
      if (etag.nonEmpty && !withCondition) FooterRewrite.changed(src.fs, src.path, src.snapshot).foreach { why =>
        throw new RewriteRefusedException(s"${src.path} changed since it was read ($why); not rewritten")
      }
      try s3c.completeMultipartUpload(complete.build()) catch {
        case NonFatal(e) if refusedStatus(e) => throw new RewriteRefusedException(s"${src.path} changed since it " +
          s"was read (the store refused the write: the object's ETag is no longer $etag, another writer replaced it); " +
          "not rewritten")
      }
      completed = true
    } finally if (!completed) {
      try s3c.abortMultipartUpload(AbortMultipartUploadRequest.builder().bucket(bucket).key(key).uploadId(uploadId).build())
      catch { case NonFatal(_) => } // the failure that got here is the one to report; `uploads` finds the rest
    }
  }

  /**
   * The incomplete multipart uploads under `path`'s key prefix (S3's prefix: `s3a://b/x` covers `x/...` and
   * `x2`), oldest first: `path` (the object's URI), `status` (`incomplete`, or `aborted` when older than
   * `abortOlderThanSeconds` and aborted now), `key`, `upload_id`, `initiated` (ISO-8601) and `age_seconds`.
   */
  def uploads(fs: FileSystem, path: Path, abortOlderThanSeconds: Option[Long]): Seq[JMap[String, Any]] = {
    val s = s3(fs)
    val s3c = client(fs, "superspark footer uploads")
    val bucket = s.getBucket
    val prefix = s.pathToKey(path)
    val found = Vector.newBuilder[software.amazon.awssdk.services.s3.model.MultipartUpload]
    var req = ListMultipartUploadsRequest.builder().bucket(bucket).prefix(prefix).build()
    var more = true
    while (more) {
      val r = s3c.listMultipartUploads(req)
      found ++= r.uploads().asScala
      more = r.isTruncated != null && r.isTruncated.booleanValue
      if (more) req = req.toBuilder.keyMarker(r.nextKeyMarker).uploadIdMarker(r.nextUploadIdMarker).build()
    }
    val now = System.currentTimeMillis
    found.result().sortBy(u => Option(u.initiated).map(_.toEpochMilli).getOrElse(0L)).map { u =>
      val age = Option(u.initiated).map(i => (now - i.toEpochMilli) / 1000).getOrElse(-1L)
      val abort = abortOlderThanSeconds.exists(limit => age >= limit)
      if (abort) s3c.abortMultipartUpload(AbortMultipartUploadRequest.builder().bucket(bucket).key(u.key)
        .uploadId(u.uploadId).build())
      ToolResult(new Path(s"${fs.getUri}/${u.key}").toString, if (abort) "aborted" else "incomplete",
        "key" -> u.key, "upload_id" -> u.uploadId, "initiated" -> Option(u.initiated).map(_.toString).getOrElse(""),
        "age_seconds" -> age)
    }
  }
}
