"""Writes the generated part of the Parquet corpus (ParquetCorpusSuite): files from pyarrow,
DuckDB and Polars covering the physical and logical types, V1 and V2 data pages,
dictionary/plain/delta/BYTE_STREAM_SPLIT encodings, page indexes, bloom filters, legacy
(two-level) lists, INT96 timestamps and nesting. Usage: write_files.py OUTPUT_DIR.
A missing writer package is reported on stderr; ParquetCorpusSuite then fails (it asserts every writer's files)."""

import datetime as dt
import decimal
import os
import sys
import uuid

import pyarrow as pa
import pyarrow.parquet as pq

N = 3000  # rows: several pages and, with the small row groups below, several row groups


def table() -> pa.Table:
    i = list(range(N))
    def opt(xs):  # every 7th value null
        return [None if k % 7 == 3 else x for k, x in enumerate(xs)]
    base = dt.datetime(2021, 3, 4, 5, 6, 7)
    return pa.table({
        "b": pa.array(opt([k % 2 == 0 for k in i]), pa.bool_()),
        "i8": pa.array(opt([k % 127 - 60 for k in i]), pa.int8()),
        "i16": pa.array(opt([k * 3 - 4000 for k in i]), pa.int16()),
        "i32": pa.array(opt([k * 1000 - 7 for k in i]), pa.int32()),
        "i64": pa.array(opt([k * 10**12 for k in i]), pa.int64()),
        "u8": pa.array(opt([k % 250 for k in i]), pa.uint8()),
        "u32": pa.array(opt([k * 1000 + 2**31 for k in i]), pa.uint32()),
        "f32": pa.array(opt([k / 3 for k in i]), pa.float32()),
        "f64": pa.array(opt([k / 7 - 100 for k in i]), pa.float64()),
        "dec9": pa.array(opt([decimal.Decimal(k).scaleb(-2) for k in i]), pa.decimal128(9, 2)),
        "dec18": pa.array(opt([decimal.Decimal(k * 10**9).scaleb(-4) for k in i]), pa.decimal128(18, 4)),
        "dec38": pa.array(opt([decimal.Decimal(k * 10**20).scaleb(-10) for k in i]), pa.decimal128(38, 10)),
        "s": pa.array(opt([f"v{k % 50:03d}" for k in i]), pa.string()),
        "ls": pa.array(opt([f"long-{k}" * 3 for k in i]), pa.large_string()),
        "bin": pa.array(opt([bytes([k % 256, (k * 7) % 256]) for k in i]), pa.binary()),
        "fsb": pa.array(opt([bytes([k % 256] * 4) for k in i]), pa.binary(4)),
        "d": pa.array(opt([dt.date(2020, 1, 1) + dt.timedelta(days=k) for k in i]), pa.date32()),
        "ts_ms": pa.array(opt([base + dt.timedelta(seconds=k) for k in i]), pa.timestamp("ms", tz="UTC")),
        "ts_us": pa.array(opt([base + dt.timedelta(microseconds=k * 1001) for k in i]), pa.timestamp("us")),
        "dict": pa.array(opt([f"cat{k % 5}" for k in i])).dictionary_encode(),
        "l": pa.array(opt([[k, k + 1][: k % 3] for k in i]), pa.list_(pa.int32())),
        "ll": pa.array(opt([[[k], [k * 2, None]] for k in i]), pa.list_(pa.list_(pa.int64()))),
        "m": pa.array(opt([{"a": k, "b": -k} for k in i]), pa.map_(pa.string(), pa.int32())),
        "st": pa.array(opt([{"x": k, "y": f"y{k}", "z": [k]} for k in i]),
                       pa.struct([("x", pa.int32()), ("y", pa.string()), ("z", pa.list_(pa.int16()))])),
    })


def logical_types() -> pa.Table:
    """Types vanilla Spark 4.3 refuses and the interceptor reads (UUID, FLOAT16), and JSON."""
    i = list(range(N))
    return pa.table({
        "i": pa.array(i, pa.int32()),
        "f16": pa.array([None if k % 11 == 0 else k / 8 - 100 for k in i], pa.float16()),
        "uuid": pa.array([uuid.UUID(int=k * 7919).bytes for k in i], pa.uuid()),
        "j": pa.array([f'{{"k": {k}}}' for k in i], pa.json_(pa.string())),
        "lu": pa.ListArray.from_arrays(pa.array(range(0, N + 1), pa.int32()), pa.ExtensionArray.from_storage(
            pa.uuid(), pa.array([uuid.UUID(int=k).bytes for k in i], pa.binary(16)))),
    })


