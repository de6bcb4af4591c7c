"""Schema inference of the `bsup` source on malformed input: PERMISSIVE adds the corrupt-record
column (like Spark's JSON source), FAILFAST fails naming the file and the byte offset."""

import os

import pytest
from pyspark.sql import Row

from bsup_util import EOS, INT64, STRING, counted_signed, frame, rec_value, record_typedef, write

from shared_data import SUPERDB_MISSING, superdb_evidence

EVIDENCE = superdb_evidence()


def good_stream():
    t = record_typedef([("id", INT64), ("s", STRING)])
    v = rec_value(30, counted_signed(1), b"ok") + rec_value(30, counted_signed(2), b"two")
    return frame(0, t) + frame(1, v) + EOS


def evidence(name):
    if EVIDENCE is None:
        pytest.fail(SUPERDB_MISSING)
    with open(os.path.join(EVIDENCE, name), "rb") as f:
        return f.read()


def test_permissive_inference_adds_the_corrupt_column_for_a_bad_value(spark, tmp_dir):
    # The CLI's version 5 file of every primitive type, with the first byte of "hello" made invalid UTF-8.
    good = evidence("v5/primitives.nocomp.bsup")
    at = good.index(b"hello")
    bad = write(os.path.join(tmp_dir, "hello.bsup"), good[:at] + b"\xff" + good[at + 1:])
    ok = write(os.path.join(tmp_dir, "ok.bsup"), good)
    expected = spark.read.format("bsup").load(ok)
    assert "_corrupt_record" not in expected.columns
    df = spark.read.format("bsup").load(bad)
    # The data columns are those of the intact file, then the corrupt-record column.
    assert [f.name for f in df.schema.fields] == expected.columns + ["_corrupt_record"]
    assert [f.dataType for f in df.schema.fields[:-1]] == [f.dataType for f in expected.schema.fields]
    rows = df.collect()
    want = expected.collect()
    assert len(rows) == len(want)
    # The damaged value is a row of NULLs with the error: file, byte offset, reason.
    bad_rows = [i for i, r in enumerate(rows) if r._corrupt_record is not None]
    assert len(bad_rows) == 1
    i = bad_rows[0]
    assert all(x is None for x in rows[i][:-1])
    assert f"hello.bsup: byte offset {at}: invalid UTF-8 in a string value" in rows[i]._corrupt_record
    # Every other row is the intact file's.
    assert [tuple(r[:-1]) for j, r in enumerate(rows) if j != i] == [tuple(r) for j, r in enumerate(want) if j != i]
    # FAILFAST: a Spark error naming the file and the offset, already at inference.
    with pytest.raises(Exception) as e:
        spark.read.format("bsup").option("mode", "FAILFAST").load(bad)
    assert "MALFORMED_RECORD_IN_PARSING" in str(e.value)
    assert f"hello.bsup: byte offset {at}: invalid UTF-8" in str(e.value)
    assert "UNABLE_TO_INFER_SCHEMA" not in str(e.value)


def test_permissive_inference_on_a_truncated_file(spark, tmp_dir):
    # Two streams of our writer's kind; the second one's values frame is cut short.
    second = frame(0, record_typedef([("id", INT64), ("s", STRING)])) \
        + frame(1, rec_value(30, counted_signed(3), b"three") + rec_value(30, counted_signed(4), b"four"))
    data = good_stream() + second[:-3]
    cut = len(good_stream()) + len(frame(0, record_typedef([("id", INT64), ("s", STRING)])))
    p = write(os.path.join(tmp_dir, "cut.bsup"), data)
    df = spark.read.format("bsup").option("columnNameOfCorruptRecord", "bad").load(p)
    assert df.columns == ["id", "s", "bad"]
    rows = df.collect()
    assert [tuple(r) for r in rows[:2]] == [(1, "ok", None), (2, "two", None)]
    assert len(rows) == 3 and rows[2].id is None and rows[2].s is None
    assert f"cut.bsup: byte offset {cut}: frame length" in rows[2].bad and "runs past the end of the file" in rows[2].bad
    # DROPMALFORMED: the bad frame is dropped, no corrupt-record column.
    assert spark.read.format("bsup").option("mode", "DROPMALFORMED").load(p).collect() == \
        [Row(id=1, s="ok"), Row(id=2, s="two")]


