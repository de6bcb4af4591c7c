"""Parquet footer interceptor benchmark (make bench-interceptor): prints ratio= lines.

Read path: a wide table made by pyarrow (COLUMNS int64 columns, ROW_GROUPS row groups of
ROWS rows per file), FILES copies of that file. Vanilla (`spark.superspark.parquet.footer.read`
off, Spark's own footer code) reads the plain pyarrow files; superspark (read path on) reads
copies of the same files given the footer extension with the footer library's `add` tool. The
two sides read the same data; only the footer differs (vanilla never reads or skips field
32767). One SparkSession, paired rounds after a warm-up (each round runs vanilla, then superspark):
each figure is the medians of both sides' seconds and the median of the rounds' ratios, with min-max:
  - schema inference:   spark.read.parquet(path).schema (JVM side; with PySpark's schema
                        conversion to Python objects as schema_inference_pyspark)
  - 5-column query:     .select(5 columns).where(filter).count() and .collect()
Every one of these is a first query: superspark's footer cache is emptied before each of its
calls, so no figure in this part is served by the cache.
Second query (BENCH_PARTS cache): the same 5-column count twice in a row over the same files,
vanilla (read path off, plain files) and superspark (read path on, the footer cache emptied before
the first query), interleaved rounds after a warm-up, medians: query_count_first, query_count_second
(the only figure a warm cache serves), and the footer bytes superspark read per task in each query
(footer_bytes_per_task_*; ~0 for the second one when every footer is served from the cache).
Write path: a 1,000-column table written with `spark.superspark.parquet.footer.write` off vs on.

Environment: BENCH_PARTS (read,write,cache), BENCH_COLUMNS (10000), BENCH_FILES (50), BENCH_ROW_GROUPS (20), BENCH_ROWS (5),
BENCH_ROUNDS (3), BENCH_CACHE_BYTES (2g: spark.superspark.parquet.footer.cache.maxBytes),
BENCH_DRIVER_MEMORY (5g), BENCH_WRITE_ROWS (20000), BENCH_WRITE_ROUNDS (7), BENCH_DIR (a directory under the system temp dir;
the generated table is kept there and reused). BENCH_DSV2=1: Parquet as a DSv2 source
(`spark.sql.sources.useV1SourceList` without parquet; writes are DSv1 either way).
"""

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import rounds  # noqa: E402  (bench/rounds.py: paired rounds into one figure)

COLUMNS = int(os.environ.get("BENCH_COLUMNS", 10000))
FILES = int(os.environ.get("BENCH_FILES", 50))
PARTS = set(os.environ.get("BENCH_PARTS", "read,write,cache").split(","))
ROW_GROUPS = int(os.environ.get("BENCH_ROW_GROUPS", 20))
ROWS = int(os.environ.get("BENCH_ROWS", 5))
ROUNDS = int(os.environ.get("BENCH_ROUNDS", 3))
WRITE_ROWS = int(os.environ.get("BENCH_WRITE_ROWS", 20000))
WRITE_ROUNDS = int(os.environ.get("BENCH_WRITE_ROUNDS", 7))
BASE = os.environ.get("BENCH_DIR", os.path.join(tempfile.gettempdir(), "superspark-bench-interceptor"))
DSV2 = os.environ.get("BENCH_DSV2") == "1"
# The footer cache must hold the table's footers for the second query to find them: the
# extension part is ~27 MB a file at 10,000 columns x 20 row groups (~1.4 GB for 50 files).
CACHE_BYTES = os.environ.get("BENCH_CACHE_BYTES", "2g")
DRIVER_MEMORY = os.environ.get("BENCH_DRIVER_MEMORY", "5g")

READ = "spark.superspark.parquet.footer.read"
WRITE = "spark.superspark.parquet.footer.write"


