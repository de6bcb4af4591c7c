"""Super Binary that SuperDB reads back (issue #22), through PySpark: version 5 writes nullable
columns as `T|null` unions, decimals as SuperDB's named float64, and refuses what SuperDB could
not read with an error class. The Scala suite BsupSuperdbSuite checks the bytes and the type map."""

import decimal
import glob
import os

import pytest
from pyspark.sql import Row
from pyspark.sql import types as T

from shared_data import SUPERDB_MISSING, superdb_evidence


def _evidence():
    d = superdb_evidence()
    if d is None:
        pytest.fail(SUPERDB_MISSING)
    return d


def _one(out):
    files = glob.glob(os.path.join(out, "*.bsup"))
    assert len(files) == 1
    return open(files[0], "rb").read()


def test_spark_like_version5_types_frame_is_superdbs(spark, tmp_path):
    ev = _evidence()
    df = spark.read.parquet(os.path.join(ev, "v5", "inputs", "spark_like.parquet"))
    out = str(tmp_path / "v5")
    df.coalesce(1).write.format("bsup").option("version", "5").option("compression", "none").save(out)
    ours = _one(out)
    theirs = open(os.path.join(ev, "v5", "spark_like.nocomp.bsup"), "rb").read()
    # The first frame (version byte, header, typedefs) is byte for byte SuperDB's.
    n = 3 + ((theirs[1] & 0x0F) | (theirs[2] << 4))
    assert ours[:n] == theirs[:n]
    assert len(ours) == len(theirs)
    back = spark.read.format("bsup").load(out)
    assert back.schema["dec"].dataType == T.DecimalType(18, 4)
    assert back.schema["st"].dataType == df.schema["st"].dataType
    # With the Parquet's schema (a date reads as a timestamp otherwise) the rows are the Parquet's.
    exact = spark.read.format("bsup").schema(df.schema).load(out)
    assert sorted(map(str, exact.collect())) == sorted(map(str, df.collect()))


def test_nulls_at_every_depth_round_trip_at_version5(spark, tmp_path):
    schema = "a bigint, arr array<int>, m map<string,bigint>, st struct<x:bigint,y:struct<z:string>>, d decimal(12,2)"
    rows = [Row(a=1, arr=[1, None], m={"k": None}, st=Row(x=None, y=Row(z=None)), d=decimal.Decimal("-12.34")),
            Row(a=None, arr=None, m=None, st=None, d=None)]
    df = spark.createDataFrame(rows, schema)
    out = str(tmp_path / "nulls")
    df.write.format("bsup").option("version", "5").save(out)
    back = spark.read.format("bsup").load(out)
    assert back.schema["d"].dataType == T.DecimalType(12, 2)
    meta = {f.name: f.metadata.get("super.type") for f in back.schema.fields}
    assert meta["a"] == "(int64|null)" and meta["d"] == "(deciaml_2_12=float64|null)"
    assert sorted(map(str, back.collect())) == sorted(map(str, df.collect()))


def test_inexact_decimal_fails_with_its_error_class_and_string_keeps_it(spark, tmp_path):
    df = spark.createDataFrame([(decimal.Decimal("12345678901234567890.5"),)], "w decimal(38,1)")
    with pytest.raises(Exception, match=r"BSUP_NOT_READABLE_BY_SUPERDB\.DECIMAL_NOT_EXACT.*`w`"):
        df.write.format("bsup").option("version", "5").save(str(tmp_path / "bad"))
    out = str(tmp_path / "text")
    df.write.format("bsup").option("version", "5").option("decimalAs", "string").save(out)
    back = spark.read.format("bsup").load(out)
    assert back.schema["w"].dataType == T.DecimalType(38, 1)
    assert back.first()["w"] == decimal.Decimal("12345678901234567890.5")
    with pytest.raises(Exception, match=r"BSUP_INVALID_OPTION.*'decimalAs'"):
        df.write.format("bsup").option("decimalAs", "float").save(str(tmp_path / "opt"))
