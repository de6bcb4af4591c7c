"""ALP forms (docs/alp.md) written by Spark through superspark, read by other tools:
the private form reads identically in pyarrow, DuckDB, Polars and Spark's own reader;
the ratified form is read by superspark only (pyarrow and Spark's own reader fail, with
their errors recorded); ``alp-decode`` turns both into files every reader opens."""

import glob
import os

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from superspark import footer


def _files(path):
    return sorted(glob.glob(os.path.join(path, "*.parquet")))


def _arrow(path):
    t = pa.concat_tables([pq.read_table(f) for f in _files(path)])
    return t.sort_by("id")


@pytest.fixture(scope="module")
def written(spark, tmp_path_factory):
    base = str(tmp_path_factory.mktemp("alp_forms"))
    df = spark.range(0, 20000, 1, 2).selectExpr(
        "id",
        "ROUND(id * 0.01D + 2.5D, 2) AS price",
        "IF(id % 9 = 0, NULL, CAST(ROUND(id / 3.0, 1) AS FLOAT)) AS temp",
        "IF(id % 7 = 0, NULL, id * 1.0e-3D) AS reading",
        "CONCAT('s', CAST(id % 10 AS STRING)) AS tag")
    paths = {name: os.path.join(base, name) for name in ("plain", "private", "ratified")}
    opts = {"parquet.block.size": "65536"}
    df.write.options(**opts).parquet(paths["plain"])
    df.write.options(**opts, alpColumns="*").parquet(paths["private"])
    df.write.options(**opts, alpColumns="price,temp", alpForm="ratified").parquet(paths["ratified"])
    return paths


def test_private_form_reads_identically_everywhere(spark, written):
    plain = _arrow(written["plain"])
    private = _arrow(written["private"])
    assert private.equals(plain)
    assert pq.ParquetFile(_files(written["private"])[0]).metadata.metadata[b"superspark.alp"] == b"private"

    import duckdb
    q = "SELECT id, price, temp, reading, tag FROM read_parquet('{}/*.parquet') ORDER BY id"
    assert duckdb.sql(q.format(written["private"])).fetchall() == duckdb.sql(q.format(written["plain"])).fetchall()

    import polars as pl
    a = pl.read_parquet(os.path.join(written["private"], "*.parquet")).sort("id")
    b = pl.read_parquet(os.path.join(written["plain"], "*.parquet")).sort("id")
    assert a.equals(b)

    # Spark's own Parquet reader (superspark's read path off) reads the ordinary chunks.
    spark.conf.set("spark.superspark.parquet.footer.read", "false")
    try:
        own = spark.read.parquet(written["private"]).orderBy("id").collect()
    finally:
        spark.conf.unset("spark.superspark.parquet.footer.read")
    assert own == spark.read.parquet(written["plain"]).orderBy("id").collect()


def test_private_form_is_larger_ratified_smaller(written):
    size = {k: sum(os.path.getsize(f) for f in _files(p)) for k, p in written.items()}
    assert size["private"] > size["plain"] > size["ratified"]


def test_superspark_reads_both_forms(spark, written):
    plain = spark.read.parquet(written["plain"]).orderBy("id").collect()
    for form in ("private", "ratified"):
        df = spark.read.parquet(written[form])
        assert df.schema == spark.read.parquet(written["plain"]).schema
        assert df.orderBy("id").collect() == plain
        got = df.where("price BETWEEN 100 AND 101").selectExpr("sum(price)", "count(temp)").collect()
        want = spark.read.parquet(written["plain"]).where("price BETWEEN 100 AND 101") \
            .selectExpr("sum(price)", "count(temp)").collect()
        assert got == want


def test_ratified_form_other_readers_fail(spark, written):
    f = _files(written["ratified"])[0]
    # pyarrow 26 reads the footer (schema, statistics; ALP shows as UNKNOWN) but not ALP pages.
    meta = pq.ParquetFile(f).metadata
    assert meta.schema.names == ["id", "price", "temp", "reading", "tag"]
    price = meta.row_group(0).column(1)
    assert "UNKNOWN" in price.encodings and price.statistics.has_min_max
    with pytest.raises(OSError, match="Unknown encoding type"):
        pq.read_table(f, columns=["price"])
    # The other columns still read.
    assert pq.read_table(f, columns=["id", "reading"]).num_rows == meta.num_rows

    import duckdb
    with pytest.raises(duckdb.Error, match="Invalid data"):
        duckdb.sql(f"SELECT sum(price) FROM '{f}'").fetchall()

    spark.conf.set("spark.superspark.parquet.footer.read", "false")
    try:
        with pytest.raises(Exception) as e:
            spark.read.parquet(written["ratified"]).select("price").collect()
    finally:
        spark.conf.unset("spark.superspark.parquet.footer.read")
    assert "Required field 'encoding' was not present" in str(e.value)


