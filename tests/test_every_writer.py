"""``spark.superspark.parquet.footer.everyWriter``: every Parquet data file a JVM writer creates
carries the footer (docs/parquet-footer.md, "Every writer").

One application (tests/every_writer_app.py, its own process: the setting is static) writes
with Delta Lake's operations (on the lines with Delta's jars), Structured Streaming, Hive-format
tables, parquet-java's ``ParquetWriter`` and Spark's Parquet writer. Here: the rows it read back
equal values computed in Python; every data file verifies ``valid`` with the footer command
line; pyarrow, DuckDB and arrow-rs read each file the same; Delta's log gives each file its
length on disk; Delta's own Parquet (checkpoints) is left alone.
"""

from __future__ import annotations

import glob
import json
import os
import subprocess
import sys

import pyarrow.parquet as pq
import pytest

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RS = os.path.join(REPO, "dev", "parquet-rs-check", "target", "debug", "parquet-rs-check")


def _line():
    import pyspark
    return ".".join(pyspark.__version__.split(".")[:2])


def _jars(kind):
    """Delta Lake's jars (lines 4.0-4.2) or Iceberg's Spark runtime (4.0, 4.1), as dev/setup.sh fetched them."""
    return sorted(glob.glob(os.path.join(REPO, "jvm", "target", f"spark-{_line()}", f"{kind}-jars", "*.jar")))


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    out = str(tmp_path_factory.mktemp("every-writer"))
    # the whole matrix on 4.2 and 4.3; each kind of writer once on 4.0 and 4.1 (CI time)
    env = dict(os.environ, PYSPARK_PYTHON=sys.executable,
               EVERY_WRITER_SCENARIOS="core" if _line() in ("4.0", "4.1") else "all")
    p = subprocess.run([sys.executable, os.path.join(REPO, "tests", "every_writer_app.py"), out, ",".join(_jars("delta") + _jars("iceberg"))],
                       capture_output=True, text=True, timeout=1200, env=env)
    assert p.returncode == 0, p.stdout[-4000:] + p.stderr[-8000:]
    with open(os.path.join(out, "result.json")) as f:
        return json.load(f)


def _row(i, v=None, s=None):
    return [i, f"p{i % 3}", i * 0.5 if v is None else v, f"s{i}" if s is None else s]


def _expected(delta, app_iceberg=False):
    e = {
        "stream_parquet": [_row(i) for i in range(70)],
        "hive_insert": [_row(i) for i in range(50)] + [[i + 50] + _row(i)[1:] for i in range(50)],
        "hive_save_as_table": [_row(i) for i in range(45)],
        "parquet_java": [_row(i) for i in range(33)],
        "spark_plain": [_row(i) for i in range(25)],
        "spark_footer_write": [_row(i) for i in range(25)],
    }
    if app_iceberg:
        e["iceberg"] = [_row(i) for i in range(64)]
    if delta:
        updated = [_row(i, s="u" if i % 3 == 0 else None) for i in range(100)]
        dv = [_row(i) for i in range(100) if i % 4 != 1]
        e.update({
            "delta_append": [_row(i) for i in range(160)],
            "delta_time_travel": [_row(i) for i in range(100)],
            "delta_partitioned_append": [_row(i) for i in range(90)],
            "delta_partitioned_overwrite": [_row(i) for i in range(200, 230)],
            "delta_overwrite": [_row(i) for i in range(40, 70)],
            "delta_merge": [_row(i) for i in range(50)] + [_row(i, v=i * 10.0, s=f"m{i}") for i in range(50, 150)],
            "delta_update": updated,
            "delta_delete": [r for r in updated if r[0] % 4 != 0],
            "delta_restore": [_row(i) for i in range(100)],
            "delta_vacuum": [_row(i) for i in range(100)],
            "delta_delete_dv": dv,
            "delta_update_dv": [r if r[0] % 5 else r[:3] + ["w"] for r in dv],
            "delta_optimize": [_row(i) for i in range(80)],
            "delta_zorder": [_row(i) for i in range(80)],
            "delta_rtas": [_row(i) for i in range(30, 75)],
            "delta_stream": [_row(i) for i in range(70)],
        })
    return {k: sorted(v) for k, v in e.items()}


def _expected_of(app):
    e = _expected(app["delta"], app["iceberg"])
    return e if app["full"] else {k: v for k, v in e.items() if k in app["core"]}


def test_every_scenario_reads_the_rows_computed_here(app):
    expected = _expected_of(app)
    assert sorted(app["scenarios"]) == sorted(expected)
    for name, want in expected.items():
        got = app["scenarios"][name]
        assert got["rows"] == want, name
        if "rows_spark" in got:
            assert got["rows_spark"] == want, f"{name}: Spark's own Parquet code"


