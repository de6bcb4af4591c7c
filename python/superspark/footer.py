"""Parquet FlatBuffers footer extension: inspect, add, strip, verify and migrate it.

The footer extension appends a FlatBuffers copy of Parquet's ``FileMetaData`` (with CRCs and
a UUID) behind the reserved Thrift field 32767; other Parquet readers skip it. See
``docs/parquet-footer.md``.

Everything runs in the JVM (``io.superspark.parquet.footer.FooterTool`` in the superspark
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

Command line::

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

import argparse
import json
import os
import sys
from typing import Iterable, List, Optional, Sequence, Tuple, Union

__all__ = ["inspect", "add", "strip", "verify", "migrate", "alp_decode", "roundtrip", "migrate_table", "add_table",
           "strip_table", "FORMS", "main"]

#: The footer forms ``migrate`` writes (docs/parquet-footer.md, "Forms").
FORMS = ("private", "intermediate", "final", "plain")

PathArg = Union[str, os.PathLike, Sequence[Union[str, os.PathLike]]]

_gateway = None


#: The JVM objects of the tools: the footer commands, and ALP's ``alp-decode``.
_FOOTER_TOOL = "io.superspark.parquet.footer.FooterTool"
_ALP_TOOL = "io.superspark.parquet.alp.AlpTool"


def _jvm_object(jvm, name: str):
    """The py4j view of the JVM class ``name`` (a dotted name)."""
    obj = jvm
    for part in name.split("."):
        obj = getattr(obj, part)
    return obj


def _session_tool(name: str = _FOOTER_TOOL):
    """The tool ``name`` through the active SparkSession's JVM when it has the superspark jar, else None."""
    if "pyspark.sql" not in sys.modules:  # then no session exists in this process
        return None
    from py4j.java_gateway import JavaClass

    try:
        from pyspark.sql import SparkSession

        session = SparkSession.getActiveSession()
    except Exception:  # pragma: no cover - pyspark without a usable session module
        session = None
    jvm = getattr(session, "_jvm", None) if session is not None else None
    if jvm is not None:
        tool = _jvm_object(jvm, name)
        if isinstance(tool, JavaClass):
            if name == _FOOTER_TOOL:  # the session's spark.hadoop.* settings (s3a credentials, ...)
                tool.setBaseConf(session._jsc.hadoopConfiguration())
            return tool
    return None


def _tool(name: str = _FOOTER_TOOL):
    """The JVM tool object ``name``, through the active session's gateway or our own."""
    global _gateway
    tool = _session_tool(name)
    if tool is not None:
        return tool
    if _gateway is None:
        _gateway = _launch_tool_jvm()
    return _jvm_object(_gateway.jvm, name)


def tool_classpath() -> List[str]:
    """The footer tool JVM's classpath: pyspark's py4j jar, the superspark jar, the jars the tool
    loads classes from (:data:`_TOOL_JARS`), then pyspark's ``jars/*`` (parquet-java needs
    Hadoop's configuration classes and more; the JVM loads only the classes used, and no Spark
    code runs). The py4j jar comes first as py4j's launcher puts
    it, so that both JVMs share one class data archive (:func:`_class_data_options`)."""
    import glob

    from superspark import jar_path

    jars = os.path.join(_spark_home(), "jars")
    py4j = sorted(glob.glob(os.path.join(jars, "py4j-[0-9]*.jar")))
    if len(py4j) != 1:
        raise FileNotFoundError(f"expected one py4j-<version>.jar in {jars}, found {py4j or 'none'}")
    first = [j for pattern in _TOOL_JARS for j in sorted(glob.glob(os.path.join(jars, pattern)))]
    return [py4j[0], jar_path(), *_hadoop_classpath(), *first, os.path.join(jars, "*")]