def test_alp_decode_makes_plain_files(spark, written, tmp_path):
    plain = _arrow(written["plain"])
    for form in ("ratified", "private"):
        out = str(tmp_path / form)
        results = footer.alp_decode(written[form], output=out)
        assert {r["status"] for r in results} == {"decoded"}
        if form == "ratified":
            assert all(r["alp_chunks_decoded"] > 0 and r["private_alp_dropped"] == 0 for r in results)
        else:
            assert all(r["alp_chunks_decoded"] == 0 and r["private_alp_dropped"] > 0 for r in results)
            assert all(r["bytes_after"] < r["bytes_before"] for r in results)
        decoded = _arrow(out)
        assert decoded.equals(plain)
        for f in _files(out):
            md = pq.ParquetFile(f).metadata
            assert b"superspark.alp" not in (md.metadata or {})
            assert all("ALP" not in str(md.row_group(0).column(c).encodings) for c in range(md.num_columns))
        assert spark.read.parquet(out).orderBy("id").collect() == \
            spark.read.parquet(written["plain"]).orderBy("id").collect()
    # a file without ALP data is left as it is
    again = footer.alp_decode(str(tmp_path / "ratified"))
    assert {r["status"] for r in again} == {"unchanged"}


def _chunk_choices(path):
    """footer inspect's ALP entries of every file: {(file, row group, column): (encoding, reason)}."""
    out = {}
    for r in footer.inspect(path):
        for c in r.get("alp_chunks", []):
            out[(r["path"], c["row_group"], c["column"])] = (c["encoding"], c["reason"])
    return out


@pytest.mark.parametrize("form", ["private", "ratified"])
def test_random_doubles_keep_the_ordinary_encoding(spark, tmp_path, form):
    """The writer samples each chunk: random doubles (ALP's bad case) keep PLAIN, so every
    reader reads them, with the values Spark wrote; decimal-like prices get ALP. inspect says why."""
    df = spark.range(0, 30000, 1, 2).selectExpr(
        "id", "ROUND(id * 0.01D, 2) AS price",
        "pmod(xxhash64(id), 9007199254740992) / 9007199254740992.0D AS noise")
    plain, alp = str(tmp_path / "plain"), str(tmp_path / form)
    df.write.parquet(plain)
    df.write.option("alpColumns", "price,noise").option("alpForm", form).parquet(alp)

    choices = _chunk_choices(alp)
    noise = {k: v for k, v in choices.items() if k[2] == "noise"}
    price = {k: v for k, v in choices.items() if k[2] == "price"}
    assert len(noise) == len(price) == len(_files(alp))  # one row group a file here
    kept = "kept PLAIN+SNAPPY" if form == "private" else "kept PLAIN"
    for encoding, reason in noise.values():
        assert encoding == kept
        # "ALP estimate 80.1 bits/value > PLAIN+SNAPPY 64.0[; 0 ALP, 1 PLAIN pages]"
        words = reason.split()
        assert words[:2] == ["ALP", "estimate"] and words[4] == ">" and words[5] == "PLAIN+SNAPPY"
        assert float(words[2]) > float(words[6].rstrip(";")) > 60
    for encoding, reason in price.values():
        assert encoding == "alp" and " <= PLAIN+SNAPPY " in reason

    # pyarrow reads the noise column (an ordinary PLAIN chunk in either form) with Spark's values
    want = _arrow(plain).select(["id", "noise"])
    got = pa.concat_tables([pq.read_table(f, columns=["id", "noise"]) for f in _files(alp)]).sort_by("id")
    assert got.equals(want)
    for f in _files(alp):
        md = pq.ParquetFile(f).metadata
        names = md.schema.names
        enc = md.row_group(0).column(names.index("noise")).encodings
        assert "UNKNOWN" not in enc and ("PLAIN" in enc)
        if form == "ratified":
            assert "UNKNOWN" in md.row_group(0).column(names.index("price")).encodings  # ALP

    # vanilla Spark (superspark's read path off) reads it too, and superspark reads everything
    spark.conf.set("spark.superspark.parquet.footer.read", "false")
    try:
        own = spark.read.parquet(alp).select("id", "noise").orderBy("id").collect()
    finally:
        spark.conf.unset("spark.superspark.parquet.footer.read")
    assert own == spark.read.parquet(plain).select("id", "noise").orderBy("id").collect()
    assert spark.read.parquet(alp).orderBy("id").collect() == spark.read.parquet(plain).orderBy("id").collect()
