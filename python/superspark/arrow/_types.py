"""Arrow canonical extension types: construction, identity, validation.

Every extension type is handled through its *identity*: ``(name, serialized metadata,
storage type)``. The identity of any pyarrow type (built-in, C++-only or Python-defined) is
read through the Arrow C data interface, and a type is rebuilt from an identity through an
IPC schema round trip, so C++'s own deserializers (and ours, for ``arrow.parquet.variant``)
validate it. Both are schema-only operations: no array data is touched.
"""

from __future__ import annotations

import ctypes
import functools
import json
import struct as _struct
from typing import NamedTuple, Optional

import pyarrow as pa

__all__ = [
    "EXT_NAME", "EXT_METADATA", "UUID", "JSON", "BOOL8", "OPAQUE", "FIXED_SHAPE_TENSOR",
    "VARIABLE_SHAPE_TENSOR", "VARIANT", "TIMESTAMP_WITH_OFFSET", "CANONICAL_NAMES", "ExtensionTypeError",
    "Identity", "VARIANT_STORAGE", "VariantType", "variant", "OFFSET_MINUTES_RANGE",
    "timestamp_with_offset_storage", "TimestampWithOffsetType", "timestamp_with_offset",
    "normalize_timestamp_with_offset", "identity_of", "identity_of_field", "make_type",
    "variable_shape_tensor", "tensor_params", "register"
]

EXT_NAME = "ARROW:extension:name"
EXT_METADATA = "ARROW:extension:metadata"

UUID = "arrow.uuid"
JSON = "arrow.json"
BOOL8 = "arrow.bool8"
OPAQUE = "arrow.opaque"
FIXED_SHAPE_TENSOR = "arrow.fixed_shape_tensor"
VARIABLE_SHAPE_TENSOR = "arrow.variable_shape_tensor"
VARIANT = "arrow.parquet.variant"
TIMESTAMP_WITH_OFFSET = "arrow.timestamp_with_offset"

#: The eight canonical extension types this module supports.
CANONICAL_NAMES = (UUID, JSON, BOOL8, OPAQUE, FIXED_SHAPE_TENSOR, VARIABLE_SHAPE_TENSOR, VARIANT,
                   TIMESTAMP_WITH_OFFSET)

_BINARY_FAMILY = (pa.binary(), pa.large_binary(), pa.binary_view())


class ExtensionTypeError(ValueError):
    """An extension type or its data does not follow the canonical definition."""


class Identity(NamedTuple):
    """What an extension type *is*: its name, serialized metadata and storage type."""

    name: str
    metadata: str
    storage: pa.DataType


# --------------------------------------------------------------------------------------
# arrow.parquet.variant: pyarrow 26 has no class for it and C++ registers none.


def _check_variant_storage(storage: pa.DataType) -> None:
    if not pa.types.is_struct(storage):
        raise ExtensionTypeError(f"arrow.parquet.variant storage must be a struct, not {storage}")
    names = [storage.field(i).name for i in range(storage.num_fields)]
    if "metadata" not in names:
        raise ExtensionTypeError(
            f"arrow.parquet.variant storage {storage} has no 'metadata' field")
    meta = storage.field("metadata")
    meta_type = meta.type.value_type if pa.types.is_dictionary(meta.type) else meta.type
    if pa.types.is_run_end_encoded(meta_type):
        meta_type = meta_type.value_type
    if meta_type not in _BINARY_FAMILY:
        raise ExtensionTypeError(
            f"arrow.parquet.variant 'metadata' must be binary, not {meta.type}")
    # The spec wants 'metadata' non-nullable; some writers (Polars 2.1) drop the flag on
    # export, so a nullable field is accepted (its values are checked where they are used).
    if "value" not in names and "typed_value" not in names:
        raise ExtensionTypeError(
            f"arrow.parquet.variant storage {storage} has neither 'value' nor 'typed_value'")
    if "value" in names and storage.field("value").type not in _BINARY_FAMILY:
        raise ExtensionTypeError(
            f"arrow.parquet.variant 'value' must be binary, not {storage.field('value').type}")


#: The storage DuckDB, Spark's Parquet files and the Arrow docs use for unshredded variants.
VARIANT_STORAGE = pa.struct([pa.field("metadata", pa.binary(), nullable=False),
                             pa.field("value", pa.binary())])


