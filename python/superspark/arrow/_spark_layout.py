"""The Arrow types Spark's own Arrow layer holds: the one type mapping between Arrow types
and what ``createDataFrame``/``toArrow`` accept and give (views as non-views, Spark's
variant struct). Used by the top-level conversion (:mod:`superspark.arrow._convert`) and the
nested one (:mod:`superspark.arrow._nested`); it imports neither.
"""

from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc

from superspark.arrow._types import ExtensionTypeError

__all__ = ["SPARK_VARIANT", "spark_variant", "sparkable_type", "is_spark_variant"]

#: Spark's Arrow layout of VariantType (what createDataFrame recognizes as variant).
SPARK_VARIANT = pa.struct([
    pa.field("value", pa.binary(), nullable=False),
    pa.field("metadata", pa.binary(), nullable=False, metadata={"variant": "true"}),
])

_VARIANT_NULL = b"\x00"  # variant-encoded null (basic type primitive, id 0)
_EMPTY_VARIANT_METADATA = b"\x01\x00\x00"


def spark_variant(storage: pa.Array) -> pa.Array:
    def child(name, fill):
        c = storage.field(name)
        if pa.types.is_dictionary(c.type):
            c = c.dictionary_decode()
        if pa.types.is_run_end_encoded(c.type):
            c = pc.run_end_decode(c)
        if c.type != pa.binary():
            c = c.cast(pa.binary())
        if c.null_count:
            c = pc.fill_null(c, pa.scalar(fill, pa.binary()))
        return c

    value, meta = child("value", _VARIANT_NULL), child("metadata", _EMPTY_VARIANT_METADATA)
    if storage.offset == 0:
        return pa.Array.from_buffers(SPARK_VARIANT, len(storage), storage.buffers()[:1],
                                     storage.null_count, 0, [value, meta])
    mask = storage.is_null() if storage.null_count else None
    return pa.StructArray.from_arrays([value, meta], fields=list(SPARK_VARIANT), mask=mask)


def sparkable_type(t: pa.DataType) -> pa.DataType:
    """A type Spark's Arrow reader accepts for ``t`` (views -> non-view, recursively)."""
    if isinstance(t, pa.BaseExtensionType):
        raise ExtensionTypeError(f"nested extension type {t} inside the storage of another "
                                 "extension type is not supported")
    if t == pa.string_view():
        return pa.string()
    if t == pa.binary_view():
        return pa.binary()
    if pa.types.is_struct(t):
        return pa.struct([f.with_type(sparkable_type(f.type)) for f in t])
    if pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_fixed_size_list(t):
        vf = t.value_field
        new = vf.with_type(sparkable_type(vf.type))
        if pa.types.is_fixed_size_list(t):
            return pa.list_(new, t.list_size)
        return pa.large_list(new) if pa.types.is_large_list(t) else pa.list_(new)
    if pa.types.is_list_view(t) or pa.types.is_large_list_view(t):
        return pa.list_(t.value_field.with_type(sparkable_type(t.value_type)))
    if pa.types.is_map(t):
        return pa.map_(sparkable_type(t.key_type), sparkable_type(t.item_type))
    return t


def is_spark_variant(t: pa.DataType) -> bool:
    if not pa.types.is_struct(t) or t.get_field_index("metadata") < 0:
        return False
    md = t.field("metadata").metadata or {}
    return md.get(b"variant") == b"true"