def pyarrow_files(out: str) -> None:
    t = table()
    flat = t.drop_columns(["l", "ll", "m", "st", "dict"])
    common = dict(row_group_size=1000, data_page_size=4096, write_page_index=True)
    pq.write_table(t, f"{out}/pyarrow_v1_dict.parquet", data_page_version="1.0", **common)
    pq.write_table(t, f"{out}/pyarrow_v2_plain.parquet", data_page_version="2.0", use_dictionary=False,
                   compression="zstd", **common)
    pq.write_table(t, f"{out}/pyarrow_legacy_lists.parquet", use_compliant_nested_type=False, **common)
    pq.write_table(t, f"{out}/pyarrow_int96.parquet", use_deprecated_int96_timestamps=True, **common)
    pq.write_table(logical_types(), f"{out}/pyarrow_logical_types.parquet", **common)
    pq.write_table(pa.table({"t": pa.array([dt.time(k % 24, k % 60) for k in range(N)], pa.time64("us"))}),
                   f"{out}/pyarrow_time.parquet", **common)
    pq.write_table(logical_types().select(["i", "f16"]).append_column("f32", flat.column("f32"))
                   .append_column("f64", flat.column("f64")).append_column("fsb", flat.column("fsb")),
                   f"{out}/pyarrow_byte_stream_split.parquet", use_dictionary=False, use_byte_stream_split=True,
                   **common)
    pq.write_table(flat.select(["i32", "i64", "s", "bin", "ls"]), f"{out}/pyarrow_delta.parquet",
                   use_dictionary=False, data_page_version="2.0",
                   column_encoding={"i32": "DELTA_BINARY_PACKED", "i64": "DELTA_BINARY_PACKED",
                                    "s": "DELTA_BYTE_ARRAY", "bin": "DELTA_LENGTH_BYTE_ARRAY",
                                    "ls": "DELTA_BYTE_ARRAY"}, **common)
    pq.write_table(flat, f"{out}/pyarrow_no_stats.parquet", write_statistics=False, **common)
    try:
        pq.write_table(flat.select(["i32", "s"]), f"{out}/pyarrow_bloom.parquet",
                       bloom_filter_options={"i32": {"ndv": 1000}, "s": {"ndv": 100}}, **common)
    except TypeError as e:  # a pyarrow without bloom filter writing
        print(f"pyarrow: no bloom filters ({e})", file=sys.stderr)


def duckdb_files(out: str) -> None:
    try:
        import duckdb
    except ImportError as e:
        print(f"duckdb: skipped ({e})", file=sys.stderr)
        return
    con = duckdb.connect()
    q = """SELECT i::INTEGER AS i, (i * 1000000007)::BIGINT AS big, (i % 100)::TINYINT AS ti, (i % 1000)::SMALLINT AS si,
             (i % 200)::UTINYINT AS ut, (i / 3)::FLOAT AS f, (i / 7)::DOUBLE AS d, (i / 100)::DECIMAL(10, 2) AS dec,
             (i * 1000)::DECIMAL(30, 5) AS hugedec, 'str' || (i % 97) AS s, ('bytes' || i)::BLOB AS blb,
             DATE '2020-01-01' + i::INTEGER AS dt, TIMESTAMP '2021-01-01 00:00:00' + INTERVAL (i) SECOND AS ts,
             TIMESTAMPTZ '2021-01-01 00:00:00+00' + INTERVAL (i) MINUTE AS tstz,
             i % 2 = 0 AS flag,
             [i, i + 1] AS lst, {'a': i, 'b': 's' || i} AS st, MAP {'k': i} AS mp,
             CASE WHEN i % 5 = 0 THEN NULL ELSE i END AS nullable_i
           FROM range(3000) t(i)"""
    con.execute(f"COPY ({q}) TO '{out}/duckdb_v1.parquet' (FORMAT parquet, ROW_GROUP_SIZE 1000)")
    con.execute(f"COPY ({q}) TO '{out}/duckdb_v2.parquet' (FORMAT parquet, ROW_GROUP_SIZE 1000, "
                "PARQUET_VERSION v2, COMPRESSION zstd)")
    con.execute(f"COPY (SELECT i, md5(i::VARCHAR)::UUID AS u FROM range(3000) t(i)) TO '{out}/duckdb_uuid.parquet' "
                "(FORMAT parquet)")


def polars_files(out: str) -> None:
    try:
        import polars as pl
    except ImportError as e:
        print(f"polars: skipped ({e})", file=sys.stderr)
        return
    t = table()
    df = pl.from_arrow(t)
    df.write_parquet(f"{out}/polars_default.parquet", row_group_size=1000, statistics=True)
    df.write_parquet(f"{out}/polars_uncompressed.parquet", compression="uncompressed", row_group_size=1000,
                     use_pyarrow=False, data_page_size=4096)


if __name__ == "__main__":
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    pyarrow_files(out)
    duckdb_files(out)
    polars_files(out)
