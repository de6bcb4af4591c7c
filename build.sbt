// superspark: Spark SQL extension (Scala/JVM core). See README.md, "Development".
//
// One source tree, one jar per Spark 4 minor line (docs/spark-lines.md). SPARK_LINE (default
// 4.3) picks the line: its jar is compiled against the very jars bundled inside that line's
// pinned pyspark wheel (SPARK_JARS, default the line's venv: `.venv` for 4.3,
// `.venv-spark4.x` for the others, made by `dev/setup.sh`), so the JVM code and the Python
// package can never disagree on a version, and no second copy of Spark is downloaded. Spark,
// Scala, parquet-java, flatbuffers-java and Arrow Java are *provided*: nothing of them is
// packaged. Code that differs between lines lives in `jvm/src/main/spark-<line>/` behind the
// `SparkLineShims` object, which extends the `org.apache.spark.sql.superspark.SparkLineAdapter`
// trait (a member missing on a line is a compile error); everything else is shared.

import java.nio.file.{Files, Paths}

ThisBuild / organization := "io.superspark"
ThisBuild / version := "0.1.0"

/** Each supported Spark line and the pyspark release its jar is built against (the newest patch on PyPI). */
lazy val SparkLines = Map("4.0" -> "4.0.5", "4.1" -> "4.1.4", "4.2" -> "4.2.1", "4.3" -> "4.3.0")
lazy val sparkLine = {
  val l = sys.env.getOrElse("SPARK_LINE", "4.3")
  require(SparkLines.contains(l), s"SPARK_LINE=$l: supported lines are ${SparkLines.keys.toSeq.sorted.mkString(", ")}")
  l
}
/**
 * Each line's Scala: the scala-library inside its pyspark wheel. A jar compiled by a newer 2.13
 * calls what an older library lacks (2.13.18's case classes call `caseClassHash`, which Spark
 * 4.0.5's 2.13.16 does not have: every bsup write failed on 4.0 with NoSuchMethodError).
 */
lazy val ScalaVersions = Map("4.0" -> "2.13.16", "4.1" -> "2.13.17", "4.2" -> "2.13.18", "4.3" -> "2.13.18")
ThisBuild / scalaVersion := ScalaVersions(sparkLine)
/** Delta Lake's artifact for each line it supports (delta-spark 4.4.0: Spark 4.0, 4.1 and 4.2). */
lazy val DeltaVersion = "4.4.0"
lazy val DeltaArtifacts = Map("4.0" -> "delta-spark_4.0_2.13", "4.1" -> "delta-spark_4.1_2.13", "4.2" -> "delta-spark_4.2_2.13")
/** Source folders that several lines share, and the lines each serves (docs/spark-lines.md). */
lazy val SharedLineDirs = Seq("spark-4.0-4.1" -> Set("4.0", "4.1"), "spark-4.0-4.2" -> Set("4.0", "4.1", "4.2"),
  "spark-4.1-4.3" -> Set("4.1", "4.2", "4.3"))
/** The parquet-java adapter's folder of each line: its parquet-java version (4.0: 1.15.2; 4.1: 1.16; 4.2, 4.3: 1.17). */
lazy val ParquetJavaDirs = Map("4.0" -> "parquet-1.15").withDefaultValue("parquet-1.16+")
/** Source folders of a line: its own, then the ones it shares with other lines. */
def lineSourceDirs(base: File, kind: String): Seq[File] = {
  val shared = SharedLineDirs.collect { case (d, lines) if lines(sparkLine) => d } :+ ParquetJavaDirs(sparkLine) :+
    (if (DeltaArtifacts.contains(sparkLine)) "delta" else "no-delta")
  (s"spark-$sparkLine" +: shared).map(d => base / "jvm" / "src" / kind / d / "scala")
}

