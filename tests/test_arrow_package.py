"""The layout of the superspark.arrow package: no import circles between its modules, and
importing it changes nothing in pyarrow beyond registering the variant type."""

import ast
import os
import subprocess
import sys
import textwrap

PKG = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "python", "superspark", "arrow")


def _imports(path):
    """The superspark.arrow modules a file imports, at module level or inside functions."""
    out = set()
    for node in ast.walk(ast.parse(open(path).read())):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("superspark.arrow"):
            sub = node.module[len("superspark.arrow"):].lstrip(".")
            out.update([sub] if sub else [a.name for a in node.names if a.name.startswith("_")])
        elif isinstance(node, ast.Import):
            out.update(a.name.split(".")[2] for a in node.names if a.name.startswith("superspark.arrow."))
    return out


def test_no_import_circles_between_modules():
    graph = {f[:-3]: _imports(os.path.join(PKG, f)) for f in os.listdir(PKG)
             if f.endswith(".py") and f != "__init__.py"}
    assert {"_convert", "_nested", "_guard", "_types", "_spark_layout"} <= set(graph)
    assert "_convert" not in graph["_nested"] and "_guard" not in graph["_types"]

    def cycle_from(start):
        stack, seen = [(start, [start])], set()
        while stack:
            node, path = stack.pop()
            for dep in graph.get(node, ()):
                if dep == start:
                    return path + [dep]
                if dep not in seen:
                    seen.add(dep)
                    stack.append((dep, path + [dep]))
        return None

    cycles = [c for c in map(cycle_from, graph) if c]
    assert not cycles, cycles


def test_import_registers_variant_and_patches_no_writer():
    script = textwrap.dedent("""
        import pyarrow as pa, pyarrow.parquet as pq, pyarrow.dataset as ds
        before = (pq.ParquetWriter.__init__, pq.ParquetWriter.write_table, ds.write_dataset, pq.write_table)
        import superspark.arrow as sa
        after = (pq.ParquetWriter.__init__, pq.ParquetWriter.write_table, ds.write_dataset, pq.write_table)
        assert before == after, "importing superspark.arrow patched pyarrow's writers"
        t = pa.ipc.read_schema(pa.py_buffer(pa.schema([pa.field("v", sa.variant())]).serialize()))
        assert isinstance(t.field("v").type, sa.VariantType)  # registered: IPC rebuilds the type
        with sa.parquet_variant_guard():
            assert pq.ParquetWriter.__init__ is not before[0] and ds.write_dataset is not before[2]
        assert (pq.ParquetWriter.__init__, ds.write_dataset) == (before[0], before[2])
        print("ok")
    """)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [os.path.dirname(os.path.dirname(PKG)),
                                                                     os.environ.get("PYTHONPATH")])))
    r = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, env=env)
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stderr[-2000:]
