package io.superspark

import java.nio.file.{Files, Path, Paths}

/**
 * The read-only material beside the clone (`../shared`), found the one way every suite uses:
 * the environment variable first (`PARQUET_TESTING`: the parquet-testing checkout, with its
 * `data/` folder; `SUPERDB_EVIDENCE`: SuperDB's files), else `shared/...` in the working
 * directory or a folder above it (a clone, or a git worktree below one). No machine path.
 */
object SharedData {
  private def fromEnv(name: String): Option[Path] =
    sys.env.get(name).filter(_.nonEmpty).map(Paths.get(_)).filter(Files.isDirectory(_))

  private def above(rel: String): Option[Path] =
    Iterator.iterate(Paths.get("").toAbsolutePath)(_.getParent).takeWhile(_ != null)
      .map(_.resolve("shared").resolve(rel)).find(Files.isDirectory(_))

  /** The parquet-testing checkout (its `data/` holds the files). */
  lazy val parquetTesting: Option[Path] = fromEnv("PARQUET_TESTING").orElse(above("corpus/parquet-testing"))

  /** parquet-testing's `data/` folder. */
  lazy val parquetTestingData: Option[Path] = parquetTesting.map(_.resolve("data")).filter(Files.isDirectory(_))

  /** SuperDB's files (`interop/superdb`). */
  lazy val superdbEvidence: Option[Path] = fromEnv("SUPERDB_EVIDENCE").orElse(above("interop/superdb"))

  final val ParquetTestingMissing =
    "the parquet-testing corpus (../shared/corpus/parquet-testing) was not found: set PARQUET_TESTING to that folder"
  final val SuperdbMissing =
    "SuperDB's files (../shared/interop/superdb) were not found: set SUPERDB_EVIDENCE to that folder"
}