/**
 * S3A (hadoop-aws) at each line's Hadoop (its pyspark's hadoop-client-api jar), and the small S3
 * module of the AWS SDK v2, for the server-side rewrite on `s3a://` only
 * (io.superspark.parquet.footer.tools.S3ServerSideRewrite, loaded only when the file system is S3A):
 * provided (compile and test classpaths), never in the jar. Every line compiles against the SDK of
 * Hadoop 3.5.0 (2.35.4, the one the store suites run S3A with); a method an older SDK lacks at run
 * time (CompleteMultipartUpload's If-Match before 2.28) is guarded there.
 */
lazy val HadoopVersions = Map("4.0" -> "3.4.1", "4.1" -> "3.4.2", "4.2" -> "3.5.0", "4.3" -> "3.5.0")
lazy val AwsSdkVersion = "2.35.4"
lazy val sparkJarsDir = taskKey[File]("pyspark's jars/ folder: the provided classpath")
lazy val deltaJars = taskKey[Unit]("Copy Delta Lake's jars for this Spark line to jvm/target/spark-<line>/delta-jars")
/**
 * Iceberg's Spark runtime, for the test that shows everyWriter leaves Iceberg's files alone
 * (tests/test_every_writer.py): the lines Maven Central has a runtime for. Never compiled against,
 * never in the jar; copied by icebergJars to jvm/target/spark-<line>/iceberg-jars.
 */
lazy val IcebergRuntimes = Map("4.0" -> ("iceberg-spark-runtime-4.0_2.13", "1.11.0"), "4.1" -> ("iceberg-spark-runtime-4.1_2.13", "1.12.0"))
lazy val icebergJars = taskKey[Unit]("Copy Iceberg's Spark runtime for this Spark line to jvm/target/spark-<line>/iceberg-jars")
lazy val Iceberg = config("iceberg").hide
lazy val Delta = config("delta").hide

