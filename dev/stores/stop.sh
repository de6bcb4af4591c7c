#!/usr/bin/env bash
# Stops the servers dev/stores/start.sh started (by the pids it recorded) and removes their data.
# Idempotent: nothing running is not an error.
set -uo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
run="$root/.tools/stores/run"
for name in s3 s3proxy hdfs gcs; do
  pidfile="$run/$name.pid"
  [ -f "$pidfile" ] || continue
  pid="$(cat "$pidfile")"
  if kill -0 "$pid" 2>/dev/null; then
    kill "$pid"
    for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -0 "$pid" 2>/dev/null && kill -9 "$pid"
  fi
  rm -f "$pidfile"
done
rm -rf "$run/s3" "$run/meta-s3" "$run/hdfs" "$run/gcs" "$run/env"
echo "[superspark] stores stopped" >&2
