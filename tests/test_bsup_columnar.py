"""The columnar `bsup` reader from PySpark: the setting `spark.superspark.bsup.vectorized.enabled`
is registered (SET -v), and both readers give the same rows (BsupColumnarSuite compares them
case by case on the JVM side)."""

import decimal

from pyspark.sql import functions as F

KEY = "spark.superspark.bsup.vectorized.enabled"


def _rows_and_plan(spark, path, on, **options):
    spark.conf.set(KEY, "true" if on else "false")
    try:
        df = spark.read.format("bsup").options(**options).load(path)
        plan = df._jdf.queryExecution().executedPlan().toString()
        return df.collect(), plan
    finally:
        spark.conf.unset(KEY)


def test_the_setting_is_in_set_v_and_on_by_default(spark):
    rows = {r[0]: r for r in spark.sql("SET -v").collect()}
    assert KEY in rows
    assert rows[KEY][1] == "true"
    assert spark.conf.get(KEY) == "true"


def test_columnar_and_row_readers_give_the_same_rows(spark, tmp_dir):
    df = spark.range(0, 5000, 1, 2).select(
        F.col("id"),
        F.when(F.col("id") % 5 == 0, None).otherwise(F.concat(F.lit("s"), F.col("id").cast("string"))).alias("s"),
        (F.col("id") / 4).cast("decimal(10,2)").alias("dec"),
        F.timestamp_seconds(F.lit(1_700_000_000) + F.col("id")).alias("ts"),
        F.array(F.col("id"), F.when(F.col("id") % 3 == 0, None).otherwise(F.col("id") * 2)).alias("arr"),
        F.struct((F.col("id") % 7).alias("a"), F.create_map(F.lit("k"), F.col("id")).alias("m")).alias("st"))
    want = [(r.id, r.s, r.dec, r.ts, r.arr, r.st.a, r.st.m) for r in df.collect()]
    for version in ("0", "5"):
        path = f"{tmp_dir}/v{version}"
        df.write.format("bsup").option("version", version).save(path)
        on, on_plan = _rows_and_plan(spark, path, True)
        off, off_plan = _rows_and_plan(spark, path, False)
        assert "ColumnarToRow" in on_plan and "ColumnarToRow" not in off_plan
        assert sorted(on) == sorted(off)
        got = sorted((r.id, r.s, r.dec, r.ts, r.arr, r.st.a, r.st.m) for r in on)
        assert got == sorted(want)
        assert got[3][:3] == (3, "s3", decimal.Decimal("0.75")) and got[3][4:] == ([3, None], 3, {"k": 3})


def test_file_metadata_and_partitions_come_with_the_batches(spark, tmp_dir):
    path = f"{tmp_dir}/parts"
    spark.range(0, 300, 1, 2).select(F.col("id"), (F.col("id") % 3).alias("p"),
                                     F.concat(F.lit("v"), F.col("id").cast("string")).alias("s")) \
        .write.format("bsup").partitionBy("p").save(path)
    out = {}
    for on in (True, False):
        spark.conf.set(KEY, "true" if on else "false")
        try:
            df = spark.read.format("bsup").load(path).where("id % 2 = 0") \
                .select("id", "p", "s", F.input_file_name().alias("f"), F.col("_metadata.file_name").alias("name"))
            plan = df._jdf.queryExecution().executedPlan().toString()
            assert ("ColumnarToRow" in plan) == on
            out[on] = sorted(tuple(r) for r in df.collect())
        finally:
            spark.conf.unset(KEY)
    assert out[True] == out[False]
    assert len(out[True]) == 150
    for id_, p, s, f, name in out[True]:
        assert p == id_ % 3 and s == f"v{id_}" and f"p={p}" in f and f.endswith(name)
