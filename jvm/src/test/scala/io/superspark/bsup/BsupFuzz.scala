package io.superspark.bsup

import java.io.{ByteArrayInputStream, ByteArrayOutputStream, File}
import java.nio.file.{Files, Path}

import scala.collection.mutable.ArrayBuffer
import scala.jdk.CollectionConverters._
import scala.util.Random

import io.superspark.bsup.functions.{CellDecoder, SbDecode}
import io.superspark.bsup.spark.{BsupBatchReader, BsupInference, BsupOptions, BsupOutputWriter, BsupRowIterator, SparkReaders,
  SparkWriters, VectorReaders, WriteConf}
import io.superspark.bsup.spark.SuperTypes
import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.RawLocalFileSystem
import org.apache.spark.SparkException
import org.apache.spark.paths.SparkPath
import org.apache.spark.sql.Row
import org.apache.spark.sql.catalyst.{CatalystTypeConverters, InternalRow}
import org.apache.spark.sql.catalyst.expressions.BoundReference
import org.apache.spark.sql.execution.datasources.PartitionedFile
import org.apache.spark.sql.types.{BinaryType, DataType, Metadata, StringType, StructField, StructType, VariantType}

/**
 * Seeded mutation fuzzer of every Super Binary decode path (`make fuzz-bsup`; a slice runs in
 * CI through BsupFuzzSuite). Seeds: the files SuperDB's CLIs wrote (versions 0 and 5,
 * compressed and not) and streams our writer makes from their values (versions 0 and 5,
 * compressed and not, small frames, several streams). Each input gets one to three mutations
 * from one `java.util.Random` per run: bit flips, byte sets, truncations, insertions,
 * deletions, repeated chunks, and uvarints of boundary values (0, 2^7, 2^31, 2^32, 2^63,
 * 2^64-1, 10 and 11 bytes long) written over the bytes.
 *
 * Each input goes through five paths: the file reader ([[BsupReader]], with and without the
 * file length, and checking each value without building it as schema inference does, which
 * must fail exactly when decoding fails), the cell decoder ([[CellDecoder]]), the split finder
 * ([[BsupReader.firstStreamStart]]), the Spark row reader ([[BsupRowIterator]] with the schema
 * inferred from the input by [[BsupInference]], whole and split in two, PERMISSIVE and
 * FAILFAST) and the Spark cell decoder (`sb_decode_all` as VARIANT).
 *
 * Outcomes that pass (each input within one second of CPU time; a watchdog stops the run when
 * one takes a minute): decoded, or a [[BsupException]] (bare, or as the cause of Spark's
 * malformed-record error) whose offset lies inside the input. Failures: any other exception;
 * an offset outside the input; an input over one second of CPU time; paths that disagree (the file reader
 * and the cell decoder, the whole file and its two splits); and a silently wrong result: a
 * stream that decodes must re-encode (our writer, same version) to a stream that decodes to
 * the same values, the same Spark rows and the same VARIANT cells; and the Spark rows, written
 * back by the data source's version 5 writer (each nullable slot a union with `null`), must
 * read back as the same rows.
 */
object BsupFuzz {

  final case class Counts(var inputs: Int = 0, var decoded: Int = 0, var errors: Int = 0, var decodes: Long = 0,
      failures: ArrayBuffer[String] = ArrayBuffer.empty, var unionWrites: Int = 0, var refusedWrites: Int = 0,
      var columnar: Int = 0) {
    override def toString: String =
      s"inputs=$inputs decoded=$decoded clear_errors=$errors decodes=$decodes union_struct_writes=$unionWrites " +
        s"refused_v5_writes=$refusedWrites columnar_compared=$columnar failures=${failures.size}"
  }

  final case class Seed(name: String, bytes: Array[Byte])

  /** The CLI's files and our writer's streams made from their values. */
  def seeds(): Seq[Seed] = {
    val cli = for (v <- Seq(0, 5); c <- Evidence.cases(v); f <- Evidence.files(v, c))
      yield Seed(s"v$v/${f.getName}", Files.readAllBytes(f.toPath))
    val ours = for (v <- Seq(0, 5); c <- Evidence.cases(v); compress <- Seq(false, true)) yield {
      val f = Evidence.files(v, c).head
      val r = new BsupReader(new ByteArrayInputStream(Files.readAllBytes(f.toPath)), f.getName)
      val vals = ArrayBuffer[Value]()
      while (r.next()) vals += r.value()
      val out = new ByteArrayOutputStream()
      // Small frames and streams: several frames and end-of-stream markers per seed.
      val w = new BsupWriter(out, BsupWriterOptions(compress = compress, frameSize = 48, streamSize = 96, version = v))
      vals.foreach(w.write)
      w.close()
      Seed(s"ours-v$v/$c${if (compress) ".lz4" else ""}", out.toByteArray)
    }
    // A recursive type (version 5): a linked list whose type refers back to its name.
    val recursive = RecursiveStreams.stream(Seq(1L, 2L, 3L), Seq(7L), 1L to 40L)
    cli ++ ours :+ Seed("hand-v5/recursive", recursive)
  }

