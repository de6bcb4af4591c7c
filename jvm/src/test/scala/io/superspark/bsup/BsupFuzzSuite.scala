package io.superspark.bsup

import org.scalatest.funsuite.AnyFunSuite

/**
 * The CI slice of `make fuzz-bsup` (BsupFuzz): a fixed seed, 10,000 mutated streams through every decode path,
 * the columnar reader compared with the row reader among them.
 */
class BsupFuzzSuite extends AnyFunSuite {
  test("10,000 seeded stream mutations: no unchecked exception, no offset outside the input, none over 1 s, " +
      "nothing silently wrong") {
    val c = BsupFuzz.run(10000, seed = 20261123L, log = info(_))
    info(c.toString)
    assert(c.inputs == 10000)
    assert(c.failures.isEmpty, c.failures.mkString("\n"))
    // Both outcome classes are reached, so the slice exercises each check.
    assert(c.decoded > 0 && c.errors > 0, c.toString)
    // The version 5 union-struct write path (null members, SuperDB's member order) is reached.
    assert(c.unionWrites > 0, c.toString)
    // The columnar reader gave the row reader's rows (or error) for inputs with a batchable schema.
    assert(c.columnar > 1000, c.toString)
  }
}
