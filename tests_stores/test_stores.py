"""Everything superspark does with files, on s3a:// (versitygw), hdfs:// (a mini-cluster) and gs://
(fake-gcs-server, Google's connector), against the same work on a local disk, value for value
(issues 31, 40). Each test runs on every store (the `store_dir` fixture)."""

import collections
import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import uuid

import pytest
from pyspark.sql import functions as F

import superspark.footer as footer
from superspark import functions as SF
from superspark import parquet_interceptor as pi
from conftest import delta_jars, gcs_line, hadoop_settings

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
    d = [a for k, v in hadoop_settings(stores).items() for a in ("-D", f"{k}={v}")]
    env = dict(os.environ, HADOOP_CLASSPATH=os.pathsep.join(jars))
    p = subprocess.run([sys.executable, "-m", "superspark.footer", *args[:1], *d, "--json", *args[1:]],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, timeout=300)
    assert p.stdout.strip(), p.stderr[-3000:]
    return p.returncode, json.loads(p.stdout)


def test_smoke_write_verify_migrate_read(spark, stores, store_jars, store_dir, tmp_dir):
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


def test_smoke_delta_table_on_s3_migrated_as_one_commit(spark, stores):
    """A Delta table on s3a:// (Delta's default S3 log store, S3SingleDriverLogStore: one driver)
    migrated to the intermediate form as one Delta commit (the final form is refused for Delta): the same rows read back, and time travel to
    the version before reads the old files. On the lines Delta 4.4.0 supports (4.0-4.2)."""
    if not delta_jars():
        pytest.skip("no Delta Lake jars on this line (Delta 4.4.0 supports Spark 4.0-4.2; "
                    "`SPARK_LINE=4.2 dev/setup.sh` fetches them)")
    path = f"s3a://{stores['SUPERSPARK_S3_BUCKET']}/delta-{uuid.uuid4().hex[:12]}"
    df = wide(spark, columns=50, rows=900, files=3)
    df.write.format("delta").save(path)
    expected = rows(df)
    before = spark.read.format("delta").load(path).inputFiles()
    assert len(before) == 3 and {r["form"] for f in before for r in footer.inspect(f)} == {"plain"}
    # the final form is refused for a Delta table (Delta reads its files with Spark's own Parquet
    # reader, which cannot open PAR3 files); the intermediate form is the last one Delta can read
    with pytest.raises(Exception, match="SUPERSPARK_DELTA_TABLE_REWRITE_REFUSED"):
        spark.sql(f"SELECT * FROM superspark_footer_migrate_table('{path}', 'final')").collect()
    res = spark.sql(f"SELECT status, count(*) FROM superspark_footer_migrate_table('{path}', 'intermediate') "
                    "GROUP BY status")
    assert [tuple(r) for r in res.collect()] == [("done", 3)]
    history = spark.sql(f"DESCRIBE HISTORY delta.`{path}`").orderBy("version").collect()
    assert [r.version for r in history] == [0, 1], history  # the write, then the one commit
    after = spark.read.format("delta").load(path)
    assert {r["form"] for f in after.inputFiles() for r in footer.inspect(f)} == {"intermediate"}
    assert rows(after) == expected
    v0 = spark.read.format("delta").option("versionAsOf", 0).load(path)
    assert sorted(v0.inputFiles()) == sorted(before) and rows(v0) == expected
    res = spark.sql(f"SELECT DISTINCT status FROM superspark_footer_migrate_table('{path}', 'intermediate')").collect()
    assert [r[0] for r in res] == ["already"]


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


def test_footer_cli_on_uris(spark, stores, store_jars, store_dir):
    df = wide(spark, columns=60, rows=900)
    write(spark, df, store_dir)
    expected = rows(spark.read.parquet(store_dir))
    code, out = cli(stores, store_jars, "verify", store_dir)
    assert code == 0 and len(out) == 3 and {r["status"] for r in out} == {"valid"}, out
    code, out = cli(stores, store_jars, "migrate", "--to", "final", store_dir)
    assert code == 0 and {r["status"] for r in out} == {"migrated"}, out
    assert {r["form"] for r in footer.inspect(store_dir)} == {"final"}
    assert rows(spark.read.parquet(store_dir)) == expected
    code, out = cli(stores, store_jars, "strip", store_dir)
    assert code == 0 and {r["status"] for r in out} == {"stripped"}, out
    code, out = cli(stores, store_jars, "add", store_dir)
    assert code == 0 and {r["status"] for r in out} == {"added"}, out
    code, out = cli(stores, store_jars, "roundtrip", store_dir)
    assert code == 0 and {r["status"] for r in out} == {"exact"}, out
    code, out = cli(stores, store_jars, "inspect", store_dir)
    assert code == 0 and {r["form"] for r in out} == {"private"}, out
    spark.catalog.refreshByPath(store_dir)
    assert rows(spark.read.parquet(store_dir)) == expected
    # no temporary object left behind
    listed = spark._jvm.org.apache.hadoop.fs.Path(store_dir)
    fs = listed.getFileSystem(spark._jsc.hadoopConfiguration())
    names = sorted(s.getPath().getName() for s in fs.listStatus(listed))
    assert [n for n in names if n.endswith(".parquet")] == sorted(n for n in names if not n.startswith("_"))


