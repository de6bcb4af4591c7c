"""Canonical types inside Spark's other Arrow paths to Python: Arrow UDFs, the iterator form
of grouped applyInArrow, cogrouped applyInArrow."""

import os
import sys
import uuid
from typing import Iterator, Tuple

import pyarrow as pa
import pyarrow.compute as pc
import pytest
from pyspark.sql import functions as F
from pyspark.sql.types import BinaryType, VariantType

import superspark.arrow as sa

sys.path.insert(0, os.path.dirname(__file__))
from arrow_tables import UUIDS, all_types_table, ext  # noqa: E402

FST = pa.fixed_shape_tensor(pa.float32(), [2])
LINE = tuple(int(x) for x in __import__("pyspark").__version__.split(".")[:2])
# Arrow UDFs and the iterator form of grouped applyInArrow are PySpark 4.1 features, the
# iterator aggregate form 4.2's: on older lines test_arrow_udf_is_a_clear_error_before_4_1 checks the error.
needs_41 = pytest.mark.skipif(LINE < (4, 1), reason="PySpark 4.0 has no Arrow UDFs / iterator applyInArrow")
needs_42 = pytest.mark.skipif(LINE < (4, 2), reason="the iterator aggregate Arrow UDF is PySpark 4.2's")
# Functions that run on the Python workers must not use names from arrow_tables (that module
# is not importable there); pyarrow and superspark are.


@pytest.fixture
def tagged(spark):
    """Rows k, u (uuid), j (json), t (2-element float tensor), v (variant)."""
    df = spark.sql("""SELECT id % 2 AS k, unhex(lpad(hex(id + 1), 32, '0')) AS u,
                             to_json(named_struct('n', id)) AS j,
                             array(CAST(id AS FLOAT), 1.0f) AS t,
                             parse_json(to_json(named_struct('n', id))) AS v
                      FROM range(6)""")
    return sa.with_arrow_types(df, {"u": pa.uuid(), "j": pa.json_(), "t": FST})


def _uuid_of(i):
    return bytes(15) + bytes([i + 1])


# ------------------------------------------------------------------- arrow_udf (scalar)


@needs_41
def test_arrow_udf_sees_declared_types_and_variants(spark, tagged):
    def types(u, j, t, v):
        return pa.array([f"{u.type}|{j.type}|{t.type.extension_name}|{v.type.extension_name}"]
                        * len(u))

    f = sa.arrow_udf(types, "string", argTypes=[sa.arrow_type_of(tagged, c) for c in "ujt"])
    seen = {r[0] for r in tagged.select(f("u", "j", "t", "v")).collect()}
    assert seen == {"extension<arrow.uuid>|extension<arrow.json>|arrow.fixed_shape_tensor|"
                    "arrow.parquet.variant"}


@needs_41
def test_arrow_udf_values_and_extension_result(spark, tagged):
    @sa.arrow_udf(pa.uuid(), argTypes={"u": pa.uuid()})
    def next_id(u: pa.Array) -> pa.Array:
        assert isinstance(u, pa.ExtensionArray) and u.type == pa.uuid()
        # add 0x10 to the last byte: compute on the storage, hand back arrow.uuid
        vals = [None if b is None else b[:15] + bytes([b[15] + 0x10]) for b in
                u.storage.to_pylist()]
        return pa.ExtensionArray.from_storage(pa.uuid(), pa.array(vals, pa.binary(16)))

    out = tagged.select("k", next_id("u"))
    field = out.schema["next_id(u)"]
    assert field.dataType == BinaryType()
    assert field.metadata[sa.NAME_KEY] == "arrow.uuid"
    t = sa.to_arrow(out.orderBy("k"))
    assert t.schema.field("next_id(u)").type == pa.uuid()
    got = sorted(v.bytes for v in t.column("next_id(u)").to_pylist())
    assert got == sorted(bytes(15) + bytes([i + 1 + 0x10]) for i in range(6))
    # renaming keeps the identity
    assert out.select(F.col("next_id(u)").alias("x")).schema["x"].metadata[sa.NAME_KEY] == \
        "arrow.uuid"