def _hadoop_classpath() -> List[str]:
    """What Hadoop's own tools add: ``HADOOP_CONF_DIR`` (its ``core-site.xml``: file system
    settings such as ``fs.s3a.*``) and ``HADOOP_CLASSPATH`` (connector jars such as
    ``hadoop-aws`` and the AWS SDK), both as Hadoop reads them."""
    out = []
    conf_dir = os.environ.get("HADOOP_CONF_DIR")
    if conf_dir:
        out.append(conf_dir)
    extra = os.environ.get("HADOOP_CLASSPATH")
    if extra:
        out.extend(e for e in extra.split(os.pathsep) if e)
    return out


def set_hadoop_conf(key: str, value: str) -> None:
    """A Hadoop setting for the footer commands of this process (as ``-D key=value`` on the
    command line), over ``core-site.xml`` and, through a SparkSession, the session's."""
    _hadoop_settings[key] = value
    tool = _tool()
    tool.setConf(key, value)


_hadoop_settings: dict = {}


#: The jars whose classes the footer tool loads, named before pyspark's ``jars/*``: a class
#: is looked up jar by jar in classpath order, opening each jar on the way (about 0.1 s of a
#: cold call when they came in the alphabetical order of some 280 jars). ``jars/*`` still
#: follows, so nothing is missing if parquet-java needs another jar.
_TOOL_JARS = ("scala-library-*.jar", "flatbuffers-java-*.jar", "parquet-format-structures-*.jar",
              "parquet-hadoop-[0-9]*.jar", "parquet-column-*.jar", "parquet-common-*.jar",
              "parquet-encoding-*.jar", "parquet-jackson-*.jar", "slf4j-api-*.jar",
              "hadoop-client-api-*.jar", "hadoop-client-runtime-*.jar")


def _spark_home() -> str:
    """pyspark's own ``_find_spark_home()`` (``SPARK_HOME``, else where pyspark is installed),
    without importing the ``pyspark`` package: ``import pyspark.find_spark_home`` runs
    ``pyspark/__init__.py``, which imports most of PySpark (about 0.3 s, a sixth of a cold
    command-line call). Its module is loaded from its file instead."""
    if "pyspark" in sys.modules:
        from pyspark.find_spark_home import _find_spark_home

        return _find_spark_home()
    import importlib.util

    package = importlib.util.find_spec("pyspark")
    if package is None or not package.submodule_search_locations:
        raise FileNotFoundError("pyspark is not installed (the footer tool runs on its jars)")
    source = os.path.join(list(package.submodule_search_locations)[0], "find_spark_home.py")
    spec = importlib.util.spec_from_file_location("_superspark_find_spark_home", source)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module._find_spark_home()


def _java() -> str:
    java_home = os.environ.get("JAVA_HOME")
    return os.path.join(java_home, "bin", "java") if java_home else "java"


def _jvm_memory() -> str:
    return "-Xmx" + os.environ.get("SUPERSPARK_FOOTER_JVM_MEMORY", "2g")


def _jvm_logging() -> List[str]:
    """SLF4J bound to its no-operation logger, named outright (unless ``SUPERSPARK_FOOTER_DEBUG``):
    the tool's JVM logs nowhere anyway (its results and errors come back as JSON), and without
    it the first parquet-java class that logs makes SLF4J look for providers in every jar on
    the classpath and start Log4j 2 (about 0.5 s of a cold call, see docs/parquet-footer.md)."""
    if os.environ.get("SUPERSPARK_FOOTER_DEBUG"):
        return []
    return ["-Dslf4j.provider=org.slf4j.helpers.NOP_FallbackServiceProvider", "-Dslf4j.internal.verbosity=WARN"]


