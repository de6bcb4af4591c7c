"""Interop: files written by pyarrow, DuckDB, Polars and Spark get the footer extension; every
reader (pyarrow, DuckDB, Polars, Spark/parquet-java) reads identical results before and
after, and `strip` restores byte-identical files."""

import datetime
import decimal
import filecmp
import os
import shutil

import duckdb
import numpy as np
import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from superspark import footer

N = 5000


def _pyarrow_table():
    rng = np.random.default_rng(7)
    ints = rng.integers(-10**9, 10**9, N)
    mask = rng.random(N) < 0.1
    words = np.array([f"word-{i % 300}" for i in range(N)], dtype=object)
    return pa.table({
        "b": pa.array(rng.random(N) < 0.5),
        "i8": pa.array((ints % 100).astype(np.int8)),
        "i16": pa.array((ints % 10000).astype(np.int16)),
        "i32": pa.array(ints.astype(np.int32), mask=mask),
        "i64": pa.array(ints * 1000),
        "u8": pa.array((np.abs(ints) % 200).astype(np.uint8)),
        "u32": pa.array(np.abs(ints).astype(np.uint32)),
        "u64": pa.array(np.abs(ints).astype(np.uint64) * 7),
        "f32": pa.array(rng.random(N).astype(np.float32)),
        "f64": pa.array(rng.normal(size=N), mask=mask),
        "s": pa.array(words, mask=mask),
        "dict": pa.array(words).dictionary_encode(),
        "bin": pa.array([bytes([i % 256, (i * 7) % 256]) * (i % 5) for i in range(N)], pa.binary()),
        "fixed": pa.array([i.to_bytes(4, "little") for i in range(N)], pa.binary(4)),
        "dec": pa.array([decimal.Decimal(i) / 100 for i in range(N)], pa.decimal128(12, 2)),
        "day": pa.array([datetime.date(2020, 1, 1) + datetime.timedelta(days=i % 900) for i in range(N)]),
        "ts_ms": pa.array(ints, pa.timestamp("ms")),
        "ts_us_utc": pa.array(ints, pa.timestamp("us", tz="UTC")),
        "lst": pa.array([list(range(i % 4)) for i in range(N)], pa.list_(pa.int32())),
        "st": pa.array([{"x": i, "y": f"y{i % 9}"} for i in range(N)]),
        "mp": pa.array([[("k", i), ("j", -i)] if i % 3 else [] for i in range(N)],
                       pa.map_(pa.string(), pa.int64())),
        "lst_st": pa.array([[{"a": i, "b": [1.5] * (i % 2)}] for i in range(N)]),
    })


def _write_files(folder, spark):
    os.makedirs(folder, exist_ok=True)
    table = _pyarrow_table()
    files = {}
    files["pyarrow_v2"] = os.path.join(folder, "pyarrow_v2.parquet")
    pq.write_table(table, files["pyarrow_v2"], row_group_size=700, write_statistics=True,
                   write_page_index=True, compression="zstd")
    files["pyarrow_v1"] = os.path.join(folder, "pyarrow_v1.parquet")
    pq.write_table(table, files["pyarrow_v1"], row_group_size=1500, version="1.0",
                   data_page_version="1.0", use_dictionary=["s", "dict"], compression="snappy")
    # Types Spark cannot read (TIME, FLOAT16, UUID): checked with the other readers only.
    files["pyarrow_extra"] = os.path.join(folder, "pyarrow_extra.parquet")
    pq.write_table(pa.table({
        "t_us": pa.array(np.arange(N) * 1000, pa.time64("us")),
        "t_ms": pa.array((np.arange(N) % 86400000).astype(np.int32), pa.time32("ms")),
        "half": pa.array(np.linspace(-2, 2, N).astype(np.float16)),
        "id": pa.array([i.to_bytes(16, "big") for i in range(N)], pa.uuid()),
        "ts_ns": pa.array(np.arange(N) * 10**9, pa.timestamp("ns")),
    }), files["pyarrow_extra"], row_group_size=1000)
    files["duckdb"] = os.path.join(folder, "duckdb.parquet")
    duckdb.sql(f"""COPY (SELECT range AS id, range % 7 = 0 AS flag, (range * 3)::INTEGER AS i,
        range::DOUBLE / 3 AS d, range::FLOAT AS f, 'txt-' || (range % 50) AS s,
        (range / 100)::DECIMAL(18, 3) AS dec, DATE '2021-01-01' + (range % 400)::INTEGER AS day,
        TIMESTAMP '2021-01-01' + INTERVAL (range) SECOND AS ts,
        [range, range + 1] AS lst, {{'a': range, 'b': 'b' || range}} AS st,
        MAP {{'k': range}} AS mp, CASE WHEN range % 5 = 0 THEN NULL ELSE range END AS n
        FROM range({N})) TO '{files["duckdb"]}' (FORMAT parquet, ROW_GROUP_SIZE 1024)""")
    files["polars"] = os.path.join(folder, "polars.parquet")
    pl.DataFrame({
        "id": np.arange(N),
        "f": np.linspace(0, 1, N),
        "s": [f"p{i % 77}" for i in range(N)],
        "cat": pl.Series([f"c{i % 5}" for i in range(N)], dtype=pl.Categorical),
        "lst": [[i, i * 2] for i in range(N)],
        "st": [{"u": i, "v": str(i)} for i in range(N)],
        "opt": [None if i % 4 == 0 else i for i in range(N)],
    }).write_parquet(files["polars"], row_group_size=900, statistics=True)
    spark_dir = os.path.join(folder, "spark_out")
    spark.range(N).selectExpr(
        "id", "CAST(id AS INT) AS i", "id / 7.0 AS d", "CAST(id AS STRING) AS s",
        "CAST(id / 3 AS DECIMAL(20, 4)) AS dec", "TIMESTAMP_SECONDS(id) AS ts",
        "ARRAY(id, id * 2) AS arr", "NAMED_STRUCT('a', id, 'b', ARRAY(CAST(id AS STRING))) AS st",
        "MAP('k', id) AS m", "IF(id % 3 = 0, NULL, id) AS n",
    ).coalesce(1).write.option("parquet.block.size", 32768).parquet(spark_dir)
    part = [f for f in os.listdir(spark_dir) if f.endswith(".parquet")][0]
    files["spark"] = os.path.join(folder, "spark.parquet")
    shutil.copy(os.path.join(spark_dir, part), files["spark"])
    return files


