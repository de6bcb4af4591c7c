"""Parquet footer interceptor with Parquet as a DSv2 source (issue 6).

``spark.sql.sources.useV1SourceList`` without ``parquet`` makes ``spark.read.parquet`` plan a
``BatchScan`` over Spark's ``ParquetTable``; with the extension loaded it is our
``FooterParquetTable`` / ``FooterParquetScan``. Results are compared with Spark's own DSv2
code (the same session with ``spark.superspark.parquet.footer.read=false``: table, scan
builder and scan are then Spark's, unchanged) and with DSv1.
"""

import datetime
import os
import uuid

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from pyspark.sql import types as T

from superspark import footer
from superspark import parquet_interceptor as pi
from test_parquet_interceptor import (QUERIES, assert_strict_fails, classic_only, conf, extensions,  # noqa: F401
                                      flip_flatbuffer_byte, parquet_files, read_off, rows, typed_frame,
                                      uuid_table, write_on)

V1_LIST = "spark.sql.sources.useV1SourceList"
V1_WITHOUT_PARQUET = "avro,csv,json,kafka,orc,text"
SPARK_LINE = tuple(int(x) for x in __import__("pyspark").__version__.split(".")[:2])

ZERO = {"footers_flatbuffer": 0, "footers_thrift": 0, "fallbacks": 0, "decode_ns": 0}


def dsv2(spark):
    return conf(spark, **{V1_LIST.replace(".", "__"): V1_WITHOUT_PARQUET})


def dsv1(spark):
    return conf(spark, **{V1_LIST.replace(".", "__"): V1_WITHOUT_PARQUET + ",parquet"})


def plan(df):
    return df._jdf.queryExecution().executedPlan().toString()


def collect_with_metrics(df):
    got = rows(df)
    return got, pi.scan_metrics(df)


def write_typed(spark, path, n=3000, block_size="4096"):
    with write_on(spark), conf(spark, **{"parquet__block__size": block_size}):
        typed_frame(spark, n).repartition(3).write.partitionBy("part").parquet(path)
    assert all(extensions(path))


def test_dsv2_reads_plan_our_scan(spark, tmp_dir):
    path = os.path.join(tmp_dir, "plan")
    with write_on(spark):
        spark.range(20).selectExpr("id", "id % 2 AS p").write.partitionBy("p").parquet(path)
    with dsv2(spark):
        df = spark.read.parquet(path).where("id > 3")
        assert df.count() == 16
        got, m = collect_with_metrics(df)
        text = plan(df)
        assert "BatchScan parquet" in text and "FooterParquetScan" in text and "Format: parquet" in text
        assert m["footers_flatbuffer"] == len(parquet_files(path)) and m["decode_ns"] > 0
        fmt = spark.read.format("org.apache.spark.sql.execution.datasources.v2.parquet.ParquetDataSourceV2").load(path)
        assert fmt.count() == 20 and "FooterParquetScan" in plan(fmt)
        with read_off(spark):
            theirs = spark.read.parquet(path).where("id > 3")
            assert rows(theirs) == got
            text = plan(theirs)
            assert "BatchScan parquet" in text and "ParquetScan" in text and "FooterParquetScan" not in text
            assert pi.scan_metrics(theirs) == ZERO
    with dsv1(spark):
        v1 = spark.read.parquet(path).where("id > 3")
        assert rows(v1) == got and "FileScan parquet" in plan(v1)
        assert pi.scan_metrics(v1)["footers_flatbuffer"] == m["footers_flatbuffer"]  # DSv1 node counts the same


@pytest.mark.parametrize("vectorized,whole_stage", [("true", "true"), ("true", "false"), ("false", "true")],
                         ids=["columnar", "vectorized-rows", "row-based"])
