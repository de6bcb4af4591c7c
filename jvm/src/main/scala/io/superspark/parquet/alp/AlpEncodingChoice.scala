package io.superspark.parquet.alp

import java.util.Locale

/**
 * The writer's estimate of one column chunk's (or one page's) values in bits per non-null
 * value: ALP (the page codec's bytes on a sample, exceptions and vector headers included,
 * uncompressed) against the ordinary encoding it would keep (PLAIN through the column's codec,
 * `ordinary` names it, e.g. `PLAIN+SNAPPY`). ALP is chosen when it is not larger
 * (`alpBits <= ordinaryBits`): on equal bytes its decode is the cheaper one (no decompression).
 */
private[superspark] final case class AlpEstimate(alpBits: Double, ordinaryBits: Double, ordinary: String, sampled: Int) {
  def alp: Boolean = alpBits <= ordinaryBits
  def reason: String =
    if (alp) f"ALP estimate $alpBits%.1f bits/value <= $ordinary $ordinaryBits%.1f".formatLocal(Locale.ROOT)
    else f"ALP estimate $alpBits%.1f bits/value > $ordinary $ordinaryBits%.1f".formatLocal(Locale.ROOT)
}

/**
 * Samples values to choose between ALP and the ordinary encoding (docs/alp.md, "Which
 * encoding a chunk gets"): up to [[SampleRuns]] runs of [[RunValues]] consecutive non-null
 * values spread evenly over the rows (consecutive, because ALP's frame of reference and the
 * codec both work on neighbours), each encoded with [[AlpCodec]] and written PLAIN through the
 * column's codec. Rows with no value (all null) choose ALP: it stores nothing for them.
 */
private[superspark] object AlpEncodingChoice {
  final val SampleRuns = 8
  final val RunValues = 1024

  def estimate(v: AlpValues, from: Int, n: Int, compression: PageCompression, ordinary: String): AlpEstimate = {
    val rows = sampleRows(v, from, n)
    if (rows.isEmpty) return AlpEstimate(0, 0, ordinary, 0)
    val runs = rows.grouped(RunValues).toSeq
    var alpBytes = 0L
    var plainBytes = 0L
    runs.foreach { run =>
      val page = if (v.t == AlpType.Double) AlpCodec.encodeDoubles(run.map(v.doubles(_)))
        else AlpCodec.encodeFloats(run.map(v.floats(_)))
      alpBytes += page.length - AlpCodec.HeaderBytes
    }
    val plain = java.nio.ByteBuffer.allocate(rows.length * v.t.valueBytes).order(java.nio.ByteOrder.LITTLE_ENDIAN)
    rows.foreach(i => if (v.t == AlpType.Double) plain.putDouble(v.doubles(i)) else plain.putFloat(v.floats(i)))
    plainBytes = compression.compress(plain.array()).length
    AlpEstimate(alpBytes * 8.0 / rows.length, plainBytes * 8.0 / rows.length, ordinary, rows.length)
  }

  /**
   * The rows of the sample: [[SampleRuns]] runs of up to [[RunValues]] consecutive non-null
   * rows, starting at evenly spaced rows of [from, from + n); all non-null rows when fewer.
   */
  private def sampleRows(v: AlpValues, from: Int, n: Int): Array[Int] = {
    val out = Array.newBuilder[Int]
    val starts = if (n <= SampleRuns * RunValues) Seq(from) else (0 until SampleRuns).map(k => from + (k.toLong * n / SampleRuns).toInt)
    val limit = if (n <= SampleRuns * RunValues) n else RunValues
    starts.zipWithIndex.foreach { case (s, k) =>
      val end = if (k + 1 < starts.size) starts(k + 1) else from + n
      var i = s
      var taken = 0
      while (i < end && taken < limit) {
        if (v.nulls == null || !v.nulls(i)) { out += i; taken += 1 }
        i += 1
      }
    }
    out.result()
  }

  /** `PLAIN+SNAPPY` for the codec of Parquet's `CompressionCodec` value (`PLAIN` when uncompressed). */
  def ordinaryName(codec: Int): String =
    if (codec == AlpChunkWriter.Uncompressed) "PLAIN"
    else "PLAIN+" + ParquetPageCompression.codecName(codec).map(_.name).getOrElse(s"codec $codec")
}
