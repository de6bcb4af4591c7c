"""Zero-copy reshaping of Arrow arrays between Spark's Arrow layout and canonical storage.

``conform(array, target)`` returns ``array`` laid out as ``target``: field names,
nullability flags and struct field order are metadata only (buffers are reused);
``list`` -> ``fixed_size_list`` and ``binary`` -> ``fixed_size_binary`` reuse the value
buffers when every row has the fixed size and no row is null. Only real representation
changes (``bool`` -> ``int8``, ``string`` -> ``large_string``, ...) are computed.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from superspark.arrow._types import ExtensionTypeError

__all__ = ["conform", "conform_chunked"]


def _offsets(arr: pa.Array) -> np.ndarray:
    dtype = np.int64 if pa.types.is_large_list(arr.type) or pa.types.is_large_binary(
        arr.type) else np.int32
    buf = arr.buffers()[1]
    return np.frombuffer(buf, dtype=dtype, count=len(arr) + 1 + arr.offset)[arr.offset:]


def _uniform(arr: pa.Array, width: int):
    """(first offset) when every row of a null-free list/binary array has ``width`` items."""
    if arr.null_count or len(arr) == 0:
        return None
    offs = _offsets(arr)
    start = int(offs[0])
    if int(offs[-1]) - start != width * len(arr):
        return None
    if not np.array_equal(np.diff(offs), np.full(len(arr), width, dtype=offs.dtype)):
        return None
    return start


def _sizes_error(arr: pa.Array, width: int, what: str) -> ExtensionTypeError:
    lengths = pc.list_value_length(arr) if hasattr(arr, "values") else pc.binary_length(arr)
    bad = pc.and_(pc.is_valid(lengths), pc.not_equal(lengths, width))
    idx = pc.index(bad, True).as_py()
    return ExtensionTypeError(f"row {idx} has {lengths[idx].as_py()} {what}, expected {width}")


def _fill_non_nullable(arr: pa.Array, field: pa.Field) -> pa.Array:
    # A non-nullable child may hold nulls under null parent rows (Spark writes them so);
    # give those slots a value so the layout is valid for strict readers.
    if field.nullable or arr.null_count == 0:
        return arr
    if pa.types.is_binary(field.type) or pa.types.is_large_binary(field.type):
        return pc.fill_null(arr, pa.scalar(b"", field.type))
    return arr


def conform(arr: pa.Array, target: pa.DataType) -> pa.Array:
    """``arr`` with the layout of ``target`` (see module docs)."""
    src = arr.type
    if src == target:
        return arr
    if isinstance(arr, pa.ExtensionArray):
        return conform(arr.storage, target)
    if isinstance(target, pa.BaseExtensionType):
        return pa.ExtensionArray.from_storage(target, conform(arr, target.storage_type))

    if pa.types.is_fixed_size_binary(target) and (pa.types.is_binary(src)
                                                   or pa.types.is_large_binary(src)):
        start = _uniform(arr, target.byte_width)
        if start is not None:
            data = arr.buffers()[2].slice(start, target.byte_width * len(arr))
            return pa.Array.from_buffers(target, len(arr), [None, data], 0)
        try:
            return arr.cast(target)
        except pa.ArrowInvalid:
            raise _sizes_error(arr, target.byte_width, "bytes") from None

    if pa.types.is_fixed_size_list(target) and (pa.types.is_list(src)
                                                or pa.types.is_large_list(src)):
        start = _uniform(arr, target.list_size)
        if start is not None:
            values = arr.values.slice(start, target.list_size * len(arr))
            child = conform(values, target.value_type)
            return pa.Array.from_buffers(target, len(arr), [None], 0, 0, [child])
        try:
            return arr.cast(target)
        except pa.ArrowInvalid:
            raise _sizes_error(arr, target.list_size, "elements") from None

    if pa.types.is_struct(target) and pa.types.is_struct(src):
        children = []
        for i in range(target.num_fields):
            f = target.field(i)
            if src.get_field_index(f.name) < 0:
                raise ExtensionTypeError(f"struct {src} has no field {f.name!r}")
            children.append(_fill_non_nullable(conform(arr.field(f.name), f.type), f))
        if arr.offset == 0:
            return pa.Array.from_buffers(target, len(arr), arr.buffers()[:1], arr.null_count,
                                         0, children)
        mask = arr.is_null() if arr.null_count else None
        return pa.StructArray.from_arrays(children, fields=list(target), mask=mask)

    if pa.types.is_map(target) and pa.types.is_map(src):
        keys = conform(arr.keys, target.key_type)
        items = _fill_non_nullable(conform(arr.items, target.item_type), target.item_field)
        entries = pa.StructArray.from_arrays([keys, items],
                                             fields=[target.key_field, target.item_field])
        return pa.Array.from_buffers(target, len(arr), arr.buffers()[:2], arr.null_count,
                                     arr.offset, [entries])

    same_list_kind = (
        (pa.types.is_list(target) and pa.types.is_list(src))
        or (pa.types.is_large_list(target) and pa.types.is_large_list(src)))
    if same_list_kind:
        child = conform(arr.values, target.value_type)
        return pa.Array.from_buffers(target, len(arr), arr.buffers()[:2], arr.null_count,
                                     arr.offset, [child])
    if pa.types.is_fixed_size_list(target) and pa.types.is_fixed_size_list(src) \
            and target.list_size == src.list_size:
        child = conform(arr.values, target.value_type)
        return pa.Array.from_buffers(target, len(arr), arr.buffers()[:1], arr.null_count,
                                     arr.offset, [child])
    if pa.types.is_int8(target) and pa.types.is_boolean(src):
        return pc.cast(arr, pa.int8())
    if pa.types.is_boolean(target) and pa.types.is_integer(src):
        return pc.not_equal(arr, pa.scalar(0, src))
    return arr.cast(target)


def conform_chunked(col: pa.ChunkedArray, target: pa.DataType) -> pa.ChunkedArray:
    return pa.chunked_array([conform(c, target) for c in col.chunks], target)
