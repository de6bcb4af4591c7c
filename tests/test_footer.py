"""The footer tools' Python API and CLI: directories, idempotence, exit codes, bad files."""

import json
import os
import shutil
import subprocess
import sys

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from bsup_util import uvarint  # LEB128, the same varint the footer spec uses
from superspark import footer

UUID = "bb020e68-d327-4698-a215-465ff5dc7e44"


def _cli(*args):
    """Runs the CLI in this process (same JVM) and returns (exit code, stdout)."""
    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = footer.main(list(args))
    return code, out.getvalue()


@pytest.fixture
def spark_dir(spark, tmp_path):
    d = str(tmp_path / "table")
    spark.range(3000).selectExpr("id", "CAST(id AS STRING) AS s", "id % 7 AS k") \
        .repartition(3).write.option("parquet.block.size", 8192).parquet(d)
    return d


def _data_files(d):
    return sorted(f for f in os.listdir(d) if f.endswith(".parquet"))


def test_directory_add_then_spark_reads_it_through_new_checksum_files(spark, spark_dir):
    expected = sorted(spark.read.parquet(spark_dir).collect())
    assert any(f.endswith(".crc") for f in os.listdir(spark_dir))
    crcs = {f: open(os.path.join(spark_dir, f".{f}.crc"), "rb").read() for f in _data_files(spark_dir)}
    results = footer.add(spark_dir)
    assert len(results) == 3 and {r["status"] for r in results} == {"added"}
    assert {r["replace"] for r in results} == {"rename"}
    # Each rewritten file got a new Hadoop checksum file, which Spark's local file system checks as it reads.
    for f in _data_files(spark_dir):
        crc = open(os.path.join(spark_dir, f".{f}.crc"), "rb").read()
        assert crc[:4] == b"crc\0" and crc != crcs[f]
    assert not [f for f in os.listdir(spark_dir) if "superspark-rewrite" in f]
    assert sorted(spark.read.parquet(spark_dir).collect()) == expected
    assert {r["status"] for r in footer.verify(spark_dir)} == {"valid"}
    assert {r["status"] for r in footer.add(spark_dir)} == {"unchanged"}
    inspected = footer.inspect(spark_dir)
    assert [os.path.basename(r["path"]) for r in inspected] == _data_files(spark_dir)
    assert all(r["uuid"] == UUID and r["row_groups"] >= 1 for r in inspected)
    assert sum(r["num_rows"] for r in inspected) == 3000


def test_output_directory_mirrors_inputs(spark_dir, tmp_path):
    out = str(tmp_path / "out")
    results = footer.add(spark_dir, output=out)
    assert {r["status"] for r in results} == {"added"}
    assert _data_files(out) == _data_files(spark_dir)
    stripped = str(tmp_path / "stripped")
    footer.strip(out, output=stripped)
    for f in _data_files(spark_dir):
        with open(os.path.join(spark_dir, f), "rb") as a, open(os.path.join(stripped, f), "rb") as b:
            assert a.read() == b.read()


def test_cli_exit_codes_and_json(tmp_path):
    f = str(tmp_path / "t.parquet")
    pq.write_table(pa.table({"a": list(range(100)), "b": [str(i) for i in range(100)]}), f,
                   row_group_size=30)
    code, out = _cli("verify", f)
    assert code == 2 and out.startswith("absent ")
    code, out = _cli("add", f)
    assert code == 0 and out.startswith("added ")
    code, out = _cli("verify", f)
    assert code == 0 and out.startswith("valid ")
    code, out = _cli("inspect", "--json", f)
    [r] = json.loads(out)
    assert code == 0 and r["status"] == "present" and r["row_groups"] == 4 and r["columns"] == 2
    assert r["size_crc"] == "ok" and r["flatbuffer_crc"] == "ok" and r["structure"] == "ok"
    code, out = _cli("inspect", f)
    assert "extension present" in out and UUID in out and "4 row groups, 2 columns, 100 rows" in out

    # Damage one FlatBuffer byte: inspect and verify report it, readers still work.
    size = os.path.getsize(f)
    with open(f, "r+b") as fh:
        fh.seek(size - 8 - r["footer_bytes"] + r["thrift_bytes"] + 10)
        byte = fh.read(1)
        fh.seek(-1, 1)
        fh.write(bytes([byte[0] ^ 0xFF]))
    code, out = _cli("verify", f)
    assert code == 1 and out.startswith("corrupt ") and "flatbuffer_crc_mismatch" in out
    [bad] = footer.inspect(f)
    assert bad["status"] == "corrupt" and bad["metadata_source"] == "thrift" and bad["row_groups"] == 4
    assert pq.read_table(f).num_rows == 100