def test_dsv2_queries_match_spark(spark, tmp_dir, vectorized, whole_stage):
    """Projection, filters (pushdown + row-group pruning by statistics), nested columns,
    partitions, aggregates: identical to Spark's own DSv2 scan and to DSv1, on the columnar
    reader, the vectorized reader returning rows, and parquet-java's row-based reader."""
    path = os.path.join(tmp_dir, "q")
    write_typed(spark, path)
    assert max(pq.ParquetFile(f).num_row_groups for f in parquet_files(path)) > 1
    settings = {"spark__sql__parquet__enableVectorizedReader": vectorized,
                "spark__sql__codegen__wholeStage": whole_stage}
    with conf(spark, **settings), dsv2(spark):
        ours = []
        for q in QUERIES:
            df = q(spark.read.parquet(path))
            got, m = collect_with_metrics(df)
            assert m["footers_flatbuffer"] > 0 and m["footers_thrift"] == 0, m
            assert "FooterParquetScan" in plan(df)
            ours.append(got)
        with read_off(spark):
            theirs = [rows(q(spark.read.parquet(path))) for q in QUERIES]
        with dsv1(spark):
            v1 = [rows(q(spark.read.parquet(path))) for q in QUERIES]
    assert ours == theirs == v1
    assert len(ours[0]) == 81 and all(len(r) > 0 for r in ours)


def test_dsv2_partition_pruning_counts_only_read_files(spark, tmp_dir):
    """Partition pruning skips files (no footer read); counts match the files scanned."""
    path = os.path.join(tmp_dir, "prune")
    write_typed(spark, path, n=600, block_size="1048576")
    per_part = {p: len(parquet_files(os.path.join(path, f"part={p}"))) for p in range(4)}
    with dsv2(spark):
        df = spark.read.parquet(path).where("part = 1").select("id")
        got, m = collect_with_metrics(df)
        assert m["footers_flatbuffer"] == per_part[1] and m["footers_thrift"] == 0 and m["fallbacks"] == 0
        assert m["decode_ns"] > 0
        assert sorted(r.id for r in got) == [i for i in range(600) if i % 4 == 1]


def test_dsv2_metrics_thrift_and_fallback(spark, tmp_dir):
    path = os.path.join(tmp_dir, "mixed")
    with write_on(spark):
        spark.range(100).selectExpr("id", "id % 10 AS g").repartition(3).write.parquet(path)
    spark.range(100, 130).selectExpr("id", "id % 10 AS g").coalesce(1).write.mode("append").parquet(path)
    files = parquet_files(path)
    with_ext = [f for f, e in zip(files, extensions(path)) if e]
    assert len(with_ext) == 3 and len(files) == 4
    with dsv2(spark):
        expected = rows(spark.read.parquet(path).where("g = 3"))
        assert len(expected) == 13
        got, m = collect_with_metrics(spark.read.parquet(path).where("g = 3"))
        assert got == expected
        assert (m["footers_flatbuffer"], m["footers_thrift"], m["fallbacks"]) == (3, 1, 0)

        flip_flatbuffer_byte(with_ext[0])
        assert footer.inspect(with_ext[0])[0]["flatbuffer_crc"] != "ok"
        pi.reset_footer_metrics(spark)
        got, m = collect_with_metrics(spark.read.parquet(path).where("g = 3"))
        assert got == expected
        assert (m["footers_flatbuffer"], m["footers_thrift"], m["fallbacks"]) == (2, 2, 1)
        assert pi.footer_metrics(spark)["fallbacks"] >= 1  # the scan's accumulators count too
        with read_off(spark):
            assert rows(spark.read.parquet(path).where("g = 3")) == expected
        assert_strict_fails(spark, with_ext[0])


def test_dsv2_schema_inference_and_merge_schema(spark, tmp_dir):
    path = os.path.join(tmp_dir, "merge")
    with write_on(spark):
        spark.range(5).selectExpr("id", "id AS a").write.parquet(os.path.join(path, "k=1"))
        spark.range(5).selectExpr("id", "cast(id as string) AS b", "named_struct('x', id) AS st") \
            .write.parquet(os.path.join(path, "k=2"))
    with dsv2(spark):
        for reader in [spark.read, spark.read.option("mergeSchema", "true")]:
            pi.reset_footer_metrics(spark)
            ours = reader.parquet(path)
            assert pi.footer_metrics(spark)["footers_flatbuffer"] >= 1  # inference went through the library
            with read_off(spark):
                vanilla = reader.parquet(path)
                assert vanilla.schema == ours.schema
                assert rows(vanilla) == rows(ours)
        merged = spark.read.option("mergeSchema", "true").parquet(path)
        assert merged.schema.fieldNames() == ["id", "a", "b", "st", "k"]
        user = T.StructType([T.StructField("id", T.LongType()), T.StructField("b", T.StringType())])
        df = spark.read.schema(user).parquet(path)
        assert sorted((r.id, r.b) for r in df.collect() if r.b is not None) == [(i, str(i)) for i in range(5)]
        assert "FooterParquetScan" in plan(df)


