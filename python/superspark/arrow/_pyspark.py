"""The PySpark helpers the Arrow layer needs, on every supported line (4.0-4.3).

PySpark 4.2 added ``timezone=`` to ``to_arrow_schema`` / ``to_arrow_type`` (4.0 and 4.1 take
``timestamp_utc=True``, which gives the same ``timestamp[us, tz=UTC]``); 4.1 added Arrow UDFs
(``pyspark.sql.functions.arrow_udf``) and the iterator form of grouped ``applyInArrow``. The
choice is made by what the running pyspark has (signatures and names), never by patching it.
"""

from __future__ import annotations

import inspect

__all__ = [
    "ArrowLayerUnsupported", "to_arrow_schema", "to_arrow_type", "group_arrow_eval_type", "spark_arrow_udf"
]


class ArrowLayerUnsupported(RuntimeError):
    """A feature of the Arrow layer that the running pyspark does not have."""


def _utc_kwargs(fn) -> dict:
    params = inspect.signature(fn).parameters
    return {"timezone": "UTC"} if "timezone" in params else {"timestamp_utc": True}


def to_arrow_schema(schema, prefers_large_types: bool = False):
    """PySpark's ``to_arrow_schema`` with UTC timestamps and duplicate struct names refused."""
    from pyspark.sql.pandas.types import to_arrow_schema as f

    return f(schema, error_on_duplicated_field_names_in_struct=True, prefers_large_types=prefers_large_types,
             **_utc_kwargs(f))


def to_arrow_type(dt):
    """PySpark's ``to_arrow_type`` with UTC timestamps."""
    from pyspark.sql.pandas.types import to_arrow_type as f

    return f(dt, **_utc_kwargs(f))


def group_arrow_eval_type(fn):
    """The eval type of grouped ``applyInArrow`` for ``fn``: by its type hints on 4.1+ (table or
    iterator form); the table form on 4.0, which has no iterator form."""
    from pyspark.util import PythonEvalType

    try:
        from pyspark.sql.pandas.typehints import infer_group_arrow_eval_type_from_func
    except ImportError:  # pyspark 4.0
        return PythonEvalType.SQL_GROUPED_MAP_ARROW_UDF
    return infer_group_arrow_eval_type_from_func(fn)


def spark_arrow_udf():
    """``pyspark.sql.functions.arrow_udf`` (pyspark 4.1+), else a clear error."""
    try:
        from pyspark.sql.functions import arrow_udf
    except ImportError:
        import pyspark

        raise ArrowLayerUnsupported(
            f"arrow_udf needs pyspark 4.1 or later (pyspark.sql.functions.arrow_udf); this is pyspark "
            f"{pyspark.__version__}. map_in_arrow and apply_in_arrow work on every line.") from None
    return arrow_udf
