"""The interceptor's settings are registered Spark SQL config entries (SET -v, typed errors)."""

import pytest

SPARK_LINE = tuple(int(x) for x in __import__("pyspark").__version__.split(".")[:2])

KEYS = {
    "spark.superspark.parquet.footer.read": "true",
    "spark.superspark.parquet.footer.write": "false",
    "spark.superspark.parquet.footer.strict": "false",
    "spark.superspark.parquet.footer.form": "private",
}


def test_set_v_lists_settings_with_defaults_and_docs(spark):
    rows = {r[0]: (r[1], r[2]) for r in spark.sql("SET -v").collect()}
    for key, default in KEYS.items():
        assert key in rows, key
        value, doc = rows[key]
        assert value == default and len(doc) > 40, (key, value, doc)


def test_bad_values_fail_naming_the_key(spark):
    from pyspark.errors import IllegalArgumentException

    # Spark's own conversion of a boolean setting: an error class from 4.1 on; Spark 4.0's
    # message names the key and the value without one.
    bad_bool = (r"INVALID_CONF_VALUE\.TYPE_MISMATCH.*'maybe'.*\"spark\.superspark\.parquet\.footer\.write\".*'boolean'"
                if SPARK_LINE >= (4, 1) else r"spark\.superspark\.parquet\.footer\.write should be boolean, but was maybe")
    with pytest.raises(IllegalArgumentException, match=bad_bool):
        spark.sql("SET spark.superspark.parquet.footer.write=maybe")
    with pytest.raises(IllegalArgumentException, match=r"spark\.superspark\.parquet\.footer\.form.*intermediate"):
        spark.conf.set("spark.superspark.parquet.footer.form", "public")
    assert spark.conf.get("spark.superspark.parquet.footer.write") == "false"
    assert spark.conf.get("spark.superspark.parquet.footer.form") == "private"
