"""How often does the Thrift footer rebuilt from the FlatBuffer equal the original bytes?

Writes Parquet files with pyarrow, DuckDB, Polars and Spark (several options each), adds
the parquet-testing corpus (``../shared/corpus/parquet-testing/data``, read in place), and
runs ``superspark.footer.roundtrip`` on all of them. For every file whose bytes differ, the
file is migrated to the final form and back to plain, and pyarrow must read the rebuilt
footer exactly as the original (metadata and data); parquet-java's equivalence is what
``roundtrip`` reports (``equivalent``). Prints one line per writer and a total:
``python bench/parquet_footer/rebuild_survey.py`` (also `make footer-rebuild-survey`).
"""

from __future__ import annotations

import collections
import datetime
import decimal
import os
import shutil
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "python"))

import pyarrow as pa  # noqa: E402
import pyarrow.parquet as pq  # noqa: E402


def table(n: int = 500) -> pa.Table:
    return pa.table({
        "i": pa.array(range(n), pa.int64()),
        "i8": pa.array([i % 100 for i in range(n)], pa.int8()),
        "u32": pa.array(range(n), pa.uint32()),
        "f": pa.array([i / 7 for i in range(n)], pa.float32()),
        "d": pa.array([None if i % 11 == 0 else i / 3 for i in range(n)], pa.float64()),
        "s": pa.array([None if i % 5 == 0 else f"value-{i:05d}" for i in range(n)]),
        "b": pa.array([bytes([i % 256]) * 20 for i in range(n)], pa.binary()),
        "dec": pa.array([decimal.Decimal(i) / 100 for i in range(n)], pa.decimal128(12, 2)),
        "day": pa.array([datetime.date(2020, 1, 1) + datetime.timedelta(days=i % 500) for i in range(n)]),
        "ts": pa.array([datetime.datetime(2021, 1, 1) + datetime.timedelta(seconds=i) for i in range(n)],
                       pa.timestamp("us", tz="UTC")),
        "flag": pa.array([i % 3 == 0 for i in range(n)]),
        "lst": pa.array([[i, i + 1] if i % 4 else None for i in range(n)], pa.list_(pa.int32())),
        "st": pa.array([{"x": i, "y": str(i)} for i in range(n)]),
        "m": pa.array([[("k", i)] for i in range(n)], pa.map_(pa.string(), pa.int64())),
    })


def write_pyarrow(d: str) -> list:
    t = table()
    variants = {
        "default": {},
        "v1-pages-gzip": {"data_page_version": "1.0", "compression": "gzip"},
        "no-dict-no-stats": {"use_dictionary": False, "write_statistics": False},
        "page-index-zstd": {"write_page_index": True, "compression": "zstd", "row_group_size": 100},
        "format-2.4": {"version": "2.4", "compression": "none"},
        "byte-stream-split": {"use_dictionary": False, "column_encoding": {"f": "BYTE_STREAM_SPLIT"}},
    }
    out = []
    for name, kw in variants.items():
        p = os.path.join(d, f"pyarrow-{name}.parquet")
        pq.write_table(t, p, **kw)
        out.append(p)
    return out


def write_duckdb(d: str) -> list:
    import duckdb

    con = duckdb.connect()
    con.register("t", table().drop_columns(["m", "u32"]))
    out = []
    for name, opts in {"default": "", "zstd-small-row-groups": ", COMPRESSION zstd, ROW_GROUP_SIZE 100",
                       "uncompressed-v2": ", COMPRESSION uncompressed, PARQUET_VERSION v2"}.items():
        p = os.path.join(d, f"duckdb-{name}.parquet")
        con.execute(f"COPY t TO '{p}' (FORMAT parquet{opts})")
        out.append(p)
    return out


def write_polars(d: str) -> list:
    import polars as pl

    df = pl.from_arrow(table().drop_columns(["m"]))
    out = []
    for name, kw in {"default": {}, "full-stats-lz4": {"statistics": "full", "compression": "lz4"},
                     "small-row-groups": {"row_group_size": 100, "compression": "uncompressed"}}.items():
        p = os.path.join(d, f"polars-{name}.parquet")
        df.write_parquet(p, **kw)
        out.append(p)
    return out


