"""Parquet footer interceptor (issue 6): Spark writes and reads the FlatBuffers footer.

Results are compared with Spark's own Parquet code path: the same session with
``spark.superspark.parquet.footer.read=false`` (FooterParquetFileFormat then runs
ParquetFileFormat's code unchanged), a plain SparkSession without superspark (subprocess),
pyarrow and DuckDB.
"""

import datetime
import decimal
import glob
import json
import os
import subprocess
import sys
import time
import uuid
from contextlib import contextmanager

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from pyspark.errors import AnalysisException
from pyspark.sql import Row
from pyspark.sql import types as T

import superspark
import superspark.arrow
from superspark import footer
from superspark import parquet_interceptor as pi

WRITE = "spark.superspark.parquet.footer.write"
READ = "spark.superspark.parquet.footer.read"
STRICT = "spark.superspark.parquet.footer.strict"

# A Spark Connect client created earlier in this pytest process (tests/test_foundation.py)
# leaves SPARK_CONNECT_MODE_ENABLED set, which makes pyspark build Connect columns for the
# classic session; these tests use the classic session only.
_CONNECT_ENV = ("SPARK_CONNECT_MODE_ENABLED", "SPARK_REMOTE", "SPARK_LOCAL_REMOTE")


@pytest.fixture(autouse=True)
def classic_only(monkeypatch):
    for k in _CONNECT_ENV:
        monkeypatch.delenv(k, raising=False)


@contextmanager
def conf(spark, **settings):
    keys = {k.replace("__", "."): v for k, v in settings.items()}
    old = {k: spark.conf.get(k, None) for k in keys}
    for k, v in keys.items():
        spark.conf.set(k, v)
    try:
        yield
    finally:
        for k, v in old.items():
            if v is None:
                spark.conf.unset(k)
            else:
                spark.conf.set(k, v)


def write_on(spark):
    return conf(spark, **{WRITE.replace(".", "__"): "true"})


def read_off(spark):
    return conf(spark, **{READ.replace(".", "__"): "false"})


def parquet_files(path):
    return sorted(glob.glob(os.path.join(path, "**", "*.parquet"), recursive=True))


def extensions(path):
    return [r["extension"] for r in footer.inspect(*parquet_files(path))]


def rows(df):
    return sorted(df.collect(), key=repr)


def typed_frame(spark, n=300):
    return spark.range(n).selectExpr(
        "id",
        "cast(id % 7 as int) AS i",
        "cast(id % 5 as tinyint) AS b",
        "cast(id % 11 as smallint) AS sh",
        "id * 1.5d AS d",
        "cast(id as float) / 4 AS f",
        "cast(id as decimal(20, 3)) / 8 AS dec",
        "id % 2 = 0 AS flag",
        "CASE WHEN id % 9 = 0 THEN NULL ELSE concat('s', id) END AS s",
        "cast(concat('b', id) as binary) AS bin",
        "date_add(DATE'2020-01-01', cast(id as int)) AS dt",
        "timestamp_micros(1600000000000000 + id * 1000003) AS ts",
        "array(id, id + 1) AS arr",
        "map(concat('k', id % 3), id) AS m",
        "named_struct('a', id, 'b', named_struct('c', concat('x', id), 'e', array(id))) AS st",
        "cast(id % 4 as int) AS part",
    )


def test_write_adds_extension_and_read_uses_it(spark, tmp_dir):
    df = typed_frame(spark)
    path = os.path.join(tmp_dir, "t")
    with write_on(spark):
        df.write.partitionBy("part").parquet(path)
    assert len(parquet_files(path)) >= 4
    assert all(extensions(path))

    pi.reset_footer_metrics(spark)
    ours = spark.read.parquet(path)
    got = rows(ours)
    m = pi.footer_metrics(spark)
    assert m["footers_flatbuffer"] >= len(parquet_files(path)) + 1  # inference + scan
    assert m["footers_thrift"] == 0 and m["fallbacks"] == 0 and m["decode_ns"] > 0

    with read_off(spark):
        pi.reset_footer_metrics(spark)
        vanilla = spark.read.parquet(path)
        assert vanilla.schema == ours.schema
        assert rows(vanilla) == got
        assert pi.footer_metrics(spark)["footers_flatbuffer"] == 0
    assert len(got) == 300
    assert got == rows(df.select(*ours.columns))


