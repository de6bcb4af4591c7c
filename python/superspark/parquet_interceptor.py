"""The Parquet footer interceptor: counters of the footers Spark decoded.

Each Parquet scan node carries the counters as SQL metrics (Spark UI, SQL tab: "footers
read via FlatBuffers", "footers read via Thrift", "footer extension fallbacks", "footer
decode time"); :func:`scan_metrics` reads them from a DataFrame after an action, and
:func:`footer_metrics` gives driver-wide totals.

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
    >>> df = spark.read.parquet("data/").where("x > 3")
    >>> rows = df.collect()
    >>> pi.scan_metrics(df)
    {'footers_flatbuffer': 12, 'footers_thrift': 0, 'fallbacks': 0, 'decode_ns': 1800000}

With Parquet as a DSv2 source (``spark.sql.sources.useV1SourceList`` without ``parquet``),
the same counters are custom metrics of the ``BatchScan`` node, and :func:`scan_metrics`
includes them.
"""

from __future__ import annotations

import json
from typing import Any, Dict, List

__all__ = ["footer_metrics", "reset_footer_metrics", "scan_metrics", "footer_cache_metrics", "clear_footer_cache",
           "every_writer_counts", "reset_every_writer_counts", "every_writer_stage_counts"]


def _jvm_metrics(spark):
    jvm = spark.sparkContext._jvm
    return jvm.io.superspark.parquet.interceptor.FooterSQLMetrics


def footer_metrics(spark) -> Dict[str, int]:
    """Totals since the last reset, summed over every scan and schema inference of the driver:
    ``footers_flatbuffer`` (decoded from the extension), ``footers_thrift`` (no usable
    extension), ``fallbacks`` (an extension was present but damaged), ``decode_ns``.
    Four counters on the driver, whatever the number of scans (a task's counts arrive when it
    has finished); per-scan counts are on the plan nodes (:func:`scan_metrics`)."""
    return json.loads(_jvm_metrics(spark).snapshotJson())


def reset_footer_metrics(spark) -> None:
    """Starts the counters of :func:`footer_metrics` from zero."""
    _jvm_metrics(spark).reset()


def scan_metrics(df) -> Dict[str, int]:
    """The footer metrics of ``df``'s own Parquet scan nodes, summed (same keys as
    :func:`footer_metrics`): DSv1 scan nodes (SQL metrics) and DSv2 ``BatchScan`` nodes
    (custom metrics). Call it after an action that runs ``df``'s plan, such as
    ``df.collect()`` or ``df.toPandas()``; ``df.count()`` runs a new plan, so its counts do
    not show here. Classic PySpark only (Spark Connect has no JVM handle on the plan)."""
    jdf = getattr(df, "_jdf", None)
    if jdf is None:
        raise TypeError("scan_metrics needs a classic PySpark DataFrame (not Spark Connect)")
    plan = jdf.queryExecution().executedPlan()
    jvm = df.sparkSession.sparkContext._jvm
    v1 = json.loads(_jvm_metrics(df.sparkSession).ofPlanJson(plan))
    v2 = json.loads(jvm.io.superspark.parquet.interceptor.v2.FooterCustomMetrics.json(plan))
    return {k: v1[k] + v2[k] for k in v1}


def footer_cache_metrics(spark) -> Dict[str, int]:
    """The verified-footer cache (``spark.superspark.parquet.footer.cache.enabled``): totals
    since the last :func:`reset_footer_metrics` over every scan and schema inference of the
    driver, ``cache_hits``, ``cache_misses``, ``bytes_read`` (footer bytes read from storage:
    0 for a hit on a store whose statuses carry an ETag, such as S3; the file's last 64 bytes,
    the tail check, where they carry none, such as local files and HDFS), and the driver JVM's cache now: ``held_bytes``, ``entries``, ``evictions``."""
    return json.loads(_jvm_metrics(spark).cacheSnapshotJson())


def clear_footer_cache(spark) -> None:
    """Empties the driver JVM's footer cache (in local mode, the executors' too: one JVM)."""
    spark.sparkContext._jvm.io.superspark.parquet.interceptor.FooterCache.clear()


def every_writer_counts(spark, jvm: bool = False) -> Dict[str, int]:
    """With ``spark.superspark.parquet.footer.everyWriter=true``: the Parquet files the application
    wrote, by outcome: ``extended`` (the footer was added), or left alone by reason
    (``alreadyExtended``, ``encrypted``, ``tailOverLimit``, ``flushed``, ``sizeRecordedByWriter``,
    ``unrepresentable``, ``notParquetTail``, ``deltaLog``, ``notParquetName``), and
    ``heldBytesPeak``, the most bytes held back at once by one JVM's open files.

    The executors of a cluster send their counts to the driver as their tasks end, through the
    plugin ``io.superspark.parquet.footer.writers.EveryWriterPlugin`` (``spark.plugins``; added by
    :func:`superspark.session` with the setting on); without it, only the driver JVM's own files
    are counted. ``jvm=True``: the driver JVM's own counts only (in local mode, every task's)."""
    w = spark.sparkContext._jvm.io.superspark.parquet.footer.writers.EveryWriterSetup
    return json.loads(w.countsJson(bool(jvm)))


def every_writer_stage_counts(spark) -> List[Dict[str, Any]]:
    """The every-writer write metrics per stage: ``[{"stage": id, "attempt": n, "counts": {...}}]``,
    one entry per stage attempt whose successful tasks created or closed a file through the
    wrapped file systems, in the order they first did (the most recent 1,000), with the same
    counter names as :func:`every_writer_counts` (no ``heldBytesPeak``). The same values are the
    named accumulators ``everyWriter.<counter>`` on the stage's page in the Spark UI. Needs the
    plugin (added by :func:`superspark.session` with the setting on); files written outside a
    task (parquet-java in the driver) are in :func:`every_writer_counts` only."""
    w = spark.sparkContext._jvm.io.superspark.parquet.footer.writers.EveryWriterSetup
    return json.loads(w.stageCountsJson())


def every_writer_query_counts(spark) -> List[Dict[str, Any]]:
    """The every-writer SQL metrics of each write command, as the Spark UI's SQL tab shows them:
    ``[{"execution": id, "description": "...", "counts": {"extended": 4}}]``, one entry per SQL
    execution whose plan has the ``EveryWriterFooter`` node (a write command run with the setting
    on: INSERT, ``saveAsTable``, ``DataFrameWriter.save``, DSv2 writes and CREATE/REPLACE TABLE AS
    SELECT, Delta Lake's append, MERGE, UPDATE, DELETE, OPTIMIZE...; and each Structured Streaming
    micro-batch), by execution id, among the executions the SQL tab keeps
    (``spark.sql.ui.retainedExecutions``). ``counts``: the command's or batch's files by outcome,
    as in :func:`every_writer_counts` (counters above zero; empty for a batch whose sink wrote no
    file). Files written outside a task are not in it."""
    w = spark.sparkContext._jvm.io.superspark.parquet.footer.writers.EveryWriterSetup
    return json.loads(w.queryCountsJson())


def reset_every_writer_counts(spark) -> None:
    """Starts the counts of :func:`every_writer_counts` from zero."""
    spark.sparkContext._jvm.io.superspark.parquet.footer.writers.EveryWriterSetup.reset()
