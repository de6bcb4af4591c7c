package io.superspark

import org.apache.spark.sql.SparkSession
import org.scalatest.BeforeAndAfterAll
import org.scalatest.funsuite.AnyFunSuite

/** A suite with one local SparkSession that has the superspark extension loaded. */
trait SparkSessionSuite extends AnyFunSuite with BeforeAndAfterAll {
  @transient protected var spark: SparkSession = _

  protected def extraConf: Map[String, String] = Map.empty

  override def beforeAll(): Unit = {
    super.beforeAll()
    val builder = SparkSession.builder()
      .master("local[2]")
      .appName(getClass.getSimpleName)
      .config("spark.sql.extensions", classOf[SuperSparkExtensions].getName)
      .config("spark.ui.enabled", "false")
      .config("spark.sql.shuffle.partitions", "2")
    extraConf.foreach { case (k, v) => builder.config(k, v) }
    spark = builder.getOrCreate()
  }

  /** Runs `f` with session configs set, then restores them. */
  protected def withSQLConf[T](pairs: (String, String)*)(f: => T): T = {
    val before = pairs.map { case (k, _) => k -> spark.conf.getOption(k) }
    pairs.foreach { case (k, v) => spark.conf.set(k, v) }
    try f finally before.foreach {
      case (k, Some(v)) => spark.conf.set(k, v)
      case (k, None) => spark.conf.unset(k)
    }
  }

  override def afterAll(): Unit = {
    try if (spark != null) spark.stop() finally super.afterAll()
  }
}
