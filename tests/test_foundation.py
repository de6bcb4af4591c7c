"""The foundation: the session helper, the jar, superspark_version() in SQL and Python."""

import os
import re

import pytest
from pyspark.sql.types import StringType

import superspark
from superspark.functions import superspark_version


def test_jar_path_points_at_the_built_jar_of_the_running_line():
    import pyspark

    line = ".".join(pyspark.__version__.split(".")[:2])
    assert superspark.spark_line() == line
    path = superspark.jar_path()
    assert os.path.isfile(path)
    assert os.path.basename(path) == f"superspark-spark{line}_2.13-{superspark.__version__}.jar"


@pytest.mark.parametrize("version", ["3.5.4", "4.4.0", "5.0.0"])
def test_a_line_without_a_jar_gets_one_error_naming_the_supported_lines(version, monkeypatch):
    monkeypatch.delenv("SUPERSPARK_JAR", raising=False)
    with pytest.raises(superspark.UnsupportedSparkLineError,
                       match=rf"no jar for Spark {re.escape(version)} .*supported Spark lines: 4.0, 4.1, 4.2, 4.3"):
        superspark.spark_line(version)
    with pytest.raises(superspark.UnsupportedSparkLineError):
        superspark.jar_path(version[:3])


def test_each_supported_line_names_its_own_jar(monkeypatch):
    monkeypatch.delenv("SUPERSPARK_JAR", raising=False)
    for line in superspark.SUPPORTED_SPARK_LINES:
        assert superspark.spark_line(f"{line}.7") == line
        try:
            path = superspark.jar_path(line)
        except FileNotFoundError as e:  # that line is not built in this checkout
            assert f"superspark-spark{line}_2.13" in str(e) and f"SPARK_LINE={line}" in str(e)
        else:
            assert os.path.basename(path) == f"superspark-spark{line}_2.13-{superspark.__version__}.jar"


def test_jar_path_honours_env_and_reports_missing(monkeypatch, tmp_path):
    missing = tmp_path / "nope.jar"
    monkeypatch.setenv("SUPERSPARK_JAR", str(missing))
    with pytest.raises(FileNotFoundError, match="nope.jar"):
        superspark.jar_path()
    present = tmp_path / "x.jar"
    present.write_bytes(b"PK")
    monkeypatch.setenv("SUPERSPARK_JAR", str(present))
    assert superspark.jar_path() == str(present)


def test_session_helper_sets_jar_and_extension(spark):
    assert superspark.EXTENSIONS_CLASS in spark.conf.get("spark.sql.extensions").split(",")
    jars = spark.sparkContext.getConf().get("spark.jars")
    assert superspark.jar_path() in jars.split(",")
    # A second call returns the same running session instead of failing.
    assert superspark.session(master="local[2]") is spark


def test_version_from_sql(spark):
    df = spark.sql("SELECT superspark_version() AS v")
    assert df.schema["v"].dataType == StringType()
    assert df.head()["v"] == superspark.__version__


def test_version_from_python(spark):
    row = spark.range(3).select(superspark_version().alias("v")).distinct().collect()
    assert [r["v"] for r in row] == [superspark.__version__]


def test_describe_function_text(spark):
    text = "\n".join(r[0] for r in spark.sql("DESCRIBE FUNCTION EXTENDED superspark_version").collect())
    assert "Function: superspark_version" in text
    assert "Class: io.superspark.expressions.SuperSparkVersion" in text
    assert "Usage: superspark_version() - Returns the version of the superspark extension" in text
    assert "> SELECT superspark_version();" in text
    assert re.search(r"Since: 0\.1\.0", text)


def test_show_functions_lists_it(spark):
    names = {r[0] for r in spark.sql("SHOW FUNCTIONS LIKE 'superspark*'").collect()}
    assert "superspark_version" in names


def test_wrong_arity_is_a_spark_error(spark):
    from pyspark.errors import AnalysisException

    with pytest.raises(AnalysisException) as e:
        spark.sql("SELECT superspark_version(1)").collect()
    assert e.value.getCondition() == "WRONG_NUM_ARGS.WITHOUT_SUGGESTION"


def test_spark_connect_round_trip(connect_session):
    """A Spark Connect server started with the two settings serves superspark_version()."""
    remote = connect_session
    assert remote.sql("SELECT superspark_version() AS v").head()["v"] == superspark.__version__
    got = remote.range(1).select(superspark_version().alias("v")).head()["v"]
    assert got == superspark.__version__
