package io.superspark.bsup.spark

import scala.jdk.CollectionConverters._

import io.superspark.bsup.{BsupException, BsupReader, SuperType}
import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.Path
import org.apache.spark.sql.types.{StringType, StructField, StructType}

/**
 * Schema inference: the distinct top-level types of the first values of each file. The values
 * examined are checked by every rule of decoding too (without building them), so that
 * malformed input is seen here as it would be when reading (like Spark's JSON source, which
 * parses every record it infers from).
 */
private[superspark] object BsupInference {
  /**
   * The schema of the values of `files` (path, length), or None when they hold no value. Up to
   * `threads` files are read at once; their types are merged in file order (a union's members
   * come in the order first seen), and the first error in file order is the one thrown.
   */
  def inferSchema(files: Seq[(Path, Long)], conf: Configuration, opts: BsupOptions, threads: Int = 1): Option[StructType] = {
    val types = new java.util.LinkedHashSet[SuperType]()
    val versions = new java.util.HashSet[Integer]()
    val perFile = inParallel(files, threads) { case (p, len) =>
      val ts = new java.util.LinkedHashSet[SuperType]()
      val vs = new java.util.HashSet[Integer]()
      (ts, vs, collectTypes(p, len, conf, opts, ts, vs))
    }
    val malformed = perFile.flatMap { case (ts, vs, bad) => types.addAll(ts); versions.addAll(vs); bad }
    val data =
      if (types.isEmpty) None
      else {
        val schema = SuperTypes.toSchema(types.asScala.reduce(SuperTypes.merge), opts.typeOptions)
        // Data of one version other than 0 keeps it in the metadata, so a write restores it.
        Some(if (versions.size == 1 && versions.iterator.next() != 0) SuperTypes.withVersion(schema, versions.iterator.next())
          else schema)
      }
    withCorruptColumn(data, malformed, opts)
  }

  /**
   * `f` of each of `xs`, in their order, computed by up to `threads` daemon threads (inline for
   * one). The first failure in `xs`'s order is rethrown as it was thrown; the rest are cancelled.
   */
  private[spark] def inParallel[A, B](xs: Seq[A], threads: Int)(f: A => B): Seq[B] =
    if (xs.size <= 1 || threads <= 1) xs.map(f)
    else {
      val n = new java.util.concurrent.atomic.AtomicInteger()
      val pool = java.util.concurrent.Executors.newFixedThreadPool(math.min(xs.size, threads), (r: Runnable) => {
        val t = new Thread(r, s"bsup-infer-${n.incrementAndGet()}")
        t.setDaemon(true)
        t
      })
      try {
        val futures = xs.map(x => pool.submit(() => f(x)))
        futures.map { fu =>
          try fu.get() catch { case e: java.util.concurrent.ExecutionException => throw e.getCause }
        }
      } finally pool.shutdownNow()
    }

  /**
   * Adds the types of the first values of `path` to `types` (and their
   * stream versions to `versions`). Returns the first format error met (a malformed value is
   * skipped; a malformed frame ends the file); in FAILFAST mode it is thrown instead, as Spark's
   * malformed-record error naming the file and the byte offset.
   */
  def collectTypes(path: Path, length: Long, conf: Configuration, opts: BsupOptions,
      types: java.util.Set[SuperType], versions: java.util.Set[Integer] = null): Option[BsupException] = {
    val in = path.getFileSystem(conf).open(path)
    val reader = new BsupReader(in, path.toString, 0L, length)
    var firstBad: Option[BsupException] = None
    // A malformed value is one corrupt record: the values after it are still read (its frame is
    // intact). A malformed frame ends the file, as when reading.
    def malformed(e: BsupException): Unit = {
      if (opts.isFailFast) throw BsupRowIterator.malformed(e)
      if (firstBad.isEmpty) firstBad = Some(e)
    }
    try {
      var seen = new java.util.BitSet()
      var stream = 0
      var n = 0L
      while ((opts.samplingValues < 0 || n < opts.samplingValues) && reader.next()) {
        if (reader.streamNumber != stream) { seen = new java.util.BitSet(); stream = reader.streamNumber }
        // The type is well formed (its types frame was read) even when the value is not: a bad
        // byte in a value does not change the schema.
        if (!seen.get(reader.typeId)) {
          seen.set(reader.typeId)
          types.add(reader.valueType)
          if (versions != null) versions.add(reader.context.version)
        }
        try reader.check() catch { case e: BsupException => malformed(e) }
        n += 1
      }
      firstBad
    } catch {
      // Only format errors: anything else is a bug and fails the query.
      case e: BsupException => malformed(e); firstBad
    } finally reader.close()
  }

  /**
   * The inferred schema after format errors: like Spark's JSON source, PERMISSIVE mode adds the
   * corrupt-record column (`columnNameOfCorruptRecord`, a string) so that the rows that fail
   * carry their error (file, byte offset, reason); when no value could be read at all, the
   * schema is that column alone. In DROPMALFORMED mode a file with no readable value at all
   * fails with the first error (naming file and offset) rather than Spark's bare
   * UNABLE_TO_INFER_SCHEMA. (FAILFAST errors were thrown while collecting.)
   */
  def withCorruptColumn(data: Option[StructType], malformed: Seq[BsupException], opts: BsupOptions): Option[StructType] =
    if (malformed.isEmpty) data
    else if (opts.isDropMalformed) {
      if (data.isEmpty) throw BsupRowIterator.malformed(malformed.head)
      data
    } else {
      val s = data.getOrElse(new StructType())
      val name = opts.columnNameOfCorruptRecord
      if (s.fieldNames.contains(name)) Some(s) else Some(s.add(StructField(name, StringType, nullable = true)))
    }
}