  private val boundaries: Array[Long] = Array(0L, 1L, 0x7fL, 0x80L, 0x3fffL, 0x4000L, Int.MaxValue.toLong,
    0x80000000L, 0xffffffffL, 0x100000000L, Long.MaxValue, Long.MinValue, Long.MinValue + 1, -1L)

  private def uvarintBytes(v: Long): Array[Byte] = { val b = new Array[Byte](10); b.take(Varint.putUvarint(b, 0, v)) }

  /** One mutation of `b`, and what it was. */
  def mutateOnce(b: Array[Byte], rnd: Random): (Array[Byte], String) = {
    if (b.isEmpty) return (Array(rnd.nextInt(256).toByte), "byte into empty")
    val at = rnd.nextInt(b.length)
    rnd.nextInt(9) match {
      case 0 | 1 =>
        val c = b.clone(); val bit = rnd.nextInt(8); c(at) = (c(at) ^ (1 << bit)).toByte; (c, s"flip bit $bit of byte $at")
      case 2 | 3 =>
        val c = b.clone(); val x = rnd.nextInt(256); c(at) = x.toByte; (c, f"set byte $at to 0x$x%02x")
      case 4 => (b.take(at), s"truncate to $at")
      case 5 =>
        val ins = Array.fill(1 + rnd.nextInt(4))(rnd.nextInt(256).toByte)
        (b.take(at) ++ ins ++ b.drop(at), s"insert ${ins.length} bytes at $at")
      case 6 =>
        val n = 1 + rnd.nextInt(math.min(8, b.length - at))
        (b.take(at) ++ b.drop(at + n), s"delete $n bytes at $at")
      case 7 =>
        val n = 1 + rnd.nextInt(math.min(32, b.length - at))
        (b.take(at + n) ++ b.slice(at, at + n) ++ b.drop(at + n), s"repeat $n bytes at $at")
      case _ =>
        val v = boundaries(rnd.nextInt(boundaries.length))
        val enc = rnd.nextInt(4) match {
          case 0 => uvarintBytes(v) ++ Array[Byte](0) // maybe an 11-byte varint
          case 1 if v >= 0 && v < (1L << 56) => // over-long: the same value padded to 10 bytes
            val e = uvarintBytes(v); val p = e.map(x => (x | 0x80).toByte) ++ Array.fill(10 - e.length - 1)(0x80.toByte)
            p ++ Array[Byte](0)
          case _ => uvarintBytes(v)
        }
        val old = if (at < b.length) Varint.uvarintLength(b, at, b.length) else 1
        val replace = if (rnd.nextBoolean() && old > 0) old else 0
        (b.take(at) ++ enc ++ b.drop(at + replace), s"uvarint ${java.lang.Long.toUnsignedString(v)} (${enc.length} bytes) at $at")
    }
  }

  /** A seeded (mutated) input. */
  def mutate(seed: Seed, rnd: Random): (Array[Byte], String) = {
    var b = seed.bytes
    val what = ArrayBuffer[String]()
    (0 until 1 + (if (rnd.nextInt(4) == 0) rnd.nextInt(3) else 0)).foreach { _ =>
      val (m, w) = mutateOnce(b, rnd); b = m; what += w
    }
    (b, what.mkString(", "))
  }

  // ---- the decode paths ----

  /** A decode outcome: the values, or the clear error. A failure is thrown as [[Failure]]. */
  sealed trait Outcome
  final case class Decoded(values: Seq[Any]) extends Outcome
  final case class Clear(e: BsupException) extends Outcome

  final class Failure(msg: String, cause: Throwable = null) extends Exception(msg, cause)

  final class Harness(dir: Path) {
    // The raw local file system: no checksum files to look for at each open.
    private val conf = { val c = new Configuration(); c.set("fs.file.impl", classOf[RawLocalFileSystem].getName); c }
    private val file = dir.resolve("in.bsup")
    private val again = dir.resolve("again.bsup")
    private var length = 0

