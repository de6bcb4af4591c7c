#!/usr/bin/env bash
# Prints the GCS connector jar (for spark.jars / HADOOP_CLASSPATH) of a Spark line's venv: Google's
# Hadoop connector `com.google.cloud.bigdataoss:gcs-connector` in its `shaded` form (one jar with its
# dependencies relocated), at the connector release for that venv's Hadoop (its hadoop-client-api jar),
# fetched with Maven into .tools/stores/gcs-<connector version>/ once. Usage: gcs-jars.sh [VENV]
#
# Connector 4.0.x is built against Hadoop 3.4.2 (3.x against 3.3.x); 4.0.4 is the newest release
# whose `shaded` jar is on Maven Central (4.0.5-4.0.9 publish none; 2026-11-27).
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
venv="${1:-$root/.venv}"
. "$root/dev/stores/venv-hadoop.sh" "$venv"  # jars, hv
case "$hv" in
  3.4.*|3.5.*) cv=4.0.4 ;;
  *) echo "[superspark] no GCS connector chosen for Hadoop $hv" >&2; exit 1 ;;
esac
out="$root/.tools/stores/gcs-$cv"
jar="$out/gcs-connector-$cv-shaded.jar"
if [ ! -f "$jar" ]; then
  mkdir -p "$out"
  mvn -q -B dependency:copy -Dartifact="com.google.cloud.bigdataoss:gcs-connector:$cv:jar:shaded" \
    -DoutputDirectory="$out" >&2
fi
echo "$jar"