def test_no_readable_value_gives_the_corrupt_column_alone(spark, tmp_dir):
    # The first frame's length runs past the end: nothing can be inferred.
    data = bytearray(good_stream())
    data[1] = 0x7F
    p = write(os.path.join(tmp_dir, "none.bsup"), bytes(data))
    df = spark.read.format("bsup").load(p)
    assert df.columns == ["_corrupt_record"]
    rows = df.collect()
    assert len(rows) == 1 and "none.bsup: byte offset 0: frame length" in rows[0]._corrupt_record
    for mode in ("FAILFAST", "DROPMALFORMED"):
        with pytest.raises(Exception) as e:
            spark.read.format("bsup").option("mode", mode).load(p).collect()
        assert "MALFORMED_RECORD_IN_PARSING" in str(e.value) and "none.bsup: byte offset 0:" in str(e.value), mode
    # An intact file next to it: its columns, and the corrupt-record column for the other's error.
    ok = write(os.path.join(tmp_dir, "ok.bsup"), good_stream())
    df = spark.read.format("bsup").load([ok, p])
    assert df.columns == ["id", "s", "_corrupt_record"]
    assert sorted((r.id, r.s, r._corrupt_record is None) for r in df.collect() if r.id is not None) == \
        [(1, "ok", True), (2, "two", True)]


def _read_with_threads(spark, threads, paths, **options):
    key = "spark.superspark.bsup.inference.threads"
    spark.conf.set(key, str(threads))
    try:
        return spark.read.format("bsup").options(**options).load(paths)
    finally:
        spark.conf.unset(key)


def test_parallel_inference_merges_types_in_file_order(spark, tmp_dir):
    # Column x is a string in the first file, which is the slowest to read (50,000 values), and
    # int64 in the 11 small ones after it. The union's members come in the order first seen,
    # file by file, however many threads read the files and whichever finishes first.
    paths = []
    for k in range(12):
        if k == 0:
            body = frame(0, record_typedef([("x", STRING)])) + frame(1, rec_value(30, b"first") * 50000)
        else:
            body = frame(0, record_typedef([("x", INT64)])) + frame(1, rec_value(30, counted_signed(k)))
        paths.append(write(os.path.join(tmp_dir, f"f{k:02d}.bsup"), body + EOS))
    serial = _read_with_threads(spark, 1, paths)
    parallel = _read_with_threads(spark, 8, paths)
    assert parallel.schema == serial.schema
    x = serial.schema["x"].dataType
    assert [f.name for f in x.fields] == ["selector", "string", "int64"]
    rows = parallel.collect()
    assert len(rows) == 50011
    assert sorted(r.x.int64 for r in rows if r.x.int64 is not None) == list(range(1, 12))
    assert sum(1 for r in rows if r.x.string == "first") == 50000


def test_parallel_inference_fails_on_the_first_bad_file_in_order(spark, tmp_dir):
    # Files 1 and 3 hold invalid UTF-8: file 1's bad value is its last of 50,000, file 3's its
    # first, so file 3's error is met first in time. FAILFAST names file 1 either way, as a
    # serial inference does.
    good = rec_value(30, b"ok")
    paths = []
    for k in range(5):
        values = {1: good * 49999 + rec_value(30, b"\xff"), 3: rec_value(30, b"\xff") + good}.get(k, good)
        data = frame(0, record_typedef([("x", STRING)])) + frame(1, values) + EOS
        paths.append(write(os.path.join(tmp_dir, f"g{k}.bsup"), data))
    for threads in (1, 8):
        with pytest.raises(Exception) as e:
            _read_with_threads(spark, threads, paths, mode="FAILFAST")
        assert "MALFORMED_RECORD_IN_PARSING" in str(e.value), threads
        assert "g1.bsup: byte offset" in str(e.value) and "g3.bsup" not in str(e.value), threads
    # The setting is validated like Spark's own.
    with pytest.raises(Exception) as e:
        spark.conf.set("spark.superspark.bsup.inference.threads", "0")
    assert "spark.superspark.bsup.inference.threads" in str(e.value) and "must be 1 or more" in str(e.value)
