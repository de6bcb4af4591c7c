package io.superspark.parquet.interceptor

import io.superspark.parquet.footer.files.FooterReadResult

/**
 * A second counter of a thread's footer reads: a DSv2 task's custom metrics
 * (`v2.FooterTaskCounters`) set themselves here while the task reads, and [[FooterOpener]]
 * reports every footer it decodes. The interceptor knows only this trait, not the DSv2 package.
 */
private[superspark] trait FooterReadSink {
  def record(result: FooterReadResult, nanos: Long): Unit
}

private[superspark] object FooterReadSink {
  private val current = new ThreadLocal[FooterReadSink]

  /** Runs `body` with `sink` as the current thread's sink. */
  def during[T](sink: FooterReadSink)(body: => T): T = {
    val previous = current.get
    current.set(sink)
    try body finally current.set(previous)
  }

  /** Counts one footer read in the current thread's sink, if one is set. */
  def record(result: FooterReadResult, nanos: Long): Unit = {
    val s = current.get
    if (s != null) s.record(result, nanos)
  }
}
