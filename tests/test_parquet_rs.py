"""arrow-rs (the Rust ``parquet`` crate 60.1.0) as a second, independent reader and ALP writer
(docs/alp.md, "arrow-rs"): ``dev/parquet-rs-check``, built by ``make parquet-rs-check``.

- superspark's ratified ALP files read in arrow-rs with the same bits, value by value;
- arrow-rs's ALP files (V1 and V2 data pages, every codec both sides have) read in Spark
  through superspark with the same bits;
- footers in the plain, private and intermediate forms read the same values in arrow-rs (the
  footer suite's writers and the parquet-testing corpus after ``add``); the final form gets
  arrow-rs's refusal.

Expected values come from the data the test made (numpy bit patterns) or from arrow-rs's own
read of the file before ``add``; a missing checker or corpus fails, never skips.
"""

import glob
import json
import os
import shutil
import struct
import subprocess

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from superspark import footer

from shared_data import parquet_testing_data

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CHECK = os.path.join(REPO, "dev", "parquet-rs-check", "target", "debug", "parquet-rs-check")
CORPUS = parquet_testing_data() or os.path.join(REPO, "..", "shared", "corpus", "parquet-testing", "data")

# Codecs both sides write and read: Spark's parquet-java (no LZO, no BROTLI codec jar) and the
# checker's crate features (snap, flate2, lz4, zstd).
CODECS = ["uncompressed", "snappy", "gzip", "zstd", "lz4_raw", "lz4"]


@pytest.fixture(scope="module")
def rs():
    if not os.access(CHECK, os.X_OK):
        pytest.fail(f"{CHECK} is missing: build it with `make parquet-rs-check` (cargo, the parquet crate 60.1.0)")
    return CHECK


class RsRefused(RuntimeError):
    """arrow-rs could not read the file (the checker's exit code 3, its error)."""


class HadoopLz4Refused(RsRefused):
    """arrow-rs 60.1.0's refusal of a Hadoop-framed LZ4 page of several blocks (parquet-java's LZ4)."""


#: arrow-rs's error on a Hadoop-framed LZ4 page of several blocks
HADOOP_LZ4_ERROR = "the offset to copy is not contained in the decompressed buffer"


def dump(rs, path):
    p = subprocess.run([rs, "dump", path], capture_output=True, text=True)
    d = json.loads(p.stdout)
    if p.returncode != 0:
        error = d.get("error", p.stderr)
        raise (HadoopLz4Refused if p.returncode == 3 and HADOOP_LZ4_ERROR in error else RsRefused)(error)
    return d


def column(d, name):
    """(values, chunks) of a flat column over every row group: bit strings, None for nulls."""
    out, chunks = [], []
    for g in d["row_groups"]:
        [c] = [c for c in g["columns"] if c["path"] == name]
        chunks.append(c)
        vals = iter(c["values"])
        if c["max_def"] == 0:
            out.extend(vals)
        else:
            out.extend(next(vals) if lvl == c["max_def"] else None for lvl in c["def"])
    return out, chunks


def bits(arr):
    """numpy bit strings (as the checker prints them) of a pyarrow float/double array, None for nulls."""
    width = 16 if pa.types.is_float64(arr.type) else 8
    ints = np.asarray(arr.fill_null(0).to_numpy(zero_copy_only=False))
    ints = ints.view(np.uint64 if width == 16 else np.uint32)
    valid = arr.is_valid().to_numpy(zero_copy_only=False)
    return [format(int(v), f"0{width}x") if ok else None for v, ok in zip(ints, valid)]


def _from_bits(hexes, dtype):
    return np.array([int(h, 16) for h in hexes], dtype=np.uint64 if dtype == np.float64 else np.uint32).view(dtype)


# Special values, by bit pattern: NaN with payloads (quiet and signalling, both signs), +-0.0,
# +-inf, subnormals, the extremes.
DOUBLE_SPECIALS = _from_bits(["7ff8000000000000", "fff8000000000000", "7ff0000000000001", "7ff80000deadbeef",
                              "fff4000000000123", "0000000000000000", "8000000000000000", "7ff0000000000000",
                              "fff0000000000000", "0000000000000001", "800fffffffffffff", "7fefffffffffffff",
                              "ffefffffffffffff", "3ff0000000000000"], np.float64)
