"""The read-only material beside the clone (``../shared``), found the one way every test uses:
the environment variable first (``PARQUET_TESTING``: the parquet-testing checkout, with its
``data/`` folder; ``SUPERDB_EVIDENCE``: SuperDB's files), else ``shared/...`` beside the
repository or a folder above it (a clone, or a git worktree below one). No machine path."""

import os

__all__ = ["parquet_testing", "parquet_testing_data", "superdb_evidence",
           "PARQUET_TESTING_MISSING", "SUPERDB_MISSING"]

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

PARQUET_TESTING_MISSING = ("the parquet-testing corpus (../shared/corpus/parquet-testing) was not found: "
                           "set PARQUET_TESTING to that folder")
SUPERDB_MISSING = "SuperDB's files (../shared/interop/superdb) were not found: set SUPERDB_EVIDENCE to that folder"


def _find(env, rel):
    v = os.environ.get(env)
    if v and os.path.isdir(v):
        return v
    d = REPO
    while True:
        c = os.path.join(d, "shared", *rel.split("/"))
        if os.path.isdir(c):
            return c
        parent = os.path.dirname(d)
        if parent == d:
            return None
        d = parent


def parquet_testing():
    """The parquet-testing checkout, or None."""
    return _find("PARQUET_TESTING", "corpus/parquet-testing")


def parquet_testing_data():
    """parquet-testing's ``data/`` folder, or None."""
    root = parquet_testing()
    data = os.path.join(root, "data") if root else None
    return data if data and os.path.isdir(data) else None


def superdb_evidence():
    """SuperDB's files (``interop/superdb``), or None."""
    return _find("SUPERDB_EVIDENCE", "interop/superdb")