    private def checkOffset(path: String, e: BsupException, len: Int): Unit =
      if (!(e.offset >= 0 && e.offset < len)) throw new Failure(s"$path: offset ${e.offset} outside the $len-byte input: ${e.getMessage}", e)

    private def bsupCause(t: Throwable): Option[BsupException] =
      Iterator.iterate(t)(_.getCause).takeWhile(_ != null).collectFirst { case b: BsupException => b }

    /** Runs `f`; a BsupException (bare or behind a Spark error) is a clear outcome, anything else a failure. */
    /** Nanoseconds spent per path. */
    val nanos = new java.util.TreeMap[String, java.lang.Long]()

    private def outcome(path: String, len: Int)(f: => Seq[Any]): Outcome = {
      val t0 = System.nanoTime()
      try timedOutcome(path, len)(f) finally nanos.merge(path, System.nanoTime() - t0, (a, b) => a + b)
    }

    private def timedOutcome(path: String, len: Int)(f: => Seq[Any]): Outcome =
      try Decoded(f) catch {
        case e: BsupException => checkOffset(path, e, len); Clear(e)
        case e: SparkException if e.getCondition != null && e.getCondition.startsWith("MALFORMED_RECORD_IN_PARSING") &&
            bsupCause(e).isDefined =>
          val b = bsupCause(e).get; checkOffset(path, b, len); Clear(b)
        case e: Failure => throw e
        case e: Exception => throw new Failure(s"$path: unchecked ${e.getClass.getName}: ${e.getMessage}", e)
        case e: StackOverflowError => throw new Failure(s"$path: stack overflow", e)
      }

    def values(b: Array[Byte], knownLength: Boolean): Seq[Value] = {
      val r = new BsupReader(new ByteArrayInputStream(b), "fuzz.bsup", 0, if (knownLength) b.length else -1)
      val out = ArrayBuffer[Value]()
      while (r.next()) {
        val v = r.value()
        // The type text and the value text (sb_to_sup) are linear in the input.
        v.typ.toString
        functions.SupText.format(v.typ, v.value, r.context.version)
        out += v
      }
      out.toSeq
    }

    /** The reader checking each value without building it (what schema inference does): its count. */
    def checkedValues(b: Array[Byte]): Seq[Int] = {
      val r = new BsupReader(new ByteArrayInputStream(b), "fuzz.bsup", 0, b.length)
      var n = 0
      while (r.next()) { r.check(); n += 1 }
      Seq(n)
    }

    def cellValues(b: Array[Byte]): Seq[Value] = {
      val d = new CellDecoder("cell")
      d.reset(b)
      val out = ArrayBuffer[Value]()
      while (d.next()) out += d.value()
      out.toSeq
    }

    def streamVersions(b: Array[Byte]): Seq[Int] = {
      val r = new BsupReader(new ByteArrayInputStream(b), "fuzz.bsup", 0, b.length)
      val out = ArrayBuffer[Int]()
      while (r.next()) out += r.context.version
      out.toSeq
    }

    /** Our writer's stream of `vals` (each at the version of the stream it came from). */
    def reencode(vals: Seq[Value], versions: Seq[Int]): Array[Byte] = {
      val out = new ByteArrayOutputStream()
      var w: BsupWriter = null
      var v = -1
      vals.zip(versions).foreach { case (x, ver) =>
        if (ver != v) {
          if (w != null) w.close()
          w = new BsupWriter(out, BsupWriterOptions(compress = false, version = ver)); v = ver
        }
        w.write(x)
      }
      if (w != null) w.close()
      out.toByteArray
    }

    def splitStart(b: Array[Byte], from: Long): Long =
      BsupReader.firstStreamStart(new ByteArrayInputStream(b), from, "fuzz.bsup", b.length)

    /** The schema Spark infers (the corrupt-record column added), or None when there is no type. */
    def inferSchema(p: Path, len: Long, opts: BsupOptions): Option[StructType] =
      BsupInference.inferSchema(Seq((new org.apache.hadoop.fs.Path(p.toUri), len)), conf, opts).map { s =>
        if (s.fieldNames.contains(opts.columnNameOfCorruptRecord)) s
        else s.add(StructField(opts.columnNameOfCorruptRecord, StringType))
      }

