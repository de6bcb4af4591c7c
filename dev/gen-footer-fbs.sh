#!/usr/bin/env bash
# Regenerates the Java classes of the Parquet footer FlatBuffers schema
# (jvm/src/main/fbs/parquet3.fbs -> jvm/src/main/java/io/superspark/parquet/footer/fbs/).
# The generated classes are committed: the build never needs flatc.
#
# Generator: flatc 2.0.8 (Debian bookworm `flatbuffers-compiler`, `apt-get install
# flatbuffers-compiler`). Runtime: flatbuffers-java 25.2.10 (what Spark ships).
# flatc emits, in every class, `ValidateVersion() { Constants.FLATBUFFERS_2_0_8(); }`: a
# compile-time check that the runtime matches the generator. 25.2.10 has no such method (it
# has FLATBUFFERS_25_2_10), so this script rewrites exactly that one call to the runtime we
# build against. Nothing else is touched: the wire format and the accessors flatc 2.0.8
# generates only use runtime methods 25.2.10 still has (the build compiles them).
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
  sed -e 's/Constants\.FLATBUFFERS_2_0_8()/Constants.FLATBUFFERS_25_2_10()/' "$f" > "$pkg_dir/$(basename "$f")"
done
if grep -rq 'FLATBUFFERS_2_0_8' "$pkg_dir"; then
  echo "dev/gen-footer-fbs.sh: version call left unrewritten" >&2
  exit 1
fi
echo "generated $(ls "$pkg_dir" | wc -l) classes in $pkg_dir (flatc 2.0.8, runtime 25.2.10)"