def _read_all(path, spark, with_spark=True):
    return {
        "pyarrow": pq.read_table(path),
        "pyarrow_meta": _meta(path),
        "duckdb": duckdb.sql(f"SELECT * FROM read_parquet('{path}')").fetch_arrow_table(),
        "polars": pl.read_parquet(path),
        "spark": spark.read.parquet(path).collect() if with_spark else None,
    }


def _meta(path):
    md = pq.ParquetFile(path).metadata.to_dict()
    md.pop("serialized_size")
    return md


@pytest.fixture(scope="module")
def files(tmp_path_factory, spark):
    return _write_files(str(tmp_path_factory.mktemp("footer_interop")), spark)


@pytest.mark.parametrize("name", ["pyarrow_v2", "pyarrow_v1", "pyarrow_extra", "duckdb", "polars", "spark"])
def test_readers_see_identical_data_with_the_extension(files, spark, tmp_path, name):
    original = files[name]
    assert pq.ParquetFile(original).metadata.num_row_groups >= 3
    with_spark = name != "pyarrow_extra"
    before = _read_all(original, spark, with_spark)

    extended = str(tmp_path / "extended.parquet")
    [r] = footer.add(original, output=extended)
    assert r["status"] == "added", r
    assert r["flatbuffer_bytes"] > 0
    [v] = footer.verify(extended)
    assert v["status"] == "valid", v
    [i] = footer.inspect(extended)
    assert i["status"] == "present" and i["metadata_source"] == "flatbuffer"
    assert i["uuid"] == "bb020e68-d327-4698-a215-465ff5dc7e44"
    assert os.path.getsize(extended) == os.path.getsize(original) + i["footer_bytes"] - i["thrift_bytes"]

    after = _read_all(extended, spark, with_spark)
    assert after["pyarrow"].equals(before["pyarrow"])
    assert after["pyarrow_meta"] == before["pyarrow_meta"]
    assert after["duckdb"].equals(before["duckdb"])
    assert after["polars"].equals(before["polars"])
    assert after["spark"] == before["spark"]
    if with_spark:
        assert len(after["spark"]) == N

    stripped = str(tmp_path / "stripped.parquet")
    [s] = footer.strip(extended, output=stripped)
    assert s["status"] == "stripped"
    assert filecmp.cmp(stripped, original, shallow=False)


def test_in_place_add_equals_output_add_and_strip_restores(files, tmp_path):
    copy = str(tmp_path / "inplace.parquet")
    shutil.copy(files["pyarrow_v2"], copy)
    out = str(tmp_path / "out.parquet")
    footer.add(files["pyarrow_v2"], output=out)
    [r] = footer.add(copy)
    assert r["status"] == "added"
    assert filecmp.cmp(copy, out, shallow=False)
    [again] = footer.add(copy)
    assert again["status"] == "unchanged"
    assert filecmp.cmp(copy, out, shallow=False)
    [s] = footer.strip(copy)
    assert s["status"] == "stripped"
    assert filecmp.cmp(copy, files["pyarrow_v2"], shallow=False)
    [s2] = footer.strip(copy)
    assert s2["status"] == "unchanged"
    assert filecmp.cmp(copy, files["pyarrow_v2"], shallow=False)
