package io.superspark

/**
 * The command line of the seeded mutation fuzzers (`make fuzz-bsup`, `fuzz-footer`,
 * `fuzz-alp`): `[inputs (default 100000)] [seed (default 1)]`. Prints the fuzzer's summary
 * and its time; exits 1 when any input failed.
 */
object FuzzMain {
  /** `fuzz(inputs, seed)` runs the fuzzer and gives its summary and whether anything failed. */
  def run(name: String, args: Array[String])(fuzz: (Int, Long) => (String, Boolean)): Unit = {
    val n = args.headOption.map(_.toInt).getOrElse(100000)
    val seed = args.lift(1).map(_.toLong).getOrElse(1L)
    val t0 = System.nanoTime()
    val (summary, failed) = fuzz(n, seed)
    println(f"$name seed=$seed $summary in ${(System.nanoTime() - t0) / 1e9}%.1f s")
    if (failed) sys.exit(1)
  }
}

/**
 * The fuzzers' per-input time limit: the current thread's CPU time (the machine's other work
 * does not count), enforced only after a warm-up (the first inputs run interpreted while the
 * JIT compiles the decoders, and would measure the compiler instead).
 */
final class FuzzClock(limitMillis: Long = 1000, warmUpInputs: Int = 200) {
  private val mx = java.lang.management.ManagementFactory.getThreadMXBean
  private var inputs = 0

  /** Runs one input; `Some(millis)` of CPU time when it went over the limit after the warm-up. */
  def time[T](body: => T): (T, Long, Boolean) = {
    val t0 = mx.getCurrentThreadCpuTime
    val out = body
    val ms = (mx.getCurrentThreadCpuTime - t0) / 1000000
    inputs += 1
    (out, ms, inputs > warmUpInputs && ms > limitMillis)
  }
}
