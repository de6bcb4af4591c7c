"""Super Binary versions 0 and 5 through Spark: the files SuperDB's CLIs wrote
(../shared/interop/superdb, read in place), the `version` write option, named types across
streams, and types that are exponential as trees."""

import glob
import os
import time

import pytest
from pyspark.errors import PySparkException
from pyspark.sql import Row
from pyspark.sql import functions as F
from pyspark.sql import types as T

from shared_data import SUPERDB_MISSING, superdb_evidence
from bsup_util import EOS, INT64, STRING, frame, name, record_typedef, tagged, uvarint


def evidence_dir():
    d = superdb_evidence()
    if d is None:
        pytest.fail(SUPERDB_MISSING, pytrace=False)
    return d


EVIDENCE = evidence_dir()
SAME_INPUT = ["primitives", "complex", "heterogeneous"]


def cases(v):
    return sorted(os.path.basename(p)[: -len(".expected.sup")] for p in glob.glob(f"{EVIDENCE}/v{v}/*.expected.sup"))


def variants(v, c):
    return sorted(glob.glob(f"{EVIDENCE}/v{v}/{c}.*bsup"))


def expected_values(v, c):
    with open(f"{EVIDENCE}/v{v}/{c}.expected.sup") as f:
        return [l for l in f.read().splitlines() if l and not l.startswith("type ")]


def read(spark, path, **opts):
    return spark.read.format("bsup").options(**opts).load(path)


@pytest.mark.parametrize("v", [0, 5])
def test_evidence_files_read_through_the_data_source(spark, v):
    found = cases(v)
    # SuperDB's files hold at least the cases both versions share; none found is a failure.
    assert set(SAME_INPUT) <= set(found), (v, found)
    for c in found:
        files = variants(v, c)
        assert files, c
        first = read(spark, files[0], mode="FAILFAST")
        rows = first.collect()
        assert len(rows) == len(expected_values(v, c)), c
        # The values, not only the count: the columnar reader (the default) against the row reader,
        # two paths from the bytes to Spark's values; SuperDB's own values are compared in
        # BsupSuperdbSuite, and v0 against v5 below.
        spark.conf.set("spark.superspark.bsup.vectorized.enabled", "false")
        try:
            by_rows = read(spark, files[0], mode="FAILFAST").collect()
        finally:
            spark.conf.unset("spark.superspark.bsup.vectorized.enabled")
        assert by_rows == rows, (v, c)
        for f in files[1:]:
            df = read(spark, f, mode="FAILFAST")
            assert df.schema == first.schema and df.collect() == rows, f


def test_evidence_same_input_same_rows_and_types_in_both_versions(spark):
    for c in SAME_INPUT:
        d0 = read(spark, f"{EVIDENCE}/v0/{c}.bsup", mode="FAILFAST")
        d5 = read(spark, f"{EVIDENCE}/v5/{c}.bsup", mode="FAILFAST")
        # Equal columns and Super types; only the v5 columns record their version.
        def cols(df):
            return [(f.name, f.dataType, f.metadata.get("super.type")) for f in df.schema.fields]
        assert cols(d5) == cols(d0), c
        assert {f.metadata.get("super.version") for f in d5.schema.fields} == {5}
        assert d5.collect() == d0.collect(), c


def test_evidence_v5_unions_nulls_and_named_types(spark):
    nulls = read(spark, f"{EVIDENCE}/v5/nulls.bsup", mode="FAILFAST")
    # Top-level values of several kinds: one `value` union column; its record member merges the
    # records, and T|null inside is a nullable T column, not a union struct.
    value = nulls.schema["value"].dataType
    rec = next(f.dataType for f in value.fields if f.name.startswith("{"))
    types = {f.name: f.dataType for f in rec.fields}
    assert types["n"] == T.LongType() and types["s"] == T.StringType()
    assert types["r"] == T.StructType([T.StructField("x", T.LongType())])
    assert types["arr"] == T.ArrayType(T.LongType())
    got = [r.value for r in nulls.collect()]
    rec_name = next(f.name for f in value.fields if f.name.startswith("{"))
    r3, r4 = getattr(got[3], rec_name), getattr(got[4], rec_name)
    assert got[0] is None and r3.n is None and r3.r is None and r4.arr == [None, 1]
    arr = next(f.name for f in value.fields if f.name.startswith("["))
    assert getattr(got[2], arr) == [1, None, 3]
    named = read(spark, f"{EVIDENCE}/v5/named.bsup", mode="FAILFAST").collect()
    # A name used again with forward type ids: each value lands in its named member.
    assert [getattr(r.value, "port=uint16") for r in named[:2]] == [80, 8080]
    assert getattr(named[2].value, "{src:port=uint16,dst:port=uint16}") == Row(src=80, dst=443)
    assert getattr(named[6].value, "flip=enum(HEADS,TAILS)") == "HEADS"
    assert getattr(named[8].value, "myerr=error(string)") == "boom"


