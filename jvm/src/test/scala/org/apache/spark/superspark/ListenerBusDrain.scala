package org.apache.spark.superspark

import org.apache.spark.SparkContext

/** Tests: waits until the listener bus has delivered every event posted so far (Spark's own tests do the same). */
object ListenerBusDrain {
  def apply(sc: SparkContext): Unit = sc.listenerBus.waitUntilEmpty()
}
