"""End-to-end tests of the `bsup` data source (Super Binary) through PySpark."""

import datetime
import decimal
import glob
import os

import pytest
from pyspark.errors import PySparkException
from pyspark.sql import Row
from pyspark.sql import functions as F
from pyspark.sql import types as T

from bsup_util import (BOOL, EOS, FLOAT64, INT64, IP, NET, STRING, TIME, UINT64, UINT8, counted_signed,
                       counted_unsigned, f64, frame, name, rec_value, record_typedef, tagged, uvarint, write)


ALL_TYPES = T.StructType([
    T.StructField("bool", T.BooleanType()),
    T.StructField("byte", T.ByteType()),
    T.StructField("short", T.ShortType()),
    T.StructField("int", T.IntegerType()),
    T.StructField("long", T.LongType()),
    T.StructField("float", T.FloatType()),
    T.StructField("double", T.DoubleType()),
    T.StructField("dec", T.DecimalType(10, 3)),
    T.StructField("str", T.StringType()),
    T.StructField("bin", T.BinaryType()),
    T.StructField("date", T.DateType()),
    T.StructField("ts", T.TimestampType()),
    T.StructField("ntz", T.TimestampNTZType()),
    T.StructField("dti", T.DayTimeIntervalType()),
    T.StructField("arr", T.ArrayType(T.LongType())),
    T.StructField("map", T.MapType(T.StringType(), T.DoubleType())),
    T.StructField("st", T.StructType([T.StructField("x", T.IntegerType()), T.StructField("y", T.StringType())])),
    T.StructField("nested", T.ArrayType(T.StructType([T.StructField("m", T.MapType(T.LongType(), T.ArrayType(T.StringType())))]))),
])

ROWS = [
    (True, -128, -32768, -2147483648, -9223372036854775808, 1.5, float("inf"), decimal.Decimal("-1234567.125"),
     "héllo ✓", b"\x00\xff", datetime.date(1969, 12, 31), datetime.datetime(2024, 2, 29, 12, 0, 0, 123456),
     datetime.datetime(1900, 1, 1, 0, 0, 0, 1), datetime.timedelta(days=-3, microseconds=7),
     [1, None, 3], {"a": 1.0, "b": None}, (1, None), [({5: ["x", None]},), None]),
    (False, 127, 32767, 2147483647, 9223372036854775807, float("-inf"), float("nan"), decimal.Decimal("0.001"),
     "", b"", datetime.date(2262, 4, 11), datetime.datetime(1970, 1, 1), datetime.datetime(2100, 12, 31, 23, 59, 59),
     datetime.timedelta(0), [], {}, (None, ""), []),
    (None,) * 18,
]


@pytest.fixture
def utc(spark):
    old = spark.conf.get("spark.sql.session.timeZone")
    spark.conf.set("spark.sql.session.timeZone", "UTC")
    yield
    spark.conf.set("spark.sql.session.timeZone", old)


