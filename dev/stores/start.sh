#!/usr/bin/env bash
# Starts the store suites' servers and prints their endpoints as NAME=value lines (also kept in
# .tools/stores/run/env): an S3 server (versitygw on its posix backend, a Go binary in its own
# process; docs/storage.md says why this one), an HDFS mini-cluster (MiniHdfs.java, Hadoop's
# shaded mini-cluster in a JVM of its own) and a GCS server (fake-gcs-server, the JSON API over
# HTTP, filesystem backend, a Go binary in its own process). Fetches the mini-cluster with Maven
# into .tools/stores/ once, and builds the two Go servers with `go install` from the Go module
# proxy once per machine (a cold build: minutes).
# Idempotent: a server already running (its pid alive and its port answering) is reused. Ports:
# SUPERSPARK_S3_PORT (18333), SUPERSPARK_HDFS_PORT (18020), SUPERSPARK_GCS_PORT (18443).
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
tools="$root/.tools/stores"
run="$tools/run"
mkdir -p "$run"
VERSITYGW_VERSION=1.8.0
HADOOP_VERSION=3.5.0
FAKE_GCS_VERSION=1.56.1
s3port="${SUPERSPARK_S3_PORT:-18333}"
hdfsport="${SUPERSPARK_HDFS_PORT:-18020}"
gcsport="${SUPERSPARK_GCS_PORT:-18443}"
bucket=superspark
key=superspark
secret=superspark-secret

alive() { [ -f "$run/$1.pid" ] && kill -0 "$(cat "$run/$1.pid")" 2>/dev/null; }
answers() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
wait_for() { # name port seconds
  for _ in $(seq 1 $(( $3 * 5 ))); do
    if answers "$2"; then return 0; fi
    if ! alive "$1"; then echo "[superspark] $1 exited; its log: $run/$1.log" >&2; tail -20 "$run/$1.log" >&2; exit 1; fi
    sleep 0.2
  done
  echo "[superspark] $1 did not answer on port $2 within $3 s; its log: $run/$1.log" >&2; exit 1
}

# go_binary NAME MODULE_PATH VERSION: the path of a Go server's binary, built with `go install` from
# the Go module proxy once per machine and kept beside the other package caches (outside the clone,
# like pip's and coursier's), so a fresh clone on the same machine starts it at once; Go's own
# module and build caches stay where Go keeps them. A cold build takes minutes on 2 cores.
go_binary() {
  local cache="${SUPERSPARK_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/superspark}"
  local bin="$cache/$1-$3"
  mkdir -p "$cache"
  # one build at a time per binary (dev/prefetch.sh may be building it in the background)
  exec 8>"$cache/$1-$3.lock"
  flock 8
  if [ ! -x "$bin" ]; then
    command -v go >/dev/null || { echo "[superspark] no 'go' on PATH: $1 (a store server) is built with it" >&2; exit 1; }
    local gobin t0
    gobin="$(mktemp -d "$cache/go-bin.XXXXXX")"
    echo "[superspark] building $1 $3 (go install, once per machine)" >&2
    t0=$(date +%s)
    GOBIN="$gobin" GOFLAGS="-mod=mod" go install "$2@v$3" >&2
    mv "$gobin/$(basename "$2")" "$bin"
    rm -rf "$gobin"
    echo "[superspark] $1 built in $(( $(date +%s) - t0 )) s" >&2
  fi
  exec 8>&-
  echo "$bin"
}

# `start.sh --build`: only what the servers need (the two Go binaries, the mini-cluster's jars and
# class), nothing started; dev/prefetch.sh runs it in the background of `make test`.
build_only=false
if [ "${1:-}" = --build ]; then
  build_only=true
  go_binary versitygw github.com/versity/versitygw/cmd/versitygw "$VERSITYGW_VERSION" >/dev/null
  go_binary fake-gcs-server github.com/fsouza/fake-gcs-server "$FAKE_GCS_VERSION" >/dev/null
fi

