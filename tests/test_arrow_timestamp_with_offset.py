"""``arrow.timestamp_with_offset`` (Arrow canonical extension types, "Timestamp With Offset"):
the type and its registration, the spec's own examples through Spark and back, the null
rules, the offset range, and Spark TIMESTAMP -> the type with the session time zone's offset.
Expected values are computed here from the examples' RFC 3339 text and ``zoneinfo``."""

import datetime as dt
import zoneinfo

import pyarrow as pa
import pytest

import superspark.arrow as sa

EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc)


def _seconds(rfc3339: str) -> int:
    return int((dt.datetime.fromisoformat(rfc3339) - EPOCH).total_seconds())


def _minutes(rfc3339: str) -> int:
    return int(dt.datetime.fromisoformat(rfc3339).utcoffset().total_seconds() // 60)


def _table(unit, stamps, offsets, storage=None):
    t = sa.timestamp_with_offset(unit) if storage is None else sa.TimestampWithOffsetType(storage=storage)
    st = pa.StructArray.from_arrays([pa.array(stamps, pa.timestamp(unit, tz="UTC")), pa.array(offsets, pa.int16())],
                                    fields=list(t.storage_type))
    return pa.table({"id": pa.array(range(len(stamps)), pa.int64()),
                     "x": pa.ExtensionArray.from_storage(t, st)})


@pytest.fixture
def utc(spark):
    spark.conf.set("spark.sql.session.timeZone", "UTC")
    yield spark
    spark.conf.unset("spark.sql.session.timeZone")


def test_type_is_registered_and_round_trips_through_ipc():
    t = sa.timestamp_with_offset("ms")
    assert t.extension_name == "arrow.timestamp_with_offset" and t.unit == "ms"
    assert t.storage_type == pa.struct([pa.field("timestamp", pa.timestamp("ms", tz="UTC"), nullable=False),
                                        pa.field("offset_minutes", pa.int16(), nullable=False)])
    assert sa.identity_of(t) == sa.Identity("arrow.timestamp_with_offset", "", t.storage_type)
    # a schema from another process (field metadata only) reads back as the registered type
    f = pa.field("x", t.storage_type, metadata={"ARROW:extension:name": "arrow.timestamp_with_offset",
                                                "ARROW:extension:metadata": ""})
    back = pa.ipc.read_schema(pa.schema([f]).serialize()).field(0).type
    assert isinstance(back, sa.TimestampWithOffsetType) and back.unit == "ms"
    assert sa.make_type("arrow.timestamp_with_offset", "", t.storage_type) == t


@pytest.mark.parametrize("storage", [
    pa.struct([pa.field("timestamp", pa.timestamp("us")), pa.field("offset_minutes", pa.int16())]),  # no UTC
    pa.struct([pa.field("offset_minutes", pa.int16()), pa.field("timestamp", pa.timestamp("us", tz="UTC"))]),
    pa.struct([pa.field("timestamp", pa.timestamp("us", tz="UTC")), pa.field("offset_minutes", pa.int32())]),
    pa.struct([pa.field("timestamp", pa.timestamp("us", tz="+01:00")), pa.field("offset_minutes", pa.int16())]),
])
def test_bad_storage_is_refused(storage):
    with pytest.raises(sa.ExtensionTypeError, match="timestamp_with_offset storage"):
        sa.make_type("arrow.timestamp_with_offset", "", storage)
    with pytest.raises(sa.ExtensionTypeError, match="metadata must be the empty string"):
        sa.make_type("arrow.timestamp_with_offset", "{\"unit\": 1}", sa.timestamp_with_offset().storage_type)


def test_spec_example_seconds_round_trips_through_spark(utc):
    # "2025-01-01T00:00:00Z represents January 1st 2025 in UTC with second precision"
    text = "2025-01-01T00:00:00+00:00"
    t = _table("s", [_seconds(text)], [_minutes(text)])
    df = sa.from_arrow(utc, t)
    row = df.selectExpr("unix_micros(x.timestamp) AS us", "x.offset_minutes AS off").collect()[0]
    assert (row.us, row.off) == (1_735_689_600 * 1_000_000, 0)
    back = sa.to_arrow(df)
    assert back.equals(t) and back.schema.field("x").type.unit == "s"


def test_spec_example_nanosecond_is_refused_then_microsecond_round_trips(utc):
    # "2025-01-01T00:00:00.000000001-07:00 represents one nanosecond after January 1st 2025 in UTC-07"
    base = "2025-01-01T00:00:00-07:00"
    ns = _seconds(base) * 1_000_000_000 + 1
    assert ns == 1_735_714_800_000_000_001 and _minutes(base) == -420
    t = _table("ns", [ns], [_minutes(base)])
    with pytest.raises(sa.ExtensionTypeError, match="column 'x'.*cannot hold exactly"):
        sa.from_arrow(utc, t)
    # one microsecond after instead: Spark holds it, the nanosecond unit comes back
    t = _table("ns", [ns - 1 + 1000], [-420])
    df = sa.from_arrow(utc, t)
    assert df.selectExpr("unix_micros(x.timestamp)", "x.offset_minutes").first() == (1_735_714_800_000_001, -420)
    assert sa.to_arrow(df).equals(t)


def test_null_rules_of_the_spec(utc):
    storage = sa.timestamp_with_offset_storage("us", nullable_fields=True)
    typ = sa.TimestampWithOffsetType(storage=storage)
    st = pa.StructArray.from_arrays(
        [pa.array([10, None, 30, 40], pa.timestamp("us", tz="UTC")), pa.array([60, 120, None, -779], pa.int16())],
        fields=list(storage), mask=pa.array([False, False, False, True]))
    t = pa.table({"x": pa.ExtensionArray.from_storage(typ, st)})
    df = sa.from_arrow(utc, t)
    got = df.selectExpr("x IS NULL AS n", "unix_micros(x.timestamp) AS us", "x.offset_minutes AS off").collect()
    # null timestamp -> the value is null; null offset -> 0; a null struct stays null
    assert [tuple(r) for r in got] == [(False, 10, 60), (True, None, None), (False, 30, 0), (True, None, None)]
    back = sa.to_arrow(df).column("x").combine_chunks()
    assert back.type == sa.timestamp_with_offset("us")  # normalized: non-nullable children
    assert back.storage.to_pylist() == [
        {"timestamp": dt.datetime(1970, 1, 1, 0, 0, 0, 10, tzinfo=dt.timezone.utc), "offset_minutes": 60},
        None, {"timestamp": dt.datetime(1970, 1, 1, 0, 0, 0, 30, tzinfo=dt.timezone.utc), "offset_minutes": 0}, None]


def test_offsets_outside_the_range_are_refused(utc):
    for bad in (781, -780):
        with pytest.raises(sa.ExtensionTypeError, match=f"offset_minutes {bad} is outside -779..780"):
            sa.from_arrow(utc, _table("us", [0], [bad]))
    for edge in (780, -779):
        assert sa.from_arrow(utc, _table("us", [0], [edge])).first().x.offset_minutes == edge


def test_dictionary_encoded_offsets_are_decoded(utc):
    storage = pa.struct([pa.field("timestamp", pa.timestamp("ms", tz="UTC"), nullable=False),
                         pa.field("offset_minutes", pa.dictionary(pa.int8(), pa.int16()), nullable=False)])
    typ = sa.TimestampWithOffsetType(storage=storage)
    offs = pa.DictionaryArray.from_arrays(pa.array([0, 1, 0], pa.int8()), pa.array([330, -300], pa.int16()))
    st = pa.StructArray.from_arrays([pa.array([1, 2, 3], pa.timestamp("ms", tz="UTC")), offs], fields=list(storage))
    df = sa.from_arrow(utc, pa.table({"x": pa.ExtensionArray.from_storage(typ, st)}))
    assert [tuple(r) for r in df.selectExpr("unix_micros(x.timestamp)", "x.offset_minutes").collect()] == \
        [(1000, 330), (2000, -300), (3000, 330)]
    assert sa.to_arrow(df).schema.field("x").type == sa.timestamp_with_offset("ms")


@pytest.mark.parametrize("zone", ["America/Los_Angeles", "Asia/Kathmandu", "Australia/Adelaide", "UTC"])
def test_spark_timestamps_get_the_session_offset(spark, zone):
    instants = [dt.datetime(2025, 1, 15, 12, 0, tzinfo=dt.timezone.utc),
                dt.datetime(2025, 7, 15, 12, 0, tzinfo=dt.timezone.utc),
                dt.datetime(1999, 12, 31, 23, 59, 59, 999999, tzinfo=dt.timezone.utc)]
    micros = [(i - EPOCH) // dt.timedelta(microseconds=1) for i in instants] + [None]
    spark.conf.set("spark.sql.session.timeZone", zone)
    try:
        df = spark.createDataFrame([(i, m) for i, m in enumerate(micros)], "id long, us long") \
            .selectExpr("id", "timestamp_micros(us) AS ts")
        t = sa.to_arrow(df.select("id", sa.with_offset("ts", name="x")))
    finally:
        spark.conf.unset("spark.sql.session.timeZone")
    x = t.column("x").combine_chunks()
    assert x.type == sa.timestamp_with_offset("us")
    want = [None if m is None else
            {"timestamp": EPOCH + dt.timedelta(microseconds=m),
             "offset_minutes": int((EPOCH + dt.timedelta(microseconds=m)).astimezone(zoneinfo.ZoneInfo(zone))
                                   .utcoffset().total_seconds() // 60)}
            for m in micros]
    assert x.storage.to_pylist() == want
    if zone == "America/Los_Angeles":
        assert [w["offset_minutes"] for w in want[:2]] == [-480, -420]  # the test sees DST
    # and back: the same instants and offsets in Spark
    back = sa.from_arrow(spark, t).orderBy("id").selectExpr("unix_micros(x.timestamp)", "x.offset_minutes").collect()
    assert [r[0] for r in back] == micros


def test_zones_outside_the_spec_range_are_an_error(spark):
    # The spec's -779..780 minutes leave out Pacific/Kiritimati (+14:00) and Pacific/Chatham's
    # summer (+13:45): an error naming the zone and offset, never a wrong offset.
    assert dt.datetime(2025, 1, 15, tzinfo=zoneinfo.ZoneInfo("Pacific/Chatham")).utcoffset() == dt.timedelta(
        hours=13, minutes=45)
    for zone, want in (("Pacific/Kiritimati", 840), ("Pacific/Chatham", 825)):
        spark.conf.set("spark.sql.session.timeZone", zone)
        try:
            df = spark.sql("SELECT timestamp_micros(1736942400000000L) AS ts")  # 2025-01-15T12:00Z
            with pytest.raises(Exception, match=f"{zone} has offset {want} minutes.*outside the type's -779..780"):
                df.select(sa.with_offset("ts", name="x")).collect()
            # July: Chatham is +12:45 (765), inside the range
            if zone == "Pacific/Chatham":
                t = sa.to_arrow(spark.sql("SELECT timestamp_micros(1752580800000000L) AS ts")
                                .select(sa.with_offset("ts", name="x")))
                assert t.column("x").combine_chunks().storage.field("offset_minutes").to_pylist() == [765]
        finally:
            spark.conf.unset("spark.sql.session.timeZone")
