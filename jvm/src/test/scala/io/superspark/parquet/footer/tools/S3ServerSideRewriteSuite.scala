package io.superspark.parquet.footer.tools

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.FileSystem
import org.scalatest.funsuite.AnyFunSuite

/** The server-side rewrite's part layout and the `uploads` command's age (the S3 calls: tests_stores/). */
class S3ServerSideRewriteSuite extends AnyFunSuite {
  import S3ServerSideRewrite.{MaxPart, MinPart, ranges}

  private def check(length: Long): Seq[(Long, Long)] = {
    val r = ranges(length)
    assert(r.head._1 == 0L && r.last._2 == length)
    r.zip(r.tail).foreach { case (a, b) => assert(a._2 == b._1) }
    r.foreach { case (from, until) => assert(until - from >= MinPart && until - from <= MaxPart, (from, until)) }
    assert(r.size == ((length + MaxPart - 1) / MaxPart).toInt)
    r
  }

  test("the data part in as few copied parts as S3 allows, each between 5 MiB and 5 GiB, contiguous") {
    assert(check(MinPart) == Seq((0L, MinPart)))
    assert(check(MaxPart).size == 1)
    assert(check(MaxPart + 1).size == 2)
    assert(check(12L << 30).size == 3)
    assert(check(3 * MaxPart + MinPart).size == 4)
    intercept[IllegalArgumentException](ranges(MinPart - 1))
  }

  test("uploads --abort-older-than: a number and s, m, h or d") {
    assert(UploadsCommand.parseAge("1h") == 3600L)
    assert(UploadsCommand.parseAge("30m") == 1800L)
    assert(UploadsCommand.parseAge("2d") == 172800L)
    assert(UploadsCommand.parseAge("0s") == 0L)
    assert(UploadsCommand.parseAge("15") == 15L)
    Seq("", "1w", "-1h", "h").foreach(a => intercept[IllegalArgumentException](UploadsCommand.parseAge(a)))
  }

  test("only an S3A file system takes the server-side path; uploads refuses other paths") {
    assert(!FooterRewrite.isS3A(FileSystem.getLocal(new Configuration())))
    val Seq(r) = UploadsCommand.run(Seq("file:/tmp"), None, ToolSettings.Default)
    assert(r.get("status") == "error" && r.get("message").toString.contains("not an s3a:// path"))
  }
}