    /** Rows of `p[start, end)` as Scala rows. */
    def rows(p: Path, len: Long, start: Long, end: Long, schema: StructType, opts: BsupOptions): Seq[Row] = {
      val pf = PartitionedFile(InternalRow.empty, SparkPath.fromPath(new org.apache.hadoop.fs.Path(p.toUri)), start,
        end - start, Array.empty[String], 0L, len)
      val it = new BsupRowIterator(pf, conf, schema, opts)
      val conv = CatalystTypeConverters.createToScalaConverter(schema)
      try it.map(r => conv(r).asInstanceOf[Row]).toList finally it.close()
    }

    /**
     * The same rows through the columnar reader (batches of `capacity` rows, so batch ends fall
     * inside the input), or None when the schema keeps the row reader.
     */
    def columnarRows(p: Path, len: Long, start: Long, end: Long, schema: StructType, opts: BsupOptions,
        capacity: Int): Seq[Row] = {
      val pf = PartitionedFile(InternalRow.empty, SparkPath.fromPath(new org.apache.hadoop.fs.Path(p.toUri)), start,
        end - start, Array.empty[String], 0L, len)
      val it = new BsupBatchReader(pf, conf, schema, new StructType(), opts, None, capacity)
      val conv = CatalystTypeConverters.createToScalaConverter(schema)
      try it.flatMap(b => b.rowIterator().asScala.map(r => conv(r).asInstanceOf[Row]).toList).toList finally it.close()
    }

    // sb_decode (the first value) decoders that read the inputs before: the shortcut of a cell
    // whose types frame is the last cell's (CellDecoder.first) meets mutated cells.
    private val warm = scala.collection.mutable.Map[DataType, SbDecode]()
    private def firstValue(target: DataType) =
      SbDecode(BoundReference(0, BinaryType, nullable = true), target, Map.empty, all = false, failFast = true, "sb_decode")
    private def evalFirst(e: SbDecode, b: Array[Byte]): Seq[Any] =
      Seq(CatalystTypeConverters.convertToScala(e.eval(InternalRow(b)), e.dataType) match {
        case v: org.apache.spark.unsafe.types.VariantVal => v.toString
        case other => plain(other)
      })

    /**
     * `sb_decode` of the cell as `target`: by a new decoder, by the same decoder again (its
     * second read takes the shortcut when the cell allows it) and by one that read the inputs
     * before: the same value or the same error each time.
     */
    def firstValues(b: Array[Byte], target: DataType, len: Int): Outcome = {
      val fresh = firstValue(target)
      val once = outcome("sb_decode", len)(evalFirst(fresh, b))
      val twice = outcome("sb_decode", len)(evalFirst(fresh, b))
      val after = outcome("sb_decode", len)(evalFirst(warm.getOrElseUpdate(target, firstValue(target)), b))
      Seq(twice, after).foreach { o =>
        (once, o) match {
          case (Decoded(x), Decoded(y)) if BsupCodecSuite.same(x, y) =>
          case (Clear(x), Clear(y)) if x.getMessage == y.getMessage =>
          case other => throw new Failure(s"sb_decode as ${target.catalogString}: a decoder that read cells before " +
            s"disagrees with a new one: $other")
        }
      }
      once
    }

    def sparkCells(b: Array[Byte], target: DataType): Seq[Any] = {
      val e = SbDecode(BoundReference(0, BinaryType, nullable = true), target, Map.empty, all = true, failFast = true,
        "sb_decode_all")
      val r = e.eval(InternalRow(b))
      CatalystTypeConverters.convertToScala(r, e.dataType).asInstanceOf[Seq[Any]]
    }

    /** Rows as nested Seqs (binary as a Seq of bytes), to compare with [[BsupCodecSuite.same]]. */
    private def plain(x: Any): Any = x match {
      case r: Row => r.toSeq.map(plain)
      case b: Array[Byte] => b.toSeq
      case m: scala.collection.Map[_, _] => m.toSeq.map { case (k, v) => (plain(k), plain(v)) }.toSet
      case s: Seq[_] => s.map(plain)
      case other => other
    }

    private def sameRows(a: Seq[Any], b: Seq[Any]): Boolean = BsupCodecSuite.same(a.map(plain), b.map(plain))

    private val write5 = new BsupOptions(Map("version" -> "5", "decimalAs" -> "string", "compression" -> "none"),
      "_corrupt_record")

    /**
     * Version 5 with the columns' kept Super types (their metadata): the path of a union struct,
     * which is a union only through its kept type (each nullable union slot gets a `null` member,
     * the members in SuperDB's order). superdbReadable=false: kept types SuperDB lacks are written.
     */
    private val write5Kept = new BsupOptions(Map("version" -> "5", "decimalAs" -> "string", "compression" -> "none",
      "superdbReadable" -> "false"), "_corrupt_record")

