"""Spark-side helpers: tagging columns with an Arrow extension type, and mapInArrow."""

from __future__ import annotations

from typing import Callable, Dict, Iterator, Tuple, Union

import pyarrow as pa

from superspark.arrow import _types as T
from superspark.arrow import _nested as N
from superspark.arrow._convert import (
    METADATA_KEY, NAME_KEY, STORAGE_KEY, Nested, _col_error, _identity_from_spark, _to_arrow_column,
    _nested_from_spark, _derive_storage,
    decode_storage, nested_full_type, nested_metadata, spark_metadata)
from superspark.arrow._spark_layout import SPARK_VARIANT, sparkable_type, spark_variant
from superspark.arrow._storage import conform
from superspark.arrow._types import ExtensionTypeError, Identity

__all__ = [
    "with_arrow_type", "with_offset", "uuid_from_string", "uuid_to_string", "with_arrow_types",
    "map_in_arrow", "apply_in_arrow", "cogroup_apply_in_arrow", "arrow_type_of"
]

_UUID_PATTERN = "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$"


def _ident(arrow_type: pa.DataType):
    """The Identity of an extension type, or the Nested spec of a type holding some."""
    if isinstance(arrow_type, pa.BaseExtensionType):
        return T.identity_of(arrow_type)
    if isinstance(arrow_type, pa.DataType) and N.has_nested_extension(arrow_type):
        storage, entries = N.split(arrow_type)
        return Nested(storage, tuple(entries))
    raise ExtensionTypeError(f"{arrow_type} is not an Arrow extension type and holds none")


def _tag(spec) -> dict:
    """The Spark field metadata for an Identity or a Nested spec."""
    if isinstance(spec, Nested):
        return nested_metadata(N.join(spec.storage, list(spec.entries)))
    return spark_metadata(spec)


def with_arrow_type(col, arrow_type: pa.DataType, name: str = None):
    """Returns ``col`` tagged with an Arrow extension type (field metadata only).

    Args:
        col: a column name or a Column.
        arrow_type: the extension type, e.g. ``pa.uuid()``,
            ``pa.fixed_shape_tensor(pa.float32(), [2, 2])``, or a struct/list/map type
            holding extension types, e.g. ``pa.list_(pa.uuid())``.
        name: the output column name (default: ``col`` when it is a name).

    The column must already hold the type's storage as Spark holds it (see docs/arrow.md);
    :func:`with_arrow_types` checks that and converts UUID strings.
    """
    from pyspark.sql import Column
    from pyspark.sql import functions as F

    md = _tag(_ident(arrow_type))
    if isinstance(col, str):
        name = name or col
        col = F.col(col)
    elif not isinstance(col, Column):
        raise TypeError(f"col must be a column name or a Column, not {type(col).__name__}")
    if name is None:
        raise ValueError("name is required when col is a Column")
    return col.alias(name, metadata=md)


def with_offset(col, name: str = None, unit: str = "us"):
    """A Spark TIMESTAMP column as ``arrow.timestamp_with_offset``: the struct
    ``<timestamp: the instant, offset_minutes: the session time zone's offset at that instant>``
    (DST-aware; Spark's ``from_utc_timestamp`` with ``current_timezone()``), tagged so that
    :func:`to_arrow` gives the extension type (``unit``: its storage's time unit).

    The instant of a value read by :func:`from_arrow` is ``col.timestamp``; its offset
    ``col.offset_minutes`` (two columns: select both).
    """
    from pyspark.sql import Column
    from pyspark.sql import functions as F

    if isinstance(col, str):
        name = name or col
        col = F.col(f"`{col.replace('`', '``')}`")
    elif not isinstance(col, Column):
        raise TypeError(f"col must be a column name or a Column, not {type(col).__name__}")
    if name is None:
        raise ValueError("name is required when col is a Column")
    local = F.from_utc_timestamp(col, F.current_timezone())
    minutes = (F.unix_micros(local) - F.unix_micros(col)) / F.lit(60_000_000)
    lo, hi = T.OFFSET_MINUTES_RANGE
    # the spec's range (-12:59..+13:00) leaves out real zones (Pacific/Kiritimati +14:00,
    # Pacific/Chatham +13:45 in summer): an error, never a wrong offset
    offset = F.when((minutes < lo) | (minutes > hi), F.raise_error(F.concat(
        F.lit(f"arrow.timestamp_with_offset: the session time zone "), F.current_timezone(),
        F.lit(" has offset "), minutes.cast("int").cast("string"),
        F.lit(f" minutes at this instant, outside the type's {lo}..{hi}")))).otherwise(minutes).cast("smallint")
    value = F.when(col.isNull(), F.lit(None)).otherwise(
        F.struct(col.alias("timestamp"), offset.alias("offset_minutes")))
    return with_arrow_type(value, T.timestamp_with_offset(unit), name)