def test_write_off_by_default_and_thrift_files_counted(spark, tmp_dir):
    path = os.path.join(tmp_dir, "plain")
    spark.range(50).selectExpr("id", "id * 2 AS y").write.parquet(path)
    assert not any(extensions(path))
    pi.reset_footer_metrics(spark)
    assert spark.read.parquet(path).where("y > 10").count() == 44
    m = pi.footer_metrics(spark)
    assert m["footers_flatbuffer"] == 0 and m["footers_thrift"] >= 1 and m["fallbacks"] == 0


# Queries over typed_frame: projection, filters (pushdown and row-group pruning by
# statistics), nested columns, partitions, aggregates, case-insensitive names.
QUERIES = [
    lambda t: t.select("id", "s").where("id BETWEEN 100 AND 180"),
    lambda t: t.where("s = 's77' OR dt < DATE'2020-01-10'").select("id", "dt", "st.b.c"),
    lambda t: t.where("part = 2 AND d > 3000").select("id", "m", "arr"),
    lambda t: t.groupBy("part").agg({"dec": "sum", "f": "max", "ts": "min"}),
    lambda t: t.where("flag").select("st", "bin", "sh", "b"),
    lambda t: t.select("ID", "S").where("Id < 5"),
    lambda t: t.where("st.a > 2990 OR i = 3 AND ts > TIMESTAMP'2020-09-13 12:30:00'"),
]


@pytest.mark.parametrize("vectorized", ["true", "false"])
def test_queries_match_spark(spark, tmp_dir, vectorized):
    """Projection, filters (pushdown + row-group pruning by statistics), nested columns,
    partitions, aggregates: identical to Spark's own path, on both readers."""
    path = os.path.join(tmp_dir, "q")
    with write_on(spark), conf(spark, **{"parquet__block__size": "4096"}):
        typed_frame(spark, 3000).repartition(3).write.partitionBy("part").parquet(path)
    files = parquet_files(path)
    assert max(pq.ParquetFile(f).num_row_groups for f in files) > 1
    with conf(spark, **{"spark__sql__parquet__enableVectorizedReader": vectorized}):
        pi.reset_footer_metrics(spark)
        ours = [rows(q(spark.read.parquet(path))) for q in QUERIES]
        assert pi.footer_metrics(spark)["footers_flatbuffer"] > 0
        with read_off(spark):
            theirs = [rows(q(spark.read.parquet(path))) for q in QUERIES]
    assert ours == theirs
    assert len(ours[0]) == 81 and all(len(r) > 0 for r in ours)


def test_merge_schema_matches_spark(spark, tmp_dir):
    path = os.path.join(tmp_dir, "merge")
    with write_on(spark):
        spark.range(5).selectExpr("id", "id AS a").write.parquet(os.path.join(path, "k=1"))
        spark.range(5).selectExpr("id", "cast(id as string) AS b").write.parquet(os.path.join(path, "k=2"))
    reader = spark.read.option("mergeSchema", "true")
    pi.reset_footer_metrics(spark)
    ours = reader.parquet(path)
    assert pi.footer_metrics(spark)["footers_flatbuffer"] >= 2
    assert ours.schema.fieldNames() == ["id", "a", "b", "k"]
    with read_off(spark):
        vanilla = reader.parquet(path)
        assert vanilla.schema == ours.schema
        assert rows(vanilla) == rows(ours)


