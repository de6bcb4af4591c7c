#!/usr/bin/env bash
# Says, first thing in `make test`, whether the read-only test material beside the clone
# (../shared: the parquet-testing corpus and SuperDB's files) is there, which tests need it,
# and how to point them at it.
root="$(cd "$(dirname "$0")/.." && pwd)"
corpus="${PARQUET_TESTING:-$root/../shared/corpus/parquet-testing}"
superdb="${SUPERDB_EVIDENCE:-$root/../shared/interop/superdb}"
if [ -d "$corpus" ]; then echo "[superspark] parquet-testing corpus: $corpus"
else echo "[superspark] NOTE: no parquet-testing corpus at $corpus: ParquetCorpusSuite and ThriftCompactToFlatBufferSuite" \
  "skip their corpus parts; set PARQUET_TESTING=<dir of apache/parquet-testing> to run them." >&2; fi
if [ -d "$superdb" ]; then echo "[superspark] SuperDB evidence: $superdb"
else echo "[superspark] NOTE: no SuperDB evidence at $superdb: the bsup evidence suites (BsupVersionsSuite and others," \
  "tests/test_bsup_interop.py, tests/test_bsup_versions.py) need it; set SUPERDB_EVIDENCE=<dir with v0/ and v5/>." >&2; fi
exit 0
