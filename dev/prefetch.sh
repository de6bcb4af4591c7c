#!/usr/bin/env bash
# Started in the background by `make test` (niced, idle I/O class): builds and fetches what later
# steps need, in the order they need it, while the foreground runs the 4.3 line's setup and suites,
# which leave one core in five idle on a 2-core machine (docs/ci.md, "What keeps the run short"):
#   1. the arrow-rs checker (cargo; needed by the 4.3 pytest),
#   2. the store servers' Go binaries and the HDFS mini-cluster's jars (dev/stores/start.sh --build;
#      needed by the store suites),
#   3. the other lines' venvs with their pinned requirements (SPARK_LINE=4.x SUPERSPARK_SETUP=deps
#      dev/setup.sh; needed by `make test-lines`),
#   4. once the 4.3 line's sbt is done (MARK exists), the other lines' setup (jar, Delta's and
#      Iceberg's jars) and, on the lines that run scalatest (SCALATEST_LINES), their test classes.
#      dev/sbt lets one sbt run at a time in a clone, so these never overlap the foreground's.
# Each step takes the same lock as its foreground twin (cargo's own lock on its target folder, a
# flock per Go binary, per venv, and on the mini-cluster's jars), so the foreground waits for a
# step under way and finds it done. Nothing here is required: a step that fails is logged and
# done again by its foreground twin, which fails the run if it fails there too.
# Usage: dev/prefetch.sh LOG MARK PID (PID: the foreground's make; step 4 is dropped if it ends first)
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
log="$1" mark="$2" fg="$3"
mkdir -p "$(dirname "$log")"
low() { if command -v ionice >/dev/null; then nice -n 19 ionice -c 3 "$@"; else nice -n 19 "$@"; fi; }
step() { # name command...
  local t0=$(date +%s)
  if low "${@:2}" >>"$log" 2>&1; then
    echo "[prefetch] $(date +%T) $1 done in $(( $(date +%s) - t0 )) s" >>"$log"
  else
    echo "[prefetch] $(date +%T) $1 FAILED after $(( $(date +%s) - t0 )) s (its foreground step does it again)" >>"$log"
  fi
}
echo "[prefetch] $(date +%T) started" >"$log"
step "arrow-rs checker" make -s parquet-rs-check
step "store servers' binaries and jars" dev/stores/start.sh --build
for l in ${OTHER_LINES-4.0 4.1 4.2}; do
  step "Spark $l venv" env SPARK_LINE="$l" SUPERSPARK_SETUP=deps dev/setup.sh
done
while [ ! -e "$mark" ]; do
  if ! kill -0 "$fg" 2>/dev/null; then echo "[prefetch] $(date +%T) the foreground ended first" >>"$log"; exit 0; fi
  sleep 2
done
for l in ${OTHER_LINES-4.0 4.1 4.2}; do
  step "Spark $l setup" env SPARK_LINE="$l" dev/setup.sh
  case " ${SCALATEST_LINES-} " in
    *" $l "*) step "Spark $l test classes" env SPARK_LINE="$l" ./dev/sbt Test/compile ;;
  esac
done
echo "[prefetch] $(date +%T) finished" >>"$log"