def generate() -> tuple:
    """The wide table (made once per parameter set, then reused): (plain, extended), the same
    files without and with the footer extension."""
    root = os.path.join(BASE, f"wide_{COLUMNS}c_{ROW_GROUPS}rg_{ROWS}r_{FILES}f")
    plain, path = os.path.join(root, "plain"), os.path.join(root, "extended")
    done = os.path.join(root, "_READY")
    if os.path.exists(done):
        return plain, path
    shutil.rmtree(root, ignore_errors=True)
    os.makedirs(plain)
    os.makedirs(path)
    t = time.time()
    rng = np.random.default_rng(42)
    n = ROW_GROUPS * ROWS
    table = pa.table([pa.array(rng.integers(0, 1000, n)) for _ in range(COLUMNS)],
                     names=[f"c{i}" for i in range(COLUMNS)])
    first_plain = os.path.join(plain, "part-00000.parquet")
    pq.write_table(table, first_plain, row_group_size=ROWS)
    first = os.path.join(path, "part-00000.parquet")
    shutil.copyfile(first_plain, first)
    subprocess.run([sys.executable, "-m", "superspark.footer", "add", first], check=True, stdout=subprocess.DEVNULL)
    for i in range(1, FILES):
        shutil.copyfile(first_plain, os.path.join(plain, f"part-{i:05d}.parquet"))
        shutil.copyfile(first, os.path.join(path, f"part-{i:05d}.parquet"))
    open(done, "w").close()
    print(f"generated {FILES} files x {COLUMNS} columns x {ROW_GROUPS} row groups "
          f"({os.path.getsize(first_plain) / 1e6:.1f} MB plain, {os.path.getsize(first) / 1e6:.1f} MB with the "
          f"extension, each) in {time.time() - t:.1f} s", flush=True)
    return plain, path


def timed(fn):
    t = time.perf_counter()
    out = fn()
    return time.perf_counter() - t, out


def paired(name: str, off: list, on: list, extra: str = "") -> str:
    """One figure from paired rounds (round i's vanilla and superspark run back to back): the medians of
    each side's seconds, and the median of the rounds' ratios (vanilla / superspark) with their min-max."""
    return (f"{name}: off={statistics.median(off):.3f}s on={statistics.median(on):.3f}s{extra} "
            f"{rounds.ratio_line(off, on)}")


def main() -> None:
    import superspark

    spark = superspark.session("bench-interceptor", master="local[2]",
                               **{"spark.ui.enabled": "false", "spark.driver.memory": DRIVER_MEMORY,
                                  "spark.superspark.parquet.footer.cache.maxBytes": CACHE_BYTES,
                                  "spark.ui.showConsoleProgress": "false",
                                  "spark.sql.shuffle.partitions": "2",
                                  **({"spark.sql.sources.useV1SourceList": "avro,csv,json,kafka,orc,text"} if DSV2 else {})})
    spark.sparkContext.setLogLevel("ERROR")
    if "read" in PARTS:
        bench_read(spark, *generate())
    if "cache" in PARTS:
        bench_second_query(spark, *generate())
    if "write" in PARTS:
        bench_write(spark)
    spark.stop()


