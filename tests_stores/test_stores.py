"""Everything superspark does with files, on s3a:// (S3Proxy) and hdfs:// (a mini-cluster),
against the same work on a local disk, value for value (issue 31). Each test runs on both
stores (the `store_dir` fixture)."""

import json
import os
import signal
import subprocess
import sys
import time

import pytest
from pyspark.sql import functions as F

import superspark.footer as footer
from superspark import functions as SF
from superspark import parquet_interceptor as pi
from conftest import s3a_settings

WRITE = "spark.superspark.parquet.footer.write"
READ = "spark.superspark.parquet.footer.read"


def wide(spark, columns=300, rows=3000, files=3):
    """A wide table: id, then int, double and string columns in turn."""
    exprs = ["id"] + [
        (f"CAST(id * {i} AS INT) AS c{i}" if i % 3 == 0 else
         f"id * {i} / 7.0D AS c{i}" if i % 3 == 1 else f"concat('s', id % {i + 2}) AS c{i}")
        for i in range(1, columns)]
    return spark.range(0, rows, 1, files).selectExpr(*exprs)


def rows(df):
    return sorted(tuple(r) for r in df.collect())


def write(spark, df, path, **opts):
    spark.conf.set(WRITE, "true")
    try:
        df.write.mode("overwrite").options(**opts).parquet(path)
    finally:
        spark.conf.unset(WRITE)


def cli(stores, jars, *args):
    """`python -m superspark.footer ARGS --json` as a user runs it: S3A settings as -D, the
    hadoop-aws jars in HADOOP_CLASSPATH."""
    d = [a for k, v in s3a_settings(stores).items() for a in ("-D", f"{k}={v}")]
    env = dict(os.environ, HADOOP_CLASSPATH=os.pathsep.join(jars))
    p = subprocess.run([sys.executable, "-m", "superspark.footer", *args[:1], *d, "--json", *args[1:]],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, timeout=300)
    assert p.stdout.strip(), p.stderr[-3000:]
    return p.returncode, json.loads(p.stdout)


def test_smoke_write_verify_migrate_read(spark, stores, s3a_jars, store_dir, tmp_dir):
    """The store smoke test every Spark line runs: a table with the footer written, `verify`
    valid, `migrate_table` to final, the same rows read back as from a local disk."""
    df = wide(spark, columns=50, rows=600, files=2)
    local = os.path.join(tmp_dir, "local")
    write(spark, df, local)
    write(spark, df, store_dir)
    assert {r["status"] for r in footer.verify(store_dir)} == {"valid"}
    assert {r.status for r in footer.migrate_table(spark, store_dir, to="final").collect()} == {"done"}
    spark.catalog.refreshByPath(store_dir)
    assert rows(spark.read.parquet(store_dir)) == rows(spark.read.parquet(local)) == rows(df)


def test_wide_table_interceptor_dsv1_dsv2_equals_local(spark, store_dir, tmp_dir):
    df = wide(spark)
    local = os.path.join(tmp_dir, "local")
    write(spark, df, local)
    write(spark, df, store_dir)
    q = lambda p: spark.read.parquet(p).where("c3 % 2 = 0").select("id", "c1", "c2", "c299")
    expected = rows(q(local))
    assert len(expected) == 1500
    for v1 in ("parquet", ""):
        spark.conf.set("spark.sql.sources.useV1SourceList", v1)
        try:
            pi.reset_footer_metrics(spark)
            assert rows(q(store_dir)) == expected
            assert pi.footer_metrics(spark)["footers_flatbuffer"] >= 3
        finally:
            spark.conf.unset("spark.sql.sources.useV1SourceList")
    # every form of the footer, and ALP in both forms, read back equal
    for form in ("private", "intermediate", "final"):
        spark.conf.set("spark.superspark.parquet.footer.form", form)
        try:
            write(spark, df.select("id", "c1", "c2", "c3"), f"{store_dir}/{form}")
        finally:
            spark.conf.unset("spark.superspark.parquet.footer.form")
        assert rows(spark.read.parquet(f"{store_dir}/{form}")) == rows(df.select("id", "c1", "c2", "c3"))
        assert {r["form"] for r in footer.inspect(f"{store_dir}/{form}")} == {form}
    prices = spark.range(0, 5000, 1, 2).selectExpr("id", "ROUND(id * 0.01D, 2) AS price")
    for alp_form in ("private", "ratified"):
        write(spark, prices, f"{store_dir}/alp-{alp_form}", alpColumns="price", alpForm=alp_form)
        got = spark.read.parquet(f"{store_dir}/alp-{alp_form}")
        assert rows(got) == rows(prices)