def uuid_from_string(col):
    """UUID strings (``8-4-4-4-12`` hex) -> 16-byte binary; other strings raise an error."""
    from pyspark.sql import functions as F

    c = F.col(col) if isinstance(col, str) else col
    return (F.when(c.isNull(), F.lit(None).cast("binary"))
            .when(c.rlike(_UUID_PATTERN), F.unhex(F.regexp_replace(c, "-", "")))
            .otherwise(F.raise_error(F.concat(F.lit("not a UUID string: "), c))))


def uuid_to_string(col):
    """16-byte binary UUIDs -> canonical lower-case ``8-4-4-4-12`` strings."""
    from pyspark.sql import functions as F

    c = F.col(col) if isinstance(col, str) else col
    return F.lower(F.regexp_replace(F.hex(c), "^(.{8})(.{4})(.{4})(.{4})(.{12})$",
                                    "$1-$2-$3-$4-$5"))


def _expected_spark_type(ident):
    from pyspark.sql.pandas.types import from_arrow_type
    from pyspark.sql.types import BooleanType, VariantType

    if isinstance(ident, Nested):
        return from_arrow_type(N.spark_type(N.join(ident.storage, list(ident.entries))))
    if ident.name == T.BOOL8:
        return BooleanType()
    if ident.name == T.VARIANT and {f.name for f in ident.storage} == {"metadata", "value"}:
        return VariantType()
    return from_arrow_type(sparkable_type(ident.storage))


def with_arrow_types(df, types: Dict[str, pa.DataType]):
    """Returns ``df`` with the named columns tagged with Arrow extension types.

    Checks each column's Spark type against the type's storage (a clear error names the
    column otherwise); a string column tagged ``pa.uuid()`` is converted to 16-byte binary.
    """
    from pyspark.sql import functions as F
    from pyspark.sql.types import BinaryType, StringType

    by_name = {f.name: f for f in df.schema.fields}
    cols = []
    for name in df.columns:
        if name not in types:
            cols.append(F.col(f"`{name.replace('`', '``')}`"))
            continue
        ref = F.col(f"`{name.replace('`', '``')}`")
        try:
            ident = _ident(types[name])
            want, have = _expected_spark_type(ident), by_name[name].dataType
            if isinstance(ident, Identity) and ident.name == T.UUID \
                    and isinstance(have, StringType):
                ref = uuid_from_string(ref)
            elif want.simpleString() != have.simpleString():
                what = ident.name if isinstance(ident, Identity) else str(types[name])
                raise ExtensionTypeError(
                    f"{what} needs Spark type {want.simpleString()}, "
                    f"the column is {have.simpleString()}")
        except ExtensionTypeError as e:
            raise _col_error(name, e) from None
        cols.append(ref.alias(name, metadata=_tag(ident)))
    missing = set(types) - set(df.columns)
    if missing:
        raise ValueError(f"no such columns: {sorted(missing)}")
    return df.select(cols)


# --------------------------------------------------------------------------------------
# mapInArrow


