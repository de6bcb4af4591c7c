"""superspark.arrow: registration, Spark <-> Arrow round trips, tagging, errors."""

import json
import os
import subprocess
import sys
import textwrap

import pyarrow as pa
import pytest
from pyspark.sql import functions as F
from pyspark.sql.types import (ArrayType, BinaryType, BooleanType, StringType, StructType,
                               VariantType)

import superspark.arrow as sa

sys.path.insert(0, os.path.dirname(__file__))
from arrow_tables import UUIDS, all_types_table, ext  # noqa: E402


# ---------------------------------------------------------------- registration


def test_all_eight_types_are_constructible_and_named():
    types = [pa.uuid(), pa.json_(), pa.bool8(), pa.opaque(pa.null(), "t", "v"),
             pa.fixed_shape_tensor(pa.int32(), [2]), sa.variable_shape_tensor(pa.int8(), 3),
             sa.variant(), sa.timestamp_with_offset()]
    assert sorted(t.extension_name for t in types) == sorted(sa.CANONICAL_NAMES)


def test_identity_reads_serialized_metadata():
    t = pa.fixed_shape_tensor(pa.float32(), [2, 3], dim_names=["a", "b"])
    ident = sa.identity_of(t)
    assert ident.name == "arrow.fixed_shape_tensor"
    assert json.loads(ident.metadata) == {"shape": [2, 3], "dim_names": ["a", "b"]}
    assert ident.storage == pa.list_(pa.float32(), 6)
    o = sa.identity_of(pa.opaque(pa.binary(), "geometry", "PostGIS"))
    assert json.loads(o.metadata) == {"type_name": "geometry", "vendor_name": "PostGIS"}
    assert sa.identity_of(pa.uuid()).metadata == ""


def test_variable_shape_tensor_is_the_native_type_and_round_trips_ipc():
    t = sa.variable_shape_tensor(pa.float32(), 2, dim_names=["H", "W"], uniform_shape=[2, None])
    assert sa.tensor_params(t) == {"dim_names": ["H", "W"], "uniform_shape": [2, None],
                                  "value_type": pa.float32(), "ndim": 2}
    arr = ext(t, pa.array([{"data": [1, 2, 3, 4], "shape": [2, 2]}], t.storage_type))
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, pa.schema([pa.field("x", t)])) as w:
        w.write_table(pa.table({"x": arr}))
    back = pa.ipc.open_stream(sink.getvalue()).read_all()
    assert back.schema.field("x").type == t
    assert back.column("x").chunk(0).storage.to_pylist() == [{"data": [1, 2, 3, 4],
                                                             "shape": [2, 2]}]


def test_variant_storage_is_validated():
    with pytest.raises(sa.ExtensionTypeError, match="no 'metadata' field"):
        sa.variant(pa.struct([pa.field("value", pa.binary())]))
    with pytest.raises(sa.ExtensionTypeError, match="neither 'value' nor 'typed_value'"):
        sa.variant(pa.struct([pa.field("metadata", pa.binary(), False)]))
    with pytest.raises(sa.ExtensionTypeError, match="'metadata' must be binary"):
        sa.variant(pa.struct([pa.field("metadata", pa.int32(), False),
                              pa.field("value", pa.binary())]))
    # Polars 2.1 exports the struct with a nullable 'metadata': accepted.
    sa.variant(pa.struct([pa.field("metadata", pa.binary()), pa.field("value", pa.binary())]))
    shredded = pa.struct([pa.field("metadata", pa.binary(), False),
                          pa.field("typed_value", pa.int64())])
    assert sa.variant(shredded).shredded


