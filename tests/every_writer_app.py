"""The application behind tests/test_every_writer.py: one Spark application with
``spark.superspark.parquet.footer.everyWriter=true`` (a static setting, so its own process),
whose writers are everything but superspark's own writer: Delta Lake's operations (on lines
with Delta's jars), Structured Streaming's file sink, Hive-format tables, parquet-java's
``ParquetWriter`` in the driver, and Spark's Parquet writer with and without superspark's
footer write. It writes ``result.json`` in OUT: per scenario the rows read back (through
superspark's footer library and through Spark's own Parquet code) and the data files; the test
checks them against values computed in Python, and the files with other readers.

Usage: python every_writer_app.py OUT [DELTA_JAR,...]
"""

import glob
import json
import os
import sys
import time

import superspark
from superspark import parquet_interceptor as pi

out, jars = sys.argv[1], [j for j in (sys.argv[2] if len(sys.argv) > 2 else "").split(",") if j]
delta = any("delta-spark" in os.path.basename(j) for j in jars)
iceberg = any("iceberg-spark-runtime" in os.path.basename(j) for j in jars)
form = os.environ.get("EVERY_WRITER_FORM", "private")
# EVERY_WRITER_SCENARIOS=core: the writers of each kind once (the other Delta lines in make test-lines)
CORE = {"delta_append", "delta_time_travel", "delta_merge", "delta_delete_dv", "delta_update_dv", "delta_optimize", "delta_zorder",
        "iceberg", "stream_parquet", "parquet_java", "spark_plain", "spark_footer_write"}
full = os.environ.get("EVERY_WRITER_SCENARIOS", "all") != "core"


def want(*names):
    return full or any(n in CORE for n in names)

conf = {
    "spark.superspark.parquet.footer.everyWriter": "true",
    "spark.superspark.parquet.footer.form": form,
    "spark.ui.enabled": "false", "spark.sql.shuffle.partitions": "2",
    "spark.sql.warehouse.dir": os.path.join(out, "warehouse"),
    **({"spark.sql.catalogImplementation": "hive"} if full else {}),
    "spark.hadoop.javax.jdo.option.ConnectionURL": f"jdbc:derby:;databaseName={os.path.join(out, 'metastore')};create=true",
    "spark.driver.extraJavaOptions": f"-Dderby.system.home={out}",
}
if jars:
    conf["spark.jars"] = ",".join(jars)
if delta:
    conf.update({"spark.sql.extensions": "io.delta.sql.DeltaSparkSessionExtension",
                 "spark.sql.catalog.spark_catalog": "org.apache.spark.sql.delta.catalog.DeltaCatalog",
                 "spark.databricks.delta.retentionDurationCheck.enabled": "false",
                 "spark.databricks.delta.snapshotPartitions": "2",
                 # VACUUM lists the table in this many tasks (Spark's default 10,000: ~50 s a VACUUM on 2 cores)
                 "spark.sql.sources.parallelPartitionDiscovery.parallelism": "4"})
if iceberg:  # a Hadoop catalog in OUT
    conf.update({"spark.sql.catalog.ice": "org.apache.iceberg.spark.SparkCatalog",
                 "spark.sql.catalog.ice.type": "hadoop",
                 "spark.sql.catalog.ice.warehouse": "file://" + os.path.join(out, "iceberg")})
spark = superspark.session("every-writer", master="local[2]", **conf)
spark.sparkContext.setLogLevel("ERROR")
jvm = spark.sparkContext._jvm
result = {"delta": delta, "iceberg": iceberg, "scenarios": {}, "form": form, "full": full, "core": sorted(CORE)}
COLS = "id INT, part STRING, v DOUBLE, s STRING"


def base(lo, hi, parts=4):
    return spark.range(lo, hi, 1, parts).selectExpr(
        "CAST(id AS INT) AS id", "concat('p', CAST(id % 3 AS STRING)) AS part", "CAST(id AS DOUBLE) * 0.5 AS v", "concat('s', id) AS s")


def rows(df):
    return sorted([r.id, r.part, r.v, r.s] for r in df.select("id", "part", "v", "s").collect())


def data_files(root):
    return sorted(f for f in glob.glob(os.path.join(root, "**", "*.parquet"), recursive=True)
                  if "_delta_log" not in f and "_spark_metadata" not in f and "/." not in f)


