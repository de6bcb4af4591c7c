#!/usr/bin/env bash
# Runs the store suites (tests_stores/) with a line's venv against servers started by
# dev/stores/start.sh, and stops them on exit whatever happens (a trap).
# Usage: dev/stores/run-tests.sh VENV [pytest args...]   e.g. .venv-spark4.2 -k smoke
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
venv="$1"; shift
cd "$root"
trap 'dev/stores/stop.sh' EXIT
t0=$(date +%s)
set -a
# shellcheck disable=SC1090
. <(dev/stores/start.sh)
set +a
echo "[superspark] stores up in $(( $(date +%s) - t0 )) s" >&2
"$venv/bin/python" -m pytest -ra -p no:cacheprovider tests_stores "$@"
