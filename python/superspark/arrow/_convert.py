"""Spark <-> Arrow with canonical extension types: ``to_arrow`` and ``from_arrow``.

The identity of a column lives in its Spark field metadata (see docs/arrow.md):

* ``arrow.extension.name``     the extension name, e.g. ``arrow.uuid``
* ``arrow.extension.metadata`` its serialized metadata, exactly as Arrow carries it
* ``arrow.extension.storage``  optional: the exact Arrow storage type (base64 of an Arrow
  IPC schema message with one field), so ``to_arrow`` restores e.g. ``large_string`` or a
  ``fixed_size_binary[16]`` opaque storage that Spark holds as plain binary.
"""

from __future__ import annotations

import inspect
import base64
import functools
import json
import math
from typing import Dict, NamedTuple, Optional

import pyarrow as pa
import pyarrow.compute as pc

from superspark.arrow import _nested as N
from superspark.arrow import _types as T
from superspark.arrow._spark_layout import SPARK_VARIANT, is_spark_variant, sparkable_type, spark_variant
from superspark.arrow._storage import conform, conform_chunked
from superspark.arrow._super import SUPER_TYPE_KEY, spark_storage, super_column
from superspark.arrow._types import ExtensionTypeError, Identity

__all__ = [
    "NAME_KEY", "METADATA_KEY", "STORAGE_KEY", "encode_storage", "decode_storage", "spark_metadata",
    "Nested", "nested_full_type", "nested_metadata", "to_arrow", "from_arrow"
]

NAME_KEY = "arrow.extension.name"
METADATA_KEY = "arrow.extension.metadata"
STORAGE_KEY = "arrow.extension.storage"


def _col_error(column: str, e: Exception) -> ExtensionTypeError:
    return ExtensionTypeError(f"column {column!r}: {e}")


@functools.lru_cache(maxsize=1024)
def encode_storage(storage: pa.DataType) -> str:
    return base64.b64encode(pa.schema([pa.field("storage", storage)]).serialize()
                            .to_pybytes()).decode("ascii")


@functools.lru_cache(maxsize=1024)
def decode_storage(text: str) -> pa.DataType:
    try:
        return pa.ipc.read_schema(pa.py_buffer(base64.b64decode(text, validate=True))).field(0).type
    except (ValueError, pa.ArrowException) as e:
        raise ExtensionTypeError(f"malformed {STORAGE_KEY} {text[:40]!r}: {e}") from None


def spark_metadata(ident: Identity) -> Dict[str, str]:
    """The Spark field metadata entries that carry an extension identity."""
    return {NAME_KEY: ident.name, METADATA_KEY: ident.metadata,
            STORAGE_KEY: encode_storage(ident.storage)}


def _identity_from_spark(field) -> Optional[Identity]:
    from pyspark.sql.types import VariantType as SparkVariant

    md = field.metadata or {}
    name = md.get(NAME_KEY)
    if name is None:
        if isinstance(field.dataType, SparkVariant):
            return Identity(T.VARIANT, "", T.VARIANT_STORAGE)
        return None
    if not isinstance(name, str):
        raise ExtensionTypeError(f"{NAME_KEY} must be a string, not {name!r}")
    meta = md.get(METADATA_KEY, "")
    if not isinstance(meta, str):
        raise ExtensionTypeError(f"{METADATA_KEY} must be a string, not {meta!r}")
    storage = md.get(STORAGE_KEY)
    return Identity(name, meta, decode_storage(storage) if storage is not None else None)


class Nested(NamedTuple):
    """A column holding extension types below the top level: its storage type and entries
    (see :mod:`superspark.arrow._nested`). ``storage`` None: with entries, the storage is
    derived from Spark's Arrow type (canonical storage at each path); without entries,
    "Spark VariantType values nested in it, no tags": they become ``arrow.parquet.variant``."""

    storage: Optional[pa.DataType]
    entries: tuple


def _contains_variant(dt) -> bool:
    from pyspark.sql.types import ArrayType, MapType, StructType, VariantType as SparkVariant

    if isinstance(dt, SparkVariant):
        return True
    if isinstance(dt, StructType):
        return any(_contains_variant(f.dataType) for f in dt.fields)
    if isinstance(dt, ArrayType):
        return _contains_variant(dt.elementType)
    if isinstance(dt, MapType):
        return _contains_variant(dt.keyType) or _contains_variant(dt.valueType)
    return False


