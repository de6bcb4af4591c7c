"""Parquet footer benchmark: parquet-java's Thrift footer decode vs superspark's FlatBuffer
footer (full and projected to 10 columns), on pyarrow-written wide files (float + string
columns x 20 row groups, statistics on). One command: `make bench-footer`.

Prints a table, `ratio=` lines (medians of repeats, measured side by side in one JVM) and
writes docs/parquet-footer-bench.png (decode time vs columns, log scale).
"""

from __future__ import annotations

import glob
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)

import fixtures  # noqa: E402

# columns -> repeats (the 50,000-column footer takes seconds per Thrift decode)
SIZES = {1000: 15, 10000: 7, 50000: 3}


def classpath() -> str:
    sys.path.insert(0, os.path.join(REPO, "python"))
    import pyspark
    import superspark

    jars = os.path.join(os.path.dirname(pyspark.__file__), "jars", "*")
    return f"{superspark.jar_path()}{os.pathsep}{jars}"


def main() -> int:
    sizes = {int(a): SIZES.get(int(a), 5) for a in sys.argv[1:]} or SIZES
    folder = os.path.join(REPO, "bench", "out", "parquet_footer")
    os.makedirs(folder, exist_ok=True)
    args = []
    for columns, repeats in sizes.items():
        path = fixtures.fixture_path(folder, columns)
        took = fixtures.write_fixture(path, columns)
        print(f"fixture {os.path.basename(path)}: " + (f"written in {took:.1f}s" if took else "cached"))
        args.append(f"{path}:{repeats}")
    started = time.perf_counter()
    proc = subprocess.run(
        ["java", "-Xmx6g", "-cp", classpath(), "io.superspark.parquet.footer.FooterBenchmark", *args],
        capture_output=True, text=True)
    if proc.returncode != 0:
        print(proc.stderr[-4000:], file=sys.stderr)
        return proc.returncode
    rows = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
    print(f"JVM run: {time.perf_counter() - started:.0f}s\n")
    print(f"{'columns':>8} {'row groups':>10} {'thrift MB':>10} {'flatbuf MB':>10} {'thrift ms':>10} "
          f"{'full ms':>9} {'eager ms':>9} {'10-col ms':>9} {'add s':>7}  add")
    for r in rows:
        print(f"{r['columns']:>8} {r['row_groups']:>10} {r['thrift_bytes'] / 1e6:>10.1f} "
              f"{r['flatbuffer_bytes'] / 1e6:>10.1f} {r['thrift_ms']:>10.1f} {r['full_ms']:>9.1f} {r['full_eager_ms']:>9.1f} "
              f"{r['projected_ms']:>9.2f} {r['add_ms'] / 1e3:>7.1f}  {r['add_status']}")
    print()
    for r in rows:
        c = r["columns"]
        print(f"ratio={r['thrift_ms'] / r['full_ms']:.1f} full_decode_speedup columns={c} "
              f"(thrift {r['thrift_ms']:.1f} ms / flatbuffer {r['full_ms']:.1f} ms, median of {r['repeats']})")
        print(f"ratio={r['thrift_ms'] / r['full_eager_ms']:.1f} full_eager_decode_speedup columns={c} "
              f"(thrift {r['thrift_ms']:.1f} ms / flatbuffer, statistics decoded up front, {r['full_eager_ms']:.1f} ms)")
        print(f"ratio={r['thrift_ms'] / r['projected_ms']:.1f} projected_10_columns_speedup columns={c} "
              f"(thrift {r['thrift_ms']:.1f} ms / projected {r['projected_ms']:.2f} ms)")
        print(f"ratio={r['flatbuffer_bytes'] / r['thrift_bytes']:.2f} flatbuffer_vs_thrift_bytes columns={c}")
    refused = [r["columns"] for r in rows if r["add_status"] != "added"]
    if refused:
        print(f"note: add refused for {refused} columns: the extended footer would pass the 100 MiB "
              "Thrift limit of parquet-java/Arrow C++; decode times use the FlatBuffer built in memory")
    plot(rows)
    return 0


def plot(rows) -> None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib missing: no plot")
        return
    cols = [r["columns"] for r in rows]
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    ax.plot(cols, [r["thrift_ms"] for r in rows], "o-", label="parquet-java Thrift -> ParquetMetadata")
    ax.plot(cols, [r["full_ms"] for r in rows], "s-", label="FlatBuffer -> ParquetMetadata (full, lazy stats)")
    ax.plot(cols, [r["full_eager_ms"] for r in rows], "d--", label="FlatBuffer -> ParquetMetadata (full, eager stats)")
    ax.plot(cols, [r["projected_ms"] for r in rows], "^-", label="FlatBuffer, 10 columns projected")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("columns (x 20 row groups)")
    ax.set_ylabel("footer decode, ms (median)")
    ax.set_title("Parquet footer decode (pyarrow-written files)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    out = os.path.join(REPO, "docs", "parquet-footer-bench.png")
    os.makedirs(os.path.dirname(out), exist_ok=True)
    fig.savefig(out, dpi=110)
    print(f"plot: {os.path.relpath(out, REPO)}")


if __name__ == "__main__":
    sys.exit(main())