    /**
     * What a version 5 write keeps of a union struct: one whose members are all null (a member
     * selected with a null value, read from a typed null of version 0) has no member to name
     * there, where nulls are not typed, so it is written as the union's `null` and reads back
     * as a null struct.
     */
    private def unionNullsAsNull(dt: DataType, v: Any): Any = (dt, v) match {
      case (_, null) => null
      case (st: StructType, r: Row) if SparkReaders.isUnionStruct(st) && (0 until r.length).forall(r.isNullAt) => null
      case (st: StructType, r: Row) => Row.fromSeq(st.fields.toSeq.zip(r.toSeq).map { case (f, x) => unionNullsAsNull(f.dataType, x) })
      case (org.apache.spark.sql.types.ArrayType(e, _), xs: scala.collection.Seq[_]) => xs.map(unionNullsAsNull(e, _))
      case (org.apache.spark.sql.types.MapType(k, vt, _), m: scala.collection.Map[_, _]) =>
        m.map { case (a, b) => (unionNullsAsNull(k, a), unionNullsAsNull(vt, b)) }
      case _ => v
    }

    /**
     * A set's distinct elements in one order (by their text), where the column's kept Super type has a
     * set: a set's order is not its value. The version 5 writer orders a set by its elements'
     * bytes (the spec's normal form), and an element that is a union with `null` there encodes
     * differently from version 0's typed null, so `|[null,1]|` may come back as `|[1,null]|`.
     */
    private def setsInOrder(t: SuperType, dt: DataType, v: Any): Any = {
      import org.apache.spark.sql.types.{ArrayType => SArray, MapType => SMap}
      (t, dt, v) match {
        case (_, _, null) => null
        case (NamedType(_, inner), _, _) => setsInOrder(inner, dt, v)
        case (ErrorType(inner), _, _) => setsInOrder(inner, dt, v)
        case (RecordType(fs), st: StructType, r: Row) if fs.size == st.length =>
          Row.fromSeq(fs.indices.map(i => setsInOrder(fs(i).typ, st.fields(i).dataType, r.get(i))))
        case (ArrayType(e), SArray(et, _), xs: scala.collection.Seq[_]) => xs.map(setsInOrder(e, et, _))
        // And its distinct elements: times read as Spark's microseconds can make two of a set's
        // nanosecond elements equal, and the writer writes a set's distinct elements.
        case (SetType(e), SArray(et, _), xs: scala.collection.Seq[_]) =>
          xs.map(setsInOrder(e, et, _)).sortBy(x => String.valueOf(plain(x))).distinctBy(x => String.valueOf(plain(x)))
        case (MapType(k, vt), SMap(kt, vdt, _), m: scala.collection.Map[_, _]) =>
          m.map { case (a, b) => (setsInOrder(k, kt, a), setsInOrder(vt, vdt, b)) }
        case (u: UnionType, st: StructType, r: Row) if SparkReaders.isUnionStruct(st) =>
          SuperTypes.unionFieldMembers(u, st) match {
            case Some(members) => Row.fromSeq(r.get(0) +: members.indices.map(i =>
              setsInOrder(u.types(members(i)), st.fields(i + 1).dataType, r.get(i + 1))))
            case None => v
          }
        case (u: UnionType, _, _) if SuperTypes.optionOf(u).isDefined => setsInOrder(SuperTypes.optionOf(u).get, dt, v)
        case _ => v
      }
    }

    private def rowSetsInOrder(s: StructType, r: Row): Row = Row.fromSeq(s.fields.toSeq.zip(r.toSeq).map { case (f, x) =>
      SuperTypes.keptType(f).fold(x)(setsInOrder(_, f.dataType, x))
    })

    /**
     * Kept types that give one name two types (a version 0 stream may redefine a name): version 5
     * cannot write them in one row, and the writer says so (BSUP_NAME_REDEFINED) before writing.
     */
    /**
     * Rows the version 5 writer refuses by design before writing, counted as refused writes: a
     * row whose kept types give one name two types (`BSUP_NAME_REDEFINED`), or whose kept types
     * (union structs) hold a fusion (its subtype is not in the Spark column, so the writer cannot write it back).
     */
    private def namesRedefined(s: StructType, c: Counts): Boolean = {
      val data = StructType(s.fields.init)
      def fusion(t: SuperType): Boolean = t.isInstanceOf[FusionType] || SuperType.children(t).exists(fusion)
      // only a write that keeps the read types (union structs) keeps the fusion
      val refused = try hasUnionStruct(s) && fusion(BsupOutputWriter.recordType(data, write5Kept)) catch {
        case e: org.apache.spark.SparkException if e.getCondition == "BSUP_NAME_REDEFINED" => true
      }
      if (refused) c.refusedWrites += 1
      refused
    }