def test_dsv2_uuid_and_json_from_pyarrow(spark, tmp_dir):
    ids, table = uuid_table()
    table = table.append_column("j", pa.array(['{"a": 1}', "[2]", None, "3", '"s"'], pa.json_()))
    src = os.path.join(tmp_dir, "u.parquet")
    pq.write_table(table, src)
    with dsv2(spark):
        with read_off(spark):
            with pytest.raises(Exception, match="PARQUET_TYPE_ILLEGAL"):
                spark.read.parquet(src).select("x").collect()
        df = spark.read.parquet(src)
        u, j = df.schema["u"], df.schema["j"]
        assert u.dataType == T.BinaryType() and u.metadata["arrow.extension.name"] == "arrow.uuid"
        assert j.dataType == T.StringType() and j.metadata["arrow.extension.name"] == "arrow.json"
        got = df.orderBy("x").collect()
        assert [bytes(r.u) for r in got] == [x.bytes for x in ids]
        assert [r.j for r in got] == ['{"a": 1}', "[2]", None, "3", '"s"']
        assert spark.read.parquet(src).select("x").where("x > 2").count() == 2
        planned = df.orderBy("x")  # planned, never run: our scan, nothing counted
        assert "FooterParquetScan" in plan(planned) and pi.scan_metrics(planned) == ZERO
        q = df.where("x >= 1").select("u", "x")
        assert [uuid.UUID(bytes=bytes(r.u)) for r in sorted(q.collect(), key=lambda r: r.x)] == ids[1:]
        assert pi.scan_metrics(q)["footers_thrift"] == 1
        with dsv1(spark):
            assert rows(spark.read.parquet(src)) == rows(df)


@pytest.mark.parametrize("whole_stage", ["true", "false"], ids=["columnar", "rows"])
def test_dsv2_aggregate_pushdown_from_our_footers(spark, tmp_dir, whole_stage):
    """MIN/MAX/COUNT pushed into the scan are answered from footers read by the library,
    per file and split, as Spark answers them from its own; partitioned, grouped by partition."""
    path = os.path.join(tmp_dir, "agg")
    with write_on(spark), conf(spark, **{"parquet__block__size": "2048"}):
        spark.range(3000).selectExpr("id", "cast(id % 7 as int) AS i", "id * 0.5d AS d", "DATE'2021-01-01' + "
                                     "cast(id % 100 as int) AS dt", "cast(id % 3 as int) AS p") \
            .repartition(2).write.partitionBy("p").parquet(path)
    spark.range(40).selectExpr("id + 5000 AS id", "1 AS i", "1.0d AS d", "DATE'2020-01-01' AS dt", "0 AS p") \
        .write.mode("append").partitionBy("p").parquet(path)  # one file without the extension
    queries = [
        lambda t: t.selectExpr("max(id) AS a", "min(i) AS b", "count(*) AS c", "max(dt) AS e", "min(d) AS f"),
        lambda t: t.groupBy("p").agg({"id": "max", "dt": "min", "*": "count"}),
        lambda t: t.where("p = 2").selectExpr("count(id)", "min(id)"),
    ]
    settings = {"spark__sql__parquet__aggregatePushdown": "true", "spark__sql__codegen__wholeStage": whole_stage}
    with dsv2(spark), conf(spark, **settings):
        ours = []
        for q in queries:
            df = q(spark.read.parquet(path))
            got, m = collect_with_metrics(df)
            text = plan(df)
            assert "FooterParquetScan" in text and "PushedAggregation: [" in text and "PushedAggregation: []" not in text
            assert m["footers_flatbuffer"] > 0, m
            ours.append(got)
        assert m["footers_thrift"] == 0  # p = 2 has extension files only
        with read_off(spark):
            theirs = [rows(q(spark.read.parquet(path))) for q in queries]
    with dsv1(spark):
        v1 = [rows(q(spark.read.parquet(path))) for q in queries]
    assert ours == theirs == v1
    assert [tuple(r) for r in ours[0]] == [(5039, 0, 3040, datetime.date(2021, 4, 10), 0.0)]


