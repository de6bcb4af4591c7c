"""ALP both ways between the JVM codec and the independent numpy reference (tests/alp_reference.py).

Python encodes -> JVM decodes, JVM encodes -> Python decodes, bit for bit, on generated data;
the reference itself is checked against the spec's worked example first.
"""
import glob
import os
import subprocess
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import alp_reference as ref  # noqa: E402

# The spec's worked example (AlpEncoding.md): { 1500.0, NaN, 2500.0, 333.5 } with e=4, f=3.
WORKED = bytes.fromhex(
    "00000a04000000" "04000000" "04030100" "070d000000000000" "0f" "91adc85628150000" "0100" "000000000000f87f")


def _java(*args):
    import pyspark
    import superspark

    jars = os.path.join(os.path.dirname(pyspark.__file__), "jars", "*")
    cp = superspark.jar_path() + os.pathsep + jars
    return subprocess.run(["java", "-cp", cp, "io.superspark.parquet.alp.AlpFiles", *args],
                          capture_output=True, text=True, timeout=120)


def _data(kind, seed):
    r = np.random.default_rng(seed)
    n = 5000
    if kind == "double":
        parts = [
            np.round(r.uniform(0, 10000, n), 2),  # prices
            np.round(r.normal(20, 5, n), r.integers(1, 4)),  # sensor readings
            r.random(n),  # not decimal-like
            r.integers(0, 2 ** 63, n, dtype=np.uint64).view(np.float64),  # any bit pattern
            np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 5e-324, -5e-324, 1.7976931348623157e308]),
            np.frombuffer(bytes.fromhex("efcdab0000f8ff7f" "010000000000f07f"), dtype=np.float64),  # NaN payloads
        ]
        return np.concatenate(parts)
    parts = [
        np.round(r.uniform(-100, 100, n), 1).astype(np.float32),
        r.random(n, dtype=np.float32),
        r.integers(0, 2 ** 32, n, dtype=np.uint64).astype(np.uint32).view(np.float32),
        np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-45, -1e-45], dtype=np.float32),
        np.frombuffer(bytes.fromhex("3412c07f" "0100807f"), dtype=np.float32),
    ]
    return np.concatenate(parts)


def _bits(a):
    return a.view(np.uint64 if a.dtype == np.float64 else np.uint32)


def test_reference_decodes_the_spec_worked_example():
    out = ref.decode(WORKED, "double")
    assert _bits(out).tolist() == _bits(np.array([1500.0, np.nan, 2500.0, 333.5])).tolist()


def test_reference_round_trips_itself():
    for kind in ("double", "float"):
        a = _data(kind, 1)
        assert np.array_equal(_bits(ref.decode(ref.encode(a, kind, 9), kind)), _bits(a))


def test_reference_power_constants_are_correctly_rounded():
    assert ref.POW["double"][1][3] == 1e-3 and ref.POW["double"][0][18] == 1e18
    assert ref.POW["float"][1][1] == np.float32("0.1")


@pytest.mark.parametrize("kind", ["double", "float"])
def test_python_encodes_jvm_decodes(tmp_path, kind):
    a = _data(kind, 2)
    page = tmp_path / "py.alp"
    page.write_bytes(ref.encode(a, kind))
    out = tmp_path / "jvm.bin"
    r = _java("decode", kind, str(page), str(out))
    assert r.returncode == 0, r.stderr
    back = np.frombuffer(out.read_bytes(), dtype=a.dtype)
    assert np.array_equal(_bits(back), _bits(a))


@pytest.mark.parametrize("kind", ["double", "float"])
def test_jvm_encodes_python_decodes(tmp_path, kind):
    a = _data(kind, 3)
    values = tmp_path / "values.bin"
    values.write_bytes(a.tobytes())
    page = tmp_path / "jvm.alp"
    r = _java("encode", kind, str(values), str(page))
    assert r.returncode == 0, r.stderr
    data = page.read_bytes()
    assert data[:3] == bytes([0, 0, 10]) and int.from_bytes(data[3:7], "little") == len(a)
    assert np.array_equal(_bits(ref.decode(data, kind)), _bits(a))
    # the JVM encoder compresses decimal-like data at least as well as the exhaustive reference
    prices = np.round(np.random.default_rng(4).uniform(0, 10000, 20000), 2).astype(a.dtype)
    values.write_bytes(prices.tobytes())
    assert _java("encode", kind, str(values), str(page)).returncode == 0
    assert len(page.read_bytes()) <= len(ref.encode(prices, kind)) * 1.05


def test_jvm_reports_bad_pages_with_code_and_offset(tmp_path):
    bad = bytearray(WORKED)
    bad[11] = 19  # exponent 19 > 18
    page = tmp_path / "bad.alp"
    page.write_bytes(bytes(bad))
    r = _java("decode", "double", str(page), str(tmp_path / "out.bin"))
    assert r.returncode == 2
    assert "bad_exponent at ALP offset 11" in r.stderr and "bad.alp" in r.stderr
    with pytest.raises(ref.AlpError):
        ref.decode(bytes(bad), "double")