def record(name, root, read, extra=None):
    """Rows read through superspark's footer library and through Spark's own Parquet code."""
    spark.conf.set("spark.superspark.parquet.footer.read", "true")
    pi.reset_footer_metrics(spark)
    via_lib = rows(read())
    lib_metrics = pi.footer_metrics(spark)
    spark.conf.set("spark.superspark.parquet.footer.read", "false")
    via_spark = rows(read())
    spark.conf.set("spark.superspark.parquet.footer.read", "true")
    result["scenarios"][name] = {"root": root, "rows": via_lib, "rows_spark": via_spark,
                                 "files": data_files(root), "footer_metrics": lib_metrics, **(extra or {})}


def counted(write):
    """Runs ``write``; the SQL metrics of the write commands it ran (the SQL tab's EveryWriterFooter nodes)."""
    seen = max([e["execution"] for e in pi.every_writer_query_counts(spark)], default=-1)
    write()
    return [e["counts"] for e in pi.every_writer_query_counts(spark) if e["execution"] > seen]


def delta_last_adds(path):
    """The data files the table's last commit added, from its log (Delta's own record)."""
    last = sorted(glob.glob(os.path.join(path, "_delta_log", "*.json")))[-1]
    with open(last) as f:
        return sum(1 for line in f if "add" in json.loads(line))


def delta_read(path, **opts):
    return lambda: spark.read.format("delta").options(**opts).load(path)


def stream_input(d, batch, lo, hi):
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, f"batch-{batch}.json"), "w") as f:
        for i in range(lo, hi):
            f.write(json.dumps({"id": i, "part": f"p{i % 3}", "v": i * 0.5, "s": f"s{i}"}) + "\n")


def run_stream(src, fmt, dest, ckpt):
    q = (spark.readStream.schema(COLS).json(src).writeStream.format(fmt)
         .option("checkpointLocation", ckpt).trigger(availableNow=True).start(dest))
    q.awaitTermination(300)


def partitioned_and_overwrite(d):
    p = os.path.join(d, "partitioned")
    base(0, 60).write.format("delta").partitionBy("part").save(p)
    base(60, 90).write.format("delta").partitionBy("part").mode("append").save(p)
    record("delta_partitioned_append", p, delta_read(p))
    base(200, 230).write.format("delta").partitionBy("part").mode("overwrite").save(p)
    record("delta_partitioned_overwrite", p, delta_read(p))
    p = os.path.join(d, "overwrite")
    base(0, 40).write.format("delta").save(p)
    base(40, 70).write.format("delta").mode("overwrite").save(p)
    record("delta_overwrite", p, delta_read(p))



def merge(d):
    p = os.path.join(d, "merge")
    base(0, 100).write.format("delta").save(p)
    base(50, 150).selectExpr("id", "part", "CAST(id AS DOUBLE) * 10.0 AS v", "concat('m', id) AS s").createOrReplaceTempView("src")
    query_counts = counted(lambda: spark.sql(f"""MERGE INTO delta.`{p}` t USING src ON t.id = src.id
                  WHEN MATCHED THEN UPDATE SET t.v = src.v, t.s = src.s
                  WHEN NOT MATCHED THEN INSERT *"""))
    record("delta_merge", p, delta_read(p), {"query_counts": query_counts, "adds": delta_last_adds(p)})



def update_delete_restore_vacuum(d):
    p = os.path.join(d, "update")
    spark.sql(f"CREATE TABLE delta.`{p}` ({COLS}) USING delta TBLPROPERTIES (delta.enableDeletionVectors = false)")
    base(0, 100).write.format("delta").mode("append").save(p)
    spark.sql(f"UPDATE delta.`{p}` SET s = 'u' WHERE id % 3 = 0")
    record("delta_update", p, delta_read(p))
    spark.sql(f"DELETE FROM delta.`{p}` WHERE id % 4 = 0")
    record("delta_delete", p, delta_read(p))
    spark.sql(f"RESTORE TABLE delta.`{p}` TO VERSION AS OF 1")
    record("delta_restore", p, delta_read(p))
    spark.sql(f"VACUUM delta.`{p}` RETAIN 0 HOURS")
    record("delta_vacuum", p, delta_read(p))



def deletion_vectors(d):
    p = os.path.join(d, "dv")
    spark.sql(f"CREATE TABLE delta.`{p}` ({COLS}) USING delta TBLPROPERTIES (delta.enableDeletionVectors = true)")
    base(0, 100, 2).write.format("delta").mode("append").save(p)
    spark.sql(f"DELETE FROM delta.`{p}` WHERE id % 4 = 1")
    record("delta_delete_dv", p, delta_read(p), {"dv_files": sorted(glob.glob(os.path.join(p, "*.bin")))})
    spark.sql(f"UPDATE delta.`{p}` SET s = 'w' WHERE id % 5 = 0")
    record("delta_update_dv", p, delta_read(p))



