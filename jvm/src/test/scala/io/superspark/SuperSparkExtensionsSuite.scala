package io.superspark

import io.superspark.expressions.BuildInfo

import org.apache.spark.sql.AnalysisException
import org.apache.spark.sql.types.StringType

class SuperSparkExtensionsSuite extends SparkSessionSuite {

  test("superspark_version() returns the build version as a non-null string") {
    val df = spark.sql("SELECT superspark_version() AS v")
    assert(df.schema("v").dataType == StringType)
    assert(!df.schema("v").nullable)
    val v = df.head().getString(0)
    assert(v == BuildInfo.version)
    assert(v.matches("""\d+\.\d+\.\d+.*"""), v)
  }

  test("superspark_version() is folded to a literal by the optimizer") {
    val plan = spark.sql("SELECT superspark_version() AS v").queryExecution.optimizedPlan
    assert(!plan.toString.contains("superspark_version"), plan.toString)
  }

  test("every catalog function is visible in SHOW FUNCTIONS") {
    val shown = spark.sql("SHOW FUNCTIONS").collect().map(_.getString(0)).toSet
    SuperSparkFunctions.names.foreach(n => assert(shown.contains(n), s"$n missing"))
  }

  test("DESCRIBE FUNCTION EXTENDED shows usage, examples and since") {
    val text = spark.sql("DESCRIBE FUNCTION EXTENDED superspark_version")
      .collect().map(_.getString(0)).mkString("\n")
    assert(text.contains("Function: superspark_version"), text)
    assert(text.contains("Class: io.superspark.expressions.SuperSparkVersion"), text)
    assert(text.contains("Returns the version of the superspark extension"), text)
    assert(text.contains("SELECT superspark_version();"), text)
    assert(text.contains("Since: 0.1.0"), text)
  }

  test("a wrong number of arguments is an AnalysisException naming the function") {
    val e = intercept[AnalysisException](spark.sql("SELECT superspark_version(1)").collect())
    assert(e.getCondition == "WRONG_NUM_ARGS.WITHOUT_SUGGESTION", e.getMessage)
    assert(e.getMessage.contains("superspark_version"), e.getMessage)
  }

  test("the extension loads through the static spark.sql.extensions config") {
    assert(spark.conf.get("spark.sql.extensions") == classOf[SuperSparkExtensions].getName)
    assert(spark.catalog.functionExists("superspark_version"))
  }
}