    private def hasUnionStruct(s: StructType): Boolean = {
      def has(dt: DataType): Boolean = dt match {
        case st: StructType => SparkReaders.isUnionStruct(st) || st.fields.exists(f => has(f.dataType))
        case org.apache.spark.sql.types.ArrayType(e, _) => has(e)
        case org.apache.spark.sql.types.MapType(k, v, _) => has(k) || has(v)
        case _ => false
      }
      s.fields.init.exists(f => has(f.dataType))
    }

    /** Spark types the writer takes back as they were read: no VARIANT (written as JSON text); union structs with their kept types. */
    private def sparkWritable(s: StructType): Boolean = {
      def ok(dt: DataType): Boolean = dt match {
        case VariantType => false
        case st: StructType => st.fields.forall(f => ok(f.dataType))
        case org.apache.spark.sql.types.ArrayType(e, _) => ok(e)
        case org.apache.spark.sql.types.MapType(k, v, _) => ok(k) && ok(v)
        case _ => true
      }
      s.fields.init.forall(f => ok(f.dataType))
    }

    /** `rows` of `schema` through the data source's writer path (record type, row writer, BsupWriter). */
    def sparkWrite(schema: StructType, rows: Seq[Row], opts: BsupOptions = write5): Array[Byte] = {
      val rt = BsupOutputWriter.recordType(schema, opts)
      val rw = new SparkWriters.StructWriter(rt, schema, WriteConf.forWrite(opts.version, opts.superdbReadable))
      val conv = CatalystTypeConverters.createToCatalystConverter(schema)
      val out = new ByteArrayOutputStream()
      val w = new BsupWriter(out, opts.writerOptions)
      rows.foreach { r =>
        rw.writeStruct(conv(r).asInstanceOf[InternalRow], w.startValue(rt))
        w.finishValue()
      }
      w.close()
      out.toByteArray
    }

    private val permissive = new BsupOptions(Map.empty[String, String], "_corrupt_record")
    private val failFast = new BsupOptions(Map("mode" -> "FAILFAST"), "_corrupt_record")

