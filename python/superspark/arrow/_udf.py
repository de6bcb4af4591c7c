"""Arrow Python UDFs (``pyspark.sql.functions.arrow_udf``) with canonical extension types.

Spark hands an Arrow UDF plain ``pyarrow.Array`` values: a UDF's inputs are expressions, so no
field metadata reaches the function. :func:`arrow_udf` takes the Arrow types of the arguments
(``argTypes``, e.g. from :func:`superspark.arrow.arrow_type_of`), rewraps the storage arrays as
extension arrays (zero copy where the layouts match), and turns a result of the declared
``returnType`` (an extension type, or a type holding some) back into Spark's layout; the
result column carries the identity in its field metadata.
"""

from __future__ import annotations

import inspect
import re
import warnings
from typing import Optional

import pyarrow as pa

from superspark.arrow import _nested as N
from superspark.arrow import _types as T
from superspark.arrow._convert import Nested, _auto_variants, _derive_storage, nested_full_type
from superspark.arrow._spark import (
    _expected_spark_type, _ident, _spec_of, _tag, _unwire, _unwrap_column, _wire)
from superspark.arrow._storage import conform
from superspark.arrow._types import ExtensionTypeError

__all__ = ["ArrowUDF", "arrow_udf"]


def _wrap_array(arr: pa.Array, spec) -> pa.Array:
    """An argument array as the extension type of its spec (None: Spark variants only)."""
    if isinstance(arr, pa.ChunkedArray):
        arr = arr.combine_chunks()
    if spec is None:
        full = _auto_variants(pa.struct([pa.field("x", arr.type)])).field(0).type
        return arr if full == arr.type and not isinstance(full, pa.BaseExtensionType) \
            else conform(arr, full)
    if isinstance(spec, Nested):
        return conform(arr, nested_full_type(spec, arr.type))
    storage = spec.storage if spec.storage is not None else _derive_storage(spec, arr.type)
    ext = T.make_type(spec.name, spec.metadata, storage)
    return conform(arr, ext)


def _spec_of_type(t) -> Optional[object]:
    if t is None:
        return None
    if not isinstance(t, pa.DataType):
        raise TypeError(f"argTypes entries must be pyarrow types or None, not {t!r}")
    if isinstance(t, pa.BaseExtensionType) or N.has_nested_extension(t):
        return _ident(t)
    return None


def _column_name(c) -> str:
    if isinstance(c, str):
        return c
    m = re.fullmatch(r"Column<'(.*)'>", repr(c), re.S)
    return m.group(1) if m else repr(c)


class ArrowUDF:
    """An Arrow UDF whose arguments and result carry canonical extension types; call it
    with columns (names or Columns) like a pyspark UDF. ``.udf`` is the pyspark UDF."""

    def __init__(self, fn, return_type, function_type, arg_types):
        from superspark.arrow._pyspark import spark_arrow_udf as _spark_arrow_udf
        from superspark.arrow._pyspark import to_arrow_type

        spark_arrow_udf = _spark_arrow_udf()  # pyspark 4.1+, else a clear error
        from pyspark.sql.pandas.typehints import infer_arrow_eval_type
        from pyspark.sql.types import StructField
        from pyspark.util import PythonEvalType as E

        self.func = fn
        eval_type = function_type
        if eval_type is None and inspect.getfullargspec(fn).annotations:
            from typing import get_type_hints
            eval_type = infer_arrow_eval_type(inspect.signature(fn), get_type_hints(fn))
        self.evalType = eval_type or E.SQL_SCALAR_ARROW_UDF

        self.arrowType = return_type if isinstance(return_type, pa.DataType) else None
        spec = _spec_of_type(self.arrowType)
        if self.arrowType is not None:
            spark_type = (_expected_spark_type(spec) if spec is not None else
                          _spark_type_of(self.arrowType))
        else:
            spark_type = return_type
        params = [p.name for p in inspect.signature(fn).parameters.values()]
        if isinstance(arg_types, dict):
            unknown = set(arg_types) - set(params)
            if unknown:
                raise ValueError(f"argTypes names no parameter of {fn.__name__}: {sorted(unknown)}")
            wired_by_name = {k: _wire_opt(_spec_of_type(v)) for k, v in arg_types.items()}
            wired = [wired_by_name.get(p) for p in params]
        else:
            wired = [_wire_opt(_spec_of_type(t)) for t in (arg_types or [])]
            wired_by_name = {p: w for p, w in zip(params, wired)}

        cfg = {}  # the output's wired spec and Arrow type, filled in below
        run = _runner(fn, self.evalType, wired, wired_by_name, cfg)
        run.__name__, run.__qualname__ = fn.__name__, fn.__qualname__
        with warnings.catch_warnings():  # the eval type is passed explicitly on purpose
            warnings.simplefilter("ignore", UserWarning)
            self.udf = spark_arrow_udf(run, spark_type, self.evalType)
        self.returnType = self.udf.returnType
        if spec is None:  # a Spark VariantType result (also nested) is arrow.parquet.variant
            spec = _spec_of(StructField("r", self.returnType, True))
        self._out_spec = spec
        target = to_arrow_type(self.returnType)
        cfg["out"] = (None if spec is None else _wire(spec),
                      pa.schema([pa.field("r", target)]).serialize().to_pybytes())
        self._metadata = _tag(spec) if spec is not None and self.arrowType is not None else None

    def __call__(self, *cols, **kwcols):
        col = self.udf(*cols, **kwcols)
        if not self._metadata:
            return col
        names = [_column_name(c) for c in cols] + [f"{k} => {_column_name(v)}"
                                                   for k, v in kwcols.items()]
        return col.alias(f"{self.func.__name__}({', '.join(names)})", metadata=self._metadata)