def optimize(d):
    p = os.path.join(d, "optimize")
    for lo in range(0, 80, 20):
        base(lo, lo + 20, 2).write.format("delta").mode("append").save(p)
    query_counts = counted(lambda: spark.sql(f"OPTIMIZE delta.`{p}`"))
    record("delta_optimize", p, delta_read(p), {"query_counts": query_counts, "adds": delta_last_adds(p)})
    p = os.path.join(d, "zorder")
    for lo in range(0, 80, 20):
        base(lo, lo + 20, 2).write.format("delta").mode("append").save(p)
    spark.sql(f"OPTIMIZE delta.`{p}` ZORDER BY (v)")
    record("delta_zorder", p, delta_read(p))


def rtas_and_stream(d):
    p = os.path.join(d, "rtas")
    base(0, 30).createOrReplaceTempView("b1")
    spark.sql(f"CREATE OR REPLACE TABLE delta.`{p}` USING delta AS SELECT * FROM b1")
    base(30, 75).createOrReplaceTempView("b2")
    spark.sql(f"CREATE OR REPLACE TABLE delta.`{p}` USING delta AS SELECT * FROM b2")
    record("delta_rtas", p, delta_read(p))

    # Structured Streaming into a Delta table, restarted from its checkpoint
    p, src = os.path.join(d, "stream"), os.path.join(out, "stream-in-delta")
    stream_input(src, 0, 0, 40)
    first_batch = counted(lambda: run_stream(src, "delta", p, os.path.join(out, "ckpt-delta")))
    first_adds = delta_last_adds(p)
    stream_input(src, 1, 40, 70)
    run_stream(src, "delta", p, os.path.join(out, "ckpt-delta"))
    record("delta_stream", p, delta_read(p), {"query_counts": first_batch, "adds": first_adds})

t0 = time.monotonic()
pi.reset_every_writer_counts(spark)

if delta:
    d = os.path.join(out, "delta")
    # append, with a checkpoint every 2 commits (Delta's own Parquet in _delta_log, left alone)
    p = os.path.join(d, "append")
    spark.sql(f"CREATE TABLE delta.`{p}` ({COLS}) USING delta TBLPROPERTIES (delta.checkpointInterval = 2)")
    first_append = counted(lambda: base(0, 100).write.format("delta").mode("append").save(p))
    first_adds = delta_last_adds(p)
    base(100, 150, 2).write.format("delta").mode("append").save(p)
    base(150, 160, 1).write.format("delta").mode("append").save(p)
    jvm.org.apache.spark.sql.delta.DeltaLog.clearCache()  # the next read loads the checkpoint
    record("delta_append", p, delta_read(p), {"checkpoints": sorted(glob.glob(os.path.join(p, "_delta_log", "*.checkpoint*.parquet"))),
                                              "query_counts": first_append, "adds": first_adds})
    result["scenarios"]["delta_time_travel"] = {"rows": rows(spark.read.format("delta").option("versionAsOf", 1).load(p))}

    if want("delta_partitioned_append"):
        partitioned_and_overwrite(d)
    if want("delta_merge"):
        merge(d)
    if want("delta_update"):
        update_delete_restore_vacuum(d)
    if want("delta_delete_dv"):
        deletion_vectors(d)
    if want("delta_optimize"):
        optimize(d)
    if want("delta_rtas"):
        rtas_and_stream(d)


if iceberg:
    # Iceberg's manifests record each file's size as its writer counted it: its files are left alone
    spark.sql(f"CREATE TABLE ice.db.t ({COLS}) USING iceberg")
    base(0, 40).writeTo("ice.db.t").append()
    base(40, 64, 2).writeTo("ice.db.t").append()
    sizes = [[r.file_path, r.file_size_in_bytes] for r in spark.sql("SELECT file_path, file_size_in_bytes FROM ice.db.t.files").collect()]
    result["scenarios"]["iceberg"] = {"rows": rows(spark.table("ice.db.t")), "recorded_sizes": sizes,
                                      "iceberg_files": sorted(glob.glob(os.path.join(out, "iceberg", "db", "t", "data", "*.parquet")))}

