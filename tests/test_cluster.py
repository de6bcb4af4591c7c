"""superspark on a real cluster: a standalone master and two workers on loopback, each in its
own JVM, the jar shipped to the executors through ``spark.jars`` (as ``superspark.session``
sets it). Guards against code that only works on the driver (or only in local mode, where
tasks share the driver's JVM and classes).

The driver runs in a subprocess (``_APP`` below), so its SparkContext never shares a Python
process with the ``spark`` fixture of the other tests. Every JVM started here carries a unique
``-Dsuperspark.cluster.test=<token>`` and is checked gone at the end.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import struct
import subprocess
import sys
import textwrap
import time
import urllib.request
import uuid

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

_APP = textwrap.dedent("""
    import json, os, sys, time, uuid
    import pyarrow as pa
    import superspark
    import superspark.arrow as sa
    from superspark import parquet_interceptor as pi
    from pyspark.sql import functions as F

    master, out = sys.argv[1], sys.argv[2]
    t0 = time.monotonic()
    phases = {}
    def phase(name):
        phases[name] = round(time.monotonic() - t0, 1)
    spark = superspark.session("superspark-cluster-test", master=master, **{
        "spark.executor.memory": "512m", "spark.executor.cores": "1", "spark.cores.max": "2",
        "spark.driver.host": "127.0.0.1", "spark.driver.bindAddress": "127.0.0.1",
        "spark.ui.enabled": "false", "spark.sql.shuffle.partitions": "4",
        "spark.executor.extraJavaOptions": "-Dsuperspark.cluster.test=" + os.environ["CLUSTER_TOKEN"],
    })
    sc = spark.sparkContext
    phase("session")
    sc.setLogLevel("ERROR")
    result = {}
    # Both executors registered (driver + 2 in the block manager list), bounded wait.
    deadline = time.time() + 60
    while sc._jsc.sc().getExecutorMemoryStatus().size() < 3 and time.time() < deadline:
        time.sleep(0.5)
    result["executors"] = sc._jsc.sc().getExecutorMemoryStatus().size() - 1
    phase("executors")
    assert superspark.jar_path() in spark.conf.get("spark.jars")

    # 1. bsup write and read, 4 tasks spread over the executors.
    src = spark.range(200).repartition(4).selectExpr(
        "id", "concat('v', id) AS s", "CAST(id AS DOUBLE) / 4 AS d", "array(id, id + 1) AS a")
    src.write.format("bsup").save(out + "/bsup")
    back = spark.read.format("bsup").load(out + "/bsup")
    result["bsup_schema"] = back.schema.simpleString()
    result["bsup_rows"] = sorted(tuple([r.id, r.s, r.d, list(r.a)]) for r in back.collect())

    phase("bsup")
    # 2. sb_decode(sb_encode(x)) evaluated in the executors.
    dec = spark.range(100).repartition(4).selectExpr(
        "id", "sb_decode(sb_encode(named_struct('n', id * 3, 't', concat('x', id))), 'n BIGINT, t STRING') AS v")
    result["sb_decode"] = sorted((r.id, r.v.n, r.v.t) for r in dec.collect())

    phase("sb_decode")
    # 3. Footer write (UUID column), read with scan metrics, to_arrow of the UUID column.
    ids = [uuid.UUID(int=(i * 0x9E3779B97F4A7C15) % (1 << 128)) for i in range(60)]
    df = spark.createDataFrame([(i, u.bytes) for i, u in enumerate(ids)], "i INT, u BINARY")
    df = df.select("i", sa.with_arrow_type("u", pa.uuid())).repartition(3)
    spark.conf.set("spark.superspark.parquet.footer.write", "true")
    df.write.parquet(out + "/pq")
    spark.conf.unset("spark.superspark.parquet.footer.write")
    files = sorted(os.path.join(out, "pq", f) for f in os.listdir(out + "/pq") if f.endswith(".parquet"))
    phase("footer_write")
    from superspark import footer
    result["verify"] = sorted(r["status"] for r in footer.verify(files))
    phase("verify")
    pi.reset_footer_metrics(spark)
    q = spark.read.parquet(out + "/pq").where("i >= 10")
    rows = q.collect()
    result["read_rows"] = sorted([r.i, bytes(r.u) == ids[r.i].bytes] for r in rows)
    result["scan_metrics"] = pi.scan_metrics(q)
    result["footer_totals"] = pi.footer_metrics(spark)
    result["files"] = len(files)
    t = sa.to_arrow(spark.read.parquet(out + "/pq").orderBy("i"))
    result["arrow_type"] = str(t.schema.field("u").type)
    result["arrow_uuids"] = [str(u) for u in t.column("u").to_pylist()] == [str(u) for u in ids]
    phase("read_to_arrow")
    spark.stop()
    phase("stop")
    result["phases"] = phases
    print("RESULT " + json.dumps(result), flush=True)