def _wire(ident):
    """A picklable form of an Identity or Nested spec (pyarrow types travel as IPC bytes)."""
    if isinstance(ident, Nested):
        return ("nested", None if ident.storage is None else
                spark_metadata(Identity("", "", ident.storage))[STORAGE_KEY], ident.entries)
    return (ident.name, ident.metadata,
            None if ident.storage is None else spark_metadata(ident)[STORAGE_KEY])


def _unwire(w):
    name, meta, storage = w
    if name == "nested":
        return Nested(None if meta is None else decode_storage(meta), storage)
    return Identity(name, meta, None if storage is None else decode_storage(storage))


def _spec_of(field):
    """The Identity or Nested spec of a Spark field (None for a plain column)."""
    try:
        return _identity_from_spark(field) or _nested_from_spark(field)
    except ExtensionTypeError as e:
        raise _col_error(field.name, e) from None


def _unwrap_column(c: pa.Array, tf: pa.Field, ident) -> pa.Array:
    """A column ``fn`` returned, in Spark's layout for the output field ``tf``; ``ident``
    (the declared Identity/Nested spec, or None) is checked against the data first."""
    if isinstance(c, pa.ChunkedArray):
        c = c.combine_chunks()
    if isinstance(ident, Nested):
        full = nested_full_type(ident, tf.type)
        return conform(N.to_spark(conform(c, full), full), tf.type)
    if isinstance(c, pa.ExtensionArray):
        c = c.storage
    if ident is not None:  # check the data against the declared type
        c = conform(c, ident.storage if ident.storage is not None
                    else _derive_storage(ident, c.type))
    elif N.has_nested_extension(c.type):
        c = N.to_spark(c, c.type)
    if tf.type == SPARK_VARIANT and c.type != SPARK_VARIANT:
        return spark_variant(c)
    return conform(c, tf.type)


def _wrap_table(table: pa.Table, idents) -> pa.Table:
    fields, cols = [], []
    for i, f in enumerate(table.schema):
        col = table.column(i)
        ident = idents.get(f.name)
        if ident is not None:
            f, col = _to_arrow_column(ident, col, f.name, f.nullable)
        fields.append(f)
        cols.append(col)
    return pa.Table.from_arrays(cols, schema=pa.schema(fields))


def _wrap_batch(batch: pa.RecordBatch, idents) -> pa.RecordBatch:
    t = _wrap_table(pa.Table.from_batches([batch]), idents)
    return pa.RecordBatch.from_arrays([c.combine_chunks() if c.num_chunks != 1 else c.chunk(0)
                                       for c in t.columns], schema=t.schema)


def _unwrap_batch(batch: pa.RecordBatch, target: pa.Schema, idents) -> pa.RecordBatch:
    cols = []
    for tf in target:
        try:
            c = batch.column(tf.name)
        except KeyError:
            raise ExtensionTypeError(f"fn returned no column {tf.name!r}") from None
        try:
            c = _unwrap_column(c, tf, idents.get(tf.name))
        except (ExtensionTypeError, pa.ArrowException) as e:
            raise _col_error(tf.name, e) from None
        cols.append(c)
    return pa.RecordBatch.from_arrays(cols, schema=target)


def _spark_schema_of(schema):
    """A Spark StructType for an Arrow schema (extension columns tagged), or as given."""
    from pyspark.sql.types import StructType

    if not isinstance(schema, pa.Schema):
        return schema
    out = []
    for f in schema:
        try:
            out.append(_spark_field_of(f))
        except ExtensionTypeError as e:
            raise _col_error(f.name, e) from None
    return StructType(out)


def _spark_field_of(f: pa.Field):
    from pyspark.sql.pandas.types import from_arrow_type
    from pyspark.sql.types import StructField

    ident = T.identity_of_field(f)
    if ident is None and N.has_nested_extension(f.type):
        return StructField(f.name, from_arrow_type(N.spark_type(f.type)), f.nullable,
                           nested_metadata(f.type))
    if ident is None:
        return StructField(f.name, from_arrow_type(f.type), f.nullable)
    return StructField(f.name, _expected_spark_type(ident), f.nullable, spark_metadata(ident))


