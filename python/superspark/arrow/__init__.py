"""Arrow canonical extension types across Spark <-> Arrow.

Importing this module registers all eight canonical types in pyarrow (see
:func:`register`); it changes nothing else in pyarrow. pyarrow 26's Parquet writer crashes
on a registered ``arrow.parquet.variant``: guard it explicitly with
:func:`install_parquet_variant_guard` (whole process) or ``with parquet_variant_guard():``
(a block). Reference: docs/arrow.md.

    >>> import pyarrow as pa, superspark.arrow as sa
    >>> t = sa.to_arrow(df)                      # Spark -> Arrow, canonical types kept
    >>> df2 = sa.from_arrow(spark, t)            # Arrow -> Spark, identity in metadata
    >>> df3 = sa.with_arrow_types(df, {"id": pa.uuid(), "doc": pa.json_()})
"""

from superspark.arrow._convert import (
    METADATA_KEY, NAME_KEY, STORAGE_KEY, from_arrow, to_arrow)
from superspark.arrow._guard import install_parquet_variant_guard, parquet_variant_guard
from superspark.arrow._nested import NESTED_KEY
from superspark.arrow._parquet import arrow_schema_of, read_parquet
from superspark.arrow._spark import (
    apply_in_arrow, arrow_type_of, cogroup_apply_in_arrow, map_in_arrow, uuid_from_string,
    uuid_to_string, with_arrow_type, with_arrow_types, with_offset)
from superspark.arrow._udf import arrow_udf
from superspark.arrow._types import (
    BOOL8, CANONICAL_NAMES, FIXED_SHAPE_TENSOR, JSON, OPAQUE, UUID, VARIABLE_SHAPE_TENSOR,
    TIMESTAMP_WITH_OFFSET, VARIANT, VARIANT_STORAGE, ExtensionTypeError, Identity, TimestampWithOffsetType,
    VariantType, identity_of, identity_of_field, make_type, normalize_timestamp_with_offset, register,
    tensor_params, timestamp_with_offset, timestamp_with_offset_storage, variable_shape_tensor, variant)

__all__ = [
    "to_arrow", "from_arrow", "with_arrow_type", "with_arrow_types", "map_in_arrow", "apply_in_arrow",
    "cogroup_apply_in_arrow", "arrow_udf", "arrow_type_of",
    "read_parquet", "arrow_schema_of", "uuid_from_string", "uuid_to_string", "register", "variant",
    "VariantType", "TIMESTAMP_WITH_OFFSET", "TimestampWithOffsetType", "timestamp_with_offset",
    "normalize_timestamp_with_offset", "timestamp_with_offset_storage", "with_offset",
    "variable_shape_tensor", "tensor_params", "identity_of", "identity_of_field", "make_type",
    "Identity", "ExtensionTypeError", "CANONICAL_NAMES", "UUID", "JSON", "BOOL8", "OPAQUE",
    "FIXED_SHAPE_TENSOR", "VARIABLE_SHAPE_TENSOR", "VARIANT", "VARIANT_STORAGE",
    "NAME_KEY", "METADATA_KEY", "STORAGE_KEY", "NESTED_KEY",
    "install_parquet_variant_guard", "parquet_variant_guard",
]

register()