def test_round_trip_all_spark_types(spark, tmp_dir, utc):
    df = spark.createDataFrame(ROWS, ALL_TYPES)
    out = os.path.join(tmp_dir, "all")
    df.write.format("bsup").save(out)
    assert glob.glob(os.path.join(out, "*.bsup"))
    back = spark.read.format("bsup").load(out)
    types = {f.name: f.dataType for f in back.schema.fields}
    # The documented mapping: date and timestamp_ntz become time (timestamp), decimal SuperDB's
    # named float64 deciaml_<scale>_<precision> (read back as the decimal), intervals duration (long ns).
    assert types["byte"] == T.ByteType() and types["short"] == T.ShortType()
    assert types["int"] == T.IntegerType() and types["long"] == T.LongType()
    assert types["float"] == T.FloatType() and types["double"] == T.DoubleType()
    assert types["dec"] == T.DecimalType(10, 3) and types["date"] == T.TimestampType()
    assert types["dti"] == T.LongType()
    assert types["nested"] == ALL_TYPES["nested"].dataType
    meta = {f.name: f.metadata.get("super.type") for f in back.schema.fields}
    assert meta["dec"] == "deciaml_3_10=float64" and meta["dti"] == "duration" and meta["short"] == "int16"
    got = sorted(back.collect(), key=lambda r: (r["bool"] is None, r["bool"] or False))
    r0 = [r for r in got if r["bool"] is True][0]
    assert r0["byte"] == -128 and r0["long"] == -9223372036854775808
    assert r0["dec"] == decimal.Decimal("-1234567.125")
    assert r0["str"] == "héllo ✓" and bytes(r0["bin"]) == b"\x00\xff"
    assert r0["date"] == datetime.datetime(1969, 12, 31)
    assert r0["ts"] == datetime.datetime(2024, 2, 29, 12, 0, 0, 123456)
    assert r0["ntz"] == datetime.datetime(1900, 1, 1, 0, 0, 0, 1)
    assert r0["dti"] == (-3 * 86400 * 10**6 + 7) * 1000
    assert r0["arr"] == [1, None, 3] and r0["map"] == {"a": 1.0, "b": None}
    assert r0["st"] == Row(x=1, y=None)
    assert r0["nested"] == [Row(m={5: ["x", None]}), None]
    r1 = [r for r in got if r["bool"] is False][0]
    assert r1["double"] != r1["double"]  # NaN
    assert r1["float"] == float("-inf") and r1["str"] == "" and bytes(r1["bin"]) == b""
    assert r1["arr"] == [] and r1["map"] == {} and r1["nested"] == []
    assert all(v is None for v in got[-1])
    # With the user's schema everything comes back as the original Spark types.
    exact = spark.read.format("bsup").schema(ALL_TYPES.add("extra", T.StringType())).load(out)
    rows = {r["bool"]: r for r in exact.collect()}
    assert rows[True]["dec"] == decimal.Decimal("-1234567.125")
    assert rows[True]["date"] == datetime.date(1969, 12, 31)
    assert rows[True]["dti"] == datetime.timedelta(days=-3, microseconds=7)
    assert rows[True]["extra"] is None
    assert rows[False]["date"] == datetime.date(2262, 4, 11)


