package io.superspark.planning

import java.lang.management.ManagementFactory
import java.nio.file.Files

import org.apache.spark.sql.DataFrame
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.execution.datasources.LogicalRelation
import org.apache.spark.sql.types.{DoubleType, IntegerType, StructField, StructType}

import io.superspark.SparkSessionSuite

/**
 * [[LinearCanonicalRelation]]: the canonical form is the one Spark's own `LogicalRelation`
 * builds (computed here by Spark's class on the same relation), for folders, catalog tables and
 * whole plans; and it is built with work linear in the columns, measured as the bytes the
 * canonicalization allocates (not its time), against Spark's own on the same relation.
 */
class LinearCanonicalizationSuite extends SparkSessionSuite {

  private val Key = "spark.superspark.plan.linearCanonicalization"

  private def relations(plan: LogicalPlan): Seq[LogicalRelation] = plan.collect { case r: LogicalRelation => r }

  /** Spark's own class over the very same relation, attributes and table. */
  private def sparks(r: LogicalRelation): LogicalRelation =
    LogicalRelation(r.relation, r.output, r.catalogTable, r.isStreaming, r.stream)

  private def wide(columns: Int): DataFrame = spark.read.parquet(wideDir(columns))

  /** An empty Parquet folder of `columns` columns (analyzed afresh by each read of it). */
  private def wideDir(columns: Int): String = {
    val dir = Files.createTempDirectory("linear-canonical").toString
    val schema = StructType(StructField("id", IntegerType) +: (1 until columns).map(i =>
      StructField(s"c$i", if (i % 2 == 0) DoubleType else IntegerType)))
    spark.createDataFrame(spark.sparkContext.emptyRDD[org.apache.spark.sql.Row], schema).write.mode("overwrite").parquet(dir)
    dir
  }

  test("a Parquet folder's relation is made linear, and its canonical form is Spark's own") {
    val df = wide(300)
    val rs = relations(df.queryExecution.analyzed)
    assert(rs.map(_.getClass) == Seq(classOf[LinearCanonicalRelation]))
    val r = rs.head
    assert(r.canonicalized == sparks(r).canonicalized)
    assert(r.canonicalized.getClass == classOf[LogicalRelation], "the canonical form is Spark's own class")
    assert(r.sameResult(sparks(r)) && sparks(r).sameResult(r))
    assert(r != sparks(r) && sparks(r) != r, "unequal to Spark's own, so a transform keeps it as a child")
    // Still a LogicalRelation to Spark's and Delta's pattern matches, unapply included.
    assert(r match { case LogicalRelation(rel, out, _, false, _) => (rel eq r.relation) && out == r.output })
  }

  test("whole plans (a filter, a self-join, a catalog table, SQL) canonicalize as with Spark's own relation") {
    val dir = wideDir(40)
    def df = spark.read.parquet(dir) // read anew in each plan: analyzed with the setting of the moment
    spark.range(20).selectExpr("id", "CAST(id % 3 AS INT) AS part").write.partitionBy("part").mode("overwrite")
      .saveAsTable("linear_canonical_t")
    try {
      val plans = Seq(
        () => df.where("c5 > 1").select("id", "c7"),
        () => df.as("a").join(df.as("b"), "id").select("a.c1", "b.c2"),
        () => spark.table("linear_canonical_t").where("part = 1"),
        () => spark.sql(s"SELECT c3, count(*) FROM parquet.`$dir` WHERE id > 2 GROUP BY c3"))
      plans.foreach { make =>
        val ours = make().queryExecution.analyzed
        val theirs = withSQLConf(Key -> "false")(make().queryExecution.analyzed)
        assert(relations(ours).nonEmpty && relations(ours).forall(_.isInstanceOf[LinearCanonicalRelation]), ours)
        assert(relations(theirs).forall(_.getClass == classOf[LogicalRelation]), theirs)
        assert(ours.canonicalized == theirs.canonicalized, ours)
        assert(ours.sameResult(theirs))
      }
      assert(relations(spark.table("linear_canonical_t").queryExecution.analyzed).head.catalogTable.isDefined)
      assert(spark.table("linear_canonical_t").where("part = 1").count() == 7)
    } finally spark.sql("DROP TABLE IF EXISTS linear_canonical_t")
  }

  test("false leaves Spark's own relation") {
    withSQLConf(Key -> "false") {
      assert(relations(wide(5).queryExecution.analyzed).map(_.getClass) == Seq(classOf[LogicalRelation]))
    }
  }

  test("the canonical form of 4,000 columns allocates in proportion to them; Spark's own, to their square") {
    val mx = ManagementFactory.getThreadMXBean.asInstanceOf[com.sun.management.ThreadMXBean]
    def allocated(make: () => LogicalPlan): Long = {
      make().canonicalized // warm: the same path, on its own copy
      val plan = make()
      val before = mx.getCurrentThreadAllocatedBytes
      plan.canonicalized
      mx.getCurrentThreadAllocatedBytes - before
    }
    val r = relations(wide(4000).queryExecution.analyzed).head
    assert(r.isInstanceOf[LinearCanonicalRelation])
    val fresh = () => new LinearCanonicalRelation(r.relation, r.output, r.catalogTable, r.isStreaming, r.stream)
    val ours = allocated(fresh)
    val theirs = allocated(() => sparks(r))
    // Spark's own builds a 4,000-entry map for each of the 4,000 columns (16 million entries);
    // ours builds one.
    assert(ours < 4000L * 4096, s"linear: $ours bytes for 4,000 columns")
    assert(theirs > 20 * ours, s"Spark's own: $theirs bytes, linear: $ours bytes")
  }
}