class VariantType(pa.ExtensionType):
    """``arrow.parquet.variant``: a Parquet Variant (unshredded or shredded) in a struct.

    Args:
        storage: the struct storage (default ``struct<metadata: binary not null,
            value: binary>``); it is validated against the canonical rules.
    """

    def __init__(self, storage: Optional[pa.DataType] = None):
        storage = VARIANT_STORAGE if storage is None else storage
        _check_variant_storage(storage)
        super().__init__(storage, VARIANT)

    def __arrow_ext_serialize__(self) -> bytes:
        return b""

    @classmethod
    def __arrow_ext_deserialize__(cls, storage_type, serialized):
        return cls(storage_type)

    def __reduce__(self):
        return VariantType, (self.storage_type,)

    @property
    def shredded(self) -> bool:
        """True when the storage carries a ``typed_value`` field."""
        return self.storage_type.get_field_index("typed_value") >= 0


def variant(storage: Optional[pa.DataType] = None) -> VariantType:
    """Returns the ``arrow.parquet.variant`` type (see :class:`VariantType`)."""
    return VariantType(storage)


# --------------------------------------------------------------------------------------
# arrow.timestamp_with_offset: pyarrow 26 has no class for it and C++ registers none.

#: The offsets the canonical definition allows, in minutes: -12:59 to +13:00.
OFFSET_MINUTES_RANGE = (-779, 780)


def _plain_int16(t: pa.DataType) -> bool:
    """``offset_minutes`` storage: int16, or (permitted) dictionary- or run-end-encoded int16."""
    if pa.types.is_dictionary(t):
        return t.value_type == pa.int16()
    if pa.types.is_run_end_encoded(t):
        return t.value_type == pa.int16()
    return t == pa.int16()


def _check_timestamp_with_offset_storage(storage: pa.DataType) -> None:
    ok = (pa.types.is_struct(storage) and storage.num_fields == 2
          and storage.field(0).name == "timestamp" and storage.field(1).name == "offset_minutes"
          and pa.types.is_timestamp(storage.field(0).type) and storage.field(0).type.tz == "UTC"
          and _plain_int16(storage.field(1).type))
    if not ok:
        raise ExtensionTypeError(
            f"{TIMESTAMP_WITH_OFFSET} storage must be struct<timestamp: timestamp[unit, tz=UTC], "
            f"offset_minutes: int16> (in that order), not {storage}")


def timestamp_with_offset_storage(unit: str = "us", nullable_fields: bool = False) -> pa.DataType:
    """The canonical storage: ``struct<timestamp: timestamp[unit, tz=UTC] not null,
    offset_minutes: int16 not null>`` (``nullable_fields``: the permitted nullable form)."""
    return pa.struct([pa.field("timestamp", pa.timestamp(unit, tz="UTC"), nullable=nullable_fields),
                      pa.field("offset_minutes", pa.int16(), nullable=nullable_fields)])


class TimestampWithOffsetType(pa.ExtensionType):
    """``arrow.timestamp_with_offset``: an instant (UTC timestamp) with the offset, in minutes,
    of the time zone it was recorded in (ANSI SQL ``TIMESTAMP WITH TIME ZONE``).

    Args:
        unit: ``s``, ``ms``, ``us`` or ``ns`` (the storage's time unit), or
        storage: a storage struct to validate and keep (nullable children, an encoded
            ``offset_minutes``); overrides ``unit``.
    """

    def __init__(self, unit: str = "us", storage: Optional[pa.DataType] = None):
        storage = timestamp_with_offset_storage(unit) if storage is None else storage
        _check_timestamp_with_offset_storage(storage)
        super().__init__(storage, TIMESTAMP_WITH_OFFSET)

    def __arrow_ext_serialize__(self) -> bytes:
        return b""

    @classmethod
    def __arrow_ext_deserialize__(cls, storage_type, serialized):
        if serialized not in (b"",):
            raise ExtensionTypeError(
                f"{TIMESTAMP_WITH_OFFSET} metadata must be the empty string, got {serialized!r}")
        return cls(storage=storage_type)

    def __reduce__(self):
        return TimestampWithOffsetType, (self.unit, self.storage_type)

    @property
    def unit(self) -> str:
        return self.storage_type.field(0).type.unit


def timestamp_with_offset(unit: str = "us") -> TimestampWithOffsetType:
    """Returns the ``arrow.timestamp_with_offset`` type (see :class:`TimestampWithOffsetType`)."""
    return TimestampWithOffsetType(unit)


