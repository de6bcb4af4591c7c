"""make bench-every-writer: Delta Lake's own writes with spark.superspark.parquet.footer.everyWriter,
against the same writes without it. Prints ratio= lines.

Spark 4.2 with delta-spark 4.4.0 (.venv-spark4.2 and Delta's jars, made by `SPARK_LINE=4.2
dev/setup.sh`). The setting is static, so each side is its own application ("off", "on"), both
kept running and driven in turn by this script, which times each step from the side of the
application that does it.

1. write: a Delta append of APPEND_COLUMNS columns x APPEND_ROWS rows (doubles and ints computed
   from the row number, APPEND_FILES files), ROUNDS paired rounds after a warm-up append on each
   side; each round appends to a fresh table on both sides, off first then on. Printed: the
   medians with min-max, `ratio=` off/on (write overhead = on/off - 1), and the most bytes the
   `on` side held back at once (heldBytesPeak: the memory of its open writers).
2. read: a WIDE_COLUMNS-column Delta table (WIDE_FILES files of WIDE_ROW_GROUPS row groups of
   WIDE_ROWS rows: bench-interceptor's footer-parsing table) written by Delta's append on
   each side; then, in the `on` application, Delta's scan of 5 columns with a filter that skips
   no file (its column is beyond Delta's 32 indexed columns), counted,
   twice in a row (first: footer cache emptied; second: superspark's warm footer cache against
   Delta's own uncached reader), on the table the `off` side wrote with
   spark.superspark.parquet.footer.read=false (Delta's reader, no superspark code in the scan's
   path) and on the table the `on` side wrote with it true; ROUNDS rounds after a warm-up round.
   Each query is timed whole and in its two parts: planning (`executedPlan`: Delta's optimizer
   rules, its jobs over the log and Spark's canonicalization of the wide relation, the same work
   on both sides) and execution (the scan, where the footers are read).
   Then the `on` table's second query again in the `on` application, ROUNDS paired rounds after a
   warm-up pair, the footer cache warm: with spark.superspark.parquet.footer.cache.packSplits
   false and the default (true) in turn (Spark's one task a 70 MB file against tasks packed by
   the data they read), then with parquet.hadoop.vectored.io.enabled true and unset in turn
   (parquet-java's vectored reads through Hadoop's checksummed local file system against the
   sequential reads superspark's reader makes there when the setting is unset).

3. planning: a WIDE_COLUMNS-column Delta table with no data files and a Parquet folder of the same
   schema, in the `off` application: the 5-column count planned on each (`executedPlan`), and
   the canonical form of the Delta table's analyzed relation timed alone (Delta's
   PrepareDeltaScan canonicalizes the scan's relation), each with
   spark.superspark.plan.linearCanonicalization false (Spark's own, quadratic in the columns) and
   true (superspark's, linear; the default, so part 2's queries plan with it on both sides), in
   turn, ROUNDS paired rounds after a warm-up.

Warm: the JVMs (a warm-up step on each side before the timed rounds) and the OS page cache (the
files are on local disk and were just written); cold: the footer cache before each first query.

Environment: BENCH_APPEND_COLUMNS (1000), BENCH_APPEND_ROWS (200000), BENCH_APPEND_FILES (4),
BENCH_WIDE_COLUMNS (10000), BENCH_WIDE_FILES (50), BENCH_WIDE_ROW_GROUPS (20), BENCH_WIDE_ROWS (5),
BENCH_ROUNDS (3), BENCH_DIR, BENCH_PARTS (write,read,planning), BENCH_REUSE_TABLES (1: part 2 reads the
wide tables an earlier run left in BENCH_DIR, when each holds WIDE_FILES files, instead of writing
them again: 10-13 minutes a side at the default shape; a run without the read part leaves them
in place).
"""