def test_evidence_cells_through_sb_functions(spark):
    for c in SAME_INPUT:
        cells = [open(f"{EVIDENCE}/v{v}/{c}.bsup", "rb").read() for v in (0, 5)]
        df = spark.createDataFrame([(cells[0], cells[1])], "c0 binary, c5 binary")
        r = df.select(F.to_json(F.expr("sb_decode_all(c0)")).alias("j0"),
                      F.to_json(F.expr("sb_decode_all(c5)")).alias("j5")).first()
        assert r.j0 == r.j5 and r.j0.startswith("["), c
    cell = open(f"{EVIDENCE}/v5/complex.nocomp.bsup", "rb").read()
    df = spark.createDataFrame([(cell,)], "b binary")
    sup = df.select(F.expr("sb_to_sup(b)")).first()[0].splitlines()
    want = expected_values(5, "complex")
    # Lines whose decorations the CLI places as we do are equal; all are in version 5 syntax.
    assert sup[:14] == want[:14] and sup[6] == "set[1,2,3]"


def test_sb_typeof_and_sb_to_sup_print_the_syntax_of_the_cell_version(spark):
    r = spark.sql("""SELECT sb_typeof(sb_encode(map('k', 1L))) AS t0,
                            sb_typeof(sb_encode(map('k', 1L), map('version', '5'))) AS t5,
                            sb_to_sup(sb_encode(map('k', 1L), map('version', '5'))) AS s5,
                            hex(sb_encode(1L, map('version', '5'))) AS h5,
                            hex(sb_encode(1L)) AS h0,
                            sb_decode(sb_encode(named_struct('a', 1L), map('version', '5')), 'a BIGINT') AS d5""").first()
    assert (r.t0, r.t5, r.s5) == ("|{string:int64}|", "map{string:int64}", 'map{"k":1}')
    assert (r.h5, r.h0) == ("85130009028502FF"[:4] + r.h5[4:], "1300090202FF")
    assert r.h5.startswith("8513") and r.h5.endswith("FF") and r.d5 == Row(a=1)
    with pytest.raises(PySparkException, match="version"):
        spark.sql("SELECT sb_encode(1L, map('version', '3'))").collect()


def _plain(x):
    if isinstance(x, Row):
        return tuple(_plain(v) for v in x)
    if isinstance(x, list):
        return [_plain(v) for v in x]
    if isinstance(x, dict):
        return sorted((str(_plain(k)), _plain(v)) for k, v in x.items())
    return x


@pytest.mark.parametrize("version", [0, 5])
def test_write_version_round_trip(spark, tmp_path, version):
    src = read(spark, f"{EVIDENCE}/v5/complex.bsup", mode="FAILFAST")
    rows = src.collect()
    out = str(tmp_path / f"v{version}")
    # complex.bsup has a multi-type union column (a record or an array) with nulls: at version 5
    # the union gets a `null` member (SuperDB's order puts it first), so the default
    # (superdbReadable) write succeeds and SuperDB reads those nulls as nulls.
    src.write.format("bsup").option("version", str(version)).option("compression", "none").save(out)
    files = glob.glob(out + "/*.bsup")
    assert files
    first = open(files[0], "rb").read(1)[0]
    assert (first == 0x85) if version == 5 else (first & 0x80) == 0
    back = read(spark, out, mode="FAILFAST")
    # Inferred: the same values (at version 5 the union's members are in SuperDB's order and the
    # slots inside them unions with null, so the union struct's fields are ordered and named anew).
    assert len(back.collect()) == len(rows)
    if version == 0:
        assert sorted(map(str, map(_plain, back.collect()))) == sorted(map(str, map(_plain, rows)))
    # With the source's schema: the same rows (union members found by their type).
    again = spark.read.format("bsup").schema(src.schema).option("mode", "FAILFAST").load(out)
    assert sorted(map(str, again.collect())) == sorted(map(str, rows))
    with pytest.raises(Exception, match="version"):
        src.write.format("bsup").option("version", "4").save(str(tmp_path / "bad"))