def _nested_from_spark(field) -> Optional[Nested]:
    """The nested extension types a Spark field's metadata (or its VariantType) describes."""
    md = field.metadata or {}
    if md.get(NAME_KEY) is not None:
        return None
    text = md.get(N.NESTED_KEY)
    if text is None:
        if SUPER_TYPE_KEY not in md and _contains_variant(field.dataType):
            return Nested(None, ())
        return None
    if not isinstance(text, str):
        raise ExtensionTypeError(f"{N.NESTED_KEY} must be a JSON string, not {text!r}")
    storage = md.get(STORAGE_KEY)
    entries = tuple(N.parse_entries(text))
    if storage is None:  # derived from Spark's own Arrow type (see nested_full_type)
        return Nested(None, entries)
    if not isinstance(storage, str):
        raise ExtensionTypeError(f"{STORAGE_KEY} must be a string, not {storage!r}")
    return Nested(decode_storage(storage), entries)


def _auto_variants(t: pa.DataType) -> pa.DataType:
    """``t`` (Spark's Arrow type) with Spark's variant structs, at any depth, as
    ``arrow.parquet.variant``."""
    fields = N.child_fields(t)
    if not fields:
        return t
    out = []
    for f in fields:
        if is_spark_variant(f.type):
            out.append(f.with_type(T.variant()))
        else:
            out.append(f.with_type(_auto_variants(f.type)))
    return N.with_children(t, out)


def nested_full_type(n: Nested, raw: pa.DataType) -> pa.DataType:
    """The column's full Arrow type, extension types at every tagged path."""
    if n.storage is None and not n.entries:
        return _auto_variants(raw)
    if n.storage is None:
        entries = [dict(e) for e in n.entries]
        storage = N.derive_storage(
            raw, entries, lambda name, meta, t: _derive_storage(Identity(name, meta, None), t))
        return N.join(storage, entries)
    return N.join(n.storage, list(n.entries))


def nested_metadata(t: pa.DataType) -> Dict[str, str]:
    """The Spark field metadata for an Arrow type with nested extension types."""
    storage, entries = N.split(t)
    N.join(storage, entries)  # validates every identity against its storage
    return {STORAGE_KEY: encode_storage(storage), N.NESTED_KEY: json.dumps(entries)}


def _json_params(ident: Identity) -> dict:
    if not ident.metadata:
        return {}
    try:
        obj = json.loads(ident.metadata)
    except ValueError as e:
        raise ExtensionTypeError(f"malformed {ident.name} metadata {ident.metadata!r}: {e}") \
            from None
    if not isinstance(obj, dict):
        raise ExtensionTypeError(f"{ident.name} metadata must be a JSON object")
    return obj


def _item(value_type: pa.DataType) -> pa.DataType:
    return value_type.value_type if hasattr(value_type, "value_type") else value_type


def _derive_storage(ident: Identity, raw: pa.DataType) -> pa.DataType:
    """The canonical storage for an identity without a recorded storage type."""
    name = ident.name
    if name == T.UUID:
        return pa.binary(16)
    if name == T.BOOL8:
        return pa.int8()
    if name == T.VARIANT:
        return T.VARIANT_STORAGE
    if name == T.FIXED_SHAPE_TENSOR:
        shape = _json_params(ident).get("shape")
        if not isinstance(shape, list) or not all(isinstance(d, int) for d in shape):
            raise ExtensionTypeError(f"{name} metadata {ident.metadata!r} has no valid shape")
        if not (pa.types.is_list(raw) or pa.types.is_large_list(raw)
                or pa.types.is_fixed_size_list(raw)):
            raise ExtensionTypeError(f"{name} needs an array column, not {raw}")
        return pa.list_(raw.value_type, math.prod(shape))
    if name == T.VARIABLE_SHAPE_TENSOR:
        p = _json_params(ident)
        ndims = {len(p[k]) for k in ("dim_names", "permutation", "uniform_shape") if k in p}
        if len(ndims) != 1:
            raise ExtensionTypeError(
                f"{name}: cannot tell the number of dimensions from {ident.metadata!r}; "
                "tag the column with with_arrow_type(), which records the storage type")
        if not pa.types.is_struct(raw) or raw.get_field_index("data") < 0:
            raise ExtensionTypeError(f"{name} needs a struct<data, shape> column, not {raw}")
        return pa.struct([pa.field("data", pa.list_(_item(raw.field("data").type))),
                          pa.field("shape", pa.list_(pa.int32(), ndims.pop()))])
    return raw  # json, opaque and any other: Spark's own layout is the storage