def test_footer_cli_on_uris(spark, stores, s3a_jars, store_dir):
    df = wide(spark, columns=60, rows=900)
    write(spark, df, store_dir)
    expected = rows(spark.read.parquet(store_dir))
    code, out = cli(stores, s3a_jars, "verify", store_dir)
    assert code == 0 and len(out) == 3 and {r["status"] for r in out} == {"valid"}, out
    code, out = cli(stores, s3a_jars, "migrate", "--to", "final", store_dir)
    assert code == 0 and {r["status"] for r in out} == {"migrated"}, out
    assert {r["form"] for r in footer.inspect(store_dir)} == {"final"}
    assert rows(spark.read.parquet(store_dir)) == expected
    code, out = cli(stores, s3a_jars, "strip", store_dir)
    assert code == 0 and {r["status"] for r in out} == {"stripped"}, out
    code, out = cli(stores, s3a_jars, "add", store_dir)
    assert code == 0 and {r["status"] for r in out} == {"added"}, out
    code, out = cli(stores, s3a_jars, "roundtrip", store_dir)
    assert code == 0 and {r["status"] for r in out} == {"exact"}, out
    code, out = cli(stores, s3a_jars, "inspect", store_dir)
    assert code == 0 and {r["form"] for r in out} == {"private"}, out
    spark.catalog.refreshByPath(store_dir)
    assert rows(spark.read.parquet(store_dir)) == expected
    # no temporary object left behind
    listed = spark._jvm.org.apache.hadoop.fs.Path(store_dir)
    fs = listed.getFileSystem(spark._jsc.hadoopConfiguration())
    names = sorted(s.getPath().getName() for s in fs.listStatus(listed))
    assert [n for n in names if n.endswith(".parquet")] == sorted(n for n in names if not n.startswith("_"))


def test_read_only_commands_take_delta_table_files_rewrites_refuse(spark, stores, s3a_jars, store_dir):
    """A folder with a _delta_log: verify and inspect answer for its files; migrate refuses and
    names the table command (the Delta table itself is tested on the 4.2 line)."""
    write(spark, spark.range(100).selectExpr("id"), store_dir)
    fs_path = spark._jvm.org.apache.hadoop.fs.Path(store_dir + "/_delta_log")
    fs = fs_path.getFileSystem(spark._jsc.hadoopConfiguration())
    out = fs.create(spark._jvm.org.apache.hadoop.fs.Path(store_dir + "/_delta_log/00000000000000000000.json"))
    out.write(bytearray(b'{"commitInfo":{}}\n'))
    out.close()
    code, res = cli(stores, s3a_jars, "verify", store_dir)
    assert code == 0 and res and {r["status"] for r in res} == {"valid"}, res
    code, res = cli(stores, s3a_jars, "migrate", "--to", "final", store_dir)
    assert code != 0 and {r["status"] for r in res} == {"refused"}
    assert "migrate_table" in res[0]["message"]


def test_table_jobs_and_sql_forms(spark, store_dir):
    df = wide(spark, columns=40, rows=1200, files=4)
    df.write.parquet(store_dir)  # Spark's own writer: plain footers
    expected = rows(spark.read.parquet(store_dir))
    got = {r.status for r in footer.add_table(spark, store_dir).collect()}
    assert got == {"done"}
    assert {r.status for r in footer.add_table(spark, store_dir).collect()} == {"already"}
    res = spark.sql(f"SELECT status, count(*) FROM superspark_footer_migrate_table('{store_dir}', 'final') GROUP BY status")
    assert [tuple(r) for r in res.collect()] == [("done", 4)]
    assert {r["form"] for r in footer.inspect(store_dir)} == {"final"}
    spark.catalog.refreshByPath(store_dir)
    assert rows(spark.read.parquet(store_dir)) == expected
    assert {r.status for r in footer.migrate_table(spark, store_dir, to="final").collect()} == {"already"}
    res = spark.sql(f"SELECT DISTINCT status FROM superspark_footer_strip_table('{store_dir}')").collect()
    assert [r[0] for r in res] == ["done"]
    spark.catalog.refreshByPath(store_dir)
    assert rows(spark.read.parquet(store_dir)) == expected


def test_bsup_and_sb_functions(spark, store_dir, tmp_dir):
    df = spark.range(0, 3000, 1, 2).selectExpr("id", "concat('n', id) AS s", "array(id, id + 1) AS xs")
    df.write.format("bsup").save(store_dir + "/b")
    local = os.path.join(tmp_dir, "b")
    df.write.format("bsup").save(local)
    assert rows(spark.read.format("bsup").load(store_dir + "/b")) == rows(spark.read.format("bsup").load(local))
    assert rows(spark.read.format("bsup").load(store_dir + "/b")) == rows(df)
    cells = spark.read.format("binaryFile").option("pathGlobFilter", "*.bsup").load(store_dir + "/b")
    got = cells.select(F.explode(SF.sb_decode_all("content", "id bigint, s string, xs array<bigint>")).alias("r")) \
        .select("r.*")
    assert rows(got) == rows(df)


