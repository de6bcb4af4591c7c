"""The superspark demo: run with `make demo`.

Builds a local SparkSession with superspark.session() and shows each feature briefly.
"""

import os
import tempfile

import superspark


def main() -> None:
    spark = superspark.session("superspark-demo", **{"spark.ui.enabled": "false",
                                                     "spark.ui.showConsoleProgress": "false"})
    spark.sparkContext.setLogLevel("ERROR")
    print(f"jar: {superspark.jar_path()}")
    print("SELECT superspark_version():")
    spark.sql("SELECT superspark_version() AS superspark_version").show()

    work = tempfile.mkdtemp(prefix="superspark-demo-")

    # Super Binary: the bsup data source.
    path = os.path.join(work, "events_bsup")
    df = spark.createDataFrame(
        [(1, "login", [1.5, 2.0]), (2, "logout", [])], "id long, kind string, xs array<double>")
    df.write.format("bsup").save(path)
    print("bsup round trip (spark.read.format('bsup')):")
    spark.read.format("bsup").load(path).orderBy("id").show()

    # Parquet footer extension: give Spark-written files a FlatBuffers footer, then check it.
    from superspark import footer

    pq_path = os.path.join(work, "wide_parquet")
    spark.range(1000).selectExpr(*[f"id * {i} AS c{i}" for i in range(50)]).write.parquet(pq_path)
    footer.add(pq_path)
    for r in footer.verify(pq_path):
        print(f"footer verify {os.path.basename(r['path'])}: {r['status']}")
    print("Spark reads the files unchanged:", spark.read.parquet(pq_path).count(), "rows")

    # Arrow canonical extension types.
    import pyarrow as pa
    import superspark.arrow as sa

    tagged = sa.with_arrow_types(
        spark.sql("SELECT uuid() AS id, '{\"a\":1}' AS doc, parse_json('[1,2]') AS v"),
        {"id": pa.uuid(), "doc": pa.json_()})
    print("superspark.arrow.to_arrow schema:")
    print(sa.to_arrow(tagged).schema)
    spark.stop()


if __name__ == "__main__":
    main()