import glob
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import rounds  # noqa: E402  (bench/rounds.py: paired rounds into one figure)

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
APPEND_COLUMNS = int(os.environ.get("BENCH_APPEND_COLUMNS", 1000))
APPEND_ROWS = int(os.environ.get("BENCH_APPEND_ROWS", 200000))
APPEND_FILES = int(os.environ.get("BENCH_APPEND_FILES", 4))
WIDE_COLUMNS = int(os.environ.get("BENCH_WIDE_COLUMNS", 10000))
WIDE_FILES = int(os.environ.get("BENCH_WIDE_FILES", 50))
WIDE_ROW_GROUPS = int(os.environ.get("BENCH_WIDE_ROW_GROUPS", 20))
WIDE_ROWS = int(os.environ.get("BENCH_WIDE_ROWS", 5))
ROUNDS = int(os.environ.get("BENCH_ROUNDS", 3))
PARTS = set(os.environ.get("BENCH_PARTS", "write,read,planning").split(","))
REUSE = os.environ.get("BENCH_REUSE_TABLES") == "1"
BASE = os.environ.get("BENCH_DIR", os.path.join(tempfile.gettempdir(), "superspark-bench-every-writer"))

# The application each side runs: reads one command (JSON) per line, answers one JSON line.
_SIDE = r'''
import json, sys, time
import superspark
from superspark import parquet_interceptor as pi
on, jars = sys.argv[1] == "on", sys.argv[2]
spark = superspark.session("bench-every-writer-" + sys.argv[1], master="local[2]", **{
    "spark.jars": jars,
    "spark.sql.extensions": "io.delta.sql.DeltaSparkSessionExtension",
    "spark.sql.catalog.spark_catalog": "org.apache.spark.sql.delta.catalog.DeltaCatalog",
    "spark.superspark.parquet.footer.everyWriter": "true" if on else "false",
    "spark.driver.memory": "6g", "spark.ui.enabled": "false", "spark.ui.showConsoleProgress": "false",
    "spark.sql.shuffle.partitions": "2", "spark.databricks.delta.snapshotPartitions": "2",
    "spark.superspark.parquet.footer.cache.maxBytes": "2g"})
spark.sparkContext.setLogLevel("ERROR")
hconf = spark.sparkContext._jsc.hadoopConfiguration()
print(json.dumps({"ready": True}), flush=True)
for line in sys.stdin:
    c = json.loads(line)
    if c["op"] == "append":
        n = c["columns"]
        exprs = ["id"] + [f"CAST(id * {i} AS INT) AS c{i}" if i % 2 else f"CAST(id AS DOUBLE) * {i} / 7 AS c{i}"
                          for i in range(1, n)]
        df = spark.range(0, c["rows"], 1, c["files"]).selectExpr(*exprs)
        rg = c.get("row_group_rows")
        if rg:  # row groups of rg rows: the memory check after every rg rows, any size over the bound
            for k, v in (("parquet.block.size", "1"), ("parquet.page.size.row.check.min", str(rg)),
                         ("parquet.page.size.row.check.max", str(rg))):
                hconf.set(k, v)
        pi.reset_every_writer_counts(spark)
        t = time.perf_counter()
        df.write.format("delta").mode("append").save(c["path"])
        secs = time.perf_counter() - t
        for k in ("parquet.block.size", "parquet.page.size.row.check.min", "parquet.page.size.row.check.max"):
            hconf.unset(k)
        print(json.dumps({"secs": secs, "counts": pi.every_writer_counts(spark)}), flush=True)
    elif c["op"] == "query":
        spark.conf.set("spark.superspark.parquet.footer.read", "true" if c["read"] else "false")
        cols = c["cols"]
        pi.clear_footer_cache(spark)
        out = []
        for q in ("first", "second"):
            pi.reset_footer_metrics(spark)
            t = time.perf_counter()
            counted = spark.read.format("delta").load(c["path"]).select(*cols).where(f"{cols[1]} >= 0").groupBy().count()
            counted._jdf.queryExecution().executedPlan()  # planning, timed apart: collect() runs this plan
            planned = time.perf_counter()
            n = counted.collect()[0][0]
            done = time.perf_counter()
            out.append({"plan": planned - t, "run": done - planned, "secs": done - t, "count": n,
                        "metrics": pi.footer_metrics(spark)})
        spark.conf.unset("spark.superspark.parquet.footer.read")
        print(json.dumps(out), flush=True)
    elif c["op"] == "again":
        # the same count with the footer cache as the last query left it, with the settings given
        for k, v in c["settings"].items():
            spark.conf.set(k, v)
        cols = c["cols"]
        t = time.perf_counter()
        counted = spark.read.format("delta").load(c["path"]).select(*cols).where(f"{cols[1]} >= 0").groupBy().count()
        counted._jdf.queryExecution().executedPlan()
        planned = time.perf_counter()
        n = counted.collect()[0][0]
        done = time.perf_counter()
        for k in c["settings"]:
            spark.conf.unset(k)
        print(json.dumps({"plan": planned - t, "run": done - planned, "secs": done - t, "count": n}), flush=True)
    elif c["op"] == "planning":
        cols, path = c["cols"], c["path"]
        spark.conf.set("spark.superspark.plan.linearCanonicalization", "true" if c["linear"] else "false")
        ddl = ", ".join(["id BIGINT"] + [f"c{i} {'INT' if i % 2 else 'DOUBLE'}" for i in range(1, c["columns"])])
        spark.sql(f"CREATE TABLE IF NOT EXISTS delta.`{path}` ({ddl}) USING delta")
        spark.createDataFrame([], ddl).write.mode("ignore").parquet(path + "-parquet")
        def planned(df):
            t = time.perf_counter()
            df.select(*cols).where(f"{cols[1]} >= 0").groupBy().count()._jdf.queryExecution().executedPlan()
            return time.perf_counter() - t
        analyzed = spark.read.format("delta").load(path)._jdf.queryExecution().analyzed()
        t = time.perf_counter()
        analyzed.canonicalized()
        canon = time.perf_counter() - t
        print(json.dumps({"canonicalize": canon, "delta": planned(spark.read.format("delta").load(path)),
                          "parquet": planned(spark.read.parquet(path + "-parquet"))}), flush=True)
        spark.conf.unset("spark.superspark.plan.linearCanonicalization")
spark.stop()
'''


