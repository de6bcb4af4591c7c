#!/usr/bin/env bash
# Azure against Azurite, honestly (issue 40): installs Azurite (npm `azurite`, 3.37.0) into
# .tools/stores/ once, fetches hadoop-azure at the Hadoop version of a line's pyspark (Maven, into
# .tools/stores/azure-<hadoop version>/ once), starts Azurite's Blob service in its own process, and
# runs AzureProbe (a round trip through Hadoop's FileSystem API: open, mkdirs, write, status, read,
# list, delete) on wasb://, on abfs:// as a Data Lake Gen2 (HNS) account, and on abfs:// with ABFS's
# defaults, each step printed `ok` or `FAILED: <exception>`; exits 1 when any step failed (the first
# two do: docs/storage.md, "Azure"). Stops
# Azurite on exit. Not part of `make test`: `make check-azure`. Usage: azure-check.sh [VENV]
#
# abfs:// needs the account in the host name (`<account>.dfs.<suffix>`; ABFS has no path-style URLs),
# so the probe's JVM resolves devstoreaccount1.{dfs,blob}.localhost to 127.0.0.1 through a hosts file
# of its own (-Djdk.net.hosts.file): Azurite answers production-style URLs on such hosts.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
venv="${1:-$root/.venv}"
tools="$root/.tools/stores"
AZURITE_VERSION=3.37.0
port="${SUPERSPARK_AZURE_PORT:-18100}"
. "$root/dev/stores/venv-hadoop.sh" "$venv"  # jars, hv

azurite="$tools/azurite-$AZURITE_VERSION"
if [ ! -x "$azurite/node_modules/.bin/azurite-blob" ]; then
  command -v npm >/dev/null || { echo "[superspark] no 'npm' on PATH: Azurite is installed with it" >&2; exit 1; }
  mkdir -p "$azurite"
  npm install --prefix "$azurite" --no-audit --no-fund "azurite@$AZURITE_VERSION" >&2
fi
lib="$tools/azure-$hv"
if [ ! -f "$lib/.done" ]; then
  rm -rf "$lib"; mkdir -p "$lib"
  mvn -q -B -f "$root/dev/stores/azure-pom.xml" dependency:copy-dependencies -Dhadoop.version="$hv" \
    -DincludeScope=runtime -DexcludeGroupIds=io.netty,org.slf4j -DoutputDirectory="$lib" >&2
  touch "$lib/.done"
fi
work="$(mktemp -d)"
javac -d "$work/classes" -cp "$jars/*" "$root/dev/stores/AzureProbe.java"
"$azurite/node_modules/.bin/azurite-blob" --blobHost 127.0.0.1 --blobPort "$port" --location "$work/data" \
  --silent --skipApiVersionCheck --loose > "$work/azurite.log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$work"' EXIT
for _ in $(seq 1 100); do (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break; sleep 0.2; done
printf '127.0.0.1 localhost devstoreaccount1.blob.localhost devstoreaccount1.dfs.localhost\n' > "$work/hosts"
# Azurite's account and key: the emulator's published, fixed development account (not a secret)
key='Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=='
probe() { java -Djdk.net.hosts.file="$work/hosts" -cp "$work/classes:$jars/*:$lib/*" AzureProbe "$@" 2>/dev/null; }
echo "[superspark] Azurite $AZURITE_VERSION (Blob service, 127.0.0.1:$port), hadoop-azure $hv"
rc=0
echo "--- wasb://superspark@devstoreaccount1.blob.localhost:$port"
probe "wasb://superspark@devstoreaccount1.blob.localhost:$port" \
  "fs.azure.account.key.devstoreaccount1.blob.localhost:$port=$key" || rc=1
common=("fs.azure.account.key.devstoreaccount1.dfs.localhost:$port=$key" fs.azure.always.use.https=false
  fs.azure.createRemoteFileSystemDuringInitialization=true fs.azure.networking.library=JDK_HTTP_URL_CONNECTION)
echo "--- abfs://superspark@devstoreaccount1.dfs.localhost:$port as a Data Lake Gen2 (HNS) account: the DFS endpoint"
probe "abfs://superspark@devstoreaccount1.dfs.localhost:$port" "${common[@]}" fs.azure.account.hns.enabled=true || rc=1
echo "--- abfs://superspark@devstoreaccount1.dfs.localhost:$port, ABFS's defaults (its HNS probe fails: an FNS account, the Blob endpoint)"
probe "abfs://superspark@devstoreaccount1.dfs.localhost:$port" "${common[@]}" || rc=1
exit $rc