lazy val root = (project in file("."))
  .settings(
    name := s"superspark-spark$sparkLine",
    moduleName := s"superspark-spark$sparkLine",
    Compile / unmanagedSourceDirectories := Seq(baseDirectory.value / "jvm" / "src" / "main" / "scala",
      baseDirectory.value / "jvm" / "src" / "main" / "java") ++ lineSourceDirs(baseDirectory.value, "main"),
    Compile / unmanagedResourceDirectories := Seq(baseDirectory.value / "jvm" / "src" / "main" / "resources"),
    Test / unmanagedSourceDirectories := Seq(baseDirectory.value / "jvm" / "src" / "test" / "scala") ++
      lineSourceDirs(baseDirectory.value, "test"),
    Test / unmanagedResourceDirectories := Seq(baseDirectory.value / "jvm" / "src" / "test" / "resources"),
    target := baseDirectory.value / "jvm" / "target" / s"spark-$sparkLine",
    sparkJarsDir := {
      val fromEnv = sys.env.get("SPARK_JARS").map(file)
      fromEnv.getOrElse {
        val venv = if (sparkLine == "4.3") ".venv" else s".venv-spark$sparkLine"
        val venvLib = baseDirectory.value / venv / "lib"
        val candidates = Option(venvLib.listFiles()).toSeq.flatten.map(_ / "site-packages" / "pyspark" / "jars")
        candidates.find(_.isDirectory).getOrElse(
          sys.error(s"pyspark ${SparkLines(sparkLine)} jars not found in $venv: run `SPARK_LINE=$sparkLine dev/setup.sh` " +
            "(or set SPARK_JARS to pyspark's jars/ folder)"))
      }
    },
    // Provided: on the compile and test classpaths, never in the jar. Scala's own jars come
    // from sbt's scalaVersion (the line's own, ScalaVersions), so they are left out here (Scala modules
    // Spark needs, e.g. scala-parser-combinators for variant shredding, stay).
    Compile / unmanagedJars := {
      val dir = sparkJarsDir.value
      val scalaOwn = Seq("scala-library-", "scala-reflect-", "scala-compiler-")
      (dir * "*.jar").classpath.filterNot(a => scalaOwn.exists(a.data.getName.startsWith))
    },
    libraryDependencies ++= Seq(
      "org.scalatest" %% "scalatest" % "3.2.19" % Test
    ),
    libraryDependencies ++= Seq(
      ("org.apache.hadoop" % "hadoop-aws" % HadoopVersions(sparkLine) % "provided").intransitive(),
      ("software.amazon.awssdk" % "s3" % AwsSdkVersion % "provided").excludeAll(
        ExclusionRule("io.netty"), ExclusionRule("org.slf4j"), ExclusionRule("org.reactivestreams"))),
    // Delta Lake, on the lines it supports: provided (compile and test classpaths, for the
    // Delta table commit in jvm/src/main/delta/ and the Delta suites), copied for the pytest
    // suites (deltaJars); never in the jar. Its own dependencies are Spark's, provided.
    ivyConfigurations += Delta,
    libraryDependencies ++= DeltaArtifacts.get(sparkLine).toSeq.flatMap(a => Seq(
      ("io.delta" % a % DeltaVersion % "provided,delta").intransitive(),
      ("io.delta" % "delta-storage" % DeltaVersion % "provided,delta").intransitive())),
    ivyConfigurations += Iceberg,
    libraryDependencies ++= IcebergRuntimes.get(sparkLine).toSeq.map { case (a, v) =>
      ("org.apache.iceberg" % a % v % Iceberg).intransitive() },
    icebergJars := {
      val jars = update.value.select(configurationFilter(Iceberg.name))
      val dir = target.value / "iceberg-jars"
      IO.delete(dir)
      IO.createDirectory(dir)
      jars.foreach(j => IO.copyFile(j, dir / j.getName))
      streams.value.log.info(s"iceberg jars in $dir: ${jars.map(_.getName).mkString(", ")}")
    },
    deltaJars := {
      val jars = update.value.select(configurationFilter(Delta.name))
      val dir = target.value / "delta-jars"
      IO.delete(dir)
      IO.createDirectory(dir)
      jars.foreach(j => IO.copyFile(j, dir / j.getName))
      streams.value.log.info(s"delta jars in $dir: ${jars.map(_.getName).mkString(", ")}")
    },
    scalacOptions ++= Seq("-deprecation", "-feature", "-unchecked", "-release:17"),
    javacOptions ++= Seq("--release", "17"),
    // Record the build version for superspark_version().
    Compile / resourceGenerators += Def.task {
      val f = (Compile / resourceManaged).value / "io" / "superspark" / "superspark-version.properties"
      IO.write(f, s"version=${version.value}\nsparkLine=$sparkLine\n")
      Seq(f)
    }.taskValue,
    Test / fork := true,
    Test / javaOptions ++= Seq(
      "-Xmx4g",
      "-XX:+IgnoreUnrecognizedVMOptions",
      "--add-opens=java.base/java.lang=ALL-UNNAMED",
      "--add-opens=java.base/java.lang.invoke=ALL-UNNAMED",
      "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED",
      "--add-opens=java.base/java.io=ALL-UNNAMED",
      "--add-opens=java.base/java.net=ALL-UNNAMED",
      "--add-opens=java.base/java.nio=ALL-UNNAMED",
      "--add-opens=java.base/java.util=ALL-UNNAMED",
      "--add-opens=java.base/java.util.concurrent=ALL-UNNAMED",
      "--add-opens=java.base/java.util.concurrent.atomic=ALL-UNNAMED",
      "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
      "--add-opens=java.base/sun.nio.cs=ALL-UNNAMED",
      "--add-opens=java.base/sun.security.action=ALL-UNNAMED",
      "--add-opens=java.base/sun.util.calendar=ALL-UNNAMED",
      "-Djdk.reflect.useDirectMethodHandle=false",
      "-Dio.netty.tryReflectionSetAccessible=true"
    ),
    Test / parallelExecution := false,
    Test / testOptions += Tests.Argument(TestFrameworks.ScalaTest, "-oD"),
    // canceled tests, which sbt's JUnit reports show as passed, in a report of their own (dev/skips.py)
    Test / testListeners += new CanceledTestsReport(target.value / "test-reports")
  )