""")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _pids_with(token: str):
    pids = []
    for p in os.listdir("/proc"):
        if not p.isdigit():
            continue
        try:
            with open(f"/proc/{p}/cmdline", "rb") as f:
                if token.encode() in f.read():
                    pids.append(int(p))
        except OSError:
            pass
    return pids


def _signal_group(p: subprocess.Popen, sig) -> None:
    """Signals the process group of a JVM started here (its own session), if still there."""
    if p.poll() is None:
        try:
            os.killpg(p.pid, sig)
        except ProcessLookupError:
            pass


def _wait(cond, timeout, what):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if cond():
            return
        time.sleep(0.5)
    raise AssertionError(f"timed out after {timeout}s waiting for {what}")


_NO_PROXY = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # loopback, whatever http_proxy says


def _alive_workers(webui: int) -> int:
    try:
        with _NO_PROXY.open(f"http://127.0.0.1:{webui}/json/", timeout=2) as r:
            return int(json.load(r).get("aliveworkers", 0))
    except OSError:
        return -1


@pytest.fixture(scope="module")
def standalone_cluster(tmp_path_factory):
    """A standalone master and two workers (1 core, 1 GiB each) on 127.0.0.1, shared by this
    module's apps (one after the other); yields the master URL and the token its JVMs carry;
    stops them all afterwards."""
    import pyspark

    tmp_path = tmp_path_factory.mktemp("cluster")
    spark_home = os.path.dirname(pyspark.__file__)
    token = uuid.uuid4().hex
    port, webui = _free_port(), _free_port()
    env = dict(os.environ, SPARK_HOME=spark_home, SPARK_LOCAL_IP="127.0.0.1", SPARK_DAEMON_MEMORY="256m",
               SPARK_DAEMON_JAVA_OPTS=f"-Dsuperspark.cluster.test={token}",
               SPARK_LOG_DIR=str(tmp_path / "logs"), PYSPARK_PYTHON=sys.executable)
    spark_class = os.path.join(spark_home, "bin", "spark-class")
    procs, logs = [], []

    def start(name, *args):
        log = open(tmp_path / f"{name}.log", "wb")
        logs.append((name, tmp_path / f"{name}.log", log))
        procs.append(subprocess.Popen([spark_class, *args], env=env, stdout=log, stderr=subprocess.STDOUT,
                                      start_new_session=True))

    def tails():
        return "\n".join(f"--- {n}\n" + p.read_text(errors="replace")[-1500:] for n, p, _ in logs)

    url = f"spark://127.0.0.1:{port}"
    try:
        start("master", "org.apache.spark.deploy.master.Master", "--host", "127.0.0.1", "--port", str(port),
              "--webui-port", str(webui))
        _wait(lambda: _alive_workers(webui) >= 0, 60, "the master")
        for n in (1, 2):
            work = tmp_path / f"work{n}"
            work.mkdir()
            start(f"worker{n}", "org.apache.spark.deploy.worker.Worker", "--host", "127.0.0.1", "--cores", "1",
                  "--memory", "1g", "--webui-port", str(_free_port()), "--work-dir", str(work), url)
        try:
            _wait(lambda: _alive_workers(webui) == 2, 60, "two workers")
        except AssertionError as e:
            raise AssertionError(f"{e}\n{tails()}") from None
        yield url, token, tails, tmp_path
    finally:
        for p in reversed(procs):  # workers first: they stop their executors
            _signal_group(p, signal.SIGTERM)
        for p in reversed(procs):
            try:
                p.wait(timeout=20)
            except subprocess.TimeoutExpired:
                _signal_group(p, signal.SIGKILL)
                p.wait(timeout=10)
        for _, _, f in logs:
            f.close()
        deadline = time.time() + 20
        while _pids_with(token) and time.time() < deadline:
            time.sleep(0.5)
        stray = _pids_with(token)
        for pid in stray:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        assert not stray, f"JVMs left running after the cluster stopped: {stray}"


def _app_env(token):
    env = dict(os.environ, CLUSTER_TOKEN=token, PYSPARK_PYTHON=sys.executable, SPARK_LOCAL_IP="127.0.0.1",
               PYTHONPATH=os.pathsep.join(filter(None, [os.path.join(REPO, "python"), os.environ.get("PYTHONPATH")])))
    env.pop("SPARK_REMOTE", None)
    env.pop("SPARK_CONNECT_MODE_ENABLED", None)
    return env


def _run_app(app, url, token, tails, out):
    """Runs a driver program (`app`) against the cluster; its RESULT line, parsed."""
    r = subprocess.run([sys.executable, "-c", app, url, str(out)], env=_app_env(token), capture_output=True,
                       text=True, timeout=240)
    lines = [ln for ln in r.stdout.splitlines() if ln.startswith("RESULT ")]
    assert r.returncode == 0 and lines, (r.returncode, r.stderr[-3000:], tails())
    return json.loads(lines[0][len("RESULT "):])


def test_superspark_on_a_standalone_cluster(standalone_cluster, tmp_path):
    url, token, tails, cluster_dir = standalone_cluster
    apps_before = set(cluster_dir.glob("work*/app-*"))
    began = time.monotonic()
    out = tmp_path / "data"
    out.mkdir()
    res = _run_app(_APP, url, token, tails, out)
    print(f"cluster app: {time.monotonic() - began:.1f}s, phases (s since start): {res['phases']}")

    assert res["executors"] == 2
    # Each executor fetched the jar from the driver (spark.jars) into its work directory.
    shipped = sorted(str(p.relative_to(cluster_dir)).split(os.sep)[0]
                     for p in cluster_dir.glob("work*/app-*/*/superspark-spark*_2.13-*.jar")
                     if p.parent.parent not in apps_before)
    assert shipped == ["work1", "work2"], shipped
    assert res["bsup_schema"] == "struct<id:bigint,s:string,d:double,a:array<bigint>>"
    assert res["bsup_rows"] == [[i, f"v{i}", i / 4, [i, i + 1]] for i in range(200)]
    assert res["sb_decode"] == [[i, i * 3, f"x{i}"] for i in range(100)]
    assert res["files"] == 3 and res["verify"] == ["valid"] * 3
    assert res["read_rows"] == [[i, True] for i in range(10, 60)]
    m = res["scan_metrics"]
    assert m["footers_flatbuffer"] == 3 and m["footers_thrift"] == 0 and m["fallbacks"] == 0 and m["decode_ns"] > 0
    # The driver-wide totals got the executors' counts (schema inference: one more footer).
    assert res["footer_totals"]["footers_flatbuffer"] == 4
    assert res["arrow_type"] == "extension<arrow.uuid>" and res["arrow_uuids"] is True


_EVERY_WRITER_APP = textwrap.dedent("""
    import json, os, sys
    import superspark
    from superspark import parquet_interceptor as pi

    master, out = sys.argv[1], sys.argv[2]
    spark = superspark.session("superspark-cluster-every-writer", master=master, **{
        "spark.superspark.parquet.footer.everyWriter": "true",
        "spark.executor.memory": "512m", "spark.executor.cores": "1", "spark.cores.max": "2",
        "spark.driver.host": "127.0.0.1", "spark.driver.bindAddress": "127.0.0.1",
        "spark.ui.enabled": "false", "spark.sql.shuffle.partitions": "4",
        "spark.executor.extraJavaOptions": "-Dsuperspark.cluster.test=" + os.environ["CLUSTER_TOKEN"],
    })
    spark.sparkContext.setLogLevel("ERROR")
    pi.reset_every_writer_counts(spark)
    # Spark's own Parquet writer with superspark's footer write off: the tasks' file system adds it
    spark.range(400).repartition(4).selectExpr("id", "concat('v', id) AS s").write.parquet(out + "/pq")
    stage_counts = pi.every_writer_stage_counts(spark)
    query_counts = [e["counts"] for e in pi.every_writer_query_counts(spark)]
    hosts = {r.h for r in spark.range(0, 8, 1, 8).selectExpr("reflect('java.lang.ProcessHandle', 'current') AS h").collect()}
    result = {"driver_counts": pi.every_writer_counts(spark, jvm=True), "app_counts": pi.every_writer_counts(spark),
              "rows": sorted(r.id for r in spark.read.parquet(out + "/pq").collect()),
              "task_jvms": len(hosts), "stage_counts": stage_counts, "query_counts": query_counts}
    # Structured Streaming's file sink: one micro-batch over two input files (two tasks)
    os.makedirs(out + "/in")
    for b in range(2):
        with open(out + f"/in/{b}.json", "w") as f:
            f.write("\\n".join(json.dumps({"id": i}) for i in range(b * 50, b * 50 + 50)))
    seen = max([e["execution"] for e in pi.every_writer_query_counts(spark)], default=-1)
    (spark.readStream.schema("id long").json(out + "/in").writeStream.format("parquet")
     .option("checkpointLocation", out + "/ckpt").trigger(availableNow=True).start(out + "/stream")
     .awaitTermination(120))
    result["stream_counts"] = [e["counts"] for e in pi.every_writer_query_counts(spark) if e["execution"] > seen]
    result["stream_files"] = sorted(f for f in os.listdir(out + "/stream") if f.endswith(".parquet"))
    result["stream_rows"] = sorted(r.id for r in spark.read.parquet(out + "/stream").collect())
    spark.stop()
    print("RESULT " + json.dumps(result), flush=True)
