"""ALP benchmark (`make bench-alp`): bytes and decode speed of superspark's ALP codec against
PLAIN + snappy, PLAIN + zstd and BYTE_STREAM_SPLIT + zstd, and Spark's scan time of sum(col).

Data a user would have, BENCH_N values a column (default 10,000,000), made with numpy (seed 42):
  price    double, prices with 2 decimals (0.01 to 10,000.00, log-normal)
  sensor   double, sensor readings with 1 to 3 decimals (random walks, the decimals per sensor)
  measure  float32 measurements (normal, 2 decimals, as float32)
  random   double, uniform in [0, 1): not decimal-like, ALP's fallback case

Bytes: the ALP page bodies (AlpCodec, pages of BENCH_PAGE values, 65,536 by default as
superspark's writer cuts them; uncompressed) against the column chunks pyarrow writes with
each encoding (dictionary off, 1 MiB data pages), sized from the footer (total_compressed_size,
page headers included).

Decode: bench/alp/AlpCodecBench.java decodes the same pages with AlpCodec, parquet-java's
PLAIN and BYTE_STREAM_SPLIT value readers and a bulk little-endian copy (what Spark's
vectorized PLAIN reader does): median of BENCH_REPEATS passes after as many warm-up passes.

Scan: `SELECT sum(col)`, local[2], AQE off, median of BENCH_REPEATS rounds after one warm-up
round; and the same query over a one-row file in each engine, Spark's fixed cost of the query.
The two engines run in two processes at once (spark.sql.extensions is fixed per JVM), and the
driver asks them for one query at a time, interleaving the engines column by column, so that
the shared machine's load hits both alike:
  vanilla     Spark without the superspark extension, on each of the three pyarrow files;
  superspark  the same data written by superspark with alpColumns=*, in the private form
              (bench/out/alp/alp_private) and in the ratified form (alp_ratified, with an id
              column besides: parquet-java must write one column); the writer samples each
              chunk (page, ratified) and keeps PLAIN where ALP's bits per value exceed PLAIN
              through the codec, so random is an ordinary column in both (its scan checks that no
              ALP chunk is read; the others are read through ALP: the alpColumnChunks metric is
              checked), and as a control
              the private-form file read through its ordinary chunks
              (spark.superspark.parquet.alp.read=false).
Every file has the same layout: one file, row groups of 2^20 rows (superspark's files
are written once, from plain_snappy.parquet, and kept). Both engines split their file into one
task per core (spark.sql.files.maxPartitionBytes 256m, which leaves the vanilla plans as they
are): at the default 128 MB, Spark cuts the private-form file, 1.5x the bytes since it keeps
the ordinary chunks, into three tasks, a second wave on two cores. The .crc sidecars that
Hadoop's local file system writes beside superspark's files are removed (pyarrow writes none;
with them, every read of the file also checks them: ~5-10 ms of a scan stage).
All sums agree across files and engines.

Prints a table and `ratio=` lines; writes docs/alp-bench.png. Files go to bench/out/alp/.
Environment: BENCH_N, BENCH_PAGE, BENCH_REPEATS (9), BENCH_PARTS (bytes,decode,scan).
"""

from __future__ import annotations

import glob
import json
import os
import shutil
import statistics
import subprocess
import sys
import time

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import rounds  # noqa: E402  (bench/rounds.py: paired rounds into one figure)

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "python"))

N = int(os.environ.get("BENCH_N", 10_000_000))
PAGE = int(os.environ.get("BENCH_PAGE", 65536))
REPEATS = int(os.environ.get("BENCH_REPEATS", 9))
PARTS = set(os.environ.get("BENCH_PARTS", "bytes,decode,scan").split(","))
OUT = os.path.join(REPO, "bench", "out", "alp")
PLOT = os.path.join(REPO, "docs", "alp-bench.png")

