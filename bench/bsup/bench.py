"""bsup (Super Binary, lz4) vs Spark's avro (snappy) vs json: the same 1M+ mixed records,
written and read side by side in one run. Prints rows/s (medians of repeats) and ratio= lines.

    make bench-bsup            # BENCH_ROWS=1000000 BENCH_REPEATS=3 by default
"""

import glob
import os
import shutil
import statistics
import sys
import time

import superspark
from pyspark.sql import functions as F

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(ROOT, "bench", "out", "bsup")
ROWS = int(os.environ.get("BENCH_ROWS", "1000000"))
REPEATS = int(os.environ.get("BENCH_REPEATS", "3"))

avro_jars = glob.glob(os.path.join(ROOT, "bench", "out", "jars", "spark-avro_*.jar"))
if not avro_jars:
    sys.exit("spark-avro jar missing: run `./dev/sbt bsupBenchJars` (make bench-bsup does)")

spark = superspark.session("bench-bsup", master="local[2]", **{
    "spark.jars": avro_jars[0],
    "spark.ui.enabled": "false",
    "spark.sql.shuffle.partitions": "2",
    "spark.sql.avro.compression.codec": "snappy",
    "spark.sql.session.timeZone": "UTC",
})
spark.sparkContext.setLogLevel("ERROR")


def data():
    id_ = F.col("id")
    return spark.range(0, ROWS, 1, 2).select(
        id_,
        (id_ % 1000).cast("int").alias("i"),
        F.concat(F.lit("user-"), (id_ * 7919 % 100003).cast("string")).alias("s"),
        F.timestamp_seconds(F.lit(1_700_000_000) + id_).alias("ts"),
        (id_ / 3.0).alias("d"),
        F.struct((id_ % 7).cast("int").alias("a"), F.concat(F.lit("n"), (id_ % 13).cast("string")).alias("b")).alias("nested"),
        F.array((id_ % 5).cast("int"), (id_ % 11).cast("int"), (id_ % 17).cast("int")).alias("arr"),
    )


FORMATS = {
    "bsup": {"compression": "lz4"},
    "avro": {"compression": "snappy"},
    "json": {},
}


def timed(fn):
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def median_time(fn):
    fn()  # warm up (JIT, file cache)
    return statistics.median(timed(fn) for _ in range(REPEATS))


def main():
    shutil.rmtree(OUT, ignore_errors=True)
    df = data()
    schema = df.schema
    paths = {f: os.path.join(OUT, f) for f in FORMATS}
    results = {}
    for fmt, opts in FORMATS.items():
        def write(fmt=fmt, opts=opts):
            df.write.format(fmt).options(**opts).mode("overwrite").save(paths[fmt])
        w = median_time(write)

        def reader(fmt=fmt):
            r = spark.read.format(fmt)
            return r.schema(schema) if fmt == "json" else r

        full = median_time(lambda: reader().load(paths[fmt]).write.format("noop").mode("overwrite").save())
        proj = median_time(lambda: reader().load(paths[fmt]).select("id", "s").write.format("noop").mode("overwrite").save())
        size = sum(os.path.getsize(p) for p in glob.glob(os.path.join(paths[fmt], "*")) if not p.endswith(".crc"))
        results[fmt] = {"write": ROWS / w, "read_full": ROWS / full, "read_2cols": ROWS / proj, "bytes": size}
        assert reader().load(paths[fmt]).count() == ROWS

    print(f"rows={ROWS} repeats={REPEATS} (medians), local[2]")
    print(f"{'format':<6} {'write rows/s':>14} {'full scan rows/s':>17} {'2-col rows/s':>14} {'size MB':>9}")
    for fmt, r in results.items():
        print(f"{fmt:<6} {r['write']:>14,.0f} {r['read_full']:>17,.0f} {r['read_2cols']:>14,.0f} {r['bytes'] / 1e6:>9.1f}")
    for other in ("avro", "json"):
        for k in ("read_full", "read_2cols", "write"):
            print(f"ratio=bsup/{other} {k} {results['bsup'][k] / results[other][k]:.2f}")
    spark.stop()


if __name__ == "__main__":
    main()