@needs_41
def test_arrow_udf_keyword_arguments(spark, tagged):
    @sa.arrow_udf("string", argTypes={"doc": pa.json_()})
    def kind(n: pa.Array, doc: pa.Array) -> pa.Array:
        return pa.array([f"{doc.type.extension_name}:{x}" for x in n.to_pylist()])

    got = sorted(r[0] for r in tagged.select(kind(doc=F.col("j"), n=F.col("k"))).collect())
    assert got == ["arrow.json:0"] * 3 + ["arrow.json:1"] * 3


@needs_41
def test_arrow_udf_returns_a_tensor_and_checks_its_size(spark, tagged):
    @sa.arrow_udf(FST)
    def twice(x: pa.Array) -> pa.Array:
        vals = pc.multiply(x, 2).cast(pa.float32())
        return pa.ExtensionArray.from_storage(FST, pa.FixedSizeListArray.from_arrays(
            pa.array([v for v in vals.to_pylist() for v in (v, v)], pa.float32()), 2))

    out = tagged.select(twice("k").alias("tt"))
    assert out.schema["tt"].metadata[sa.NAME_KEY] == "arrow.fixed_shape_tensor"
    t = sa.to_arrow(out)
    assert t.schema.field("tt").type == FST
    assert sorted(r[0] for r in t.column("tt").to_pylist()) == [0, 0, 0, 2, 2, 2]

    @sa.arrow_udf(FST)
    def bad(x: pa.Array) -> pa.Array:
        return pa.array([[1.0, 2.0, 3.0]] * len(x), pa.list_(pa.float32()))

    with pytest.raises(Exception, match="result of bad: row 0 has 3 elements, expected 2"):
        tagged.select(bad("k")).collect()


@needs_41
def test_arrow_udf_iterator_form(spark, tagged):
    @sa.arrow_udf("string", argTypes=[pa.json_()])
    def keys(it: Iterator[pa.Array]) -> Iterator[pa.Array]:
        for j in it:
            assert j.type == pa.json_()
            yield pa.array([f"{j.type.extension_name}:{s[:4]}" for s in j.storage.to_pylist()])

    got = {r[0] for r in tagged.select(keys("j")).collect()}
    assert got == {'arrow.json:{"n"'}

    @sa.arrow_udf(sa.variant())
    def pair(it: Iterator[Tuple[pa.Array, pa.Array]]) -> Iterator[pa.Array]:
        for k, v in it:  # hand the variant through unchanged
            assert v.type == sa.variant()
            yield v

    out = tagged.select(pair("k", "v").alias("v2"))
    assert out.schema["v2"].dataType == VariantType()
    assert sorted(r.v2.toJson() for r in out.collect()) == [f'{{"n":{i}}}' for i in range(6)]


@needs_41
def test_arrow_udf_grouped_aggregate(spark, tagged):
    @sa.arrow_udf(pa.uuid(), argTypes=[pa.uuid()])
    def smallest(u: pa.Array) -> pa.Scalar:
        assert u.type == pa.uuid()
        return pa.ExtensionScalar.from_storage(pa.uuid(), min(u.storage.to_pylist()))

    out = tagged.groupBy("k").agg(smallest("u").alias("m")).orderBy("k")
    assert out.schema["m"].metadata[sa.NAME_KEY] == "arrow.uuid"
    t = sa.to_arrow(out)
    assert t.schema.field("m").type == pa.uuid()
    assert [v.bytes for v in t.column("m").to_pylist()] == [_uuid_of(0), _uuid_of(1)]


