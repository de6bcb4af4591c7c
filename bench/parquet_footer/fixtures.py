"""Benchmark fixtures, written by pyarrow (not by us): N columns (half float32, half string)
x 20 row groups, statistics on (pyarrow's default), dictionary encoding on."""

from __future__ import annotations

import os
import sys
import time

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

ROW_GROUPS = 20
ROWS_PER_GROUP = 2


def fixture_path(folder: str, columns: int) -> str:
    return os.path.join(folder, f"wide_{columns}.parquet")


def write_fixture(path: str, columns: int) -> float:
    """Writes the fixture (if missing) and returns the seconds it took (0 when cached)."""
    if os.path.exists(path):
        return 0.0
    started = time.perf_counter()
    rows = ROW_GROUPS * ROWS_PER_GROUP
    rng = np.random.default_rng(columns)
    floats = rng.random((columns // 2, rows), dtype=np.float32)
    words = np.array([f"value-{i:05d}" for i in range(rows)], dtype=object)
    arrays, names = [], []
    for c in range(columns):
        if c % 2 == 0:
            arrays.append(pa.array(floats[c // 2]))
        else:
            arrays.append(pa.array(np.roll(words, c), type=pa.string()))
        names.append(f"c{c}")
    table = pa.Table.from_arrays(arrays, names=names)
    tmp = path + ".tmp"
    pq.write_table(table, tmp, row_group_size=ROWS_PER_GROUP, write_statistics=True,
                   use_dictionary=True, compression="snappy")
    os.replace(tmp, path)
    return time.perf_counter() - started


if __name__ == "__main__":
    folder = sys.argv[1]
    os.makedirs(folder, exist_ok=True)
    for n in map(int, sys.argv[2:]):
        print(f"wrote {fixture_path(folder, n)} in {write_fixture(fixture_path(folder, n), n):.1f}s")