def test_catalog_writes_carry_extension(spark, tmp_dir):
    """saveAsTable, INSERT, partitioned INSERT and dynamic partition overwrite."""
    loc = os.path.join(tmp_dir, "tables")
    with write_on(spark):
        try:
            spark.range(10).selectExpr("id", "id % 2 AS p").write.option("path", loc + "/ctas").saveAsTable("ic_ctas")
            spark.sql(f"CREATE TABLE ic_part (id BIGINT, s STRING, p INT) USING parquet PARTITIONED BY (p) "
                      f"LOCATION '{loc}/part'")
            spark.sql("INSERT INTO ic_part SELECT id, cast(id as string), cast(id % 3 as int) FROM range(9)")
            with conf(spark, **{"spark__sql__sources__partitionOverwriteMode": "dynamic"}):
                spark.sql("INSERT OVERWRITE TABLE ic_part PARTITION (p) SELECT id, 'new', 1 FROM range(2)")
            spark.sql("INSERT INTO ic_ctas SELECT 100, 0")
            for d in ["ctas", "part"]:
                assert parquet_files(f"{loc}/{d}") and all(extensions(f"{loc}/{d}"))
            pi.reset_footer_metrics(spark)
            got = rows(spark.table("ic_part"))
            assert pi.footer_metrics(spark)["footers_flatbuffer"] >= 3
            assert got == sorted([Row(id=i, s=str(i), p=i % 3) for i in range(9) if i % 3 != 1]
                                 + [Row(id=0, s="new", p=1), Row(id=1, s="new", p=1)], key=repr)
            assert spark.table("ic_ctas").count() == 11
        finally:
            spark.sql("DROP TABLE IF EXISTS ic_ctas")
            spark.sql("DROP TABLE IF EXISTS ic_part")


def test_dynamic_partition_pruning_keeps_scan_metrics(spark, tmp_dir):
    """A partitioned catalog table joined with a filtered dimension: dynamic partition pruning
    rewrites the scan (and AQE re-plans it); the scan node keeps its footer SQL metrics and
    decodes only the footers of the partition left."""
    loc = os.path.join(tmp_dir, "dpp")
    q = "SELECT f.p, count(*) AS c FROM dpp_fact f JOIN dpp_dim d ON f.p = d.p WHERE d.v = 6 GROUP BY f.p"
    try:
        with write_on(spark):
            spark.range(1000).selectExpr("id", "id % 10 AS p").repartition(2, "id").write \
                .partitionBy("p").option("path", loc + "/fact").saveAsTable("dpp_fact")
            spark.range(10).selectExpr("id AS p", "id * 2 AS v").coalesce(1).write \
                .option("path", loc + "/dim").saveAsTable("dpp_dim")
        df = spark.sql(q)
        assert df.collect() == [Row(p=3, c=100)]
        assert "dynamicpruning" in df._jdf.queryExecution().executedPlan().toString().lower()
        m = pi.scan_metrics(df)
        fact_p3 = len(parquet_files(loc + "/fact/p=3"))
        assert fact_p3 == 2
        assert (m["footers_flatbuffer"], m["footers_thrift"], m["fallbacks"]) == (fact_p3 + 1, 0, 0)
        with read_off(spark):
            assert spark.sql(q).collect() == [Row(p=3, c=100)]
    finally:
        spark.sql("DROP TABLE IF EXISTS dpp_fact")
        spark.sql("DROP TABLE IF EXISTS dpp_dim")


VANILLA_READ = """
import json, sys
from pyspark.sql import SparkSession
s = SparkSession.builder.master("local[1]").config("spark.ui.enabled", "false").getOrCreate()
df = s.read.parquet(sys.argv[1])
print(json.dumps(sorted([json.dumps(r.asDict(recursive=True), default=str, sort_keys=True) for r in df.collect()])))
"""