FLOAT_SPECIALS = _from_bits(["7fc00000", "ffc00000", "7f800001", "7fc0beef", "ffa00001",
                             "00000000", "80000000", "7f800000", "ff800000", "00000001", "807fffff",
                             "7f7fffff", "ff7fffff", "3f800000"], np.float32)


def _values(n, seed, dtype):
    """Decimal-like values (ALP's case) with specials and random exceptions sprinkled, and nulls."""
    rng = np.random.default_rng(seed)
    specials = DOUBLE_SPECIALS if dtype == np.float64 else FLOAT_SPECIALS
    # floats: a range where ALP still beats PLAIN (in +-5000 so many 2-decimal float32 values
    # are exceptions that ALP is larger than PLAIN, and the writer keeps PLAIN, docs/alp.md
    # "Which encoding a chunk gets")
    v = (np.round(rng.uniform(-5000, 5000, n) if dtype == np.float64 else rng.uniform(-100, 100, n), 2)).astype(dtype)
    at = rng.choice(n, size=n // 50, replace=False)
    v[at] = specials[rng.integers(0, len(specials), len(at))]
    ex = rng.choice(n, size=n // 40, replace=False)  # random doubles: ALP exceptions
    v[ex] = rng.standard_normal(len(ex)).astype(dtype) * dtype(1e7)
    nulls = rng.random(n) < 0.07
    return v, nulls


def _table(n, seed=7):
    d, dn = _values(n, seed, np.float64)
    f, fn = _values(n, seed + 1, np.float32)
    rep = ((np.arange(n) % 16) * 0.25).astype(np.float64)  # repeats: the codec pays on these pages
    return pa.table({
        "id": pa.array(np.arange(n, dtype=np.int64)),
        "d": pa.array(d, mask=dn),
        "f": pa.array(f, mask=fn),
        "req": pa.array(np.round(np.arange(n) * 0.01, 2)),  # required (not null), no exceptions
        "rep": pa.array(rep),
    }, schema=pa.schema([("id", pa.int64(), False), ("d", pa.float64()), ("f", pa.float32()),
                         ("req", pa.float64(), False), ("rep", pa.float64(), False)]))


# ------------------------------------------------------------------ superspark -> arrow-rs

@pytest.fixture(scope="module")
def spark_alp(spark, tmp_path_factory):
    """One source table through Spark, written in the ratified form with each codec."""
    n = 300_007  # several row groups, each with more than one 65,536-row page, a partial last vector
    t = _table(n)
    # random doubles, not ALP: parquet-java sizes row groups by its own (non-ALP) columns
    t = t.append_column("noise", pa.array(np.random.default_rng(3).standard_normal(n)))
    base = tmp_path_factory.mktemp("rs_alp")
    df = spark.createDataFrame(t).coalesce(1)
    files = {}
    for codec in CODECS:
        out = str(base / codec)
        df.write.option("alpColumns", "d,f,req,rep").option("alpForm", "ratified") \
            .option("compression", codec).option("parquet.block.size", str(2 << 20)).parquet(out)
        [f] = glob.glob(os.path.join(out, "*.parquet"))
        files[codec] = f
    return t, files


#: Hadoop-framed LZ4 (parquet-java's LZ4): a page over 256 KiB is one length header then several
#: compressed blocks; arrow-rs 60.1.0 reads one block per header and fails. An expected failure,
#: strict: it must fail with that refusal (a pass, once arrow-rs reads such pages, fails the run).
LZ4_READ_XFAIL = pytest.mark.xfail(
    strict=True, raises=HadoopLz4Refused,
    reason="arrow-rs 60.1.0 cannot read Hadoop-framed LZ4 pages of several blocks (parquet-java's own "
           "non-ALP pages of that size fail the same way: the codec's framing, not ALP)")


@pytest.mark.parametrize("codec", [pytest.param(c, marks=LZ4_READ_XFAIL) if c == "lz4" else c for c in CODECS])
def test_superspark_ratified_alp_reads_the_same_bits_in_arrow_rs(spark, rs, spark_alp, codec, tmp_path):
    t, files = spark_alp
    if codec == "lz4":
        # the control, not the expected failure: a plain (non-ALP) file of parquet-java's with LZ4
        # pages over 256 KiB gets the same refusal, so the failure below is the codec's framing
        out = str(tmp_path / "plain_lz4")
        spark.range(0, 200_000).selectExpr("id").coalesce(1).write.option("compression", "lz4") \
            .option("parquet.enable.dictionary", "false").option("parquet.page.row.count.limit", "100000") \
            .option("parquet.page.size", str(4 << 20)).parquet(out)
        [plain] = glob.glob(os.path.join(out, "*.parquet"))
        try:
            dump(rs, plain)
        except HadoopLz4Refused:
            pass
        else:
            raise AssertionError("arrow-rs now reads parquet-java's large LZ4 pages: drop the lz4 expected failure")
    d = dump(rs, files[codec])  # lz4: raises HadoopLz4Refused, the expected failure
    assert len(d["row_groups"]) >= 2 and d["num_rows"] == t.num_rows
    ids, _ = column(d, "id")
    order = [int(i) for i in ids]
    # the writer's choice per column chunk (superspark.alp.choices: row group, column, choice, reason)
    choices = {}
    for line in pq.ParquetFile(files[codec]).metadata.metadata[b"superspark.alp.choices"].decode().split("\n"):
        rg, col, choice, _reason = line.split("\t")
        choices.setdefault(col, []).append(choice)
    pages_of = {"alp": {"ALP"}, "kept PLAIN": {"PLAIN"}, "mixed": {"ALP", "PLAIN"}}
    for name in ("d", "f", "req", "rep"):
        got, chunks = column(d, name)
        want = bits(t.column(name).combine_chunks().take(pa.array(order)))
        assert got == want, name  # value by value: same bits, same nulls
        assert len(choices[name]) == len(chunks)
        for c, choice in zip(chunks, choices[name]):
            assert c["pages"] and {p["encoding"] for p in c["pages"]} == pages_of[choice], (name, choice)
            assert ("ALP" in c["encodings"]) == (choice != "kept PLAIN"), c["encodings"]
            assert {p["type"] for p in c["pages"]} == {"DATA_PAGE"}
    # decimal-like doubles (with exceptions and specials) are ALP in every chunk; the floats
    # (~28.5 bits a value in ALP, specials and exceptions included, against PLAIN's 32: close)
    # have ALP pages in every chunk uncompressed (some chunks mixed, page by page), and under a
    # codec whatever the samples say (the pages follow the choice, checked above)
    for name in ("d", "req"):
        assert set(choices[name]) == {"alp"}, (name, choices[name])
    if codec == "uncompressed":
        assert "alp" in choices["f"] and set(choices["f"]) <= {"alp", "mixed"}, choices["f"]
    # pages of at most 65,536 rows: some row group has several
    assert any(len(c["pages"]) > 1 for c in column(d, "d")[1])
    # the repeating column (16 values over and over): PLAIN through a codec is smaller than ALP,
    # so its pages are kept PLAIN and go through the codec; uncompressed, ALP wins
    rep = column(d, "rep")[1]
    if codec == "uncompressed":
        assert set(choices["rep"]) == {"alp"}
    else:
        assert set(choices["rep"]) == {"kept PLAIN"}, choices["rep"]
        assert {c["codec"] for c in rep} == {codec.upper()}
    # the specials are there (the test checks something)
    got_d = set(column(d, "d")[0])
    assert {"7ff80000deadbeef", "8000000000000000", "fff0000000000000", "0000000000000001"} <= got_d


def test_superspark_private_alp_reads_the_same_bits_in_arrow_rs(spark, rs, tmp_path):
    """The private form keeps ordinary chunks (ALP lives in superspark's extension): arrow-rs
    reads them with the same bits as the same table written without ALP (parquet-java's PLAIN
    writer canonicalizes NaN payloads in both), and sees no ALP encoding."""
    t = _table(70_001)
    df = spark.createDataFrame(t).coalesce(1)
    files = {}
    for form in ("private", "none"):
        out = str(tmp_path / form)
        w = df.write.option("compression", "snappy")
        if form == "private":
            w = w.option("alpColumns", "d,f,req,rep").option("alpForm", "private")
        w.parquet(out)
        [files[form]] = glob.glob(os.path.join(out, "*.parquet"))
    assert pq.ParquetFile(files["private"]).metadata.metadata[b"superspark.alp"] == b"private"
    private, plain = dump(rs, files["private"]), dump(rs, files["none"])
    assert private["num_rows"] == plain["num_rows"] == t.num_rows
    for name in ("id", "d", "f", "req", "rep"):
        got, chunks = column(private, name)
        assert got == column(plain, name)[0], name
        assert all("ALP" not in c["encodings"] for c in chunks), name
    # and those are the table's values, NaN payloads aside
    ids = [int(i) for i in column(private, "id")[0]]
    want = bits(t.column("req").combine_chunks().take(pa.array(ids)))
    assert column(private, "req")[0] == want


# ------------------------------------------------------------------ arrow-rs -> superspark

def _write_rs(rs, tmp_path, name, arr, nullable, codec, version, per_group, page_rows):
    valid = arr.is_valid().to_numpy(zero_copy_only=False)
    np_vals = np.asarray(arr.fill_null(0).to_numpy(zero_copy_only=False))
    (tmp_path / f"{name}.values").write_bytes(np_vals[valid].tobytes())
    (tmp_path / f"{name}.nulls").write_bytes((~valid).astype(np.uint8).tobytes())
    out = str(tmp_path / f"{name}.parquet")
    ty = "double" if pa.types.is_float64(arr.type) else "float"
    subprocess.run([rs, "write-alp", out, ty, "1" if nullable else "0", codec, str(version), str(per_group),
                    str(page_rows), str(tmp_path / f"{name}.values"), str(tmp_path / f"{name}.nulls")], check=True)
    return out


@pytest.mark.parametrize("version", [1, 2])
@pytest.mark.parametrize("codec", CODECS)
def test_arrow_rs_alp_reads_the_same_bits_in_superspark(spark, rs, tmp_path, codec, version):
    n = 70_003
    t = _table(n, seed=11)
    cases = [("d", True, 30_000, 7_000), ("f", True, 25_000, 4_096), ("req", False, 65_536, 65_536),
             ("rep", False, 20_000, 1_000)]
    for name, nullable, per_group, page_rows in cases:
        if codec == "lz4":
            # Hadoop-framed LZ4: arrow-rs writes a page as one block, and parquet-java's decompressor
            # fails on one of 512 KB (65,536 int64 ids: "LZ4Exception: Error decoding offset") while
            # 240 KB pages read: keep every page of the file (the ids too) at 30,000 rows or fewer
            page_rows, per_group = min(page_rows, 30_000), min(per_group, 30_000)
        arr = t.column(name).combine_chunks()
        path = _write_rs(rs, tmp_path, f"{name}_{codec}_v{version}", arr, nullable, codec, version, per_group,
                         page_rows)
        d = dump(rs, path)  # arrow-rs wrote ALP pages of the asked version
        vals, chunks = column(d, "v")
        assert len(chunks) == -(-n // per_group)
        kinds = {p["type"] for c in chunks for p in c["pages"]}
        assert kinds == {"DATA_PAGE" if version == 1 else "DATA_PAGE_V2"}, kinds
        assert {p["encoding"] for c in chunks for p in c["pages"]} == {"ALP"}
        assert vals == bits(arr)  # arrow-rs reads back what it was given

        df = spark.read.parquet(path)
        got = df.orderBy("id").toArrow()
        assert got.column("id").to_pylist() == list(range(n))
        assert bits(got.column("v").combine_chunks()) == bits(arr), (name, codec, version)
        scans = df.selectExpr("count(v)", "count(*)").collect()[0]
        assert (scans[0], scans[1]) == (n - arr.null_count, n)


# ------------------------------------------------------------------ footers

def _footer_table_files(tmp_path):
    """The footer suite's writers (tests/test_footer_forms.py's table): pyarrow, DuckDB, Polars."""
    import duckdb
    import polars as pl

    n = 400
    t = pa.table({
        "id": pa.array(range(n), pa.int64()),
        "f": pa.array([None if i % 9 == 0 else i / 7 for i in range(n)], pa.float64()),
        "s": pa.array([None if i % 5 == 0 else f"v{i:04d}" for i in range(n)]),
        "lst": pa.array([[i, i * 2] for i in range(n)], pa.list_(pa.int32())),
    })
    out = {}
    p = str(tmp_path / "pyarrow.parquet")
    pq.write_table(t, p, row_group_size=100)
    out["pyarrow"] = p
    p = str(tmp_path / "duckdb.parquet")
    con = duckdb.connect()
    con.register("t", t)
    con.execute(f"COPY t TO '{p}' (FORMAT parquet, ROW_GROUP_SIZE 100)")
    out["duckdb"] = p
    p = str(tmp_path / "polars.parquet")
    pl.from_arrow(t).write_parquet(p, row_group_size=100, statistics="full")
    out["polars"] = p
    return out


def _values_of(d):
    """Everything the checker read, without what a footer rewrite may change (nothing else)."""
    return [[(c["path"], c["physical"], c["def"], c["rep"], c["values"]) for c in g["columns"]]
            for g in d["row_groups"]]


def _check_forms(rs, original, work):
    base = dump(rs, original)
    shutil.copy(original, work)
    seen = []
    for form in ("private", "intermediate", "plain", "intermediate", "private", "final"):
        [r] = footer.migrate(work, to=form)
        assert r["status"] in ("migrated", "unchanged"), r
        assert footer.inspect(work)[0]["form"] == form
        if form == "final":
            p = subprocess.run([rs, "dump", work], capture_output=True, text=True)
            assert p.returncode == 3, p.stdout
            assert "Corrupt footer" in json.loads(p.stdout)["error"]
        else:
            d = dump(rs, work)
            assert d["num_rows"] == base["num_rows"]
            assert _values_of(d) == _values_of(base), form
        seen.append(form)
    return base


@pytest.mark.parametrize("writer", ["pyarrow", "duckdb", "polars"])
def test_footer_forms_read_the_same_in_arrow_rs(rs, tmp_path, writer):
    files = _footer_table_files(tmp_path)
    base = _check_forms(rs, files[writer], str(tmp_path / "work.parquet"))
    # arrow-rs's read of the original is right (independent of superspark): pyarrow's values
    ref = pq.read_table(files[writer])
    ids, _ = column(base, "id")
    assert [int(i) for i in ids] == ref.column("id").to_pylist()
    fs, _ = column(base, "f")
    assert fs == bits(ref.column("f").combine_chunks())


def test_corpus_after_add_reads_the_same_in_arrow_rs(rs, tmp_path):
    """Every parquet-testing file that arrow-rs reads and ``add`` gives the footer: each form
    reads the same values in arrow-rs as the original; the final form is refused."""
    if not os.path.isdir(CORPUS):
        pytest.fail(f"the parquet-testing corpus is missing at {CORPUS} (../shared/corpus)")
    names = sorted(f for f in os.listdir(CORPUS) if f.endswith(".parquet"))
    checked, not_read, not_added = [], [], []
    for name in names:
        src = os.path.join(CORPUS, name)
        p = subprocess.run([rs, "dump", src], capture_output=True, text=True)
        if p.returncode != 0:
            not_read.append(name)  # arrow-rs's own limits (encrypted, malformed, ...): not ours to compare
            continue
        work = str(tmp_path / name)
        shutil.copy(src, work)
        [r] = footer.add(work)
        if r["status"] != "added":
            not_added.append((name, r["status"]))
            continue
        _check_forms(rs, src, str(tmp_path / ("w_" + name)))
        checked.append(name)
    print(f"corpus: {len(checked)} files checked in every form, {len(not_read)} not read by arrow-rs "
          f"({not_read}), {len(not_added)} not added ({not_added})")
    assert len(names) > 50 and len(checked) >= 40, (len(names), len(checked))
    assert all(s == "refused" for _, s in not_added), not_added


@pytest.mark.parametrize("version", [1, 2])
def test_pyarrow_and_duckdb_on_arrow_rs_alp_files(rs, tmp_path, version):
    """docs/alp.md's reader table, arrow-rs rows: pyarrow 26 reads the footer and the other
    columns but not ALP pages; DuckDB 2.0 refuses the file (any column)."""
    import duckdb

    arr = pa.array(np.round(np.arange(5000) * 0.01, 2))
    f = _write_rs(rs, tmp_path, f"other_v{version}", arr, False, "zstd", version, 3000, 1000)
    meta = pq.ParquetFile(f).metadata
    assert meta.num_rows == 5000 and "UNKNOWN" in meta.row_group(0).column(1).encodings
    with pytest.raises(OSError, match="Unknown encoding type"):
        pq.read_table(f, columns=["v"])
    assert pq.read_table(f, columns=["id"]).column("id").to_pylist() == list(range(5000))
    for col in ("v", "id"):
        with pytest.raises(duckdb.Error, match="Invalid data"):
            duckdb.sql(f"SELECT sum({col}) FROM '{f}'").fetchall()