def test_column_metadata_keeps_the_version_and_a_write_restores_it(spark, tmp_path):
    for v in (0, 5):
        src = read(spark, f"{EVIDENCE}/v{v}/complex.bsup", mode="FAILFAST")
        kept = {f.metadata.get("super.version") for f in src.schema.fields}
        assert kept == ({5} if v == 5 else {None})
        out = str(tmp_path / f"kept{v}")
        # no version option (superdbReadable=false: see test_write_version_round_trip)
        src.write.format("bsup").option("superdbReadable", "false").save(out)
        first = open(glob.glob(out + "/*.bsup")[0], "rb").read(1)[0]
        assert (first == 0x85) if v == 5 else (first & 0x80) == 0
        # An explicit option wins over the metadata.
        out0 = str(tmp_path / f"explicit{v}")
        src.write.format("bsup").option("version", "0").save(out0)
        assert open(glob.glob(out0 + "/*.bsup")[0], "rb").read(1)[0] & 0x80 == 0


def test_named_and_plain_types_meet_in_one_column_across_streams(spark, tmp_path):
    # Stream 1: {id:1}; stream 2: {id:"a"::(id=string)}; stream 3: {id:"b"} (plain string).
    s1 = frame(0, record_typedef([("id", INT64)])) + frame(1, uvarint(30) + tagged(tagged(b"\x02"))) + EOS
    named = b"\x07" + name("id") + uvarint(STRING) + record_typedef([("id", 30)])
    s2 = frame(0, named) + frame(1, uvarint(31) + tagged(tagged(b"a"))) + EOS
    s3 = frame(0, record_typedef([("id", STRING)])) + frame(1, uvarint(30) + tagged(tagged(b"b"))) + EOS
    path = str(tmp_path / "names.bsup")
    open(path, "wb").write(s1 + s2 + s3)
    schema = "id struct<selector:int, int64:bigint, `id=string`:string>"
    rows = spark.read.format("bsup").schema(schema).option("mode", "FAILFAST").load(path).collect()
    assert [r.id for r in rows] == [Row(selector=0, int64=1, **{"id=string": None}),
                                    Row(selector=1, int64=None, **{"id=string": "a"}),
                                    Row(selector=1, int64=None, **{"id=string": "b"})]
    inferred = read(spark, path, mode="FAILFAST")
    assert len(inferred.collect()) == 3


def dag_file(levels=24):
    # Type i refers twice to type i-1: 585 bytes on the wire, 2^24 nodes as a tree.
    types = record_typedef([("a", INT64), ("b", STRING)])
    for i in range(1, levels):
        prev = 30 + 2 * i - 2
        types += b"\x01" + uvarint(prev) + record_typedef([("a", prev), ("b", prev + 1)])
    return frame(0, types) + frame(1, uvarint(30 + 2 * levels - 2) + b"\x00") + EOS


def test_types_exponential_as_trees_fail_fast_and_clearly(spark, tmp_path):
    data = dag_file()
    path = str(tmp_path / "dag.bsup")
    open(path, "wb").write(data)
    t0 = time.time()
    with pytest.raises(Exception, match="dag.bsup: byte offset [0-9]+: type expands to more than"):
        read(spark, path, mode="FAILFAST").collect()
    df = spark.createDataFrame([(data,)], "b binary")
    with pytest.raises(Exception, match="sb_to_sup: cell: byte offset [0-9]+: type expands to more than"):
        df.select(F.expr("sb_to_sup(b)")).collect()
    assert df.select(F.expr("try_sb_to_sup(b)")).first()[0] is None
    assert time.time() - t0 < 60