def test_errors_are_reported_per_file(tmp_path):
    good = str(tmp_path / "good.parquet")
    pq.write_table(pa.table({"a": [1, 2, 3]}), good)
    junk = str(tmp_path / "junk.parquet")
    with open(junk, "wb") as fh:
        fh.write(b"not a parquet file at all")
    results = footer.add(good, junk)
    assert [r["status"] for r in results] == ["added", "error"]
    assert "no PAR1 or PAR3 magic" in results[1]["message"] and junk in results[1]["message"]
    code, _ = _cli("add", junk)
    assert code == 1
    assert _cli("inspect", str(tmp_path / "missing.parquet"))[0] == 64
    assert _cli("frobnicate", good)[0] == 64


def test_module_runs_as_a_program(tmp_path):
    f = str(tmp_path / "t.parquet")
    pq.write_table(pa.table({"a": [1, 2, 3]}), f)
    p = subprocess.run([sys.executable, "-m", "superspark.footer", "verify", f],
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 2 and p.stdout.startswith("absent "), p.stdout + p.stderr


def test_tool_jvm_is_plain_py4j_and_the_cli_migrates_through_every_form(tmp_path):
    """Without a SparkSession the tool runs in py4j's GatewayServer (no spark-submit, no
    SparkContext); the command line's JVM (C1 only) reads Thrift footers (parquet-java needs
    Hadoop's configuration classes) and round-trips a file through every form."""
    f = str(tmp_path / "t.parquet")
    pq.write_table(pa.table({"a": [1, 2, 3], "s": ["x", "y", None]}), f)
    original = open(f, "rb").read()
    probe = ("import json, sys\nfrom superspark import footer\n[r] = footer.inspect(sys.argv[1])\n"
             "from superspark.footer import _launcher\njvm = _launcher._gateway.jvm\n"
             "print(json.dumps([r['form'], r['metadata_source'], jvm.java.lang.System.getProperty('sun.java.command'),"
             " str(jvm.java.lang.management.ManagementFactory.getRuntimeMXBean().getInputArguments())]))")
    p = subprocess.run([sys.executable, "-c", probe, f], capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    form, source, command, jvm_args = json.loads(p.stdout)
    assert (form, source) == ("plain", "thrift")
    assert command.startswith("py4j.GatewayServer") and "SparkSubmit" not in command
    assert "-XX:TieredStopAtLevel=1" not in jvm_args  # the Python API keeps C2
    for to in ("private", "intermediate", "final", "plain"):
        p = subprocess.run([sys.executable, "-m", "superspark.footer", "migrate", "--to", to, "--json", f],
                           capture_output=True, text=True, timeout=300)
        assert p.returncode == 0, p.stdout + p.stderr
        [r] = json.loads(p.stdout)
        assert (r["status"], r["to"]) == ("migrated", to), r
    assert open(f, "rb").read() == original


def test_cli_writes_then_maps_a_class_data_archive(tmp_path):
    """The command line's JVM writes its class data archive on first use (renamed into place,
    no temporary file left), maps it on later calls, and gives the same results either way;
    SUPERSPARK_FOOTER_CDS=off writes none."""
    f = str(tmp_path / "t.parquet")
    pq.write_table(pa.table({"a": [1, 2, 3]}), f)
    cache = tmp_path / "cache"
    env = dict(os.environ, SUPERSPARK_CACHE_DIR=str(cache))

    def inspect(e):
        p = subprocess.run([sys.executable, "-m", "superspark.footer", "inspect", "--json", f],
                           capture_output=True, text=True, timeout=300, env=e)
        assert p.returncode == 0, p.stdout + p.stderr
        [r] = json.loads(p.stdout)
        return {k: r[k] for k in ("status", "form", "num_rows", "columns", "footer_bytes")}

    first = inspect(env)
    assert first == {"status": "absent", "form": "plain", "num_rows": 3, "columns": 1,
                     "footer_bytes": first["footer_bytes"]}
    archives = os.listdir(cache)
    assert len(archives) == 1 and archives[0].startswith("footer-tool-") and archives[0].endswith(".jsa"), archives
    assert os.path.getsize(cache / archives[0]) > 1_000_000
    assert inspect(env) == first
    assert os.listdir(cache) == archives
    off = tmp_path / "off"
    assert inspect(dict(env, SUPERSPARK_CACHE_DIR=str(off), SUPERSPARK_FOOTER_CDS="off")) == first
    assert not off.exists() or not os.listdir(off)


def _conf_folder(path, **settings):
    """A Hadoop configuration folder as a client machine has one: a core-site.xml with `settings`."""
    path.mkdir()
    props = "".join(f"<property><name>{k}</name><value>{v}</value></property>" for k, v in settings.items())
    (path / "core-site.xml").write_text(f'<?xml version="1.0"?>\n<configuration>{props}</configuration>\n')
    return str(path)


def _cli_process(env, *args):
    """`python -m superspark.footer ARGS --json` in a new process: (exit code, results, stderr)."""
    p = subprocess.run([sys.executable, "-m", "superspark.footer", *args[:1], "--json", *args[1:]],
                       capture_output=True, text=True, timeout=300, env=env)
    assert p.stdout.strip(), p.stderr[-3000:]
    return p.returncode, json.loads(p.stdout), p.stderr


def test_cli_with_hadoop_conf_dir_reads_its_settings_and_keeps_the_class_data_archive(tmp_path):
    """Issue 40: with HADOOP_CONF_DIR set (a folder with a core-site.xml, as on a Hadoop client), the
    command's JVM, writing its class data archive at exit, refused the folder on the class path
    ("Cannot have non-empty directory in paths") and every command failed after doing its work. The
    folder now comes after the jars (as Spark's launcher puts it): the command works, its setting
    is read (`superspark.footer.replace`, which the result reports; the default is `rename`), the
    archive is written on the first call (a fresh cache) and mapped on the next."""
    f = str(tmp_path / "t.parquet")
    pq.write_table(pa.table({"a": [1, 2, 3]}), f)
    cache = tmp_path / "cache"
    env = dict(os.environ, SUPERSPARK_CACHE_DIR=str(cache),
               HADOOP_CONF_DIR=_conf_folder(tmp_path / "conf", **{"superspark.footer.replace": "delete-rename"}))
    env.pop("HADOOP_CLASSPATH", None)
    code, [r], err = _cli_process(env, "add", f)
    assert code == 0 and (r["status"], r["replace"]) == ("added", "delete-rename"), (r, err)
    assert "warning" not in err, err
    archives = os.listdir(cache)
    assert len(archives) == 1 and archives[0].endswith(".jsa"), archives
    code, [r], err = _cli_process(env, "verify", f)
    assert code == 0 and r["status"] == "valid" and "warning" not in err, (r, err)
    assert os.listdir(cache) == archives
    # without the folder, the same jars: the same archive, and the default setting
    code, [r], _ = _cli_process({k: v for k, v in env.items() if k != "HADOOP_CONF_DIR"}, "strip", f)
    assert code == 0 and (r["status"], r["replace"]) == ("stripped", "rename"), r
    assert os.listdir(cache) == archives


def test_cli_with_a_folder_in_hadoop_classpath_runs_without_the_archive(tmp_path):
    """HADOOP_CLASSPATH as `hadoop classpath` prints it: a configuration folder before jars. The JVM
    cannot write an archive for a class path with a folder before a jar, so the launcher writes none
    for it; the command works and reads the folder's setting."""
    import superspark

    f = str(tmp_path / "t.parquet")
    pq.write_table(pa.table({"a": [1, 2, 3]}), f)
    cache = tmp_path / "cache"
    folder = _conf_folder(tmp_path / "etc-hadoop", **{"superspark.footer.replace": "delete-rename"})
    env = dict(os.environ, SUPERSPARK_CACHE_DIR=str(cache), HADOOP_CLASSPATH=os.pathsep.join([folder, superspark.jar_path()]))
    env.pop("HADOOP_CONF_DIR", None)
    code, [r], err = _cli_process(env, "add", f)
    assert code == 0 and (r["status"], r["replace"]) == ("added", "delete-rename"), (r, err)
    assert not cache.exists() or not os.listdir(cache)


def test_cli_reports_a_failed_class_data_archive_as_a_warning(tmp_path):
    """The launcher's own cache never fails a command that succeeded: here the archive is asked for
    against a class path the JVM refuses (a folder before the jars; the launcher's check forced off),
    the JVM exits 1 after the command printed its results, and the command line exits 0 with the
    results and a warning."""
    f = str(tmp_path / "t.parquet")
    pq.write_table(pa.table({"a": [1, 2, 3]}), f)
    cache = tmp_path / "cache"
    folder = _conf_folder(tmp_path / "etc-hadoop", **{"superspark.footer.replace": "delete-rename"})
    probe = ("import sys\nfrom superspark.footer import _launcher, _cli\n"
             "_launcher._class_data_usable = lambda classpath: True\n"
             "sys.exit(_cli.main(sys.argv[1:]))")
    env = dict(os.environ, SUPERSPARK_CACHE_DIR=str(cache), HADOOP_CLASSPATH=folder)
    env.pop("HADOOP_CONF_DIR", None)
    p = subprocess.run([sys.executable, "-c", probe, "add", "--json", f], capture_output=True, text=True,
                       timeout=300, env=env)
    assert p.returncode == 0, p.stdout + p.stderr
    [r] = json.loads(p.stdout)
    assert (r["status"], r["replace"]) == ("added", "delete-rename"), r
    assert "warning: class data archive not written" in p.stderr and "non-empty directory" in p.stderr, p.stderr
    assert os.listdir(cache) == [], os.listdir(cache)  # no archive, no temporary file
    assert {x["status"] for x in footer.verify(f)} == {"valid"}


def test_cli_start_imports_no_pyspark_and_binds_the_nop_logger():
    """The command line finds pyspark's jars without importing the pyspark package (its
    ``__init__`` imports most of PySpark), in the folder pyspark's own lookup gives; the tool
    JVM binds SLF4J's no-operation provider by name, unless SUPERSPARK_FOOTER_DEBUG is set."""
    from pyspark.find_spark_home import _find_spark_home

    probe = ("import json, sys\nfrom superspark import footer\ncp = footer.tool_classpath()\n"
             "from superspark.footer import _launcher\n"
             "print(json.dumps([cp, 'pyspark' in sys.modules, _launcher._jvm_logging()]))")
    env = {k: v for k, v in os.environ.items() if k != "SUPERSPARK_FOOTER_DEBUG"}
    p = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=300, env=env)
    assert p.returncode == 0, p.stderr
    classpath, imported, logging = json.loads(p.stdout)
    assert imported is False
    assert classpath[-1] == os.path.join(_find_spark_home(), "jars", "*")
    assert os.path.basename(classpath[0]).startswith("py4j-")
    assert logging == ["-Dslf4j.provider=org.slf4j.helpers.NOP_FallbackServiceProvider",
                       "-Dslf4j.internal.verbosity=WARN"]
    p = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=300,
                       env=dict(env, SUPERSPARK_FOOTER_DEBUG="1"))
    assert json.loads(p.stdout)[2] == []