def test_extension_files_read_by_other_readers(spark, tmp_dir):
    path = os.path.join(tmp_dir, "other")
    df = spark.range(40).selectExpr("id", "concat('v', id) AS s", "array(id) AS a", "named_struct('x', id) AS st")
    with write_on(spark):
        df.coalesce(2).write.parquet(path)
    assert all(extensions(path))
    expected = sorted(json.dumps(r.asDict(recursive=True), default=str, sort_keys=True) for r in df.collect())
    env = {k: v for k, v in os.environ.items() if k not in _CONNECT_ENV and k != "PYSPARK_SUBMIT_ARGS"}
    out = subprocess.run([sys.executable, "-c", VANILLA_READ, path], capture_output=True, text=True, timeout=300,
                         env=env)
    assert out.returncode == 0, out.stderr[-2000:]
    assert json.loads(out.stdout.strip().splitlines()[-1]) == expected
    table = pq.read_table(path)
    assert sorted(table.column("id").to_pylist()) == list(range(40))
    con = duckdb.connect()
    got = con.execute(f"SELECT count(*), sum(id), max(s), sum(st.x) FROM read_parquet('{path}/*.parquet')").fetchone()
    assert got == (40, 780, "v9", 780)


def flip_flatbuffer_byte(path):
    info = footer.inspect(path)[0]
    at = info["file_bytes"] - 8 - 1 - 28 - info["flatbuffer_bytes"] // 2
    with open(path, "r+b") as f:
        f.seek(at)
        b = f.read(1)
        f.seek(at)
        f.write(bytes([b[0] ^ 0x5A]))
    # The local file system's checksum sidecar would report the flip before any Parquet code.
    crc = os.path.join(os.path.dirname(path), "." + os.path.basename(path) + ".crc")
    if os.path.exists(crc):
        os.remove(crc)


def test_damaged_extension_falls_back_and_is_counted(spark, tmp_dir):
    path = os.path.join(tmp_dir, "damaged")
    with write_on(spark):
        spark.range(100).selectExpr("id", "id % 10 AS g").repartition(2).write.parquet(path)
    files = parquet_files(path)
    # Expected: vanilla Spark's read (the interceptor off), an independent path.
    with read_off(spark):
        expected = rows(spark.read.parquet(path).where("g = 3"))
    assert len(expected) == 10
    flip_flatbuffer_byte(files[0])
    assert footer.inspect(files[0])[0]["flatbuffer_crc"] != "ok"
    pi.reset_footer_metrics(spark)
    assert rows(spark.read.parquet(path).where("g = 3")) == expected
    m = pi.footer_metrics(spark)
    assert m["fallbacks"] >= 1 and m["footers_thrift"] == m["fallbacks"] and m["footers_flatbuffer"] >= 1
    # The scan node's SQL metrics count exactly this scan: one damaged file, one sound one.
    scan = spark.read.parquet(path).where("g = 3")
    assert rows(scan) == expected
    s = pi.scan_metrics(scan)
    assert (s["footers_flatbuffer"], s["footers_thrift"], s["fallbacks"]) == (1, 1, 1)
    assert s["decode_ns"] > 0
    assert_strict_fails(spark, files[0])


def test_footer_cache_serves_the_second_query_and_never_a_changed_file(spark, tmp_dir):
    """Issue 24: the second query over the same files reads no footer (driver totals, schema
    inference included), only the tail check's last 64 bytes of each file (issue 31: local
    files have no ETag); a file rewritten in place is read again."""
    path = os.path.join(tmp_dir, "cached")
    with write_on(spark):
        spark.range(200).selectExpr("id", "id % 10 AS g").repartition(2).write.parquet(path)
    with read_off(spark):
        expected = rows(spark.read.parquet(path).where("g = 3"))
    assert len(expected) == 20
    pi.clear_footer_cache(spark)
    assert rows(spark.read.parquet(path).where("g = 3")) == expected  # fills the cache
    pi.reset_footer_metrics(spark)
    assert rows(spark.read.parquet(path).where("g = 3")) == expected
    m = pi.footer_cache_metrics(spark)
    # inference (1 footer) and the scan (2 footers): all hits, each reading the 64-byte tail only
    assert (m["cache_hits"], m["cache_misses"], m["bytes_read"]) == (3, 0, 3 * 64)
    assert m["entries"] == 2 and m["held_bytes"] > 0
    # the other table's file bytes, in place of the first file: its footer is read again
    other = os.path.join(tmp_dir, "other")
    with write_on(spark):
        spark.range(1000, 1100).selectExpr("id", "id % 10 AS g").coalesce(1).write.parquet(other)
    target, kept = parquet_files(path)
    with read_off(spark):
        kept_ids = [r.id for r in spark.read.parquet(kept).where("g = 3").collect()]
    assert len(kept_ids) == 10
    with open(parquet_files(other)[0], "rb") as src, open(target, "wb") as dst:
        dst.write(src.read())
    crc = os.path.join(os.path.dirname(target), "." + os.path.basename(target) + ".crc")
    if os.path.exists(crc):
        os.remove(crc)
    spark.catalog.refreshByPath(path)
    pi.reset_footer_metrics(spark)
    got = sorted(r.id for r in spark.read.parquet(path).where("g = 3").collect())
    assert got == sorted(kept_ids + list(range(1003, 1100, 10)))
    assert pi.footer_cache_metrics(spark)["cache_misses"] >= 1


