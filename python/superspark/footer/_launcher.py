"""The footer tool's JVM: the running SparkSession's (when it has the superspark jar), else a
plain JVM started once for the Python API (py4j's GatewayServer with the superspark jar and
pyspark's jars, no Spark), or one JVM process per command-line call (``FooterTool``'s
``main``, C1 only, with a class data sharing archive). See ``superspark.footer``'s docstring
and docs/parquet-footer.md, "Benchmark"."""

from __future__ import annotations

import json
import os
import sys
from typing import List, Optional, Sequence, Tuple

__all__ = ["FOOTER_TOOL", "tool", "session_tool", "tool_settings", "tool_classpath", "set_hadoop_conf",
           "run_tool_process", "has_gateway"]

_gateway = None

#: The ``-D`` settings of this process's footer commands (:func:`set_hadoop_conf`).
_hadoop_conf: dict = {}


#: The JVM object of the footer commands (the command line's ``main`` and the API's methods).
FOOTER_TOOL = "io.superspark.parquet.footer.tools.FooterTool"


def _jvm_object(jvm, name: str):
    """The py4j view of the JVM class ``name`` (a dotted name)."""
    obj = jvm
    for part in name.split("."):
        obj = getattr(obj, part)
    return obj


def _session_with_tool(name: str = FOOTER_TOOL):
    """The active SparkSession and the tool ``name`` in its JVM when it has the superspark jar, else None."""
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
            return session, tool
    return None


def session_tool(name: str = FOOTER_TOOL):
    """The tool ``name`` through the active SparkSession's JVM when it has the superspark jar, else None."""
    found = _session_with_tool(name)
    return found[1] if found is not None else None


def tool(name: str = FOOTER_TOOL):
    """The JVM tool object ``name``, through the active session's gateway or our own."""
    global _gateway
    tool = session_tool(name)
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
    conf_dir = os.environ.get("HADOOP_CONF_DIR")
    return [py4j[0], jar_path(), *_hadoop_classpath(), *first, os.path.join(jars, "*"), *([conf_dir] if conf_dir else [])]


def _hadoop_classpath() -> List[str]:
    """What Hadoop's own tools add before pyspark's jars: ``HADOOP_CLASSPATH`` (connector jars
    such as ``hadoop-aws`` and the AWS SDK; a folder of classes or settings too), as Hadoop reads
    it. ``HADOOP_CONF_DIR`` (its ``core-site.xml``: file system settings such as ``fs.s3a.*``)
    comes last on the class path, after every jar, as Spark's own launcher puts it: a folder
    there does not stop the class data archive (:func:`_class_data_usable`)."""
    extra = os.environ.get("HADOOP_CLASSPATH")
    return [e for e in extra.split(os.pathsep) if e] if extra else []


def _class_data_usable(classpath: List[str]) -> bool:
    """Whether the JVM can write and map a class data archive for ``classpath``: it refuses to
    write one ("Cannot have non-empty directory in paths") when a folder that is not empty comes
    before a jar a class is loaded from. Folders after the last jar (``HADOOP_CONF_DIR``, which
    holds settings, no classes) are fine; a folder anywhere else (one in ``HADOOP_CLASSPATH``)
    switches the archive off for that class path."""
    last_jar = max((i for i, e in enumerate(classpath) if not os.path.isdir(e)), default=-1)
    for e in classpath[:last_jar]:
        try:
            if os.path.isdir(e) and os.listdir(e):
                return False
        except OSError:
            return False
    return True


def _warn(message: str) -> None:
    """A warning of the launcher's own (its class data archive), on stderr: never the command's failure."""
    print(f"superspark-footer: warning: {message}", file=sys.stderr)


def set_hadoop_conf(key: str, value: str) -> None:
    """A Hadoop setting for the footer commands of this process (as ``-D key=value`` on the
    command line), over ``core-site.xml`` and, through a SparkSession, the session's."""
    _hadoop_conf[key] = value


