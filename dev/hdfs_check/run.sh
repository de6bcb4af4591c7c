#!/usr/bin/env bash
# `make check-hdfs`: the footer tools against an HDFS mini-cluster (see HdfsFooterCheck.java).
# Fetches hadoop-minicluster 3.5.0 and its dependencies with Maven into bench/out/hdfs/lib (once).
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"
OUT="$REPO/bench/out/hdfs"
JARS="$(ls -d "$REPO"/.venv/lib/python3*/site-packages/pyspark/jars | head -1)"
mkdir -p "$OUT"
if [ ! -d "$OUT/lib" ]; then
  mvn -q -B -f "$HERE/pom.xml" dependency:copy-dependencies -DoutputDirectory="$OUT/lib" -DincludeScope=runtime
fi
# superspark's classes and the non-Hadoop jars they use, from pyspark (not its shaded Hadoop client).
CP="$OUT/lib/*:$REPO/jvm/target/scala-2.13/classes"
for j in "$JARS"/scala-library-*.jar "$JARS"/flatbuffers-java-*.jar "$JARS"/parquet-*.jar "$JARS"/jts-core-*.jar; do CP="$CP:$j"; done
javac -d "$OUT/classes" -cp "$CP" "$HERE/HdfsFooterCheck.java"
"$REPO/.venv/bin/python" -c "import pyarrow as pa, pyarrow.parquet as pq; pq.write_table(pa.table({'a': list(range(1000)), 's': [str(i) for i in range(1000)]}), '$OUT/plain.parquet')"
java -cp "$OUT/classes:$CP" HdfsFooterCheck "$OUT/plain.parquet"
