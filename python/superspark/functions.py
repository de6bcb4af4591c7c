"""superspark SQL functions for PySpark.

Each function is a one-line call of the SQL function of the same name that
``io.superspark.SuperSparkExtensions`` registers, so it works under classic PySpark and
under Spark Connect (the name is resolved on the server, which must have the extension).
"""

from __future__ import annotations

from pyspark.sql import Column
from pyspark.sql import functions as F

__all__ = ["superspark_version"]


def superspark_version() -> Column:
    """Returns the version of the superspark extension loaded in the session.

    Example:
        >>> from superspark.functions import superspark_version
        >>> spark.range(1).select(superspark_version()).head()[0]  # doctest: +SKIP
        '0.1.0'
    """
    return F.call_function("superspark_version")
