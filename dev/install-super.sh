#!/usr/bin/env bash
# Installs SuperDB's `super` CLI at v0.1.0 (the reference implementation of Super Binary
# version 0) from the Go module proxy into .tools/go/bin (ignored). Prints its path.
# Exits 3 with a reason when Go is not installed.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
bin="$root/.tools/go/bin"
if [ -x "$bin/super" ]; then echo "$bin/super"; exit 0; fi
GO="$(command -v go || true)"
if [ -z "$GO" ] && [ -x /usr/local/go/bin/go ]; then GO=/usr/local/go/bin/go; fi
if [ -z "$GO" ]; then echo "go is not installed: cannot install the super CLI" >&2; exit 3; fi
mkdir -p "$bin" "$root/.tools/go/cache" "$root/.tools/go/mod"
GOBIN="$bin" GOCACHE="${GOCACHE:-$root/.tools/go/cache}" GOMODCACHE="${GOMODCACHE:-$root/.tools/go/mod}" \
  "$GO" install github.com/brimdata/super/cmd/super@v0.1.0 >&2
echo "$bin/super"