    /** All paths over `b`; returns whether the file reader decoded it. Throws [[Failure]]. */
    def check(b: Array[Byte], rnd: Random, c: Counts): Boolean = {
      val len = b.length
      val file1 = outcome("reader", len)(values(b, knownLength = true))
      val file2 = outcome("reader (length unknown)", len)(values(b, knownLength = false))
      val cell = outcome("cell decoder", len)(cellValues(b))
      val checked = outcome("reader (check only)", len)(checkedValues(b))
      c.decodes += 4
      (file1, checked) match {
        case (Decoded(a), Decoded(Seq(n))) =>
          if (a.size != n) throw new Failure(s"reader (check only): $n values, the reader decoded ${a.size}")
        case (Clear(_), Clear(_)) =>
        case other => throw new Failure(s"paths disagree: reader $file1, reader (check only) $checked")
      }
      (file1, file2, cell) match {
        case (Decoded(a), Decoded(x), Decoded(y)) =>
          if (!BsupCodecSuite.same(a, x)) throw new Failure("reader: values differ with and without the file length")
          if (!BsupCodecSuite.same(a, y)) throw new Failure("cell decoder: values differ from the reader's")
        case (Clear(_), Clear(_), Clear(_)) =>
        case (Decoded(_), _, Clear(e)) if len == 0 => // an empty cell is not a stream; an empty file is
        case other => throw new Failure(s"paths disagree: reader $file1, reader without length $file2, cell $cell")
      }
      // The split finder, from a random offset.
      if (len > 0) {
        val from = 1 + rnd.nextInt(len)
        outcome("split finder", len) {
          val s = splitStart(b, from)
          if (s != -1 && (s < from || s >= len)) throw new Failure(s"split finder: stream start $s outside [$from, $len)")
          Nil
        }
        c.decodes += 1
      }
      // The Spark row reader, with the schema inferred from the input (as Spark does).
      Files.write(file, b)
      val mode = if (rnd.nextBoolean()) permissive else failFast
      val schema = outcome("inference", len)(inferSchema(file, len, mode).toSeq) match {
        case Decoded(s) => s.headOption.asInstanceOf[Option[StructType]]
        case Clear(_) => None
      }
      c.decodes += 1
      schema.foreach { s =>
        val whole = outcome("spark reader", len)(rows(file, len, 0, len, s, mode))
        c.decodes += 1
        if (mode eq permissive) whole match {
          case Clear(e) => throw new Failure(s"spark reader: PERMISSIVE failed: ${e.getMessage}", e)
          case _ =>
        }
        // The columnar reader: the same rows (corrupt-record text included) or the same error.
        if (s.forall(f => VectorReaders.supports(f.dataType))) {
          val cols = outcome("spark reader (columnar)", len)(columnarRows(file, len, 0, len, s, mode, 3))
          c.decodes += 1
          c.columnar += 1
          (whole, cols) match {
            case (Decoded(w), Decoded(v)) if !sameRows(w, v) =>
              val i = w.indices.find(i => i >= v.size || !sameRows(Seq(w(i)), Seq(v(i)))).getOrElse(w.size)
              throw new Failure(s"spark reader (columnar): other rows than the row reader (${w.size} rows vs ${v.size}); " +
                s"row $i: ${w.lift(i)} vs ${v.lift(i)}")
            case (Decoded(_), Decoded(_)) =>
            case (Clear(a), Clear(b)) if a.getMessage == b.getMessage =>
            case other => throw new Failure(s"spark reader (columnar) disagrees with the row reader: $other")
          }
        }
        if (len > 1) {
          val mid = 1 + rnd.nextInt(len - 1)
          val halves = outcome("spark reader (split)", len)(rows(file, len, 0, mid, s, mode) ++ rows(file, len, mid, len, s, mode))
          c.decodes += 1
          (file1, whole, halves) match {
            case (Decoded(_), Decoded(w), Decoded(h)) if !sameRows(w, h) =>
              throw new Failure(s"spark reader: the splits at $mid (stream start ${splitStart(b, mid)}) give other " +
                s"rows than the whole file: ${w.size} rows vs ${h.size}: $w vs $h")
            case (Decoded(_), Decoded(_), Clear(e)) =>
              throw new Failure(s"spark reader: a split at $mid fails where the whole file decodes: ${e.getMessage}", e)
            case _ =>
          }
        }
        // A stream that decodes: its re-encoding reads back as the same rows.
        (file1, whole) match {
          case (Decoded(vals), Decoded(w)) =>
            val re = reencode(vals.asInstanceOf[Seq[Value]], streamVersions(b))
            Files.write(again, re)
            val back = rows(again, re.length, 0, re.length, s, mode)
            // The corrupt-record text names another file and offset: only whether there is one counts.
            def data(rs: Seq[Any]): Seq[Any] = rs.map { case r: Row => plain(r.toSeq.init :+ r.isNullAt(r.length - 1)) }
            if (!BsupCodecSuite.same(data(back), data(w))) {
              val i = data(back).indices.find(i => i >= data(w).size || !BsupCodecSuite.same(data(back)(i), data(w)(i)))
                .getOrElse(data(w).size)
              throw new Failure(s"spark reader: rows differ after re-encoding (${w.size} rows, ${back.size} after); " +
                s"row $i: ${w.lift(i)} vs ${back.lift(i)}")
            }
          case _ =>
        }
        // Rows that decode, written by the data source's version 5 writer (each nullable slot a
        // union with null, decimals as exact text), read back as the same rows.
        whole match {
          case Decoded(w) if sparkWritable(s) && !namesRedefined(s, c) =>
            val unions = hasUnionStruct(s)
            val data = StructType(s.fields.init.map(f => if (unions) f else f.copy(metadata = Metadata.empty)))
            val intact = w.collect { case r: Row if r.isNullAt(r.length - 1) => Row.fromSeq(r.toSeq.init) }
            if (unions) c.unionWrites += 1
            val back = outcome(if (unions) "data source writer v5 (union structs) + reader" else "data source writer v5 + reader", len) {
              val re = sparkWrite(data, intact, if (unions) write5Kept else write5)
              Files.write(again, re)
              rows(again, re.length, 0, re.length, data, failFast)
            } match {
              case Decoded(x) => x
              case Clear(e) => throw new Failure(s"data source writer (v5 unions): its rows do not read back: ${e.getMessage}", e)
            }
            val expected = if (unions) intact.map(r => rowSetsInOrder(data, unionNullsAsNull(data, r).asInstanceOf[Row])) else intact
            val got = if (unions) back.map { case r: Row => rowSetsInOrder(data, r) } else back
            if (!sameRows(got, expected)) {
              throw new Failure(s"data source writer (v5 unions): rows differ after writing (${intact.size} rows, " +
                s"${back.size} after): $expected vs $got")
            }
            c.decodes += 1
          case _ =>
        }
      }
      // sb_decode's first value, as VARIANT and as the inferred record.
      firstValues(b, VariantType, len)
      c.decodes += 1
      schema.map(s => StructType(s.fields.filterNot(_.name == "_corrupt_record"))).filter(_.nonEmpty).foreach { t =>
        firstValues(b, t, len)
        c.decodes += 1
      }
      // The Spark cell decoder (sb_decode_all as VARIANT).
      val sc = outcome("sb_decode_all", len)(sparkCells(b, VariantType))
      c.decodes += 1
      (file1, sc) match {
        case (Decoded(vals), Decoded(cells)) if len > 0 =>
          val re = reencode(vals.asInstanceOf[Seq[Value]], streamVersions(b))
          // The generic values of the re-encoded stream must be the same ...
          val back = values(re, knownLength = true)
          if (!BsupCodecSuite.same(back, vals)) throw new Failure(s"reader: values differ after re-encoding")
          // ... and so must the VARIANT cells.
          if (re.nonEmpty && sparkCells(re, VariantType) != cells) throw new Failure("sb_decode_all: VARIANTs differ after re-encoding")
        case (Decoded(_), Clear(e)) if len > 0 =>
          throw new Failure(s"sb_decode_all fails where the reader decodes: ${e.getMessage}", e)
        case _ =>
      }
      file1.isInstanceOf[Decoded]
    }
  }