def _replace(spark, src, dst):
    """Replaces the object/file `dst` by `src`'s bytes through the Hadoop API (an overwrite PUT on S3)."""
    jvm = spark._jvm
    conf = spark._jsc.hadoopConfiguration()
    s, d = jvm.org.apache.hadoop.fs.Path(src), jvm.org.apache.hadoop.fs.Path(dst)
    fs = d.getFileSystem(conf)
    jvm.org.apache.hadoop.fs.FileUtil.copy(fs, s, fs, d, False, True, conf)


def test_footer_cache_never_serves_a_same_length_rewrite(spark, store_dir):
    """Issue 31's wrong answer, on the real store: two same-length files (the same values in
    another order: other row-group statistics) put at one path within a second."""
    opts = {"compression": "none", "parquet.enable.dictionary": "false", "parquet.block.size": "16384",
            "parquet.page.write-checksum.enabled": "false"}
    write(spark, spark.range(0, 20000, 1, 1).selectExpr("id AS x"), store_dir + "/a", **opts)
    write(spark, spark.range(0, 20000, 1, 1).selectExpr("19999 - id AS x"), store_dir + "/b", **opts)
    files = {}
    for name in ("a", "b"):
        [f] = [r["path"] for r in footer.inspect(f"{store_dir}/{name}")]
        files[name] = f
    q = lambda: spark.read.schema("x BIGINT").parquet(files["a"]).where("x < 10000").count()
    pi.clear_footer_cache(spark)
    assert q() == 10000
    pi.reset_footer_metrics(spark)
    assert q() == 10000
    m = pi.footer_cache_metrics(spark)
    s3 = store_dir.startswith("s3a:")
    # a hit: on S3 keyed by the ETag, no byte read; on HDFS (no ETag) the 64-byte tail check
    assert m["cache_hits"] == 1 and m["bytes_read"] == (0 if s3 else 64), m
    _replace(spark, files["b"], files["a"])
    spark.catalog.refreshByPath(files["a"])
    pi.reset_footer_metrics(spark)
    assert q() == 10000
    assert pi.footer_cache_metrics(spark)["cache_misses"] == 1


def test_kill_the_cli_mid_rewrite_every_file_old_or_new(spark, stores, s3a_jars, store_dir):
    """`migrate --to final` killed (SIGKILL) at several moments of its run over 12 files: every
    file is then exactly the old (private) or the new (final) one, and a rerun finishes."""
    df = wide(spark, columns=80, rows=2400, files=12)
    write(spark, df, store_dir)
    expected = rows(spark.read.parquet(store_dir))
    d = [a for k, v in s3a_settings(stores).items() for a in ("-D", f"{k}={v}")]
    env = dict(os.environ, HADOOP_CLASSPATH=os.pathsep.join(s3a_jars))
    seen = set()
    for delay in (1.0, 2.0, 3.0, 4.5):
        p = subprocess.Popen([sys.executable, "-m", "superspark.footer", "migrate", *d, "--to",
                              "final" if delay != 3.0 else "intermediate", store_dir],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True, env=env)
        time.sleep(delay)
        os.killpg(p.pid, signal.SIGKILL)
        p.wait()
        forms = [r["form"] for r in footer.inspect(store_dir)]
        assert len(forms) == 12 and set(forms) <= {"private", "final", "intermediate"}, forms
        seen.update(forms)
        spark.catalog.refreshByPath(store_dir)
        assert rows(spark.read.parquet(store_dir)) == expected
    # the kills fell inside the runs: old and new files were both seen after some kill
    assert "private" in seen and seen & {"final", "intermediate"}, seen
    # the rerun, told no other run is going (a killed run's temporary file is not left to age
    # 600 s; on HDFS it is still open under the dead client's lease), finishes the rest
    code, out = cli(stores, s3a_jars, "migrate", "-D", "superspark.footer.staleTempSeconds=0", "--to", "final",
                    store_dir)
    assert code == 0 and len(out) == 12, [(r["status"], r.get("message", "")[:300]) for r in out]
    assert {r["form"] for r in footer.inspect(store_dir)} == {"final"}
    assert {r["status"] for r in footer.verify(store_dir)} == {"valid"}
    spark.catalog.refreshByPath(store_dir)
    assert rows(spark.read.parquet(store_dir)) == expected
