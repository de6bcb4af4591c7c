package io.superspark.bsup

import java.io.File

/**
 * The files SuperDB's own CLI wrote (`shared/interop/superdb`, next to the repository or above
 * it; `SUPERDB_EVIDENCE` overrides), read in place.
 */
object Evidence {
  /** The folder, when it exists; suites that need it skip (`assume`) with [[missing]] otherwise. */
  lazy val available: Option[File] = io.superspark.SharedData.superdbEvidence.map(_.toFile)

  final val missing = io.superspark.SharedData.SuperdbMissing

  lazy val dir: File = available.getOrElse(throw new IllegalStateException(missing))

  /** The cases of version `v` (names of `<case>.expected.sup`). */
  def cases(v: Int): Seq[String] =
    Option(new File(dir, s"v$v").listFiles()).toSeq.flatten.map(_.getName)
      .filter(_.endsWith(".expected.sup")).map(_.stripSuffix(".expected.sup")).sorted

  /** The `.bsup` files of a case: compressed, uncompressed, small frames. */
  def files(v: Int, c: String): Seq[File] =
    Option(new File(dir, s"v$v").listFiles()).toSeq.flatten
      .filter(f => f.getName.startsWith(c + ".") && f.getName.endsWith(".bsup")).sortBy(_.getName)

  def lines(f: File): Seq[String] = {
    val src = scala.io.Source.fromFile(f, "UTF-8")
    try src.getLines().filter(_.nonEmpty).toList finally src.close()
  }
}
