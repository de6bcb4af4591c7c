"""Shared fixtures: one classic SparkSession with superspark loaded, for the whole run."""

import os
import sys

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.fixture(scope="session")
def spark():
    import superspark

    # Python workers must use this interpreter (the venv), not whatever python3 is on PATH.
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    s = superspark.session(
        "superspark-tests",
        master="local[2]",
        **{"spark.ui.enabled": "false", "spark.sql.shuffle.partitions": "2"},
    )
    s.sparkContext.setLogLevel("ERROR")
    yield s
    s.stop()


@pytest.fixture
def tmp_dir(tmp_path):
    return str(tmp_path)
