"""Parquet FlatBuffers footer extension: inspect, add, strip, verify and migrate it.

The footer extension appends a FlatBuffers copy of Parquet's ``FileMetaData`` (with CRCs and
a UUID) behind the reserved Thrift field 32767; other Parquet readers skip it. See
``docs/parquet-footer.md``.

Everything runs in the JVM (``io.superspark.parquet.footer.tools.FooterTool`` in the superspark
jar): the Python API calls it through py4j, using the running SparkSession's gateway when
there is one with the superspark jar, otherwise a plain JVM started once (py4j's
``GatewayServer`` with the superspark jar and pyspark's jars on its classpath: no
``spark-submit``, no SparkContext, only the classes used are loaded). The command line
(without a session) runs one JVM process per call, ``FooterTool``'s ``main`` with C1 only
(``-XX:TieredStopAtLevel=1``: one call on a few files, quick compilation beats peak speed)
and a class data sharing archive written on first use under ``~/.cache/superspark``
(``SUPERSPARK_CACHE_DIR``; ``SUPERSPARK_FOOTER_CDS=off`` switches it off); the API's JVM maps
that archive too when it exists. Both bind SLF4J to its no-operation provider (no provider
scan, no Log4j start) unless ``SUPERSPARK_FOOTER_DEBUG`` is set.

Python API (each returns one dict per Parquet file; directories are walked)::

    from superspark import footer
    footer.inspect("data/")                # extension present?, sizes, CRCs, row groups...
    footer.add("data/part-0.parquet")      # replaces the file crash-safely
    footer.add("in.parquet", output="out.parquet")
    footer.strip("data/")                  # byte-identical to the file before `add`
    footer.verify("data/")                 # CRCs + FlatBuffer == Thrift, field by field
    footer.migrate("data/", to="final")    # private | intermediate | final | plain
    footer.roundtrip("data/")              # Thrift -> FlatBuffer -> Thrift: same bytes?
    footer.migrate_table(spark, "table/", to="final")   # a Spark job; a DataFrame of results

add, strip and migrate replace each file crash-safely (a temporary file next to it, forced to disk,
renamed over it): a kill at any instant leaves the old file or the complete new one.
``--unsafe-in-place`` (``unsafe_in_place=True``) is the old, faster path that writes into the file
and can leave it unreadable when interrupted.

Command line (``superspark-footer``, or ``python -m superspark.footer``)::

    python -m superspark.footer inspect [--json] PATH...
    python -m superspark.footer add [--output OUT] [--unsafe-in-place] PATH...
    python -m superspark.footer strip [--output OUT] [--unsafe-in-place] PATH...
    python -m superspark.footer verify [--json] PATH...
    python -m superspark.footer migrate --to private|intermediate|final|plain [--output OUT] PATH...
    python -m superspark.footer roundtrip [--json] PATH...
    python -m superspark.footer migrate-table --to FORM [--master M] PATH   (also add-table, strip-table)
    python -m superspark.footer alp-decode [--output OUT] PATH...   (ALP chunks -> PLAIN, docs/alp.md)

Paths are Hadoop paths (``s3a://``, ``hdfs://``, ``file:``; no scheme: local). Hadoop settings are
taken as Hadoop's own tools take them: ``-D key=value`` anywhere on the line, ``core-site.xml`` in
``HADOOP_CONF_DIR``, connector jars (``hadoop-aws`` and the AWS SDK) in ``HADOOP_CLASSPATH``
(docs/storage.md has an S3 example). Read-only commands (inspect, verify, roundtrip) take files in a
Delta table too; the rewriting ones refuse them and name the table command.

Exit codes: 0 success; 1 some file failed (error, refused, corrupt or mismatching
extension); 2 (``verify`` only) some file has no extension and none failed; 64 usage error.
"""

from __future__ import annotations

import json
import os
from typing import Iterable, List, Optional, Sequence, Union

from superspark.footer._launcher import set_hadoop_conf, tool, tool_classpath, tool_settings

__all__ = ["inspect", "add", "strip", "verify", "migrate", "alp_decode", "roundtrip", "migrate_table", "add_table",
           "strip_table", "tool_classpath", "set_hadoop_conf", "FORMS", "main"]

#: The footer forms ``migrate`` writes (docs/parquet-footer.md, "Forms").
FORMS = ("private", "intermediate", "final", "plain")

PathArg = Union[str, os.PathLike, Sequence[Union[str, os.PathLike]]]


def _paths(paths: Iterable[PathArg]) -> List[str]:
    out: List[str] = []
    for p in paths:
        if isinstance(p, (str, os.PathLike)):
            out.append(os.fspath(p))
        else:
            out.extend(os.fspath(x) for x in p)
    if not out:
        raise ValueError("no paths given")
    for p in out:
        if not _has_scheme(p) and not os.path.exists(p):
            raise FileNotFoundError(p)
    return out


