package io.superspark.expressions

import java.util.Properties

/** Facts about this build, read from the resource that the build writes. */
private[superspark] object BuildInfo {
  /** The superspark version, as set in build.sbt. */
  lazy val version: String = {
    val props = new Properties()
    val in = getClass.getResourceAsStream("/io/superspark/superspark-version.properties")
    if (in == null) "unknown" else try { props.load(in); props.getProperty("version", "unknown") } finally in.close()
  }
}
