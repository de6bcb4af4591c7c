package io.superspark.bsup

object ReproTmp {
  def main(args: Array[String]): Unit = {
    val Array(name, op, at, x) = args
    val b = BsupFuzz.seeds().find(_.name == name).get.bytes.clone()
    if (op == "flip") b(at.toInt) = (b(at.toInt) ^ (1 << x.toInt)).toByte else b(at.toInt) = Integer.parseInt(x, 16).toByte
    val dir = java.nio.file.Files.createTempDirectory("repro")
    java.nio.file.Files.write(dir.resolve("in.bsup"), b)
    println(s"input ${dir.resolve("in.bsup")}")
    try (0 until 16).foreach(k => new BsupFuzz.Harness(dir).check(b, new scala.util.Random(k), BsupFuzz.Counts()))
    catch { case e: Throwable => println("MESSAGE: " + e.getMessage); var c = e.getCause; while (c != null) { println("CAUSE: " + c); c.getStackTrace.take(12).foreach(s => println("   " + s)); c = c.getCause } }
  }
}
