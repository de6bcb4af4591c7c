"""superspark: a Spark SQL extension for open formats.

* Parquet footer extension: FlatBuffers ``FileMetaData`` behind Thrift field 32767.
* Super Binary: the ``bsup`` data source and ``sb_*`` SQL functions.
* Arrow canonical extension types across Spark <-> Arrow.

Everything is loaded into Spark by one setting,
``spark.sql.extensions=io.superspark.SuperSparkExtensions``, with the superspark jar on the
classpath; :func:`session` does both.
"""

from __future__ import annotations

import os
from typing import Any, Optional

__version__ = "0.1.0"

#: The class to name in ``spark.sql.extensions``.
EVERY_WRITER_PLUGIN = "io.superspark.parquet.footer.writers.EveryWriterPlugin"
EXTENSIONS_CLASS = "io.superspark.SuperSparkExtensions"

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))

#: The Spark minor lines with a superspark jar, ``superspark-spark<line>_2.13-<version>.jar`` each.
SUPPORTED_SPARK_LINES = ("4.0", "4.1", "4.2", "4.3")

__all__ = ["EXTENSIONS_CLASS", "SUPPORTED_SPARK_LINES", "UnsupportedSparkLineError", "jar_path", "session",
           "spark_line", "__version__"]


class UnsupportedSparkLineError(RuntimeError):
    """The running pyspark belongs to a Spark line superspark has no jar for."""


def spark_line(version: Optional[str] = None) -> str:
    """Returns the Spark line (``"4.2"``) of ``version``, by default the installed pyspark's.

    Raises:
        UnsupportedSparkLineError: when superspark has no jar for that line, naming the
            supported lines.
    """
    if version is None:
        # The installed distribution's version: importing pyspark costs ~0.3 s, which the footer
        # command line (superspark.footer) does not pay.
        from importlib.metadata import PackageNotFoundError, version as dist_version

        try:
            version = dist_version("pyspark")
        except PackageNotFoundError:  # pyspark from a SPARK_HOME on sys.path, not pip-installed
            import pyspark

            version = pyspark.__version__
    parts = version.split(".")
    line = ".".join(parts[:2])
    if line not in SUPPORTED_SPARK_LINES:
        raise UnsupportedSparkLineError(
            f"superspark has no jar for Spark {version} (line {line}); supported Spark lines: "
            f"{', '.join(SUPPORTED_SPARK_LINES)}")
    return line


def _jar_name(line: str) -> str:
    return f"superspark-spark{line}_2.13-{__version__}.jar"


def jar_path(line: Optional[str] = None) -> str:
    """Returns the path of the superspark jar for a Spark line, by default the running pyspark's.

    Looked up, in order: the ``SUPERSPARK_JAR`` environment variable; the jar of that line
    bundled into the wheel (``superspark/jars/``); the repository's build output
    (``jvm/target/spark-<line>/scala-2.13/``) when running from a source checkout.

    Args:
        line: a Spark line such as ``"4.2"`` (default: that of the installed pyspark).

    Raises:
        UnsupportedSparkLineError: when the Spark line has no superspark jar.
        FileNotFoundError: when the line's jar is not found, with what to run to build one.
    """
    env = os.environ.get("SUPERSPARK_JAR")
    if env:
        if not os.path.isfile(env):
            raise FileNotFoundError(f"SUPERSPARK_JAR={env!r} is not a file")
        return env
    line = spark_line() if line is None else spark_line(line)
    name = _jar_name(line)
    candidates = [
        os.path.join(_PACKAGE_DIR, "jars", name),
        os.path.join(_PACKAGE_DIR, "..", "..", "jvm", "target", f"spark-{line}", "scala-2.13", name),
    ]
    for c in candidates:
        if os.path.isfile(c):
            return os.path.normpath(c)
    raise FileNotFoundError(
        f"{name} not found (looked in: {', '.join(os.path.normpath(c) for c in candidates)}); "
        f"build it with `SPARK_LINE={line} make jar` in the superspark repository or set SUPERSPARK_JAR")


def _append(existing: Optional[str], item: str, sep: str = ",") -> str:
    parts = [p for p in (existing or "").split(sep) if p.strip()]
    if item not in parts:
        parts.append(item)
    return sep.join(parts)


def session(app_name: Optional[str] = None, master: str = "local[*]", **conf: Any):
    """Returns a SparkSession with the superspark jar and extension loaded.

    Args:
        app_name: the application name (default ``"superspark"``).
        master: the Spark master URL (default ``"local[*]"``, an embedded local Spark).
        **conf: further Spark settings, passed as ``**{"spark.sql.shuffle.partitions": "4"}``.
            ``spark.jars`` and ``spark.sql.extensions`` given here are kept; the superspark
            entries are appended to them.

    Raises:
        UnsupportedSparkLineError: when the installed pyspark's Spark line has no superspark
            jar (the message names the supported lines).
        RuntimeError: when a SparkSession already runs in this process without the extension
            (``spark.sql.extensions`` is static: stop that session first).

    Example:
        >>> import superspark
        >>> spark = superspark.session()
        >>> spark.sql("SELECT superspark_version()").head()[0] == superspark.__version__
        True
    """
    from pyspark.sql import SparkSession

    settings = {k: str(v) for k, v in conf.items()}
    settings["spark.jars"] = _append(settings.get("spark.jars"), jar_path())
    settings["spark.sql.extensions"] = _append(settings.get("spark.sql.extensions"), EXTENSIONS_CLASS)
    if settings.get("spark.superspark.parquet.footer.everyWriter", "").strip().lower() == "true":
        # the executors' every-writer counts reach the driver (parquet_interceptor.every_writer_counts)
        settings["spark.plugins"] = _append(settings.get("spark.plugins"), EVERY_WRITER_PLUGIN)
    builder = SparkSession.builder.master(master).appName(app_name or "superspark")
    for k, v in settings.items():
        builder = builder.config(k, v)
    spark = builder.getOrCreate()
    loaded = spark.conf.get("spark.sql.extensions", "") or ""
    if EXTENSIONS_CLASS not in loaded.split(","):
        raise RuntimeError(
            "a SparkSession without the superspark extension is already running in this "
            "process; call spark.stop() before superspark.session() "
            f"(spark.sql.extensions is {loaded!r})")
    return spark