def test_cli_add_and_migrate_of_a_footer_checked_on_two_threads(tmp_path):
    """A footer over 1 MiB (600 columns x 20 row groups, written by pyarrow): the command line
    checks its rebuild by ranges of row groups on two threads (FooterFiles.ParallelRebuildMinBytes);
    the extension verifies, strip gives the original bytes back, final -> plain too."""
    f = str(tmp_path / "wide.parquet")
    table = pa.table({f"c{i}": pa.array([float(i), None] * 20 if i % 2 else [f"v{i}", "w"] * 20)
                      for i in range(600)})
    pq.write_table(table, f, row_group_size=2)
    original = open(f, "rb").read()
    assert int.from_bytes(original[-8:-4], "little") > 1 << 20

    def cli(*args):
        p = subprocess.run([sys.executable, "-m", "superspark.footer", *args, "--json", f],
                           capture_output=True, text=True, timeout=300)
        assert p.returncode in (0, 2), p.stdout + p.stderr
        [r] = json.loads(p.stdout)
        return r

    r = cli("add")
    assert r["status"] == "added" and r["flatbuffer_bytes"] > r["thrift_bytes"] > 1 << 20, r
    assert cli("verify")["status"] == "valid"
    assert cli("strip")["status"] == "stripped"
    assert open(f, "rb").read() == original
    assert cli("migrate", "--to", "final")["status"] == "migrated"
    assert cli("migrate", "--to", "plain")["status"] == "migrated"
    assert open(f, "rb").read() == original


REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GENERATED = os.path.join(REPO, "jvm", "src", "main", "java", "io", "superspark", "parquet", "footer", "fbs")


def test_generated_classes_target_the_runtime_version():
    sources = [os.path.join(GENERATED, f) for f in os.listdir(GENERATED)]
    assert len(sources) >= 25
    text = "".join(open(f).read() for f in sources)
    assert "FLATBUFFERS_2_0_8" not in text
    call = "io.superspark.parquet.footer.codec.FlatBuffersRuntime.validateVersion()"
    assert text.count(call) == text.count("ValidateVersion()") > 0
    # Each line's FlatBuffersRuntime checks the flatbuffers-java that line's pyspark ships.
    for folder, runtime in (("spark-4.0", "24_3_25"), ("spark-4.1-4.3", "25_2_10")):
        path = os.path.join(REPO, "jvm", "src", "main", folder, "scala", "io", "superspark", "parquet", "footer", "codec",
                            "FlatBuffersRuntime.scala")
        assert f"Constants.FLATBUFFERS_{runtime}()" in open(path).read(), path


@pytest.mark.skipif(shutil.which("flatc") is None, reason="flatc (Debian flatbuffers-compiler) not installed")
def test_generated_classes_match_the_schema(tmp_path):
    subprocess.run([os.path.join(REPO, "dev", "gen-footer-fbs.sh"), str(tmp_path)], check=True,
                   capture_output=True, timeout=120)
    fresh = os.path.join(str(tmp_path), "io", "superspark", "parquet", "footer", "fbs")
    assert sorted(os.listdir(fresh)) == sorted(os.listdir(GENERATED))
    for f in os.listdir(fresh):
        with open(os.path.join(fresh, f)) as a, open(os.path.join(GENERATED, f)) as b:
            assert a.read() == b.read(), f