def _to_arrow_column(ident, col: pa.ChunkedArray, field_name: str, nullable: bool):
    if isinstance(ident, Nested):
        full = nested_full_type(ident, col.type)
        return pa.field(field_name, full, nullable), conform_chunked(col, full)
    storage = ident.storage if ident.storage is not None else _derive_storage(ident, col.type)
    ext = T.make_type(ident.name, ident.metadata, storage)
    if isinstance(ext, pa.BaseExtensionType):
        chunks = [pa.ExtensionArray.from_storage(ext, conform(c, storage)) for c in col.chunks]
        return pa.field(field_name, ext, nullable), pa.chunked_array(chunks, ext)
    # Not registered in this process: storage plus the standard field metadata.
    md = {T.EXT_NAME: ident.name, T.EXT_METADATA: ident.metadata}
    return pa.field(field_name, storage, nullable, md), conform_chunked(col, storage)


def _collect(df):
    """Spark's Arrow batches for ``df`` (no per-type cast) and its target Arrow schema."""
    from superspark.arrow._pyspark import to_arrow_schema

    large = False
    if type(df).__module__.startswith("pyspark.sql.connect"):
        # Spark Connect: the batches as the server sent them (toArrow() would cast the whole
        # table, and fails on NULL variant rows)
        table, _ = df._to_table()
        cast_needed = True
    elif hasattr(df, "_collect_as_arrow"):  # classic
        if "prefers_large_var_types" in inspect.signature(df._collect_as_arrow).parameters:
            large = df.sparkSession.conf.get("spark.sql.execution.arrow.useLargeVarTypes") == "true"
            batches = df._collect_as_arrow(empty_list_if_zero_records=False,
                                           prefers_large_var_types=large)
        else:  # Spark 4.1: the JVM side applies the setting itself
            batches = df._collect_as_arrow(empty_list_if_zero_records=False)
        table = pa.Table.from_batches(batches)
        cast_needed = True
    else:
        table = df.toArrow()
        cast_needed = False
    return table, to_arrow_schema(df.schema, prefers_large_types=large), cast_needed


def to_arrow(df) -> pa.Table:
    """Collects a Spark DataFrame as a ``pyarrow.Table`` with canonical extension types.

    Like ``df.toArrow()``, plus: VariantType columns become ``arrow.parquet.variant``;
    columns tagged in their field metadata (by :func:`with_arrow_type`, :func:`from_arrow`,
    other superspark readers) come out as that extension type; columns carrying a Super
    type (``super.type``, from the ``bsup`` source) come out as the Arrow type of
    docs/arrow.md's Super table (unsigned ints, durations, ``arrow.opaque`` for ip, net,
    enum, union, ...), never narrowed. Wrapping is metadata only:
    values are not copied when the storage already matches.

    Raises:
        ExtensionTypeError: when a tag is malformed or the data does not fit it (e.g. a
            tensor row whose size is not the shape's product), naming the column.
    """
    spark_schema = df.schema
    idents = {}
    for f in spark_schema.fields:
        try:
            ident = _identity_from_spark(f) or _nested_from_spark(f)
        except ExtensionTypeError as e:
            raise _col_error(f.name, e) from None
        if ident is not None:
            idents[f.name] = ident
    raw, target, cast_needed = _collect(df)
    fields, cols = [], []
    for i, tf in enumerate(target):
        col = raw.column(i)
        ident = idents.get(tf.name)
        if ident is None:
            if cast_needed and col.type != tf.type:
                col = col.cast(tf.type)
            super_type = spark_schema.fields[i].metadata.get(SUPER_TYPE_KEY)
            if isinstance(super_type, str):
                try:
                    tf, col = super_column(super_type, col, tf.name, tf.nullable)
                except pa.ArrowException as e:
                    raise _col_error(tf.name, e) from None
            fields.append(tf)
            cols.append(col)
            continue
        try:
            f, c = _to_arrow_column(ident, col, tf.name, tf.nullable)
        except (ExtensionTypeError, pa.ArrowException) as e:
            raise _col_error(tf.name, e) from None
        fields.append(f)
        cols.append(c)
    return pa.Table.from_arrays(cols, schema=pa.schema(fields))


# --------------------------------------------------------------------------------------
# Arrow -> Spark