def _class_data_archive(java: str, classpath: List[str]) -> Optional[str]:
    """Where the tool JVM's class data sharing archive lives (None: switched off or no
    writable cache directory). Its name hashes the java binary and every classpath jar's path,
    size and modification time, so a rebuilt jar or another JDK gets a new archive."""
    import glob
    import hashlib
    import shutil
    import tempfile

    if os.environ.get("SUPERSPARK_FOOTER_CDS", "on").lower() in ("0", "off", "false", "no"):
        return None
    key = hashlib.sha256()
    binary = shutil.which(java) or java
    for entry in [os.path.realpath(binary), *classpath]:
        for f in sorted(glob.glob(entry)) if entry.endswith("*") else [entry]:
            try:
                st = os.stat(f)
            except OSError:
                continue
            key.update(f"{f}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())
    base = os.environ.get("SUPERSPARK_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "superspark")
    for folder in (base, os.path.join(tempfile.gettempdir(), f"superspark-{os.getuid()}")):
        try:
            os.makedirs(folder, exist_ok=True)
            if os.access(folder, os.W_OK):
                return os.path.join(folder, f"footer-tool-{key.hexdigest()[:20]}.jsa")
        except OSError:
            continue
    return None


def _class_data_options(archive: Optional[str], create: bool) -> Tuple[List[str], Optional[str]]:
    """JVM options that use the class data archive when it exists, or (``create``) write it
    when the JVM exits, under a temporary name (returned) that the caller renames into place.
    ``-Xlog:disable``: a stale or unusable archive is then skipped silently (JSON and py4j's
    port go through stdout)."""
    if archive is None:
        return [], None
    if os.path.exists(archive):
        return ["-Xshare:auto", "-XX:SharedArchiveFile=" + archive, "-Xlog:disable"], None
    if not create:
        return [], None
    tmp = f"{archive}.{os.getpid()}.tmp"
    return ["-XX:ArchiveClassesAtExit=" + tmp, "-Xlog:disable"], tmp


def _launch_tool_jvm():
    """A plain JVM running py4j's GatewayServer with :func:`tool_classpath` (no Spark); it uses
    the command line's class data archive when there is one."""
    from py4j.java_gateway import GatewayParameters, JavaGateway, launch_gateway

    py4j_jar, *classpath = tool_classpath()
    java = _java()
    cds, _ = _class_data_options(_class_data_archive(java, [py4j_jar, *classpath]), create=False)
    # The JVM's own logging goes nowhere unless asked for: results and errors come back as
    # JSON through py4j.
    debug = sys.stderr if os.environ.get("SUPERSPARK_FOOTER_DEBUG") else None
    port, token = launch_gateway(
        jarpath=py4j_jar, classpath=os.pathsep.join(classpath), java_path=java, die_on_exit=True,
        javaopts=[_jvm_memory(), *_jvm_logging(), *cds], redirect_stderr=debug, enable_auth=True)
    return JavaGateway(gateway_parameters=GatewayParameters(port=port, auth_token=token, auto_convert=True))


def _run_tool_process(command: str, paths: List[str], output: Optional[str] = None,
                      to: Optional[str] = None, unsafe_in_place: bool = False,
                      hadoop_conf: Sequence[str] = ()) -> List[dict]:
    """One command in a new JVM that runs FooterTool's ``main`` and exits (the command line
    without a SparkSession): no py4j gateway, C1 only (one call on a few files: quick
    compilation beats peak speed), and class data sharing: the first run writes the archive
    (:func:`_class_data_archive`), later runs map the classes from it instead of loading them.
    See docs/parquet-footer.md, "Benchmark"."""
    import subprocess

    classpath = tool_classpath()
    java = _java()
    archive = _class_data_archive(java, classpath)
    cds, tmp = _class_data_options(archive, create=True)
    args = [command, *(["--output", output] if output is not None else []), *(["--to", to] if to else []),
            *(["--unsafe-in-place"] if unsafe_in_place else []),
            *[a for kv in hadoop_conf for a in ("-D", kv)], *paths]
    debug = os.environ.get("SUPERSPARK_FOOTER_DEBUG")
    try:
        p = subprocess.run([java, _jvm_memory(), "-XX:TieredStopAtLevel=1", *_jvm_logging(), *cds,
                            "-cp", os.pathsep.join(classpath),
                            "io.superspark.parquet.footer.FooterTool", *args],
                           stdout=subprocess.PIPE, stderr=None if debug else subprocess.PIPE, text=True)
        if p.returncode == 0 and tmp is not None and os.path.exists(tmp):
            os.replace(tmp, archive)
    finally:
        if tmp is not None and os.path.exists(tmp):
            os.remove(tmp)
    lines = p.stdout.strip().splitlines()
    if p.returncode != 0 or not lines:
        raise RuntimeError(f"footer tool JVM exited with {p.returncode}: {(p.stderr or '').strip()[-2000:]}")
    return json.loads(lines[-1])


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


def _call(command: str, paths: Iterable[PathArg], *extra, tool_name: str = _FOOTER_TOOL) -> List[dict]:
    tool = _tool(tool_name)
    jpaths = _java_list(tool, _paths(paths))
    return json.loads(getattr(tool, command)(jpaths, *extra))


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
    return _call("alpDecode", paths, None if output is None else os.fspath(output), tool_name=_ALP_TOOL)


def roundtrip(*paths: PathArg) -> List[dict]:
    """Per file: converts its Thrift footer to the FlatBuffer and back. ``exact`` (the same
    bytes), ``equivalent`` (other bytes, same Thrift objects and same parquet-java metadata),
    ``different`` (with ``reason``), ``refused`` or ``error``."""
    return _call("roundtrip", paths)


# ---- tables, as a Spark job ----

def _table_job(spark, path: Union[str, os.PathLike], command: str, to: Optional[str], progress: bool):
    """The table job (``io.superspark.parquet.footer.FooterTableJob``) on ``spark``'s JVM, as a DataFrame."""
    from pyspark.sql.classic.dataframe import DataFrame

    jvm = spark._jvm
    jdf = jvm.io.superspark.parquet.footer.FooterTableJob.run(spark._jsparkSession, os.fspath(path), command, to,
                                                              bool(progress))
    return DataFrame(jdf, spark)


def migrate_table(spark, path: Union[str, os.PathLike], to: str, progress: bool = False):
    """Rewrites the footer of every Parquet file under ``path`` (a table's folder on any Hadoop file
    system; ``_*`` and ``.*`` names are skipped) into the form ``to``, as one Spark job on ``spark``
    (a session with the superspark jar, e.g. :func:`superspark.session`). Each task rewrites its files
    crash-safely, as :func:`migrate` does.

    Idempotent and resumable: files already in ``to`` are ``already``; after a crash, the same call
    finishes the rest and redoes nothing. Raises (Spark's ``UNSUPPORTED_FEATURE.TABLE_OPERATION``) for a
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


def _run_table_command(args) -> int:
    """``add-table`` / ``strip-table`` / ``migrate-table``: a Spark session (``--master``), the job with its
    progress bar, one line per file that was not done or already, and a summary."""
    import superspark

    hadoop = {f"spark.hadoop.{k}": v for k, v in (kv.split("=", 1) for kv in args.hadoop_conf)}
    spark = superspark.session("superspark-footer-table", master=args.master,
                               **{"spark.ui.showConsoleProgress": "false", **hadoop})
    command = args.command[:-len("-table")]
    try:
        df = _table_job(spark, args.path, command, getattr(args, "to", None), progress=not args.json)
    except Exception as e:  # Spark's errors for a Delta table or a missing path: the message, exit 1
        if type(e).__module__.startswith(("pyspark", "py4j")):
            print(f"error: {e}", file=sys.stderr)
            return 1
        raise
    rows = [r.asDict() for r in df.collect()]
    if args.json:
        print(json.dumps(rows, indent=2))
    else:
        for r in rows:
            if r["status"] not in ("done", "already"):
                print(f"{r['status']} {r['path']}: {r['reason']}")
        counts = {s: sum(r["status"] == s for r in rows) for s in ("done", "already", "refused", "failed")}
        print(", ".join(f"{n:,} {s}" for s, n in counts.items()) + f" ({len(rows):,} files)")
    return 1 if any(r["status"] in ("refused", "failed") for r in rows) else 0


# ---- command line ----

_UNSAFE_HELP = ("UNSAFE: write the new footer into the file itself (faster, no temporary copy). Not crash-safe: "
                "a kill, crash, out-of-memory kill or Ctrl-C during the write leaves an unreadable file that no "
                "reader can open again. Local files only. Without it the file is replaced crash-safely.")

_FAILED = {"error", "refused", "corrupt", "mismatch", "different"}


def _size(n) -> str:
    return "-" if n is None else f"{n:,} B"


def _print_inspect(r: dict) -> None:
    status = r["status"]
    if status == "error":
        print(f"{r['path']}: error: {r.get('message')}")
        return
    head = f"{r['path']}: {r.get('form', '?')} form, extension {status}"
    if r.get("uuid"):
        head += f" (uuid {r['uuid']})"
    print(head)
    print(f"  footer {_size(r.get('footer_bytes'))}: thrift {_size(r.get('thrift_bytes'))}, "
          f"flatbuffer {_size(r.get('flatbuffer_bytes'))}")
    if r.get("extension"):
        print(f"  size crc {r.get('size_crc')}, flatbuffer crc {r.get('flatbuffer_crc')}, "
              f"structure {r.get('structure', 'unchecked')}")
        if r.get("reason"):
            print(f"  reason: {r['reason']}")
    print(f"  {r.get('row_groups')} row groups, {r.get('columns')} columns, {r.get('num_rows')} rows "
          f"(metadata from {r.get('metadata_source')})")
    print(f"  created_by: {r.get('created_by')}")


def _print_change(r: dict) -> None:
    status = r["status"]
    detail = ""
    if status == "decoded":
        detail = (f" ({r['alp_chunks_decoded']} ALP chunks to PLAIN, {r['private_alp_dropped']} private ALP chunks "
                  f"dropped, {_size(r['bytes_before'])} -> {_size(r['bytes_after'])})")
    elif status in ("added", "stripped", "unchanged", "migrated"):
        parts = [f"{r['from']} -> {r['to']}"] if r.get("to") else []
        if r.get("thrift_bytes") is not None:
            parts.append(f"thrift {_size(r.get('thrift_bytes'))}")
        if r.get("flatbuffer_bytes"):
            parts.append(f"flatbuffer {_size(r.get('flatbuffer_bytes'))}")
        if r.get("seconds") is not None:
            parts.append(f"{r['seconds']:.3f} s")
        if r.get("replace") == "object":
            parts.append("object store: new object written, then it replaced the old one")
        elif r.get("replace") in ("in-place", "delete-rename"):
            parts.append(f"{r['replace']}, not atomic")
        detail = " (" + ", ".join(parts) + ")"
        if r.get("source") and r["source"] != r["path"]:
            detail += f" from {r['source']}"
    elif r.get("message"):
        detail = f": {r['message']}"
    print(f"{status} {r['path']}{detail}")


def _print_verify(r: dict) -> None:
    reason = r.get("reason") or r.get("message")
    if reason is None and r.get("first_difference") is not None:
        reason = f"first difference at byte {r['first_difference']}"
    print(f"{r['status']} {r['path']}" + (f": {reason}" if reason else ""))


def _exit_code(command: str, results: List[dict]) -> int:
    statuses = {r["status"] for r in results}
    if statuses & _FAILED:
        return 1
    if command == "verify" and "absent" in statuses:
        return 2
    return 0


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m superspark.footer",
                                     description="Parquet FlatBuffers footer extension tools")
    sub = parser.add_subparsers(dest="command", required=True)
    for name, help_text in [("inspect", "show the footer and its extension"),
                            ("verify", "check CRCs and that the FlatBuffer matches the Thrift footer"),
                            ("roundtrip", "Thrift -> FlatBuffer -> Thrift: are the bytes the same?")]:
        p = sub.add_parser(name, help=help_text)
        p.add_argument("--json", action="store_true", help="print JSON")
        p.add_argument("paths", nargs="+", metavar="PATH")
    for name, help_text in [("add", "add the extension (rewrites only the footer)"),
                            ("strip", "remove the extension (byte-identical to before add)"),
                            ("alp-decode", "turn ALP chunks into PLAIN ones and drop private ALP data (docs/alp.md)")]:
        p = sub.add_parser(name, help=help_text)
        p.add_argument("--output", "-o", help="write here instead of over the file")
        if name != "alp-decode":
            p.add_argument("--unsafe-in-place", action="store_true", help=_UNSAFE_HELP)
        p.add_argument("--json", action="store_true", help="print JSON")
        p.add_argument("paths", nargs="+", metavar="PATH")
    p = sub.add_parser("migrate", help="rewrite the footer into another form (data pages untouched)")
    p.add_argument("--to", required=True, choices=FORMS, help="the footer form to write")
    p.add_argument("--output", "-o", help="write here instead of over the file")
    p.add_argument("--unsafe-in-place", action="store_true", help=_UNSAFE_HELP)
    p.add_argument("--json", action="store_true", help="print JSON")
    p.add_argument("paths", nargs="+", metavar="PATH")
    for name, help_text in [("add-table", "add the extension to a table's files, as a Spark job"),
                            ("strip-table", "remove the extension from a table's files, as a Spark job"),
                            ("migrate-table", "rewrite a table's footers into another form, as a Spark job")]:
        p = sub.add_parser(name, help=help_text + " (crash-safe, resumable; refuses Delta tables)")
        if name == "migrate-table":
            p.add_argument("--to", required=True, choices=FORMS, help="the footer form to write")
        p.add_argument("--master", default="local[*]", help="Spark master (default local[*])")
        p.add_argument("--json", action="store_true", help="print every file's result as JSON")
        p.add_argument("path", metavar="PATH", help="the table's folder (any Hadoop file system)")
    # Hadoop's generic option, anywhere on the line: -D key=value or -Dkey=value.
    rest, hadoop_conf = [], []
    argv = list(sys.argv[1:] if argv is None else argv)
    i = 0
    while i < len(argv):
        a = argv[i]
        if a == "-D" and i + 1 < len(argv) and "=" in argv[i + 1]:
            hadoop_conf.append(argv[i + 1])
            i += 2
            continue
        if a.startswith("-D") and "=" in a:
            hadoop_conf.append(a[2:])
        else:
            rest.append(a)
        i += 1
    try:
        args = parser.parse_args(rest)
    except SystemExit as e:
        return 64 if e.code else 0
    args.hadoop_conf = hadoop_conf
    if args.command.endswith("-table"):
        return _run_table_command(args)
    if _gateway is not None or _session_tool() is not None:
        for kv in hadoop_conf:
            set_hadoop_conf(*kv.split("=", 1))
    try:
        if _gateway is None and _session_tool() is None:
            # The command line as a user runs it: one call in a new JVM process.
            results = _run_tool_process(args.command, _paths(args.paths), getattr(args, "output", None),
                                        getattr(args, "to", None), getattr(args, "unsafe_in_place", False),
                                        hadoop_conf)
        elif args.command in ("add", "strip"):
            results = globals()[args.command](args.paths, output=args.output, unsafe_in_place=args.unsafe_in_place)
        elif args.command == "alp-decode":
            results = alp_decode(args.paths, output=args.output)
        elif args.command == "migrate":
            results = migrate(args.paths, to=args.to, output=args.output, unsafe_in_place=args.unsafe_in_place)
        else:
            results = globals()[args.command](args.paths)
    except (FileNotFoundError, ValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 64
    if args.json:
        print(json.dumps(results, indent=2))
    else:
        printer = {"inspect": _print_inspect, "verify": _print_verify,
                   "roundtrip": _print_verify}.get(args.command, _print_change)
        for r in results:
            printer(r)
        if not results:
            print("no Parquet files found", file=sys.stderr)
    return _exit_code(args.command, results)


if __name__ == "__main__":
    sys.exit(main())