def tool_settings():
    """The settings one footer command of the API runs with (``FooterTool.settings``, a JVM
    object made per call): the settings of :func:`set_hadoop_conf` over, when the tool runs in
    the active SparkSession's JVM, the session's Hadoop configuration (its ``spark.hadoop.*``
    settings: s3a credentials, ...)."""
    from py4j.java_collections import ListConverter

    found = _session_with_tool()
    footer, base = (found[1], found[0]._jsc.hadoopConfiguration()) if found is not None else (tool(), None)
    pairs = ListConverter().convert([f"{k}={v}" for k, v in _hadoop_conf.items()], footer._gateway_client)
    return footer.settings(pairs, base)


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
    if not _class_data_usable(classpath):
        return None
    key = hashlib.sha256()
    binary = shutil.which(java) or java
    # the folders (after the last jar) hold no archived class: left out of the key, so that one
    # archive serves the same jars with or without HADOOP_CONF_DIR
    for entry in [os.path.realpath(binary), *(e for e in classpath if not os.path.isdir(e))]:
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


def run_tool_process(command: str, paths: List[str], output: Optional[str] = None,
                     to: Optional[str] = None, unsafe_in_place: bool = False,
                     hadoop_conf: Sequence[str] = (), abort_older_than: Optional[str] = None) -> List[dict]:
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
            *(["--abort-older-than", abort_older_than] if abort_older_than is not None else []),
            *[a for kv in hadoop_conf for a in ("-D", kv)], *paths]
    debug = os.environ.get("SUPERSPARK_FOOTER_DEBUG")
    try:
        p = subprocess.run([java, _jvm_memory(), "-XX:TieredStopAtLevel=1", *_jvm_logging(), *cds,
                            "-cp", os.pathsep.join(classpath),
                            "io.superspark.parquet.footer.tools.FooterTool", *args],
                           stdout=subprocess.PIPE, stderr=None if debug else subprocess.PIPE, text=True)
        # FooterTool prints its JSON array as the last thing its main does, then returns: with
        # that line printed the command is done, and a JVM that then fails at exit failed writing
        # the class data archive, the launcher's own cache (a warning, not the command's failure)
        result = _result_line(p.stdout)
        if tmp is not None and result is not None:
            if p.returncode != 0:
                _warn(f"class data archive not written (the JVM exited with {p.returncode} after the command: "
                      f"{_jvm_exit_message(p.stdout)}); the command's result stands")
            elif os.path.exists(tmp):
                try:
                    os.replace(tmp, archive)
                except OSError as e:
                    _warn(f"class data archive not kept ({e}); the command's result stands")
    finally:
        if tmp is not None and os.path.exists(tmp):
            try:
                os.remove(tmp)
            except OSError as e:
                _warn(f"temporary class data archive {tmp} not removed ({e})")
    if result is None or (p.returncode != 0 and tmp is None):
        raise RuntimeError(f"footer tool JVM exited with {p.returncode}: {(p.stderr or '').strip()[-2000:]}"
                           f"{(p.stdout or '').strip()[-1000:]}")
    return result


def _result_line(stdout: str):
    """The command's JSON array (the last line of stdout that is one), or None."""
    for line in reversed((stdout or "").splitlines()):
        if line.startswith("["):
            try:
                out = json.loads(line)
            except ValueError:
                continue
            if isinstance(out, list):
                return out
    return None


def _jvm_exit_message(stdout: str) -> str:
    """What the JVM printed after the command's JSON line (its own error at exit), on one line."""
    lines = (stdout or "").splitlines()
    tail = []
    for line in reversed(lines):
        if line.startswith("["):
            break
        tail.append(line.strip())
    return " ".join(reversed(tail)).strip() or "no message"


def has_gateway() -> bool:
    """Whether this process already talks to a footer tool JVM (its own or a session's)."""
    return _gateway is not None or session_tool() is not None
