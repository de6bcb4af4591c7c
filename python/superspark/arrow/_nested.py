"""Extension types nested inside struct, list and map columns.

A column such as ``list<arrow.uuid>`` or ``struct<a: arrow.json>`` is not an extension type
itself, so its identity cannot live in ``arrow.extension.name``. Its Spark field metadata
carries instead (see docs/arrow.md):

* ``arrow.extension.storage``  the column's exact Arrow type with every nested extension
  type replaced by its storage type (so decoding it never builds an extension type);
* ``arrow.extension.nested``   a JSON list of ``{"path": [...], "name": ..., "metadata": ...}``,
  one per nested extension type: ``path`` names the Arrow child fields from the column down
  to the extension type (struct field names, a list's value field, a map's key or value
  field), ``name``/``metadata`` are the extension's name and serialized metadata.

``split`` and ``join`` convert between the full Arrow type and that pair; ``spark_type`` and
``to_spark`` give the type and data Spark's Arrow reader accepts for a type holding extension
types anywhere (``conform`` in :mod:`superspark.arrow._storage` goes the other way).
"""

from __future__ import annotations

import json
from typing import List, Tuple

import pyarrow as pa
import pyarrow.compute as pc

from superspark.arrow import _types as T
from superspark.arrow._spark_layout import SPARK_VARIANT, sparkable_type, spark_variant
from superspark.arrow._storage import conform
from superspark.arrow._types import ExtensionTypeError, Identity

__all__ = [
    "NESTED_KEY", "child_fields", "with_children", "has_nested_extension", "split", "parse_entries", "join",
    "derive_storage", "spark_type", "has_nested", "to_spark"
]

NESTED_KEY = "arrow.extension.nested"


def _is_list_like(t: pa.DataType) -> bool:
    return (pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_fixed_size_list(t)
            or pa.types.is_list_view(t) or pa.types.is_large_list_view(t))


def child_fields(t: pa.DataType) -> List[pa.Field]:
    """The child fields a path walks through: struct fields, a list's value field, a map's
    key and item fields."""
    if isinstance(t, pa.BaseExtensionType):
        return []
    if pa.types.is_struct(t):
        return [t.field(i) for i in range(t.num_fields)]
    if pa.types.is_map(t):
        return [t.key_field, t.item_field]
    if _is_list_like(t):
        return [t.value_field]
    return []


def with_children(t: pa.DataType, fields: List[pa.Field]) -> pa.DataType:
    """``t`` (a struct, list-like or map type) with new child fields."""
    if pa.types.is_struct(t):
        return pa.struct(fields)
    if pa.types.is_map(t):
        return pa.map_(fields[0], fields[1], keys_sorted=t.keys_sorted)
    if pa.types.is_fixed_size_list(t):
        return pa.list_(fields[0], t.list_size)
    if pa.types.is_large_list(t):
        return pa.large_list(fields[0])
    if pa.types.is_list_view(t):
        return pa.list_view(fields[0])
    if pa.types.is_large_list_view(t):
        return pa.large_list_view(fields[0])
    return pa.list_(fields[0])


def _field_identity(f: pa.Field):
    return T.identity_of_field(f)


def has_nested_extension(t: pa.DataType) -> bool:
    """True when an extension type (or ``ARROW:extension:name`` field metadata) occurs
    anywhere below ``t``."""
    for f in child_fields(t):
        if _field_identity(f) is not None or has_nested_extension(f.type):
            return True
    return False


def _strip_ext_metadata(f: pa.Field) -> pa.Field:
    md = {k: v for k, v in (f.metadata or {}).items()
          if k not in (T.EXT_NAME.encode(), T.EXT_METADATA.encode())}
    return f.with_metadata(md) if md else f.remove_metadata()