def assert_strict_fails(spark, damaged_file):
    """With the strict config, reading a file whose extension is damaged fails, naming it."""
    with conf(spark, **{STRICT.replace(".", "__"): "true"}):
        with pytest.raises(Exception) as e:
            spark.read.parquet(damaged_file).collect()
        assert os.path.basename(damaged_file) in str(e.value)
        assert "crc" in str(e.value).lower()


def test_task_failure_leaves_no_file_with_half_footer(spark, tmp_dir):
    path = os.path.join(tmp_dir, "fail")
    # assert_true's own type is VOID, which Spark 4.0's Parquet writer refuses before any task
    # runs: as an INT column the write starts on every line and fails in the tasks.
    df = spark.range(0, 4000, 1, 4).selectExpr("id", "CAST(assert_true(id < 3500) AS INT) AS ok")
    # The assertion's text: "'(id < 3500)' is not true!", on 4.0 "'(id#24L < cast(3500 as bigint))' ...".
    with write_on(spark), pytest.raises(Exception, match=r"USER_RAISED_EXCEPTION.*id.* < .*3500.*is not true"):
        df.write.parquet(path)
    # Spark's commit protocol removes the failed job's files. A task still being cancelled
    # while the job aborts may leave a file behind (as in vanilla Spark), but never one with a
    # half-written footer: either no footer at all, or a whole footer with a sound extension.
    time.sleep(1)
    for f in parquet_files(path):
        with open(f, "rb") as fh:
            fh.seek(max(0, os.path.getsize(f) - 4))
            if fh.read(4) != b"PAR1":
                continue
        pq.read_metadata(f)
        info = footer.inspect(f)[0]
        assert info["extension"] and info["flatbuffer_crc"] == "ok", info
    assert not glob.glob(os.path.join(path, "*.parquet"))  # nothing was committed


def uuid_table(n=5):
    ids = [uuid.UUID(int=(i * 0x1234567890ABCDEF123) % (1 << 128)) for i in range(n)]
    return ids, pa.table({"u": pa.array([u.bytes for u in ids], pa.uuid()), "x": pa.array(range(n), pa.int64())})


def test_uuid_from_pyarrow_reads_and_round_trips(spark, tmp_dir):
    ids, table = uuid_table()
    src = os.path.join(tmp_dir, "u.parquet")
    pq.write_table(table, src)
    with read_off(spark):
        with pytest.raises(Exception, match="PARQUET_TYPE_ILLEGAL"):
            spark.read.parquet(src).select("x").collect()
    df = spark.read.parquet(src)
    f = df.schema["u"]
    assert f.dataType == T.BinaryType() and f.metadata["arrow.extension.name"] == "arrow.uuid"
    assert [bytes(r.u) for r in df.orderBy("x").collect()] == [u.bytes for u in ids]
    assert spark.read.parquet(src).select("x").where("x > 2").count() == 2

    out = os.path.join(tmp_dir, "u_out")
    df.write.parquet(out)
    back = pq.read_table(out)
    assert back.schema.field("u").type == pa.uuid()
    assert sorted(back.column("u").to_pylist()) == sorted(ids)
    assert str(pq.ParquetFile(parquet_files(out)[0]).schema.column(0).logical_type) == "UUID"

    arrow = superspark.arrow.to_arrow(df.orderBy("x"))
    assert arrow.schema.field("u").type == pa.uuid()
    assert arrow.column("u").to_pylist() == ids