def bench_read(spark, plain: str, path: str) -> None:
    """First queries only: vanilla on the plain files, superspark on the extended ones with its
    footer cache emptied before each call."""
    from superspark import parquet_interceptor as pi

    cols = [f"c{i}" for i in (0, COLUMNS // 4, COLUMNS // 2, 3 * COLUMNS // 4, COLUMNS - 1)]

    def schema(p):
        # The JVM-side schema: PySpark's `.schema` adds a JSON round trip of the 10,000-field
        # schema into Python objects (~0.1 s, the same with or without the interceptor),
        # reported separately as schema_inference_pyspark.
        return spark.read.parquet(p)._jdf.schema().length()

    def schema_py(p):
        return len(spark.read.parquet(p).schema)

    def query(p):
        return spark.read.parquet(p).select(*cols).where(f"{cols[0]} < 500")

    tasks = {
        "schema_inference": schema,
        "schema_inference_pyspark": schema_py,
        "query_count": lambda p: query(p).count(),
        "query_collect": lambda p: len(query(p).collect()),
    }
    times = {(name, mode): [] for name in tasks for mode in ("off", "on")}
    results = {}
    for rnd in range(ROUNDS + 1):  # round 0 warms up the JVM and the page cache
        for name, fn in tasks.items():
            for mode in ("off", "on"):
                spark.conf.set(READ, "true" if mode == "on" else "false")
                pi.clear_footer_cache(spark)  # a first query: nothing served by the cache
                secs, out = timed(lambda: fn(path if mode == "on" else plain))
                results.setdefault(name, out)
                assert results[name] == out, (name, mode, out, results[name])
                if rnd > 0:
                    times[(name, mode)].append(secs)
    spark.conf.unset(READ)
    print(f"read{' (DSv2)' if DSV2 else ''}: {FILES} files x {COLUMNS} columns x {ROW_GROUPS} row groups, "
          f"{ROUNDS} rounds, medians; first queries (footer cache emptied before each), vanilla on plain files")
    for name in tasks:
        print(paired(name, times[(name, "off")], times[(name, "on")]), flush=True)


def bench_second_query(spark, plain: str, path: str) -> None:
    """The first and the second query over the same files: vanilla on the plain files vs
    superspark on the extended ones with its footer cache (emptied before each round's first
    query)."""
    from superspark import parquet_interceptor as pi

    cols = [f"c{i}" for i in (0, COLUMNS // 4, COLUMNS // 2, 3 * COLUMNS // 4, COLUMNS - 1)]

    def query(p):
        return spark.read.parquet(p).select(*cols).where(f"{cols[0]} < 500")

    tasks = query(path).rdd.getNumPartitions()
    times = {(q, mode): [] for q in ("first", "second") for mode in ("off", "on")}
    per_task = {"first": [], "second": []}
    expected = None
    for rnd in range(ROUNDS + 1):  # round 0 warms up the JVM and the page cache
        for mode in ("off", "on"):
            spark.conf.set(READ, "true" if mode == "on" else "false")
            pi.clear_footer_cache(spark)
            for q in ("first", "second"):
                pi.reset_footer_metrics(spark)
                secs, out = timed(lambda: query(path if mode == "on" else plain).count())
                expected = out if expected is None else expected
                assert out == expected, (q, mode, out, expected)
                if rnd > 0:
                    times[(q, mode)].append(secs)
                    if mode == "on":
                        per_task[q].append(pi.footer_cache_metrics(spark)["bytes_read"] / tasks)
    spark.conf.unset(READ)
    held = pi.footer_cache_metrics(spark)
    print(f"second query: {FILES} files x {COLUMNS} columns x {ROW_GROUPS} row groups, 5 columns read, {tasks} tasks, "
          f"{ROUNDS} rounds, medians; cache held {held['held_bytes'] / 1e6:.1f} MB in {held['entries']} entries")
    for q in ("first", "second"):
        print(paired(f"query_count_{q}", times[(q, "off")], times[(q, "on")]), flush=True)
    for q in ("first", "second"):
        print(f"footer_bytes_per_task_{q}: {statistics.median(per_task[q]):.0f} bytes "
              "(superspark; schema inference's one footer included)", flush=True)


def bench_write(spark) -> None:
    """Write overhead: 1,000 columns, write path off vs on, interleaved."""
    wide = spark.range(0, WRITE_ROWS, 1, 2).selectExpr(*[f"id * {i} AS w{i}" for i in range(1000)])
    out_dir = os.path.join(BASE, "write")
    wtimes = {"off": [], "on": []}
    warmups = 2
    for rnd in range(WRITE_ROUNDS + warmups):
        # alternate which mode goes first, so neither always pays the other's GC debt
        for mode in (("off", "on") if rnd % 2 == 0 else ("on", "off")):
            spark.conf.set(WRITE, "true" if mode == "on" else "false")
            shutil.rmtree(out_dir, ignore_errors=True)
            secs, _ = timed(lambda: wide.write.parquet(out_dir))
            if rnd >= warmups:
                wtimes[mode].append(secs)
    spark.conf.unset(WRITE)
    off = statistics.median(wtimes["off"])
    on = statistics.median(wtimes["on"])
    print(paired(f"write_1000_columns ({WRITE_ROWS} rows, 2 files, after {warmups} warm-ups)", wtimes["off"], wtimes["on"],
                 f" overhead={100 * (on / off - 1):.1f}%"), flush=True)


if __name__ == "__main__":
    main()