def _has_scheme(p: str) -> bool:
    """A Hadoop path with a scheme (``hdfs://...``, ``s3a://...``, ``file:/...``): the JVM checks it."""
    head = p.split("/", 1)[0]
    return head.endswith(":") and len(head) > 2


def _java_list(tool, items: List[str]):
    from py4j.java_collections import ListConverter

    return ListConverter().convert(items, tool._gateway_client)


def _call(command: str, paths: Iterable[PathArg], *extra) -> List[dict]:
    """``FooterTool.<command>(paths, *extra, settings)`` in the tool's JVM: its JSON results."""
    jvm_tool = tool()
    jpaths = _java_list(jvm_tool, _paths(paths))
    return json.loads(getattr(jvm_tool, command)(jpaths, *extra, tool_settings()))



def inspect(*paths: PathArg) -> List[dict]:
    """Per Parquet file: ``status`` (``present``, ``absent``, ``corrupt``, ``error``),
    ``uuid``, ``footer_bytes``, ``thrift_bytes``, ``flatbuffer_bytes``, ``size_crc``,
    ``flatbuffer_crc``, ``structure``, ``metadata_source``, ``row_groups``, ``columns``,
    ``num_rows``, ``created_by``."""
    return _call("inspect", paths)


def verify(*paths: PathArg) -> List[dict]:
    """Per Parquet file: ``status`` ``valid`` (CRCs and structure check out and the
    FlatBuffer decodes to exactly what parquet-java reads from the Thrift footer),
    ``absent``, ``corrupt`` or ``mismatch`` (with ``reason``), or ``error``."""
    return _call("verify", paths)


def add(*paths: PathArg, output: Optional[Union[str, os.PathLike]] = None,
        unsafe_in_place: bool = False) -> List[dict]:
    """Gives files the extension by rewriting only their footer: over the file itself, or into
    ``output`` (a file for one input file, else a directory mirroring the inputs). Paths may be
    any Hadoop file system's (``file:``, ``hdfs:``, ``s3a:``...; no scheme: local).

    Crash-safe: the new file is written next to the old one (``.NAME.superspark-rewrite.tmp``),
    forced to disk and renamed over it (on object stores: the new object replaces the old one
    when complete; ``replace`` in the result says which), so a kill at any instant leaves the
    old bytes or the complete new file. A file that changed since it was read, or that another
    run is rewriting, is ``refused``; so is a path in a Delta table. ``unsafe_in_place=True``:
    the old fast path that writes into the file itself; a kill or crash during it leaves an
    unreadable file (local files only).

    Idempotent: a file with a valid extension is left ``unchanged``. Status ``added``,
    ``unchanged``, ``refused`` (with ``message``: the FlatBuffer cannot represent the footer
    faithfully, e.g. encryption, or one of the reasons above; nothing is written) or ``error``."""
    return _call("add", paths, None if output is None else os.fspath(output), bool(unsafe_in_place))


def strip(*paths: PathArg, output: Optional[Union[str, os.PathLike]] = None,
          unsafe_in_place: bool = False) -> List[dict]:
    """Removes the extension, restoring the file byte for byte as it was before ``add``;
    crash-safe as :func:`add` (``unsafe_in_place`` as there). Status ``stripped``,
    ``unchanged`` (no extension), ``refused`` or ``error``."""
    return _call("strip", paths, None if output is None else os.fspath(output), bool(unsafe_in_place))


def migrate(*paths: PathArg, to: str, output: Optional[Union[str, os.PathLike]] = None,
            unsafe_in_place: bool = False) -> List[dict]:
    """Rewrites each file's footer into the form ``to``: ``private`` (Thrift + FlatBuffer
    extension, UUID1), ``intermediate`` (the same with UUID2 and a v1 FlatBuffer), ``final``
    (FlatBuffer only, ``PAR3`` tail: only superspark reads it) or ``plain`` (an ordinary
    Parquet file). Only the tail is rewritten, never the data pages; in place or into
    ``output``, crash-safe, as for :func:`add` (``unsafe_in_place`` as there). ``final`` ->
    ``plain`` gives back the original bytes wherever :func:`roundtrip` says ``exact``. Status
    ``migrated``, ``unchanged``, ``refused`` or ``error``, with ``from`` and ``to``."""
    if to not in FORMS:
        raise ValueError(f"unknown footer form {to!r} (expected one of {', '.join(FORMS)})")
    return _call("migrate", paths, None if output is None else os.fspath(output), to, bool(unsafe_in_place))


