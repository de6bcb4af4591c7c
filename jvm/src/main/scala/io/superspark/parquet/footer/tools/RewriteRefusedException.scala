package io.superspark.parquet.footer.tools

import io.superspark.parquet.ParquetFooterException

/**
 * A footer rewrite refused before the file was touched: another run holds it, it changed since it was
 * read, it belongs to a Delta table, or the requested way of writing is impossible there ([[FooterRewrite]]).
 */
private[superspark] class RewriteRefusedException(val reason: String)
    extends ParquetFooterException("SUPERSPARK_FOOTER_REWRITE_REFUSED", Map("reason" -> reason), null)

/**
 * A table job (or its SQL form) refused on a Delta table: a path inside the table, a table on a line
 * without Delta Lake, or a form Delta cannot read. Nothing was touched.
 */
private[superspark] class DeltaTableRewriteRefusedException(path: String, table: String, reason: String)
    extends ParquetFooterException("SUPERSPARK_DELTA_TABLE_REWRITE_REFUSED",
      Map("path" -> path, "table" -> table, "reason" -> reason), null)