_GUARD_SCRIPT = textwrap.dedent("""
    import sys, pyarrow as pa, pyarrow.parquet as pq, pyarrow.dataset as ds
    originals = (pq.ParquetWriter.__init__, pq.ParquetWriter.write_table, ds.write_dataset)
    import superspark.arrow as sa
    from superspark.arrow._guard import guard_active
    def current():
        return (pq.ParquetWriter.__init__, pq.ParquetWriter.write_table, ds.write_dataset)
    # Importing superspark.arrow changes nothing in pyarrow's writers.
    assert current() == originals and not guard_active()
    out = sys.argv[1]
    st = pa.array([{"metadata": b"\\x01\\x00\\x00", "value": b"\\x0c\\x01"}, None],
                  sa.VARIANT_STORAGE)
    t = pa.table({"v": pa.ExtensionArray.from_storage(sa.variant(), st),
                  "s": pa.array([{"v": {"metadata": b"\\x01\\x00\\x00", "value": b"\\x00"}},
                                 None], pa.struct([pa.field("v", sa.VARIANT_STORAGE)]))})
    nested = pa.StructArray.from_arrays(
        [pa.ExtensionArray.from_storage(sa.variant(), t.column("s").chunk(0).field("v"))],
        ["v"], mask=t.column("s").chunk(0).is_null())
    t = t.set_column(1, "s", nested)
    with sa.parquet_variant_guard():  # a scoped guard (nested blocks too)
        with sa.parquet_variant_guard():
            pq.write_table(t, out + "/a.parquet")
        assert guard_active()
        with pq.ParquetWriter(out + "/b.parquet", t.schema) as w:
            w.write_batch(t.to_batches()[0])
    assert current() == originals and not guard_active()  # pyarrow's own functions are back
    sa.install_parquet_variant_guard()  # for good
    sa.install_parquet_variant_guard()
    with sa.parquet_variant_guard():
        pass
    assert guard_active() and current() != originals
    ds.write_dataset(t, out + "/ds", format="parquet")
    pq.write_to_dataset(t, out + "/wtd")
    import base64
    for p in ("/a.parquet", "/b.parquet"):
        back = pq.read_table(out + p)
        assert back.column("v").to_pylist() == st.to_pylist()
        arrow_schema = pa.ipc.read_schema(pa.py_buffer(base64.b64decode(
            pq.read_metadata(out + p).metadata[b"ARROW:schema"])))
        assert arrow_schema.field("v").type == sa.variant()
        assert arrow_schema.field("s").type.field("v").type == sa.variant()
    assert ds.dataset(out + "/ds").to_table().num_rows == 2
    print("survived", flush=True)
    # pyarrow 26.0.1 itself sometimes aborts at interpreter exit ("terminate called without
    # an active exception") once pyarrow.dataset has written and read any registered Python
    # ExtensionType (reproduced without superspark: ~1 run in 10). That is not the crash
    # under test here (the segfault inside the writers), so leave without the teardown.
    import os
    os._exit(0)
""")