def test_dsv2_aggregate_pushdown_on_uuid_file(spark, tmp_dir):
    ids, table = uuid_table(6)
    src = os.path.join(tmp_dir, "u.parquet")
    pq.write_table(table, src)
    with dsv2(spark), conf(spark, **{"spark__sql__parquet__aggregatePushdown": "true"}):
        df = spark.read.parquet(src).selectExpr("count(*)", "max(x)")
        assert [tuple(r) for r in df.collect()] == [(6, 5)]
        assert "FooterParquetScan" in plan(df) and pi.scan_metrics(df)["footers_thrift"] == 1
        with read_off(spark), pytest.raises(Exception, match="PARQUET_TYPE_ILLEGAL"):
            spark.read.parquet(src).selectExpr("count(*)").collect()


def test_dsv2_read_path_off_is_spark(spark, tmp_dir):
    path = os.path.join(tmp_dir, "off")
    with write_on(spark):
        spark.range(10).write.parquet(path)
    with dsv2(spark), read_off(spark):
        pi.reset_footer_metrics(spark)
        df = spark.read.parquet(path)
        assert df.count() == 10 and rows(df) == rows(spark.range(10))
        assert pi.footer_metrics(spark) == ZERO
        assert pi.scan_metrics(df) == ZERO and "FooterParquetScan" not in plan(df)


def test_dsv2_not_a_parquet_file_gets_sparks_error(spark, tmp_dir):
    bad = os.path.join(tmp_dir, "bad.parquet")
    with open(bad, "wb") as f:
        f.write(b"PAR1 this is not parquet at all")
    with dsv2(spark):
        with pytest.raises(Exception) as ours:
            spark.read.parquet(bad).collect()
        with read_off(spark), pytest.raises(Exception) as theirs:
            spark.read.parquet(bad).collect()
    assert type(ours.value) is type(theirs.value)


def test_dsv2_ignore_corrupt_files_as_spark(spark, tmp_dir):
    path = os.path.join(tmp_dir, "corrupt")
    with write_on(spark):
        spark.range(30).coalesce(1).write.parquet(path)
    with open(os.path.join(path, "part-99999-bad.parquet"), "wb") as f:
        f.write(b"PAR1 not parquet" * 4)
    with dsv2(spark), conf(spark, **{"spark__sql__files__ignoreCorruptFiles": "true"}):
        df = spark.read.parquet(path)
        got, m = collect_with_metrics(df)
        assert sorted(r.id for r in got) == list(range(30))
        assert m["footers_flatbuffer"] == 1 and m["footers_thrift"] == 0
        with read_off(spark):
            assert rows(spark.read.parquet(path)) == got


def test_dsv2_variant_extraction_pushdown(spark, tmp_dir):
    """Variant fields pushed into the scan (4.1+): our reader gets Spark's rewritten read schema;
    on 4.0, which has no such pushdown, it reads the variant column whole, same rows."""
    path = os.path.join(tmp_dir, "variant")
    with write_on(spark):
        spark.range(50).selectExpr(
            "id", "parse_json(format_string('{\"a\": %d, \"b\": \"x%d\"}', id, id)) AS v").write.parquet(path)

    def q():
        return spark.read.parquet(path).where("id > 40").selectExpr(
            "id", "variant_get(v, '$.a', 'int') AS a", "variant_get(v, '$.b', 'string') AS b")

    with dsv2(spark), conf(spark, **{"spark__sql__variant__pushVariantIntoScan": "true"}):
        df = q()
        got, m = collect_with_metrics(df)
        text = plan(df)
        assert "FooterParquetScan" in text
        if SPARK_LINE >= (4, 1):
            assert "PushedVariantExtractions: [v:" in text
        else:  # Spark 4.0 has no DSv2 variant pushdown: the scan reads the whole variant column
            assert "PushedVariantExtractions" not in text
        assert m["footers_flatbuffer"] >= 1
        assert got == [(i, i, f"x{i}") for i in range(41, 50)]
        with read_off(spark):
            assert rows(q()) == got
