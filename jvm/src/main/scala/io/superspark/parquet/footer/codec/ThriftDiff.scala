package io.superspark.parquet.footer.codec

import java.nio.ByteBuffer

import org.apache.parquet.format.{FileMetaData => TFileMetaData, Statistics => TStatistics}

import io.superspark.parquet.footer.{fbs => fb}

/**
 * The FlatBuffer against the Thrift footer it was made from, for the fields parquet-java's
 * `ParquetMetadata` does not carry (so [[MetadataDiff]] cannot see them): version, row
 * counts, row-group file offsets, compressed sizes, ordinals and sorting columns; per chunk
 * the stored statistics bytes (min_value/max_value and the deprecated min/max), counts,
 * exactness flags, num_values, index page offset and key-value metadata. The first
 * difference, or None. The buffer must have passed [[FlatBufferVerifier]].
 */
private[superspark] object ThriftDiff {

  private def same(what: => String, x: Any, y: Any): Option[String] =
    if (x == y) None else Some(s"$what: $x (Thrift) != $y (FlatBuffer)")

  private def bytes(b: Array[Byte]): Option[Seq[Byte]] = Option(b).map(_.toSeq)

  private def opt[T](set: Boolean, v: => T): Option[T] = if (set) Some(v) else None

  def diff(t: TFileMetaData, buf: ByteBuffer): Option[String] = {
    val md = FlatBufferDecoder.root(buf)
    val stats = new ChunkStatistics(md.getByteBuffer, md.createdBy())
    val checks = Iterator.single(() => same("version", t.getVersion, md.version)) ++
      Iterator.single(() => same("num_rows", t.getNum_rows, md.numRows)) ++
      Iterator.single(() => same("row groups", Option(t.getRow_groups).map(_.size).getOrElse(0), md.rowGroupsLength)) ++
      Iterator.range(0, md.rowGroupsLength).map(r => () => rowGroup(t, md, r, stats))
    checks.map(_()).collectFirst { case Some(d) => d }
  }

  private def rowGroup(t: TFileMetaData, md: fb.FileMetaData, r: Int, stats: ChunkStatistics): Option[String] = {
    val trg = t.getRow_groups.get(r)
    val rg = md.rowGroups(new fb.RowGroup(), r)
    val where = s"row group $r"
    val sorting = Option(trg.getSorting_columns).map(_.toArray.toSeq.map { c =>
      val s = c.asInstanceOf[org.apache.parquet.format.SortingColumn]
      (s.getColumn_idx, s.isDescending, s.isNulls_first)
    })
    val fbSorting = if (rg.sortingColumnsLength == 0 && rg.sortingColumnsVector() == null) None
      else Some((0 until rg.sortingColumnsLength).map { i =>
        val s = rg.sortingColumns(i)
        (s.columnIdx, s.descending, s.nullsFirst)
      })
    val head = Iterator(
      () => same(s"$where num_rows", trg.getNum_rows, rg.numRows),
      () => same(s"$where total_byte_size", trg.getTotal_byte_size, rg.totalByteSize),
      () => same(s"$where file_offset", opt(trg.isSetFile_offset, trg.getFile_offset), opt(rg.hasFileOffset, rg.fileOffset)),
      () => same(s"$where total_compressed_size", opt(trg.isSetTotal_compressed_size, trg.getTotal_compressed_size),
        opt(rg.hasTotalCompressedSize, rg.totalCompressedSize)),
      () => same(s"$where ordinal", opt(trg.isSetOrdinal, trg.getOrdinal), opt(rg.hasOrdinal, rg.ordinal)),
      () => same(s"$where sorting columns", sorting, fbSorting))
    val chunks = Iterator.range(0, rg.columnsLength).map(j => () => chunk(t, trg, rg, r, j, stats))
    (head ++ chunks).map(_()).collectFirst { case Some(d) => d }
  }

  private def chunk(t: TFileMetaData, trg: org.apache.parquet.format.RowGroup, rg: fb.RowGroup, r: Int, j: Int,
      stats: ChunkStatistics): Option[String] = {
    val tc = trg.getColumns.get(j)
    val tm = tc.getMeta_data
    val c = rg.columns(new fb.ColumnChunk(), j)
    val m = c.metaData()
    val where = s"row group $r column $j ${tm.getPath_in_schema}"
    val kv = Option(tm.getKey_value_metadata).map(_.toArray.toSeq.map { x =>
      val k = x.asInstanceOf[org.apache.parquet.format.KeyValue]
      (k.getKey, Option(k.getValue))
    })
    val fbKv = if (m.keyValueMetadataLength == 0 && m.keyValueMetadataVector() == null) None
      else Some((0 until m.keyValueMetadataLength).map { i =>
        val k = m.keyValueMetadata(i)
        (k.key, Option(k.`val`))
      })
    val checks = Iterator(
      () => same(s"$where num_values", tm.getNum_values, if (m.hasNumValues) m.numValues else rg.numRows),
      () => same(s"$where index_page_offset", opt(tm.isSetIndex_page_offset, tm.getIndex_page_offset),
        opt(m.hasIndexPageOffset, m.indexPageOffset)),
      () => same(s"$where dictionary_page_offset", opt(tm.isSetDictionary_page_offset, tm.getDictionary_page_offset),
        opt(m.hasDictionaryPageOffset, m.dictionaryPageOffset)),
      () => same(s"$where key_value_metadata", kv, fbKv),
      () => same(s"$where file_path", Option(tc.getFile_path), Option(c.filePath)),
      () => statistics(s"$where statistics", Option(tm.getStatistics), Option(m.statistics()), tm.getType, stats))
    checks.map(_()).collectFirst { case Some(d) => d }
  }

  private def statistics(where: String, t: Option[TStatistics], f: Option[fb.Statistics],
      physical: org.apache.parquet.format.Type, stats: ChunkStatistics): Option[String] = (t, f) match {
    case (None, None) => None
    case (Some(_), None) | (None, Some(_)) => same(where, t.isDefined, f.isDefined)
    case (Some(ts), Some(fs)) =>
      val Array(min, max, lmin, lmax) = stats.storedValues(fs, FlatBufferDecoder.storageLeaf(physical))
      def b(set: Boolean, v: => Array[Byte]) = if (set) bytes(v) else None
      Iterator(
        () => same(s"$where min_value", b(ts.isSetMin_value, ts.getMin_value), bytes(min)),
        () => same(s"$where max_value", b(ts.isSetMax_value, ts.getMax_value), bytes(max)),
        () => same(s"$where min", b(ts.isSetMin, ts.getMin), bytes(lmin)),
        () => same(s"$where max", b(ts.isSetMax, ts.getMax), bytes(lmax)),
        () => same(s"$where null_count", opt(ts.isSetNull_count, ts.getNull_count), opt(fs.hasNullCount, fs.nullCount)),
        () => same(s"$where distinct_count", opt(ts.isSetDistinct_count, ts.getDistinct_count),
          opt(fs.hasDistinctCount, fs.distinctCount)),
        () => same(s"$where is_min_value_exact", opt(ts.isSetIs_min_value_exact, ts.isIs_min_value_exact),
          opt(fs.hasIsMinValueExact, fs.isMinValueExact)),
        () => same(s"$where is_max_value_exact", opt(ts.isSetIs_max_value_exact, ts.isIs_max_value_exact),
          opt(fs.hasIsMaxValueExact, fs.isMaxValueExact))
      ).map(_()).collectFirst { case Some(d) => d }
  }
}