COLUMNS = ["price", "sensor", "measure", "random"]
LAYOUT = "_LAYOUT_5"  # marks superspark's bench files written with the current layout (and writer)
DECIMAL_LIKE = ["price", "sensor"]  # the targets: decimal-like doubles
ENCODINGS = {
    # name: pyarrow write_table options (dictionary off: PLAIN means PLAIN)
    "plain_snappy": dict(compression="snappy", use_dictionary=False),
    "plain_zstd": dict(compression="zstd", use_dictionary=False),
    "bss_zstd": dict(compression="zstd", use_dictionary=False, use_byte_stream_split=True),
}


def data() -> dict[str, np.ndarray]:
    r = np.random.default_rng(42)
    price = np.round(np.clip(r.lognormal(3.5, 1.2, N), 0.01, 10000), 2)
    # sensors: 100 sensors, each a random walk with its own number of decimals (1 to 3)
    sensors = 100
    per = -(-N // sensors)
    decimals = np.repeat(r.integers(1, 4, sensors), per)[:N]
    walk = (20 + np.cumsum(r.normal(0, 0.05, (sensors, per)), axis=1)).reshape(-1)[:N]
    sensor = np.round(walk * 10.0 ** decimals) / 10.0 ** decimals
    measure = np.round(r.normal(100, 15, N), 2).astype(np.float32)
    rand = r.random(N)
    return {"price": price, "sensor": sensor, "measure": measure, "random": rand}


def write_files(cols: dict[str, np.ndarray]) -> dict[str, str]:
    table = pa.table(cols)
    paths = {}
    for name, opts in ENCODINGS.items():
        path = os.path.join(OUT, f"{name}.parquet")
        pq.write_table(table, path, data_page_size=1 << 20, row_group_size=1 << 20, **opts)
        paths[name] = path
    for c, a in cols.items():
        a.astype(a.dtype.newbyteorder("<")).tofile(os.path.join(OUT, f"{c}.bin"))
    return paths


def chunk_bytes(path: str) -> dict[str, int]:
    md = pq.ParquetFile(path).metadata
    out = dict.fromkeys(COLUMNS, 0)
    for g in range(md.num_row_groups):
        rg = md.row_group(g)
        for i in range(rg.num_columns):
            c = rg.column(i)
            if c.path_in_schema in out:
                out[c.path_in_schema] += c.total_compressed_size
    return out


def java_classpath(*extra: str) -> str:
    import pyspark
    import superspark

    jars = os.path.join(os.path.dirname(pyspark.__file__), "jars", "*")
    return os.pathsep.join([*extra, superspark.jar_path(), jars])


def codec(cols: dict[str, np.ndarray]) -> dict[str, dict]:
    classes = os.path.join(OUT, "classes")
    shutil.rmtree(classes, ignore_errors=True)
    os.makedirs(classes)
    subprocess.run(["javac", "-cp", java_classpath(), "-d", classes, os.path.join(HERE, "AlpCodecBench.java")],
                   check=True)
    out = {}
    for c, a in cols.items():
        kind = "double" if a.dtype == np.float64 else "float"
        page = PAGE
        res = subprocess.run(["java", "-Xmx6g", "-cp", java_classpath(classes), "AlpCodecBench", kind,
                              os.path.join(OUT, f"{c}.bin"), str(page), str(REPEATS)],
                             check=True, capture_output=True, text=True)
        out[c] = json.loads(res.stdout.strip().splitlines()[-1])
        print(f"  codec {c}: {out[c]}", flush=True)
    return out


def close(a: float, b: float) -> bool:
    """Sums of the same values in another order (row groups, tasks) agree to rounding."""
    return abs(a - b) <= 1e-9 * max(abs(a), abs(b), 1.0)


def spark_session(engine: str):
    """local[2], AQE off (a two-row shuffle; keeps the plan walkable for the ALP metric), one
    task per core for every file of the bench (see the module's doc)."""
    conf = {"spark.ui.enabled": "false", "spark.ui.showConsoleProgress": "false", "spark.driver.memory": "4g",
            "spark.sql.adaptive.enabled": "false", "spark.sql.files.maxPartitionBytes": "256m"}
    if engine == "superspark":
        import superspark

        return superspark.session("bench-alp-superspark", master="local[2]", **conf)
    from pyspark.sql import SparkSession

    b = SparkSession.builder.master("local[2]").appName("bench-alp-vanilla")
    for k, v in conf.items():
        b = b.config(k, v)
    return b.getOrCreate()


def alp_chunks(df) -> int:
    """The scan nodes' alpColumnChunks metric after df was collected."""
    total, nodes = 0, [df._jdf.queryExecution().executedPlan()]
    while nodes:
        n = nodes.pop()
        m = n.metrics()
        if m.contains("alpColumnChunks"):
            total += m.apply("alpColumnChunks").value()
        ch = n.children()
        nodes.extend(ch.apply(i) for i in range(ch.size()))
    return total


def scan_stage_seconds(spark) -> float:
    """Wall time of the last job's first stage (the scan and partial sum; the job's other stage
    adds the partial sums), from Spark's status store, which the listener bus fills shortly
    after the job ends."""
    tracker, store = spark.sparkContext.statusTracker(), spark.sparkContext._jsc.sc().statusStore()
    stage = min(tracker.getJobInfo(max(tracker.getJobIdsForGroup(None))).stageIds)
    for _ in range(400):
        s = store.lastStageAttempt(stage)
        if s.completionTime().isDefined() and s.submissionTime().isDefined():
            return (s.completionTime().get().getTime() - s.submissionTime().get().getTime()) / 1000
        time.sleep(0.005)
    raise SystemExit(f"stage {stage}: no completion time in the status store")


def scan_engine(engine: str) -> None:
    """One engine's Spark session (its own process: spark.sql.extensions is fixed per JVM),
    serving queries one at a time so that the driver can interleave the two engines. vanilla:
    the three pyarrow files. superspark: the same data written by superspark in each ALP form
    (see the module's doc), read through ALP, and (control) the private form through its
    ordinary chunks with spark.superspark.parquet.alp.read=false. Prints `READY [cases]`, then
    for each `VIEW COLUMN` line on stdin runs `SELECT sum(COLUMN) FROM VIEW` and prints
    `TIME {...}` (the query's and its scan stage's seconds, the sum, the scan's ALP chunk
    count); stops at end of input."""
    spark = spark_session(engine)
    try:
        views = {}
        if engine == "vanilla":
            for enc in ENCODINGS:
                views[enc] = os.path.join(OUT, f"{enc}.parquet")
        else:
            for form, view in (("private", "alp"), ("ratified", "alp_ratified")):
                path = os.path.join(OUT, f"alp_{form}")
                if not os.path.exists(os.path.join(path, LAYOUT)):
                    # one file, row groups of 2^20 rows (parquet-java's row count limit); every
                    # float/double column asked for as ALP, the writer keeps PLAIN where ALP loses.
                    # The ratified file also has an id column: parquet-java must write one column.
                    src = spark.read.parquet(os.path.join(OUT, "plain_snappy.parquet")).coalesce(1)
                    if form == "ratified":
                        src = src.selectExpr("monotonically_increasing_id() AS id", "*")
                    (src.write.mode("overwrite").option("alpForm", form).option("alpColumns", "*")
                     .option("parquet.block.row.count.limit", str(1 << 20)).parquet(path))
                    # Hadoop's local file system checks .crc sidecars on every read; pyarrow
                    # writes none, so both engines read their files alike without them
                    for crc in glob.glob(os.path.join(path, ".*.crc")):
                        os.remove(crc)
                    open(os.path.join(path, LAYOUT), "w").close()
                views[view] = path
            views["spark_ordinary"] = views["alp"]
        for v, path in views.items():
            spark.read.parquet(path).createOrReplaceTempView(v)
        # Spark's fixed cost of the query: the same sum over a one-row file.
        one_row = os.path.join(OUT, f"one_row_{engine}")
        spark.createDataFrame([(1.0,)], "price double").write.mode("overwrite").parquet(one_row)
        spark.read.parquet(one_row).createOrReplaceTempView(f"one_row_{engine}")
        cases = [[v, c] for c in COLUMNS for v in views]
        cases += [[f"one_row_{engine}", "price"]]
        print("READY " + json.dumps(cases), flush=True)
        for line in sys.stdin:
            v, c = line.split()
            spark.conf.set("spark.superspark.parquet.alp.read", str(v != "spark_ordinary").lower())
            df = spark.sql(f"SELECT sum({c}) FROM {v}")
            t = time.perf_counter()
            val = df.collect()[0][0]
            dt = time.perf_counter() - t
            chunks = alp_chunks(df) if engine == "superspark" else 0
            print("TIME " + json.dumps({"seconds": dt, "stage": scan_stage_seconds(spark), "sum": val,
                                        "alp_chunks": chunks}), flush=True)
    finally:
        spark.stop()


def scan() -> tuple[dict[tuple[str, str], list[float]], dict[tuple[str, str], list[float]]]:
    """Both engines' sessions run at once, idle but for the one query the driver asks for: each
    round runs every case of both engines, one query at a time, interleaved by column (the
    order reversed every other round), so that the machine's load hits both engines alike.
    One warm-up round, then BENCH_REPEATS timed rounds: each case's seconds per round, whole query and
    scan stage (the ratios are taken round by round)."""
    env = dict(os.environ, PYTHONPATH=os.path.join(REPO, "python"))
    engines, cases = {}, []
    try:
        for engine in ("vanilla", "superspark"):
            with open(os.path.join(OUT, f"scan-{engine}.log"), "w") as log:  # Spark's log, for a failed run
                p = subprocess.Popen([sys.executable, os.path.abspath(__file__), "scan", engine], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=log, text=True, env=env)
            engines[engine] = p
            ready = _reply(p, "READY ", engine)
            cases += [(engine, v, c) for v, c in ready]
        cases.sort(key=lambda x: COLUMNS.index(x[2]))
        times: dict[tuple[str, str], list[float]] = {(v, c): [] for _, v, c in cases}
        stages: dict[tuple[str, str], list[float]] = {(v, c): [] for _, v, c in cases}
        sums, chunks = {}, {}
        for rnd in range(REPEATS + 1):  # round 0 warms up
            for engine, v, c in (cases if rnd % 2 else cases[::-1]):
                p = engines[engine]
                p.stdin.write(f"{v} {c}\n")
                p.stdin.flush()
                r = _reply(p, "TIME ", engine)
                if not v.startswith("one_row_") and not close(sums.setdefault(c, r["sum"]), r["sum"]):
                    raise SystemExit(f"sum({c}) on {engine} {v} = {r['sum']}, expected {sums[c]}")
                chunks[f"{v}/{c}"] = r["alp_chunks"]
                if rnd:
                    times[(v, c)].append(r["seconds"])
                    stages[(v, c)].append(r["stage"])
    finally:
        for p in engines.values():
            if p.stdin:
                p.stdin.close()
            p.wait(timeout=120)
    for k, n in chunks.items():
        # the writer keeps the ordinary encoding where ALP loses (random): no ALP chunk to read
        if k.endswith("/random") and n:
            raise SystemExit(f"{k}: ALP chunks of random doubles were written and read")
        if k.startswith("alp") and not k.endswith("/random") and n <= 0:
            raise SystemExit(f"{k}: the scan decoded no ALP column chunk")
        if k.startswith("spark_ordinary/") and n:
            raise SystemExit(f"{k}: the control scan decoded ALP")
    print(f"  scan (s, medians): { {f'{v}/{c}': round(statistics.median(t), 4) for (v, c), t in times.items()} } "
          f"alp_chunks={chunks}", flush=True)
    return times, stages


def written_files() -> dict:
    """What superspark's writer did with each column of its bench files: the choice per column
    chunk (`superspark.alp.choices`), and in the ratified form the column's bytes in the file
    (its chunks are ALP or the PLAIN pages kept, total_compressed_size from the footer). The
    private form's ALP copies lie outside the column chunks: their bytes are those of the
    extensions (field 32767), which pyarrow does not show; its random column is the ordinary chunk."""
    out = {}
    for form in ("private", "ratified"):
        [f] = glob.glob(os.path.join(OUT, f"alp_{form}", "*.parquet"))
        md = pq.ParquetFile(f).metadata
        choices = {}
        for line in md.metadata[b"superspark.alp.choices"].decode().split("\n"):
            _, col, choice, reason = line.split("\t")
            choices.setdefault(col, []).append((choice, reason))
        out[form] = {"choices": choices, "bytes": chunk_bytes(f), "file": os.path.getsize(f)}
    return out


def scan_order(scans: dict) -> list[str]:
    """The scan table's columns: superspark's ALP forms first, then the others by name."""
    first = ["alp", "alp_ratified"]
    rest = sorted({e for e, _ in scans if not e.startswith("one_row_") and e not in first})
    return [e for e in first if any(k[0] == e for k in scans)] + rest


def _reply(p, prefix: str, engine: str):
    """The next line of an engine process that starts with `prefix`, parsed as JSON."""
    for line in p.stdout:
        if line.startswith(prefix):
            return json.loads(line[len(prefix):])
    raise SystemExit(f"{engine} scan process exited with {p.wait()} before answering; see "
                     f"{os.path.join(OUT, f'scan-{engine}.log')}")


def plot(sizes: dict, alp: dict, scans: dict, files: dict | None = None) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2 if scans else 1, figsize=(13 if scans else 7, 4.5))
    axes = np.atleast_1d(axes)
    x = np.arange(len(COLUMNS))
    # the first bar: what superspark's writer wrote (the ratified file: ALP, or PLAIN where ALP
    # loses), else the codec's ALP pages
    first = "superspark, ratified (ALP or kept PLAIN)" if files else "ALP (uncompressed)"
    names = [first] + list(ENCODINGS)
    w = 0.8 / len(names)
    for i, name in enumerate(names):
        vals = [((files["ratified"]["bytes"][c] if files else alp[c]["alp_bytes"]) if i == 0 else sizes[name][c]) / N
                for c in COLUMNS]
        axes[0].bar(x + (i - (len(names) - 1) / 2) * w, vals, w, label=name.replace("_", " + "))
    axes[0].set_xticks(x, COLUMNS)
    axes[0].set_ylabel("bytes per value")
    axes[0].set_title(f"Size, {N:,} values a column")
    axes[0].legend(fontsize=8)
    if scans:
        encs = [e for e in scan_order(scans) if e != "spark_ordinary"]
        w = 0.8 / len(encs)
        for i, enc in enumerate(encs):
            vals = [scans.get((enc, c), np.nan) * 1000 for c in COLUMNS]
            label = {"alp": "superspark ALP, private form", "alp_ratified": "superspark ALP, ratified form",
                     "spark_ordinary": "superspark, ordinary chunks"}.get(
                enc, "vanilla " + enc.replace("_", " + "))
            axes[1].bar(x + (i - (len(encs) - 1) / 2) * w, vals, w, label=label)
        axes[1].set_xticks(x, COLUMNS)
        axes[1].set_ylabel("ms (median)")
        axes[1].set_title("Spark: SELECT sum(col), local[2]")
        axes[1].legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(PLOT, dpi=110)
    print(f"plot: {PLOT}")