@needs_42
def test_arrow_udf_iterator_aggregate(spark, tagged):
    @sa.arrow_udf(pa.json_(), argTypes=[pa.json_()])
    def last_doc(it: Iterator[pa.Array]) -> pa.Scalar:
        last = None
        for j in it:
            assert j.type == pa.json_()
            last = max(j.storage.to_pylist() + ([last] if last else []))
        return pa.ExtensionScalar.from_storage(pa.json_(), last)

    out = tagged.groupBy("k").agg(last_doc("j").alias("d")).orderBy("k")
    t = sa.to_arrow(out)
    assert t.schema.field("d").type == pa.json_()
    assert t.column("d").to_pylist() == ['{"n":4}', '{"n":5}']


@needs_41
def test_arrow_udf_errors(spark, tagged):
    def f(x):
        return x

    with pytest.raises(ValueError, match=r"argTypes names no parameter of f: \['nope'\]"):
        sa.arrow_udf(f, "string", argTypes={"nope": pa.uuid()})
    with pytest.raises(TypeError, match="argTypes entries must be pyarrow types"):
        sa.arrow_udf(lambda x: x, "string", argTypes=["uuid"])

    # a string column declared arrow.uuid: the data does not fit (not 16 bytes)
    @sa.arrow_udf("string", argTypes=[pa.uuid()])
    def echo(u: pa.Array) -> pa.Array:
        return pa.array(["x"] * len(u))

    with pytest.raises(Exception, match="has 3 bytes, expected 16"):
        spark.sql("SELECT 'abc' AS s").select(echo(F.col("s").cast("binary"))).collect()


@needs_41
def test_arrow_udf_plain_result_and_nested_return(spark, tagged):
    @sa.arrow_udf(pa.list_(pa.uuid()), argTypes=[pa.uuid()])
    def wrap(u: pa.Array) -> pa.Array:
        return pa.ListArray.from_arrays(pa.array(range(len(u) + 1), pa.int32()), u)

    out = tagged.select(wrap("u").alias("l"))
    assert out.schema["l"].metadata[sa.NESTED_KEY] == \
        '[{"path": ["item"], "name": "arrow.uuid", "metadata": ""}]'
    t = sa.to_arrow(out)
    assert t.schema.field("l").type == pa.list_(pa.uuid())
    assert sorted(r[0].bytes for r in t.column("l").to_pylist()) == \
        sorted(_uuid_of(i) for i in range(6))


def test_udf_use_arrow_is_unchanged(spark):
    # udf(useArrow=True) hands Python objects (not Arrow arrays) to the function, so there is
    # no Arrow type to carry: superspark leaves it alone, and tags survive around it.
    df = sa.from_arrow(spark, all_types_table()).select("u")
    f = F.udf(lambda b: None if b is None else len(b), "int", useArrow=True)
    assert sorted(r[0] for r in df.select(f("u")).collect() if r[0] is not None) == [16, 16]


# --------------------------------------------------------- grouped applyInArrow, iterator