def _wired_specs(spark_schema) -> dict:
    out = {}
    for f in spark_schema.fields:
        spec = _spec_of(f)
        if spec is not None:
            out[f.name] = _wire(spec)
    return out


def _prepare(df, schema):
    """Wire-ready identities of ``df``'s columns and of the output, the output StructType and
    its Arrow schema (IPC bytes), for functions that run on the workers."""
    from superspark.arrow._pyspark import to_arrow_schema
    from pyspark.sql.types import StructType

    idents = _wired_specs(df.schema)
    spark_schema = _spark_schema_of(schema)
    if isinstance(spark_schema, str):
        spark_schema = StructType.fromDDL(spark_schema)
    out_idents = _wired_specs(spark_schema)
    target_bytes = to_arrow_schema(spark_schema).serialize().to_pybytes()

    return idents, out_idents, spark_schema, target_bytes


def _retag(result, spark_schema):
    """mapInArrow/applyInArrow may drop the output schema's field metadata: put it back."""
    tagged = [f for f in spark_schema.fields if f.metadata]
    if tagged and not any(f.metadata for f in result.schema.fields):
        from pyspark.sql import functions as F

        md = {f.name: f.metadata for f in spark_schema.fields}
        result = result.select([F.col(f"`{n.replace('`', '``')}`").alias(n, metadata=md[n])
                                for n in result.columns])
    return result


def map_in_arrow(df, fn: Callable[[Iterator[pa.RecordBatch]], Iterator[pa.RecordBatch]],
                 schema: Union[str, "pa.Schema", object], barrier: bool = False):
    """``df.mapInArrow`` whose batches carry canonical extension types.

    ``fn`` sees every tagged or VariantType column as its extension type (uuid as
    ``arrow.uuid``, variant as ``arrow.parquet.variant``, ...), exactly as :func:`to_arrow`
    would produce it, and may return batches with extension types: they are turned back
    into Spark's layout. ``schema`` may be a ``pyarrow.Schema`` with extension types (the
    result's columns are then tagged), a Spark StructType, or a DDL string.
    """
    idents, out_idents, spark_schema, target_bytes = _prepare(df, schema)

    codec = _Codec(idents, out_idents, target_bytes)

    def run(batches):
        c = codec.load()
        for out in fn(c.wrap_batch(b) for b in batches):
            yield from c.unwrap_batches(out)

    return _retag(df.mapInArrow(run, spark_schema, barrier=barrier), spark_schema)


def _nargs(fn) -> int:
    import inspect

    return len([p for p in inspect.signature(fn).parameters.values()
                if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)])


class _Codec:
    """Worker-side conversions for one input schema and one output schema (wired forms in,
    so the closure that holds it pickles without pyarrow types)."""

    def __init__(self, idents, out_idents, target_bytes):
        self.idents, self.out_idents, self.target_bytes = idents, out_idents, target_bytes

    def load(self):
        if hasattr(self, "target"):
            return self
        import superspark.arrow  # noqa: F401  (registers the types in the worker)

        self.ids = {k: _unwire(v) for k, v in self.idents.items()}
        self.out_ids = {k: _unwire(v) for k, v in self.out_idents.items()}
        self.target = pa.ipc.read_schema(pa.py_buffer(self.target_bytes))
        return self

    def wrap_table(self, table):
        return _wrap_table(table, self.ids)

    def wrap_batch(self, batch):
        return _wrap_batch(batch, self.ids)

    def unwrap_batches(self, out):
        """Spark-layout batches for a RecordBatch or Table ``fn`` returned."""
        if isinstance(out, pa.Table):
            return [_unwrap_batch(b, self.target, self.out_ids) for b in out.to_batches()]
        if isinstance(out, pa.RecordBatch):
            return [_unwrap_batch(out, self.target, self.out_ids)]
        raise ExtensionTypeError(
            f"fn must return a pyarrow.Table or RecordBatch, not {type(out).__name__}")

    def unwrap_table(self, out):
        return pa.Table.from_batches(self.unwrap_batches(out), schema=self.target)


