"""Footer forms through the Python API and CLI: migrate between private, intermediate,
final (PAR3) and plain on files written by pyarrow, DuckDB and Polars; Spark reads every
form; final -> plain restores the original bytes."""

import contextlib
import io
import os
import shutil

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from superspark import footer

UUID1 = "bb020e68-d327-4698-a215-465ff5dc7e44"
UUID2 = "0bf05d6e-a6b1-4680-8f44-7ab52410a75f"


def _table(n=400):
    return pa.table({
        "id": pa.array(range(n), pa.int64()),
        "f": pa.array([None if i % 9 == 0 else i / 7 for i in range(n)], pa.float64()),
        "s": pa.array([None if i % 5 == 0 else f"v{i:04d}" for i in range(n)]),
        "lst": pa.array([[i, i * 2] for i in range(n)], pa.list_(pa.int32())),
    })


def _write(kind, path):
    t = _table()
    if kind == "pyarrow":
        pq.write_table(t, path, row_group_size=100)
    elif kind == "duckdb":
        import duckdb

        con = duckdb.connect()
        con.register("t", t)
        con.execute(f"COPY t TO '{path}' (FORMAT parquet, ROW_GROUP_SIZE 100)")
    else:
        import polars as pl

        pl.from_arrow(t).write_parquet(path, row_group_size=100, statistics="full")
    return path


def _cli(*args):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = footer.main(list(args))
    return code, out.getvalue()


@pytest.mark.parametrize("kind", ["pyarrow", "duckdb", "polars"])
def test_migrate_through_every_form_and_back(tmp_path, kind):
    original = _write(kind, str(tmp_path / f"{kind}.parquet"))
    raw = open(original, "rb").read()
    expected = pq.read_table(original)
    assert footer.roundtrip(original)[0]["status"] == "exact"

    work = str(tmp_path / "work.parquet")
    shutil.copy(original, work)
    for form in ["private", "intermediate", "final", "intermediate", "private", "final", "plain"]:
        [r] = footer.migrate(work, to=form)
        assert r["status"] == "migrated" and r["to"] == form, r
        data = open(work, "rb").read()
        [i] = footer.inspect(work)
        assert i["form"] == form and i["num_rows"] == 400
        if form == "final":
            assert data[-4:] == b"PAR3" and "uuid" not in i and i["metadata_source"] == "flatbuffer"
            with pytest.raises(Exception):
                pq.read_table(work)  # no other reader opens a PAR3 file
        else:
            assert data[-4:] == b"PAR1"
            assert pq.read_table(work).equals(expected)
            if form != "plain":
                assert i["uuid"] == (UUID1 if form == "private" else UUID2)
        if form != "plain":
            assert footer.verify(work)[0]["status"] == "valid"
        # only the tail changes: the data pages are the original bytes
        start = i["footer_offset"]
        assert data[:start] == raw[:start]
    assert open(work, "rb").read() == raw


def test_spark_reads_final_files_written_by_tools_and_by_spark(spark, tmp_path):
    src = str(tmp_path / "src")
    os.makedirs(src)
    for k in range(2):
        pq.write_table(_table().slice(k * 200, 200), os.path.join(src, f"part-{k}.parquet"), row_group_size=50)
    expected = sorted(spark.read.parquet(src).collect())
    final = str(tmp_path / "final")
    results = footer.migrate(src, to="final", output=final)
    assert [r["status"] for r in results] == ["migrated", "migrated"]
    df = spark.read.parquet(final)
    assert df.schema == spark.read.parquet(src).schema
    assert sorted(df.collect()) == expected
    assert df.where("id % 10 = 3").count() == 40

    out = str(tmp_path / "spark_final")
    spark.conf.set("spark.superspark.parquet.footer.write", "true")
    spark.conf.set("spark.superspark.parquet.footer.form", "final")
    try:
        spark.read.parquet(src).write.parquet(out)
    finally:
        spark.conf.unset("spark.superspark.parquet.footer.form")
        spark.conf.unset("spark.superspark.parquet.footer.write")
    files = sorted(f for f in os.listdir(out) if f.endswith(".parquet"))
    assert files and all(open(os.path.join(out, f), "rb").read()[-4:] == b"PAR3" for f in files)
    assert sorted(spark.read.parquet(out).collect()) == expected
    plain = str(tmp_path / "plain")
    footer.migrate(out, to="plain", output=plain)
    assert sorted(pq.read_table(plain).to_pylist(), key=lambda r: r["id"]) == \
        sorted(_table().to_pylist(), key=lambda r: r["id"])


def test_cli_migrate_and_roundtrip(tmp_path):
    f = _write("pyarrow", str(tmp_path / "a.parquet"))
    out = str(tmp_path / "a.final.parquet")
    code, text = _cli("migrate", "--to", "final", "--output", out, f)
    assert code == 0 and text.startswith(f"migrated {out}") and "plain -> final" in text
    assert _cli("migrate", "--to", "final", out)[1].startswith(f"unchanged {out}")
    code, text = _cli("inspect", out)
    assert code == 0 and "final form" in text
    code, text = _cli("roundtrip", f)
    assert code == 0 and text.strip() == f"exact {f}"
    assert _cli("migrate", "--to", "par3", f)[0] == 64
    assert _cli("migrate", f)[0] == 64  # --to is required
    with pytest.raises(ValueError, match="unknown footer form"):
        footer.migrate(f, to="v3")


def test_damaged_final_file_is_reported_not_read(tmp_path):
    f = _write("pyarrow", str(tmp_path / "a.parquet"))
    footer.migrate(f, to="final")
    data = bytearray(open(f, "rb").read())
    data[-30] ^= 0x01  # inside the FlatBuffer, before its CRC
    open(f, "wb").write(bytes(data))
    [r] = footer.inspect(f)
    assert r["status"] == "corrupt" and "flatbuffer_crc_mismatch" in r["reason"]
    [m] = footer.migrate(f, to="plain")
    assert m["status"] == "error" and f in m["message"] and "byte" in m["message"]
    assert footer.verify(f)[0]["status"] == "corrupt"