def _files(app):
    """The data files the scenarios listed that are still there (VACUUM removes the ones no version needs)."""
    return sorted({f for s in app["scenarios"].values() for f in s.get("files", []) if os.path.exists(f)})


@pytest.fixture(scope="module")
def verified(app):
    """`superspark-footer verify --json` once over every file the other tests look at: the data
    files, Delta's checkpoints and Iceberg's files; by path."""
    files = _files(app) + app["scenarios"].get("delta_append", {}).get("checkpoints", []) + \
        app["scenarios"].get("iceberg", {}).get("iceberg_files", [])
    p = subprocess.run([sys.executable, "-m", "superspark.footer", "verify", "--json", *files],
                       capture_output=True, text=True, timeout=600)
    results = json.loads(p.stdout)
    assert sorted(r["path"] for r in results) == sorted(files), p.stderr[-3000:]
    return {r["path"]: r for r in results}


def test_every_data_file_verifies_valid_with_the_command_line(app, verified):
    files = _files(app)
    assert len(files) >= 20
    bad = [(f, verified[f]["status"], verified[f].get("reason")) for f in files if verified[f]["status"] != "valid"]
    assert not bad, bad
    assert {verified[f]["form"] for f in files} == {app["form"]}, "every file in the session's form"
    for name, s in app["scenarios"].items():
        for f in s.get("files", []):
            assert f.startswith(s["root"]), (name, f)
    assert app["counts"]["extended"] >= len(files) - len(app["scenarios"]["spark_footer_write"]["files"])


def test_spark_s_own_footer_writes_are_not_extended_twice(app):
    s = app["scenarios"]["spark_footer_write"]
    assert s["files"] and s["already_extended"] == len(s["files"])


def _arrow_rows(path):
    t = pq.read_table(path)
    return sorted(zip(*(t.column(c).to_pylist() for c in ("id", "part", "v", "s"))))


def _duck_rows(path):
    import duckdb
    return sorted(duckdb.sql(f"SELECT id, part, v, s FROM read_parquet('{path}', hive_partitioning = false)").fetchall())


def test_write_metrics_count_each_write_s_files_in_its_stage(app):
    """The write metrics (named accumulators ``everyWriter.<counter>`` that each task adds its files
    to, summed per stage): the stage of Spark's plain write shows each of its files extended, the
    stage of superspark's own footer write shows each left alone as already extended."""
    plain, own = app["scenarios"]["spark_plain"], app["scenarios"]["spark_footer_write"]
    assert plain["stage_counts"] == [{"extended": len(plain["files"])}], plain["stage_counts"]
    assert own["stage_counts"] == [{"alreadyExtended": len(own["files"])}], own["stage_counts"]


def test_sql_metrics_count_each_write_command_s_files(app):
    """The SQL metrics of each write command (its plan's EveryWriterFooter node, read from the SQL
    tab's store): Spark's plain write and superspark's own footer write count their files as the
    folder holds them; Delta's append, MERGE and OPTIMIZE count as many files extended as the
    commit's log adds (Delta's own record; OPTIMIZE's files are written by a thread pool the
    command starts); a Hive-format INSERT counts the files it created."""
    sc = app["scenarios"]
    assert sc["spark_plain"]["query_counts"] == [{"extended": len(sc["spark_plain"]["files"])}], sc["spark_plain"]
    own = sc["spark_footer_write"]
    assert own["query_counts"] == [{"alreadyExtended": len(own["files"])}], own["query_counts"]
    checked = 0
    for name in ("delta_append", "delta_merge", "delta_optimize", "hive_insert"):
        if name in sc:
            s = sc[name]
            assert s["adds"] > 0, name
            assert s["query_counts"] == [{"extended": s["adds"]}], (name, s["query_counts"], s["adds"])
            checked += 1
    assert checked == (3 if app["delta"] else 0) + (1 if app["full"] else 0)


def test_sql_metrics_count_each_micro_batch_s_files(app):
    """A Structured Streaming micro-batch has no write command: its plan's EveryWriterFooter node
    counts the files its tasks write. The file sink's first run (one batch) counts as many files
    extended as the folder then held; Delta's streaming sink's first run as many as its commit's
    log adds. A DSv2 sink (memory) still reports the rows each batch wrote (its write node stays
    at the plan's root, where the engine reads the batch's commit progress): the input's 70 rows."""
    sc = app["scenarios"]
    checked = 0
    for name in ("stream_parquet", "delta_stream"):
        if name in sc:
            s = sc[name]
            assert s["adds"] > 0, name
            counts = [c for c in s["query_counts"] if c]
            assert counts == [{"extended": s["adds"]}], (name, s["query_counts"], s["adds"])
            checked += 1
    assert checked == 1 + (1 if app["delta"] and app["full"] else 0)
    rows = sc["stream_parquet"]["memory_sink_rows"]
    assert rows and min(rows) > 0 and sum(rows) == 70, rows


