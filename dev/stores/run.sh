#!/usr/bin/env bash
# Runs a command with the store servers up: starts them (dev/stores/start.sh), exports their
# endpoints (SUPERSPARK_S3_ENDPOINT, ...) to the command, and stops them on exit whatever
# happens (a trap). Usage: dev/stores/run.sh CMD [ARGS...]
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
trap 'dev/stores/stop.sh' EXIT
t0=$(date +%s)
set -a
# shellcheck disable=SC1090
. <(dev/stores/start.sh)
set +a
echo "[superspark] stores up in $(( $(date +%s) - t0 )) s" >&2
"$@"
