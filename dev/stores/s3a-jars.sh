#!/usr/bin/env bash
# Prints the comma-separated S3A jars (for spark.jars) of a Spark line's venv: hadoop-aws at the
# Hadoop version of that venv's pyspark (its hadoop-client-api jar), and the AWS SDK v2 modules
# S3A needs at the SDK version that Hadoop release names (hadoop-project's aws-java-sdk-v2.version),
# fetched with Maven into .tools/stores/s3a-<hadoop version>/ once. Usage: s3a-jars.sh [VENV]
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
venv="${1:-$root/.venv}"
. "$root/dev/stores/venv-hadoop.sh" "$venv"  # jars, hv
out="$root/.tools/stores/s3a-$hv"
if [ ! -f "$out/.done" ]; then
  rm -rf "$out"; mkdir -p "$out"
  mvn -q -B dependency:copy -Dartifact="org.apache.hadoop:hadoop-project:$hv:pom" -DoutputDirectory="$out/pom" >&2
  pom="$out/pom/hadoop-project-$hv.pom"
  sdk="$(sed -n 's:.*<aws-java-sdk-v2.version>\(.*\)</aws-java-sdk-v2.version>.*:\1:p' "$pom" | head -1)"
  [ -n "$sdk" ] || { echo "[superspark] no AWS SDK version in $pom" >&2; exit 1; }
  fetch() {
    mvn -q -B -f "$root/dev/stores/s3a-pom.xml" dependency:copy-dependencies -Dhadoop.version="$hv" -Dawssdk.version="$1" \
      -DincludeScope=runtime -DexcludeGroupIds=io.netty,org.slf4j -DoutputDirectory="$out" >&2
  }
  # Some SDK releases lack a module in the registry (2.24.6, Hadoop 3.4.1's, has no s3-transfer-manager):
  # then the SDK of Hadoop 3.5.0 (2.35.4), with which S3A was tested here.
  if ! fetch "$sdk"; then
    echo "[superspark] AWS SDK $sdk incomplete; using 2.35.4" >&2
    find "$out" -maxdepth 1 -name '*.jar' -delete
    sdk=2.35.4; fetch "$sdk"
  fi
  echo "hadoop $hv, AWS SDK $sdk" > "$out/.done"
fi
ls "$out"/*.jar | paste -sd, -