def test_footer_cli_with_hadoop_conf_dir_and_hadoop_classpath(spark, stores, store_jars, store_dir, tmp_path):
    """Issue 40: the command line as a Hadoop client machine runs it, no -D: the store's settings in
    HADOOP_CONF_DIR's core-site.xml (S3A's endpoint and keys; and superspark.footer.replace, which
    the results report: delete-rename on HDFS, where the default is rename), hadoop-aws and the AWS SDK in HADOOP_CLASSPATH, and a fresh class data cache
    (the first call writes the archive at exit: there the JVM refused the folder on the class path
    and every command failed after doing its work)."""
    df = wide(spark, columns=30, rows=600, files=2)
    write(spark, df, store_dir)
    conf = tmp_path / "hadoop-conf"
    conf.mkdir()
    # a setting each command's result shows (the default is rename on HDFS, object on S3) and, for
    # S3, the settings without which nothing reaches the store
    settings = {"superspark.footer.replace": "delete-rename" if store_dir.startswith("hdfs:") else "object",
                **({} if store_dir.startswith("hdfs:") else hadoop_settings(stores))}
    target = store_dir
    (conf / "core-site.xml").write_text('<?xml version="1.0"?>\n<configuration>' + "".join(
        f"<property><name>{k}</name><value>{v}</value></property>" for k, v in settings.items()) + "</configuration>\n")
    cache = tmp_path / "cache"
    env = dict(os.environ, HADOOP_CONF_DIR=str(conf), HADOOP_CLASSPATH=os.pathsep.join(store_jars),
               SUPERSPARK_CACHE_DIR=str(cache))

    def run(*args):
        p = subprocess.run([sys.executable, "-m", "superspark.footer", args[0], "--json", *args[1:]],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, timeout=300)
        assert p.returncode == 0 and p.stdout.strip(), p.stderr[-3000:]
        assert "warning" not in p.stderr, p.stderr[-3000:]
        return json.loads(p.stdout)

    out = run("verify", target)
    assert len(out) == 2 and {r["status"] for r in out} == {"valid"}, out
    assert [n for n in os.listdir(cache) if n.endswith(".jsa")], os.listdir(cache)  # the archive, written
    out = run("migrate", "--to", "final", target)
    assert {(r["status"], r["replace"]) for r in out} == {("migrated", settings["superspark.footer.replace"])}, out
    out = run("inspect", target)
    assert len(out) == 2 and {r["form"] for r in out} == {"final"}, out
    spark.catalog.refreshByPath(store_dir)
    assert rows(spark.read.parquet(store_dir)) == rows(df)


def test_read_only_commands_take_delta_table_files_rewrites_refuse(spark, stores, store_jars, store_dir):
    """A folder with a _delta_log: verify and inspect answer for its files; migrate refuses and
    names the table command (the Delta table itself is tested on the 4.2 line)."""
    write(spark, spark.range(100).selectExpr("id"), store_dir)
    fs_path = spark._jvm.org.apache.hadoop.fs.Path(store_dir + "/_delta_log")
    fs = fs_path.getFileSystem(spark._jsc.hadoopConfiguration())
    out = fs.create(spark._jvm.org.apache.hadoop.fs.Path(store_dir + "/_delta_log/00000000000000000000.json"))
    out.write(bytearray(b'{"commitInfo":{}}\n'))
    out.close()
    code, res = cli(stores, store_jars, "verify", store_dir)
    assert code == 0 and res and {r["status"] for r in res} == {"valid"}, res
    code, res = cli(stores, store_jars, "migrate", "--to", "final", store_dir)
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


def _same_length_pair(spark, folder):
    """The bytes of two Parquet files of one length with different contents: the same 20,000 values
    in ascending and in descending order (other row-group statistics), uncompressed, no dictionary,
    written locally by Spark with the footer. Where the two come out at different lengths
    (parquet-java 1.15, Spark 4.0: 8 bytes apart) the shorter gets the difference as zero bytes
    between its last column chunk and its footer, where no reader looks (FooterCacheSuite does
    the same; the test reads both)."""
    opts = {"compression": "none", "parquet.enable.dictionary": "false", "parquet.block.size": "16384",
            "parquet.page.write-checksum.enabled": "false"}
    out = []
    for name, expr in (("a", "id AS x"), ("b", "19999 - id AS x")):
        d = os.path.join(folder, name)
        write(spark, spark.range(0, 20000, 1, 1).selectExpr(expr), d, **opts)
        [f] = [os.path.join(d, n) for n in os.listdir(d) if n.endswith(".parquet")]
        out.append(open(f, "rb").read())
    a, b = out
    short, n = (0, len(b) - len(a)) if len(a) < len(b) else (1, len(a) - len(b))
    if n:
        data = out[short]
        at = len(data) - 8 - int.from_bytes(data[-8:-4], "little")
        out[short] = data[:at] + bytes(n) + data[at:]
    a, b = out
    assert len(a) == len(b) and a != b
    return a, b


