import java.io.File

import sbt._
import sbt.testing.Status

/**
 * sbt's JUnit XML listener writes nothing for a canceled test (ScalaTest's `cancel`, `assume`): the
 * report shows it as passed. This listener writes the canceled tests of a run as one JUnit report,
 * `TEST-canceled.xml` beside sbt's (each a `<skipped>` case with the cancel's message), so
 * dev/skips.py lists them and fails `make test` on any its allow-list does not name.
 */
final class CanceledTestsReport(reportDir: File) extends TestsListener {
  private val out = reportDir / "TEST-canceled.xml"
  private val cases = scala.collection.mutable.ArrayBuffer.empty[String]

  private def attr(s: String): String =
    s.flatMap {
      case '&' => "&amp;"; case '<' => "&lt;"; case '>' => "&gt;"; case '"' => "&quot;"
      case c if c < ' ' => " "; case c => c.toString
    }

  def doInit(): Unit = { cases.clear(); IO.delete(out) }
  def startGroup(name: String): Unit = ()
  def testEvent(event: TestEvent): Unit = event.detail.foreach { e =>
    if (e.status == Status.Canceled) {
      val name = e.selector match {
        case s: sbt.testing.TestSelector => s.testName
        case s: sbt.testing.NestedTestSelector => s.testName
        case other => other.toString
      }
      // a forked test JVM sends no throwable: the reason is in the run's log, under the test's name
      val why = if (e.throwable.isDefined) "canceled: " + e.throwable.get.getMessage else "canceled (its reason is in the sbt log)"
      synchronized {
        cases += s"""<testcase classname="${attr(e.fullyQualifiedName)}" name="${attr(name)}">""" +
          s"""<skipped message="${attr(why)}"/></testcase>"""
      }
    }
  }
  def endGroup(name: String, t: Throwable): Unit = ()
  def endGroup(name: String, result: TestResult): Unit = ()
  def doComplete(finalResult: TestResult): Unit = synchronized {
    if (cases.nonEmpty) {
      IO.createDirectory(reportDir)
      IO.write(out, s"""<?xml version="1.0" encoding="UTF-8"?><testsuite name="canceled" tests="${cases.size}" """ +
        s"""skipped="${cases.size}">${cases.mkString}</testsuite>""")
    }
  }
}