def normalize_timestamp_with_offset(arr: pa.Array) -> pa.StructArray:
    """The canonical storage form of a ``timestamp_with_offset`` array (or its storage): a
    null ``timestamp`` makes the whole value null, a null ``offset_minutes`` reads as 0, an
    encoded ``offset_minutes`` is decoded; children non-nullable (the spec's recommendation).

    Raises:
        ExtensionTypeError: an offset outside -779..780 minutes (naming the row).
    """
    import pyarrow.compute as pc

    st = arr.storage if isinstance(arr, pa.ExtensionArray) else arr
    _check_timestamp_with_offset_storage(st.type)
    ts, off = st.field("timestamp"), st.field("offset_minutes")
    if pa.types.is_dictionary(off.type):
        off = off.dictionary_decode()
    elif pa.types.is_run_end_encoded(off.type):
        off = pc.run_end_decode(off)
    valid = pc.and_(st.is_valid(), ts.is_valid())
    lo, hi = OFFSET_MINUTES_RANGE
    bad = pc.and_(valid, pc.or_(pc.less(off, lo), pc.greater(off, hi)))
    if pc.any(bad).as_py():
        row = pc.index(bad, True).as_py()
        raise ExtensionTypeError(f"row {row}: offset_minutes {off[row].as_py()} is outside "
                                 f"{lo}..{hi} ({TIMESTAMP_WITH_OFFSET})")
    ts = pc.fill_null(ts, pa.scalar(0, ts.type)) if ts.null_count else ts
    off = pc.fill_null(off, pa.scalar(0, pa.int16())) if off.null_count else off
    storage = timestamp_with_offset_storage(ts.type.unit)
    return pa.StructArray.from_arrays([ts, off], fields=list(storage), mask=pc.invert(valid))


# --------------------------------------------------------------------------------------
# Identity of a type (C data interface) and type from identity (IPC schema).


class _ArrowSchema(ctypes.Structure):
    pass


_ArrowSchema._fields_ = [
    ("format", ctypes.c_char_p),
    ("name", ctypes.c_char_p),
    ("metadata", ctypes.c_void_p),
    ("flags", ctypes.c_int64),
    ("n_children", ctypes.c_int64),
    ("children", ctypes.c_void_p),
    ("dictionary", ctypes.c_void_p),
    ("release", ctypes.CFUNCTYPE(None, ctypes.POINTER(_ArrowSchema))),
    ("private_data", ctypes.c_void_p),
]


def _parse_c_metadata(ptr: int) -> dict:
    if not ptr:
        return {}
    out = {}
    (n,) = _struct.unpack_from("=i", ctypes.string_at(ptr, 4))
    pos = ptr + 4
    for _ in range(n):
        (kl,) = _struct.unpack("=i", ctypes.string_at(pos, 4))
        key = ctypes.string_at(pos + 4, kl)
        pos += 4 + kl
        (vl,) = _struct.unpack("=i", ctypes.string_at(pos, 4))
        val = ctypes.string_at(pos + 4, vl)
        pos += 4 + vl
        out[key.decode("utf-8")] = val
    return out


def _serialized_metadata(ext_type: pa.BaseExtensionType) -> str:
    if isinstance(ext_type, pa.ExtensionType):  # Python-defined: ask it directly
        return ext_type.__arrow_ext_serialize__().decode("utf-8")
    c = _ArrowSchema()
    ext_type._export_to_c(ctypes.addressof(c))
    try:
        meta = _parse_c_metadata(c.metadata)
    finally:
        if c.release:
            c.release(ctypes.pointer(c))
    return meta.get(EXT_METADATA, b"").decode("utf-8")


def identity_of(ext_type: pa.BaseExtensionType) -> Identity:
    """The identity (name, serialized metadata, storage) of a pyarrow extension type."""
    return Identity(ext_type.extension_name, _serialized_metadata(ext_type), ext_type.storage_type)


def identity_of_field(field: pa.Field) -> Optional[Identity]:
    """The extension identity of a field: an extension type, or (as pyarrow leaves
    unregistered types) storage plus ``ARROW:extension:*`` field metadata; else None."""
    if isinstance(field.type, pa.BaseExtensionType):
        return identity_of(field.type)
    md = field.metadata or {}
    name = md.get(EXT_NAME.encode())
    if name is None:
        return None
    return Identity(name.decode("utf-8"), md.get(EXT_METADATA.encode(), b"").decode("utf-8"),
                    field.type)