def _storage_for_spark(ident: Identity, col: pa.ChunkedArray) -> pa.ChunkedArray:
    chunks = [c.storage if isinstance(c, pa.ExtensionArray) else c for c in col.chunks]
    if ident.name == T.BOOL8:
        return pa.chunked_array([pc.not_equal(c, pa.scalar(0, c.type)) for c in chunks],
                                pa.bool_())
    if ident.name == T.TIMESTAMP_WITH_OFFSET:
        return pa.chunked_array([_timestamp_with_offset_for_spark(c) for c in chunks],
                                T.timestamp_with_offset_storage("us"))
    if ident.name == T.VARIANT:
        names = {ident.storage.field(i).name for i in range(ident.storage.num_fields)}
        if names == {"metadata", "value"}:
            return pa.chunked_array([spark_variant(c) for c in chunks], SPARK_VARIANT)
        # Shredded: Spark has no Arrow path to VariantType for it; keep the struct, tagged.
    target = sparkable_type(ident.storage)
    return pa.chunked_array([conform(c, target) if c.type != target else c for c in chunks],
                            target)


def _timestamp_with_offset_for_spark(chunk: pa.Array) -> pa.Array:
    """Canonical form (nulls normalized, offsets in range), timestamps in Spark's microseconds:
    exact from s/ms/us; from ns only when no value has a sub-microsecond part, and only within
    Spark's range (else an error: Spark cannot hold the value, nothing is rounded)."""
    st = T.normalize_timestamp_with_offset(chunk)
    ts = st.field("timestamp")
    if ts.type.unit != "us":
        try:
            ts = pc.cast(ts, pa.timestamp("us", tz="UTC"), safe=True)
        except pa.ArrowInvalid as e:
            raise ExtensionTypeError(f"{T.TIMESTAMP_WITH_OFFSET}: a timestamp Spark's TIMESTAMP "
                                     f"(microseconds) cannot hold exactly: {e}") from None
    fields = list(T.timestamp_with_offset_storage("us"))
    return pa.StructArray.from_arrays([ts, st.field("offset_minutes")], fields=fields,
                                      mask=st.is_null() if st.null_count else None)


def from_arrow(spark, table: pa.Table):
    """Creates a Spark DataFrame from a ``pyarrow.Table`` with canonical extension types.

    Each extension column becomes its storage's Spark type (uuid -> binary (16 bytes),
    json -> string, bool8 -> boolean, fixed_shape_tensor -> array, variable_shape_tensor ->
    struct<data, shape>, opaque -> its storage, unshredded variant -> VariantType) with its
    identity in the field metadata, so ``to_arrow(from_arrow(spark, t))`` equals ``t``.
    Columns tagged only by ``ARROW:extension:*`` field metadata (extension types not
    registered in this process) are treated the same.

    Raises:
        ExtensionTypeError: on malformed extension metadata or storage, naming the column.
    """
    from pyspark.sql.pandas.types import from_arrow_type
    from pyspark.sql.types import StructField, StructType

    if isinstance(table, pa.RecordBatch):
        table = pa.Table.from_batches([table])
    fields, cols, spark_fields = [], [], []
    for i, f in enumerate(table.schema):
        col = table.column(i)
        try:
            super_type = (f.metadata or {}).get(SUPER_TYPE_KEY.encode())
            ident = None if super_type else T.identity_of_field(f)
            if super_type:
                col = spark_storage(col)
                md = {SUPER_TYPE_KEY: super_type.decode()}
            elif ident is None and N.has_nested_extension(f.type):
                md = nested_metadata(f.type)
                col = pa.chunked_array([N.to_spark(c, f.type) for c in col.chunks],
                                       N.spark_type(f.type))
            elif ident is None:
                target = sparkable_type(f.type)
                if target != f.type:
                    col = conform_chunked(col, target)
                md = {}
            else:
                T.make_type(ident.name, ident.metadata, ident.storage)  # validates
                if ident.name == T.TIMESTAMP_WITH_OFFSET:  # kept in its canonical storage, same unit
                    ident = T.Identity(ident.name, "", T.timestamp_with_offset_storage(
                        ident.storage.field(0).type.unit))
                col = _storage_for_spark(ident, col)
                md = spark_metadata(ident)
            sf = StructField(f.name, from_arrow_type(col.type), f.nullable, md)
        except ExtensionTypeError as e:
            raise _col_error(f.name, e) from None
        except Exception as e:  # pyspark: type not supported by Spark's Arrow reader
            if type(e).__name__ in ("PySparkTypeError", "PySparkValueError", "ArrowNotImplementedError"):
                raise _col_error(f.name, ExtensionTypeError(str(e))) from None
            raise
        fields.append(pa.field(f.name, col.type, f.nullable))
        cols.append(col)
        spark_fields.append(sf)
    storage_table = pa.Table.from_arrays(cols, schema=pa.schema(fields))
    return spark.createDataFrame(storage_table, schema=StructType(spark_fields))
