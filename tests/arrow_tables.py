"""Arrow tables with every canonical extension type, shared by the test_arrow* files."""

import uuid

import pyarrow as pa

import superspark.arrow as sa

UUIDS = [uuid.UUID("00112233-4455-6677-8899-aabbccddeeff").bytes, None,
         uuid.UUID("12345678-9abc-def0-1234-56789abcdef0").bytes]
# Variant-encoded values: metadata = empty dictionary; value 0x0c 0x01 = int8 1; 0x00 = null.
VARIANT_ROWS = [{"metadata": b"\x01\x00\x00", "value": b"\x0c\x01"}, None,
                {"metadata": b"\x01\x00\x00", "value": b"\x00"}]


def ext(t, storage):
    return pa.ExtensionArray.from_storage(t, storage)


def all_types_table() -> pa.Table:
    vst = sa.variable_shape_tensor(pa.float32(), 2, dim_names=["H", "W"],
                                   uniform_shape=[None, 2])
    fst = pa.fixed_shape_tensor(pa.float64(), [2, 2], dim_names=["x", "y"],
                                permutation=[1, 0])
    return pa.table({
        "u": ext(pa.uuid(), pa.array(UUIDS, pa.binary(16))),
        "j": ext(pa.json_(), pa.array(['{"a":1}', None, "[1,2]"])),
        "b": ext(pa.bool8(), pa.array([1, 0, None], pa.int8())),
        "o": ext(pa.opaque(pa.binary(16), "hugeint", "DuckDB"), pa.array(UUIDS, pa.binary(16))),
        "ft": ext(fst, pa.array([[1, 2, 3, 4], None, [5, 6, 7, 8]], pa.list_(pa.float64(), 4))),
        "vt": ext(vst, pa.array([{"data": [1, 2], "shape": [1, 2]}, None,
                                 {"data": [1, 2, 3, 4, 5, 6], "shape": [3, 2]}],
                                vst.storage_type)),
        "v": ext(sa.variant(), pa.array(VARIANT_ROWS, sa.VARIANT_STORAGE)),
        "plain": pa.array([1, 2, 3], pa.int64()),
    })
