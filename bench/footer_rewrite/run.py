"""Footer rewrite benchmark (`make bench-rewrite`, issue #23): the cost of crash safety.

`migrate --to final` of plain pyarrow files, crash-safe (the default: a temporary file with the data
bytes copied and the new tail, forced to disk, renamed over the old file) against the old in-place
path (`--unsafe-in-place`: the new tail written into the file, truncated), side by side, by:

- the command line: `python -m superspark.footer migrate --to final [--unsafe-in-place] DIR` (a new
  Python process and tool JVM per run, files one after another);
- the table job: `FooterTableJob` (`superspark.footer.migrate_table`) on a `local[2]` session; its
  in-place variant exists only on the JVM side, for this comparison.

Fixtures (in bench/out/footer_rewrite, made once): SMALL files of a 2,000-row, 4-column table
(~40 KB each, default 10,000) and LARGE files of 750,000 rows (~15 MB each, default 100), copies of
one file each. Each run starts from a fresh copy of the fixture (copied outside the timing, then
`sync`ed so that the copy's writeback is not in the figure); one untimed warm-up run per way (the
table job's first job warms its JVM), then RUNS runs per cell (default 3), crash-safe and in-place
alternating; the median reported with [min-max]. files/s = files / wall seconds; MB/s = file bytes (before) / wall
seconds. `ratio=` lines: crash-safe time / in-place time (above 1: crash safety costs that factor).

Environment: BENCH_REWRITE_SMALL, BENCH_REWRITE_LARGE (file counts), BENCH_REWRITE_RUNS,
BENCH_REWRITE_PARTS (small,large), BENCH_REWRITE_WAYS (cli,table). E.g. a quick run:
BENCH_REWRITE_SMALL=1000 BENCH_REWRITE_LARGE=10 BENCH_REWRITE_RUNS=1 make bench-rewrite.
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
OUT = os.path.join(REPO, "bench", "out", "footer_rewrite")
sys.path.insert(0, os.path.join(REPO, "python"))

SMALL = int(os.environ.get("BENCH_REWRITE_SMALL", "10000"))
LARGE = int(os.environ.get("BENCH_REWRITE_LARGE", "100"))
RUNS = int(os.environ.get("BENCH_REWRITE_RUNS", "3"))
PARTS = os.environ.get("BENCH_REWRITE_PARTS", "small,large").split(",")
WAYS = os.environ.get("BENCH_REWRITE_WAYS", "cli,table").split(",")


def _fixture(kind: str, count: int) -> str:
    """bench/out/footer_rewrite/<kind>-<count>/: `count` copies of one plain pyarrow file."""
    import pyarrow as pa
    import pyarrow.parquet as pq
    import random

    d = os.path.join(OUT, f"{kind}-{count}")
    if os.path.isdir(d) and len([f for f in os.listdir(d) if f.endswith(".parquet")]) == count:
        return d
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    rows = 2000 if kind == "small" else 750_000
    rnd = random.Random(7)
    table = pa.table({"id": pa.array(range(rows), pa.int64()),
                      "x": pa.array([rnd.random() for _ in range(rows)], pa.float64()),
                      "s": pa.array([f"name-{rnd.randrange(100000)}" for _ in range(rows)]),
                      "k": pa.array([i % 17 for i in range(rows)], pa.int32())})
    first = os.path.join(d, "part-00000.parquet")
    pq.write_table(table, first, row_group_size=rows if kind == "small" else 250_000, compression="snappy")
    for i in range(1, count):
        shutil.copyfile(first, os.path.join(d, f"part-{i:05d}.parquet"))
    return d


def _fresh(src: str) -> str:
    dst = os.path.join(OUT, "work")
    shutil.rmtree(dst, ignore_errors=True)
    shutil.copytree(src, dst)
    os.sync()
    return dst


def _cli(d: str, unsafe: bool) -> float:
    cmd = [sys.executable, "-m", "superspark.footer", "migrate", "--to", "final", "--json", d]
    if unsafe:
        cmd.insert(-2, "--unsafe-in-place")
    t = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.perf_counter() - t
    if p.returncode != 0 or '"status": "error"' in p.stdout:
        raise RuntimeError(p.stdout[-2000:] + p.stderr[-2000:])
    return wall


_spark = None


def _table(d: str, unsafe: bool) -> float:
    global _spark
    import superspark

    if _spark is None:
        _spark = superspark.session("bench-rewrite", master="local[2]",
                                    **{"spark.ui.enabled": "false", "spark.ui.showConsoleProgress": "false"})
        _spark.sparkContext.setLogLevel("ERROR")
    job = _spark._jvm.io.superspark.parquet.footer.tools.FooterTableJob
    t = time.perf_counter()
    rows = job.results(_spark._jsparkSession, d, "migrate", "final", False, bool(unsafe))
    wall = time.perf_counter() - t
    statuses = {rows.apply(i).getString(1) for i in range(rows.size())}
    if statuses != {"done"}:
        raise RuntimeError(f"table job statuses {statuses}")
    return wall


def main() -> int:
    os.makedirs(OUT, exist_ok=True)
    print(f"footer rewrite bench: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, load {os.getloadavg()[0]:.1f}, "
          f"{os.cpu_count()} cores, runs {RUNS}")
    counts = {"small": SMALL, "large": LARGE}
    for part in PARTS:
        src = _fixture(part, counts[part])
        files = counts[part]
        mb = sum(os.path.getsize(os.path.join(src, f)) for f in os.listdir(src)) / 1e6
        print(f"\n{part}: {files:,} files, {mb:,.1f} MB")
        for way in WAYS:
            run = _cli if way == "cli" else _table
            run(_fresh(src), False)  # warm-up, untimed
            times = {False: [], True: []}
            for _ in range(RUNS):
                for unsafe in (False, True):
                    times[unsafe].append(run(_fresh(src), unsafe))
            for unsafe in (False, True):
                runs = times[unsafe]
                med = statistics.median(runs)
                label = "in-place (--unsafe-in-place)" if unsafe else "crash-safe (default)"
                print(f"  {way:5s} {label:29s} {med:7.2f} s [{min(runs):.2f}-{max(runs):.2f}]  "
                      f"{files / med:9,.0f} files/s  {mb / med:8,.1f} MB/s")
            ratio = statistics.median(times[False]) / statistics.median(times[True])
            print(f"ratio={ratio:.2f} {part}_{way}_crash_safe_vs_in_place_time")
    shutil.rmtree(os.path.join(OUT, "work"), ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
