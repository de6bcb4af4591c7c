#!/usr/bin/env bash
# Sets up everything from a fresh clone for one Spark line (SPARK_LINE, default 4.3): the venv
# with that line's pinned pyspark and test deps (`.venv` for 4.3, `.venv-spark4.x` for the
# others), the sbt launcher (through dev/sbt), the line's jar, and the superspark package
# installed editable. Lines other than 4.3 also get Delta Lake's jars (jvm/target/spark-4.x/delta-jars),
# 4.0 and 4.1 Iceberg's Spark runtime (jvm/target/spark-4.x/iceberg-jars).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
PY="${PYTHON:-python3}"
# Tools some tests use from the system (Debian's packages): flatc (the FlatBuffers schema
# check, tests/test_footer.py) and strace (the crash tests' fault injection). Installed where
# this user can install packages; a test that needs one skips with the reason otherwise.
missing=()
command -v flatc >/dev/null || missing+=(flatbuffers-compiler)
command -v strace >/dev/null || missing+=(strace)
if [ "${SUPERSPARK_SETUP:-}" != deps ] && [ ${#missing[@]} -gt 0 ] && command -v apt-get >/dev/null && [ "$(id -u)" = 0 ]; then
  echo "[superspark] installing ${missing[*]} (Debian packages)" >&2
  { apt-get install -y -q "${missing[@]}" >/dev/null 2>&1 ||
    { apt-get update -q >/dev/null 2>&1 && apt-get install -y -q "${missing[@]}" >/dev/null 2>&1; }; } ||
    echo "[superspark] could not install ${missing[*]}: the tests that need them will skip" >&2
fi
line="${SPARK_LINE:-4.3}"
if [ "$line" = "4.3" ]; then venv=.venv; reqs=dev/requirements.txt
else venv=".venv-spark$line"; reqs="dev/requirements-spark$line.txt"; fi
if [ ! -f "$reqs" ]; then
  echo "[superspark] SPARK_LINE=$line is not a supported line (no $reqs); supported: 4.0 4.1 4.2 4.3" >&2
  exit 2
fi
# One pip at a time per venv: dev/prefetch.sh may be filling it in the background (SUPERSPARK_SETUP=deps:
# the venv and its pinned requirements only, not the editable package, not the stamp).
mkdir -p .tools/locks
exec 9>".tools/locks/$venv.lock"
flock 9
if [ ! -x "$venv/bin/python" ]; then
  echo "[superspark] creating $venv" >&2
  "$PY" -m venv "$venv"
fi
stamp="$venv/.superspark-reqs"
if [ ! -f "$stamp" ] || ! cmp -s "$reqs" "$stamp"; then
  "$venv/bin/python" -m pip install -q --upgrade pip
  "$venv/bin/python" -m pip install -q -r "$reqs"
  if [ "${SUPERSPARK_SETUP:-}" != deps ]; then
    "$venv/bin/python" -m pip install -q --no-deps -e python
    cp "$reqs" "$stamp"
  fi
fi
flock -u 9
if [ "${SUPERSPARK_SETUP:-}" = deps ]; then exit 0; fi
export SPARK_LINE="$line"
case "$line" in
  4.3) ./dev/sbt package >&2 ;;
  4.2) ./dev/sbt package deltaJars >&2 ;;
  *) ./dev/sbt package deltaJars icebergJars >&2 ;;  # Iceberg's runtime: 4.0 and 4.1 (build.sbt)
esac
ls "jvm/target/spark-$line/scala-2.13/superspark-spark${line}_2.13-"*.jar >/dev/null
