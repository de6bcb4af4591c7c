"""FLOAT16 Parquet columns through the interceptor: read as Spark float tagged
super.type=float16, to_arrow gives halffloat, a write gives FLOAT16 back (values checked
against pyarrow and numpy)."""

import math
import os

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from pyspark.sql import functions as F

from superspark.arrow import to_arrow

from shared_data import PARQUET_TESTING_MISSING, parquet_testing_data

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = parquet_testing_data()
FLOAT16_FILES = ["float16_nonzeros_and_nans.parquet", "float16_zeros_and_nans.parquet",
                 "byte_stream_split_extended.gzip.parquet", "floating_orders_nan_count.parquet"]



def same_floats(a, b):
    assert len(a) == len(b)
    for x, y in zip(a, b):
        assert (x is None and y is None) or (x == y) or (math.isnan(x) and math.isnan(y)), (x, y)


@pytest.fixture(params=["true", "false"], ids=["vectorized", "row-based"])
def reader(spark, request):
    spark.conf.set("spark.sql.parquet.enableVectorizedReader", request.param)
    yield request.param
    spark.conf.unset("spark.sql.parquet.enableVectorizedReader")


@pytest.mark.parametrize("name", FLOAT16_FILES)
def test_corpus_float16_files_read_as_pyarrow(spark, reader, name):
    if CORPUS is None:
        pytest.fail(PARQUET_TESTING_MISSING)
    path = os.path.join(CORPUS, name)
    assert os.path.exists(path), f"{path} is absent from the parquet-testing checkout"
    ref = pq.read_table(path)
    df = spark.read.parquet(path)
    got = to_arrow(df)
    for field in ref.schema:
        if field.type != pa.float16():
            continue
        sf = df.schema[field.name]
        assert sf.dataType.simpleString() == "float"
        assert sf.metadata == {"super.type": "float16"}
        assert got.schema.field(field.name).type == pa.float16()
        same_floats(got.column(field.name).to_pylist(), ref.column(field.name).to_pylist())


def test_float16_round_trip_and_rounding(spark, reader, tmp_dir):
    rng = np.random.default_rng(7)
    vals = np.concatenate([rng.normal(0, 1000, 2000).astype(np.float32),
                           np.array([0.0, -0.0, 65504, 70000, 1e-8, np.inf, -np.inf, np.nan], np.float32)])
    src = os.path.join(tmp_dir, "src.parquet")
    halves = pa.array(vals.astype(np.float16), pa.float16())
    pq.write_table(pa.table({"i": pa.array(range(len(vals)), pa.int32()), "h": halves}), src, row_group_size=500)
    df = spark.read.parquet(src)
    assert [f.dataType.simpleString() for f in df.schema] == ["int", "float"]
    same_floats([r.h for r in df.orderBy("i").collect()], halves.cast(pa.float32()).to_pylist())
    # a filter on the column (not pushed: the Parquet type is FIXED_LEN_BYTE_ARRAY) is right
    expected = sum(1 for v in halves.cast(pa.float32()).to_pylist() if v is not None and v > 100)
    assert df.where(F.col("h") > 100).where(~F.isnan("h")).count() == expected

    # write: the tag survives the DataFrame, the file holds FLOAT16 again
    out = os.path.join(tmp_dir, "out")
    df.write.parquet(out)
    back = pq.read_table(out)
    assert back.schema.field("h").type == pa.float16()
    same_floats(back.sort_by("i").column("h").to_pylist(), halves.to_pylist())

    # floats that are not halves: rounded as numpy rounds float32 -> float16 (nearest, ties even)
    tagged = spark.createDataFrame([(i, float(v)) for i, v in enumerate(vals)], "i int, f float") \
        .select("i", F.col("f").alias("f", metadata={"super.type": "float16"}))
    out2 = os.path.join(tmp_dir, "out2")
    tagged.write.parquet(out2)
    t2 = pq.read_table(out2).sort_by("i")
    assert t2.schema.field("f").type == pa.float16()
    same_floats(t2.column("f").to_pylist(), pa.array(vals.astype(np.float16)).to_pylist())


def test_float16_off_switch_is_spark(spark, tmp_dir):
    src = os.path.join(tmp_dir, "h.parquet")
    pq.write_table(pa.table({"h": pa.array(np.array([1.5], np.float16))}), src)
    spark.conf.set("spark.superspark.parquet.footer.read", "false")
    try:
        with pytest.raises(Exception, match="FLOAT16"):
            spark.read.parquet(src).collect()
    finally:
        spark.conf.unset("spark.superspark.parquet.footer.read")


@pytest.mark.parametrize("v1_list", ["avro,csv,json,kafka,orc,text,parquet", "avro,csv,json,kafka,orc,text"],
                         ids=["dsv1", "dsv2"])
def test_float16_aggregates_with_aggregate_pushdown(spark, tmp_dir, v1_list):
    # MIN/MAX of a FLOAT16 column are not answered from its 2-byte statistics (Spark's footer
    # aggregation would read them as a float); COUNT still is, and the answers are pyarrow's.
    src = os.path.join(tmp_dir, "h.parquet")
    halves = pa.array(np.array([1.5, -2.25, 3.0, 0.5, -0.0], np.float16), pa.float16())
    pq.write_table(pa.table({"h": halves, "i": pa.array([1, 2, 3, None, 5], pa.int32())}), src,
                   row_group_size=2)
    spark.conf.set("spark.sql.sources.useV1SourceList", v1_list)
    spark.conf.set("spark.sql.parquet.aggregatePushdown", "true")
    try:
        df = spark.read.parquet(src)
        row = df.selectExpr("min(h)", "max(h)", "count(h)", "count(*)", "min(i)", "max(i)").first()
        assert tuple(row) == (-2.25, 3.0, 5, 5, 1, 5)
        plan = df.selectExpr("count(h)", "min(i)")._jdf.queryExecution().executedPlan().toString()
        if not v1_list.endswith("parquet"):
            assert "PushedAggregation: [COUNT(h), MIN(i)]" in plan
        plan = df.selectExpr("max(h)")._jdf.queryExecution().executedPlan().toString()
        assert "PushedAggregation: [MAX(h)]" not in plan
    finally:
        spark.conf.unset("spark.sql.parquet.aggregatePushdown")
        spark.conf.unset("spark.sql.sources.useV1SourceList")