def split(t: pa.DataType) -> Tuple[pa.DataType, list]:
    """(storage type, entries) for a type holding nested extension types (see module docs).

    Raises:
        ExtensionTypeError: for an extension type whose own storage holds extension types.
    """
    entries = []

    def walk(typ: pa.DataType, path: list) -> pa.DataType:
        fields = child_fields(typ)
        if not fields:
            return typ
        out = []
        for f in fields:
            ident = _field_identity(f)
            if ident is None:
                out.append(f.with_type(walk(f.type, path + [f.name])))
                continue
            if has_nested_extension(ident.storage) or isinstance(ident.storage,
                                                                 pa.BaseExtensionType):
                raise ExtensionTypeError(
                    f"{ident.name} at {'.'.join(path + [f.name])} has extension types inside "
                    "its storage, which is not supported")
            entries.append({"path": path + [f.name], "name": ident.name,
                            "metadata": ident.metadata})
            out.append(_strip_ext_metadata(f).with_type(ident.storage))
        return with_children(typ, out)

    return walk(t, []), entries


def parse_entries(text: str) -> list:
    try:
        entries = json.loads(text)
    except ValueError as e:
        raise ExtensionTypeError(f"malformed {NESTED_KEY} {text[:60]!r}: {e}") from None
    ok = isinstance(entries, list) and all(
        isinstance(e, dict) and isinstance(e.get("path"), list) and e["path"]
        and all(isinstance(p, str) for p in e["path"]) and isinstance(e.get("name"), str)
        and isinstance(e.get("metadata", ""), str) for e in entries)
    if not ok:
        raise ExtensionTypeError(
            f"malformed {NESTED_KEY} {text[:60]!r}: expected a list of "
            '{"path": [field names], "name": str, "metadata": str}')
    return entries


def join(storage: pa.DataType, entries: list) -> pa.DataType:
    """The full Arrow type: ``storage`` with the extension type of each entry at its path.

    Raises:
        ExtensionTypeError: when a path does not exist in ``storage`` or an identity is
            invalid for the storage found there.
    """
    def put(typ: pa.DataType, path: list, name: str, meta: str, where: list) -> pa.DataType:
        fields = child_fields(typ)
        idx = [i for i, f in enumerate(fields) if f.name == path[0]]
        if not idx:
            raise ExtensionTypeError(
                f"{NESTED_KEY} path {'.'.join(where + path)}: {typ} has no child field "
                f"{path[0]!r}")
        i = idx[0]
        f = fields[i]
        if len(path) == 1:
            ext = T.make_type(name, meta, f.type)
            if isinstance(ext, pa.BaseExtensionType):
                f = f.with_type(ext)
            else:  # not registered in this process: the standard field metadata
                f = f.with_metadata({**(f.metadata or {}), T.EXT_NAME: name,
                                     T.EXT_METADATA: meta})
        else:
            f = f.with_type(put(f.type, path[1:], name, meta, where + [path[0]]))
        fields[i] = f
        return with_children(typ, fields)

    for e in entries:
        storage = put(storage, e["path"], e["name"], e.get("metadata", ""), [])
    return storage


def derive_storage(raw: pa.DataType, entries: list, storage_of) -> pa.DataType:
    """The storage type for entries recorded without ``arrow.extension.storage`` (as the
    Parquet interceptor tags nested UUID/JSON columns): ``raw`` (Spark's Arrow type of the
    column) with the type at each entry's path replaced by ``storage_of(name, metadata,
    type)``. A list's value field matches any path name (Spark calls it ``element``,
    pyarrow ``item``).

    Raises:
        ExtensionTypeError: when a path does not exist in ``raw``.
    """
    def put(typ: pa.DataType, path: list, e: dict, where: list) -> Tuple[pa.DataType, list]:
        fields = child_fields(typ)
        idx = [i for i, f in enumerate(fields) if f.name == path[0]]
        if not idx and _is_list_like(typ):
            idx = [0]
        if not idx:
            raise ExtensionTypeError(
                f"{NESTED_KEY} path {'.'.join(where + path)}: {typ} has no child field "
                f"{path[0]!r}")
        f = fields[idx[0]]
        if len(path) == 1:
            new, rest = f.with_type(storage_of(e["name"], e.get("metadata", ""), f.type)), []
        else:
            sub, rest = put(f.type, path[1:], e, where + [f.name])
            new = f.with_type(sub)
        fields[idx[0]] = new
        return with_children(typ, fields), [f.name] + rest

    out = []
    for e in entries:
        raw, path = put(raw, e["path"], e, [])
        out.append({**e, "path": path})
    entries[:] = out  # paths now name the fields as they are in the derived storage
    return raw


