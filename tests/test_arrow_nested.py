"""Extension types nested inside struct, list and map columns, both ways."""

import json
import uuid

import duckdb
import pyarrow as pa
import pytest
from pyspark.sql import functions as F
from pyspark.sql.types import ArrayType, BinaryType, MapType, StringType, VariantType

import superspark.arrow as sa
from superspark.arrow._convert import encode_storage

E = pa.ExtensionArray.from_storage
U = [uuid.UUID(int=1).bytes, None, uuid.UUID(int=2**128 - 1).bytes]
VROWS = [{"metadata": b"\x01\x00\x00", "value": b"\x0c\x01"}, None,
         {"metadata": b"\x01\x00\x00", "value": b"\x00"}]
FST = pa.fixed_shape_tensor(pa.float32(), [2], dim_names=["x"])


spark40_variant_parquet = pytest.mark.skipif(
    tuple(int(x) for x in __import__("pyspark").__version__.split(".")[:2]) < (4, 1),
    reason="Spark 4.0's Parquet VARIANT support: it reads a variant group only with a non-nullable value "
           "(INVALID_VARIANT_FROM_PARQUET on pyarrow's files) and writes no VARIANT annotation")


def nested_table() -> pa.Table:
    uu = E(pa.uuid(), pa.array(U, pa.binary(16)))
    offs = pa.array([0, 2, 2, 3], pa.int32())
    return pa.table({
        "l": pa.ListArray.from_arrays(offs, uu, mask=pa.array([False, True, False])),
        "ll": pa.LargeListArray.from_arrays(pa.array([0, 1, 2, 3], pa.int64()), uu),
        "s": pa.StructArray.from_arrays(
            [E(pa.json_(), pa.array(['{"a":1}', None, "[]"])),
             E(pa.bool8(), pa.array([1, 0, 1], pa.int8())),
             pa.array([1, 2, 3])],
            fields=[pa.field("a", pa.json_()), pa.field("b", pa.bool8(), nullable=False),
                    pa.field("n", pa.int64())],
            mask=pa.array([False, False, True])),
        "m": pa.MapArray.from_arrays(pa.array([0, 1, 1, 3], pa.int32()),
                                     pa.array(["k", "x", "y"]), uu),
        "lv": pa.ListArray.from_arrays(pa.array([0, 1, 2, 3], pa.int32()),
                                       E(sa.variant(), pa.array(VROWS, sa.VARIANT_STORAGE))),
        "lt": pa.ListArray.from_arrays(
            pa.array([0, 1, 1, 2], pa.int32()),
            E(FST, pa.array([[1, 2], [3, 4]], pa.list_(pa.float32(), 2)))),
        "so": pa.StructArray.from_arrays(
            [pa.ListArray.from_arrays(pa.array([0, 1, 1, 1], pa.int32()),
                                      E(pa.opaque(pa.binary(16), "hugeint", "DuckDB"),
                                        pa.array([U[0]], pa.binary(16))))], names=["h"]),
    })


def test_round_trip_types_values_and_metadata(spark):
    t = nested_table()
    df = sa.from_arrow(spark, t)
    schema = {f.name: f for f in df.schema.fields}
    assert schema["l"].dataType == ArrayType(BinaryType())
    assert schema["s"].dataType.simpleString() == "struct<a:string,b:boolean,n:bigint>"
    assert schema["m"].dataType == MapType(StringType(), BinaryType())
    assert schema["lv"].dataType == ArrayType(VariantType())
    assert json.loads(schema["s"].metadata[sa.NESTED_KEY]) == [
        {"path": ["a"], "name": "arrow.json", "metadata": ""},
        {"path": ["b"], "name": "arrow.bool8", "metadata": ""}]
    assert json.loads(schema["m"].metadata[sa.NESTED_KEY]) == [
        {"path": ["value"], "name": "arrow.uuid", "metadata": ""}]
    assert json.loads(schema["lt"].metadata[sa.NESTED_KEY]) == [
        {"path": ["item"], "name": "arrow.fixed_shape_tensor",
         "metadata": '{"shape":[2],"dim_names":["x"]}'}]
    assert sa.NAME_KEY not in schema["l"].metadata
    back = sa.to_arrow(df)
    assert back.schema == t.schema
    for name in t.column_names:
        assert back.schema.field(name).type == t.schema.field(name).type, name
        assert back.column(name).to_pylist() == t.column(name).to_pylist(), name
    assert back.equals(t)
    # Spark itself sees the values: bool8 as boolean, json as string, variant as variant
    row = df.select(F.col("s.b"), F.col("s.a"), F.col("lv")[0].cast("int").alias("v"),
                    F.col("m")["k"].alias("mk")).first()
    assert (row.b, row.a, row.v, bytes(row.mk)) == (True, '{"a":1}', 1, U[0])