def test_pyarrow_duckdb_and_arrow_rs_read_each_file_the_same(app):
    if not os.access(RS, os.X_OK):
        pytest.fail(f"{RS} is missing: build it with `make parquet-rs-check`")
    for f in _files(app):
        names = pq.read_schema(f).names
        if "part" not in names:  # a partitioned table's files: the partition value is in the path
            continue
        a = _arrow_rows(f)
        assert a == _duck_rows(f), f
        d = subprocess.run([RS, "dump", f], capture_output=True, text=True)
        assert d.returncode == 0, d.stdout + d.stderr
        dump = json.loads(d.stdout)
        assert dump["num_rows"] == len(a), f
        ids = [v for g in dump["row_groups"] for c in g["columns"] if c["path"] == "id" for v in c["values"]]
        assert sorted(int(i) for i in ids) == sorted(r[0] for r in a), f


def test_files_read_by_pyarrow_are_the_table_where_every_file_is_live(app):
    """Where every data file on disk is part of the result (no Delta), pyarrow's reading of the
    files is the expected table itself: the same values as Spark read, from an independent reader."""
    expected = _expected_of(app)
    for name in ("stream_parquet", "hive_insert", "hive_save_as_table", "parquet_java", "spark_plain"):
        if name not in expected:
            continue
        got = sorted(list(r) for f in app["scenarios"][name]["files"] for r in _arrow_rows(f))
        assert got == expected[name], name


def _delta_adds(root):
    """Every AddFile of the table's JSON commits: (path, size), replayed from version 0."""
    adds = []
    for commit in sorted(glob.glob(os.path.join(root, "_delta_log", "*.json"))):
        with open(commit) as f:
            for line in f:
                a = json.loads(line).get("add")
                if a:
                    adds.append((a["path"], a["size"], a.get("stats")))
    return adds


def test_delta_log_sizes_and_stats_are_the_files(app):
    if not app["delta"]:
        pytest.skip("no Delta Lake for this Spark line (delta-spark 4.4.0 has 4.0-4.2)")
    from urllib.parse import unquote
    checked = 0
    for name, s in app["scenarios"].items():
        if not name.startswith("delta_") or "root" not in s:
            continue
        for path, size, stats in _delta_adds(s["root"]):
            f = os.path.join(s["root"], unquote(path))
            if os.path.exists(f):  # VACUUM removed the files no version needs
                assert os.path.getsize(f) == size, (name, path)
                if stats:
                    assert json.loads(stats)["numRecords"] == pq.ParquetFile(f).metadata.num_rows, (name, path)
                checked += 1
    assert checked >= 20


def test_delta_checkpoints_are_left_alone_and_read_back(app, verified):
    if not app["delta"]:
        pytest.skip("no Delta Lake for this Spark line (delta-spark 4.4.0 has 4.0-4.2)")
    cps = app["scenarios"]["delta_append"]["checkpoints"]
    assert cps, "delta.checkpointInterval = 2 wrote no checkpoint"
    assert {verified[f]["form"] for f in cps} == {"plain"}
    # the table was read after DeltaLog.clearCache(), so from the checkpoint: the rows test covers it


def test_the_table_s_own_reads_use_the_footer(app):
    """Every scan decodes its data files' footers from the FlatBuffer, Delta's scans of tables with
    deletion vectors included (Delta's Thrift-only reads are its log checkpoints, which keep the
    plain footer)."""
    for name, s in app["scenarios"].items():
        if "footer_metrics" not in s:
            continue
        assert s["footer_metrics"]["footers_flatbuffer"] > 0, name
        if not name.startswith("delta_"):
            assert s["footer_metrics"]["footers_thrift"] == 0, name
    if app["delta"]:
        assert {"delta_delete_dv", "delta_update_dv"} <= {n for n, s in app["scenarios"].items() if "footer_metrics" in s}


def test_iceberg_files_are_left_alone_with_their_recorded_sizes(app, verified):
    """Iceberg's manifests record the byte count its writer counted, and its readers seek from it:
    everyWriter leaves its files (key ``iceberg.schema``) exactly as written, so the recorded size
    is each file's length and the table reads back (the rows test)."""
    if not app["iceberg"]:
        pytest.skip("no Iceberg Spark runtime for this Spark line (1.11.0 for 4.0, 1.12.0 for 4.1)")
    s = app["scenarios"]["iceberg"]
    files = s["iceberg_files"]
    assert len(files) >= 2 and len(s["recorded_sizes"]) == len(files)
    for path, size in s["recorded_sizes"]:
        local = path[len("file:"):] if path.startswith("file:") else path
        assert os.path.getsize(local) == size, path
    assert {verified[f]["form"] for f in files} == {"plain"}
    assert app["counts"]["sizeRecordedByWriter"] >= len(files)