def test_reference_vector_and_super_types_restored_on_write(spark, tmp_dir, utc):
    # NOTES.md: {_path:"a",ts:1970-01-01T00:00:10Z,d:1.} then {_path:"xyz",ts:...20Z,d:1.5}
    vec = bytes.fromhex(
        "00 01 00 03 05 5f 70 61 74 68 19 02 74 73 0d 01 64 10 13 01 1e 12 02 61 06 00 c8 17 a8 04"
        "09 00 00 00 00 00 00 f0 3f 15 01 1e 14 04 78 79 7a 06 00 90 2f 50 09 09 00 00 00 00 00 00"
        "f8 3f ff".replace(" ", ""))
    p = write(os.path.join(tmp_dir, "vec.bsup"), vec)
    rows = spark.read.format("bsup").load(p).collect()
    assert rows == [Row(_path="a", ts=datetime.datetime(1970, 1, 1, 0, 0, 10), d=1.0),
                    Row(_path="xyz", ts=datetime.datetime(1970, 1, 1, 0, 0, 20), d=1.5)]
    # uint64, uint8, ip, net, named type: read, written back, read again with the same Super types.
    types = record_typedef([("u", UINT64), ("small", UINT8), ("addr", IP), ("n", NET)])
    types += b"\x07" + name("port") + uvarint(1)  # 31: port=uint16
    types += record_typedef([("u", UINT64), ("small", UINT8), ("addr", IP), ("n", NET), ("p", 31)])  # 32
    vals = rec_value(32, counted_unsigned(2**64 - 1), counted_unsigned(255), bytes([10, 0, 0, 1]),
                     bytes([192, 168, 0, 0, 255, 255, 0, 0]), counted_unsigned(8080))
    vals += rec_value(32, counted_unsigned(0), None, bytes(15) + b"\x01",
                      bytes.fromhex("20010db8" + "00" * 12 + "ffffffff" + "00" * 12), None)
    src = write(os.path.join(tmp_dir, "typed.bsup"), frame(0, types) + frame(1, vals) + EOS)
    df = spark.read.format("bsup").load(src)
    assert [f.dataType for f in df.schema.fields] == [
        T.DecimalType(20, 0), T.ShortType(), T.StringType(), T.StringType(), T.IntegerType()]
    assert df.schema["p"].metadata["super.type"] == "port=uint16"
    assert df.collect() == [
        Row(u=decimal.Decimal(2**64 - 1), small=255, addr="10.0.0.1", n="192.168.0.0/16", p=8080),
        Row(u=decimal.Decimal(0), small=None, addr="::1", n="2001:db8::/32", p=None)]
    out = os.path.join(tmp_dir, "typed_out")
    df.write.format("bsup").option("compression", "none").save(out)
    again = spark.read.format("bsup").load(out)
    assert {f.name: f.metadata["super.type"] for f in again.schema.fields} == {
        "u": "uint64", "small": "uint8", "addr": "ip", "n": "net", "p": "port=uint16"}
    assert sorted(again.collect(), key=lambda r: r.u) == sorted(df.collect(), key=lambda r: r.u)
    # The typedef bytes on disk are the same record type (uint64 stays uint64, ip stays ip).
    data = open(glob.glob(os.path.join(out, "*.bsup"))[0], "rb").read()
    assert b"\x07" + name("port") + b"\x01" + record_typedef(
        [("u", UINT64), ("small", UINT8), ("addr", IP), ("n", NET), ("p", 30)]) in data
    # A value that does not fit its kept Super type fails the write with a clear message.
    bad = spark.createDataFrame([("not an ip",)], "addr string")
    bad = bad.select(F.col("addr").alias("addr", metadata={"super.type": "ip"}))
    with pytest.raises(Exception, match="not an IP address"):
        bad.write.format("bsup").save(os.path.join(tmp_dir, "bad_ip"))


def test_heterogeneous_stream_merges_records(spark, tmp_dir):
    t = record_typedef([("a", INT64)]) + record_typedef([("a", STRING), ("b", BOOL)]) \
        + record_typedef([("a", 8), ("c", FLOAT64)])  # 30, 31, 32 (8 = int32)
    v = rec_value(30, counted_signed(1)) + rec_value(31, b"x", b"\x01") + rec_value(32, counted_signed(-7), f64(2.5))
    # a second stream redefines id 30 differently
    s2 = frame(0, record_typedef([("b", BOOL)])) + frame(1, rec_value(30, b"\x00")) + EOS
    p = write(os.path.join(tmp_dir, "het.bsup"), frame(0, t) + frame(1, v) + EOS + s2)
    df = spark.read.format("bsup").load(p)
    assert df.columns == ["a", "b", "c"]
    a = df.schema["a"]
    assert a.metadata["super.type"] == "(int64|string)"
    assert [f.name for f in a.dataType.fields] == ["selector", "int64", "string"]
    rows = df.collect()
    assert rows[0].a == Row(selector=0, int64=1, string=None) and rows[0].b is None
    assert rows[1].a == Row(selector=1, int64=None, string="x") and rows[1].b is True
    assert rows[2].a == Row(selector=0, int64=-7, string=None) and rows[2].c == 2.5
    assert rows[3].a is None and rows[3].b is False
    # variant=true: one VARIANT column holding each value whatever its shape.
    v = spark.read.format("bsup").option("variant", "true").load(p)
    assert v.schema == T.StructType([T.StructField("value", T.VariantType())])
    got = [r[0] for r in v.select(F.to_json("value")).collect()]
    assert got == ['{"a":1}', '{"a":"x","b":true}', '{"a":-7,"c":2.5}', '{"b":false}']


