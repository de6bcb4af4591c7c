"""superspark.arrow through Spark Connect (the connect_session fixture of conftest.py)."""

import os
import sys
from typing import Iterator

import pyarrow as pa
from pyspark.sql import functions as F
from pyspark.sql.types import BinaryType, VariantType

import superspark.arrow as sa

sys.path.insert(0, os.path.dirname(__file__))
from arrow_tables import all_types_table  # noqa: E402


def test_connect_round_trip_and_wrappers(connect_session):
    remote = connect_session
    src = all_types_table()
    nested = pa.table({"l": pa.ListArray.from_arrays(
        pa.array([0, 1, 1, 2], pa.int32()), src.column("u").chunk(0)[:2])})

    # from_arrow / to_arrow
    df = sa.from_arrow(remote, src)
    assert df.schema["u"].dataType == BinaryType()
    assert df.schema["u"].metadata[sa.NAME_KEY] == "arrow.uuid"
    assert df.schema["v"].dataType == VariantType()
    back = sa.to_arrow(df)
    assert back.schema == src.schema
    assert back.equals(src)
    nb = sa.to_arrow(sa.from_arrow(remote, nested))
    assert nb.equals(nested)

    # tagging
    tagged = sa.with_arrow_types(
        remote.sql("SELECT '00112233-4455-6677-8899-aabbccddeeff' AS u, 1L AS k"),
        {"u": pa.uuid()})
    t = sa.to_arrow(tagged)
    assert t.schema.field("u").type == pa.uuid()
    assert str(t.column("u")[0].as_py()) == "00112233-4455-6677-8899-aabbccddeeff"

    # mapInArrow
    def types_seen(batches):
        for b in batches:
            yield pa.RecordBatch.from_pylist(
                [{"name": f.name, "type": str(f.type)} for f in b.schema])

    seen = {r.name: r.type for r in sa.map_in_arrow(df, types_seen, "name string, type string")
            .collect()}
    assert seen == {f.name: str(f.type) for f in src.schema}

    def echo(batches):
        for b in batches:
            yield b.select(["u", "ft"])

    out = sa.map_in_arrow(df, echo, pa.schema([src.schema.field("u"), src.schema.field("ft")]))
    got = sa.to_arrow(out)
    assert got.schema == src.select(["u", "ft"]).schema
    assert sorted(map(repr, got.to_pylist())) == sorted(map(repr, src.select(["u", "ft"])
                                                            .to_pylist()))

    # grouped applyInArrow (iterator form) and an Arrow UDF
    def count(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        n = 0
        for b in batches:
            assert b.schema.field("u").type == pa.uuid()
            n += b.num_rows
        yield pa.RecordBatch.from_pydict({"n": [n]})

    grouped = df.withColumn("k", F.lit(1)).groupBy("k")
    assert [r.n for r in sa.apply_in_arrow(grouped, count, "n long").collect()] == [3]

    def pair(left, right):
        return pa.table({"lu": left.column("u"), "rb": right.column("b")})

    co = sa.cogroup_apply_in_arrow(grouped.cogroup(grouped), pair,
                                   pa.schema([src.schema.field("u").with_name("lu"),
                                              src.schema.field("b").with_name("rb")]))
    got = sa.to_arrow(co)
    assert got.schema.field("lu").type == pa.uuid() and got.schema.field("rb").type == pa.bool8()
    assert sorted(map(repr, got.column("rb").to_pylist())) == \
        sorted(map(repr, src.column("b").to_pylist()))

    @sa.arrow_udf("string", argTypes=[pa.uuid()])
    def kind(u: pa.Array) -> pa.Array:
        return pa.array([u.type.extension_name] * len(u))

    assert {r[0] for r in df.select(kind("u")).collect()} == {"arrow.uuid"}
