"""Interop: DuckDB 2.0 and Polars read to_arrow output; DuckDB exports and pyarrow-written
Parquet come into Spark and back with their canonical extension types."""

import os
import sys
import uuid

import duckdb
import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from pyspark.sql import functions as F
from pyspark.sql.types import BinaryType, BooleanType, StringType, VariantType

import superspark.arrow as sa

sys.path.insert(0, os.path.dirname(__file__))
from arrow_tables import all_types_table  # noqa: E402

U1 = "00112233-4455-6677-8899-aabbccddeeff"
U2 = "f0e1d2c3-b4a5-9687-7869-5a4b3c2d1e0f"


spark40_variant_parquet = pytest.mark.skipif(
    tuple(int(x) for x in __import__("pyspark").__version__.split(".")[:2]) < (4, 1),
    reason="Spark 4.0's Parquet VARIANT support: it reads a variant group only with a non-nullable value "
           "(INVALID_VARIANT_FROM_PARQUET on pyarrow's files) and writes no VARIANT annotation")


@pytest.fixture(scope="module")
def spark_table(spark):
    """A DataFrame made by Spark itself, tagged, collected with to_arrow."""
    df = spark.sql(f"""
        SELECT id,
               CASE id WHEN 0 THEN '{U1}' WHEN 1 THEN '{U2}' END AS u,
               to_json(named_struct('k', id)) AS j,
               id % 2 = 0 AS b,
               parse_json(to_json(named_struct('a', id, 'tags', array('x', 'y')))) AS v,
               array(CAST(id AS FLOAT), 1.0f, 2.0f, 3.0f) AS t
        FROM range(3)""")
    tagged = sa.with_arrow_types(df, {
        "u": pa.uuid(), "j": pa.json_(), "b": pa.bool8(),
        "t": pa.fixed_shape_tensor(pa.float32(), [2, 2])})
    return sa.to_arrow(tagged).sort_by("id")


def _duck():
    con = duckdb.connect()
    con.execute("SET arrow_lossless_conversion = true")
    return con


def test_duckdb_reads_to_arrow_output(spark_table):
    con = _duck()
    con.register("s", spark_table)
    assert con.sql("SELECT typeof(u), typeof(j), typeof(b), typeof(v) FROM s LIMIT 1") \
        .fetchall() == [("UUID", "JSON", "BOOLEAN", "VARIANT")]
    rows = con.sql("""SELECT u::VARCHAR, j->>'k', b, v.a::BIGINT, v.tags[1]::VARCHAR
                      FROM s ORDER BY id""").fetchall()
    assert rows == [(U1, "0", True, 0, "x"), (U2, "1", False, 1, "x"), (None, "2", True, 2, "x")]
    assert con.sql("SELECT list_sum(t::FLOAT[]) FROM s ORDER BY id").fetchall() == \
        [(6.0,), (7.0,), (8.0,)]


def test_polars_reads_to_arrow_output(spark_table):
    df = pl.from_arrow(spark_table)
    names = {n: str(t) for n, t in df.schema.items()}
    for col, ext in [("j", "arrow.json"), ("b", "arrow.bool8"), ("v", "arrow.parquet.variant"),
                     ("t", "arrow.fixed_shape_tensor")]:
        assert ext in names[col], (col, names[col])
    back = df.to_arrow()
    assert back.column("j").to_pylist() == spark_table.column("j").to_pylist()
    assert back.schema.field("j").type.extension_name == "arrow.json"  # Polars: view storage
    assert back.schema.field("v").type.extension_name == "arrow.parquet.variant"
    # Polars 2.1 has no UUID type: arrow.uuid arrives as plain binary.
    assert pa.types.is_large_binary(back.schema.field("u").type)


def test_duckdb_export_round_trips_through_spark(spark):
    con = _duck()
    src = con.sql(f"""
        SELECT i, (CASE WHEN i = 1 THEN NULL ELSE '{U1}' END)::UUID AS u,
               ('{{"n":' || i || '}}')::JSON AS j, i % 2 = 0 AS b,
               ('{{"a":' || i || ',"s":"x"}}')::JSON::VARIANT AS v,
               (i::HUGEINT * 100000000000000000000000000) AS h
        FROM range(3) r(i) ORDER BY i""").to_arrow_table()
    names = {f.name: f.type.extension_name for f in src.schema
             if isinstance(f.type, pa.BaseExtensionType)}
    assert names == {"u": "arrow.uuid", "j": "arrow.json", "b": "arrow.bool8",
                     "v": "arrow.parquet.variant", "h": "arrow.opaque"}
    df = sa.from_arrow(spark, src)
    types = {f.name: f.dataType for f in df.schema.fields}
    assert types["u"] == BinaryType() and types["j"] == StringType()
    assert types["b"] == BooleanType() and types["v"] == VariantType()
    rows = df.orderBy("i").select(sa.uuid_to_string("u").alias("u"), "j", "b",
                                  F.to_json("v").alias("v")).collect()
    assert [tuple(r) for r in rows] == [(U1, '{"n":0}', True, '{"a":0,"s":"x"}'),
                                        (None, '{"n":1}', False, '{"a":1,"s":"x"}'),
                                        (U1, '{"n":2}', True, '{"a":2,"s":"x"}')]
    back = sa.to_arrow(df).sort_by("i")
    assert back.schema == src.schema
    assert back.equals(src)
    # ... and DuckDB takes its own data back with its own types.
    con.register("back", back)
    assert con.sql("SELECT typeof(u), typeof(h), v.a::INT FROM back ORDER BY i").fetchall()[2] \
        == ("UUID", "HUGEINT", 2)


@spark40_variant_parquet
def test_pyarrow_parquet_through_spark_and_back(spark, tmp_path):
    # arrow.uuid is left out: Spark 4.3 cannot read Parquet UUID columns at all.
    t = all_types_table().drop_columns(["u"])
    with sa.parquet_variant_guard():  # t has an arrow.parquet.variant column
        pq.write_table(t, str(tmp_path / "part-0.parquet"))
    df = sa.read_parquet(spark, str(tmp_path))
    types = {f.name: f.dataType for f in df.schema.fields}
    assert types["b"] == BooleanType() and types["v"] == VariantType()
    assert df.schema["ft"].metadata[sa.NAME_KEY] == "arrow.fixed_shape_tensor"
    assert [r[0] for r in df.select(F.to_json("v")).collect()] == ["1", None, "null"]
    back = sa.to_arrow(df)
    assert back.schema == t.schema
    assert back.equals(t)


@spark40_variant_parquet
def test_spark_written_variant_parquet_reads_as_arrow_variant(spark, tmp_path):
    spark.sql("""SELECT parse_json('{"a":1}') AS v""").write.parquet(str(tmp_path / "v"))
    t = pq.read_table(str(tmp_path / "v"))
    assert isinstance(t.schema.field("v").type, sa.VariantType)


def test_read_parquet_without_arrow_schema_is_plain(spark, tmp_path):
    spark.range(2).write.parquet(str(tmp_path / "p"))
    df = sa.read_parquet(spark, str(tmp_path / "p"))
    assert [f.metadata for f in df.schema.fields] == [{}]
    assert sorted(r.id for r in df.collect()) == [0, 1]
