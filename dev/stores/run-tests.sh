#!/usr/bin/env bash
# Runs the store suites (tests_stores/) with a line's venv against servers started by
# dev/stores/start.sh, and stops them on exit whatever happens (dev/stores/run.sh).
# Usage: dev/stores/run-tests.sh VENV [pytest args...]   e.g. .venv-spark4.2 -k smoke
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
venv="$1"; shift
cd "$root"
exec dev/stores/run.sh "$venv/bin/python" -m pytest -ra -p no:cacheprovider tests_stores "$@"