def test_spark_variants_nested_come_out_as_parquet_variant(spark):
    df = spark.sql("""SELECT array(parse_json('1'), NULL) AS a,
                             named_struct('v', parse_json('[2]')) AS s,
                             map('k', parse_json('3')) AS m""")
    t = sa.to_arrow(df)
    assert t.schema.field("a").type.value_type == sa.variant()
    assert t.schema.field("s").type.field("v").type == sa.variant()
    assert t.schema.field("m").type.item_type == sa.variant()
    assert t.column("a").to_pylist()[0][1] is None
    back = sa.from_arrow(spark, t)
    assert back.schema["a"].dataType == ArrayType(VariantType())
    assert [r.toJson() for r in back.select(F.col("s.v").alias("x")).first()] == ["[2]"]
    assert sa.to_arrow(back).equals(t)


def test_with_arrow_types_and_arrow_type_of_nested(spark):
    df = spark.sql("""SELECT array(unhex('00112233445566778899aabbccddeeff')) AS ids,
                             named_struct('doc', '{"a":1}', 'n', 1) AS s""")
    typ = pa.struct([pa.field("doc", pa.json_(), nullable=False),
                     pa.field("n", pa.int32(), nullable=False)])
    tagged = sa.with_arrow_types(df, {"ids": pa.list_(pa.uuid()), "s": typ})
    assert sa.arrow_type_of(tagged, "ids") == pa.list_(pa.uuid())
    t = sa.to_arrow(tagged)
    assert t.schema.field("ids").type == pa.list_(pa.uuid())
    assert t.schema.field("s").type == typ
    assert t.column("ids").to_pylist() == [[uuid.UUID("00112233-4455-6677-8899-aabbccddeeff")]]
    assert t.column("s").to_pylist() == [{"doc": '{"a":1}', "n": 1}]
    with pytest.raises(sa.ExtensionTypeError, match="column 'ids'.*needs Spark type "
                                                    "array<boolean>, the column is array<binary>"):
        sa.with_arrow_types(df, {"ids": pa.list_(pa.bool8())})
    with pytest.raises(sa.ExtensionTypeError, match="holds none"):
        sa.with_arrow_types(df, {"ids": pa.list_(pa.binary())})


def test_map_in_arrow_with_nested_types(spark):
    t = nested_table().select(["l", "s", "m"])
    df = sa.from_arrow(spark, t)

    def fn(batches):
        for b in batches:
            assert b.schema.field("l").type == pa.list_(pa.uuid())
            assert b.schema.field("m").type.item_type == pa.uuid()
            yield b.select(["m", "s", "l"])

    out = sa.map_in_arrow(df, fn, pa.schema([t.schema.field(c) for c in ["m", "s", "l"]]))
    back = sa.to_arrow(out)
    assert back.schema == pa.schema([t.schema.field(c) for c in ["m", "s", "l"]])
    assert back.column("l").to_pylist() == t.column("l").to_pylist()
    assert back.column("s").to_pylist() == t.column("s").to_pylist()


def test_nested_errors_name_the_column(spark):
    df = spark.sql("SELECT array(array(1f, 2f, 3f)) AS t")
    fst = pa.fixed_shape_tensor(pa.float32(), [2])
    tagged = sa.with_arrow_types(df, {"t": pa.list_(fst)})
    with pytest.raises(sa.ExtensionTypeError, match="column 't': row 0 has 3 elements, expected 2"):
        sa.to_arrow(tagged)

    def tag(md):
        return spark.sql("SELECT array(unhex('00')) AS x").select(
            F.col("x").alias("x", metadata=md))

    storage = sa.from_arrow(spark, nested_table().select(["l"])).schema["l"].metadata[
        sa.STORAGE_KEY]
    with pytest.raises(sa.ExtensionTypeError, match="column 'x': malformed arrow.extension.nested"):
        sa.to_arrow(tag({sa.NESTED_KEY: "[{", sa.STORAGE_KEY: storage}))
    with pytest.raises(sa.ExtensionTypeError, match="column 'x': malformed arrow.extension.nested"):
        sa.to_arrow(tag({sa.NESTED_KEY: '[{"path": "item", "name": "arrow.uuid"}]',
                         sa.STORAGE_KEY: storage}))
    with pytest.raises(sa.ExtensionTypeError,
                       match="column 'x': arrow.extension.nested path nope: .* no child field"):
        sa.to_arrow(tag({sa.NESTED_KEY: '[{"path": ["nope"], "name": "arrow.uuid"}]',
                         sa.STORAGE_KEY: storage}))
    # Without a storage entry (as the Parquet interceptor tags) the storage is derived from
    # Spark's Arrow type: paths must exist there, and the values must fit.
    with pytest.raises(sa.ExtensionTypeError,
                       match="column 'x': arrow.extension.nested path element.nope: .* no child field"):
        sa.to_arrow(tag({sa.NESTED_KEY: '[{"path": ["element", "nope"], "name": "arrow.uuid"}]'}))
    with pytest.raises(sa.ExtensionTypeError, match="column 'x': row 0 has 1 bytes, expected 16"):
        sa.to_arrow(tag({sa.NESTED_KEY: '[{"path": ["element"], "name": "arrow.uuid"}]'}))
    with pytest.raises(sa.ExtensionTypeError, match="column 'x': row 0 has 1 bytes, expected 16"):
        sa.to_arrow(tag({sa.NESTED_KEY: '[{"path": ["item"], "name": "arrow.uuid"}]',
                         sa.STORAGE_KEY: storage}))
    with pytest.raises(sa.ExtensionTypeError, match="column 'x': invalid arrow.fixed_shape_tensor"):
        sa.to_arrow(tag({sa.NESTED_KEY: json.dumps([{
            "path": ["item"], "name": "arrow.fixed_shape_tensor",
            "metadata": '{"shape":[3]}'}]),
            sa.STORAGE_KEY: encode_storage(pa.list_(pa.list_(pa.float32(), 2)))}))