def test_footer_cache_never_serves_a_same_length_rewrite(spark, store_dir, tmp_dir):
    """Issue 31's wrong answer, on the real store: two different objects of one length put at one
    path within one second (S3's Last-Modified has one-second resolution; on HDFS, whose times
    have milliseconds, the second object gets the first one's time, as a copy that keeps times
    does), the first one's footer cached in between. The query prunes row groups by the footer's
    statistics: a footer served from the cache for the second object answers a wrong count. On S3
    the key holds the ETag; on HDFS (no ETag) a hit reads the file's last 64 bytes again."""
    jvm, conf = spark._jvm, spark._jsc.hadoopConfiguration()
    a, b = _same_length_pair(spark, tmp_dir)
    name = f"{store_dir}/t.parquet"
    path = jvm.org.apache.hadoop.fs.Path(name)
    fs = path.getFileSystem(conf)
    s3 = store_dir.startswith("s3a:")
    gs = store_dir.startswith("gs:")  # a new generation, and times in milliseconds: no same-second premise

    def put(data):
        out = fs.create(path, True)
        out.write(bytearray(data))
        out.close()

    q = lambda: spark.read.schema("x BIGINT").parquet(name).where("x < 10000").count()
    for attempt in range(10):
        while s3 and time.time() % 1 > 0.05:  # start at the beginning of a second
            time.sleep(0.005)
        put(a)
        spark.catalog.refreshByPath(name)
        pi.clear_footer_cache(spark)
        assert q() == 10000  # the first object's footer, now cached
        first = fs.getFileStatus(path)
        put(b)
        if not s3 and not gs:
            fs.setTimes(path, first.getModificationTime(), -1)
        now = fs.getFileStatus(path)
        if gs or now.getModificationTime() == first.getModificationTime():
            break  # (on S3: the second object landed in the first one's second)
    else:
        pytest.fail("the second object never landed within the first one's second (10 tries)")
    assert now.getLen() == first.getLen() == len(a) == len(b)
    if s3:
        assert now.getEtag() != first.getEtag()
    assert _bytes(spark, store_dir)["t.parquet"] == b
    spark.catalog.refreshByPath(name)
    # the expected count from Spark's own reader, without the library
    spark.conf.set(READ, "false")
    try:
        expected = q()
    finally:
        spark.conf.unset(READ)
    pi.reset_footer_metrics(spark)
    got = q()
    m = pi.footer_cache_metrics(spark)
    print(f"same-length rewrite ({store_dir.split(':')[0]}): {len(a)} bytes each, put within one second "
          f"on try {attempt + 1}; {got} rows, Spark's reader {expected}; cache {m}")
    assert expected == 10000
    assert got == expected, f"the footer cache served the first object's footer: {got} rows, not {expected}"
    assert m["cache_misses"] == 1 and m["cache_hits"] == 0, m


STRACE = shutil.which("strace")


def _bytes(spark, folder):
    """{name: bytes} of the Parquet files (not ``_*``/``.*``) in `folder`, through the Hadoop API."""
    jvm, conf = spark._jvm, spark._jsc.hadoopConfiguration()
    path = jvm.org.apache.hadoop.fs.Path(folder)
    fs = path.getFileSystem(conf)
    out = {}
    for st in fs.listStatus(path):
        name = st.getPath().getName()
        if name.startswith(("_", ".")) or st.isDirectory():
            continue
        with contextlib.closing(fs.open(st.getPath())) as f:
            # a byte[] made in the JVM (py4j passes a Python buffer to Java as a copy)
            out[name] = bytes(jvm.org.apache.commons.io.IOUtils.toByteArray(f))
        assert len(out[name]) == st.getLen() and out[name][-4:] in (b"PAR1", b"PAR3"), (name, out[name][-4:])
    return out


def _copy_folder(spark, src, dst):
    jvm, conf = spark._jvm, spark._jsc.hadoopConfiguration()
    s, d = jvm.org.apache.hadoop.fs.Path(src), jvm.org.apache.hadoop.fs.Path(dst)
    fs = s.getFileSystem(conf)
    jvm.org.apache.hadoop.fs.FileUtil.copy(fs, s, fs, d, False, True, conf)


def _tool(stores, jars, *args, strace=()):
    """The footer command's JVM as the command line starts it (launcher's class path with the
    hadoop-aws jars that HADOOP_CLASSPATH adds, S3A settings as -D; no class data archive written:
    a kill must not leave a half-written one), optionally under strace. Run directly, not through
    `python -m superspark.footer`: strace then traces the JVM alone (the Python process around it
    makes writes of its own), and strace's own exit says whether it died by SIGKILL."""
    from superspark.footer import _launcher as launcher

    py4j, ours, *rest = footer.tool_classpath()
    d = [a for k, v in hadoop_settings(stores).items() for a in ("-D", f"{k}={v}")]
    argv = [launcher._java(), launcher._jvm_memory(), "-XX:TieredStopAtLevel=1", *launcher._jvm_logging(),
            "-cp", os.pathsep.join([py4j, ours, *jars, *rest]), "io.superspark.parquet.footer.tools.FooterTool",
            args[0], *d, *args[1:]]
    return [*strace, *argv], dict(os.environ)


_SYSCALL = re.compile(r"(\d+)\s+(\w+)\((\d+)<")
_RESUMED = re.compile(r"(\d+)\s+<\.\.\. (\w+) resumed>")
_TCP = re.compile(r"\d+<TCP(?:v6)?:\[(.*?)\]>")


