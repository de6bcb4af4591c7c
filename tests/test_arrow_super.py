"""Super types from the bsup source keep their identity through superspark.arrow."""

import pyarrow as pa
import pytest
from pyspark.sql import functions as F

import superspark.arrow as sa


def _tag(name, super_type):
    return F.col(name).alias(name, metadata={"super.type": super_type})


@pytest.fixture
def super_df(spark, tmp_path):
    """A bsup file holding uint64, uint8, ip, net, enum, duration, a union and a named type,
    read back by the bsup source (which puts super.type into each field's metadata)."""
    df = spark.sql("""
        SELECT cast(18446744073709551615 AS decimal(20,0)) AS u64, 255S AS u8,
               '10.0.0.1' AS ip, '192.168.0.0/16' AS net, 'green' AS color,
               5000000000L AS d, 'x' AS port_name, 8080 AS port
        UNION ALL
        SELECT cast(0 AS decimal(20,0)), 0S, '::1', 'fe80::/10', 'red', -1L, 'y', 1""")
    df = df.select(_tag("u64", "uint64"), _tag("u8", "uint8"), _tag("ip", "ip"),
                   _tag("net", "net"), _tag("color", "enum(red,green)"),
                   _tag("d", "duration"), "port_name", _tag("port", "port=uint16"))
    path = str(tmp_path / "s.bsup")
    df.coalesce(1).write.format("bsup").save(path)
    return spark.read.format("bsup").load(path).orderBy(F.col("u8").desc())


def test_bsup_columns_carry_their_super_type(super_df):
    md = {f.name: f.metadata.get("super.type") for f in super_df.schema.fields}
    assert md["u64"] == "uint64" and md["ip"] == "ip" and md["port"] == "port=uint16"


def test_to_arrow_maps_super_types_without_loss(super_df):
    t = sa.to_arrow(super_df)
    s = t.schema
    assert s.field("u64").type == pa.uint64()
    assert s.field("u8").type == pa.uint8()
    assert s.field("port").type == pa.uint16()
    assert s.field("d").type == pa.duration("ns")
    for name, super_type in [("ip", "ip"), ("net", "net"), ("color", "enum(red,green)")]:
        typ = s.field(name).type
        assert isinstance(typ, pa.OpaqueType), (name, typ)
        assert (typ.type_name, typ.vendor_name, typ.storage_type) == (super_type, "superdb", pa.string())
        assert s.field(name).metadata[b"super.type"] == super_type.encode()
    assert s.field("port_name").type == pa.string()
    rows = t.to_pylist()
    assert rows[0]["u64"] == 2**64 - 1 and rows[1]["u64"] == 0
    assert rows[0]["ip"] == "10.0.0.1" and rows[1]["net"] == "fe80::/10"
    assert rows[0]["d"].total_seconds() == 5 and rows[0]["port"] == 8080


def test_from_arrow_restores_the_super_types(spark, super_df, tmp_path):
    t = sa.to_arrow(super_df)
    back = sa.from_arrow(spark, t)
    assert {f.name: f.metadata.get("super.type") for f in back.schema.fields} == \
        {f.name: f.metadata.get("super.type") for f in super_df.schema.fields}
    assert sa.to_arrow(back).equals(t)
    # And a bsup write of it restores the exact Super types once more.
    path = str(tmp_path / "again.bsup")
    back.write.format("bsup").save(path)
    again = spark.read.format("bsup").load(path)
    assert again.schema["u64"].metadata["super.type"] == "uint64"
    assert again.schema["color"].metadata["super.type"] == "enum(red,green)"


def test_uint_out_of_range_is_an_error_naming_the_column(spark):
    df = spark.sql("SELECT 300 AS big").select(_tag("big", "uint8"))
    with pytest.raises(sa.ExtensionTypeError, match="column 'big'"):
        sa.to_arrow(df)
