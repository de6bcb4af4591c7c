#!/usr/bin/env bash
# Regenerates the Java classes of the Parquet footer FlatBuffers schema
# (jvm/src/main/fbs/parquet3.fbs -> jvm/src/main/java/io/superspark/parquet/footer/fbs/).
# The generated classes are committed: the build never needs flatc.
#
# Generator: flatc 2.0.8 (Debian bookworm `flatbuffers-compiler`, `apt-get install
# flatbuffers-compiler`). Runtime: the flatbuffers-java each Spark line ships (25.2.10 on 4.1-4.3,
# 24.3.25 on 4.0). flatc emits, in every class, `ValidateVersion() { Constants.FLATBUFFERS_2_0_8(); }`:
# a compile-time check that the runtime matches the generator. Neither runtime has that method
# (each has its own FLATBUFFERS_<version>), so this script rewrites exactly that one call to
# `io.superspark.parquet.footer.codec.FlatBuffersRuntime.validateVersion()`, which each line's folder
# defines against its runtime (jvm/src/main/spark-4.0/, spark-4.1-4.3/). Nothing else is touched:
# the wire format and the accessors flatc 2.0.8 generates only use runtime methods both runtimes
# have (every line's build compiles them).
#
# Usage: dev/gen-footer-fbs.sh [OUT_DIR]   (default: jvm/src/main/java; the tests pass a
# temporary folder to check that the committed classes match the schema).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
schema="$root/jvm/src/main/fbs/parquet3.fbs"
out="${1:-$root/jvm/src/main/java}"
pkg_dir="$out/io/superspark/parquet/footer/fbs"
expected="flatc version 2.0.8"
version="$(flatc --version 2>/dev/null || true)"
if [ "$version" != "$expected" ]; then
  echo "dev/gen-footer-fbs.sh: needs $expected (found: ${version:-no flatc});" \
       "on Debian: apt-get install flatbuffers-compiler" >&2
  exit 1
fi
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
flatc --java -o "$tmp" "$schema"
rm -rf "$pkg_dir"
mkdir -p "$pkg_dir"
for f in "$tmp"/io/superspark/parquet/footer/fbs/*.java; do
  sed -e 's/Constants\.FLATBUFFERS_2_0_8()/io.superspark.parquet.footer.codec.FlatBuffersRuntime.validateVersion()/' "$f" > "$pkg_dir/$(basename "$f")"
done
if grep -rq 'FLATBUFFERS_2_0_8' "$pkg_dir"; then
  echo "dev/gen-footer-fbs.sh: version call left unrewritten" >&2
  exit 1
fi
echo "generated $(ls "$pkg_dir" | wc -l) classes in $pkg_dir (flatc 2.0.8; ValidateVersion calls FlatBuffersRuntime)"
