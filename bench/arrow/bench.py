"""superspark.arrow overhead: to_arrow vs df.toArrow(), from_arrow vs createDataFrame.

One DataFrame with a uuid (binary(16)), a json (string), a variant and a 2x2 float32
fixed-shape tensor column, cached in Spark. Each side is timed ROUNDS times in paired rounds
(both sides in each round, the order alternating); each `ratio=` is the median of the rounds'
ratios with min-max. Usage: bench/arrow/run.sh [rows] (default 10,000,000, the
issue's size). Also prints the peak memory of the Python driver process and the JVM heap.
"""

import gc
import os
import resource
import statistics
import sys
import time

import pyarrow as pa

import superspark
import superspark.arrow as sa
from superspark.arrow import _convert

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import rounds  # noqa: E402  (bench/rounds.py: paired rounds into one figure)

# Time spent inside Spark's own transfer, to report superspark's own work separately.
_inner = []


def _timing(fn):
    def wrapper(*args, **kwargs):
        t0 = time.perf_counter()
        try:
            return fn(*args, **kwargs)
        finally:
            _inner.append(time.perf_counter() - t0)
    return wrapper


_convert._collect = _timing(_convert._collect)

ROWS = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000_000
ROUNDS = int(os.environ.get("ROUNDS", "3"))            # to_arrow side (slow: collects)
FROM_ROUNDS = int(os.environ.get("FROM_ROUNDS", "9"))   # from_arrow side (fast, noisier)


def timed(fn):
    t0 = time.perf_counter()
    out = fn()
    return time.perf_counter() - t0, out


def storage_only(t: pa.Table) -> pa.Table:
    cols = [pa.chunked_array([c.storage if isinstance(c, pa.ExtensionArray) else c
                              for c in col.chunks]) for col in t.columns]
    return pa.Table.from_arrays(cols, names=t.column_names)


def main():
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    spark = superspark.session("bench-arrow", master="local[2]", **{
        "spark.ui.enabled": "false", "spark.driver.memory": "6g",
        "spark.sql.shuffle.partitions": "2"})
    spark.sparkContext.setLogLevel("ERROR")
    df = spark.sql(f"""
        SELECT unhex(lpad(hex(id * 2654435761), 32, "0")) AS u,
               to_json(named_struct('id', id, 'k', 'v')) AS j,
               parse_json(to_json(named_struct('id', id))) AS v,
               array(CAST(id AS FLOAT), 1.0f, 2.0f, 3.0f) AS t
        FROM range({ROWS})""").repartition(2)
    df = sa.with_arrow_types(df, {"u": pa.uuid(), "j": pa.json_(),
                                  "t": pa.fixed_shape_tensor(pa.float32(), [2, 2])}).cache()
    print(f"rows={df.count()}", flush=True)

    to_ext, to_plain, from_ext, from_plain, to_own, from_own = [], [], [], [], [], []
    canonical = None
    for r in range(ROUNDS):  # alternate which side goes first
        for side in ((0, 1) if r % 2 == 0 else (1, 0)):
            if side == 0:
                s, plain = timed(df.toArrow)
                to_plain.append(s)
                del plain
            else:
                canonical = None
                _inner.clear()
                s, canonical = timed(lambda: sa.to_arrow(df))
                to_ext.append(s)
                to_own.append(s - sum(_inner))
        print(f"round {r}: toArrow {to_plain[-1]:.2f}s  to_arrow {to_ext[-1]:.2f}s", flush=True)
    storage = storage_only(canonical)
    spark.createDataFrame = _timing(spark.createDataFrame)  # from_arrow's call of it
    for r in range(FROM_ROUNDS):
        for side in ((0, 1) if r % 2 == 0 else (1, 0)):
            gc.collect()  # let the JVM drop the previous round's data
            if side == 0:
                s, _ = timed(lambda: spark.createDataFrame(storage))
                from_plain.append(s)
            else:
                _inner.clear()
                s, _ = timed(lambda: sa.from_arrow(spark, canonical))
                from_ext.append(s)
                from_own.append(s - sum(_inner))
        print(f"round {r}: createDataFrame {from_plain[-1]:.2f}s  from_arrow {from_ext[-1]:.2f}s",
              flush=True)
    m = statistics.median
    print(f"schema: {', '.join(f'{f.name}={f.type}' for f in canonical.schema)}")
    print(f"to_arrow: median {m(to_ext):.3f}s vs df.toArrow() {m(to_plain):.3f}s "
          f"{rounds.ratio_line(to_ext, to_plain, 3)}")
    print(f"own work (outside Spark's transfer): to_arrow {m(to_own) * 1000:.0f} ms, share of toArrow "
          f"{rounds.ratio_line(to_own, to_plain, 4)}; from_arrow {m(from_own) * 1000:.0f} ms, share of "
          f"createDataFrame {rounds.ratio_line(from_own, from_plain, 4)}")
    print(f"from_arrow: median {m(from_ext):.3f}s vs createDataFrame {m(from_plain):.3f}s "
          f"{rounds.ratio_line(from_ext, from_plain, 3)}")
    rt = spark.sparkContext._jvm.java.lang.Runtime.getRuntime()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"memory: python peak RSS {peak:.0f} MB"
          f", JVM heap in use {(rt.totalMemory() - rt.freeMemory()) / 2**20:.0f} MB of max "
          f"{rt.maxMemory() / 2**20:.0f} MB")
    spark.stop()


if __name__ == "__main__":
    main()