def test_duckdb_nested_export_round_trips(spark):
    con = duckdb.connect()
    con.execute("SET arrow_lossless_conversion = true")
    src = con.sql("""SELECT [uuid '00112233-4455-6677-8899-aabbccddeeff', NULL] AS ids,
                            {'doc': '{"a":1}'::JSON, 'n': 1} AS s,
                            MAP {'k': uuid 'f0e1d2c3-b4a5-9687-7869-5a4b3c2d1e0f'} AS m""").arrow()
    src = src.read_all() if hasattr(src, "read_all") else src
    assert src.schema.field("ids").type.value_type == pa.uuid()
    df = sa.from_arrow(spark, src)
    assert df.schema["ids"].dataType == ArrayType(BinaryType())
    back = sa.to_arrow(df)
    assert back.schema == src.schema
    assert back.equals(src)
    con.register("b", back)
    assert con.sql("SELECT typeof(ids), typeof(s), typeof(m) FROM b").fetchall() == \
        [("UUID[]", "STRUCT(doc JSON, n INTEGER)", "MAP(VARCHAR, UUID)")]


def test_nested_rewrapping_reuses_buffers():
    from superspark.arrow import _nested
    from superspark.arrow._storage import conform

    # Spark's layout of array<binary> and map<string, binary> holding 16-byte UUIDs
    spark_list = pa.array([[b"a" * 16, b"b" * 16], None, [b"c" * 16]],
                          pa.list_(pa.field("element", pa.binary())))
    full = pa.list_(pa.field("element", pa.uuid()))
    wrapped = conform(spark_list, full)
    assert wrapped.type == full
    assert wrapped.to_pylist()[1] is None and wrapped.to_pylist()[2][0].bytes == b"c" * 16
    assert wrapped.buffers()[1].address == spark_list.buffers()[1].address  # list offsets
    assert wrapped.values.storage.buffers()[1].address == \
        spark_list.values.buffers()[2].address  # the UUID bytes
    back = _nested.to_spark(wrapped, full)
    assert back.type == pa.list_(pa.field("element", pa.binary(16)))
    assert back.buffers()[1].address == spark_list.buffers()[1].address
    assert back.values.buffers()[1].address == spark_list.values.buffers()[2].address

    spark_map = pa.array([[("k", b"d" * 16)]], pa.map_(pa.string(), pa.binary()))
    mfull = pa.map_(pa.string(), pa.uuid())
    m = conform(spark_map, mfull)
    assert m.type == mfull and m.to_pylist() == [[("k", uuid.UUID(bytes=b"d" * 16))]]
    assert m.keys.buffers()[2].address == spark_map.keys.buffers()[2].address
    assert m.items.storage.buffers()[1].address == spark_map.items.buffers()[2].address


@spark40_variant_parquet
def test_read_parquet_written_by_pyarrow_with_nested_types(spark, tmp_path):
    import pyarrow.parquet as pq

    t = nested_table()
    with sa.parquet_variant_guard():  # t has arrow.parquet.variant columns
        pq.write_table(t, str(tmp_path / "n.parquet"))
    written = pq.read_schema(str(tmp_path / "n.parquet"))  # pyarrow's own view of the file
    df = sa.read_parquet(spark, str(tmp_path / "n.parquet"))
    assert df.schema["s"].dataType.simpleString() == "struct<a:string,b:boolean,n:bigint>"
    assert df.schema["lv"].dataType == ArrayType(VariantType())
    back = sa.to_arrow(df)
    for name in t.column_names:
        # the file's Arrow schema (pyarrow writes lists with 'element' fields)
        assert back.schema.field(name).type == sa.arrow_schema_of(
            str(tmp_path / "n.parquet")).field(name).type, name
        assert back.column(name).to_pylist() == t.column(name).to_pylist(), name
    assert back.schema.field("l").type.value_type == pa.uuid()
    assert written.field("lt").type.value_type == FST


def test_unrepresentable_nesting_names_the_column_everywhere(spark):
    inner = pa.opaque(pa.list_(pa.uuid()), "x", "y")  # extension types inside its storage
    df = spark.sql("SELECT array(unhex('00')) AS o")
    with pytest.raises(sa.ExtensionTypeError, match="column 'o':.* inside"):
        sa.with_arrow_types(df, {"o": pa.struct([pa.field("a", inner)])})
    with pytest.raises(sa.ExtensionTypeError, match="column 'r':.* inside"):
        sa.map_in_arrow(df, lambda it: it, pa.schema([pa.field("r", pa.list_(inner))]))
