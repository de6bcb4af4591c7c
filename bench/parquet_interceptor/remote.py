"""The footer interceptor bench with the files in a bucket (make bench-interceptor-s3, make
bench-interceptor-gs): prints ratio= lines and the GET requests and bytes per file opened, vanilla
against superspark. Usage: remote.py s3|gs.

The table is the one of bench/parquet_interceptor/run.py (BENCH_COLUMNS int64 columns x
BENCH_ROW_GROUPS row groups of BENCH_ROWS rows), BENCH_FILES copies (8 here by default: the
issue's 10,000-column width, and four files per core, so that every task opens several footers;
a vanilla first query parses eight 20 MB Thrift footers in about 6 s, which keeps a run of both
S3A streams inside 15 minutes with 3 rounds), made locally once, then uploaded into the bucket
of dev/stores/start.sh's server (versitygw for s3a://, fake-gcs-server for gs://): the plain
files (no field 32767) for vanilla Spark, the same files given the footer extension for
superspark. Both sides run in one SparkSession on the same bucket, BENCH_ROUNDS paired rounds
after a warm-up round:

  - query (5 columns read, `c0 < 500`, count): the first query (superspark's footer cache emptied
    before it) and the second (the same query again: the cache warm);
  - footer_only (the same 5 columns, `c0 < 0`: every row group is pruned by its statistics, so
    the scan reads the footers and no data page): first and second, as above.

Before every first query the store's file system is closed, so neither side is served by a cache
inside the connector (Hadoop 3.5's analytics stream caches the objects it read); the DataFrames are
made before (the listing and schema inference are not measured). The counts come from the file
system's IOStatistics (local mode: the executors share the driver JVM's FileSystem instance), per
file opened (BENCH_FILES per query). S3A: `action_http_get_request` (GETs),
`action_http_head_request` (HEADs), `stream_read_bytes` (bytes the streams returned),
`stream_read_prefetched_bytes` (bytes the analytics stream fetched ahead;
`stream_read_analytics_opened` tells which stream the line's default is). Google's connector:
`action_http_get_request` (every JSON API call for an object's metadata or bytes is a GET: it has no
HEAD), `op_get_file_status` and `stream_read_bytes`.

Environment: those of run.py for the table (BENCH_COLUMNS, BENCH_ROW_GROUPS, BENCH_ROWS, BENCH_DIR),
BENCH_FILES (8), BENCH_ROUNDS (3), BENCH_CACHE_BYTES (2g), BENCH_DRIVER_MEMORY (5g), BENCH_S3_STREAM
(S3A's `fs.s3a.input.stream.type`: empty for the Hadoop line's default; `classic`, `analytics`,
`prefetch`). The endpoints come from the environment dev/stores/run.sh exports.
"""

import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(REPO, "tests_stores"))
os.environ.setdefault("BENCH_FILES", "8")

import run  # noqa: E402  (the table and its knobs)
from conftest import endpoints, gcs_settings, s3a_spark_conf  # noqa: E402  (the settings a user gives)

ROUNDS = run.ROUNDS
STREAM = os.environ.get("BENCH_S3_STREAM", "")
READ = run.READ
STORE = sys.argv[1] if len(sys.argv) > 1 else "s3"
COUNTERS = {
    "s3": {"get": "action_http_get_request", "head": "action_http_head_request", "bytes": "stream_read_bytes",
           "prefetched": "stream_read_prefetched_bytes", "analytics": "stream_read_analytics_opened"},
    # Google's connector: every JSON API call for an object's metadata or bytes is a GET; no HEAD
    "gs": {"get": "action_http_get_request", "status": "op_get_file_status", "bytes": "stream_read_bytes"},
}[STORE]


def store_conf(env) -> tuple[dict, str, str]:
    """(the session's settings for the store as a user gives them, the bucket's root URI, a label)."""
    if STORE == "s3":
        return s3a_spark_conf(env, STREAM), f"s3a://{env['SUPERSPARK_S3_BUCKET']}", \
            f"s3 (versitygw, S3A stream {STREAM or 'the line default'})"
    jar = subprocess.run([os.path.join(REPO, "dev", "stores", "gcs-jars.sh"), sys.prefix],
                         check=True, capture_output=True, text=True).stdout.strip()
    conf = {"spark.jars": jar, **{f"spark.hadoop.{k}": v for k, v in gcs_settings(env).items()}}
    return conf, f"gs://{env['SUPERSPARK_GCS_BUCKET']}", "gs (fake-gcs-server, Google's connector)"