# --------------------------------------------------------------------------------------
# Arrow -> Spark for types with extension types anywhere


def _ext_spark_type(ident: Identity, bool8_storage: bool = False) -> pa.DataType:
    if ident.name == T.BOOL8 and not bool8_storage:
        return pa.bool_()
    if ident.name == T.VARIANT and {f.name for f in ident.storage} == {"metadata", "value"}:
        return SPARK_VARIANT
    return sparkable_type(ident.storage)


def spark_type(t: pa.DataType, bool8_storage: bool = False) -> pa.DataType:
    """The Arrow type Spark holds for ``t``: nested extension types become their Spark
    layout (bool8 -> bool, unshredded variant -> Spark's variant struct, others -> storage;
    with ``bool8_storage`` bool8 stays int8, as a Parquet reader sees it)."""
    fields = child_fields(t)
    if not fields:
        return t
    out = []
    for f in fields:
        ident = _field_identity(f)
        if ident is not None:
            out.append(_strip_ext_metadata(f).with_type(_ext_spark_type(ident, bool8_storage)))
        else:
            out.append(f.with_type(spark_type(f.type, bool8_storage)))
    return with_children(t, out)


def has_nested(t: pa.DataType, name: str) -> bool:
    """True when an extension type called ``name`` occurs below ``t``."""
    for f in child_fields(t):
        ident = _field_identity(f)
        if (ident is not None and ident.name == name) or has_nested(f.type, name):
            return True
    return False


def _ext_to_spark(arr: pa.Array, ident: Identity) -> pa.Array:
    if isinstance(arr, pa.ExtensionArray):
        arr = arr.storage
    if ident.name == T.BOOL8:
        return pc.not_equal(arr, pa.scalar(0, arr.type))
    target = _ext_spark_type(ident)
    if target == SPARK_VARIANT:
        return spark_variant(arr)
    return conform(arr, target)


def to_spark(arr: pa.Array, t: pa.DataType) -> pa.Array:
    """``arr`` (of type ``t``) in the layout of ``spark_type(t)``; buffers of containers are
    reused, only nested extension values that Spark holds differently are converted."""
    fields = child_fields(t)
    if not fields or not has_nested_extension(t):
        return arr
    target = spark_type(t)

    def child(f: pa.Field, a: pa.Array) -> pa.Array:
        ident = _field_identity(f)
        return _ext_to_spark(a, ident) if ident is not None else to_spark(a, f.type)

    if pa.types.is_struct(t):
        children = [child(f, arr.field(i)) for i, f in enumerate(fields)]
        if arr.offset == 0:
            return pa.Array.from_buffers(target, len(arr), arr.buffers()[:1], arr.null_count,
                                         0, children)
        mask = arr.is_null() if arr.null_count else None
        return pa.StructArray.from_arrays(children, fields=list(target), mask=mask)
    if pa.types.is_map(t):
        keys, items = child(fields[0], arr.keys), child(fields[1], arr.items)
        entries = pa.StructArray.from_arrays([keys, items],
                                             fields=[target.key_field, target.item_field])
        return pa.Array.from_buffers(target, len(arr), arr.buffers()[:2], arr.null_count,
                                     arr.offset, [entries])
    if pa.types.is_list_view(t) or pa.types.is_large_list_view(t):
        return to_spark(arr.cast(pa.list_(fields[0])), pa.list_(fields[0]))
    values = child(fields[0], arr.values)
    nbuf = 1 if pa.types.is_fixed_size_list(t) else 2
    out = pa.Array.from_buffers(target, len(arr), arr.buffers()[:nbuf], arr.null_count,
                                arr.offset, [values])
    return conform(out, target)