def write_spark(d: str) -> list:
    import superspark

    spark = superspark.session("rebuild-survey", master="local[1]", **{"spark.ui.enabled": "false"})
    spark.sparkContext.setLogLevel("ERROR")
    df = spark.range(0, 500, 1, 1).selectExpr(
        "id AS i", "CAST(id / 7 AS FLOAT) AS f", "IF(id % 11 = 0, NULL, id / 3.0D) AS d",
        "IF(id % 5 = 0, NULL, CONCAT('value-', CAST(id AS STRING))) AS s", "CAST(id AS DECIMAL(12, 2)) AS dec",
        "DATE_ADD(DATE'2020-01-01', CAST(id % 500 AS INT)) AS day",
        "TIMESTAMP'2021-01-01 00:00:00' + MAKE_INTERVAL(0, 0, 0, 0, 0, 0, id) AS ts", "id % 3 = 0 AS flag",
        "IF(id % 4 = 0, NULL, ARRAY(CAST(id AS INT), CAST(id + 1 AS INT))) AS lst",
        "NAMED_STRUCT('x', id, 'y', CAST(id AS STRING)) AS st", "MAP('k', id) AS m")
    out = []
    try:
        for name, conf in {"default": {}, "int96-gzip": {"spark.sql.parquet.outputTimestampType": "INT96",
                                                         "spark.sql.parquet.compression.codec": "gzip"},
                           "legacy-zstd": {"spark.sql.parquet.writeLegacyFormat": "true",
                                           "spark.sql.parquet.compression.codec": "zstd"}}.items():
            for k, v in conf.items():
                spark.conf.set(k, v)
            p = os.path.join(d, f"spark-{name}")
            df.coalesce(1).write.parquet(p)
            for k in conf:
                spark.conf.unset(k)
            out += [os.path.join(p, f) for f in sorted(os.listdir(p)) if f.endswith(".parquet")]
    finally:
        spark.stop()
    return out


def writer_of(path: str) -> str:
    base = os.path.basename(path)
    for w in ("pyarrow", "duckdb", "polars"):
        if base.startswith(w):
            return w
    return "spark" if "spark-" in path else "parquet-testing"


def pyarrow_reads_identically(original: str, scratch: str) -> bool:
    """final -> plain through the rebuilt Thrift footer; pyarrow must see the same."""
    from superspark import footer

    final = os.path.join(scratch, "final.parquet")
    plain = os.path.join(scratch, "plain.parquet")
    footer.migrate(original, to="final", output=final)
    footer.migrate(final, to="plain", output=plain)
    a, b = pq.ParquetFile(original), pq.ParquetFile(plain)
    # The footer's own size differs by construction (the dropped bytes); everything else may not.
    ma, mb = a.metadata.to_dict(), b.metadata.to_dict()
    ma.pop("serialized_size"), mb.pop("serialized_size")
    return ma == mb and a.read().equals(b.read())


def main() -> int:
    from superspark import footer

    with tempfile.TemporaryDirectory() as d:
        files = write_pyarrow(d) + write_duckdb(d) + write_polars(d) + write_spark(d)
        root = os.environ.get("PARQUET_TESTING") or os.path.join(REPO, "..", "shared", "corpus", "parquet-testing")
        corpus = os.path.join(root, "data")
        if not os.path.isdir(corpus):
            print(f"[rebuild-survey] parquet-testing not found at {root}: set PARQUET_TESTING; the corpus part is left out",
                  file=sys.stderr)
        results = footer.roundtrip(*files) + (footer.roundtrip(corpus) if os.path.isdir(corpus) else [])
        counts = collections.defaultdict(collections.Counter)
        notes = []
        for r in results:
            counts[writer_of(r["path"])][r["status"]] += 1
            if r["status"] not in ("exact",):
                detail = r.get("reason") or r.get("message") or f"first difference at byte {r.get('first_difference')}"
                if r["status"] == "equivalent":
                    scratch = tempfile.mkdtemp(dir=d)
                    detail += f"; pyarrow reads the rebuilt footer identically: {pyarrow_reads_identically(r['path'], scratch)}"
                    shutil.rmtree(scratch)
                notes.append(f"  {r['status']:>10} {os.path.basename(r['path'])} ({r.get('created_by')}): {detail}")
        total = collections.Counter()
        for w in ("pyarrow", "duckdb", "polars", "spark", "parquet-testing"):
            c = counts[w]
            total.update(c)
            print(f"{w:>16}: {sum(c.values()):>3} files, exact {c['exact']}, equivalent {c['equivalent']}, "
                  f"different {c['different']}, refused {c['refused']}, error {c['error']}")
        print(f"{'total':>16}: {sum(total.values()):>3} files, exact {total['exact']}, equivalent {total['equivalent']}, "
              f"different {total['different']}, refused {total['refused']}, error {total['error']}")
        print("\n".join(notes))
        return 1 if total["different"] or total["error"] else 0


if __name__ == "__main__":
    sys.exit(main())
