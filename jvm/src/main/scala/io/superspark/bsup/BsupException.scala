package io.superspark.bsup

/**
 * A Super Binary input that does not follow the format. `offset` is the byte offset in the
 * file (or stream) where the problem was found; for data inside a compressed frame it is the
 * offset of that frame, and `detail` then also names the offset inside the decompressed
 * payload.
 */
private[superspark] class BsupException(val source: String, val offset: Long, val detail: String, cause: Throwable = null)
  extends RuntimeException(s"$source: byte offset $offset: $detail", cause)