def _validate_metadata(name: str, metadata: str) -> None:
    """Checks what pyarrow's own deserializers would check late or crash on."""
    if name in (UUID, BOOL8, VARIANT):
        return
    if name == TIMESTAMP_WITH_OFFSET:
        if metadata != "":
            raise ExtensionTypeError(f"{name} metadata must be the empty string, got {metadata!r}")
        return
    if name == JSON and metadata not in ("",):
        try:
            obj = json.loads(metadata)
        except ValueError as e:
            raise ExtensionTypeError(f"malformed {name} metadata {metadata!r}: {e}") from None
        if not isinstance(obj, dict):
            raise ExtensionTypeError(f"{name} metadata must be a JSON object, got {metadata!r}")
        return
    if name in (OPAQUE, FIXED_SHAPE_TENSOR) or (name == VARIABLE_SHAPE_TENSOR and metadata):
        try:
            obj = json.loads(metadata)
        except ValueError as e:
            raise ExtensionTypeError(f"malformed {name} metadata {metadata!r}: {e}") from None
        if not isinstance(obj, dict):
            raise ExtensionTypeError(f"{name} metadata must be a JSON object, got {metadata!r}")


@functools.lru_cache(maxsize=1024)
def make_type(name: str, metadata: str, storage: pa.DataType) -> pa.DataType:
    """Builds the registered extension type for an identity, validated by its deserializer.

    Returns the storage type unchanged when no type of that name is registered (the caller
    then keeps the identity as ``ARROW:extension:*`` field metadata).

    Raises:
        ExtensionTypeError: when the metadata or storage violates the type's definition.
    """
    _validate_metadata(name, metadata)
    if name == VARIABLE_SHAPE_TENSOR and metadata == "":
        metadata = "{}"  # the spec allows "", Arrow C++ 26's deserializer needs a JSON object
    f = pa.field("x", storage, metadata={EXT_NAME: name, EXT_METADATA: metadata})
    try:
        t = pa.ipc.read_schema(pa.schema([f]).serialize()).field(0).type
    except ExtensionTypeError:
        raise
    except (pa.ArrowException, ValueError, TypeError, KeyError) as e:
        raise ExtensionTypeError(f"invalid {name} (metadata {metadata!r}, storage {storage}): "
                                 f"{e}") from None
    return t


def variable_shape_tensor(value_type: pa.DataType, ndim: int, dim_names=None, permutation=None,
                          uniform_shape=None) -> pa.DataType:
    """Returns the ``arrow.variable_shape_tensor`` type.

    pyarrow 26 has no Python class for it, but Arrow C++ registers it: this returns that native
    type (so Parquet, IPC and the C data interface handle it like any built-in). Storage:
    ``struct<data: list<value_type>, shape: fixed_size_list<int32>[ndim]>``.
    """
    storage = pa.struct([pa.field("data", pa.list_(value_type)),
                         pa.field("shape", pa.list_(pa.int32(), ndim))])
    params = {}
    if dim_names is not None:
        params["dim_names"] = list(dim_names)
    if permutation is not None:
        params["permutation"] = list(permutation)
    if uniform_shape is not None:
        params["uniform_shape"] = list(uniform_shape)
    return make_type(VARIABLE_SHAPE_TENSOR, json.dumps(params), storage)


def tensor_params(t: pa.DataType) -> dict:
    """The parameters of a tensor type as a dict (``shape``, ``dim_names``, ...)."""
    ident = identity_of(t)
    if ident.name not in (FIXED_SHAPE_TENSOR, VARIABLE_SHAPE_TENSOR):
        raise ExtensionTypeError(f"{ident.name} is not a tensor type")
    params = json.loads(ident.metadata) if ident.metadata else {}
    st = ident.storage
    if ident.name == FIXED_SHAPE_TENSOR:
        params["value_type"] = st.value_type
    else:
        params["value_type"] = st.field("data").type.value_type
        params["ndim"] = st.field("shape").type.list_size
    return params


def register() -> None:
    """Makes all eight canonical types usable in pyarrow (idempotent).

    Five are pyarrow built-ins (``pa.uuid()``, ``pa.json_()``, ``pa.bool8()``,
    ``pa.opaque(...)``, ``pa.fixed_shape_tensor(...)``) and ``arrow.variable_shape_tensor`` is
    registered by Arrow C++; this registers :class:`VariantType` for ``arrow.parquet.variant``
    and :class:`TimestampWithOffsetType` for ``arrow.timestamp_with_offset``.
    pyarrow 26's Parquet writer crashes on that registered type: see
    :func:`superspark.arrow.parquet_variant_guard`.
    """
    try:
        pa.register_extension_type(VariantType())
    except pa.ArrowKeyError:
        pass  # already registered (by us, on re-import)
    try:
        pa.register_extension_type(TimestampWithOffsetType())
    except pa.ArrowKeyError:
        pass  # already registered (by us, on re-import, or by a later pyarrow)
