"""``spark.superspark.parquet.footer.everyWriter`` on the stores (S3 through S3A, HDFS) and on local
disk: Spark's Parquet writer and Delta Lake's appends (lines with Delta) write files that carry
the footer; Delta's log gives each file its object's length; and a writer killed mid-file leaves
what the writer's own protocol leaves: no committed partial file, on S3 no partial object at all.

The application runs in its own process (the setting is static); the ``spark`` fixture (without
the setting) and the footer command line check what it wrote."""

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
import uuid

import pytest

from conftest import delta_jars, s3a_settings
from test_stores import cli

_JOB = textwrap.dedent("""
    import sys, time
    import superspark
    dest, mode = sys.argv[1], sys.argv[2]
    conf = dict(a.split("=", 1) for a in sys.argv[3:])
    spark = superspark.session("every-writer-stores", master="local[1]", **{
        "spark.superspark.parquet.footer.everyWriter": "true", "spark.ui.enabled": "false",
        "spark.sql.shuffle.partitions": "1", "spark.databricks.delta.snapshotPartitions": "1", **conf})
    spark.sparkContext.setLogLevel("ERROR")
    print("START", flush=True)
    def data(lo, hi, parts):
        return spark.range(lo, hi, 1, parts).selectExpr(
            "id", *[f"CAST(id * {i} AS DOUBLE) / 7 AS c{i}" for i in range(1, 40)], "concat('s', id) AS s")
    delta = "delta" in conf.get("spark.sql.extensions", "")
    if mode == "write":
        data(0, 3000, 3).write.parquet(dest + "/pq")
        if delta:
            data(0, 2000, 2).write.format("delta").save(dest + "/delta")
            data(2000, 3000, 2).write.format("delta").mode("append").save(dest + "/delta")
    else:  # kill: one committed table first, then a long job the test kills mid-file
        if delta:
            data(0, 1000, 1).write.format("delta").save(dest + "/delta")
        print("COMMITTED", flush=True)
        big = data(0, 400000, 8)
        if delta:
            big.write.format("delta").mode("append").save(dest + "/delta")
        else:
            big.write.parquet(dest + "/pq")
        print("FINISHED", flush=True)
    spark.stop()
""")


def _place(kind, stores, tmp_path):
    name = f"ew-{uuid.uuid4().hex[:12]}"
    if kind == "s3":
        return f"s3a://{stores['SUPERSPARK_S3_BUCKET']}/{name}"
    if kind == "hdfs":
        return f"{stores['SUPERSPARK_HDFS_URI']}/{name}"
    return "file://" + str(tmp_path / name)


@pytest.fixture(params=["s3", "hdfs"])
def store(request, stores, tmp_path):
    return _place(request.param, stores, tmp_path)


@pytest.fixture(params=["s3", "local"])
def store_or_local(request, stores, tmp_path):
    return _place(request.param, stores, tmp_path)


def _conf(stores, s3a_jars):
    conf = {f"spark.hadoop.{k}": v for k, v in s3a_settings(stores).items()}
    jars = list(s3a_jars) + delta_jars()
    conf["spark.jars"] = ",".join(jars)
    if delta_jars():
        conf.update({"spark.sql.extensions": "io.delta.sql.DeltaSparkSessionExtension",
                     "spark.sql.catalog.spark_catalog": "org.apache.spark.sql.delta.catalog.DeltaCatalog"})
    return conf


def _job(tmp_path, dest, mode, conf):
    job = tmp_path / "job.py"
    job.write_text(_JOB)
    return subprocess.Popen([sys.executable, str(job), dest, mode, *(f"{k}={v}" for k, v in conf.items())],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)


def _files(spark, root):
    """(path, length) of every file below `root`, through the Hadoop API."""
    jvm, conf = spark._jvm, spark._jsc.hadoopConfiguration()
    p = jvm.org.apache.hadoop.fs.Path(root)
    fs = p.getFileSystem(conf)
    if not fs.exists(p):
        return []
    it, out = fs.listFiles(p, True), []
    while it.hasNext():
        st = it.next()
        out.append((st.getPath().toString(), st.getLen()))
    return out