def _wire_opt(spec):
    return None if spec is None else _wire(spec)


def _spark_type_of(t: pa.DataType):
    from pyspark.sql.pandas.types import from_arrow_type

    return from_arrow_type(t)


def _runner(fn, eval_type, wired, wired_by_name, cfg):
    """The function Spark runs: converts arguments and the result around ``fn``."""
    from pyspark.util import PythonEvalType as E

    state = {}

    def load():
        if not state:
            import superspark.arrow  # noqa: F401  (registers the types in the worker)

            out_spec, target_bytes = cfg["out"]
            state["args"] = [None if w is None else _unwire(w) for w in wired]
            state["kwargs"] = {k: None if w is None else _unwire(w)
                               for k, w in wired_by_name.items()}
            state["out"] = None if out_spec is None else _unwire(out_spec)
            state["target"] = pa.ipc.read_schema(pa.py_buffer(target_bytes)).field(0)
        return state

    def arg(i, a):
        specs = state["args"]
        return _wrap_array(a, specs[i] if i < len(specs) else None)

    def kwarg(k, a):
        return _wrap_array(a, state["kwargs"].get(k))

    def result(r):
        try:
            if isinstance(r, pa.Scalar):  # grouped aggregate
                arr = (pa.ExtensionArray.from_storage(r.type, pa.array([r.value],
                                                                       r.type.storage_type))
                       if isinstance(r, pa.ExtensionScalar) else pa.array([r], r.type))
                return _unwrap_column(arr, state["target"], state["out"])[0]
            if isinstance(r, (pa.Array, pa.ChunkedArray)):
                return _unwrap_column(r, state["target"], state["out"])
        except (ExtensionTypeError, pa.ArrowException) as e:
            raise ExtensionTypeError(f"result of {fn.__name__}: {e}") from None
        return r  # a Python value: pyspark converts it

    # the iterator aggregate form exists from pyspark 4.2 on (None before: never matches)
    agg_iter = getattr(E, "SQL_GROUPED_AGG_ARROW_ITER_UDF", None)
    if eval_type in (E.SQL_SCALAR_ARROW_ITER_UDF, agg_iter):
        def wrap_item(item):
            if isinstance(item, tuple):
                return tuple(arg(i, a) for i, a in enumerate(item))
            return arg(0, item)

        def run(iterator):
            load()
            out = fn(wrap_item(x) for x in iterator)
            if eval_type == agg_iter:
                return result(out)
            return (result(r) for r in out)
    else:
        def run(*args, **kwargs):
            load()
            return result(fn(*[arg(i, a) for i, a in enumerate(args)],
                             **{k: kwarg(k, a) for k, a in kwargs.items()}))
    return run


def arrow_udf(f=None, returnType=None, functionType=None, *, argTypes=None):
    """``pyspark.sql.functions.arrow_udf`` (Spark 4.1+) with canonical extension types.

    Args:
        f: the function (or use ``@arrow_udf(...)`` as a decorator); its forms are pyspark's
            (arrays -> array, iterator of arrays -> iterator of arrays, arrays -> scalar
            for grouped aggregates, ...), chosen by type hints or ``functionType``.
        returnType: a Spark type or DDL string, or a pyarrow type: an extension type such as
            ``pa.uuid()`` or a type holding some such as ``pa.list_(pa.json_())``; the
            result column then carries it in its field metadata (``to_arrow`` restores it).
        functionType: a ``pyspark.sql.functions.ArrowUDFType`` (default: from type hints).
        argTypes: the Arrow types of the arguments, a list by position or a dict by parameter
            name (None or a plain type for a plain argument), e.g.
            ``[sa.arrow_type_of(df, "id")]``; each argument array is handed to ``f`` as that
            type. VariantType arguments are ``arrow.parquet.variant`` without declaring them.

    A result is checked against the declared ``returnType`` (e.g. tensor sizes); errors are
    :class:`ExtensionTypeError` naming the function.
    """
    from pyspark.sql.types import DataType

    if f is None or isinstance(f, (str, DataType, pa.DataType)):
        rt = f if f is not None else returnType
        ft = functionType
        if ft is None and isinstance(returnType, int) and f is not None:
            ft = returnType

        def decorate(fn):
            return ArrowUDF(fn, rt, ft, argTypes)
        return decorate
    if returnType is None:
        raise TypeError("returnType is required")
    return ArrowUDF(f, returnType, functionType, argTypes)
