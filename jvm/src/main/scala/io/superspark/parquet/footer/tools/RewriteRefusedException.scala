package io.superspark.parquet.footer.tools

import io.superspark.parquet.ParquetFooterException

/**
 * A footer rewrite refused before the file was touched: another run holds it, it changed since it was
 * read, it belongs to a Delta table, or the requested way of writing is impossible there ([[FooterRewrite]]).
 */
private[superspark] class RewriteRefusedException(val reason: String)
    extends ParquetFooterException("SUPERSPARK_FOOTER_REWRITE_REFUSED", Map("reason" -> reason), null)
