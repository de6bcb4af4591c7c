"""The store suites (issue 31): Spark with superspark against the real servers that
dev/stores/start.sh runs (S3Proxy for S3, an HDFS mini-cluster). The endpoints come from the
environment (SUPERSPARK_S3_ENDPOINT, ..., as start.sh prints them) or from the file start.sh
keeps (.tools/stores/run/env). Without them every test errors: run `make test-stores`, which
starts and stops the servers; these tests never pass green without a server."""

import os
import subprocess
import sys
import uuid

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NAMES = ("SUPERSPARK_S3_ENDPOINT", "SUPERSPARK_S3_BUCKET", "SUPERSPARK_S3_ACCESS_KEY",
         "SUPERSPARK_S3_SECRET_KEY", "SUPERSPARK_HDFS_URI")


def endpoints():
    env = {k: os.environ[k] for k in NAMES if os.environ.get(k)}
    kept = os.path.join(REPO, ".tools", "stores", "run", "env")
    if len(env) < len(NAMES) and os.path.exists(kept):
        with open(kept) as f:
            for line in f:
                k, _, v = line.strip().partition("=")
                env.setdefault(k, v)
    missing = [k for k in NAMES if not env.get(k)]
    if missing:
        pytest.fail(f"no store endpoints ({', '.join(missing)}): start the servers with dev/stores/start.sh "
                    "(or run `make test-stores`)", pytrace=False)
    return env


def s3a_settings(env):
    """The Hadoop settings a user gives S3A for an S3-compatible server (README, docs/storage.md)."""
    return {
        "fs.s3a.endpoint": env["SUPERSPARK_S3_ENDPOINT"],
        "fs.s3a.endpoint.region": "us-east-1",
        "fs.s3a.path.style.access": "true",
        "fs.s3a.connection.ssl.enabled": "false",
        "fs.s3a.access.key": env["SUPERSPARK_S3_ACCESS_KEY"],
        "fs.s3a.secret.key": env["SUPERSPARK_S3_SECRET_KEY"],
        # S3Proxy answers DeleteObjects (bulk delete) with 501 NotImplemented: one DELETE per key
        "fs.s3a.multiobjectdelete.enable": "false",
    }


@pytest.fixture(scope="session")
def stores():
    return endpoints()


@pytest.fixture(scope="session")
def s3a_jars():
    """hadoop-aws at this pyspark's Hadoop version and the AWS SDK modules it needs (fetched once)."""
    out = subprocess.run([os.path.join(REPO, "dev", "stores", "s3a-jars.sh"), sys.prefix],
                         check=True, stdout=subprocess.PIPE, text=True).stdout.strip()
    return out.split(",")


def delta_jars():
    """Delta Lake's jars for this pyspark's line (dev/setup.sh fetches them on the lines Delta 4.4.0
    supports, 4.0-4.2), else []."""
    import glob

    import pyspark

    line = ".".join(pyspark.__version__.split(".")[:2])
    return sorted(glob.glob(os.path.join(REPO, "jvm", "target", f"spark-{line}", "delta-jars", "*.jar")))


@pytest.fixture(scope="session")
def spark(stores, s3a_jars):
    import superspark

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    conf = {f"spark.hadoop.{k}": v for k, v in s3a_settings(stores).items()}
    delta = delta_jars()
    if delta:  # Delta's session extension and catalog, as Delta's docs configure a session
        conf.update({"spark.sql.extensions": "io.delta.sql.DeltaSparkSessionExtension",
                     "spark.sql.catalog.spark_catalog": "org.apache.spark.sql.delta.catalog.DeltaCatalog"})
    s = superspark.session("superspark-stores", master="local[2]", **{
        "spark.jars": ",".join(s3a_jars + delta), "spark.ui.enabled": "false", "spark.sql.shuffle.partitions": "2",
        **conf})
    s.sparkContext.setLogLevel("ERROR")
    yield s
    s.stop()


@pytest.fixture(params=["s3", "hdfs"])
def store_dir(request, stores):
    """A fresh folder on one store, a URI: s3a://bucket/<id> or hdfs://host:port/<id>."""
    name = f"t-{uuid.uuid4().hex[:12]}"
    if request.param == "s3":
        return f"s3a://{stores['SUPERSPARK_S3_BUCKET']}/{name}"
    return f"{stores['SUPERSPARK_HDFS_URI']}/{name}"


@pytest.fixture
def tmp_dir(tmp_path):
    return str(tmp_path)