def apply_in_arrow(grouped, fn, schema):
    """``grouped.applyInArrow`` whose data carry canonical extension types.

    ``grouped`` is ``df.groupBy(...)``. ``fn`` takes either a ``pyarrow.Table`` (or the
    grouping key tuple and the table) and returns a table, or, in the iterator form that
    Spark 4.1+ selects by type hints, an ``Iterator[pyarrow.RecordBatch]`` (or the key and
    the iterator) and yields batches; extension types as in :func:`map_in_arrow`; ``schema``
    as in :func:`map_in_arrow`.
    """
    from superspark.arrow._pyspark import group_arrow_eval_type
    from pyspark.util import PythonEvalType

    idents, out_idents, spark_schema, target_bytes = _prepare(grouped._df, schema)
    codec = _Codec(idents, out_idents, target_bytes)
    try:
        eval_type = group_arrow_eval_type(fn)
    except Exception:  # pyspark warns and uses the table form
        eval_type = None
    with_key = _nargs(fn) == 2

    if eval_type == getattr(PythonEvalType, "SQL_GROUPED_MAP_ARROW_ITER_UDF", None):  # 4.1+
        def batches_of(batches, call):
            c = codec.load()
            for out in call(c.wrap_batch(b) for b in batches):
                yield from c.unwrap_batches(out)

        if with_key:
            def run(key: Tuple[pa.Scalar, ...], batches: Iterator[pa.RecordBatch]) \
                    -> Iterator[pa.RecordBatch]:
                return batches_of(batches, lambda it: fn(key, it))
        else:
            def run(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
                return batches_of(batches, fn)
    elif with_key:
        def run(key, table):
            c = codec.load()
            return c.unwrap_table(fn(key, c.wrap_table(table)))
    else:
        def run(table):
            c = codec.load()
            return c.unwrap_table(fn(c.wrap_table(table)))
    return _retag(grouped.applyInArrow(run, spark_schema), spark_schema)


def cogroup_apply_in_arrow(cogrouped, fn, schema):
    """``left.groupBy(...).cogroup(right.groupBy(...)).applyInArrow`` whose two tables carry
    canonical extension types.

    ``cogrouped`` is the ``cogroup(...)`` result; ``fn`` takes two ``pyarrow.Table`` (or the
    grouping key tuple and the two tables) and returns a table; extension types and
    ``schema`` as in :func:`map_in_arrow`.
    """
    left_idents, out_idents, spark_schema, target_bytes = _prepare(cogrouped._gd1._df, schema)
    left = _Codec(left_idents, out_idents, target_bytes)
    right = _Codec(_wired_specs(cogrouped._gd2._df.schema), {}, target_bytes)

    if _nargs(fn) == 3:
        def run(key, lt, rt):
            lc, rc = left.load(), right.load()
            return lc.unwrap_table(fn(key, lc.wrap_table(lt), rc.wrap_table(rt)))
    else:
        def run(lt, rt):
            lc, rc = left.load(), right.load()
            return lc.unwrap_table(fn(lc.wrap_table(lt), rc.wrap_table(rt)))
    return _retag(cogrouped.applyInArrow(run, spark_schema), spark_schema)


def arrow_type_of(df, name: str) -> pa.DataType:
    """The Arrow type of column ``name`` of ``df`` as :func:`to_arrow` produces it (canonical
    extension types from its Spark field metadata, also nested ones; VariantType as
    ``arrow.parquet.variant``), e.g. to declare the argument types of :func:`arrow_udf`."""
    from superspark.arrow._pyspark import to_arrow_schema
    from pyspark.sql.types import StructType

    field = df.schema[name]
    raw = to_arrow_schema(StructType([field])).field(0)
    spec = _spec_of(field)
    if spec is None:
        return raw.type
    try:
        f, _ = _to_arrow_column(spec, pa.chunked_array([], raw.type), name, raw.nullable)
    except (ExtensionTypeError, pa.ArrowException) as e:
        raise _col_error(name, e) from None
    return f.type
