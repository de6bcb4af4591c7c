#!/usr/bin/env bash
# One command: sets up (venv, jar) if needed, then runs the Arrow extension-type benchmark.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
[ -x .venv/bin/python ] && ls jvm/target/scala-2.13/superspark_2.13-*.jar >/dev/null 2>&1 \
  || ./dev/setup.sh
exec .venv/bin/python bench/arrow/bench.py "$@"