class Side:
    def __init__(self, name, jars):
        self.name = name
        self.p = subprocess.Popen([sys.executable, "-c", _SIDE, name, ",".join(jars)], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, text=True, env=dict(os.environ, PYSPARK_PYTHON=sys.executable))
        assert json.loads(self.p.stdout.readline())["ready"]

    def ask(self, **cmd):
        self.p.stdin.write(json.dumps(cmd) + "\n")
        self.p.stdin.flush()
        line = self.p.stdout.readline()
        if not line:
            raise SystemExit(f"the {self.name} application ended: see its log above")
        return json.loads(line)

    def close(self):
        self.p.stdin.close()
        self.p.wait(timeout=120)


def main() -> None:
    jars = sorted(glob.glob(os.path.join(ROOT, "jvm", "target", "spark-4.2", "delta-jars", "*.jar")))
    if not jars:
        raise SystemExit("no Delta jars: run `SPARK_LINE=4.2 dev/setup.sh` first")
    if not REUSE:
        # a run without the read part leaves the wide tables for a later BENCH_REUSE_TABLES run
        keep = set() if "read" in PARTS else {"wide-off", "wide-on"}
        for name in (os.listdir(BASE) if os.path.isdir(BASE) else []):
            if name not in keep:
                shutil.rmtree(os.path.join(BASE, name), ignore_errors=True)
    os.makedirs(BASE, exist_ok=True)
    off, on = Side("off", jars), Side("on", jars)
    print(f"bench-every-writer {time.strftime('%Y-%m-%d %H:%M')} load {os.getloadavg()[0]:.1f}; "
          f"{ROUNDS} paired rounds after a warm-up", flush=True)
    try:
        if "write" in PARTS:
            spec = dict(columns=APPEND_COLUMNS, rows=APPEND_ROWS, files=APPEND_FILES)
            t = {"off": [], "on": []}
            held = []
            for rnd in range(ROUNDS + 1):  # round 0: warm-up
                for side in (off, on):
                    r = side.ask(op="append", path=os.path.join(BASE, f"append-{side.name}-{rnd}"), **spec)
                    if rnd:
                        t[side.name].append(r["secs"])
                    if side is on:
                        assert r["counts"]["extended"] == APPEND_FILES, r["counts"]
                        held.append(r["counts"]["heldBytesPeak"])
                shutil.rmtree(os.path.join(BASE, f"append-off-{rnd}"))
                shutil.rmtree(os.path.join(BASE, f"append-on-{rnd}"))
            ratios = rounds.ratios(t["off"], t["on"])
            print(f"delta append {APPEND_COLUMNS} columns x {APPEND_ROWS} rows, {APPEND_FILES} files: "
                  f"off {rounds.spread(t['off'])}, on {rounds.spread(t['on'])}", flush=True)
            print(f"append_write: {rounds.ratio_line(t['off'], t['on'], 3)} off/on; "
                  f"overhead {100 * (1 / statistics.median(ratios) - 1):+.1f}%", flush=True)
            print(f"held bytes per writer: peak {max(held)} bytes over the run ({max(held) // (1 << 20)} MiB, "
                  f"2 tasks writing at once)", flush=True)
        if "read" in PARTS:
            spec = dict(columns=WIDE_COLUMNS, rows=WIDE_FILES * WIDE_ROW_GROUPS * WIDE_ROWS, files=WIDE_FILES,
                        row_group_rows=WIDE_ROWS)
            tables = {}
            for side in (off, on):
                tables[side.name] = os.path.join(BASE, f"wide-{side.name}")
                if REUSE and os.path.isdir(os.path.join(tables[side.name], "_delta_log")):
                    files = len(glob.glob(os.path.join(tables[side.name], "*.parquet")))
                    assert files == WIDE_FILES, f"{tables[side.name]} holds {files} files, not {WIDE_FILES}"
                    print(f"wide table ({side.name}): reused, {files} files (BENCH_REUSE_TABLES)", flush=True)
                    continue
                shutil.rmtree(tables[side.name], ignore_errors=True)
                r = side.ask(op="append", path=tables[side.name], **spec)
                print(f"wide table ({side.name}): written by Delta in {r['secs']:.1f} s, counts {r['counts']}", flush=True)
            cols = ["id"] + [f"c{i}" for i in (WIDE_COLUMNS // 4, WIDE_COLUMNS // 2, 3 * WIDE_COLUMNS // 4, WIDE_COLUMNS - 1)]
            parts = ("secs", "plan", "run")
            t = {(q, m, part): [] for q in ("first", "second") for m in ("off", "on") for part in parts}
            flat = None
            rows = WIDE_FILES * WIDE_ROW_GROUPS * WIDE_ROWS
            for rnd in range(ROUNDS + 1):
                for m in ("off", "on"):
                    res = on.ask(op="query", path=tables[m], cols=cols, read=(m == "on"))
                    assert res[0]["count"] == res[1]["count"] == rows, res
                    for q, r in zip(("first", "second"), res):
                        if rnd:
                            for part in parts:
                                t[(q, m, part)].append(r[part])
                    if m == "on":
                        flat = res[0]["metrics"]["footers_flatbuffer"]
                        assert flat == WIDE_FILES, res[0]["metrics"]
            print(f"wide Delta table: {WIDE_FILES} files x {WIDE_COLUMNS} columns x {WIDE_ROW_GROUPS} row groups of "
                  f"{WIDE_ROWS} rows; 5 columns read, a filter that skips no file; footers decoded from the "
                  f"FlatBuffer on the first query: {flat} of {WIDE_FILES}", flush=True)
            for q in ("first", "second"):
                label = "footer cache empty on both sides" if q == "first" else \
                    "superspark's warm footer cache against Delta's uncached reader"
                for part, name in (("secs", f"delta_wide_{q}"), ("plan", f"delta_wide_planning_{q}"),
                                   ("run", f"delta_wide_execution_{q}")):
                    a, b = t[(q, "off", part)], t[(q, "on", part)]
                    print(f"{name}: off {rounds.spread(a)}, on {rounds.spread(b)}; {rounds.ratio_line(a, b)}; {label}",
                          flush=True)
            # the `on` table's second query in the `on` application with one of superspark's choices
            # made and not, in turn: the same JVM, footer cache and files
            for key, name, without, setting in (
                    ("spark.superspark.parquet.footer.cache.packSplits", "packed", "unpacked",
                     {False: {"spark.superspark.parquet.footer.cache.packSplits": "false"}, True: {}}),
                    # the session's value reaches the reader's Hadoop configuration (set: the reader keeps it)
                    ("parquet.hadoop.vectored.io.enabled", "sequential", "vectored",
                     {False: {"parquet.hadoop.vectored.io.enabled": "true"}, True: {}})):
                t = {(made, part): [] for made in (False, True) for part in parts}
                for rnd in range(ROUNDS + 1):
                    for made in ((True, False) if rnd % 2 else (False, True)):
                        r = on.ask(op="again", path=tables["on"], cols=cols, settings=setting[made])
                        assert r["count"] == rows, r
                        if rnd:
                            for part in parts:
                                t[(made, part)].append(r[part])
                for part, line in (("secs", f"delta_wide_second_{name}"), ("run", f"delta_wide_execution_second_{name}")):
                    a, b = t[(False, part)], t[(True, part)]
                    print(f"{line}: {without} {rounds.spread(a)}, {name} {rounds.spread(b)}; {rounds.ratio_line(a, b)}; "
                          f"the `on` table, warm footer cache, {key} {setting[False][key]} / the default", flush=True)
        if "planning" in PARTS:
            cols = ["id"] + [f"c{i}" for i in (WIDE_COLUMNS // 4, WIDE_COLUMNS // 2, 3 * WIDE_COLUMNS // 4, WIDE_COLUMNS - 1)]
            t = {(k, lin): [] for k in ("canonicalize", "delta", "parquet") for lin in (False, True)}
            for rnd in range(ROUNDS + 1):
                for lin in (False, True):
                    r = off.ask(op="planning", path=os.path.join(BASE, "planning"), columns=WIDE_COLUMNS, cols=cols,
                                linear=lin)
                    if rnd:
                        for k in ("canonicalize", "delta", "parquet"):
                            t[(k, lin)].append(r[k])
            for lin, name in ((False, "Spark's own canonicalization (linearCanonicalization=false)"),
                              (True, "superspark's linear canonicalization (the default)")):
                print(f"planning a 5-column count of a {WIDE_COLUMNS}-column table with no data files, {name}: "
                      f"Delta {rounds.spread(t[('delta', lin)])}; the canonical form of the Delta table's relation "
                      f"alone {rounds.spread(t[('canonicalize', lin)])}; a Parquet folder of the same schema "
                      f"{rounds.spread(t[('parquet', lin)])}", flush=True)
            for k, what in (("canonicalize", "the relation's canonical form"), ("delta", "Delta's planning"),
                            ("parquet", "a Parquet folder's planning")):
                print(f"linear_canonicalization_{k}: {rounds.ratio_line(t[(k, False)], t[(k, True)])} "
                      f"({what}, Spark's quadratic / superspark's linear)", flush=True)
            print(f"delta_planning_vs_parquet: {rounds.ratio_line(t[('delta', True)], t[('parquet', True)])} "
                  f"(Delta / Parquet, linear canonicalization)", flush=True)
    finally:
        off.close()
        on.close()


if __name__ == "__main__":
    main()