def _calls(trace):
    """The system calls of an strace -f -yy output file, in its order: dicts of tid, call, n (the
    call's number among that thread's calls of that syscall: what strace's `when=` counts), the
    remote TCP port of its descriptor (None: not a TCP socket), and whether it returned."""
    seen, out, pending = collections.Counter(), [], {}
    for line in open(trace):
        m = _SYSCALL.match(line)
        if m:
            tid, call = m.group(1), m.group(2)
            seen[(tid, call)] += 1
            tcp = _TCP.match(line, m.end(2) + 1)
            port = int(tcp.group(1).rsplit(":", 1)[1]) if tcp else None
            e = {"tid": tid, "call": call, "n": seen[(tid, call)], "port": port, "line": line.strip()[:160]}
            unfinished = line.rstrip().endswith("<unfinished ...>")
            e["returned"] = not unfinished and not line.rstrip().endswith("= ?")
            out.append(e)
            if unfinished:
                pending[(tid, call)] = e
            continue
        m = _RESUMED.match(line)
        if m and (m.group(1), m.group(2)) in pending:
            pending.pop((m.group(1), m.group(2)))["returned"] = not line.rstrip().endswith("= ?")
    return out


def _store_ports(stores, store_dir):
    """The TCP ports the store's servers listen on: S3's and GCS's endpoints; HDFS's name node and the ports its
    process listens on (the data node's), read from /proc by the pid dev/stores/start.sh keeps."""
    from conftest import REPO

    if store_dir.startswith("s3a:"):
        return {int(stores["SUPERSPARK_S3_ENDPOINT"].rsplit(":", 1)[1])}
    if store_dir.startswith("gs:"):
        return {int(stores["SUPERSPARK_GCS_ENDPOINT"].rsplit(":", 1)[1])}
    ports = {int(stores["SUPERSPARK_HDFS_URI"].rsplit(":", 1)[1])}
    pidfile = os.path.join(REPO, ".tools", "stores", "run", "hdfs.pid")
    if os.path.exists(pidfile):
        pid = open(pidfile).read().strip()
        inodes = set()
        for fd in os.listdir(f"/proc/{pid}/fd"):
            with contextlib.suppress(OSError):
                link = os.readlink(f"/proc/{pid}/fd/{fd}")
                if link.startswith("socket:["):
                    inodes.add(link[8:-1])
        for table in ("/proc/net/tcp", "/proc/net/tcp6"):
            for row in open(table).read().splitlines()[1:]:
                f = row.split()
                if f[3] == "0A" and f[9] in inodes:  # LISTEN
                    ports.add(int(f[1].rsplit(":", 1)[1], 16))
    return ports


def _aimed_store_writes(trace, ports):
    """(syscall, n) of the writes the traced tool made to the store's sockets that strace's
    `inject=SYSCALL:signal=KILL:when=N` would hit: that filter fires on the first thread to make its
    Nth call of SYSCALL, on whatever descriptor, so a point counts only where, in the traced run,
    the first thread to reach its Nth call made it on a store socket."""
    first = {}
    for e in _calls(trace):
        first.setdefault((e["call"], e["n"]), e)
    return [k for k, e in first.items() if e["port"] in ports]


def _kill_reached(trace, call, n, ports):
    """What the kill run's injection hit: the call strace stopped (the Nth `call` of its thread, not
    returned), asserted to be a write to a store socket in a process then killed by SIGKILL."""
    calls = _calls(trace)
    # strace injects at every thread's Nth call: the first one it stopped (its line comes first) is
    # the kill; another thread's Nth call may be stopped too while the process dies
    hit = [e for e in calls if e["call"] == call and e["n"] == n and not e["returned"]][:1]
    text = open(trace).read()
    assert hit, (call, n, "no such call stopped", text[-2000:])
    killed = set(re.findall(r"^(\d+)\s+\+\+\+ killed by SIGKILL \+\+\+", text, re.M))
    assert hit[0]["tid"] in killed, (hit[0], sorted(killed), text[-2000:])
    assert hit[0]["port"] in ports, f"the kill at the {n}th {call} hit {hit[0]['line']!r}, not a socket to {ports}"
    return hit[0]


def _traced_add(spark, stores, jars, store_dir, tmp_dir):
    """`add` run whole on a copy of `store_dir/old` (`store_dir/probe`) under strace: the store's ports,
    the trace, and the kill points it offers (the writes to the store's sockets that strace's per-thread
    count hits, _aimed_store_writes)."""
    ports = _store_ports(stores, store_dir)
    _copy_folder(spark, f"{store_dir}/old", f"{store_dir}/probe")
    trace = os.path.join(tmp_dir, "trace.txt")
    argv, env = _tool(stores, jars, "add", f"{store_dir}/probe",
                      strace=(STRACE, "-f", "-qq", "-yy", "-o", trace, "-e", "trace=write,writev,sendto,sendmsg"))
    assert subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0
    return ports, trace, _aimed_store_writes(trace, ports)


