package io.superspark.parquet.logicaltypes

import org.scalatest.funsuite.AnyFunSuite

class Float16Suite extends AnyFunSuite {
  test("every half survives half -> float -> half; known values decode exactly") {
    (0 until 65536).foreach { h =>
      val f = Float16.toFloat(h)
      if (f.isNaN) assert((Float16.fromFloat(f) & 0x7c00) == 0x7c00 && (Float16.fromFloat(f) & 0x3ff) != 0)
      else assert(Float16.fromFloat(f) == h, f"0x$h%04x -> $f")
    }
    assert(Float16.toFloat(0x3c00) == 1.0f && Float16.toFloat(0xc000) == -2.0f)
    assert(Float16.toFloat(0x7bff) == 65504.0f && Float16.toFloat(0x0001) == 5.9604645e-8f)
    assert(Float16.toFloat(0x7c00).isPosInfinity && Float16.toFloat(0x8000) == -0.0f)
    assert(Float16.fromBytes(Array[Byte](0x00, 0x3c), 0) == 1.0f) // little-endian
    assert(Float16.toBytes(1.0f).toSeq == Seq[Byte](0x00, 0x3c))
  }

  test("float -> half rounds to nearest, ties to even; overflow is infinity") {
    assert(Float16.fromFloat(1.0f + 1.0f / 2048) == 0x3c00) // tie, even stays
    assert(Float16.fromFloat(1.0f + 3.0f / 2048) == 0x3c02) // tie, odd rounds up
    assert(Float16.fromFloat(1.0f + 1.5f / 2048) == 0x3c01)
    assert(Float16.fromFloat(65520f) == 0x7c00 && Float16.fromFloat(-1e9f) == 0xfc00)
    assert(Float16.fromFloat(1e-9f) == 0 && Float16.fromFloat(3e-8f) == 0x0001)
    assert(Float16.fromFloat(Float.NaN) >= 0x7e00)
  }
}