// ---- bsup benchmark only: Spark's Avro source (not bundled in pyspark), from Maven Central,
// on a bench-only classpath; never on the compile/test classpath nor in the jar. 4.3.0 is not
// published on Maven Central (checked 2026-11-21); 4.1.1, the newest there, loads in Spark 4.3.0.
lazy val BsupBench = config("bsupbench").hide
lazy val bsupBenchJars = taskKey[Unit]("Copy the bsup benchmark's extra jars (spark-avro) to bench/out/jars")
ThisBuild / bsupBenchJars := {}
root / ivyConfigurations += BsupBench
root / libraryDependencies += ("org.apache.spark" %% "spark-avro" % "4.1.1" % BsupBench).intransitive()
root / bsupBenchJars := {
  val jars = (root / update).value.select(configurationFilter(BsupBench.name))
  val dir = (root / baseDirectory).value / "bench" / "out" / "jars"
  IO.createDirectory(dir)
  jars.foreach(j => IO.copyFile(j, dir / j.getName))
  streams.value.log.info(s"bsup bench jars in $dir: ${jars.map(_.getName).mkString(", ")}")
}

// ---- footer benchmark only: JMH (jmh-core and its annotation processor) from Maven Central,
// on a bench-only classpath; never on the compile/test classpath nor in the jar.
// `make bench-footer` copies the jars to bench/out/jars and compiles bench/parquet_footer/jmh.
lazy val FooterBench = config("footerbench").hide
lazy val footerBenchJars = taskKey[Unit]("Copy the footer benchmark's jars (JMH) to bench/out/jars/jmh")
ThisBuild / footerBenchJars := {}
root / ivyConfigurations += FooterBench
root / libraryDependencies ++= Seq(
  "org.openjdk.jmh" % "jmh-core" % "1.37" % FooterBench,
  "org.openjdk.jmh" % "jmh-generator-annprocess" % "1.37" % FooterBench)
root / footerBenchJars := {
  val jars = (root / update).value.select(configurationFilter(FooterBench.name))
  val dir = (root / baseDirectory).value / "bench" / "out" / "jars" / "jmh"
  IO.createDirectory(dir)
  jars.foreach(j => IO.copyFile(j, dir / j.getName))
  streams.value.log.info(s"footer bench jars in $dir: ${jars.map(_.getName).mkString(", ")}")
}

// ---- benches that build: `make bench-compile` (run by `make test`) compiles every bench's Java
// sources (bench/**/*.java; JMH's annotation processor runs for the footer bench) against the
// jar's classes, the line's provided jars and the JMH jars, without running them, so a change
// of a library signature breaks the build instead of a bench found broken later (issue 24).
lazy val benchCompile = taskKey[Unit]("Compile every bench's Java sources (bench/**/*.java) without running them")
ThisBuild / benchCompile := {}
root / benchCompile := {
  val log = streams.value.log
  val base = (root / baseDirectory).value
  // not bench/out: the benches' own runs compile there, and JMH's processor writes its generated sources beside the classes
  val sources = ((base / "bench") ** "*.java").get.filterNot(_.relativeTo(base / "bench" / "out").isDefined).sortBy(_.getPath)
  val jmh = (root / update).value.select(configurationFilter(FooterBench.name))
  val cp = ((root / Compile / fullClasspath).value.map(_.data) ++ jmh).map(_.getAbsolutePath)
  val out = (root / target).value / "bench-classes"
  IO.delete(out)
  IO.createDirectory(out)
  val cmd = Seq("javac", "--release", "17", "-proc:full", "-cp", cp.mkString(java.io.File.pathSeparator),
    "-d", out.getAbsolutePath) ++ sources.map(_.getAbsolutePath)
  val rc = scala.sys.process.Process(cmd).!(scala.sys.process.ProcessLogger(l => log.info(l), l => log.error(l)))
  if (rc != 0) sys.error(s"bench sources do not compile (javac exit $rc): ${sources.map(_.relativeTo(base).get).mkString(", ")}")
  log.info(s"compiled ${sources.size} bench sources to $out")
}
