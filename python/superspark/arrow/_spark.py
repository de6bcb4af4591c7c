"""Spark-side helpers: tagging columns with an Arrow extension type, and mapInArrow."""

from __future__ import annotations

from typing import Callable, Dict, Iterator, Union

import pyarrow as pa

from superspark.arrow import _types as T
from superspark.arrow._convert import (
    METADATA_KEY, NAME_KEY, STORAGE_KEY, _col_error, _identity_from_spark, _sparkable_type,
    _SPARK_VARIANT, _spark_variant, _derive_storage, decode_storage, spark_metadata)
from superspark.arrow._storage import conform
from superspark.arrow._types import ExtensionTypeError, Identity

_UUID_PATTERN = "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$"


def _ident(arrow_type: pa.DataType) -> Identity:
    if not isinstance(arrow_type, pa.BaseExtensionType):
        raise ExtensionTypeError(f"{arrow_type} is not an Arrow extension type")
    return T.identity_of(arrow_type)


def with_arrow_type(col, arrow_type: pa.DataType, name: str = None):
    """Returns ``col`` tagged with an Arrow extension type (field metadata only).

    Args:
        col: a column name or a Column.
        arrow_type: the extension type, e.g. ``pa.uuid()``,
            ``pa.fixed_shape_tensor(pa.float32(), [2, 2])``.
        name: the output column name (default: ``col`` when it is a name).

    The column must already hold the type's storage as Spark holds it (see docs/arrow.md);
    :func:`with_arrow_types` checks that and converts UUID strings.
    """
    from pyspark.sql import Column
    from pyspark.sql import functions as F

    md = spark_metadata(_ident(arrow_type))
    if isinstance(col, str):
        name = name or col
        col = F.col(col)
    elif not isinstance(col, Column):
        raise TypeError(f"col must be a column name or a Column, not {type(col).__name__}")
    if name is None:
        raise ValueError("name is required when col is a Column")
    return col.alias(name, metadata=md)


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


def _expected_spark_type(ident: Identity):
    from pyspark.sql.pandas.types import from_arrow_type
    from pyspark.sql.types import BooleanType, VariantType

    if ident.name == T.BOOL8:
        return BooleanType()
    if ident.name == T.VARIANT and {f.name for f in ident.storage} == {"metadata", "value"}:
        return VariantType()
    return from_arrow_type(_sparkable_type(ident.storage))


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
            if ident.name == T.UUID and isinstance(have, StringType):
                ref = uuid_from_string(ref)
            elif want.simpleString() != have.simpleString():
                raise ExtensionTypeError(
                    f"{ident.name} needs Spark type {want.simpleString()}, "
                    f"the column is {have.simpleString()}")
        except ExtensionTypeError as e:
            raise _col_error(name, e) from None
        cols.append(ref.alias(name, metadata=spark_metadata(ident)))
    missing = set(types) - set(df.columns)
    if missing:
        raise ValueError(f"no such columns: {sorted(missing)}")
    return df.select(cols)


# --------------------------------------------------------------------------------------
# mapInArrow


def _wire(ident: Identity):
    """A picklable form of an identity (pyarrow types travel as IPC bytes)."""
    return (ident.name, ident.metadata,
            None if ident.storage is None else spark_metadata(ident)[STORAGE_KEY])


def _unwire(w) -> Identity:
    name, meta, storage = w
    return Identity(name, meta, None if storage is None else decode_storage(storage))


def _wrap_table(table: pa.Table, idents) -> pa.Table:
    from superspark.arrow._convert import _to_arrow_column

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
        if isinstance(c, pa.ExtensionArray):
            c = c.storage
        try:
            ident = idents.get(tf.name)
            if ident is not None:  # check the data against the declared type
                c = conform(c, ident.storage if ident.storage is not None
                            else _derive_storage(ident, c.type))
            if tf.type == _SPARK_VARIANT and c.type != _SPARK_VARIANT:
                c = _spark_variant(c)
            else:
                c = conform(c, tf.type)
        except (ExtensionTypeError, pa.ArrowException) as e:
            raise _col_error(tf.name, e) from None
        cols.append(c)
    return pa.RecordBatch.from_arrays(cols, schema=target)


