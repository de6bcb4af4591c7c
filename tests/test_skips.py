"""dev/skips.py: `make test` fails on a skipped or canceled test that dev/skips-allowed.txt does not list
for its line; an expected failure (xfail) is no skip. JUnit reports written here by hand, in the shapes
pytest's --junitxml and sbt's test-reports give."""

import os
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SKIPS = os.path.join(REPO, "dev", "skips.py")


def _report(path, cases):
    path.parent.mkdir(parents=True, exist_ok=True)
    body = "".join(
        f'<testcase classname="{c}" name="{n}">' + (f'<skipped type="{t}" message="{m}"/>' if t else "") + "</testcase>"
        for c, n, t, m in cases)
    path.write_text(f'<?xml version="1.0"?><testsuites><testsuite name="s">{body}</testsuite></testsuites>')


def _run(*dirs):
    p = subprocess.run([sys.executable, SKIPS, *map(str, dirs)], capture_output=True, text=True)
    return p.returncode, p.stdout + p.stderr


def test_listed_skips_pass_unlisted_fail_by_line(tmp_path):
    reports = tmp_path / "pytest-reports"
    _report(reports / "spark-4.0.xml", [
        ("tests.test_arrow_udf", "test_arrow_udf_iterator_form", "pytest.skip", "PySpark 4.0 has no Arrow UDFs"),
        ("tests.test_parquet_rs", "test_x[lz4]", "pytest.xfail", "arrow-rs 60.1.0 cannot read"),
        ("tests.test_arrow_udf", "test_arrow_udf_is_a_clear_error_before_4_1", "", "")])
    code, out = _run(reports)
    assert code == 0, out
    assert "tests not run: 1" in out and "[allowed: PySpark 4.0 has no Arrow UDFs" in out
    assert "expected failures (ran, and failed as expected): 1" in out
    # the same skip on a line the entry does not name: unlisted
    _report(reports / "spark-4.2.xml", [
        ("tests.test_arrow_udf", "test_arrow_udf_iterator_form", "pytest.skip", "PySpark 4.0 has no Arrow UDFs")])
    code, out = _run(reports)
    assert code == 1 and "UNLISTED 4.2 tests.test_arrow_udf::test_arrow_udf_iterator_form" in out, out


def test_a_canceled_scalatest_suite_test_fails_the_run(tmp_path):
    reports = tmp_path / "spark-4.0" / "test-reports"
    _report(reports / "TEST-io.superspark.parquet.interceptor.FooterCacheSuite.xml", [
        ("io.superspark.parquet.interceptor.FooterCacheSuite", "issue 31: a same-length rewrite", "", ""),
        ("io.superspark.parquet.interceptor.FooterCacheSuite", "issue 31: the same on a store", "skipped",
         "parquet-java 1.15.2 writes the two files at different lengths")])
    code, out = _run(tmp_path / "spark-4.0")
    assert code == 1 and "UNLISTED 4.0 io.superspark.parquet.interceptor.FooterCacheSuite::issue 31: the same" in out, out
