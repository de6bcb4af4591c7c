"""superspark.arrow.map_in_arrow: canonical types inside Spark's Arrow path to Python."""

import os
import sys

import pyarrow as pa
import pytest
from pyspark.sql.types import VariantType

import superspark.arrow as sa

sys.path.insert(0, os.path.dirname(__file__))
from arrow_tables import all_types_table  # noqa: E402


def _types_seen_fn():
    # Defined inside a function so that cloudpickle ships it by value to the workers.
    def types_seen(batches):
        for b in batches:
            yield pa.RecordBatch.from_pylist(
                [{"name": f.name, "type": str(f.type)} for f in b.schema])
    return types_seen


def test_fn_sees_canonical_types(spark):
    df = sa.from_arrow(spark, all_types_table())
    seen = {r.name: r.type for r in sa.map_in_arrow(df, _types_seen_fn(), "name string, type string")
            .collect()}
    expected = {f.name: str(f.type) for f in all_types_table().schema}
    assert seen == expected


def test_plain_spark_variant_reaches_fn_as_parquet_variant(spark):
    df = spark.sql("SELECT parse_json('[1]') AS v")
    seen = {r.name: r.type for r in sa.map_in_arrow(df, _types_seen_fn(), "name string, type string")
            .collect()}
    assert seen == {"v": str(sa.variant())}


def test_fn_returns_extension_types(spark):
    src = all_types_table()
    df = sa.from_arrow(spark, src)
    cols = ["u", "b", "ft", "v"]
    schema = pa.schema([src.schema.field(c) for c in cols])

    def fn(batches):
        for b in batches:  # hand back the extension arrays as they came, reordered
            yield b.select(list(reversed(cols)))

    out = sa.map_in_arrow(df, fn, schema)
    assert out.schema["v"].dataType == VariantType()
    assert out.schema["u"].metadata[sa.NAME_KEY] == "arrow.uuid"
    t = sa.to_arrow(out)
    assert t.schema == schema
    assert sorted(t.column("u").to_pylist(), key=repr) == \
        sorted(src.column("u").to_pylist(), key=repr)
    assert sorted(t.column("b").to_pylist(), key=repr) == \
        sorted(src.column("b").to_pylist(), key=repr)


def test_fn_returning_a_bad_tensor_names_the_column(spark):
    df = spark.sql("SELECT 1 AS x")
    fst = pa.fixed_shape_tensor(pa.float32(), [2])

    def fn(batches):
        for _ in batches:
            yield pa.RecordBatch.from_arrays([pa.array([[1.0, 2.0, 3.0]], pa.list_(pa.float32()))],
                                             names=["t"])

    with pytest.raises(Exception, match="column 't'"):
        sa.map_in_arrow(df, fn, pa.schema([pa.field("t", fst)])).collect()


def test_apply_in_arrow_groups_carry_canonical_types(spark):
    df = spark.sql("""SELECT id % 2 AS k, parse_json(to_json(named_struct('n', id))) AS v,
                             array(CAST(id AS FLOAT), 0.0f) AS t FROM range(6)""")
    df = sa.with_arrow_types(df, {"t": pa.fixed_shape_tensor(pa.float32(), [2])})
    out_schema = pa.schema([pa.field("k", pa.int64()), pa.field("types", pa.string()),
                            pa.field("first", pa.fixed_shape_tensor(pa.float32(), [2]))])

    def fn(key, table):
        types = f"{table.schema.field('v').type.extension_name},{table.schema.field('t').type}"
        first = table.column("t").chunk(0)[:1]  # an arrow.fixed_shape_tensor array
        return pa.table({"k": [key[0].as_py()], "types": [types], "first": first})

    out = sa.apply_in_arrow(df.groupBy("k"), fn, out_schema)
    t = sa.to_arrow(out).sort_by("k")
    assert t.schema == out_schema
    assert set(t.column("types").to_pylist()) == {
        "arrow.parquet.variant,extension<arrow.fixed_shape_tensor[value_type=float, shape=[2]]>"}
    assert [r[1] for r in t.column("first").to_pylist()] == [0.0, 0.0]
