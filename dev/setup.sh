#!/usr/bin/env bash
# Sets up everything from a fresh clone: the venv (pinned pyspark/pyarrow/test deps), the
# sbt launcher (through dev/sbt), the jar, and the superspark package installed editable.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
PY="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
  echo "[superspark] creating .venv" >&2
  "$PY" -m venv .venv
fi
stamp=.venv/.superspark-reqs
if [ ! -f "$stamp" ] || ! cmp -s dev/requirements.txt "$stamp"; then
  .venv/bin/python -m pip install -q --upgrade pip
  .venv/bin/python -m pip install -q -r dev/requirements.txt
  .venv/bin/python -m pip install -q --no-deps -e python
  cp dev/requirements.txt "$stamp"
fi
./dev/sbt package >&2
ls jvm/target/scala-2.13/superspark_2.13-*.jar >/dev/null
