"""Super Binary SQL functions (sb_decode, sb_encode, ...): SQL and Python give the same answers,
round trips, variant output, bad cells, DESCRIBE FUNCTION, cells written by the `super` CLI
v0.1.0 (skipped, saying why, when it cannot be installed) and Spark Connect."""

import datetime
import os
import subprocess
from decimal import Decimal

import pytest
from pyspark.errors import AnalysisException
from pyspark.sql import functions as F
from pyspark.sql import types as T

from superspark import functions as SF


# The spec's reference vector: two streams, each a types frame, a values frame holding {a:1}
# and an end-of-stream marker (bytes we did not produce).
SPEC_TWO_STREAMS = bytes.fromhex("05000001016109140 01e030202ff05000001016109140 01e030202ff".replace(" ", ""))


_CONNECT_ENV = ("SPARK_CONNECT_MODE_ENABLED", "SPARK_REMOTE")


@pytest.fixture(scope="module", autouse=True)
def classic_mode():
    """A Connect session elsewhere in the run leaves pyspark in Connect mode (its env vars):
    functions would then build Connect Columns for the classic session. Run in classic mode."""
    saved = {k: os.environ.pop(k) for k in _CONNECT_ENV if k in os.environ}
    yield
    for k in _CONNECT_ENV:
        os.environ.pop(k, None)
    os.environ.update(saved)


@pytest.fixture(scope="module")
def records(spark):
    return spark.range(0, 20, 1, 2).select(
        F.col("id"),
        F.struct(
            F.col("id").alias("id"),
            F.concat(F.lit("u"), F.col("id").cast("string")).alias("name"),
            (F.col("id") / 4).cast("double").alias("score"),
            (F.col("id") % 2 == 0).alias("even"),
            F.array(F.col("id").cast("int"), F.lit(None).cast("int")).alias("tags"),
            F.when(F.col("id") % 3 == 0, None).otherwise(F.timestamp_seconds(F.col("id"))).alias("ts"),
            F.create_map(F.lit("k"), F.col("id")).alias("m"),
        ).alias("rec"),
    )


def test_python_and_sql_give_the_same_answers(spark, records):
    records.createOrReplaceTempView("sbf_records")
    schema = records.schema["rec"].dataType.simpleString()
    sql = spark.sql(f"""
        SELECT id, sb_decode(sb_encode(rec), '{schema}') AS d, sb_typeof(sb_encode(rec)) AS t,
               sb_to_sup(sb_encode(rec)) AS s, sb_schema_of(sb_encode(rec)) AS sch,
               to_json(sb_decode(sb_encode(rec))) AS v, sb_decode_all(sb_encode(rec), '{schema}') AS a,
               try_sb_decode(sb_encode(rec), '{schema}', map('mode', 'FAILFAST')) AS td
        FROM sbf_records ORDER BY id""").collect()
    enc = SF.sb_encode("rec")
    py = records.select(
        "id", SF.sb_decode(enc, schema).alias("d"), SF.sb_typeof(enc).alias("t"), SF.sb_to_sup(enc).alias("s"),
        SF.sb_schema_of(enc).alias("sch"), F.to_json(SF.sb_decode(enc)).alias("v"),
        SF.sb_decode_all(enc, schema).alias("a"),
        SF.try_sb_decode(enc, schema, {"mode": "FAILFAST"}).alias("td"),
    ).orderBy("id").collect()
    assert sql == py
    rows = records.orderBy("id").collect()
    for r, s in zip(rows, sql):
        assert s["d"] == r["rec"]
        assert s["a"] == [r["rec"]]
        assert s["td"] == r["rec"]
        assert s["t"] == "{id:int64,name:string,score:float64,even:bool,tags:[int32],ts:time,m:|{string:int64}|}"
        assert s["sch"] == ("STRUCT<id: BIGINT, name: STRING, score: DOUBLE, even: BOOLEAN, tags: ARRAY<INT>, "
                            "ts: TIMESTAMP, m: MAP<STRING, BIGINT>>")
    assert sql[3]["s"] == '{id:3,name:"u3",score:0.75,even:false,tags:[3,null]::[int32],ts:null::time,m:|{"k":3}|}'
    import json
    assert json.loads(sql[1]["v"]) == {"id": 1, "name": "u1", "score": 0.25, "even": False, "tags": [1, None],
                                      "ts": "1970-01-01 00:00:01+00:00", "m": {"k": 1}}