def test_non_record_values_are_a_value_column(spark, tmp_dir):
    v = uvarint(INT64) + tagged(counted_signed(5)) + uvarint(STRING) + tagged(b"hi") + uvarint(INT64) + b"\x00"
    p = write(os.path.join(tmp_dir, "prims.bsup"), frame(1, v) + EOS)
    df = spark.read.format("bsup").load(p)
    assert df.columns == ["value"]
    assert [r.value for r in df.collect()] == [Row(selector=0, int64=5, string=None),
                                               Row(selector=1, int64=None, string="hi"), None]
    assert df.count() == 3
    assert spark.read.format("bsup").option("mode", "DROPMALFORMED").load(p).count() == 3


def bad_value_file(tmp_dir):
    t = record_typedef([("id", INT64), ("s", STRING)])
    v = rec_value(30, counted_signed(1), b"ok") + rec_value(30, counted_signed(2), b"\xc3\x28") \
        + rec_value(30, counted_signed(3), b"fine")
    return write(os.path.join(tmp_dir, "badval.bsup"), frame(0, t) + frame(1, v) + EOS)


def test_modes_on_a_malformed_value(spark, tmp_dir):
    p = bad_value_file(tmp_dir)
    schema = "id long, s string, _corrupt_record string"
    rows = spark.read.format("bsup").schema(schema).load(p).collect()
    assert [(r.id, r.s) for r in rows] == [(1, "ok"), (None, None), (3, "fine")]
    assert rows[0]._corrupt_record is None and rows[2]._corrupt_record is None
    assert "badval.bsup: byte offset 25: invalid UTF-8" in rows[1]._corrupt_record
    rows = spark.read.format("bsup").option("mode", "DROPMALFORMED").load(p).collect()
    assert [r.id for r in rows] == [1, 3]
    with pytest.raises(Exception) as e:
        spark.read.format("bsup").option("mode", "FAILFAST").load(p).collect()
    assert "MALFORMED_RECORD_IN_PARSING" in str(e.value) and "badval.bsup: byte offset 25" in str(e.value)
    # columnNameOfCorruptRecord renames the column
    rows = (spark.read.format("bsup").schema("id long, s string, oops string")
            .option("columnNameOfCorruptRecord", "oops").load(p).collect())
    assert rows[1].oops is not None and rows[0].oops is None


BAD_FILES = {
    "truncated_frame": (frame(0, record_typedef([("a", INT64)])) + bytes([0x14, 0x00, 0x1e]), "runs past the end of the file"),
    "long_uvarint": (bytes([0x05]) + b"\xff" * 10 + b"\x01", "longer than 10 bytes"),
    "undefined_type": (frame(1, b"\x28\x01") + EOS, "type id 40 is not defined"),
    "length_past_frame": (frame(0, record_typedef([("a", INT64)])) + frame(1, b"\x1e\x05\x02\x02") + EOS, "runs past the end of its container"),
    "huge_length": (bytes([0x10]) + uvarint(2**20) + b"\x00" * 8, "runs past the end of the file"),
    "huge_lz4_size": (bytes([0x56, 0x00, 0x00]) + uvarint(2**30) + b"\x00", "impossible"),
    "lz4_wrong_size": (bytes([0x56, 0x00, 0x00, 0x05, 0x30]) + b"abc", "LZ4 block decompressed to 3 bytes"),
    "bad_utf8_field": (frame(0, b"\x00\x01\x01\xff\x09") + EOS, "invalid UTF-8 in field name"),
    "union_selector": (frame(0, b"\x04\x02\x09\x19") + frame(1, b"\x1e\x05\x02\x04\x02\x02") + EOS, "union selector 2 out of range"),
    "enum_index": (frame(0, b"\x05\x02\x01a\x01b") + frame(1, b"\x1e\x02\x05") + EOS, "enum index 5 out of range"),
    "set_order": (frame(0, b"\x02\x09") + frame(1, b"\x1e\x05\x02\x04\x02\x02") + EOS, "set element is not in increasing order"),
    "map_order": (frame(0, b"\x03\x09\x09") + frame(1, b"\x1e\x07\x02\x04\x01\x02\x02\x01") + EOS, "map key is not in increasing order"),
    "later_version": (bytes([0x86, 0x00, 0x00]), "Super Binary version 6"),
}


