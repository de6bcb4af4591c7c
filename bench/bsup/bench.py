"""bsup (Super Binary version 0 and version 5, lz4) vs Spark's avro (snappy) vs json: the same 1M+ mixed records,
written and read side by side in one run. Prints rows/s (medians of repeats) and ratio= lines: each
the median over the repeats of the two formats' paired ratio (their jobs ran one after the other).

    make bench-bsup            # BENCH_ROWS=1000000 BENCH_REPEATS=5 BENCH_DRIVER_MEMORY=4g by default

The driver gets a 4 GB heap: at Spark's default 1 GB, garbage collection after the JSON and Avro
jobs landed on whichever job ran next and decided the ratios.
"""

import glob
import os
import shutil
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import rounds  # noqa: E402  (bench/rounds.py: paired rounds into one figure)

import superspark
from pyspark.sql import functions as F

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(ROOT, "bench", "out", "bsup")
ROWS = int(os.environ.get("BENCH_ROWS", "1000000"))
REPEATS = int(os.environ.get("BENCH_REPEATS", "5"))

avro_jars = glob.glob(os.path.join(ROOT, "bench", "out", "jars", "spark-avro_*.jar"))
if not avro_jars:
    sys.exit("spark-avro jar missing: run `./dev/sbt bsupBenchJars` (make bench-bsup does)")

spark = superspark.session("bench-bsup", master="local[2]", **{
    "spark.jars": avro_jars[0],
    "spark.ui.enabled": "false",
    "spark.sql.shuffle.partitions": "2",
    "spark.sql.avro.compression.codec": "snappy",
    "spark.sql.session.timeZone": "UTC",
    "spark.driver.memory": os.environ.get("BENCH_DRIVER_MEMORY", "4g"),
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


# name -> (data source, write options). bsup5: the same records as Super Binary version 5.
# bsup_rows / bsup5_rows: the same files read by the row reader (spark.superspark.bsup.vectorized.enabled
# false); bsup and bsup5 read in columnar batches (the default).
FORMATS = {
    "bsup": ("bsup", {"compression": "lz4"}),
    "bsup5": ("bsup", {"compression": "lz4", "version": "5"}),
    "bsup_rows": ("bsup", {"compression": "lz4"}),
    "bsup5_rows": ("bsup", {"compression": "lz4", "version": "5"}),
    "avro": ("avro", {"compression": "snappy"}),
    "json": ("json", {}),
}


KINDS = ("write", "read_full", "read_2cols")  # writes first: the reads read what they wrote


VECTORIZED = "spark.superspark.bsup.vectorized.enabled"


def with_reader(fmt, fn):
    """Runs `fn` with the row reader for the *_rows formats, the columnar one otherwise."""
    spark.conf.set(VECTORIZED, "false" if fmt.endswith("_rows") else "true")
    try:
        fn()
    finally:
        spark.conf.unset(VECTORIZED)


def timed(fn):
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def main():
    shutil.rmtree(OUT, ignore_errors=True)
    df = data()
    schema = df.schema
    paths = {f: os.path.join(OUT, f) for f in FORMATS}

    def reader(fmt):
        r = spark.read.format(FORMATS[fmt][0])
        return r.schema(schema) if fmt == "json" else r

    jobs = {}
    for kind in KINDS:
        for fmt, (source, opts) in FORMATS.items():
            if kind == "write":
                jobs[(fmt, kind)] = lambda fmt=fmt, source=source, opts=opts: \
                    df.write.format(source).options(**opts).mode("overwrite").save(paths[fmt])
            elif kind == "read_full":
                jobs[(fmt, kind)] = lambda fmt=fmt: with_reader(fmt, lambda: \
                    reader(fmt).load(paths[fmt]).write.format("noop").mode("overwrite").save())
            else:
                jobs[(fmt, kind)] = lambda fmt=fmt: with_reader(fmt, lambda: \
                    reader(fmt).load(paths[fmt]).select("id", "s").write.format("noop").mode("overwrite").save())
    # Warm up (JIT, file cache), then repeat every job round-robin, the formats of one kind of job
    # next to each other, so that noise from the machine hits them alike.
    for job in jobs.values():
        job()
    times = {k: [] for k in jobs}
    for _ in range(REPEATS):
        for k, job in jobs.items():
            times[k].append(timed(job))
    results = {}
    for fmt in FORMATS:
        size = sum(os.path.getsize(p) for p in glob.glob(os.path.join(paths[fmt], "*")) if not p.endswith(".crc"))
        results[fmt] = {k: ROWS / statistics.median(times[(fmt, k)]) for k in KINDS}
        results[fmt]["bytes"] = size
        assert reader(fmt).load(paths[fmt]).count() == ROWS

    def ratio(a, b, kind):
        """How much faster `a` is than `b`: the median over the repeats of the paired ratio (the two
        jobs ran one after the other in the same repeat), with min-max."""
        return rounds.ratio_line(times[(b, kind)], times[(a, kind)])

    print(f"rows={ROWS} repeats={REPEATS} (medians), local[2]")
    print(f"{'format':<6} {'write rows/s':>14} {'full scan rows/s':>17} {'2-col rows/s':>14} {'size MB':>9}")
    for fmt, r in results.items():
        print(f"{fmt:<6} {r['write']:>14,.0f} {r['read_full']:>17,.0f} {r['read_2cols']:>14,.0f} {r['bytes'] / 1e6:>9.1f}")
    for other in ("avro", "json"):
        for k in KINDS:
            print(f"bsup/{other} {k}: {ratio('bsup', other, k)}")
    for k in KINDS:
        print(f"bsup5/avro {k}: {ratio('bsup5', 'avro', k)}")
    # The row reader on the same files, and the columnar reader against it.
    for k in ("read_full", "read_2cols"):
        print(f"bsup_rows/avro {k}: {ratio('bsup_rows', 'avro', k)}")
        print(f"bsup5_rows/avro {k}: {ratio('bsup5_rows', 'avro', k)}")
        print(f"bsup/bsup_rows {k}: {ratio('bsup', 'bsup_rows', k)} (columnar vs row reader, version 0)")
        print(f"bsup5/bsup5_rows {k}: {ratio('bsup5', 'bsup5_rows', k)} (columnar vs row reader, version 5)")
    # Version 5 vs version 0 (target: within 10%, i.e. >= 0.90).
    for k in KINDS:
        print(f"bsup5/bsup {k}: {ratio('bsup5', 'bsup', k)}")
    with open(glob.glob(os.path.join(paths["bsup5"], "*.bsup"))[0], "rb") as f:
        assert f.read(1) == b"\x85", "bsup5 files start with the version 5 byte"
    spark.stop()


if __name__ == "__main__":
    main()