def _killed_add(spark, stores, jars, store_dir, tmp_dir, i, call, n, ports):
    """`add` run on a fresh copy of `store_dir/old` (`store_dir/kill<i>`), SIGKILLed by strace at the Nth
    `call` of a thread, asserted to have died there, on a write to a store socket: the folder and the
    kill point reached (`call#n->:port`)."""
    d = f"{store_dir}/kill{i}"
    _copy_folder(spark, f"{store_dir}/old", d)
    kill_trace = os.path.join(tmp_dir, f"kill{i}.txt")
    argv, env = _tool(stores, jars, "add", d, strace=(STRACE, "-f", "-qq", "-yy", "-o", kill_trace, "-e",
                                                   f"trace={call}", "-e", f"inject={call}:signal=KILL:when={n}"))
    p = subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=300)
    assert p.returncode == -signal.SIGKILL, (call, n, p.returncode)  # strace's tracee died by SIGKILL
    hit = _kill_reached(kill_trace, call, n, ports)  # the kill point: a write to the store, then SIGKILL
    return d, f"{call}#{n}->:{hit['port']}"


@pytest.mark.skipif(STRACE is None, reason="strace is not installed (dev/setup.sh installs it)")
def test_kill_the_tool_at_chosen_store_writes_every_object_old_or_new(spark, stores, store_jars, store_dir, tmp_dir):
    """`add` (plain files to the private form) SIGKILLed by strace's fault injection at chosen writes to
    the store's sockets: the first (its first request), half way through, and the last (the last
    upload's end). After each kill every object is byte for byte the old one or
    the one a clean run wrote, vanilla Spark and superspark read the same rows, no temporary object
    is visible to Spark, and a rerun finishes (`added` for the rest, `unchanged` for the done)."""
    df = wide(spark, columns=40, rows=900, files=3)
    df.write.parquet(f"{store_dir}/old")  # Spark's own writer: plain footers
    old = _bytes(spark, f"{store_dir}/old")
    expected = rows(df)
    # the clean run's objects
    _copy_folder(spark, f"{store_dir}/old", f"{store_dir}/clean")
    code, out = cli(stores, store_jars, "add", f"{store_dir}/clean")
    assert code == 0 and {r["status"] for r in out} == {"added"}, out
    new = _bytes(spark, f"{store_dir}/clean")
    assert new.keys() == old.keys() and all(new[n] != old[n] for n in old)
    ports, _, points = _traced_add(spark, stores, store_jars, store_dir, tmp_dir)
    assert len(points) >= 10, (ports, points)
    chosen = [points[i] for i in sorted({0, len(points) // 2, len(points) - 1})]
    forms, reached = collections.Counter(), []
    for i, (call, n) in enumerate(chosen):
        d, point = _killed_add(spark, stores, store_jars, store_dir, tmp_dir, i, call, n, ports)
        reached.append(point)
        got = _bytes(spark, d)
        assert got.keys() == old.keys(), (call, n, sorted(got))
        for name, data in got.items():
            assert data in (old[name], new[name]), (call, n, name, len(data), len(old[name]), len(new[name]))
            forms["old" if data == old[name] else "new"] += 1
        for read in ("false", "true"):  # vanilla Spark, then superspark
            spark.conf.set(READ, read)
            try:
                spark.catalog.refreshByPath(d)
                assert rows(spark.read.parquet(d)) == expected
            finally:
                spark.conf.unset(READ)
        # the rerun, told no other run is going (on HDFS a killed run's temporary file is still
        # open under the dead client's lease), finishes the rest
        code, out = cli(stores, store_jars, "add", "-D", "superspark.footer.staleTempSeconds=0", d)
        assert code == 0 and {r["status"] for r in out} <= {"added", "unchanged"}, out
        assert _bytes(spark, d) == new
    print(f"kill test ({store_dir.split(':')[0]}): {len(points)} store writes strace can aim at (ports "
          f"{sorted(ports)}), every kill reached its point: {reached}; objects after the kills: {dict(forms)}")
    assert forms["old"] and forms["new"], forms  # the kills fell before, inside and after the uploads


_JOB = """
import sys
import superspark
from superspark import footer
conf = dict(a.split("=", 1) for a in sys.argv[3:])
spark = superspark.session("kill-table-job", master="local[1]", **conf)
print("START", flush=True)
rows = footer.migrate_table(spark, sys.argv[1], to=sys.argv[2]).collect()
print("END", sorted(r.status for r in rows), flush=True)
"""


@pytest.mark.parametrize("store_dir", ["s3", "hdfs"], indirect=True)  # gs://: the tool's kill test above
def test_kill_the_table_job_mid_upload_every_object_old_or_new(spark, stores, store_jars, store_dir, tmp_dir):
    """`migrate_table` to final in a Spark process of its own (one task at a time), SIGKILLed when 1
    and when 3 of the 6 objects were replaced (a marker: the objects' forms as a reader finds them;
    the kill lands while a later object is being written): every object is the old one or the one a clean run wrote,
    the rows read the same, and a rerun finishes (`done` for the rest, `already` for the others)."""
    df = wide(spark, columns=60, rows=1800, files=6)
    write(spark, df, f"{store_dir}/old")
    old = _bytes(spark, f"{store_dir}/old")
    expected = rows(df)
    _copy_folder(spark, f"{store_dir}/old", f"{store_dir}/clean")
    assert {r.status for r in footer.migrate_table(spark, f"{store_dir}/clean", to="final").collect()} == {"done"}
    new = _bytes(spark, f"{store_dir}/clean")
    assert all(new[n] != old[n] for n in old)
    job = os.path.join(tmp_dir, "job.py")
    with open(job, "w") as f:
        f.write(_JOB)
    conf = {f"spark.hadoop.{k}": v for k, v in hadoop_settings(stores).items()}
    conf.update({"spark.jars": ",".join(store_jars), "spark.ui.enabled": "false",
                 "spark.hadoop.superspark.footer.staleTempSeconds": "0"})
    seen = collections.Counter()
    for i, after in enumerate((1, 3)):
        d = f"{store_dir}/kill{i}"
        _copy_folder(spark, f"{store_dir}/old", d)
        p = subprocess.Popen([sys.executable, job, d, "final", *(f"{k}={v}" for k, v in conf.items())],
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, start_new_session=True)
        try:
            assert p.stdout.readline().strip() == "START"
            deadline = time.time() + 240
            while after and time.time() < deadline:
                # an object read while the job replaces it can come back `error` (no `form`): not counted
                done = sum(r.get("form") == "final" for r in footer.inspect(d))
                if done >= after:
                    break
                time.sleep(0.05)
            os.killpg(p.pid, signal.SIGKILL)
        finally:
            p.wait()
        got = _bytes(spark, d)
        assert got.keys() == old.keys(), sorted(got)
        states = ["old" if got[n] == old[n] else "new" if got[n] == new[n] else "neither" for n in sorted(old)]
        assert "neither" not in states, (after, states)
        assert states.count("new") >= after, (after, states)
        seen.update(states)
        spark.catalog.refreshByPath(d)
        assert rows(spark.read.parquet(d)) == expected
        # the rerun, told no other run is going (on HDFS a killed task's temporary file is still
        # open under the dead client's lease)
        hconf = spark._jsc.hadoopConfiguration()
        hconf.set("superspark.footer.staleTempSeconds", "0")
        try:
            res = footer.migrate_table(spark, d, to="final").collect()
        finally:
            hconf.unset("superspark.footer.staleTempSeconds")
        assert sorted(r.status for r in res) == sorted("done" if s == "old" else "already" for s in states), res
        assert _bytes(spark, d) == new
        spark.catalog.refreshByPath(d)
        assert rows(spark.read.parquet(d)) == expected
    assert seen["old"] and seen["new"], seen


def test_two_writers_on_one_object_the_late_one_is_refused(spark, stores):
    """S3 only. A rewrite read the object (its ETag); another writer then replaces it with bytes of
    the same length, last 64 KiB and modification second (S3's Last-Modified has one-second
    resolution), which the check before the upload cannot tell apart. The rewrite's upload is a
    conditional write on the ETag it read (`If-Match`, Hadoop's
    fs.option.create.conditional.overwrite.etag): the store refuses it (412) and the other writer's
    object stays. With `superspark.footer.conditionalWrite=false` the same race goes unseen."""
    jvm, conf = spark._jvm, spark._jsc.hadoopConfiguration()
    rewrite = jvm.io.superspark.parquet.footer.tools.FooterRewrite
    base = f"s3a://{stores['SUPERSPARK_S3_BUCKET']}/two-{uuid.uuid4().hex[:12]}"
    spark.range(0, 30000, 1, 1).selectExpr("id", "id * 3 AS y").write \
        .option("compression", "none").option("parquet.enable.dictionary", "false").parquet(base + "/src")
    [a] = _bytes(spark, base + "/src").values()
    assert len(a) > 128 * 1024
    other = bytearray(a)
    other[200] ^= 0xFF  # in the first data page: another object, same length, same last 64 KiB
    other = bytes(other)
    path = jvm.org.apache.hadoop.fs.Path(base + "/t.parquet")
    fs = path.getFileSystem(conf)

    def put(data):
        out = fs.create(path, True)
        out.write(bytearray(data))
        out.close()

    def race(conditional):
        """The rewrite of the object after another writer's replacement within its second: the error
        (None when the rewrite went through) and the object's bytes after."""
        conf.set("superspark.footer.conditionalWrite", str(conditional).lower())
        try:
            for _ in range(10):
                while time.time() % 1 > 0.1:  # start at the beginning of a second
                    time.sleep(0.01)
                put(a)
                opened = rewrite.open(path, conf)
                try:
                    put(other)
                    if fs.getFileStatus(path).getModificationTime() != opened.snapshot().modificationTime():
                        continue  # the replacement fell into the next second: try again
                    tail = bytearray(a[opened.footer().footerOffset():])  # the same footer again
                    try:
                        rewrite.replaceTail(opened, tail, jvm.scala.Option.empty(), conf, False)
                        error = None
                    except Exception as e:  # py4j's Py4JJavaError
                        error = str(e)
                finally:
                    opened.close()
                return error, _bytes(spark, base)["t.parquet"]
            pytest.fail("the other writer's object never landed within the rewrite's second (10 tries)")
        finally:
            conf.unset("superspark.footer.conditionalWrite")

    error, now = race(conditional=True)
    assert error and "RewriteRefusedException" in error and "ETag" in error, error
    assert now == other  # the other writer's object stays
    # without the condition the race goes unseen: the rewrite goes through, having copied the data
    # pages of the other writer's object under the footer it read from the first one (the same
    # footer here, so the bytes equal `other`; after a real writer's change, a file whose footer
    # does not describe its pages)
    error, now = race(conditional=False)
    assert error is None and now == other


@pytest.mark.xfail(strict=True, raises=AssertionError, reason="GCS connector 4.0.4: its output stream cannot be aborted and offers no "
                   "generation condition through Hadoop's API, so a refused rewrite's close() completes the upload "
                   "(docs/storage.md, 'Two writers on one object')")
def test_two_writers_on_gs_the_late_one_is_refused_and_the_other_object_stays(spark, stores):
    """GCS. A rewrite read the object (its generation); another writer then replaces it. The rewrite sees
    the change before its upload completes (the modification time: milliseconds on GCS) and is refused,
    and the other writer's object should stay: the same generation after as before the refusal. Pinned as
    an expected failure: the connector's stream has no abort (`FSDataOutputStream.abort` is unsupported)
    and no generation condition from Hadoop's `createFile` options, so the refused rewrite's close() still
    completes its upload (a new generation: the rewrite's bytes replace the other writer's)."""
    if not gcs_line():
        pytest.skip("gs:// runs on the 4.3 line only")
    jvm, conf = spark._jvm, spark._jsc.hadoopConfiguration()
    rewrite = jvm.io.superspark.parquet.footer.tools.FooterRewrite
    files = jvm.io.superspark.parquet.footer.files.FooterFiles
    base = f"gs://{stores['SUPERSPARK_GCS_BUCKET']}/two-{uuid.uuid4().hex[:12]}"
    spark.range(0, 30000, 1, 1).selectExpr("id", "id * 3 AS y").write \
        .option("compression", "none").option("parquet.enable.dictionary", "false").parquet(base + "/src")
    [a] = _bytes(spark, base + "/src").values()
    other = bytearray(a)
    other[200] ^= 0xFF  # another object, same length, same tail
    path = jvm.org.apache.hadoop.fs.Path(base + "/t.parquet")
    fs = path.getFileSystem(conf)

    def put(data):
        out = fs.create(path, True)
        out.write(bytearray(data))
        out.close()

    put(a)
    opened = rewrite.open(path, conf)
    try:
        time.sleep(0.01)
        put(bytes(other))
        before = files.versionOf(fs.getFileStatus(path))
        assert before.startswith("generation:") and before != opened.snapshot().etag()
        tail = bytearray(a[opened.footer().footerOffset():])
        with pytest.raises(Exception, match="RewriteRefusedException"):
            rewrite.replaceTail(opened, tail, jvm.scala.Option.empty(), conf, False)
    finally:
        opened.close()
    after = files.versionOf(fs.getFileStatus(path))
    print(f"two writers on gs: the other writer's generation {before}, after the refused rewrite {after}")
    assert after == before  # the other writer's object stays


# ---- the server-side rewrite on S3 (issue 40, items 1 and 2) ----

def _big_parquet(spark, folder):
    """One Parquet object whose data part is above S3's 5 MiB part minimum (800,000 uncompressed longs)."""
    spark.range(0, 800_000, 1, 1).write.option("compression", "none") \
        .option("parquet.enable.dictionary", "false").parquet(folder)
    [data] = _bytes(spark, folder).values()
    assert len(data) > 6 << 20
    return data


def _object(spark, uri):
    jvm, conf = spark._jvm, spark._jsc.hadoopConfiguration()
    p = jvm.org.apache.hadoop.fs.Path(uri)
    fs = p.getFileSystem(conf)
    with contextlib.closing(fs.open(p)) as f:
        return bytes(jvm.org.apache.commons.io.IOUtils.toByteArray(f))


def _put(spark, uri, data):
    jvm, conf = spark._jvm, spark._jsc.hadoopConfiguration()
    p = jvm.org.apache.hadoop.fs.Path(uri)
    out = p.getFileSystem(conf).create(p, True)
    out.write(bytearray(data))
    out.close()


def _s3_uploads(spark, uri):
    """(key, upload id) of the incomplete multipart uploads under `uri`'s key, as S3A itself lists them
    (S3AFileSystem.listMultipartUploads: not the code under test)."""
    jvm, conf = spark._jvm, spark._jsc.hadoopConfiguration()
    p = jvm.org.apache.hadoop.fs.Path(uri)
    fs = p.getFileSystem(conf)
    return sorted((u.key(), u.uploadId()) for u in fs.listMultipartUploads(fs.pathToKey(p)))


@contextlib.contextmanager
def _hadoop(spark, **settings):
    conf = spark._jsc.hadoopConfiguration()
    for k, v in settings.items():
        conf.set(k, v)
    try:
        yield
    finally:
        for k in settings:
            conf.unset(k)


def test_server_side_rewrite_on_s3_copies_on_the_store_and_refuses_a_race(spark, stores):
    """S3 only. `add` on an object whose data part is >= 5 MiB builds the new object on the store (one
    multipart upload: the data part by UploadPartCopy, the new tail uploaded): `replace` is `server-copy`
    and the object is byte for byte what today's streamed path (`superspark.footer.serverSideCopy=false`)
    writes. Then the race: another writer replaces the object after the part copies, before the
    completion (the test-only setting superspark.footer.test.replaceBeforeComplete): the store refuses
    the completion (If-Match on the ETag read, 412), the rewrite is `refused`, the other writer's object
    stays and no incomplete upload is left (S3A's own listing). Without the condition
    (`superspark.footer.conditionalWrite=false`) the same race overwrites the other writer's object."""
    rewrite = spark._jvm.io.superspark.parquet.footer.tools.FooterRewrite
    base = f"s3a://{stores['SUPERSPARK_S3_BUCKET']}/ssc-{uuid.uuid4().hex[:12]}"
    a = _big_parquet(spark, base + "/src")
    other = bytearray(a)
    other[200] ^= 0xFF  # in the first data page: another object, same length and footer
    other = bytes(other)
    t, streamed = base + "/t.parquet", base + "/streamed/t.parquet"
    _put(spark, t, a)
    _put(spark, streamed, a)
    with _hadoop(spark, **{"superspark.footer.serverSideCopy": "false"}):
        [r] = footer.add(streamed)
    assert r["status"] == "added" and r["replace"] == "object", r
    new = _object(spark, streamed)
    assert new != a
    before = (rewrite.serverSideCopies(), rewrite.streamedCopies())
    [r] = footer.add(t)
    assert r["status"] == "added" and r["replace"] == "server-copy", r
    assert _object(spark, t) == new
    assert (rewrite.serverSideCopies(), rewrite.streamedCopies()) == (before[0] + 1, before[1])
    assert _s3_uploads(spark, base) == []
    # the race, refused
    _put(spark, t, a)
    _put(spark, base + "/other.parquet", other)
    with _hadoop(spark, **{"superspark.footer.test.replaceBeforeComplete": base + "/other.parquet"}):
        [r] = footer.add(t)
    assert r["status"] == "refused" and "ETag" in r["message"], r
    assert _object(spark, t) == other  # the other writer's object stays
    assert _s3_uploads(spark, base) == []  # the refused upload was aborted
    # the same race without the completion's condition: the other writer's object is lost
    _put(spark, t, a)
    with _hadoop(spark, **{"superspark.footer.test.replaceBeforeComplete": base + "/other.parquet",
                           "superspark.footer.conditionalWrite": "false"}):
        [r] = footer.add(t)
    assert r["status"] == "added" and r["replace"] == "server-copy", r
    assert _object(spark, t) == new


@pytest.mark.skipif(STRACE is None, reason="strace is not installed (dev/setup.sh installs it)")
def test_kill_the_server_side_rewrite_old_or_new_and_every_upload_accounted_for(spark, stores, store_jars, tmp_dir):
    """S3 only. `add` of one object through the server-side path, SIGKILLed by strace at its first write to
    the store's socket, at its first part copy's request and at its last write (the completion's request).
    After each kill the object is byte for
    byte the old or the new one, and S3A's own listing of the multipart uploads under the folder shows
    none or the one the killed rewrite started (on the object's key); `uploads --abort-older-than 0s`
    (the command line) aborts exactly that one, and the listing is then empty. A rerun finishes."""
    store_dir = f"s3a://{stores['SUPERSPARK_S3_BUCKET']}/kssc-{uuid.uuid4().hex[:12]}"
    old = _big_parquet(spark, f"{store_dir}/old")
    [name] = _bytes(spark, f"{store_dir}/old")
    _copy_folder(spark, f"{store_dir}/old", f"{store_dir}/clean")
    assert {r["replace"] for r in footer.add(f"{store_dir}/clean")} == {"server-copy"}
    new = _object(spark, f"{store_dir}/clean/{name}")
    ports, trace, points = _traced_add(spark, stores, store_jars, store_dir, tmp_dir)
    assert _object(spark, f"{store_dir}/probe/{name}") == new
    first = {}
    for e in _calls(trace):
        first.setdefault((e["call"], e["n"]), e)
    # the first request, the first part copy (the upload exists: PUT ...?partNumber=1&uploadId=...), the last
    copies = [p for p in points if '"PUT ' in first[p]["line"]]
    assert len(points) >= 3 and copies, (ports, points)
    chosen = [points[0], copies[0], points[-1]]
    seen, reached = collections.Counter(), []
    for i, (call, n) in enumerate(chosen):
        d, point = _killed_add(spark, stores, store_jars, store_dir, tmp_dir, i, call, n, ports)
        reached.append(point)
        got = _object(spark, f"{d}/{name}")
        assert got in (old, new), (call, n, len(got))
        seen["old" if got == old else "new"] += 1
        ups = _s3_uploads(spark, d)
        key = f"{d.split('/', 3)[3]}/{name}"
        assert len(ups) <= 1 and all(k == key for k, _ in ups), (call, n, ups)
        if ups:
            seen["upload left"] += 1
            code, out = cli(stores, store_jars, "uploads", "--abort-older-than", "0s", d)
            assert code == 0 and [(r["status"], r["key"], r["upload_id"]) for r in out] == \
                [("aborted", k, u) for k, u in ups], out
            assert _s3_uploads(spark, d) == []
        [r] = footer.add(d)
        assert r["status"] in ("added", "unchanged"), r
        assert _object(spark, f"{d}/{name}") == new
    print(f"server-side kill test: {len(points)} store writes strace can aim at, every kill reached its point: "
          f"{reached}; after the kills: {dict(seen)}")
    assert seen["upload left"] >= 2, seen  # the kills inside the upload left it, and `uploads` found and aborted it