def main() -> None:
    import superspark
    from superspark import parquet_interceptor as pi

    env = endpoints()
    plain_local, ext_local = run.generate()
    store, bucket, label = store_conf(env)
    spark = superspark.session(f"bench-interceptor-{STORE}", master="local[2]", **{**store,
        "spark.ui.enabled": "false", "spark.driver.memory": run.DRIVER_MEMORY,
        "spark.superspark.parquet.footer.cache.maxBytes": run.CACHE_BYTES,
        "spark.ui.showConsoleProgress": "false", "spark.sql.shuffle.partitions": "2"})
    spark.sparkContext.setLogLevel("ERROR")
    jvm, conf = spark._jvm, spark._jsc.hadoopConfiguration()
    Path = jvm.org.apache.hadoop.fs.Path
    table = os.path.basename(os.path.dirname(plain_local))
    root = f"{bucket}/bench-interceptor/{table}"
    fs = Path(root).getFileSystem(conf)

    # the upload, once per bucket (dev/stores/stop.sh drops the bucket's data)
    t = time.time()
    for local, name in ((plain_local, "plain"), (ext_local, "extended")):
        dst = Path(f"{root}/{name}")
        if not fs.exists(Path(f"{root}/{name}/_READY")):
            fs.delete(dst, True)
            fs.copyFromLocalFile(False, True, Path("file://" + local), dst)
            fs.create(Path(f"{root}/{name}/_READY")).close()
    print(f"upload: {run.FILES} + {run.FILES} files in the bucket in {time.time() - t:.1f} s", flush=True)
    plain, ext = f"{root}/plain", f"{root}/extended"

    cols = [f"c{i}" for i in (0, run.COLUMNS // 4, run.COLUMNS // 2, 3 * run.COLUMNS // 4, run.COLUMNS - 1)]
    queries = {"query": f"{cols[0]} < 500", "footer_only": f"{cols[0]} < 0"}

    def counters():
        # the instance the executors use now (a closed one is replaced at the next get)
        stats = Path(root).getFileSystem(conf).getIOStatistics().counters()
        return {k: int(stats.getOrDefault(v, 0)) for k, v in COUNTERS.items()}

    have = Path(root).getFileSystem(conf).getIOStatistics().counters()
    missing = [v for v in COUNTERS.values() if not have.containsKey(v)]
    if missing:
        raise SystemExit(f"{STORE}: the connector's IOStatistics have no counter {missing}; it has {sorted(have.keySet())}")

    times, counts, expected = {}, {}, {}
    for rnd in range(ROUNDS + 1):  # round 0 warms up the JVM
        for name, where in queries.items():
            for mode in ("off", "on"):
                spark.conf.set(READ, "true" if mode == "on" else "false")
                df = spark.read.parquet(ext if mode == "on" else plain).select(*cols).where(where)
                pi.clear_footer_cache(spark)
                Path(root).getFileSystem(conf).close()  # no S3A-side cache either
                for q in ("first", "second"):
                    before = counters()
                    t0 = time.perf_counter()
                    n = df.count()
                    secs = time.perf_counter() - t0
                    after = counters()
                    assert expected.setdefault(name, n) == n, (name, mode, q, n, expected[name])
                    if rnd > 0:
                        times.setdefault((name, q, mode), []).append(secs)
                        for k in COUNTERS:
                            counts.setdefault((name, q, mode, k), []).append((after[k] - before[k]) / run.FILES)
    spark.conf.unset(READ)
    if any(v for (n, q, m, k), v in counts.items() if k == "analytics" and any(v)):
        label += ": the analytics stream"
    print(f"{label}: {run.FILES} files x {run.COLUMNS} columns x {run.ROW_GROUPS} row groups, "
          f"5 columns read, {ROUNDS} paired rounds; vanilla (off) on the plain files, superspark (on) on the "
          f"extended ones; rows {expected}", flush=True)
    med = statistics.median
    for name in queries:
        for q in ("first", "second"):
            print(run.paired(f"{name}_{q}", times[(name, q, "off")], times[(name, q, "on")]), flush=True)
    for name in queries:
        for q in ("first", "second"):
            per = {mode: {k: med(counts[(name, q, mode, k)]) for k in COUNTERS} for mode in ("off", "on")}
            print(f"{name}_{q} per file: " + "  ".join(
                f"{mode}: GET={p['get']:.2f} " + (f"HEAD={p['head']:.2f}" if "head" in p else f"getFileStatus={p['status']:.2f}")
                + f" bytes={p['bytes'] / 1e6:.3f}MB"
                + (f" prefetched={p['prefetched'] / 1e6:.3f}MB" if "prefetched" in p else "")
                for mode, p in per.items()), flush=True)
    spark.stop()


if __name__ == "__main__":
    main()
