"""sb_decode / sb_encode vs from_avro / to_avro (spark-avro 4.1.1, bench-only jar) vs
from_json / to_json on the same small records (7 mixed fields), side by side in one run.
The three binary/string columns are cached in memory first; each measurement evaluates every
row into Spark's `noop` sink. Prints rows/s (medians of repeats) and ratio= lines: each the median of
the repeats' paired ratios (every case runs once per repeat, round robin), with min-max.

    make bench-sb            # BENCH_ROWS=2000000 BENCH_REPEATS=5 by default (+1 warm-up round)
"""

import glob
import os
import statistics
import sys
import time

import superspark
from pyspark.sql import functions as F

from superspark import functions as SF

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import rounds  # noqa: E402  (bench/rounds.py: paired rounds into one figure)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ROWS = int(os.environ.get("BENCH_ROWS", "2000000"))
REPEATS = int(os.environ.get("BENCH_REPEATS", "5"))

avro_jars = glob.glob(os.path.join(ROOT, "bench", "out", "jars", "spark-avro_*.jar"))
if not avro_jars:
    sys.exit("spark-avro jar missing: run `./dev/sbt bsupBenchJars` (make bench-sb does)")

spark = superspark.session("bench-sb", master="local[2]", **{
    "spark.jars": avro_jars[0],
    "spark.driver.memory": "4g",
    "spark.ui.enabled": "false",
    "spark.ui.showConsoleProgress": "false",
    "spark.sql.shuffle.partitions": "2",
    "spark.sql.session.timeZone": "UTC",
})
spark.sparkContext.setLogLevel("ERROR")
from pyspark.sql.avro.functions import from_avro, to_avro  # noqa: E402

id_ = F.col("id")
rec = F.struct(
    id_.alias("id"),
    (id_ % 1000).cast("int").alias("i"),
    F.concat(F.lit("user-"), (id_ * 7919 % 100003).cast("string")).alias("s"),
    (id_ / 3.0).cast("double").alias("d"),
    (id_ % 2 == 0).alias("b"),
    F.timestamp_seconds(F.lit(1_700_000_000) + id_).alias("ts"),
    F.concat(F.lit("tag"), (id_ % 13).cast("string")).alias("t"),
).alias("rec")

base = spark.range(0, ROWS, 1, 2).select(rec)
data = base.select("rec", SF.sb_encode("rec").alias("sb"), to_avro("rec").alias("avro"),
                   F.to_json("rec").alias("json")).cache()
data.count()
schema_ddl = base.schema["rec"].dataType.simpleString()
jvm = spark._jvm
avro_schema = jvm.org.apache.spark.sql.avro.SchemaConverters.toAvroType(
    jvm.org.apache.spark.sql.types.DataType.fromJson(base.schema["rec"].dataType.json()),
    False, "topLevelRecord", "").toString()

sizes = data.select(F.avg(F.length("sb")), F.avg(F.length("avro")), F.avg(F.length("json"))).head()
print(f"rows={ROWS} repeats={REPEATS} avg bytes: sb={sizes[0]:.1f} avro={sizes[1]:.1f} json={sizes[2]:.1f}")

# Sanity: the three decoders give the same records.
check = data.limit(1000).select(
    (SF.sb_decode("sb", schema_ddl) == from_avro("avro", avro_schema)).alias("a"),
    (SF.sb_decode("sb", schema_ddl) == F.from_json("json", schema_ddl)).alias("j")).agg(
    F.min("a"), F.min("j")).head()
assert check[0] and check[1], check

CASES = {
    "sb_decode": lambda: data.select(SF.sb_decode("sb", schema_ddl).alias("r")),
    "from_avro": lambda: data.select(from_avro("avro", avro_schema).alias("r")),
    "from_json": lambda: data.select(F.from_json("json", schema_ddl).alias("r")),
    "sb_encode": lambda: data.select(SF.sb_encode("rec").alias("r")),
    "to_avro": lambda: data.select(to_avro("rec").alias("r")),
    "to_json": lambda: data.select(F.to_json("rec").alias("r")),
}

times = {k: [] for k in CASES}
for round_ in range(REPEATS + 1):
    # Round robin: every case sees the same machine load. Round 0 warms the JIT up.
    for name, df in CASES.items():
        t0 = time.perf_counter()
        df().write.format("noop").mode("overwrite").save()
        if round_ > 0:
            times[name].append(time.perf_counter() - t0)

rate = {k: ROWS / statistics.median(v) for k, v in times.items()}
for k, r in rate.items():
    print(f"{k:10s} {r:12,.0f} rows/s  (median of {REPEATS}: {statistics.median(times[k]):.2f} s)")
for fast, slow, target in (("sb_decode", "from_avro", " (target >= 1.5)"), ("sb_decode", "from_json", " (target >= 3.0)"),
                           ("sb_encode", "to_avro", " (target >= 1.0)"), ("sb_encode", "to_json", "")):
    print(f"{fast}/{slow}: {rounds.ratio_line(times[slow], times[fast])}{target}")
spark.stop()