def test_parquet_write_of_variant_does_not_crash(tmp_path):
    # pyarrow 26.0.1 segfaults here without the guard: run in a subprocess so a crash fails
    # this test instead of killing pytest.
    r = subprocess.run([sys.executable, "-c", _GUARD_SCRIPT, str(tmp_path)],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, (r.returncode, r.stderr[-2000:])
    assert r.stdout.strip() == "survived"


# ---------------------------------------------------------------- Arrow <-> Spark


def test_from_arrow_maps_storage_and_keeps_identity(spark):
    df = sa.from_arrow(spark, all_types_table())
    types = {f.name: f.dataType for f in df.schema.fields}
    assert types["u"] == BinaryType() and types["o"] == BinaryType()
    assert types["j"] == StringType()
    assert types["b"] == BooleanType()
    assert isinstance(types["ft"], ArrayType)
    assert isinstance(types["vt"], StructType) and types["vt"].names == ["data", "shape"]
    assert types["v"] == VariantType()
    md = {f.name: f.metadata for f in df.schema.fields}
    assert md["u"][sa.NAME_KEY] == "arrow.uuid"
    assert json.loads(md["ft"][sa.METADATA_KEY])["shape"] == [2, 2]
    assert md["plain"] == {}
    rows = df.orderBy(F.col("plain")).collect()
    assert [r.u for r in rows] == [bytearray(u) if u else None for u in UUIDS]
    assert [r.b for r in rows] == [True, False, None]
    assert rows[0].ft == [1.0, 2.0, 3.0, 4.0] and rows[1].ft is None
    assert rows[2].vt.shape == [3, 2]
    assert [r["js"] for r in df.orderBy("plain").select(F.to_json("v").alias("js")).collect()] \
        == ["1", None, "null"]


def test_round_trip_all_seven_types(spark):
    t = all_types_table()
    back = sa.to_arrow(sa.from_arrow(spark, t))
    assert back.schema == t.schema
    for name in t.column_names:
        assert back.column(name).equals(t.column(name)), name
    assert back.equals(t)


def _storage(col):
    return [v for c in col.chunks for v in c.storage.to_pylist()]


def test_round_trip_keeps_non_default_storage(spark):
    t = pa.table({
        "j": ext(pa.json_(pa.large_string()), pa.array(['{"x":1}', None], pa.large_string())),
        "jv": ext(pa.json_(pa.string_view()), pa.array(['[]', '{}'], pa.string_view())),
        "b": ext(pa.bool8(), pa.array([7, 0], pa.int8())),
    })
    back = sa.to_arrow(sa.from_arrow(spark, t))
    assert back.schema == t.schema
    assert back.column("j").equals(t.column("j"))
    assert _storage(back.column("jv")) == ['[]', '{}']
    # bool8: any non-zero byte is true; Spark keeps booleans, so true comes back as 1.
    assert _storage(back.column("b")) == [1, 0]


def test_unregistered_extension_metadata_round_trips(spark):
    f = pa.field("g", pa.binary(), metadata={"ARROW:extension:name": "example.geometry",
                                             "ARROW:extension:metadata": '{"crs":"x"}'})
    t = pa.table([pa.array([b"\x01", None])], schema=pa.schema([f]))
    df = sa.from_arrow(spark, t)
    assert df.schema["g"].metadata[sa.NAME_KEY] == "example.geometry"
    back = sa.to_arrow(df)
    assert back.schema.field("g").metadata == f.metadata
    assert back.column("g").to_pylist() == [b"\x01", None]


def test_variant_columns_come_out_as_parquet_variant(spark):
    df = spark.sql("""SELECT id, if(id = 1, NULL, parse_json('{"a":[1,2]}')) AS v
                      FROM range(3)""")
    t = sa.to_arrow(df)
    assert t.schema.field("v").type == sa.variant()
    rows = t.sort_by("id").column("v").to_pylist()
    assert rows[1] is None and rows[0]["metadata"][:1] == b"\x01"
    # back into Spark as VariantType, same values
    back = sa.from_arrow(spark, t)
    assert back.schema["v"].dataType == VariantType()
    got = back.orderBy("id").select(F.to_json("v")).collect()
    assert [r[0] for r in got] == ['{"a":[1,2]}', None, '{"a":[1,2]}']


def test_with_arrow_types_tags_and_converts_uuid_strings(spark):
    df = spark.sql("""SELECT '00112233-4455-6677-8899-aabbccddeeff' AS u, '{"k":2}' AS j,
                             array(1.0f, 2.0f, 3.0f, 4.0f, 5.0f, 6.0f) AS t, true AS b""")
    fst = pa.fixed_shape_tensor(pa.float32(), [2, 3])
    tagged = sa.with_arrow_types(df, {"u": pa.uuid(), "j": pa.json_(), "t": fst})
    t = sa.to_arrow(tagged)
    assert t.schema.field("u").type == pa.uuid()
    assert t.column("u").chunk(0).storage.to_pylist() == [bytes.fromhex(
        "00112233445566778899aabbccddeeff")]
    assert t.schema.field("j").type == pa.json_()
    assert t.schema.field("t").type == fst
    assert t.column("t").to_pylist() == [[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]]
    assert t.schema.field("b").type == pa.bool_()
    strings = tagged.select(sa.uuid_to_string("u")).head()[0]
    assert strings == "00112233-4455-6677-8899-aabbccddeeff"
    col = sa.with_arrow_type("j", pa.json_())
    assert sa.to_arrow(df.select(col)).schema.field("j").type == pa.json_()


def test_with_arrow_types_rejects_wrong_spark_type(spark):
    df = spark.sql("SELECT 1 AS n, 'not-a-uuid' AS s")
    with pytest.raises(sa.ExtensionTypeError, match="column 'n'.*arrow.json needs Spark type "
                                                    "string"):
        sa.with_arrow_types(df, {"n": pa.json_()})
    bad = sa.with_arrow_types(df, {"s": pa.uuid()})
    with pytest.raises(Exception, match="not a UUID string: not-a-uuid"):
        bad.collect()


def test_opaque_storage_from_spark_is_kept(spark):
    df = spark.sql("SELECT CAST(12345678901234567890 AS DECIMAL(38,0)) AS h")
    o = pa.opaque(pa.decimal128(38, 0), "hugeint", "DuckDB")
    t = sa.to_arrow(sa.with_arrow_types(df, {"h": o}))
    assert t.schema.field("h").type == o
    assert str(t.column("h").chunk(0).storage[0].as_py()) == "12345678901234567890"


def test_empty_dataframe(spark):
    t = all_types_table().slice(0, 0)
    back = sa.to_arrow(sa.from_arrow(spark, t))
    assert back.schema == t.schema and back.num_rows == 0


# ---------------------------------------------------------------- bad input


def test_fixed_tensor_shape_not_matching_list_size_names_the_column(spark):
    f = pa.field("img", pa.list_(pa.float32(), 4), metadata={
        "ARROW:extension:name": "arrow.fixed_shape_tensor",
        "ARROW:extension:metadata": '{"shape":[2,3]}'})
    t = pa.table([pa.array([[1, 2, 3, 4]], pa.list_(pa.float32(), 4))], schema=pa.schema([f]))
    with pytest.raises(sa.ExtensionTypeError, match=r"column 'img'.*\(6\).*\(4\)"):
        sa.from_arrow(spark, t)


def test_tensor_rows_of_wrong_size_name_the_column_on_to_arrow(spark):
    df = spark.sql("SELECT array(1.0f, 2.0f, 3.0f) AS t UNION ALL SELECT array(1.0f) AS t")
    tagged = sa.with_arrow_types(df, {"t": pa.fixed_shape_tensor(pa.float32(), [3])})
    with pytest.raises(sa.ExtensionTypeError, match="column 't': row 1 has 1 elements, "
                                                    "expected 3"):
        sa.to_arrow(tagged.coalesce(1))


def test_variant_struct_missing_metadata_names_the_column(spark):
    f = pa.field("v", pa.struct([pa.field("value", pa.binary())]), metadata={
        "ARROW:extension:name": "arrow.parquet.variant", "ARROW:extension:metadata": ""})
    t = pa.table([pa.array([{"value": b"\x00"}], f.type)], schema=pa.schema([f]))
    with pytest.raises(sa.ExtensionTypeError, match="column 'v'.*no 'metadata' field"):
        sa.from_arrow(spark, t)


@pytest.mark.parametrize("name,storage,meta", [
    ("arrow.fixed_shape_tensor", pa.list_(pa.int32(), 2), '{"shape": [2'),
    ("arrow.opaque", pa.binary(), "not json"),
    ("arrow.json", pa.string(), "[1]"),
    ("arrow.variable_shape_tensor",
     pa.struct([pa.field("data", pa.list_(pa.int32())), pa.field("shape", pa.list_(pa.int32(), 2))]),
     '{"dim_names": '),
])
def test_malformed_extension_metadata_names_the_column(spark, name, storage, meta):
    f = pa.field("bad", storage, metadata={"ARROW:extension:name": name,
                                           "ARROW:extension:metadata": meta})
    t = pa.table([pa.array([None], storage)], schema=pa.schema([f]))
    with pytest.raises(sa.ExtensionTypeError, match=f"column 'bad'.*{name}"):
        sa.from_arrow(spark, t)


def test_malformed_spark_metadata_names_the_column(spark):
    df = spark.sql("SELECT array(1, 2) AS t").select(F.col("t").alias("t", metadata={
        sa.NAME_KEY: "arrow.fixed_shape_tensor", sa.METADATA_KEY: "{shape"}))
    with pytest.raises(sa.ExtensionTypeError, match="column 't'.*malformed"):
        sa.to_arrow(df)
    df2 = spark.sql("SELECT 1 AS x").select(F.col("x").alias("x", metadata={
        sa.NAME_KEY: "arrow.uuid", sa.STORAGE_KEY: "!!"}))
    with pytest.raises(sa.ExtensionTypeError, match="column 'x'.*malformed arrow.extension"):
        sa.to_arrow(df2)


def test_extension_types_inside_an_extension_storage_are_rejected_with_the_column(spark):
    # Nested extension types are supported (test_arrow_nested.py), but not inside the
    # storage of another extension type: the Spark field metadata has no place for them.
    uuids = ext(pa.uuid(), pa.array([b"0" * 16], pa.binary(16)))
    lst = pa.ListArray.from_arrays(pa.array([0, 1], pa.int32()), uuids)
    t = pa.table({"o": ext(pa.opaque(lst.type, "x", "y"), lst)})
    with pytest.raises(sa.ExtensionTypeError, match="column 'o'.*nested"):
        sa.from_arrow(spark, t)


# ---------------------------------------------------------------- zero copy


def _addresses(arr):
    return {b.address for b in arr.buffers() if b is not None and b.size}


def test_rewrapping_spark_layout_reuses_buffers():
    from superspark.arrow._storage import conform

    # Spark's Arrow layouts, as df.toArrow() collects them
    uuids = pa.array([b"a" * 16, b"b" * 16], pa.binary())
    tensors = pa.array([[1.0, 2.0], [3.0, 4.0]], pa.list_(pa.field("element", pa.float32(), False)))
    variant = pa.array([{"value": b"\x0c\x01", "metadata": b"\x01\x00\x00"}],
                       pa.struct([pa.field("value", pa.binary(), False),
                                  pa.field("metadata", pa.binary(), False)]))
    u = conform(uuids, pa.binary(16))
    assert u.type == pa.binary(16) and u.to_pylist() == [b"a" * 16, b"b" * 16]
    assert uuids.buffers()[2].address == u.buffers()[1].address  # same value bytes
    t = conform(tensors, pa.list_(pa.float32(), 2))
    assert t.to_pylist() == [[1.0, 2.0], [3.0, 4.0]]
    assert tensors.values.buffers()[1].address == t.values.buffers()[1].address
    v = conform(variant, sa.VARIANT_STORAGE)
    assert v.type == sa.VARIANT_STORAGE
    assert _addresses(v) == _addresses(variant)
    wrapped = pa.ExtensionArray.from_storage(sa.variant(), v)
    assert _addresses(wrapped.storage) == _addresses(variant)
