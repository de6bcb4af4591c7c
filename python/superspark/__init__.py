"""superspark: a Spark SQL extension for open formats.

* Parquet footer extension: FlatBuffers ``FileMetaData`` behind Thrift field 32767.
* Super Binary: the ``bsup`` data source and ``sb_*`` SQL functions.
* Arrow canonical extension types across Spark <-> Arrow.

Everything is loaded into Spark by one setting,
``spark.sql.extensions=io.superspark.SuperSparkExtensions``, with the superspark jar on the
classpath; :func:`session` does both.
"""

from __future__ import annotations

import glob
import os
from typing import Any, Optional

__version__ = "0.1.0"

#: The class to name in ``spark.sql.extensions``.
EXTENSIONS_CLASS = "io.superspark.SuperSparkExtensions"

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))
_JAR_NAME = f"superspark_2.13-{__version__}.jar"

__all__ = ["EXTENSIONS_CLASS", "jar_path", "session", "__version__"]


def jar_path() -> str:
    """Returns the path of the superspark jar that matches this package.

    Looked up, in order: the ``SUPERSPARK_JAR`` environment variable; the jar bundled into
    the wheel (``superspark/jars/``); the repository's build output
    (``jvm/target/scala-2.13/``) when running from a source checkout.

    Raises:
        FileNotFoundError: when no jar is found, with what to run to build one.
    """
    env = os.environ.get("SUPERSPARK_JAR")
    if env:
        if not os.path.isfile(env):
            raise FileNotFoundError(f"SUPERSPARK_JAR={env!r} is not a file")
        return env
    candidates = [
        os.path.join(_PACKAGE_DIR, "jars", _JAR_NAME),
        os.path.join(_PACKAGE_DIR, "..", "..", "jvm", "target", "scala-2.13", _JAR_NAME),
    ]
    for c in candidates:
        if os.path.isfile(c):
            return os.path.normpath(c)
    found = sorted(glob.glob(os.path.join(_PACKAGE_DIR, "jars", "superspark_2.13-*.jar")))
    if found:
        return found[-1]
    raise FileNotFoundError(
        f"{_JAR_NAME} not found (looked in: {', '.join(os.path.normpath(c) for c in candidates)}); "
        "build it with `make jar` in the superspark repository or set SUPERSPARK_JAR")


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
