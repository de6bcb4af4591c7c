package io.superspark.parquet.footer.codec

/** Which row groups a decode materializes. */
private[superspark] sealed trait RowGroupSelection

private[superspark] object RowGroupSelection {
  /** Every row group. */
  case object All extends RowGroupSelection

  /** The row groups at these positions in the file (0-based); others are skipped. */
  final case class Indices(indices: Set[Int]) extends RowGroupSelection

  /**
   * The row groups whose midpoint lies in [start, end): parquet-java's
   * `ParquetMetadataConverter.range(start, end)`, the filter Spark uses for file splits.
   */
  final case class Range(start: Long, end: Long) extends RowGroupSelection
}

/**
 * What a decode materializes.
 *
 * @param columns  None for every column; else column paths (a path selects the leaf it names
 *                 or every leaf under the group it names, e.g. `Seq("a")` or `Seq("a", "b")`).
 *                 The resulting schema keeps only the selected leaves and their ancestors,
 *                 and each row group only their column chunks. Unknown paths select nothing.
 * @param rowGroups which row groups.
 * @param useSignedStringMinMax as parquet-java's `parquet.strings.signed-min-max.enabled`.
 * @param lazyStatistics verify and decode each chunk's statistics, size and geospatial
 *                 statistics tables on first access (same values; malformed ones read as
 *                 none, with a warning) instead of up front (where they refuse the FlatBuffer).
 */
private[superspark] final case class Projection(
    columns: Option[Seq[Seq[String]]] = None,
    rowGroups: RowGroupSelection = RowGroupSelection.All,
    useSignedStringMinMax: Boolean = false,
    lazyStatistics: Boolean = true) {
  def isFull: Boolean = columns.isEmpty
}

private[superspark] object Projection {
  val Full: Projection = Projection()

  /** Only these columns, by dotted-free path components (Java-friendly). */
  def columns(paths: java.util.List[Array[String]]): Projection = {
    val b = Seq.newBuilder[Seq[String]]
    paths.forEach(p => b += p.toSeq)
    Projection(columns = Some(b.result()))
  }
}
