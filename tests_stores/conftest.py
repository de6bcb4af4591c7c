"""The store suites (issues 31, 40): Spark with superspark against the real servers that
dev/stores/start.sh runs (versitygw for S3, an HDFS mini-cluster, fake-gcs-server for GCS). The endpoints come from the
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
         "SUPERSPARK_S3_SECRET_KEY", "SUPERSPARK_HDFS_URI", "SUPERSPARK_GCS_ENDPOINT", "SUPERSPARK_GCS_BUCKET")


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
    }


def s3a_spark_conf(env, stream=""):
    """A session's settings for s3a:// as a user gives them (the benches' sessions): hadoop-aws and
    the SDK modules it needs for this Python's pyspark (dev/stores/s3a-jars.sh) in spark.jars, the
    S3A settings as spark.hadoop.*, and the S3A input stream type when one is named."""
    jars = subprocess.run([os.path.join(REPO, "dev", "stores", "s3a-jars.sh"), sys.prefix], check=True,
                          stdout=subprocess.PIPE, text=True).stdout.strip()
    conf = {"spark.jars": jars, **{f"spark.hadoop.{k}": v for k, v in s3a_settings(env).items()}}
    if stream:
        conf["spark.hadoop.fs.s3a.input.stream.type"] = stream
    return conf


def gcs_settings(env):
    """The Hadoop settings a user gives Google's GCS connector (3.x/4.x) for a server of their own
    (docs/storage.md): its JSON API root, and no credentials (fake-gcs-server takes none)."""
    return {
        "fs.gs.impl": "com.google.cloud.hadoop.fs.gcs.GoogleHadoopFileSystem",
        "fs.AbstractFileSystem.gs.impl": "com.google.cloud.hadoop.fs.gcs.GoogleHadoopFS",
        "fs.gs.storage.root.url": env["SUPERSPARK_GCS_ENDPOINT"] + "/",
        "fs.gs.auth.type": "UNAUTHENTICATED",
        "fs.gs.project.id": "superspark",
        # Hadoop 3.5.0's core-default.xml (for its own hadoop-gcp connector) sets fs.gs.block.size=64m,
        # which Google's connector reads as a plain long (NumberFormatException: For input string: "64m")
        "fs.gs.block.size": str(64 << 20),
        # the connector renames (Spark's commit protocol) with GCS's objects.move call, which
        # fake-gcs-server 1.56 does not have (docs/storage.md); off: copy (rewrite) and delete
        "fs.gs.operation.move.enable": "false",
        # Hadoop 3.5.0's mapred-default.xml gives gs:// the manifest committer, whose task commit finds no
        # files from Spark's default commit protocol for formats other than Parquet (bsup, CSV, ...:
        # "listStatus(...tasks/attempt_...) does not exist"); Spark's own FileOutputCommitter as on s3a://
        "mapreduce.outputcommitter.factory.scheme.gs": "org.apache.hadoop.mapreduce.lib.output.FileOutputCommitterFactory",
    }


def hadoop_settings(env):
    """The settings of every store's connector (S3A, GCS): what the session and the command line get."""
    return {**s3a_settings(env), **gcs_settings(env)}


@pytest.fixture(scope="session")
def stores():
    return endpoints()


@pytest.fixture(scope="session")
def s3a_jars():
    """hadoop-aws at this pyspark's Hadoop version and the AWS SDK modules it needs (fetched once)."""
    out = subprocess.run([os.path.join(REPO, "dev", "stores", "s3a-jars.sh"), sys.prefix],
                         check=True, stdout=subprocess.PIPE, text=True).stdout.strip()
    return out.split(",")


def gcs_line():
    """Whether gs:// runs on this pyspark's line: 4.3 only (Google's connector was not tried at the
    Hadoop 3.4.x of the 4.0-4.2 lines)."""
    import pyspark

    return tuple(int(x) for x in pyspark.__version__.split(".")[:2]) >= (4, 3)


@pytest.fixture(scope="session")
def gcs_jars():
    """Google's GCS connector (its shaded jar) for this pyspark's Hadoop version (fetched once); none
    on the lines where gs:// does not run."""
    if not gcs_line():
        return []
    out = subprocess.run([os.path.join(REPO, "dev", "stores", "gcs-jars.sh"), sys.prefix],
                         check=True, stdout=subprocess.PIPE, text=True).stdout.strip()
    return out.split(",")


@pytest.fixture(scope="session")
def store_jars(s3a_jars, gcs_jars):
    """Every connector's jars: for spark.jars and the command line's HADOOP_CLASSPATH."""
    return s3a_jars + gcs_jars


def delta_jars():
    """Delta Lake's jars for this pyspark's line (dev/setup.sh fetches them on the lines Delta 4.4.0
    supports, 4.0-4.2), else []."""
    import glob

    import pyspark

    line = ".".join(pyspark.__version__.split(".")[:2])
    return sorted(glob.glob(os.path.join(REPO, "jvm", "target", f"spark-{line}", "delta-jars", "*.jar")))


@pytest.fixture(scope="session")
def spark(stores, store_jars):
    import superspark

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    conf = {f"spark.hadoop.{k}": v for k, v in hadoop_settings(stores).items()}
    delta = delta_jars()
    if delta:  # Delta's session extension and catalog, as Delta's docs configure a session
        conf.update({"spark.sql.extensions": "io.delta.sql.DeltaSparkSessionExtension",
                     "spark.sql.catalog.spark_catalog": "org.apache.spark.sql.delta.catalog.DeltaCatalog"})
    # local[2,3]: a task may run 3 times. versitygw's posix backend keeps a key's folders as directories
    # and removes the ones a DELETE leaves empty; a task's commit (copy, DELETE) racing another task's
    # PUT into a sibling folder can remove the folder under that PUT: it fails with 409
    # ExistingObjectIsDirectory (seen once in a CI run, 2026-11-28; never on S3 itself, which has no
    # folders). The retried task writes its file again, as on a cluster.
    s = superspark.session("superspark-stores", master="local[2,3]", **{
        "spark.jars": ",".join(store_jars + delta), "spark.ui.enabled": "false", "spark.sql.shuffle.partitions": "2",
        **conf})
    s.sparkContext.setLogLevel("ERROR")
    yield s
    s.stop()


STORES = ["s3", "hdfs", "gs"]


@pytest.fixture(params=STORES)
def store_dir(request, stores):
    """A fresh folder on one store, a URI: s3a://bucket/<id>, hdfs://host:port/<id> or gs://bucket/<id>."""
    name = f"t-{uuid.uuid4().hex[:12]}"
    if request.param == "s3":
        return f"s3a://{stores['SUPERSPARK_S3_BUCKET']}/{name}"
    if request.param == "gs":
        if not gcs_line():
            pytest.skip("gs:// runs on the 4.3 line only: Google's connector was not tried at the Hadoop "
                        "3.4.x of the 4.0-4.2 lines (docs/storage.md)")
        return f"gs://{stores['SUPERSPARK_GCS_BUCKET']}/{name}"
    return f"{stores['SUPERSPARK_HDFS_URI']}/{name}"


@pytest.fixture
def tmp_dir(tmp_path):
    return str(tmp_path)