def _spark_schema_of(schema):
    """A Spark StructType for an Arrow schema (extension columns tagged), or as given."""
    from pyspark.sql.pandas.types import from_arrow_type
    from pyspark.sql.types import StructField, StructType

    if not isinstance(schema, pa.Schema):
        return schema
    out = []
    for f in schema:
        ident = T.identity_of_field(f)
        if ident is None:
            out.append(StructField(f.name, from_arrow_type(f.type), f.nullable))
        else:
            out.append(StructField(f.name, _expected_spark_type(ident), f.nullable,
                                   spark_metadata(ident)))
    return StructType(out)


def _prepare(df, schema):
    """Wire-ready identities of ``df``'s columns and of the output, the output StructType and
    its Arrow schema (IPC bytes), for functions that run on the workers."""
    from pyspark.sql.pandas.types import to_arrow_schema
    from pyspark.sql.types import StructType

    idents = {}
    for f in df.schema.fields:
        try:
            ident = _identity_from_spark(f)
        except ExtensionTypeError as e:
            raise _col_error(f.name, e) from None
        if ident is not None:
            idents[f.name] = _wire(ident)
    spark_schema = _spark_schema_of(schema)
    if isinstance(spark_schema, str):
        spark_schema = StructType.fromDDL(spark_schema)
    out_idents = {}
    for f in spark_schema.fields:
        ident = _identity_from_spark(f)
        if ident is not None:
            out_idents[f.name] = _wire(ident)
    target_bytes = to_arrow_schema(spark_schema, error_on_duplicated_field_names_in_struct=True,
                                   timezone="UTC").serialize().to_pybytes()

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

    def run(batches):
        import superspark.arrow  # noqa: F401  (registers the types in the worker)

        ids = {k: _unwire(v) for k, v in idents.items()}
        out_ids = {k: _unwire(v) for k, v in out_idents.items()}
        target = pa.ipc.read_schema(pa.py_buffer(target_bytes))
        for out in fn(_wrap_batch(b, ids) for b in batches):
            if isinstance(out, pa.Table):
                for b in out.to_batches():
                    yield _unwrap_batch(b, target, out_ids)
            else:
                yield _unwrap_batch(out, target, out_ids)

    return _retag(df.mapInArrow(run, spark_schema, barrier=barrier), spark_schema)


def apply_in_arrow(grouped, fn, schema):
    """``grouped.applyInArrow`` whose tables carry canonical extension types.

    ``grouped`` is ``df.groupBy(...)``; ``fn`` takes a ``pyarrow.Table`` (or the grouping
    key tuple and the table) and returns a table, with extension types as in
    :func:`map_in_arrow`; ``schema`` as in :func:`map_in_arrow`.
    """
    import inspect

    idents, out_idents, spark_schema, target_bytes = _prepare(grouped._df, schema)
    nargs = len([p for p in inspect.signature(fn).parameters.values()
                 if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)])

    def convert(table, call):
        import superspark.arrow  # noqa: F401  (registers the types in the worker)

        ids = {k: _unwire(v) for k, v in idents.items()}
        out_ids = {k: _unwire(v) for k, v in out_idents.items()}
        target = pa.ipc.read_schema(pa.py_buffer(target_bytes))
        out = call(_wrap_table(table, ids))
        batches = [_unwrap_batch(b, target, out_ids) for b in out.to_batches()]
        return pa.Table.from_batches(batches, schema=target)

    if nargs == 2:
        def run(key, table):
            return convert(table, lambda t: fn(key, t))
    else:
        def run(table):
            return convert(table, fn)
    return _retag(grouped.applyInArrow(run, spark_schema), spark_schema)