def main() -> None:
    os.makedirs(OUT, exist_ok=True)
    t = time.time()
    cols = data()
    paths = write_files(cols)
    print(f"data: {len(cols)} columns x {N:,} values, written in {time.time() - t:.1f} s", flush=True)
    sizes = {name: chunk_bytes(p) for name, p in paths.items()}
    alp = codec(cols) if PARTS & {"bytes", "decode"} else {}
    scan_rounds, stage_rounds = scan() if "scan" in PARTS else ({}, {})
    scans = {k: statistics.median(t) for k, t in scan_rounds.items()}
    stages = {k: statistics.median(t) for k, t in stage_rounds.items()}

    def paired(rounds_of, slow, fast) -> str:  # slow / fast, round by round
        return rounds.ratio_line(rounds_of[slow], rounds_of[fast])

    def paired_median(rounds_of, slow, fast) -> float:
        return statistics.median(rounds.ratios(rounds_of[slow], rounds_of[fast]))

    files = written_files() if scans else {}

    if alp:
        print(f"\nbytes per value ({N:,} values a column)")
        print(f"{'column':8} {'ALP':>8} " + " ".join(f"{e:>13}" for e in ENCODINGS))
        for c in COLUMNS:
            print(f"{c:8} {alp[c]['alp_bytes'] / N:8.3f} " + " ".join(f"{sizes[e][c] / N:13.3f}" for e in ENCODINGS))
        print("\ndecode, million values/s (median)")
        print(f"{'column':8} {'ALP':>8} {'bulk copy':>10} {'pq PLAIN':>9} {'pq BSS':>8} {'ALP encode':>11}")
        for c in COLUMNS:
            a = alp[c]
            mv = lambda s: a["values"] / s / 1e6  # noqa: E731
            print(f"{c:8} {mv(a['alp_decode_s']):8.0f} {mv(a['bulk_copy_s']):10.0f} {mv(a['parquet_plain_s']):9.0f} "
                  f"{mv(a['parquet_bss_s']):8.0f} {mv(a['encode_s']):11.0f}")
    if scans:
        print("\nSpark SELECT sum(col), ms (median)")
        encs = scan_order(scans)
        print(f"{'column':8} " + " ".join(f"{e:>14}" for e in encs))
        for c in COLUMNS:
            print(f"{c:8} " + " ".join(f"{scans[(e, c)] * 1000:14.0f}" if (e, c) in scans else f"{'-':>14}"
                                       for e in encs))
        print(f"Spark's fixed cost of the query (the same sum over a one-row file): vanilla "
              f"{scans[('one_row_vanilla', 'price')] * 1000:.0f} ms, superspark "
              f"{scans[('one_row_superspark', 'price')] * 1000:.0f} ms")
        print("\nthe same queries' scan stage (the scan and partial sums, submitted to completed), ms (median)")
        print(f"{'column':8} " + " ".join(f"{e:>14}" for e in encs))
        for c in COLUMNS:
            print(f"{c:8} " + " ".join(f"{stages[(e, c)] * 1000:14.0f}" if (e, c) in stages else f"{'-':>14}"
                                       for e in encs))
        print(f"one-row file: vanilla {stages[('one_row_vanilla', 'price')] * 1000:.0f} ms, superspark "
              f"{stages[('one_row_superspark', 'price')] * 1000:.0f} ms")

    if files:
        print("\nsuperspark's writer (alpColumns=*): each column chunk's choice, and the ratified file's bytes per value")
        for c in COLUMNS:
            for form in ("private", "ratified"):
                ch = files[form]["choices"][c]
                kinds = sorted({k for k, _ in ch})
                print(f"  {c:8} {form:8} {', '.join(kinds)} ({len(ch)} chunks; first: {ch[0][1]})")
            print(f"  {c:8} ratified file: {files['ratified']['bytes'][c] / N:.3f} bytes a value "
                  f"(vanilla PLAIN+snappy {sizes['plain_snappy'][c] / N:.3f})")

    print()
    if files:  # whole files, every column (the ratified file has an id column besides)
        for form in ("private", "ratified"):
            for e in ENCODINGS:
                print(f"file_bytes_{form}_vs_{e}: ratio={files[form]['file'] / os.path.getsize(paths[e]):.3f} "
                      f"({files[form]['file']:,} / {os.path.getsize(paths[e]):,} bytes)")
    for c in COLUMNS:
        if files:
            for e in ENCODINGS:
                print(f"ratio=bytes_{c}_ratified_file_vs_{e} {files['ratified']['bytes'][c] / sizes[e][c]:.3f}")
        if alp:
            for e in ENCODINGS:
                print(f"ratio=bytes_{c}_alp_vs_{e} {alp[c]['alp_bytes'] / sizes[e][c]:.3f}")
            a = alp[c]
            print(f"ratio=decode_{c}_alp_vs_parquet_plain {a['parquet_plain_s'] / a['alp_decode_s']:.2f}")
            print(f"ratio=decode_{c}_alp_vs_parquet_bss {a['parquet_bss_s'] / a['alp_decode_s']:.2f}")
            print(f"ratio=decode_{c}_alp_vs_bulk_copy {a['bulk_copy_s'] / a['alp_decode_s']:.2f}")
        if ("alp", c) in scans:
            for e in ENCODINGS:
                print(f"scan_{c}_alp_vs_vanilla_{e}: {paired(scan_rounds, (e, c), ('alp', c))}")
            for e in ENCODINGS if ("alp_ratified", c) in scans else ():
                print(f"scan_{c}_alp_ratified_vs_vanilla_{e}: {paired(scan_rounds, (e, c), ('alp_ratified', c))}")
            for view in ("alp", "alp_ratified") if ("alp_ratified", c) in scans else ("alp",):
                print(f"scan_stage_{c}_{view}_vs_vanilla_bss_zstd: "
                      f"{paired(stage_rounds, ('bss_zstd', c), (view, c))}")
            print(f"scan_{c}_alp_vs_superspark_ordinary_chunks: "
                  f"{paired(scan_rounds, ('spark_ordinary', c), ('alp', c))}")
    if alp:
        worst = max(alp[c]["alp_bytes"] / sizes["plain_snappy"][c] for c in DECIMAL_LIKE)
        print(f"target: decimal-like doubles, ALP bytes <= 0.5x PLAIN+snappy: worst {worst:.3f} "
              f"{'MET' if worst <= 0.5 else 'MISSED'}")
    if ("alp", "price") in scans:
        for form, view in (("private", "alp"), ("ratified", "alp_ratified")):
            for c in DECIMAL_LIKE:
                bss = paired_median(scan_rounds, ("bss_zstd", c), (view, c))
                snappy = paired_median(scan_rounds, ("plain_snappy", c), (view, c))
                stage = paired_median(stage_rounds, ("bss_zstd", c), (view, c))
                print(f"target: {c} {form} form scan >= 1.5x vanilla BSS+zstd: query {bss:.2f}x "
                      f"{'MET' if bss >= 1.5 else 'MISSED'} (scan stage {stage:.2f}x {'MET' if stage >= 1.5 else 'MISSED'}); "
                      f"no slower than vanilla PLAIN+snappy: {snappy:.2f}x {'MET' if snappy >= 1.0 else 'MISSED'}")
    if files and ("alp", "random") in scans:
        for form, view in (("private", "alp"), ("ratified", "alp_ratified")):
            t = paired_median(scan_rounds, ("plain_snappy", "random"), (view, "random"))
            print(f"target: random {form} form no slower than vanilla PLAIN+snappy: {t:.2f}x {'MET' if t >= 1.0 else 'MISSED'}")
        b = files["ratified"]["bytes"]["random"] / sizes["plain_snappy"]["random"]
        print(f"target: random ratified file bytes <= vanilla PLAIN+snappy: {b:.3f}x {'MET' if b <= 1.0 else 'MISSED'}; "
              f"private form: no ALP copy ({', '.join(sorted({k for k, _ in files['private']['choices']['random']}))})")
    if alp:
        plot(sizes, alp, scans, files)


if __name__ == "__main__":
    if sys.argv[1:2] == ["scan"]:
        scan_engine(sys.argv[2])
    else:
        main()
