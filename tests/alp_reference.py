"""Independent ALP (parquet-format AlpEncoding.md, Encoding ALP = 10) reference codec in numpy.

Written from the spec alone as a test oracle for the JVM codec (io.superspark.parquet.alp):
decode follows the normative procedure; encode is a simple exhaustive-search encoder.
"""
from fractions import Fraction

import numpy as np

HEADER = 7


def _nearest(exact: Fraction, dtype):
    """The correctly rounded dtype value of an exact rational (no pow(), no double rounding)."""
    c = dtype(float(exact))
    best = c
    for cand in (np.nextafter(c, dtype(0)), np.nextafter(c, dtype(np.inf))):
        if abs(Fraction(float(cand)) - exact) < abs(Fraction(float(best)) - exact):
            best = cand
    return best


def _powers(dtype, max_e):
    pos = np.array([_nearest(Fraction(10) ** k, dtype) for k in range(max_e + 1)], dtype=dtype)
    neg = np.array([_nearest(Fraction(1, 10 ** k), dtype) for k in range(max_e + 1)], dtype=dtype)
    return pos, neg


TYPES = {
    # name: (float dtype, int dtype, unsigned bits dtype, max exponent)
    "double": (np.float64, np.int64, np.uint64, 18),
    "float": (np.float32, np.int32, np.uint32, 10),
}
POW = {name: _powers(t[0], t[3]) for name, t in TYPES.items()}


class AlpError(ValueError):
    pass


def _unpack(buf: bytes, pos: int, n: int, width: int) -> list:
    if width == 0:
        return [0] * n
    big = int.from_bytes(buf[pos:pos + (n * width + 7) // 8], "little")
    mask = (1 << width) - 1
    return [(big >> (i * width)) & mask for i in range(n)]


def decode(page: bytes, kind: str) -> np.ndarray:
    fdt, idt, udt, max_e = TYPES[kind]
    size = np.dtype(fdt).itemsize
    if len(page) < HEADER:
        raise AlpError("truncated header")
    mode, ienc, log = page[0], page[1], page[2]
    n = int.from_bytes(page[3:7], "little", signed=True)
    if mode != 0 or ienc != 0 or not 3 <= log <= 15 or n < 0:
        raise AlpError(f"bad header {page[:7].hex()}")
    vs = 1 << log
    nv = -(-n // vs)
    body = page[HEADER:]
    if len(body) < nv * 4:
        raise AlpError("truncated offsets")
    out = np.zeros(n, dtype=fdt)
    bits = out.view(udt)
    pos_pow, neg_pow = POW[kind]
    expected = nv * 4
    for v in range(nv):
        off = int.from_bytes(body[4 * v:4 * v + 4], "little")
        if off != expected:
            raise AlpError(f"vector {v} offset {off} != {expected}")
        cnt = min(vs, n - v * vs)
        p = off
        if p + 5 + size > len(body):
            raise AlpError("truncated vector header")
        e, f = body[p], body[p + 1]
        nexc = int.from_bytes(body[p + 2:p + 4], "little")
        frame = int.from_bytes(body[p + 4:p + 4 + size], "little", signed=True)
        width = body[p + 4 + size]
        if e > max_e or f > e or width > 8 * size or nexc > cnt:
            raise AlpError(f"bad vector header at {p}")
        data = p + 5 + size
        packed = (cnt * width + 7) // 8
        end = data + packed + nexc * (2 + size)
        if end > len(body):
            raise AlpError("truncated vector data")
        deltas = _unpack(body, data, cnt, width)
        # unsigned wrapping add in the encoded integer width, then reinterpret as signed
        wrap = 1 << (8 * size)
        ints = np.array([((d + frame) % wrap) for d in deltas], dtype=np.uint64 if size == 8 else np.uint32)
        enc = ints.view(idt)
        dec = enc.astype(fdt) * pos_pow[f] * neg_pow[e]  # normative: two multiplications, own precision
        seg = out[v * vs:v * vs + cnt]
        seg[:] = dec
        xp = data + packed
        xv = xp + 2 * nexc
        for j in range(nexc):
            i = int.from_bytes(body[xp + 2 * j:xp + 2 * j + 2], "little")
            if i >= cnt:
                raise AlpError(f"exception position {i} >= {cnt}")
            bits[v * vs + i] = int.from_bytes(body[xv + size * j:xv + size * (j + 1)], "little")
        expected = end
    if expected != len(body):
        raise AlpError("trailing bytes")
    return out


def _try(vals: np.ndarray, kind: str, e: int, f: int):
    fdt, idt, udt, _ = TYPES[kind]
    pos_pow, neg_pow = POW[kind]
    with np.errstate(all="ignore"):
        scaled = np.rint(vals * pos_pow[e] * neg_pow[f]).astype(np.float64)
        info = np.iinfo(idt)
        ok = np.isfinite(scaled) & (scaled >= info.min) & (scaled < float(info.max) + 1)
        enc = np.where(ok, scaled, 0).astype(idt)
        back = enc.astype(fdt) * pos_pow[f] * neg_pow[e]
    ok &= back.view(udt) == vals.view(udt)
    return enc.astype(np.int64), ~ok


def _encode_vector(vals: np.ndarray, kind: str) -> bytes:
    fdt, idt, udt, max_e = TYPES[kind]
    size = np.dtype(fdt).itemsize
    best = None
    for e in range(max_e + 1):
        for f in range(e + 1):
            enc, exc = _try(vals, kind, e, f)
            good = enc[~exc]
            width = int(good.max() - good.min()).bit_length() if good.size else 0
            cost = len(vals) * width + int(exc.sum()) * (16 + 8 * size)
            if best is None or cost < best[0]:
                best = (cost, e, f, enc, exc)
    _, e, f, enc, exc = best
    enc = [int(x) for x in enc]
    excs = [i for i in range(len(vals)) if exc[i]]
    good = [enc[i] for i in range(len(vals)) if not exc[i]]
    placeholder = good[0] if good else 0
    for i in excs:
        enc[i] = placeholder
    lo = min(enc)
    deltas = [x - lo for x in enc]
    width = max(deltas).bit_length()
    packed = sum(d << (i * width) for i, d in enumerate(deltas)).to_bytes((len(vals) * width + 7) // 8, "little")
    raw = vals.view(udt)
    return (bytes([e, f]) + len(excs).to_bytes(2, "little") + lo.to_bytes(size, "little", signed=True)
            + bytes([width]) + packed + b"".join(i.to_bytes(2, "little") for i in excs)
            + b"".join(int(raw[i]).to_bytes(size, "little") for i in excs))


def encode(values, kind: str, log_vector_size: int = 10) -> bytes:
    fdt = TYPES[kind][0]
    vals = np.ascontiguousarray(values, dtype=fdt)
    vs = 1 << log_vector_size
    vectors = [_encode_vector(vals[i:i + vs], kind) for i in range(0, len(vals), vs)]
    offsets, off = [], 4 * len(vectors)
    for v in vectors:
        offsets.append(off.to_bytes(4, "little"))
        off += len(v)
    return bytes([0, 0, log_vector_size]) + len(vals).to_bytes(4, "little") + b"".join(offsets) + b"".join(vectors)