# --- S3: versitygw (Go module proxy), built once per machine ---
if ! $build_only && { ! alive s3 || ! answers "$s3port"; }; then
  vgw="$(go_binary versitygw github.com/versity/versitygw/cmd/versitygw "$VERSITYGW_VERSION")"
  rm -rf "$run/s3" "$run/meta-s3"
  mkdir -p "$run/s3/$bucket" "$run/meta-s3"
  # posix backend: a bucket is a folder of $run/s3, an object a file; ETags and other metadata in a
  # sidecar folder (no need for extended attributes on the file system)
  ROOT_ACCESS_KEY="$key" ROOT_SECRET_KEY="$secret" nohup "$vgw" --port "127.0.0.1:$s3port" \
    posix --sidecar "$run/meta-s3" "$run/s3" > "$run/s3.log" 2>&1 &
  echo $! > "$run/s3.pid"
  wait_for s3 "$s3port" 60
fi

# --- HDFS: a mini-cluster (hadoop-client-minicluster) ---
exec 8>"$run/hdfs-lib.lock"
flock 8
if [ ! -f "$tools/hdfs-lib/.done" ]; then
  mvn -q -B -f "$root/dev/stores/hdfs-pom.xml" dependency:copy-dependencies -Dhadoop.version="$HADOOP_VERSION" \
    -DincludeScope=runtime -DoutputDirectory="$tools/hdfs-lib" >&2
  touch "$tools/hdfs-lib/.done"
fi
if [ ! -f "$tools/hdfs-classes/MiniHdfs.class" ] || [ "$root/dev/stores/MiniHdfs.java" -nt "$tools/hdfs-classes/MiniHdfs.class" ]; then
  javac -d "$tools/hdfs-classes" -cp "$tools/hdfs-lib/*" "$root/dev/stores/MiniHdfs.java"
fi
exec 8>&-
if $build_only; then exit 0; fi
if ! alive hdfs || ! answers "$hdfsport"; then
  rm -rf "$run/hdfs"
  nohup java -Xmx1g -cp "$tools/hdfs-classes:$tools/hdfs-lib/*" MiniHdfs "$run/hdfs" "$hdfsport" > "$run/hdfs.log" 2>&1 &
  echo $! > "$run/hdfs.pid"
  wait_for hdfs "$hdfsport" 120
  # the name node answers before the data node has registered: wait for the line MiniHdfs prints
  for _ in $(seq 1 600); do grep -q '^SUPERSPARK_HDFS_URI=' "$run/hdfs.log" && break; alive hdfs || break; sleep 0.2; done
  grep -q '^SUPERSPARK_HDFS_URI=' "$run/hdfs.log" || { echo "[superspark] HDFS did not come up; its log: $run/hdfs.log" >&2; exit 1; }
fi

# --- GCS: fake-gcs-server (Go module proxy), built once per machine ---
if ! alive gcs || ! answers "$gcsport"; then
  rm -rf "$run/gcs"
  mkdir -p "$run/gcs/data/$bucket" "$run/gcs/root"
  gcsbin="$(go_binary fake-gcs-server github.com/fsouza/fake-gcs-server "$FAKE_GCS_VERSION")"
  nohup "$gcsbin" -backend filesystem -filesystem-root "$run/gcs/root" -data "$run/gcs/data" -scheme http \
    -host 127.0.0.1 -port "$gcsport" -public-host "127.0.0.1:$gcsport" -external-url "http://127.0.0.1:$gcsport" \
    -log-level warn > "$run/gcs.log" 2>&1 &
  echo $! > "$run/gcs.pid"
  wait_for gcs "$gcsport" 60
fi

cat > "$run/env" <<ENV
SUPERSPARK_S3_ENDPOINT=http://127.0.0.1:$s3port
SUPERSPARK_S3_BUCKET=$bucket
SUPERSPARK_S3_ACCESS_KEY=$key
SUPERSPARK_S3_SECRET_KEY=$secret
SUPERSPARK_HDFS_URI=hdfs://127.0.0.1:$hdfsport
SUPERSPARK_GCS_ENDPOINT=http://127.0.0.1:$gcsport
SUPERSPARK_GCS_BUCKET=$bucket
ENV
cat "$run/env"