# Structured Streaming's file sink into a plain Parquet folder, restarted from its checkpoint
p, src = os.path.join(out, "stream-pq"), os.path.join(out, "stream-in-pq")
stream_input(src, 0, 0, 40)
first_batch = counted(lambda: run_stream(src, "parquet", p, os.path.join(out, "ckpt-pq")))
first_files = len(data_files(p))
stream_input(src, 1, 40, 70)
run_stream(src, "parquet", p, os.path.join(out, "ckpt-pq"))
# the same input into a DSv2 sink (memory): the rows its batches report written
q = (spark.readStream.schema(COLS).json(src).writeStream.format("memory").queryName("mem")
     .trigger(availableNow=True).start())
q.awaitTermination(300)
record("stream_parquet", p, lambda: spark.read.parquet(p),
       {"query_counts": first_batch, "adds": first_files,
        "memory_sink_rows": [g["sink"]["numOutputRows"] for g in q.recentProgress if g["numInputRows"] > 0]})

# Hive-format Parquet tables in spark_catalog: INSERT INTO, and saveAsTable
def hive_tables():
    spark.sql(f"CREATE TABLE hive_insert ({COLS}) STORED AS PARQUET")
    base(0, 50).createOrReplaceTempView("h")
    query_counts = counted(lambda: spark.sql("INSERT INTO hive_insert SELECT * FROM h"))
    first_files = len(data_files(os.path.join(out, "warehouse", "hive_insert")))
    spark.sql("INSERT INTO hive_insert SELECT id + 50, part, v, s FROM h")
    record("hive_insert", os.path.join(out, "warehouse", "hive_insert"), lambda: spark.table("hive_insert"),
           {"query_counts": query_counts, "adds": first_files})
    base(0, 45).write.format("hive").option("fileFormat", "parquet").saveAsTable("hive_saved")
    record("hive_save_as_table", os.path.join(out, "warehouse", "hive_saved"), lambda: spark.table("hive_saved"))


if want("hive_insert"):
    hive_tables()

# parquet-java's own ParquetWriter, in the driver
p = os.path.join(out, "parquet-java")
os.makedirs(p, exist_ok=True)
schema = jvm.org.apache.parquet.schema.MessageTypeParser.parseMessageType(
    "message m { required int32 id; required binary part (STRING); required double v; required binary s (STRING); }")
hconf = spark.sparkContext._jsc.hadoopConfiguration()
jw = (jvm.org.apache.parquet.hadoop.example.ExampleParquetWriter
      .builder(jvm.org.apache.hadoop.fs.Path("file://" + os.path.join(p, "written-by-parquet-java.parquet")))
      .withType(schema).withConf(hconf).build())
groups = jvm.org.apache.parquet.example.data.simple.SimpleGroupFactory(schema)
for i in range(0, 33):
    g = groups.newGroup()
    g.add("id", i)
    g.add("part", f"p{i % 3}")
    g.add("v", i * 0.5)
    g.add("s", f"s{i}")
    jw.write(g)
jw.close()
record("parquet_java", p, lambda: spark.read.parquet(p))

# Spark's Parquet writer: plain (the file system adds the footer), and with superspark's own
# footer write (the file carries it already: never extended twice)
# (and each write's stages in the write metrics, summed per stage)
p = os.path.join(out, "spark-plain")
stages = len(pi.every_writer_stage_counts(spark))
plain_queries = counted(lambda: base(0, 25).write.parquet(p))
plain_stages = pi.every_writer_stage_counts(spark)[stages:]
record("spark_plain", p, lambda: spark.read.parquet(p), {"stage_counts": [s["counts"] for s in plain_stages], "query_counts": plain_queries})
before, stages = pi.every_writer_counts(spark), len(pi.every_writer_stage_counts(spark))
spark.conf.set("spark.superspark.parquet.footer.write", "true")
p = os.path.join(out, "spark-footer-write")
own_queries = counted(lambda: base(0, 25).write.parquet(p))
spark.conf.unset("spark.superspark.parquet.footer.write")
after, write_stages = pi.every_writer_counts(spark), pi.every_writer_stage_counts(spark)[stages:]
record("spark_footer_write", p, lambda: spark.read.parquet(p),
       {"already_extended": after["alreadyExtended"] - before["alreadyExtended"],
        "stage_counts": [s["counts"] for s in write_stages], "query_counts": own_queries})

result["counts"] = pi.every_writer_counts(spark)
result["seconds"] = round(time.monotonic() - t0, 1)
with open(os.path.join(out, "result.json"), "w") as f:
    json.dump(result, f)
spark.stop()
