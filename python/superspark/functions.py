"""superspark SQL functions for PySpark.

Each function is a one-line call of the SQL function of the same name that
``io.superspark.SuperSparkExtensions`` registers, so it works under classic PySpark and
under Spark Connect (the name is resolved on the server, which must have the extension).
"""

from __future__ import annotations

from pyspark.sql import Column
from pyspark.sql import functions as F

__all__ = ["superspark_version"]


def superspark_version() -> Column:
    """Returns the version of the superspark extension loaded in the session.

    Example:
        >>> from superspark.functions import superspark_version
        >>> spark.range(1).select(superspark_version()).head()[0]  # doctest: +SKIP
        '0.1.0'
    """
    return F.call_function("superspark_version")


# ---- Super Binary functions (docs/sb-functions.md) -------------------------------------

from typing import Dict, Optional, Union  # noqa: E402

ColumnOrName = Union[Column, str]


def _col(c: ColumnOrName) -> Column:
    return c if isinstance(c, Column) else F.col(c)


def _decode_args(col: ColumnOrName, schema: Optional[str], options: Optional[Dict[str, str]]) -> list:
    args = [_col(col)]
    if schema is not None:
        args.append(F.lit(schema))
    if options:
        args.append(F.create_map(*[F.lit(x) for kv in options.items() for x in kv]))
    return args


def sb_decode(col: ColumnOrName, schema: Optional[str] = None, options: Optional[Dict[str, str]] = None) -> Column:
    """Decodes the first value of each Super Binary cell of ``col`` (BINARY).

    ``schema`` is a Spark DDL string (``"a BIGINT, b ARRAY<STRING>"``) or a Super type
    (``"{a:int64,b:[string]}"``); without it the result is a VARIANT. ``options``:
    ``{"mode": "PERMISSIVE"}`` gives NULL for a malformed cell (the default FAILFAST fails the
    query naming the byte offset); ``timeAsLong``, ``durationAsInterval`` as for the bsup source.

    Example:
        >>> df.select(sb_decode("payload", "{a:int64,b:[string]}"))  # doctest: +SKIP
    """
    return F.call_function("sb_decode", *_decode_args(col, schema, options))


def try_sb_decode(col: ColumnOrName, schema: Optional[str] = None, options: Optional[Dict[str, str]] = None) -> Column:
    """Like :func:`sb_decode`, but a malformed cell gives NULL."""
    return F.call_function("try_sb_decode", *_decode_args(col, schema, options))


def sb_decode_all(col: ColumnOrName, schema: Optional[str] = None, options: Optional[Dict[str, str]] = None) -> Column:
    """Decodes every value of each Super Binary cell of ``col`` as an array (see :func:`sb_decode`).

    Example:
        >>> df.select(sb_decode_all("payload", "a BIGINT"))  # doctest: +SKIP
    """
    return F.call_function("sb_decode_all", *_decode_args(col, schema, options))


def try_sb_decode_all(col: ColumnOrName, schema: Optional[str] = None,
                      options: Optional[Dict[str, str]] = None) -> Column:
    """Like :func:`sb_decode_all`, but a malformed cell gives NULL."""
    return F.call_function("try_sb_decode_all", *_decode_args(col, schema, options))


def sb_encode(col: ColumnOrName, version: Optional[int] = None) -> Column:
    """Encodes each value of ``col`` as a Super Binary stream holding that one value (BINARY).

    The Super type is the one kept in the column's ``super.type`` metadata, else the default
    mapping of its Spark type, so ``sb_decode(sb_encode(x), schema_of_x)`` gives ``x`` back.
    ``version`` is the Super Binary version written: 0 (default, SuperDB v0.1.0) or 5 (current
    SuperDB, a ``0x85`` byte before every frame).

    Example:
        >>> df.select(sb_encode(F.struct("a", "b"), version=5).alias("payload"))  # doctest: +SKIP
    """
    if version is None:
        return F.call_function("sb_encode", _col(col))
    return F.call_function("sb_encode", _col(col), F.create_map(F.lit("version"), F.lit(str(version))))


def sb_typeof(col: ColumnOrName) -> Column:
    """The type of the first value of each Super Binary cell, in Super type syntax (``{a:int64}``)."""
    return F.call_function("sb_typeof", _col(col))


def try_sb_typeof(col: ColumnOrName) -> Column:
    """Like :func:`sb_typeof`, but a malformed cell gives NULL."""
    return F.call_function("try_sb_typeof", _col(col))


def sb_to_sup(col: ColumnOrName) -> Column:
    """The values of each Super Binary cell as Super JSON text (SUP), one line per value."""
    return F.call_function("sb_to_sup", _col(col))


def try_sb_to_sup(col: ColumnOrName) -> Column:
    """Like :func:`sb_to_sup`, but a malformed cell gives NULL."""
    return F.call_function("try_sb_to_sup", _col(col))


def sb_schema_of(col: ColumnOrName) -> Column:
    """The Spark DDL type :func:`sb_decode` gives the first value of each cell (usable as its schema)."""
    return F.call_function("sb_schema_of", _col(col))


def try_sb_schema_of(col: ColumnOrName) -> Column:
    """Like :func:`sb_schema_of`, but a malformed cell gives NULL."""
    return F.call_function("try_sb_schema_of", _col(col))


__all__ += [
    "sb_decode", "try_sb_decode", "sb_decode_all", "try_sb_decode_all", "sb_encode", "sb_typeof",
    "try_sb_typeof", "sb_to_sup", "try_sb_to_sup", "sb_schema_of", "try_sb_schema_of",
]