def test_uuid_from_duckdb_reads(spark, tmp_dir):
    src = os.path.join(tmp_dir, "duck.parquet")
    duckdb.connect().execute(
        f"COPY (SELECT i AS x, printf('00000000-0000-4000-8000-%012d', i)::UUID AS u "
        f"FROM range(4) t(i)) TO '{src}' (FORMAT parquet)")
    df = spark.read.parquet(src)
    assert df.schema["u"].metadata["arrow.extension.name"] == "arrow.uuid"
    got = [uuid.UUID(bytes=bytes(r.u)) for r in df.orderBy("x").collect()]
    assert got == [uuid.UUID(f"00000000-0000-4000-8000-{i:012d}") for i in range(4)]


def test_json_tag_round_trips(spark, tmp_dir):
    src = os.path.join(tmp_dir, "j.parquet")
    pq.write_table(pa.table({"j": pa.array(['{"a": 1}', "[2]", None], pa.json_())}), src)
    df = spark.read.parquet(src)
    assert df.schema["j"].dataType == T.StringType()
    assert df.schema["j"].metadata["arrow.extension.name"] == "arrow.json"
    assert sorted(r.j for r in df.collect() if r.j) == ['[2]', '{"a": 1}']
    out = os.path.join(tmp_dir, "j_out")
    df.write.parquet(out)
    assert str(pq.ParquetFile(parquet_files(out)[0]).schema.column(0).logical_type) == "JSON"


def test_uuid_column_written_from_tagged_binary(spark, tmp_dir):
    md = {"arrow.extension.name": "arrow.uuid"}
    schema = T.StructType([T.StructField("u", T.BinaryType(), True, md), T.StructField("n", T.LongType())])
    good = spark.createDataFrame([(uuid.UUID(int=7).bytes, 1), (None, 2)], schema)
    out = os.path.join(tmp_dir, "tagged")
    with write_on(spark):
        good.write.parquet(out)
    assert all(extensions(out))
    assert pq.read_table(out).schema.field("u").type == pa.uuid()
    bad = spark.createDataFrame([(b"short", 1)], schema)
    with pytest.raises(Exception, match="16 bytes"):
        bad.write.parquet(os.path.join(tmp_dir, "bad"))


def test_read_path_off_is_spark(spark, tmp_dir):
    path = os.path.join(tmp_dir, "off")
    with write_on(spark):
        spark.range(10).write.parquet(path)
    with read_off(spark):
        pi.reset_footer_metrics(spark)
        assert spark.read.parquet(path).count() == 10
        assert pi.footer_metrics(spark) == {"footers_flatbuffer": 0, "footers_thrift": 0, "fallbacks": 0,
                                            "decode_ns": 0}


def test_not_a_parquet_file_gets_sparks_error(spark, tmp_dir):
    bad = os.path.join(tmp_dir, "bad.parquet")
    with open(bad, "wb") as f:
        f.write(b"PAR1 this is not parquet at all")
    with pytest.raises(Exception) as ours:
        spark.read.parquet(bad).collect()
    with read_off(spark), pytest.raises(Exception) as theirs:
        spark.read.parquet(bad).collect()
    assert type(ours.value) is type(theirs.value)


def nested_uuid_table():
    ids = [uuid.UUID(int=i * 7919 + 1) for i in range(6)]
    u = lambda xs: pa.ExtensionArray.from_storage(pa.uuid(), pa.array([x.bytes for x in xs], pa.binary(16)))
    lists = pa.ListArray.from_arrays(pa.array([0, 2, 2, 3], pa.int32()), u(ids[:3]))
    maps = pa.MapArray.from_arrays(pa.array([0, 1, 1, 2], pa.int32()), pa.array(["a", "b"]), u(ids[3:5]))
    docs = pa.ExtensionArray.from_storage(pa.json_(), pa.array(['{"k": 1}', None, "[3]"]))
    structs = pa.StructArray.from_arrays([docs, pa.array([1, 2, 3], pa.int32())], ["doc", "n"])
    return ids, pa.table({"x": pa.array([0, 1, 2], pa.int64()), "ids": lists, "m": maps, "s": structs})


