"""The Parquet footer interceptor: counters of the footers Spark decoded.

With ``spark.sql.extensions=io.superspark.SuperSparkExtensions`` loaded, Spark's Parquet
reads decode footers through superspark's footer library (the FlatBuffers extension when a
file has it, the Thrift footer otherwise) and, with
``spark.superspark.parquet.footer.write=true``, its writes add the extension. See
``docs/parquet-interceptor.md``.

    >>> from superspark import parquet_interceptor as pi
    >>> pi.reset_footer_metrics(spark)
    >>> spark.read.parquet("data/").count()
    >>> pi.footer_metrics(spark)
    {'footers_flatbuffer': 12, 'footers_thrift': 0, 'fallbacks': 0, 'decode_ns': 3100000}

With Parquet as a DSv2 source (``spark.sql.sources.useV1SourceList`` without ``parquet``),
the same counters are custom metrics of the ``BatchScan`` node; :func:`scan_metrics` reads
them from a DataFrame's executed plan.
"""

from __future__ import annotations

import json
from typing import Dict



def _jvm_metrics(spark):
    jvm = spark.sparkContext._jvm
    return jvm.io.superspark.parquet.interceptor.FooterMetrics


def footer_metrics(spark) -> Dict[str, int]:
    """Totals since the last reset, summed over every scan and schema inference of the driver:
    ``footers_flatbuffer`` (decoded from the extension), ``footers_thrift`` (no usable
    extension), ``fallbacks`` (an extension was present but damaged), ``decode_ns``."""
    return json.loads(_jvm_metrics(spark).snapshotJson())


def reset_footer_metrics(spark) -> None:
    """Starts the counters of :func:`footer_metrics` from zero."""
    _jvm_metrics(spark).reset()


def scan_metrics(df) -> Dict[str, int]:
    """The footer metrics of the DSv2 ``BatchScan`` nodes of ``df``'s executed plan (run an
    action first), summed over the nodes that read through the interceptor: ``scans`` (how
    many such nodes), ``footers_flatbuffer``, ``footers_thrift``, ``fallbacks``, ``decode_ns``.
    DSv1 scans are not counted here (see :func:`footer_metrics`)."""
    jvm = df.sparkSession.sparkContext._jvm
    plan = df._jdf.queryExecution().executedPlan()
    return json.loads(jvm.io.superspark.parquet.interceptor.v2.FooterScanMetrics.json(plan))
