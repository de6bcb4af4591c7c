"""A minimal hand-rolled Super Binary *encoder* for crafting test files byte by byte
(including malformed ones). It is independent of the JVM codec under test."""

import struct


def uvarint(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def frame(kind, payload):
    """kind: 0 types, 1 values, 2 control. Uncompressed frame."""
    n = len(payload)
    return bytes([(kind << 4) | (n & 0xF)]) + uvarint(n >> 4) + payload


def name(s):
    b = s.encode("utf-8") if isinstance(s, str) else s
    return uvarint(len(b)) + b


def tagged(body):
    return b"\x00" if body is None else uvarint(len(body) + 1) + body


def counted_unsigned(u):
    out = bytearray()
    while u:
        out.append(u & 0xFF)
        u >>= 8
    return bytes(out)


def counted_signed(v):
    u = (v << 1) if v >= 0 else ((-v) << 1) | 1
    return counted_unsigned(u)


def record_typedef(fields):
    """fields: [(name, type_id)]"""
    out = b"\x00" + uvarint(len(fields))
    for n, t in fields:
        out += name(n) + uvarint(t)
    return out


def f64(x):
    return struct.pack("<d", x)


EOS = b"\xff"

# Primitive ids
UINT8, UINT16, UINT32, UINT64 = 0, 1, 2, 3
INT8, INT16, INT32, INT64 = 6, 7, 8, 9
DURATION, TIME = 12, 13
FLOAT16, FLOAT32, FLOAT64 = 14, 15, 16
BOOL, BYTES, STRING, IP, NET, TYPE, NULL = 23, 24, 25, 26, 27, 28, 29


def write(path, data):
    with open(path, "wb") as f:
        f.write(data)
    return path


def rec_value(type_id, *fields):
    """A value of record type `type_id` whose fields have the bodies `fields` (None: null)."""
    return uvarint(type_id) + tagged(b"".join(tagged(x) for x in fields))
