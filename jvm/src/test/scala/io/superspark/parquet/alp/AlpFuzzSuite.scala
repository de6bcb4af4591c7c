package io.superspark.parquet.alp

import org.scalatest.funsuite.AnyFunSuite

/** The CI slice of `make fuzz-alp` (AlpFuzz): a fixed seed, 20,000 mutated ALP pages. */
class AlpFuzzSuite extends AnyFunSuite {
  test("20,000 seeded ALP page mutations: decoded and re-encodable, or a clear error inside the input") {
    val c = AlpFuzz.run(20000, seed = 20261123L, log = info(_))
    info(c.toString)
    assert(c.inputs == 20000)
    assert(c.failures.isEmpty, c.failures.mkString("\n"))
    // Both outcomes are reached, and the layout checks each fire, so the slice exercises them.
    assert(c.decoded > 0 && c.errors > 0, c.toString)
    for (code <- Seq("truncated", "unsupported_mode", "bad_vector_size", "bad_element_count", "bad_vector_offset",
        "bad_exponent", "bad_bit_width", "bad_exception_count", "bad_exception_position", "trailing_bytes"))
      assert(c.reasons.getOrElse(code, 0) > 0, s"$code never reached: $c")
  }
}
