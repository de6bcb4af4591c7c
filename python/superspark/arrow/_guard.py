"""Keeps registered ``arrow.parquet.variant`` columns away from pyarrow 26's Parquet writer.

pyarrow 26.0.1's Parquet writer (``pq.write_table``, ``pq.ParquetWriter``,
``pyarrow.dataset.write_dataset`` with Parquet format, ``pq.write_to_dataset``) crashes the
process (segfault) on any column whose type is a Python-registered ``arrow.parquet.variant``:
Arrow C++ treats that name as its own internal variant type. While the guard is on, those
entry points first turn every :class:`VariantType` into its storage struct carrying
``ARROW:extension:name`` field metadata: the same bytes a process without the registration
would write. The data is not copied; the file keeps the identity in its ``ARROW:schema``
(pyarrow reads the column back as ``arrow.parquet.variant``) but has no Parquet ``VARIANT``
logical type: write through Spark for that.

The guard changes pyarrow's own functions for the whole process, so it is never switched on
by importing ``superspark.arrow``: :func:`install_parquet_variant_guard` turns it on for good,
:func:`parquet_variant_guard` for a ``with`` block (pyarrow's functions are restored when the
last block exits, unless it was installed for good).
"""

from __future__ import annotations

import contextlib
import functools
import threading

import pyarrow as pa

from superspark.arrow._types import VariantType

__all__ = ["strip_schema", "strip", "guard_active", "install_parquet_variant_guard", "parquet_variant_guard"]


def _is_variant(t: pa.DataType) -> bool:
    return isinstance(t, VariantType)


def _contains_variant(t: pa.DataType) -> bool:
    if _is_variant(t):
        return True
    if isinstance(t, pa.BaseExtensionType):
        return _contains_variant(t.storage_type)
    return any(_contains_variant(t.field(i).type) for i in range(t.num_fields))


def _strip_field(f: pa.Field) -> pa.Field:
    t = f.type
    if _is_variant(t):
        md = dict(f.metadata or {})
        md.update({b"ARROW:extension:name": t.extension_name.encode(),
                   b"ARROW:extension:metadata": b""})
        return pa.field(f.name, t.storage_type, f.nullable, md)
    return f.with_type(_strip_type(t))


def _strip_type(t: pa.DataType) -> pa.DataType:
    if not _contains_variant(t):
        return t
    if pa.types.is_struct(t):
        return pa.struct([_strip_field(t.field(i)) for i in range(t.num_fields)])
    if pa.types.is_list(t):
        return pa.list_(_strip_field(t.value_field))
    if pa.types.is_large_list(t):
        return pa.large_list(_strip_field(t.value_field))
    if pa.types.is_fixed_size_list(t):
        return pa.list_(_strip_field(t.value_field), t.list_size)
    raise TypeError(f"superspark.arrow: cannot write {t} to Parquet with pyarrow 26 "
                    "(arrow.parquet.variant inside it would crash the writer)")


def strip_schema(schema: pa.Schema) -> pa.Schema:
    """``schema`` with every :class:`VariantType` replaced by its tagged storage."""
    if not any(_contains_variant(f.type) for f in schema):
        return schema
    return pa.schema([_strip_field(f) for f in schema], metadata=schema.metadata)


def _strip_array(arr: pa.Array, target: pa.DataType) -> pa.Array:
    if arr.type == target:
        return arr
    if isinstance(arr, pa.ExtensionArray) and _is_variant(arr.type):
        return _strip_array(arr.storage, target)
    if pa.types.is_struct(target):
        children = [_strip_array(arr.field(i), target.field(i).type)
                    for i in range(target.num_fields)]
        return pa.Array.from_buffers(target, len(arr), arr.buffers()[:1], arr.null_count,
                                     arr.offset, children)
    # list, large_list, fixed_size_list: validity (+ offsets) buffers, one child.
    nbuf = 1 if pa.types.is_fixed_size_list(target) else 2
    child = _strip_array(arr.values, target.value_type)
    return pa.Array.from_buffers(target, len(arr), arr.buffers()[:nbuf], arr.null_count,
                                 arr.offset, [child])


def _strip_chunked(col, target):
    if isinstance(col, pa.ChunkedArray):
        return pa.chunked_array([_strip_array(c, target) for c in col.chunks], target)
    return _strip_array(col, target)