  /** Runs `n` inputs from `seed`. */
  def run(n: Int, seed: Long, log: String => Unit = println, limitMs: Long = 1000): Counts = {
    val dir = Files.createTempDirectory("bsup-fuzz")
    val all = seeds()
    val h = new Harness(dir)
    val c = Counts()
    // One generator for the run: java.util.Random's first outputs for nearby seeds are
    // correlated, so a generator per input would not spread the inputs.
    val rnd = new Random(seed)
    // Warm up (class loading, JIT) on the seeds themselves: they must all decode.
    all.foreach { s =>
      if (!h.check(s.bytes, rnd, Counts())) throw new IllegalStateException(s"seed ${s.name} does not decode")
    }
    @volatile var current: String = null
    @volatile var startedAt = 0L
    // A hang never returns: the watchdog names the input and stops the JVM after 60 s.
    val watchdog = new Thread(() => {
      while (true) {
        Thread.sleep(1000)
        val cur = current
        if (cur != null && System.nanoTime() - startedAt > 60L * 1000000000L) {
          System.err.println(s"bsup fuzz: input over 60 s, stopping: $cur")
          Runtime.getRuntime.halt(3)
        }
      }
    }, "bsup-fuzz-watchdog")
    watchdog.setDaemon(true)
    watchdog.start()
    // The limit is on the input's CPU time (this thread's): the machine's other work does not count.
    val cpu = java.lang.management.ManagementFactory.getThreadMXBean
    (0 until n).foreach { i =>
      val s = all(rnd.nextInt(all.size))
      val (b, what) = mutate(s, rnd)
      current = s"${s.name} ($what): ${BsupVersionsSuite.hexOf(b.take(400))}"
      startedAt = System.nanoTime()
      val cpu0 = cpu.getCurrentThreadCpuTime
      try {
        if (h.check(b, rnd, c)) c.decoded += 1 else c.errors += 1
      } catch {
        case f: Failure => c.failures += s"${s.name} ($what): ${f.getMessage}\n  input: ${BsupVersionsSuite.hexOf(b.take(400))}"
      }
      val ms = (cpu.getCurrentThreadCpuTime - cpu0) / 1000000
      if (ms > limitMs) c.failures += s"${s.name} ($what): input $i took $ms ms of CPU\n  input: ${BsupVersionsSuite.hexOf(b.take(400))}"
      current = null
      c.inputs += 1
    }
    log("time per path (s): " + h.nanos.asScala.map { case (k, v) => f"$k ${v / 1e9}%.1f" }.mkString(", "))
    c.failures.take(30).foreach(f => log(s"FAIL $f"))
    c
  }

  def main(args: Array[String]): Unit = io.superspark.FuzzMain.run("fuzz-bsup", args) { (n, seed) =>
    val c = run(n, seed)
    (c.toString, c.failures.nonEmpty)
  }
}
