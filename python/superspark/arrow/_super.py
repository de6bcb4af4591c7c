"""Arrow types for columns that carry a Super type (from the ``bsup`` source or ``sb_decode``).

The Super -> Spark half of the mapping is ``io.superspark.bsup.spark.SuperTypes`` (docs/bsup.md);
this module adds the Arrow column of the same table, used by :func:`to_arrow` for columns
whose Spark field metadata has ``super.type``. Values are never narrowed: where Arrow has a
twin (unsigned ints, durations, nanosecond times, half floats) the column is cast to it
(a checked cast); where it has none (ip, net, type, enum, union, error, 128/256-bit numbers,
decimals held as text) the Spark storage is kept and wrapped as ``arrow.opaque`` with
``vendor_name="superdb"`` and the Super type as ``type_name``. Every such Arrow field also
carries ``super.type`` in its field metadata.
"""

from __future__ import annotations

import re
from typing import Optional, Tuple

import pyarrow as pa

__all__ = ["SUPER_TYPE_KEY", "SUPER_VENDOR", "arrow_type_for", "super_column", "spark_storage"]

#: Spark field metadata key that holds a column's Super type (see SuperTypes.MetadataKey).
SUPER_TYPE_KEY = "super.type"
SUPER_VENDOR = "superdb"

_TWINS = {
    "uint8": pa.uint8(), "uint16": pa.uint16(), "uint32": pa.uint32(), "uint64": pa.uint64(),
    "float16": pa.float16(),
}
# Super types whose Spark storage is kept, wrapped as arrow.opaque.
_OPAQUE_PRIMITIVES = {
    "ip", "net", "type", "int128", "uint128", "int256", "uint256", "float128", "float256",
    "decimal32", "decimal64", "decimal128", "decimal256",
}
_NAMED = re.compile(r'^(?:[A-Za-z_$][A-Za-z0-9_$]*|"(?:[^"\\]|\\.)*")=(.*)$', re.S)


def _underlying(super_type: str) -> str:
    """Strips named-type prefixes: ``port=uint16`` -> ``uint16``."""
    t = super_type
    while True:
        m = _NAMED.match(t)
        if not m:
            return t
        t = m.group(1)


def arrow_type_for(super_type: str, storage: pa.DataType) -> Optional[pa.DataType]:
    """The Arrow type of a column of ``super_type`` whose Spark storage arrives as ``storage``,
    or None when the storage already is the right Arrow type."""
    t = _underlying(super_type)
    if t in _TWINS:
        return _TWINS[t]
    if t == "time" and pa.types.is_integer(storage):       # timeAsLong: exact nanoseconds
        return pa.timestamp("ns", tz="UTC")
    if t == "duration" and pa.types.is_integer(storage):   # long nanoseconds
        return pa.duration("ns")
    if (t in _OPAQUE_PRIMITIVES or t.startswith("enum(") or t.startswith("error(")
            or (t.startswith("(") and t.endswith(")"))):
        return pa.opaque(storage, type_name=super_type, vendor_name=SUPER_VENDOR)
    return None


def super_column(super_type: str, col: pa.ChunkedArray, name: str,
                 nullable: bool) -> Tuple[pa.Field, pa.ChunkedArray]:
    """One top-level column with its Super type mapped to Arrow (see the module doc)."""
    target = arrow_type_for(super_type, col.type)
    md = {SUPER_TYPE_KEY: super_type}
    if target is None:
        return pa.field(name, col.type, nullable, md), col
    if isinstance(target, pa.BaseExtensionType):
        chunks = [pa.ExtensionArray.from_storage(target, c) for c in col.chunks]
        return pa.field(name, target, nullable, md), pa.chunked_array(chunks, target)
    return pa.field(name, target, nullable, md), col.cast(target, safe=True)


_SPARK_STORAGE = {
    pa.uint8(): pa.int16(), pa.uint16(): pa.int32(), pa.uint32(): pa.int64(),
    pa.uint64(): pa.decimal128(20, 0), pa.float16(): pa.float32(),
    pa.duration("ns"): pa.int64(), pa.timestamp("ns", tz="UTC"): pa.int64(),
}


def spark_storage(col: pa.ChunkedArray) -> pa.ChunkedArray:
    """The inverse of :func:`super_column`: the Spark storage of a Super-typed Arrow column
    (unsigned -> next wider signed, uint64 -> decimal(20,0), opaque -> its storage, ...)."""
    t = col.type
    if isinstance(t, pa.BaseExtensionType):
        return pa.chunked_array([c.storage for c in col.chunks], t.storage_type)
    target = _SPARK_STORAGE.get(t)
    return col if target is None else col.cast(target, safe=True)