def test_round_trip_of_python_values(spark):
    schema = T.StructType([
        T.StructField("b", T.ByteType()), T.StructField("s", T.ShortType()), T.StructField("i", T.IntegerType()),
        T.StructField("l", T.LongType()), T.StructField("f", T.FloatType()), T.StructField("d", T.DoubleType()),
        T.StructField("dec", T.DecimalType(12, 3)), T.StructField("str", T.StringType()),
        T.StructField("bin", T.BinaryType()), T.StructField("date", T.DateType()),
        T.StructField("ts", T.TimestampType()), T.StructField("arr", T.ArrayType(T.StringType())),
        T.StructField("map", T.MapType(T.IntegerType(), T.BooleanType())),
        T.StructField("nested", T.StructType([T.StructField("x", T.LongType())])),
    ])
    row = (1, -2, 3, -4, 1.5, 2.25, Decimal("123456789.123"), "ü", b"\x00\x01", datetime.date(2024, 2, 29),
           datetime.datetime(2024, 1, 2, 3, 4, 5, 6), ["a", None], {1: True, 2: False}, (7,))
    df = spark.createDataFrame([row, tuple([None] * len(row))], schema)
    cols = [SF.sb_decode(SF.sb_encode(c), df.schema[c].dataType.simpleString()).alias(c) for c in df.columns]
    assert df.select(*cols).collect() == df.collect()


def test_variant_for_heterogeneous_cells(spark):
    df = spark.sql("""SELECT * FROM VALUES (sb_encode(1L)), (sb_encode('x')), (sb_encode(array(1.5d))),
                      (sb_encode(named_struct('a', true))) AS t(b)""")
    out = df.select(SF.sb_decode("b").alias("v"))
    assert isinstance(out.schema["v"].dataType, T.VariantType)
    assert [r[0] for r in out.select(F.to_json("v")).collect()] == ["1", '"x"', "[1.5]", '{"a":true}']
    assert [r[0] for r in df.select(SF.sb_typeof("b")).collect()] == ["int64", "string", "[float64]", "{a:bool}"]


def test_spec_vector_cell_with_two_streams(spark):
    df = spark.createDataFrame([(SPEC_TWO_STREAMS,)], "b binary")
    r = df.select(SF.sb_decode("b", "{a:int64}").alias("first"), SF.sb_decode_all("b", "a bigint").alias("all"),
                  SF.sb_to_sup("b").alias("sup"), SF.sb_typeof("b").alias("t")).head()
    assert r["first"] == (1,)
    assert [x.a for x in r["all"]] == [1, 1]
    assert r["sup"] == "{a:1}\n{a:1}"
    assert r["t"] == "{a:int64}"
    # Without its last end-of-stream marker the cell still decodes.
    cut = spark.createDataFrame([(SPEC_TWO_STREAMS[:-1],)], "b binary")
    assert cut.select(SF.sb_decode_all("b", "a bigint")).head()[0] == [(1,), (1,)]


def test_cells_holding_files_of_the_bsup_writer(spark, tmp_path):
    """A whole .bsup file (lz4 frames, several streams) read as one cell by binaryFile."""
    df = spark.range(0, 3000, 1, 1).selectExpr("id", "concat('n', id) AS s", "array(id, id + 1) AS xs")
    path = str(tmp_path / "f")
    df.write.format("bsup").option("streamSize", "8k").option("frameSize", "2k").save(path)
    cells = spark.read.format("binaryFile").option("pathGlobFilter", "*.bsup").load(path)
    assert cells.count() == 1
    got = cells.select(F.explode(SF.sb_decode_all("content", "id bigint, s string, xs array<bigint>")).alias("r")) \
        .select("r.*").orderBy("id").collect()
    assert got == df.orderBy("id").collect()
    first = cells.select(SF.sb_decode("content", "{id:int64,s:string,xs:[int64]}"), SF.sb_typeof("content")).head()
    assert first[0] == (0, "n0", [0, 1]) and first[1] == "{id:int64,s:string,xs:[int64]}"


BAD = {
    "truncated": bytes.fromhex("0500000101610914"),
    "bad uvarint": bytes.fromhex("10" + "ff" * 11),
    "unknown type id": bytes.fromhex("12006300ff"),
    "absurd length": bytes.fromhex("1500 19 ffffff7f ff".replace(" ", "")),
    "bad LZ4": bytes.fromhex("5600000a01020304ff"),
    "bad UTF-8": bytes.fromhex("14001903c328ff"),
}


@pytest.mark.parametrize("name", sorted(BAD))
def test_bad_cells(spark, name):
    df = spark.createDataFrame([(BAD[name],), (None,)], "b binary")
    with pytest.raises(Exception) as e:
        df.select(SF.sb_decode("b", "string")).collect()
    assert "MALFORMED_RECORD_IN_PARSING" in str(e.value) and "cell: byte offset" in str(e.value)
    assert df.select(SF.sb_decode("b", "string", {"mode": "PERMISSIVE"})).collect() == [(None,), (None,)]
    assert df.select(SF.try_sb_decode("b")).collect() == [(None,), (None,)]
    assert df.select(SF.try_sb_to_sup("b")).collect() == [(None,), (None,)]
    with pytest.raises(Exception, match="MALFORMED_RECORD_IN_PARSING"):
        df.select(SF.sb_to_sup("b")).collect()


