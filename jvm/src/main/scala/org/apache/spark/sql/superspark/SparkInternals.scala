package org.apache.spark.sql.superspark

import org.apache.spark.sql.errors.QueryCompilationErrors

/**
 * The one place where superspark reaches Spark APIs that are `private[sql]`, so that our
 * errors are Spark's own error classes. Keep it small; it tracks Spark 4.3.
 */
object SparkInternals {
  def wrongNumArgsError(name: String, validArities: Seq[Int], actual: Int): Throwable =
    QueryCompilationErrors.wrongNumArgsError(name, validArities.map(_.toString), actual)

  /** The running application's SparkContext, if any (`SparkContext.getActive` is `private[spark]`). */
  def activeContext: Option[org.apache.spark.SparkContext] = org.apache.spark.SparkContext.getActive

  /** Waits until the listener bus has delivered every event posted so far (`listenerBus` is `private[spark]`). */
  def drainListenerBus(sc: org.apache.spark.SparkContext, timeoutMillis: Long): Unit = sc.listenerBus.waitUntilEmpty(timeoutMillis)

  /** What the SQL tab shows: the application's SQL executions, their plans and metrics (`statusStore` is `private[spark]`). */
  def sqlStatusStore(sc: org.apache.spark.SparkContext): org.apache.spark.sql.execution.ui.SQLAppStatusStore = {
    import org.apache.spark.sql.execution.ui.{SQLAppStatusListener, SQLAppStatusStore}
    // with the live listener, an execution whose last events are still being aggregated has its metrics too
    new SQLAppStatusStore(sc.statusStore.store, sc.listenerBus.findListenersByClass[SQLAppStatusListener]().headOption)
  }

  /**
   * `RDD.mapPartitionsWithIndexInternal` and `mapPartitionsInternal` (`private[spark]`): a map
   * without closure cleaning, as Spark's own scan nodes map their read RDD.
   */
  def mapPartitionsWithIndexInternal[T, U: scala.reflect.ClassTag](rdd: org.apache.spark.rdd.RDD[T])(
      f: (Int, Iterator[T]) => Iterator[U]): org.apache.spark.rdd.RDD[U] = rdd.mapPartitionsWithIndexInternal(f)

  def mapPartitionsInternal[T, U: scala.reflect.ClassTag](rdd: org.apache.spark.rdd.RDD[T])(
      f: Iterator[T] => Iterator[U]): org.apache.spark.rdd.RDD[U] = rdd.mapPartitionsInternal(f)
}