""")


def test_every_writer_on_a_standalone_cluster(standalone_cluster, tmp_path):
    """spark.superspark.parquet.footer.everyWriter on a cluster: the executors' file systems add the
    footer (the driver wrote none of the files), each file verifies valid with the command line, and
    the application's counts on the driver hold the executors' files, as do the SQL metrics of a
    write command and of a streaming micro-batch."""
    url, token, tails, _ = standalone_cluster
    out = tmp_path / "data"
    out.mkdir()
    res = _run_app(_EVERY_WRITER_APP, url, token, tails, out)
    assert res["rows"] == list(range(400))
    assert res["task_jvms"] == 2, "the tasks ran in the two executors"
    assert res["driver_counts"]["extended"] == 0, "the driver wrote no data file"
    # the executors' counts reached the driver (EveryWriterPlugin, added by superspark.session)
    assert res["app_counts"]["extended"] == 4, res["app_counts"]
    assert res["app_counts"]["heldBytesPeak"] > 0, res["app_counts"]
    # the write metrics: the executors' tasks added their files to the accumulators of the one stage that wrote them
    assert [s["counts"] for s in res["stage_counts"]] == [{"extended": 4}], res["stage_counts"]
    # the SQL metrics of the write command (its plan's EveryWriterFooter node): the executors' tasks added their files
    assert res["query_counts"] == [{"extended": 4}], res["query_counts"]
    # a streaming micro-batch's SQL metrics (its plan's EveryWriterFooter node): the executors' tasks counted its files
    assert res["stream_rows"] == list(range(100))
    assert res["stream_files"], res
    assert res["stream_counts"] == [{"extended": len(res["stream_files"])}], (res["stream_counts"], res["stream_files"])
    files = sorted(str(p) for p in (out / "pq").glob("*.parquet"))
    assert len(files) == 4
    v = subprocess.run([sys.executable, "-m", "superspark.footer", "verify", "--json", *files],
                       capture_output=True, text=True, env=_app_env(token))
    assert [x["status"] for x in json.loads(v.stdout)] == ["valid"] * 4, v.stdout + v.stderr


_PACKING_APP = textwrap.dedent("""
    import json, os, sys
    import superspark
    from pyspark.sql import functions as F

    master, out = sys.argv[1], sys.argv[2]
    spark = superspark.session("superspark-cluster-packing", master=master, **{
        "spark.executor.memory": "512m", "spark.executor.cores": "1", "spark.cores.max": "2",
        "spark.driver.host": "127.0.0.1", "spark.driver.bindAddress": "127.0.0.1",
        "spark.ui.enabled": "false", "spark.sql.shuffle.partitions": "4",
        "spark.executor.extraJavaOptions": "-Dsuperspark.cluster.test=" + os.environ["CLUSTER_TOKEN"],
    })
    spark.sparkContext.setLogLevel("ERROR")
    # 8 files of 400 columns and 3 rows each, with the footer: the footers are most of each file
    df = spark.range(0, 24, 1, 8).select(F.col("id"), *[(F.col("id") * i).alias(f"c{i}") for i in range(1, 400)])
    spark.conf.set("spark.superspark.parquet.footer.write", "true")
    df.write.parquet(out + "/pq")
    spark.conf.unset("spark.superspark.parquet.footer.write")
    files = sorted(f for f in os.listdir(out + "/pq") if f.endswith(".parquet"))
    lengths = {f: os.path.getsize(os.path.join(out, "pq", f)) for f in files}
    spark.conf.set("spark.sql.files.maxPartitionBytes", str(max(lengths.values()) + 1))
    spark.conf.set("spark.sql.files.openCostInBytes", "1024")
    def tasks():
        rows = spark.read.parquet(out + "/pq").select(
            F.spark_partition_id().alias("t"), F.input_file_name().alias("f"), "id", "c7").collect()
        by = {}
        for r in rows:
            by.setdefault(r.t, set()).add(r.f.rsplit("/", 1)[-1])
        return sorted(sorted(v) for v in by.values()), sorted((r.id, r.c7) for r in rows)
    cold, cold_rows = tasks()
    warm, warm_rows = tasks()
    result = {"files": files, "lengths": lengths, "cold": cold, "warm": warm,
              "same_rows": cold_rows == warm_rows, "rows": len(warm_rows),
              "parallelism": spark.sparkContext.defaultParallelism}
    spark.stop()
    print("RESULT " + json.dumps(result), flush=True)
