"""Reading Parquet files written by Arrow writers into Spark with their extension types.

Arrow writers (pyarrow, arrow-rs, DuckDB's Arrow export through pyarrow) store the Arrow
schema, extension types included, base64-encoded in the file's ``ARROW:schema`` key-value
metadata. Spark ignores it; :func:`read_parquet` reads it from the first file's footer and
tags the matching top-level columns, so ``to_arrow(read_parquet(spark, path))`` has the
writer's extension types again.
"""

from __future__ import annotations

import base64
from typing import Optional

import pyarrow as pa

from superspark.arrow import _nested as N
from superspark.arrow import _types as T
from superspark.arrow._convert import _col_error, nested_metadata, spark_metadata
from superspark.arrow._types import ExtensionTypeError

__all__ = ["arrow_schema_of", "read_parquet"]


def _first_file(path: str):
    import pyarrow.dataset as ds

    d = ds.dataset(path, format="parquet")
    files = sorted(d.files)
    return (d.filesystem, files[0]) if files else (None, None)


def arrow_schema_of(path: str) -> Optional[pa.Schema]:
    """The Arrow schema stored in the footer of ``path`` (a file or a folder), or None."""
    import pyarrow.parquet as pq

    fs, first = _first_file(path)
    if first is None:
        return None
    md = pq.read_metadata(first, filesystem=fs).metadata or {}
    encoded = md.get(b"ARROW:schema")
    if encoded is None:
        return None
    try:
        return pa.ipc.read_schema(pa.py_buffer(base64.b64decode(encoded)))
    except (ValueError, pa.ArrowException) as e:
        raise ExtensionTypeError(f"{first}: unreadable ARROW:schema metadata: {e}") from None


def read_parquet(spark, path: str, **options):
    """``spark.read.parquet(path)`` with the extension types an Arrow writer recorded.

    Columns whose Arrow type (from the first file's ``ARROW:schema``) is an extension type,
    or holds some inside structs, lists and maps, get its identity in their field metadata;
    ``arrow.bool8`` (stored as INT8) becomes boolean and ``arrow.parquet.variant`` groups are
    read as VariantType, also nested. Parquet UUID
    columns (which Spark 4.3 alone refuses with ``PARQUET_TYPE_ILLEGAL``) read through the
    superspark Parquet interceptor as ``binary(16)`` tagged ``arrow.uuid``.
    """
    from pyspark.sql import functions as F
    from pyspark.sql.types import StructField, StructType, VariantType

    reader = spark.read.options(**options)
    df = reader.parquet(path)
    schema = arrow_schema_of(path)
    if schema is None:
        return df
    from pyspark.sql.pandas.types import from_arrow_type

    idents, nested = {}, {}
    for f in schema:
        try:
            ident = T.identity_of_field(f)
            if ident is not None:
                T.make_type(ident.name, ident.metadata, ident.storage)
                idents[f.name] = ident
            elif N.has_nested_extension(f.type):
                # (read type, Spark type, metadata): Parquet holds bool8 as INT8
                nested[f.name] = (from_arrow_type(N.spark_type(f.type, bool8_storage=True)),
                                  _nullable(from_arrow_type(N.spark_type(f.type))),
                                  nested_metadata(f.type), N.has_nested(f.type, T.VARIANT))
        except ExtensionTypeError as e:
            raise _col_error(f.name, e) from None
    if not idents and not nested:
        return df
    variants = {n for n, i in idents.items() if i.name == T.VARIANT
                and {x.name for x in i.storage} == {"metadata", "value"}}
    overrides = {n: VariantType() for n in variants}
    overrides.update({n: v[0] for n, v in nested.items() if v[3]})
    if overrides:
        df = reader.schema(StructType([
            StructField(f.name, overrides[f.name], f.nullable) if f.name in overrides else f
            for f in df.schema.fields])).parquet(path)
    cols = []
    for f in df.schema.fields:
        name = f.name
        ref = F.col(f"`{name.replace('`', '``')}`")
        ident = idents.get(name)
        if name in nested:
            read_type, spark_type, md, _ = nested[name]
            if f.dataType.simpleString() != read_type.simpleString():
                raise _col_error(name, ExtensionTypeError(
                    f"Spark reads {f.dataType.simpleString()}, the file's ARROW:schema needs "
                    f"{read_type.simpleString()}"))
            if read_type.simpleString() != spark_type.simpleString():
                ref = ref.cast(spark_type)  # nested bool8: tinyint -> boolean
            cols.append(ref.alias(name, metadata=md))
            continue
        if ident is None:
            cols.append(ref)
            continue
        if ident.name == T.BOOL8:
            ref = ref != 0
        cols.append(ref.alias(name, metadata=spark_metadata(ident)))
    return df.select(cols)


def _nullable(dt):
    """``dt`` with every nested field, element and value nullable (a cast target Spark
    accepts from any nullability; to_arrow restores the exact flags from the metadata)."""
    from pyspark.sql.types import ArrayType, MapType, StructField, StructType

    if isinstance(dt, StructType):
        return StructType([StructField(f.name, _nullable(f.dataType), True) for f in dt.fields])
    if isinstance(dt, ArrayType):
        return ArrayType(_nullable(dt.elementType), True)
    if isinstance(dt, MapType):
        return MapType(_nullable(dt.keyType), _nullable(dt.valueType), True)
    return dt
