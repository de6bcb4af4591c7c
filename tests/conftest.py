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


@pytest.fixture(scope="session")
def super_cli():
    """Path of SuperDB's `super` CLI v0.1.0 (the reference implementation of version 0) from
    $SUPER_BIN. It cannot be installed here (the Go module proxy refuses v0.1.0), so these
    live-CLI tests skip unless a binary is given; the files the CLI wrote, in
    ../shared/interop/superdb, are read by the evidence tests in every run."""
    path = os.environ.get("SUPER_BIN")
    if not path:
        pytest.skip("SUPER_BIN is not set: no super v0.1.0 binary to run (evidence files are tested instead)")
    if not os.access(path, os.X_OK):
        pytest.fail(f"SUPER_BIN={path!r} is not an executable file")
    return path


_CONNECT_ENV = ("SPARK_CONNECT_MODE_ENABLED", "SPARK_REMOTE")


@pytest.fixture(scope="session")
def connect_server(tmp_path_factory):
    """A Spark Connect server started, as the README says, with the superspark jar and
    spark.sql.extensions, once for the test session; yields its port; stopped at the end."""
    import signal
    import socket
    import subprocess
    import time

    import pyspark
    import superspark

    spark_home = os.path.dirname(pyspark.__file__)
    script = os.path.join(spark_home, "sbin", "start-connect-server.sh")
    if not os.path.isfile(script):
        pytest.skip(f"Spark Connect cannot start here: {script} missing")
    tmp_path = tmp_path_factory.mktemp("connect")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = dict(os.environ, SPARK_HOME=spark_home, SPARK_LOG_DIR=str(tmp_path),
               SPARK_PID_DIR=str(tmp_path), PYSPARK_PYTHON=sys.executable)
    for k in _CONNECT_ENV:
        env.pop(k, None)
    log_path = tmp_path / "connect.log"
    log = open(log_path, "wb")
    proc = subprocess.Popen(
        ["bash", script, "--wait", "--master", "local[1]", "--jars", superspark.jar_path(),
         "--conf", f"spark.sql.extensions={superspark.EXTENSIONS_CLASS}",
         "--conf", f"spark.connect.grpc.binding.port={port}",
         "--conf", "spark.connect.grpc.binding.address=127.0.0.1", "--conf", "spark.ui.enabled=false"],
        env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        deadline = time.time() + 120
        while time.time() < deadline:
            if proc.poll() is not None:
                pytest.fail("Spark Connect server exited: " + log_path.read_text()[-3000:])
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.5)
        else:
            pytest.fail("Spark Connect server did not listen within 120 s")
        yield port
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
        log.close()


@pytest.fixture
def connect_session(connect_server):
    """A Spark Connect client session (a session of its own on the server) for one test; the
    process env is restored afterwards so later tests keep using classic PySpark."""
    from pyspark.sql import SparkSession

    saved_env = {k: os.environ.get(k) for k in _CONNECT_ENV}
    remote = SparkSession.builder.remote(f"sc://127.0.0.1:{connect_server}").create()
    try:
        yield remote
    finally:
        remote.stop()
        for k, v in saved_env.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