""")


def test_split_packing_on_a_standalone_cluster(standalone_cluster, tmp_path):
    """spark.superspark.parquet.footer.cache.packSplits on a cluster: the executors cache the footers
    of the first scan and report their data ends to the driver, which packs the second scan's splits
    by them (the driver's own cache holds none of these footers)."""
    url, token, tails, _ = standalone_cluster
    out = tmp_path / "data"
    out.mkdir()
    res = _run_app(_PACKING_APP, url, token, tails, out)
    files, lengths = res["files"], res["lengths"]
    assert len(files) == 8 and res["rows"] == 24 and res["same_rows"]

    def data_end(name):  # from the file's own last 8 bytes: the footer's length
        with open(out / "pq" / name, "rb") as f:
            f.seek(-8, os.SEEK_END)
            return lengths[name] - 8 - struct.unpack("<i", f.read(4))[0]

    data = {f: data_end(f) for f in files}
    assert all(data[f] * 3 < lengths[f] for f in files), (data, lengths)
    # the first scan: Spark's own partitions, one file each (two exceed maxPartitionBytes)
    assert res["cold"] == [[f] for f in files], res["cold"]
    # the second: packed by the data the tasks read, each file read once, within Spark's split
    # size computed over those bytes
    warm = res["warm"]
    assert len(warm) < len(files), warm
    assert sorted(f for t in warm for f in t) == files
    open_cost = 1024
    max_split = min(max(lengths.values()) + 1,
                    max(open_cost, (sum(data.values()) + len(files) * open_cost) // res["parallelism"]))
    assert all(sum(data[f] + open_cost for f in t) <= max_split for t in warm), (warm, data, max_split)
