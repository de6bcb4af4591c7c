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

from superspark.arrow import _types as T
from superspark.arrow._convert import _col_error, spark_metadata
from superspark.arrow._types import ExtensionTypeError


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

    Columns whose Arrow type (from the first file's ``ARROW:schema``) is an extension type
    get its identity in their field metadata; ``arrow.bool8`` (stored as INT8) becomes
    boolean and ``arrow.parquet.variant`` groups are read as VariantType. Parquet UUID
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
    idents = {}
    for f in schema:
        try:
            ident = T.identity_of_field(f)
            if ident is not None:
                T.make_type(ident.name, ident.metadata, ident.storage)
                idents[f.name] = ident
        except ExtensionTypeError as e:
            raise _col_error(f.name, e) from None
    if not idents:
        return df
    variants = {n for n, i in idents.items() if i.name == T.VARIANT
                and {x.name for x in i.storage} == {"metadata", "value"}}
    if variants:
        df = reader.schema(StructType([
            StructField(f.name, VariantType(), f.nullable) if f.name in variants else f
            for f in df.schema.fields])).parquet(path)
    cols = []
    for name in df.columns:
        ref = F.col(f"`{name.replace('`', '``')}`")
        ident = idents.get(name)
        if ident is None:
            cols.append(ref)
            continue
        if ident.name == T.BOOL8:
            ref = ref != 0
        cols.append(ref.alias(name, metadata=spark_metadata(ident)))
    return df.select(cols)