def _split(data):
    import struct

    assert data[-4:] == b"PAR1"
    (n,) = struct.unpack("<I", data[-8:-4])
    return data[:-8 - n], data[-8 - n:-8]


def test_add_writes_the_spec_layout_checked_independently(tmp_path):
    import struct
    import uuid
    import zlib

    src = str(tmp_path / "src.parquet")
    pq.write_table(pa.table({"a": list(range(1000)), "s": [f"v{i}" for i in range(1000)]}), src,
                   row_group_size=100)
    dst = str(tmp_path / "dst.parquet")
    footer.add(src, output=dst)
    original, new = open(src, "rb").read(), open(dst, "rb").read()
    body, thrift = _split(original)
    body2, ext_footer = _split(new)
    assert body2 == body  # data pages untouched
    assert ext_footer[-1] == 0
    assert uuid.UUID(bytes=ext_footer[-17:-1]) == uuid.UUID(UUID)
    fb_crc, k, k_crc = struct.unpack("<III", ext_footer[-29:-17])
    assert k_crc == zlib.crc32(struct.pack("<I", k))
    fb = ext_footer[-29 - k:-29]
    assert fb_crc == zlib.crc32(fb)
    header = b"\x08\xff\xff\x01" + uvarint(k + 28)
    prefix_len = len(ext_footer) - 29 - k - len(header)
    assert ext_footer[prefix_len:prefix_len + len(header)] == header
    assert ext_footer[:prefix_len] + b"\x00" == thrift


def test_add_refuses_a_foreign_field_32767_extension(tmp_path):
    import struct

    f = str(tmp_path / "foreign.parquet")
    pq.write_table(pa.table({"a": [1, 2, 3]}), f)
    body, thrift = _split(open(f, "rb").read())
    payload = b"someone else's extension" + bytes(16)
    new = thrift[:-1] + b"\x08\xff\xff\x01" + uvarint(len(payload)) + payload + b"\x00"
    with open(f, "wb") as fh:
        fh.write(body + new + struct.pack("<I", len(new)) + b"PAR1")
    assert pq.read_table(f).column("a").to_pylist() == [1, 2, 3]  # other readers skip it
    [r] = footer.add(f)
    assert r["status"] == "refused" and "field-32767" in r["message"], r
    [i] = footer.inspect(f)
    assert i["status"] == "absent" and i["row_groups"] == 1


def test_damaged_extension_is_repaired_by_add_and_removed_by_strip(tmp_path):
    orig = str(tmp_path / "orig.parquet")
    pq.write_table(pa.table({"a": list(range(500))}), orig, row_group_size=100)
    f = str(tmp_path / "f.parquet")
    footer.add(orig, output=f)
    [r] = footer.inspect(f)
    data = bytearray(open(f, "rb").read())
    # Flip a byte inside the FlatBuffer: CRC mismatch, sizes intact.
    data[len(data) - 8 - r["footer_bytes"] + r["thrift_bytes"] + 20] ^= 0x55
    open(f, "wb").write(bytes(data))
    assert footer.verify(f)[0]["status"] == "corrupt"
    damaged = bytes(data)
    [a] = footer.add(f)
    assert a["status"] == "added" and footer.verify(f)[0]["status"] == "valid"
    open(f, "wb").write(damaged)
    [s] = footer.strip(f)
    assert s["status"] == "stripped"
    assert open(f, "rb").read() == open(orig, "rb").read()