@needs_41
def test_apply_in_arrow_iterator_form(spark, tagged):
    out_schema = pa.schema([pa.field("k", pa.int64()), pa.field("n", pa.int64()),
                            pa.field("first", pa.uuid())])

    def fn(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        n, first, k = 0, None, None
        for b in batches:
            assert b.schema.field("u").type == pa.uuid()
            assert b.schema.field("v").type == sa.variant()
            assert b.schema.field("t").type == FST
            n += b.num_rows
            k = b.column("k")[0].as_py()
            first = first if first is not None else b.column("u")[:1]
        yield pa.RecordBatch.from_arrays([pa.array([k]), pa.array([n]), first],
                                         schema=out_schema)

    out = sa.apply_in_arrow(tagged.groupBy("k"), fn, out_schema)
    t = sa.to_arrow(out).sort_by("k")
    assert t.schema == out_schema
    assert t.column("n").to_pylist() == [3, 3]
    assert all(isinstance(v, uuid.UUID) for v in t.column("first").to_pylist())


@needs_41
def test_apply_in_arrow_iterator_form_with_key(spark, tagged):
    def fn(key: Tuple[pa.Scalar, ...], batches: Iterator[pa.RecordBatch]) \
            -> Iterator[pa.RecordBatch]:
        for b in batches:
            yield pa.RecordBatch.from_pydict({
                "k": pa.array([key[0].as_py()] * b.num_rows),
                "j": b.column("j")})  # arrow.json, handed back

    out = sa.apply_in_arrow(tagged.groupBy("k"), fn,
                            pa.schema([pa.field("k", pa.int64()), pa.field("j", pa.json_())]))
    assert out.schema["j"].metadata[sa.NAME_KEY] == "arrow.json"
    t = sa.to_arrow(out).sort_by("k")
    assert t.schema.field("j").type == pa.json_()
    assert t.column("k").to_pylist() == [0, 0, 0, 1, 1, 1]

    def bad(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        for _ in batches:
            yield pa.RecordBatch.from_pydict({"x": [1]})

    with pytest.raises(Exception, match="fn returned no column 'j'"):
        sa.apply_in_arrow(tagged.groupBy("k"), bad, "j string").collect()


# ----------------------------------------------------------------- cogrouped applyInArrow


def test_cogroup_apply_in_arrow(spark, tagged):
    right = sa.from_arrow(spark, pa.table({
        "k": pa.array([0, 1], pa.int64()),
        "b": ext(pa.bool8(), pa.array([1, 0], pa.int8())),
        "u": ext(pa.uuid(), pa.array([UUIDS[0], UUIDS[2]], pa.binary(16)))}))
    out_schema = pa.schema([pa.field("k", pa.int64()), pa.field("types", pa.string()),
                            pa.field("flag", pa.bool8()), pa.field("ru", pa.uuid())])

    def fn(key, left, right):
        types = ",".join([left.schema.field("u").type.extension_name,
                          left.schema.field("v").type.extension_name,
                          right.schema.field("b").type.extension_name])
        return pa.table({"k": [key[0].as_py()], "types": [types],
                         "flag": right.column("b"), "ru": right.column("u")})

    out = sa.cogroup_apply_in_arrow(tagged.groupBy("k").cogroup(right.groupBy("k")), fn,
                                    out_schema)
    t = sa.to_arrow(out).sort_by("k")
    assert t.schema == out_schema
    assert t.column("types").to_pylist() == ["arrow.uuid,arrow.parquet.variant,arrow.bool8"] * 2
    assert t.column("flag").to_pylist() == [True, False]
    assert [u.bytes for u in t.column("ru").to_pylist()] == [UUIDS[0], UUIDS[2]]

    def two(left, right):
        return pa.table({"n": [left.num_rows + right.num_rows]})

    out2 = sa.cogroup_apply_in_arrow(tagged.groupBy("k").cogroup(right.groupBy("k")), two,
                                     "n long")
    assert sorted(r.n for r in out2.collect()) == [4, 4]

    def wrong(left, right):
        return pa.table({"flag": pa.array([5], pa.int64())})

    with pytest.raises(Exception, match="column 'flag'"):
        sa.cogroup_apply_in_arrow(tagged.groupBy("k").cogroup(right.groupBy("k")), wrong,
                                  pa.schema([pa.field("flag", pa.uuid())])).collect()


def test_arrow_udf_is_a_clear_error_before_4_1(spark):
    from pyspark.util import PythonEvalType
    from superspark.arrow._pyspark import ArrowLayerUnsupported

    if LINE < (4, 1):
        with pytest.raises(ArrowLayerUnsupported, match="arrow_udf needs pyspark 4.1 or later"):
            sa.arrow_udf(lambda a: a, "long")
    else:
        assert sa.arrow_udf(lambda a: a, "long").evalType == PythonEvalType.SQL_SCALAR_ARROW_UDF