@pytest.mark.parametrize("case", sorted(BAD_FILES))
def test_bad_input_failfast_and_permissive(spark, tmp_dir, case):
    data, message = BAD_FILES[case]
    p = write(os.path.join(tmp_dir, case + ".bsup"), data)
    # The schema is given so that every case reaches the reader (inference would stop earlier).
    def reader():
        return spark.read.format("bsup").schema("value string, _corrupt_record string")
    with pytest.raises(Exception) as e:
        reader().option("mode", "FAILFAST").load(p).collect()
    assert message in str(e.value) and f"{case}.bsup: byte offset" in str(e.value)
    rows = reader().load(p).collect()
    assert len(rows) == 1 and rows[0].value is None
    assert message in rows[0]._corrupt_record
    assert reader().option("mode", "DROPMALFORMED").load(p).collect() == []


def test_set_and_map_order_checked_with_inferred_schema(spark, tmp_dir):
    # {s:|[int64]|, m:|{int64:int64}|}: row 1 good, row 2 set out of order, row 3 map out of order
    t = b"\x02\x09" + b"\x03\x09\x09" + record_typedef([("s", 30), ("m", 31)])
    good_set, bad_set = tagged(counted_signed(1)) + tagged(counted_signed(2)), \
        tagged(counted_signed(2)) + tagged(counted_signed(1))
    good_map = tagged(counted_signed(1)) + tagged(b"") + tagged(counted_signed(2)) + tagged(b"")
    bad_map = tagged(counted_signed(2)) + tagged(b"") + tagged(counted_signed(1)) + tagged(b"")
    v = rec_value(32, good_set, good_map) + rec_value(32, bad_set, good_map) + rec_value(32, good_set, bad_map)
    p = write(os.path.join(tmp_dir, "order.bsup"), frame(0, t) + frame(1, v) + EOS)
    df = spark.read.format("bsup").load(p)
    assert df.schema["s"].dataType == T.ArrayType(T.LongType())
    assert [r.s for r in df.collect()] == [[1, 2], None, None]
    rows = spark.read.format("bsup").schema("s array<long>, m map<long,long>, _corrupt_record string").load(p).collect()
    assert "set element is not in increasing order" in rows[1]._corrupt_record
    assert "map key is not in increasing order" in rows[2]._corrupt_record
    assert rows[0] == Row(s=[1, 2], m={1: 0, 2: 0}, _corrupt_record=None)