def strip(data):
    """A Table or RecordBatch without :class:`VariantType` (zero-copy)."""
    schema = strip_schema(data.schema)
    if schema is data.schema:
        return data
    cols = [_strip_chunked(c, f.type) for c, f in zip(data.columns, schema)]
    if isinstance(data, pa.RecordBatch):
        return pa.RecordBatch.from_arrays(cols, schema=schema)
    return pa.Table.from_arrays(cols, schema=schema)


def _strip_any(data, schema):
    """Data in any form ``write_dataset`` accepts, stripped lazily where it streams."""
    if isinstance(data, (pa.Table, pa.RecordBatch)):
        return strip(data)
    if isinstance(data, (list, tuple)) and all(isinstance(d, (pa.Table, pa.RecordBatch))
                                               for d in data):
        return [strip(d) for d in data]
    src_schema = schema if schema is not None else getattr(data, "schema", None)
    if src_schema is None or strip_schema(src_schema) is src_schema:
        return data
    if hasattr(data, "to_batches"):  # Dataset, Scanner
        batches = data.to_batches()
    else:  # RecordBatchReader or an iterable of batches
        batches = iter(data)
    return pa.RecordBatchReader.from_batches(strip_schema(src_schema),
                                             (strip(b) for b in batches))


def _is_parquet_format(fmt) -> bool:
    if fmt is None:
        return True  # write_dataset's default format is parquet
    if isinstance(fmt, str):
        return fmt == "parquet"
    return type(fmt).__name__ == "ParquetFileFormat"


_lock = threading.RLock()
_originals = None  # (ParquetWriter.__init__, ParquetWriter.write_table, ds.write_dataset) while on
_scopes = 0  # open parquet_variant_guard() blocks
_permanent = False  # install_parquet_variant_guard() was called


def _patch() -> None:
    global _originals
    import pyarrow.dataset as ds
    import pyarrow.parquet as pq

    writer = pq.ParquetWriter
    orig_init, orig_write_table = writer.__init__, writer.write_table
    orig_write_dataset = ds.write_dataset

    @functools.wraps(orig_init)
    def __init__(self, where, schema, *args, **kwargs):
        orig_init(self, where, strip_schema(schema), *args, **kwargs)

    @functools.wraps(orig_write_table)
    def write_table(self, table, *args, **kwargs):
        return orig_write_table(self, strip(table), *args, **kwargs)

    @functools.wraps(orig_write_dataset)
    def write_dataset(data, base_dir, *args, **kwargs):
        if _is_parquet_format(kwargs.get("format")):
            schema = kwargs.get("schema")
            if schema is not None:
                kwargs["schema"] = strip_schema(schema)
            data = _strip_any(data, schema)
        return orig_write_dataset(data, base_dir, *args, **kwargs)

    writer.__init__ = __init__
    writer.write_table = write_table
    ds.write_dataset = write_dataset
    _originals = (orig_init, orig_write_table, orig_write_dataset)


def _unpatch() -> None:
    global _originals
    import pyarrow.dataset as ds
    import pyarrow.parquet as pq

    orig_init, orig_write_table, orig_write_dataset = _originals
    pq.ParquetWriter.__init__ = orig_init
    pq.ParquetWriter.write_table = orig_write_table
    ds.write_dataset = orig_write_dataset
    _originals = None


def guard_active() -> bool:
    """True while pyarrow's Parquet writers are guarded."""
    return _originals is not None


def install_parquet_variant_guard() -> None:
    """Guards pyarrow's Parquet writers for the rest of the process (idempotent): wraps
    ``pq.ParquetWriter.__init__``/``write_table`` (so ``pq.write_table`` too) and
    ``pyarrow.dataset.write_dataset`` (so ``pq.write_to_dataset`` too)."""
    global _permanent
    with _lock:
        if _originals is None:
            _patch()
        _permanent = True


@contextlib.contextmanager
def parquet_variant_guard():
    """Guards pyarrow's Parquet writers inside a ``with`` block; nested blocks are fine.
    pyarrow's own functions are back when the last block exits (unless
    :func:`install_parquet_variant_guard` was called). The functions are process-wide, so
    other threads writing Parquet meanwhile are guarded too."""
    global _scopes
    with _lock:
        if _originals is None:
            _patch()
        _scopes += 1
    try:
        yield
    finally:
        with _lock:
            _scopes -= 1
            if _scopes == 0 and not _permanent:
                _unpatch()
