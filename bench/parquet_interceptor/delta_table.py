"""The interceptor benchmark on a Delta Lake table (make bench-interceptor-delta): prints ratio= lines.

Spark 4.2 with delta-spark 4.4.0 (the line's venv, .venv-spark4.2, and Delta's jars, both made by
`SPARK_LINE=4.2 dev/setup.sh`). The table: bench-interceptor's wide files (run.py's `generate`:
FILES files of COLUMNS int64 columns x ROW_GROUPS row groups, plain and with the footer extension),
each set hard-linked into its own folder and made a Delta table by `CONVERT TO DELTA ... NO STATISTICS`
(Delta's own writer cannot write the footer: docs/parquet-interceptor.md, "Delta Lake"). The query:
Delta's scan of 5 of the columns, `.where(c0 < 500)`, counted, twice in a row (first, second), with
`spark.superspark.parquet.footer.read` off (Delta's own reader on the plain table: the scan is
Delta's format with no superspark code in its path) and on (the extended table), the footer cache emptied before each first query,
interleaved rounds after a warm-up, medians; the whole query, and its planning and execution
apart (delta_planning_*, delta_execution_*: Delta's optimizer runs Spark jobs over the table's
log while planning, the same work with and without superspark). Also printed: the FlatBuffer footers the scans of the
first `on` query counted (driver totals), which shows the footer library read them.

Environment: as run.py (BENCH_COLUMNS, BENCH_FILES, BENCH_ROW_GROUPS, BENCH_ROWS, BENCH_ROUNDS,
BENCH_CACHE_BYTES, BENCH_DRIVER_MEMORY, BENCH_DIR).
"""

import glob
import os
import shutil
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run as base  # noqa: E402  (the same table and settings as bench-interceptor)

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def delta_copy(path: str) -> str:
    """The wide files as a Delta table (hard links, so no data is copied)."""
    target = path.rstrip("/") + "_delta"
    if os.path.exists(os.path.join(target, "_delta_log")):
        return target
    shutil.rmtree(target, ignore_errors=True)
    os.makedirs(target)
    for f in sorted(glob.glob(os.path.join(path, "*.parquet"))):
        os.link(f, os.path.join(target, os.path.basename(f)))
    return target


def main() -> None:
    import superspark
    from superspark import parquet_interceptor as pi

    jars = sorted(glob.glob(os.path.join(ROOT, "jvm", "target", "spark-4.2", "delta-jars", "*.jar")))
    if not jars:
        raise SystemExit("no Delta jars: run `SPARK_LINE=4.2 dev/setup.sh` first")
    spark = superspark.session("bench-interceptor-delta", master="local[2]", **{
        "spark.jars": ",".join(jars),
        "spark.sql.extensions": "io.delta.sql.DeltaSparkSessionExtension",
        "spark.sql.catalog.spark_catalog": "org.apache.spark.sql.delta.catalog.DeltaCatalog",
        "spark.ui.enabled": "false", "spark.ui.showConsoleProgress": "false",
        "spark.driver.memory": base.DRIVER_MEMORY,
        "spark.superspark.parquet.footer.cache.maxBytes": base.CACHE_BYTES,
        "spark.sql.shuffle.partitions": "2"})
    spark.sparkContext.setLogLevel("ERROR")
    plain, extended = base.generate()
    tables = {"off": delta_copy(plain), "on": delta_copy(extended)}
    for table in tables.values():
        if not os.path.exists(os.path.join(table, "_delta_log")):
            t = time.time()
            spark.sql(f"CONVERT TO DELTA parquet.`{table}` NO STATISTICS")
            print(f"CONVERT TO DELTA {os.path.basename(table)} in {time.time() - t:.1f} s", flush=True)

    cols = [f"c{i}" for i in (0, base.COLUMNS // 4, base.COLUMNS // 2, 3 * base.COLUMNS // 4, base.COLUMNS - 1)]

    def query(table):
        return spark.read.format("delta").load(table).select(*cols).where(f"{cols[0]} < 500")

    times = {(q, mode, part): [] for q in ("first", "second") for mode in ("off", "on") for part in ("plan", "run")}
    flatbuffers = []
    expected = None
    for rnd in range(base.ROUNDS + 1):  # round 0 warms up the JVM and the page cache
        for mode in ("off", "on"):
            spark.conf.set(base.READ, "true" if mode == "on" else "false")
            pi.clear_footer_cache(spark)
            for q in ("first", "second"):
                pi.reset_footer_metrics(spark)
                counted = query(tables[mode]).groupBy().count()
                # Planning (Delta's optimizer rules run Spark jobs over the table's log here) and
                # execution timed apart: collect() runs the plan made here.
                plan_secs, _ = base.timed(lambda: counted._jdf.queryExecution().executedPlan())
                run_secs, out = base.timed(lambda: counted.collect()[0][0])
                expected = out if expected is None else expected
                assert out == expected, (q, mode, out, expected)
                if rnd > 0:
                    times[(q, mode, "plan")].append(plan_secs)
                    times[(q, mode, "run")].append(run_secs)
                if mode == "on" and q == "first":
                    flatbuffers.append(pi.footer_metrics(spark)["footers_flatbuffer"])
    spark.conf.unset(base.READ)
    print(f"delta table (Spark {spark.version}): {base.FILES} files x {base.COLUMNS} columns x {base.ROW_GROUPS} "
          f"row groups, 5 columns read, {base.ROUNDS} rounds, medians")

    def per_round(q, mode, parts):
        return [sum(x) for x in zip(*(times[(q, mode, p)] for p in parts))]

    for q in ("first", "second"):
        for label, parts in ((f"delta_query_count_{q}", ("plan", "run")), (f"delta_planning_{q}", ("plan",)),
                             (f"delta_execution_{q}", ("run",))):
            print(base.paired(label, per_round(q, "off", parts), per_round(q, "on", parts)), flush=True)
    print(f"delta_footers_flatbuffer (first query, superspark): {flatbuffers[-1]}", flush=True)
    spark.stop()


if __name__ == "__main__":
    main()