def test_splits_at_stream_boundaries(spark, tmp_dir):
    n = 200_000
    df = spark.range(n).select(F.col("id"), (F.col("id") * 3).cast("string").alias("s"),
                               F.array(F.col("id"), F.lit(None).cast("long")).alias("arr"))
    out = os.path.join(tmp_dir, "split")
    df.coalesce(1).write.format("bsup").option("streamSize", "64k").option("frameSize", "16k").save(out)
    files = glob.glob(os.path.join(out, "*.bsup"))
    assert len(files) == 1 and os.path.getsize(files[0]) > 400_000
    old = spark.conf.get("spark.sql.files.maxPartitionBytes")
    try:
        spark.conf.set("spark.sql.files.maxPartitionBytes", "100000")
        split = spark.read.format("bsup").load(out)
        assert split.rdd.getNumPartitions() >= 4
        parts = split.rdd.mapPartitions(lambda it: [sum(1 for _ in it)]).collect()
        assert sum(1 for c in parts if c > 0) >= 3
        got = split.select(F.count("*"), F.sum("id"), F.count("s"), F.sum(F.size("arr"))).first()
        assert tuple(got) == (n, n * (n - 1) // 2, n, 2 * n)
    finally:
        spark.conf.set("spark.sql.files.maxPartitionBytes", old)
    one = spark.read.format("bsup").load(out)
    assert sorted(r.id for r in split.select("id").collect()) == sorted(r.id for r in one.select("id").collect())


def test_options_compression_and_projection(spark, tmp_dir):
    df = spark.range(5000).select("id", F.repeat(F.lit("abc"), 20).alias("s"), (F.col("id") / 2).alias("d"))
    a, b = os.path.join(tmp_dir, "lz4"), os.path.join(tmp_dir, "none")
    df.coalesce(1).write.format("bsup").save(a)
    df.coalesce(1).write.format("bsup").option("compression", "none").save(b)
    size = lambda d: sum(os.path.getsize(f) for f in glob.glob(os.path.join(d, "*.bsup")))
    assert size(a) * 3 < size(b)
    for d in (a, b):
        got = spark.read.format("bsup").load(d).select("d", "id").where("id % 1000 = 1").orderBy("id").collect()
        assert got == [Row(d=i / 2, id=i) for i in (1, 1001, 2001, 3001, 4001)]
    with pytest.raises(Exception, match="compression"):
        df.write.format("bsup").option("compression", "zstd").save(os.path.join(tmp_dir, "x"))


def test_partitions_globs_and_recursive_lookup(spark, tmp_dir):
    df = spark.createDataFrame([(1, "a"), (2, "b"), (3, "a")], "id int, part string")
    out = os.path.join(tmp_dir, "parts")
    df.write.format("bsup").partitionBy("part").save(out)
    back = spark.read.format("bsup").load(out)
    assert sorted((r.id, r.part) for r in back.collect()) == [(1, "a"), (2, "b"), (3, "a")]
    assert back.where("part = 'b'").count() == 1
    rec = spark.read.format("bsup").option("recursiveFileLookup", "true").load(out)
    assert sorted(r.id for r in rec.collect()) == [1, 2, 3]
    none = spark.read.format("bsup").option("pathGlobFilter", "*.nothing").option("recursiveFileLookup", "true")
    with pytest.raises(Exception):
        none.load(out).collect()


def test_time_and_duration_options(spark, tmp_dir, utc):
    t = record_typedef([("t", TIME), ("d", 12)])
    v = rec_value(30, counted_signed(1_500_000_000_123_456_789), counted_signed(-1_000_000_001))
    p = write(os.path.join(tmp_dir, "td.bsup"), frame(0, t) + frame(1, v) + EOS)
    r = spark.read.format("bsup").load(p).first()
    assert r.t == datetime.datetime(2017, 7, 14, 2, 40, 0, 123456) and r.d == -1_000_000_001
    r = spark.read.format("bsup").option("timeAsLong", "true").option("durationAsInterval", "true").load(p).first()
    assert r.t == 1_500_000_000_123_456_789 and r.d == -datetime.timedelta(seconds=1)


def test_sql_tables_and_files_with_different_types(spark, tmp_dir):
    d = os.path.join(tmp_dir, "mixed")
    os.makedirs(d)
    write(os.path.join(d, "one.bsup"), frame(0, record_typedef([("a", INT64)])) +
          frame(1, rec_value(30, counted_signed(41))) + EOS)
    write(os.path.join(d, "two.bsup"), frame(0, record_typedef([("b", STRING), ("a", 8)])) +
          frame(1, rec_value(30, b"x", counted_signed(-1))) + EOS)
    df = spark.read.format("bsup").load(d)
    assert sorted(df.columns) == ["a", "b"] and df.schema["a"].dataType == T.LongType()
    # samplingRatio=0.5 examines one of the two files; samplingValues limits values per file.
    half = spark.read.format("bsup").option("samplingRatio", "0.5").load(d)
    assert half.schema.simpleString() in ("struct<a:bigint>", "struct<b:string,a:int>")
    with pytest.raises(Exception, match="samplingRatio"):
        spark.read.format("bsup").option("samplingRatio", "0").load(d)
    assert sorted((r.a, r.b) for r in df.collect()) == [(-1, "x"), (41, None)]
    spark.sql(f"CREATE TABLE bsup_t USING bsup LOCATION '{d}'")
    try:
        assert spark.sql("SELECT sum(a) AS s, count(b) AS c FROM bsup_t").first() == Row(s=40, c=1)
    finally:
        spark.sql("DROP TABLE bsup_t")
    assert spark.sql(f"SELECT count(*) AS n FROM bsup.`{d}`").first().n == 2


def test_filters_pushed_to_the_scan_keep_sql_semantics(spark, tmp_dir):
    rows = [(i, None if i % 7 == 0 else f"s{i % 13}", None if i % 5 == 0 else i / 4.0, i % 3 == 0,
             None if i % 11 == 0 else i % 4)
            for i in range(-50, 200)]
    rows.append((1000, "nan", float("nan"), None, None))
    rows.append((1001, "-0", -0.0, False, 0))
    df = spark.createDataFrame(rows, "id long, s string, d double, b boolean, i int")
    out = os.path.join(tmp_dir, "filters")
    df.coalesce(1).write.format("bsup").option("frameSize", "1k").save(out)
    back = spark.read.format("bsup").load(out)
    conditions = [
        "id = 5", "id > 100", "id >= 100 AND s IS NOT NULL", "id < 0 OR d > 40", "s = 's3'", "s IS NULL",
        "d IS NULL", "d = 0.0", "d > 10.5", "isnan(d)", "d = 'NaN'", "b = true", "b <=> NULL", "i IN (1, 2, NULL)",
        "i <=> 3", "s LIKE 's1%'", "s LIKE '%2'", "s LIKE '%1%'", "NOT (id > 5)", "NOT (s = 's3')",
        "(id > 10 AND s = 's4') OR i = 0", "i BETWEEN 1 AND 2 AND d < 20", "id = 5 AND length(s) > 1",
    ]
    for c in conditions:
        expected = sorted(r.id for r in df.where(c).collect())
        got = sorted(r.id for r in back.where(c).collect())
        assert got == expected, c
        assert sorted(r.id for r in back.where(c).select("id").collect()) == expected, c


def test_nested_records_are_distinct_per_row(spark, tmp_dir):
    """Nested records read into one reused row per reader: every row must still hold its own
    values, at every depth, with nulls, inside arrays and maps, and through a pushed filter."""
    rows = [(i,
             None if i % 4 == 3 else (i, None if i % 3 == 0 else f"s{i}", None if i % 5 == 0 else (i * 10, f"deep{i}")),
             [(i, f"a{i}"), (i + 1, f"b{i}")] if i % 2 else [],
             {f"k{i}": (i, f"m{i}")})
            for i in range(40)]
    schema = ("id long, n struct<x:long, s:string, inner:struct<y:long, t:string>>, "
              "arr array<struct<x:long, s:string>>, m map<string, struct<x:long, s:string>>")
    df = spark.createDataFrame(rows, schema)
    out = os.path.join(tmp_dir, "nested")
    df.coalesce(1).write.format("bsup").option("frameSize", "1k").save(out)
    back = spark.read.format("bsup").load(out)
    assert sorted(back.collect()) == sorted(df.collect())
    assert sorted(back.where("id > 20").collect()) == sorted(df.where("id > 20").collect())
    inner = "id, n.inner.t"
    assert sorted(back.selectExpr(*inner.split(", ")).collect()) == sorted(df.selectExpr(*inner.split(", ")).collect())