def test_nested_uuid_and_json_from_pyarrow_round_trip(spark, tmp_dir):
    """list<uuid>, map<string, uuid> and struct<doc: json> from pyarrow: Spark reads them tagged
    by Arrow path, to_arrow gives pyarrow's types back, and Spark writes the logical types."""
    ids, table = nested_uuid_table()
    src = os.path.join(tmp_dir, "nested.parquet")
    pq.write_table(table, src)
    df = spark.read.parquet(src).orderBy("x")
    nested = {f.name: json.loads(f.metadata["arrow.extension.nested"]) for f in df.schema.fields[1:]}
    assert nested == {"ids": [{"path": ["element"], "name": "arrow.uuid", "metadata": ""}],
                      "m": [{"path": ["value"], "name": "arrow.uuid", "metadata": ""}],
                      "s": [{"path": ["doc"], "name": "arrow.json", "metadata": ""}]}
    got = df.collect()
    assert [[uuid.UUID(bytes=bytes(b)) for b in r.ids] for r in got] == [ids[:2], [], ids[2:3]]

    arrow = superspark.arrow.to_arrow(df)
    assert arrow.schema.field("ids").type.value_type == pa.uuid()
    assert arrow.schema.field("m").type.item_type == pa.uuid()
    assert arrow.schema.field("s").type.field("doc").type == pa.json_()
    for name in ("ids", "m", "s"):
        assert arrow.column(name).to_pylist() == table.column(name).to_pylist()

    out = os.path.join(tmp_dir, "nested_out")
    with write_on(spark):
        df.write.parquet(out)
    assert all(extensions(out))
    back = pq.read_table(out).sort_by("x")
    assert back.schema.field("ids").type.value_type == pa.uuid()
    assert back.schema.field("m").type.item_type == pa.uuid()
    assert back.schema.field("s").type.field("doc").type == pa.json_()
    for name in ("ids", "m", "s"):
        assert back.column(name).to_pylist() == table.column(name).to_pylist()
    # and Spark reads its own file with the same tags
    assert spark.read.parquet(out).schema == df.schema


def test_nested_uuid_of_wrong_length_is_refused(spark, tmp_dir):
    md = {"arrow.extension.nested": json.dumps([{"path": ["element"], "name": "arrow.uuid", "metadata": ""}])}
    schema = T.StructType([T.StructField("ids", T.ArrayType(T.BinaryType()), True, md)])
    bad = spark.createDataFrame([([uuid.UUID(int=1).bytes, b"short"],)], schema)
    with pytest.raises(Exception, match=r"column ids\.list\.element .*5-byte value; a UUID is 16 bytes"):
        bad.write.parquet(os.path.join(tmp_dir, "bad_nested"))


def test_uuid_files_read_with_the_row_based_reader(spark, tmp_dir):
    """parquet-java's record reader gets the interceptor's footer (it reads none itself); its
    file schema reaches Spark's converter without the UUID annotations, so the row-based reader
    reads UUID files (top level and nested) as the vectorized one does."""
    ids, table = nested_uuid_table()
    src = os.path.join(tmp_dir, "rows.parquet")
    pq.write_table(table.append_column("u", pa.ExtensionArray.from_storage(
        pa.uuid(), pa.array([i.bytes for i in ids[:3]], pa.binary(16)))), src)
    vectorized = rows(spark.read.parquet(src))
    with conf(spark, spark__sql__parquet__enableVectorizedReader="false"):
        df = spark.read.parquet(src)
        assert rows(df) == vectorized
        assert rows(df.where("x > 0").select("u", "ids")) == rows(
            spark.createDataFrame(vectorized).where("x > 0").select("u", "ids"))
    assert [bytes(r.u) for r in sorted(vectorized, key=lambda r: r.x)] == [i.bytes for i in ids[:3]]
