"""Footer rewrites of whole tables as a Spark job (issue #23): `migrate_table` on a partitioned table of
1,000 files, the driver killed midway and the rerun finishing the rest; results as a DataFrame; the SQL
table functions; the command line's progress bar; Delta tables refused; concurrent command-line runs."""

import os
import signal
import subprocess
import sys
import time

import pytest

from superspark import footer


def _tail(path, n=4):
    with open(path, "rb") as f:
        f.seek(-n, os.SEEK_END)
        return f.read()


def _parquet_files(d):
    return sorted(os.path.join(r, f) for r, _, fs in os.walk(d) for f in fs
                  if f.endswith(".parquet") and not f.startswith("."))


@pytest.fixture
def table_1000(spark, tmp_path):
    """20,000 rows, partitioned by k (10 values), written by 100 tasks: 1,000 small files with .crc files."""
    d = str(tmp_path / "events")
    spark.range(20000).selectExpr("id", "CAST(id AS STRING) AS s", "id % 10 AS k").repartition(100) \
        .write.partitionBy("k").parquet(d)
    assert len(_parquet_files(d)) == 1000
    return d


def test_migrate_table_survives_a_driver_kill_and_the_rerun_finishes(spark, table_1000):
    expected = spark.read.parquet(table_1000).groupBy("k").count().orderBy("k").collect()
    p = subprocess.Popen([sys.executable, "-m", "superspark.footer", "migrate-table", "--to", "final",
                          "--master", "local[2]", table_1000],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    files = _parquet_files(table_1000)
    deadline = time.time() + 240
    migrated = 0
    while time.time() < deadline and p.poll() is None:
        migrated = sum(_tail(f) == b"PAR3" for f in files)
        if migrated >= 100:
            break
        time.sleep(0.2)
    assert p.poll() is None, "the job ended before it could be killed: " + p.stderr.read().decode()[-2000:]
    os.killpg(p.pid, signal.SIGKILL)  # the driver (Python and its JVM) dies midway
    _, err = p.communicate()
    assert "/1,000 files" in err.decode()  # the progress bar was drawing
    done_before = sum(_tail(f) == b"PAR3" for f in files)
    assert 100 <= done_before < 1000

    df = footer.migrate_table(spark, table_1000, to="final")
    assert [f.name for f in df.schema.fields] == ["path", "status", "reason", "tool_status", "from_form",
                                                  "to_form", "replace", "seconds"]
    rows = df.collect()
    by_status = {}
    for r in rows:
        by_status.setdefault(r.status, []).append(r)
    assert len(rows) == 1000 and set(by_status) <= {"done", "already"}, {s: len(v) for s, v in by_status.items()}
    # Redoes nothing: every file the killed run finished is `already` (a file whose rename landed just
    # before the kill is one of them).
    assert len(by_status["already"]) == done_before and len(by_status["done"]) == 1000 - done_before
    assert all(r.from_form == "plain" and r.to_form == "final" and r.replace == "rename" for r in by_status["done"])
    assert all(_tail(f) == b"PAR3" for f in files)
    leftovers = [f for _, _, fs in os.walk(table_1000) for f in fs if "superspark-rewrite" in f]
    assert leftovers == []
    assert spark.read.parquet(table_1000).groupBy("k").count().orderBy("k").collect() == expected
    # A third run: everything already.
    assert {r.status for r in footer.migrate_table(spark, table_1000, to="final").collect()} == {"already"}


def test_sql_table_functions_and_their_documentation(spark, tmp_path):
    d = str(tmp_path / "t")
    spark.range(3000).selectExpr("id", "id % 3 AS k").repartition(3).write.partitionBy("k").parquet(d)
    q = "SELECT status, count(*) AS n FROM superspark_footer_add_table('{}') GROUP BY status".format(d)
    assert [tuple(r) for r in spark.sql(q).collect()] == [("done", 9)]
    assert [tuple(r) for r in spark.sql(q).collect()] == [("already", 9)]
    r = spark.sql(f"SELECT * FROM superspark_footer_migrate_table('{d}', 'intermediate')").collect()
    assert {(x.status, x.from_form, x.to_form) for x in r} == {("done", "private", "intermediate")}
    assert {x.status for x in footer.strip_table(spark, d).collect()} == {"done"}
    assert {x["status"] for x in footer.verify(d)} == {"absent"}
    text = "\n".join(x[0] for x in spark.sql("DESCRIBE FUNCTION EXTENDED superspark_footer_migrate_table").collect())
    assert "Rewrites the footer of every Parquet file under path into form" in text and "Examples:" in text
    with pytest.raises(Exception, match="INVALID_PARAMETER_VALUE.STRING"):
        spark.sql("SELECT * FROM superspark_footer_migrate_table(1, 'final')").collect()
    with pytest.raises(Exception, match="WRONG_NUM_ARGS"):
        spark.sql(f"SELECT * FROM superspark_footer_add_table('{d}', 'final')").collect()
    with pytest.raises(Exception, match="unknown footer form 'bogus'"):
        spark.sql(f"SELECT * FROM superspark_footer_migrate_table('{d}', 'bogus')").collect()
    with pytest.raises(Exception, match="PATH_NOT_FOUND"):
        footer.add_table(spark, str(tmp_path / "missing"))


def test_refused_and_failed_files_are_reported_per_file(spark, tmp_path):
    d = tmp_path / "mixed"
    spark.range(100).repartition(2).write.parquet(str(d))
    bad = d / "part-99999-broken.parquet"
    bad.write_bytes(b"PAR1" + b"\0" * 20 + b"\xff\xff\xff\x0fPAR1")  # a footer length past the file
    rows = {os.path.basename(r.path): r for r in footer.add_table(spark, str(d)).collect()}
    assert rows[bad.name].status == "failed" and "exceeds" in rows[bad.name].reason
    assert sorted(r.status for r in rows.values()) == ["done", "done", "failed"]


def test_delta_tables_are_refused_by_the_table_functions_and_the_cli(spark, tmp_path):
    d = tmp_path / "delta"
    spark.range(100).write.parquet(str(d))
    (d / "_delta_log").mkdir()
    before = {f: open(f, "rb").read() for f in _parquet_files(str(d))}
    for path in (str(d), _parquet_files(str(d))[0]):
        with pytest.raises(Exception, match="SUPERSPARK_DELTA_TABLE_REWRITE_REFUSED") as e:
            footer.migrate_table(spark, path, to="final")
        assert "is in the Delta table" in str(e.value) and "migrate_table" in str(e.value)
    with pytest.raises(Exception, match="is in the Delta table"):
        spark.sql(f"SELECT * FROM superspark_footer_add_table('{d}')").collect()
    p = subprocess.run([sys.executable, "-m", "superspark.footer", "migrate", "--to", "final", str(d)],
                       capture_output=True, text=True)
    assert p.returncode == 1 and p.stdout.startswith(f"refused {d}:") and "superspark.footer.migrate_table" in p.stdout
    assert {f: open(f, "rb").read() for f in _parquet_files(str(d))} == before


def test_two_command_line_runs_at_once_rewrite_each_file_once(spark, tmp_path):
    d = str(tmp_path / "race")
    spark.range(20000).repartition(20).write.parquet(d)
    runs = [subprocess.Popen([sys.executable, "-m", "superspark.footer", "migrate", "--to", "final", "--json", d],
                             stdout=subprocess.PIPE, text=True) for _ in range(2)]
    import json
    results = [json.loads(p.communicate()[0]) for p in runs]
    per_file = {}
    for rs in results:
        for r in rs:
            per_file.setdefault(r["path"], []).append(r)
    assert len(per_file) == 20
    for path, rs in per_file.items():
        statuses = sorted(r["status"] for r in rs)
        assert statuses.count("migrated") == 1 and len(statuses) == 2, rs
        for r in rs:
            if r["status"] == "refused":
                assert "another rewrite of this file is running" in r["message"]
            else:
                assert r["status"] in ("migrated", "unchanged")
    assert {r["status"] for r in footer.verify(d)} == {"valid"}