def alp_decode(*paths: PathArg, output: Optional[Union[str, os.PathLike]] = None) -> List[dict]:
    """Rewrites each file holding ALP data (``docs/alp.md``) so that every Parquet reader opens
    it: ratified ALP chunks (``Encoding`` ALP = 10) become PLAIN chunks with the same codec and
    statistics, the private form's ALP chunks and their extensions are dropped, other chunks
    are copied byte for byte; the footer is written plain (page indexes and bloom filters are
    not carried over). In place or into ``output`` as for :func:`add`. Status ``decoded``
    (with ``alp_chunks_decoded``, ``private_alp_dropped``, ``bytes_before``/``bytes_after``),
    ``unchanged`` (no ALP data) or ``error``."""
    return _call("alpDecode", paths, None if output is None else os.fspath(output))


def roundtrip(*paths: PathArg) -> List[dict]:
    """Per file: converts its Thrift footer to the FlatBuffer and back. ``exact`` (the same
    bytes), ``equivalent`` (other bytes, same Thrift objects and same parquet-java metadata),
    ``different`` (with ``reason``), ``refused`` or ``error``."""
    return _call("roundtrip", paths)


def uploads(*paths: PathArg, abort_older_than: Optional[str] = None) -> List[dict]:
    """The incomplete S3 multipart uploads under each ``s3a://bucket/prefix`` (S3's key prefix), one
    result per upload, oldest first: ``path``, ``status`` (``incomplete``, or ``aborted``), ``key``,
    ``upload_id``, ``initiated`` and ``age_seconds``. ``abort_older_than`` (``"1h"``: a number and
    ``s``, ``m``, ``h`` or ``d``) aborts every upload at least that old. A killed server-side footer
    rewrite can leave one (docs/storage.md). A path not on S3A: ``status`` ``error``."""
    return _call("uploads", paths, abort_older_than)


# ---- tables, as a Spark job ----

def _table_job(spark, path: Union[str, os.PathLike], command: str, to: Optional[str], progress: bool):
    """The table job (``io.superspark.parquet.footer.tools.FooterTableJob``) on ``spark``'s JVM, as a DataFrame."""
    from pyspark.sql.classic.dataframe import DataFrame

    jvm = spark._jvm
    jdf = jvm.io.superspark.parquet.footer.tools.FooterTableJob.run(spark._jsparkSession, os.fspath(path), command, to,
                                                              bool(progress))
    return DataFrame(jdf, spark)


def migrate_table(spark, path: Union[str, os.PathLike], to: str, progress: bool = False):
    """Rewrites the footer of every Parquet file under ``path`` (a table's folder on any Hadoop file
    system; ``_*`` and ``.*`` names are skipped) into the form ``to``, as one Spark job on ``spark``
    (a session with the superspark jar, e.g. :func:`superspark.session`). Each task rewrites its files
    crash-safely, as :func:`migrate` does.

    Idempotent and resumable: files already in ``to`` are ``already``; after a crash, the same call
    finishes the rest and redoes nothing. Raises (``SUPERSPARK_DELTA_TABLE_REWRITE_REFUSED``) for a
    path in a Delta table, ``PATH_NOT_FOUND`` for a missing one.

    Returns a DataFrame, computed (the files are rewritten when this returns), with one row per file:
    ``path``, ``status`` (``done``, ``already``, ``refused`` with ``reason``, ``failed`` with the error in
    ``reason``), ``tool_status``, ``from_form``, ``to_form``, ``replace`` and ``seconds``.
    ``progress=True`` draws a progress bar on stderr. SQL:
    ``SELECT * FROM superspark_footer_migrate_table('/path', 'final')``.

    >>> df = footer.migrate_table(spark, "/data/events", to="final")  # doctest: +SKIP
    >>> df.groupBy("status").count().show()                           # doctest: +SKIP
    """
    if to not in FORMS:
        raise ValueError(f"unknown footer form {to!r} (expected one of {', '.join(FORMS)})")
    return _table_job(spark, path, "migrate", to, progress)


def add_table(spark, path: Union[str, os.PathLike], progress: bool = False):
    """:func:`add` over a table's files as a Spark job, as :func:`migrate_table` (files with a valid
    extension are ``already``). SQL: ``superspark_footer_add_table(path)``."""
    return _table_job(spark, path, "add", None, progress)


def strip_table(spark, path: Union[str, os.PathLike], progress: bool = False):
    """:func:`strip` over a table's files as a Spark job, as :func:`migrate_table` (files without the
    extension are ``already``). SQL: ``superspark_footer_strip_table(path)``."""
    return _table_job(spark, path, "strip", None, progress)


from superspark.footer._cli import main  # noqa: E402  (the command line; imports the API above)
