package io.superspark

import org.scalatest.Tag

/**
 * The tags `make test-lines` reads to leave a costly test to one Spark line (Makefile
 * `LINE_EXCLUDES`, docs/ci.md). Every tagged test runs whole in `make test` on the line named.
 */
object TestTags {

  /**
   * Code that is the same on every line (the BSUP codec, its bad-input paths) run at a scale
   * that costs a minute or more: on 4.3 only. The line's own API path stays covered on every
   * line by the suite's other tests.
   */
  object LineIndependent extends Tag("io.superspark.LineIndependent")

  /**
   * A Delta scenario run twice (with superspark, then with Delta alone) and compared: whole on
   * 4.2, Delta's newest line. On 4.0 and 4.1 the same Delta writers and their rows are checked
   * by tests/test_every_writer.py's core scenarios, and a scan with deletion vectors through the
   * footer library by `DeltaSuite`'s footer-library scan test.
   */
  object DeltaNewestLine extends Tag("io.superspark.DeltaNewestLine")

  /**
   * Spark's reader and ours over the whole parquet-testing corpus: once per parquet-java source
   * tree of ours (jvm/src/main/parquet-*), on 4.0 (parquet-1.15, parquet-java 1.15.2) and 4.3
   * (parquet-1.16+, parquet-java 1.17.0); 4.1 (1.16.0) and 4.2 (1.17.0) leave it out.
   */
  object OncePerParquetJava extends Tag("io.superspark.OncePerParquetJava")
}