def test_analysis_errors(spark):
    with pytest.raises(AnalysisException, match="INVALID_SCHEMA"):
        spark.sql("SELECT sb_decode(X'00', 'no such type <')").collect()
    with pytest.raises(AnalysisException, match="PARSE_MODE_UNSUPPORTED"):
        spark.range(1).select(SF.sb_decode(F.lit(b"\x00"), "string", {"mode": "DROPMALFORMED"})).collect()
    with pytest.raises(AnalysisException, match="DATATYPE_MISMATCH"):
        spark.sql("SELECT sb_typeof('text')").collect()


def test_describe_function(spark):
    for name in ["sb_decode", "try_sb_decode", "sb_decode_all", "sb_encode", "sb_typeof", "sb_to_sup", "sb_schema_of"]:
        text = "\n".join(r[0] for r in spark.sql(f"DESCRIBE FUNCTION EXTENDED {name}").collect())
        assert f"Function: {name}" in text
        assert "Since: 0.1.0" in text and "Examples:" in text
    text = "\n".join(r[0] for r in spark.sql("DESCRIBE FUNCTION EXTENDED sb_decode").collect())
    assert "schema - a string literal: a Spark DDL schema" in text
    assert "FAILFAST" in text and "PERMISSIVE" in text


# ---------------------------------------------------------------- the super CLI v0.1.0



SUP_VALUES = [
    '{a:1,b:"x",c:[1,2]}', "1::int32", '"héllo"', "{u:255::uint8,t:2024-01-02T03:04:05Z,d:1.5,n:null::int64}",
    "[1,null]", '|{"k":1}|', "10.0.0.1", "[]::[int64]", '"x"::(int64|string)', '{r:{s:"deep"},e:true}',
]


def _super(cli, *args, stdin):
    r = subprocess.run([cli, *args], input=stdin, capture_output=True)
    assert r.returncode == 0, r.stderr.decode()
    return r.stdout


def test_cells_written_by_super(spark, super_cli):
    cells = [_super(super_cli, "-f", "bsup", "-i", "sup", "-", stdin=v.encode()) for v in SUP_VALUES]
    # `-pretty 0`: v0.1.0's `-f sup` pretty-prints a record or container over several lines (its
    # default indent is 4); sb_to_sup gives one line
    canon = [_super(super_cli, "-f", "sup", "-pretty", "0", "-i", "sup", "-", stdin=v.encode()).decode().strip()
             for v in SUP_VALUES]
    types = [_super(super_cli, "-f", "line", "-i", "sup", "-c", "values typeof(this)", "-", stdin=v.encode())
             .decode().strip().strip("<>") for v in SUP_VALUES]
    df = spark.createDataFrame([(i, c) for i, c in enumerate(cells)], "i int, b binary")
    got = df.orderBy("i").select(SF.sb_to_sup("b"), SF.sb_typeof("b"), F.to_json(SF.sb_decode("b"))).collect()
    assert [g[0] for g in got] == canon
    assert [g[1] for g in got] == types
    assert got[0][2] == '{"a":1,"b":"x","c":[1,2]}'
    # And super reads what sb_encode writes.
    back = spark.sql("SELECT sb_encode(named_struct('a', 1L, 'b', array('x', 'y'))) AS b").head()["b"]
    assert _super(super_cli, "-f", "sup", "-pretty", "0", "-i", "bsup", "-", stdin=bytes(back)).decode().strip() == \
        '{a:1,b:["x","y"]}'


# ---------------------------------------------------------------- Spark Connect

def test_spark_connect(connect_session):
    """The Python wrappers resolve by name on a Connect server that loads the extension."""
    remote = connect_session
    df = remote.range(3).select(F.struct("id", F.lit("x").alias("s")).alias("r"))
    enc = SF.sb_encode("r")
    got = df.select(SF.sb_decode(enc, "id bigint, s string").alias("d"), SF.sb_typeof(enc).alias("t"),
                    SF.try_sb_decode(F.lit(b"\x10\xff"), "string", {"mode": "PERMISSIVE"}).alias("bad"),
                    SF.sb_to_sup(enc).alias("sup")).collect()
    assert [(r["d"]["id"], r["d"]["s"], r["t"], r["bad"]) for r in got] == \
        [(i, "x", "{id:int64,s:string}", None) for i in range(3)]
    assert got[2]["sup"] == '{id:2,s:"x"}'
    sql = remote.sql("SELECT sb_to_sup(sb_encode(named_struct('id', 2L, 's', 'x')))").head()[0]
    assert sql == got[2]["sup"]
