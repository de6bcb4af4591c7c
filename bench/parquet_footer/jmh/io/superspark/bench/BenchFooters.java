package io.superspark.bench;

import java.nio.file.Paths;
import io.superspark.parquet.footer.codec.FooterForm;
import io.superspark.parquet.footer.files.FooterBytes;
import io.superspark.parquet.footer.files.FooterFiles;


/** The benchmarks' footers: the fixture's plain Thrift footer and the same footer in a form. */
final class BenchFooters {
  private BenchFooters() {}

  /** The plain footer of `wide_<columns>.parquet` in the folder named by -Dfooter.bench.dir. */
  static FooterBytes plain(int columns) {
    return FooterFiles.readFooter(Paths.get(System.getProperty("footer.bench.dir"), "wide_" + columns + ".parquet"));
  }

  /**
   * FooterFiles.tailFor with its Scala defaults (no extra extensions, one thread, as a Spark
   * task): Java sees no default arguments, so the bench names them here, once.
   */
  static byte[] tailFor(String path, byte[] thrift, FooterForm form) {
    return FooterFiles.tailFor(path, thrift, form, FooterFiles.tailFor$default$4(), 1);
  }

  /** The footer bytes a reader sees for `plain` written in `form` (private, intermediate, final). */
  static FooterBytes inForm(FooterBytes plain, String form) {
    byte[] tail = tailFor(plain.path(), plain.footer(), FooterForm.parse(form).get());
    boolean isFinal = form.equals("final");
    byte[] footer = java.util.Arrays.copyOf(tail, tail.length - (isFinal ? 4 : 8));
    return new FooterBytes(plain.path(), plain.fileLength(), plain.footerOffset(), footer, isFinal);
  }
}
