package io.superspark

import java.nio.file.{Files, Path, Paths}

import scala.jdk.CollectionConverters._

import com.fasterxml.jackson.databind.{JsonNode, ObjectMapper}
import org.scalatest.funsuite.AnyFunSuite

import io.superspark.errors.SuperSparkErrors

/**
 * Every condition in `error/superspark-error-conditions.json` has an SQLSTATE, is raised by the
 * main sources (its name appears in a `.scala` or `.java` file under `jvm/src/main`), and is
 * documented in docs/errors.md; and no `SUPERSPARK_` or `BSUP_` condition is raised that the
 * file does not declare.
 */
class ErrorConditionsSuite extends AnyFunSuite {
  private lazy val json: JsonNode =
    new ObjectMapper().readTree(getClass.getClassLoader.getResource(SuperSparkErrors.Resource))

  /** Top-level names and `NAME.SUB` names, each with its SQLSTATE (a subclass has its parent's). */
  private lazy val conditions: Seq[(String, String)] = json.fields().asScala.toSeq.flatMap { e =>
    val state = Option(e.getValue.get("sqlState")).map(_.asText).orNull
    val subs = Option(e.getValue.get("subClass")).toSeq.flatMap(_.fieldNames().asScala).map(s => s"${e.getKey}.$s")
    (e.getKey +: subs).map(_ -> state)
  }

  private lazy val main: String = {
    val root = Paths.get("jvm", "src", "main")
    assert(Files.isDirectory(root), s"run from the repository root: ${root.toAbsolutePath}")
    Files.walk(root).iterator.asScala.filter(p => p.toString.endsWith(".scala") || p.toString.endsWith(".java"))
      .map(p => new String(Files.readAllBytes(p), "UTF-8")).mkString("\n")
  }

  private lazy val docs: String = new String(Files.readAllBytes(Paths.get("docs", "errors.md")), "UTF-8")

  test("every condition has an SQLSTATE of five characters") {
    assert(conditions.size >= 15, conditions)
    conditions.foreach { case (c, s) => assert(s != null && s.matches("[0-9A-Z]{5}"), s"$c: sqlState $s") }
  }

  test("every condition is raised by the main sources and documented in docs/errors.md") {
    // A subclass is raised through its full name, or as `PARENT.$reason` where the parent builds it.
    val parentsBuiltDynamically = "\"([A-Z_]+)\\.\\$".r.findAllMatchIn(main).map(_.group(1)).toSet ++
      "s\"([A-Z_]+)\\.\\$".r.findAllMatchIn(main).map(_.group(1)).toSet
    def raised(c: String): Boolean = main.contains("\"" + c + "\"") ||
      (c.contains('.') && parentsBuiltDynamically(c.takeWhile(_ != '.')))
    val names = conditions.map(_._1)
    // A condition with subclasses is raised through them.
    val notRaised = names.filterNot(c => raised(c) || names.exists(s => s.startsWith(c + ".") && raised(s)))
    assert(notRaised.isEmpty, s"declared but never raised: $notRaised")
    val undocumented = names.filterNot(c => docs.contains(s"`$c`"))
    assert(undocumented.isEmpty, s"not in docs/errors.md: $undocumented")
  }

  test("no SUPERSPARK_ or BSUP_ condition is raised without a declaration") {
    val declared = conditions.map(_._1).toSet
    val used = "\"((?:SUPERSPARK|BSUP)_[A-Z_]+(?:\\.[A-Z_]+)?)\"".r.findAllMatchIn(main).map(_.group(1)).toSet
    assert((used -- declared).isEmpty, used -- declared)
  }

  test("a message is formatted from the file with its parameters and SQLSTATE") {
    val m = SuperSparkErrors.message("SUPERSPARK_MALFORMED_THRIFT_FOOTER", Map("reason" -> "truncated at 3"))
    assert(m == "[SUPERSPARK_MALFORMED_THRIFT_FOOTER] malformed Thrift footer: truncated at 3 SQLSTATE: KD001")
  }
}
