// superspark: Spark SQL extension (Scala/JVM core). See README.md, "Development".
//
// Spark, Scala, parquet-java, flatbuffers-java and Arrow Java are *provided*: we compile
// against the very jars bundled inside the pinned pyspark wheel (SPARK_JARS, default
// .venv/.../pyspark/jars), so the JVM code and the Python package can never disagree on a
// version, and no second copy of Spark is downloaded. Nothing of them is packaged.

import java.nio.file.{Files, Paths}

ThisBuild / organization := "io.superspark"
ThisBuild / version := "0.1.0"
ThisBuild / scalaVersion := "2.13.18"

lazy val sparkJarsDir = taskKey[File]("pyspark's jars/ folder: the provided classpath")

lazy val root = (project in file("."))
  .settings(
    name := "superspark",
    Compile / unmanagedSourceDirectories := Seq(baseDirectory.value / "jvm" / "src" / "main" / "scala",
      baseDirectory.value / "jvm" / "src" / "main" / "java"),
    Compile / unmanagedResourceDirectories := Seq(baseDirectory.value / "jvm" / "src" / "main" / "resources"),
    Test / unmanagedSourceDirectories := Seq(baseDirectory.value / "jvm" / "src" / "test" / "scala"),
    Test / unmanagedResourceDirectories := Seq(baseDirectory.value / "jvm" / "src" / "test" / "resources"),
    target := baseDirectory.value / "jvm" / "target",
    sparkJarsDir := {
      val fromEnv = sys.env.get("SPARK_JARS").map(file)
      fromEnv.getOrElse {
        val venvLib = baseDirectory.value / ".venv" / "lib"
        val candidates = Option(venvLib.listFiles()).toSeq.flatten.map(_ / "site-packages" / "pyspark" / "jars")
        candidates.find(_.isDirectory).getOrElse(
          sys.error("pyspark jars not found: run `make setup` (or set SPARK_JARS to pyspark's jars/ folder)"))
      }
    },
    // Provided: on the compile and test classpaths, never in the jar. Scala's own jars come
    // from sbt's scalaVersion (the same 2.13.18), so they are left out here (Scala modules
    // Spark needs, e.g. scala-parser-combinators for variant shredding, stay).
    Compile / unmanagedJars := {
      val dir = sparkJarsDir.value
      val scalaOwn = Seq("scala-library-", "scala-reflect-", "scala-compiler-")
      (dir * "*.jar").classpath.filterNot(a => scalaOwn.exists(a.data.getName.startsWith))
    },
    libraryDependencies ++= Seq(
      "org.scalatest" %% "scalatest" % "3.2.19" % Test
    ),
    scalacOptions ++= Seq("-deprecation", "-feature", "-unchecked", "-release:17"),
    javacOptions ++= Seq("--release", "17"),
    // Record the build version for superspark_version().
    Compile / resourceGenerators += Def.task {
      val f = (Compile / resourceManaged).value / "io" / "superspark" / "superspark-version.properties"
      IO.write(f, s"version=${version.value}\n")
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
    Test / testOptions += Tests.Argument(TestFrameworks.ScalaTest, "-oD")
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