def _data_files(spark, root):
    return [(p, n) for p, n in _files(spark, root)
            if p.endswith(".parquet") and "/_delta_log/" not in p]


def _log_adds(spark, table):
    log = spark.read.json(f"{table}/_delta_log/*.json").where("add IS NOT NULL").select("add.path", "add.size")
    return {r.path: r.size for r in log.collect()}


def _write_and_check(spark, stores, s3a_jars, where, tmp_path):
    p = _job(tmp_path, where, "write", _conf(stores, s3a_jars))
    out, err = p.communicate(timeout=600)
    assert p.returncode == 0, err[-4000:]
    files = _data_files(spark, where)
    assert len(files) >= (7 if delta_jars() else 3), files
    code, res = cli(stores, s3a_jars, "verify", *[f for f, _ in files])
    assert code == 0 and [r["status"] for r in res] == ["valid"] * len(files), res
    assert sorted(r.id for r in spark.read.parquet(f"{where}/pq").select("id").collect()) == list(range(3000))
    if delta_jars():
        lengths = {f: n for f, n in files}
        adds = _log_adds(spark, f"{where}/delta")
        assert len(adds) == 4
        for path, size in adds.items():
            assert lengths[_norm(f"{where}/delta/{path}")] == size, path
        assert spark.read.format("delta").load(f"{where}/delta").count() == 3000


def test_every_writer_on_the_store_files_carry_the_footer_and_the_log_is_true(spark, stores, s3a_jars, store, tmp_path):
    _write_and_check(spark, stores, s3a_jars, store, tmp_path)


def test_smoke_every_writer_delta_on_s3(spark, stores, s3a_jars, tmp_path):
    """The store smoke of the Delta lines (make test-lines): Delta's appends to S3 carry the footer."""
    if not delta_jars():
        pytest.skip("no Delta Lake for this Spark line (delta-spark 4.4.0 has 4.0-4.2)")
    _write_and_check(spark, stores, s3a_jars, _place("s3", stores, tmp_path), tmp_path)


def _norm(path):
    return path.replace("file:///", "file:/")


def test_a_writer_killed_mid_file_leaves_no_committed_partial_file(spark, stores, s3a_jars, store_or_local, tmp_path):
    """SIGKILL of the whole application while its tasks write (a file of the job closed, the next
    one open: its tail held in memory). What the writer's protocol committed is whole: Delta's log
    names only complete files with their lengths, and the table reads its first commit's rows;
    Spark's commit protocol published nothing; on S3 no object at all is partial (an object appears
    only when its upload completes, and every one verifies valid)."""
    where = store_or_local
    p = _job(tmp_path, where, "kill", _conf(stores, s3a_jars))
    target = _norm(f"{where}/delta" if delta_jars() else f"{where}/pq")
    try:
        assert p.stdout.readline().strip() == "START", p.stderr.read()[-3000:]
        assert p.stdout.readline().strip() == "COMMITTED", p.stderr.read()[-3000:]
        before = {f for f, _ in _data_files(spark, target)}
        deadline = time.time() + 300
        while time.time() < deadline and not ({f for f, _ in _data_files(spark, target)} - before):
            time.sleep(0.2)
        os.killpg(p.pid, signal.SIGKILL)
    finally:
        p.wait()
    # the point reached: killed, not finished, after the job had closed a new file
    assert p.returncode == -signal.SIGKILL
    after = dict(_data_files(spark, target))
    new = sorted(set(after) - before)
    assert new, "killed before any file of the job closed"
    s3 = where.startswith("s3a://")
    if s3:  # every object there is whole
        code, res = cli(stores, s3a_jars, "verify", *sorted(after))
        assert {r["status"] for r in res} == {"valid"}, res
    if delta_jars():
        adds = _log_adds(spark, target)
        assert len(adds) == 1, "the killed append did not commit"
        for path, size in adds.items():
            f = f"{target}/{path}"
            assert after[f] == size, f
            code, res = cli(stores, s3a_jars, "verify", f)
            assert res[0]["status"] == "valid", res
        assert spark.read.format("delta").load(target).count() == 1000
    else:
        assert all("/_temporary/" in f for f in after), "Spark's commit protocol published nothing"
