package io.superspark.parquet.footer.files

import org.scalatest.funsuite.AnyFunSuite

/** The CI slice of `make fuzz-footer` (FooterFuzz): a fixed seed, 1,000 mutated footers. */
class FooterFuzzSuite extends AnyFunSuite {
  test("1,000 seeded footer mutations: no wrong metadata, no unchecked exception, none over 1 s") {
    val c = FooterFuzz.run(1000, seed = 20261123L, log = info(_))
    info(c.toString)
    assert(c.inputs == 1000)
    assert(c.failures.isEmpty, c.failures.mkString("\n"))
    // Every outcome class is reached, so the slice exercises each check.
    assert(c.flatBuffer > 0 && c.thrift > 0 && c.errors > 0 && c.refused > 0 && c.openedBehindCrc > 0, c.toString)
  }

  test("1,000 seeded Thrift footer mutations through the transcoder: clear errors, no wrong metadata") {
    val c = FooterFuzz.runTranscoder(1000, seed = 20261123L, log = info(_))
    info(c.toString)
    assert(c.inputs == 1000)
    assert(c.failures.isEmpty, c.failures.mkString("\n"))
    assert(c.exact > 0 && c.notExact > 0 && c.malformed > 0, c.toString)
  }
}
