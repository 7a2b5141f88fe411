"""numpy kernels for every catalog row: `KERNELS[name](op, *arrays) -> ndarray`.

Kernels return exactly the dtype inference promised (numpy would sometimes widen, e.g. the sum
of int32), and follow numpy's semantics where numpy has the operation.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from tf8.errors import ShapeGuardError
from tf8.ops import dtypes as dt
from tf8.ops.gather import gather_kernel, scatter_add_kernel

Kernel = Callable[..., np.ndarray]


def _unary(fn: Callable[[np.ndarray], Any]) -> Kernel:
    kernel = lambda op, x: fn(x)  # noqa: E731
    kernel.direct = fn  # type: ignore[attr-defined]  # the eager fast path calls fn itself
    return kernel


def _binary(fn: Callable[[np.ndarray, np.ndarray], Any]) -> Kernel:
    kernel = lambda op, x, y: fn(x, y)  # noqa: E731
    kernel.direct = fn  # type: ignore[attr-defined]  # the eager fast path calls fn itself
    return kernel


def _div(op: Any, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    if x.dtype.kind in "iu":  # integer division truncates toward zero, as XLA and C do; x/0 = 0
        # In integers throughout: a float64 quotient is wrong beyond 2**53.
        safe = np.where(y == 0, 1, y)
        q = np.asarray(np.floor_divide(x, safe))
        inexact_negative = (x - q * safe != 0) & ((x < 0) != (safe < 0))
        return np.where(y == 0, 0, q + inexact_negative).astype(x.dtype, copy=False)
    return np.true_divide(x, y)


def _rem(op: Any, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    if x.dtype.kind == "c":
        return np.asarray(x - y * np.floor((x / y).real))
    return np.remainder(x, y)


def _pow(op: Any, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    if x.dtype.kind == "i":  # numpy refuses negative integer powers; follow XLA (0, or ±1)
        neg = y < 0
        if np.any(neg):
            safe = np.power(x, np.where(neg, 0, y))
            ones = (x == 1) | ((x == -1) & (y % 2 == 0))
            minus = (x == -1) & (y % 2 == 1)
            return np.where(neg, np.where(ones, 1, np.where(minus, -1, 0)), safe).astype(x.dtype)
    return np.power(x, y)


def _complex(op: Any, re: np.ndarray, im: np.ndarray) -> np.ndarray:
    # Not re + 1j * im: 1j * inf is nan + inf j, so complex(1, inf) would get a nan real part.
    out = np.empty(re.shape, dt.complex_dtype(re.dtype))
    out.real, out.imag = re, im
    return out


def _abs(op: Any, x: np.ndarray) -> np.ndarray:
    return np.abs(x)


def _sign(op: Any, x: np.ndarray) -> np.ndarray:
    if x.dtype.kind == "c":
        mag = np.abs(x)
        return np.where(mag == 0, 0, x / np.where(mag == 0, 1, mag)).astype(x.dtype)
    return np.sign(x)


COMPARISONS = {  # compare's `direction` parameter → its ufunc (also used by regions)
    "eq": np.equal,
    "ne": np.not_equal,
    "lt": np.less,
    "le": np.less_equal,
    "gt": np.greater,
    "ge": np.greater_equal,
}


def _compare(op: Any, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    return COMPARISONS[op["direction"]](x, y)


def _logical(fn_bool: Callable, fn_int: Callable) -> Kernel:
    return lambda op, *xs: (fn_bool if xs[0].dtype == np.bool_ else fn_int)(*xs)


def _as_kind(x: np.ndarray, kind: str) -> np.ndarray:
    """`x`'s bits viewed as the signed ("i") or unsigned ("u") integers of its width."""
    return np.asarray(x).view(np.dtype(f"{kind}{x.dtype.itemsize}"))


# numpy defines shifts by amounts outside [0, bits) as XLA does: left and logical right
# shifts give 0, arithmetic right shifts fill with the sign bit (an amount that is negative
# as a signed integer is huge as an unsigned one). So each shift is one ufunc on views of
# the operands' bits, with no masks or copies.


def _shift_left(op: Any, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    return np.left_shift(x, y)


def _shift_right_logical(op: Any, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    return np.right_shift(_as_kind(x, "u"), _as_kind(y, "u")).view(x.dtype)


def _shift_right_arithmetic(op: Any, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    return np.right_shift(_as_kind(x, "i"), _as_kind(y, "i")).view(x.dtype)


def _bitcast_convert_type(op: Any, x: np.ndarray) -> np.ndarray:
    contiguous = x if x.flags.c_contiguous else x.copy()  # a view needs contiguous bits
    return contiguous.view(np.dtype(op["dtype"]))


def _dot_general(op: Any, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    (lc, rc), (lb, rb) = op["contracting"], op["batch"]
    # Axes may be negative (inference accepts them); the free-axis scan below needs them >= 0.
    lc, lb = tuple(a % x.ndim for a in lc), tuple(a % x.ndim for a in lb)
    rc, rb = tuple(a % y.ndim for a in rc), tuple(a % y.ndim for a in rb)
    if not lb and x.ndim <= 2 and y.ndim <= 2:  # matrix and vector products straight to BLAS
        if len(lc) == 1:
            if lc == (x.ndim - 1,) and rc == (0,):
                return x @ y
            if x.ndim == 2 and lc == (0,) and rc == (0,):
                return x.T @ y
            if y.ndim == 2 and lc == (x.ndim - 1,) and rc == (1,):
                return x @ y.T
        elif not lc and x.ndim == 1 and y.ndim == 1:
            return np.multiply.outer(x, y)
    lf = [i for i in range(x.ndim) if i not in lc and i not in lb]
    rf = [i for i in range(y.ndim) if i not in rc and i not in rb]
    # Bring batch dims first, then free, then contracting: a batched matmul for np.matmul.
    xs = x.transpose(list(lb) + lf + list(lc))
    ys = y.transpose(list(rb) + list(rc) + rf)
    batch = xs.shape[: len(lb)]
    m = math.prod(xs.shape[len(lb) : len(lb) + len(lf)])  # math.prod: np.prod costs µs here
    k = math.prod(xs.shape[len(lb) + len(lf) :])
    n = math.prod(ys.shape[len(rb) + len(rc) :])
    if k == 1 and batch:  # outer products (a vmapped vector transpose): broadcasting is exact
        out = np.multiply(xs.reshape(batch + (m, 1)), ys.reshape(batch + (1, n)))
    else:
        out = np.matmul(xs.reshape(batch + (m, k)), ys.reshape(batch + (k, n)))
    shape = batch + xs.shape[len(lb) : len(lb) + len(lf)] + ys.shape[len(rb) + len(rc) :]
    return out.reshape(shape)


def _reduction(ufunc: np.ufunc) -> Kernel:
    """`ufunc.reduce` over the op's axes: what np.sum/np.max call, minus their Python layer.
    Sums and products stay in the input's dtype (numpy would widen small ints)."""
    reduce = ufunc.reduce
    keep_dtype = ufunc is np.add or ufunc is np.multiply

    def kernel(op: Any, x: np.ndarray) -> np.ndarray:
        axes = tuple(op["axes"])
        if keep_dtype:
            return reduce(x, axis=axes, dtype=x.dtype)
        return reduce(x, axis=axes)

    return kernel


def _argreduce(fn: Callable) -> Kernel:
    return lambda op, x: fn(x, axis=op["axis"]).astype(np.int64)


def _cumsum(op: Any, x: np.ndarray) -> np.ndarray:
    if x.ndim == 0:  # one element (np.cumsum would return shape (1,), inference says ())
        return x.copy()
    axis = op["axis"]
    if op["reverse"]:
        return np.flip(np.cumsum(np.flip(x, axis), axis=axis, dtype=x.dtype), axis)
    return np.cumsum(x, axis=axis, dtype=x.dtype)


def _broadcast_in_dim(op: Any, x: np.ndarray) -> np.ndarray:
    shape, dims = op["shape"], op["broadcast_dimensions"]
    expanded = [1] * len(shape)
    for axis, d in zip(dims, x.shape):
        expanded[axis] = d
    return np.broadcast_to(x.reshape(expanded), shape)


def _convert(op: Any, x: np.ndarray) -> np.ndarray:
    target = np.dtype(op["dtype"])
    if x.dtype.kind == "c" and target.kind != "c":
        x = x.real
    return x.astype(target)


def _extract_diag(op: Any, x: np.ndarray) -> np.ndarray:
    return np.diagonal(x, axis1=-2, axis2=-1).copy()


def _embed_diag(op: Any, x: np.ndarray) -> np.ndarray:
    n = x.shape[-1]
    out = np.zeros(x.shape + (n,), dtype=x.dtype)
    idx = np.arange(n)
    out[..., idx, idx] = x
    return out


def _slice(op: Any, x: np.ndarray) -> np.ndarray:
    strides = op["strides"] or (1,) * x.ndim
    return x[tuple(slice(a, b, s) for a, b, s in zip(op["start"], op["limit"], strides))]


def _clamped_starts(shape: tuple[int, ...], sizes: tuple[int, ...], starts: tuple) -> list[int]:
    return [int(min(max(int(s), 0), d - z)) for s, d, z in zip(starts, shape, sizes)]


def _dynamic_slice(op: Any, x: np.ndarray, *starts: np.ndarray) -> np.ndarray:
    sizes = op["slice_sizes"]
    begin = _clamped_starts(x.shape, sizes, starts)
    return x[tuple(slice(b, b + z) for b, z in zip(begin, sizes))]


def _dynamic_update_slice(
    op: Any, x: np.ndarray, update: np.ndarray, *starts: np.ndarray
) -> np.ndarray:
    begin = _clamped_starts(x.shape, update.shape, starts)
    out = x.copy()
    out[tuple(slice(b, b + z) for b, z in zip(begin, update.shape))] = update
    return out


def _pad(op: Any, x: np.ndarray, value: np.ndarray) -> np.ndarray:
    config = op["config"]
    inner = [d + max(d - 1, 0) * i for d, (_, _, i) in zip(x.shape, config)]
    grown = [max(lo, 0) + n + max(hi, 0) for n, (lo, hi, _) in zip(inner, config)]
    out = np.full(grown, value, dtype=x.dtype)
    interior = tuple(
        slice(max(lo, 0), max(lo, 0) + n, i + 1) for n, (lo, _, i) in zip(inner, config)
    )
    out[interior] = x
    # Negative padding crops.
    crop = tuple(slice(-min(lo, 0), g + min(hi, 0)) for g, (lo, hi, _) in zip(grown, config))
    return out[crop]


def _iota(op: Any) -> np.ndarray:
    shape, dim = tuple(op["shape"]), op["dimension"]
    ramp = np.arange(shape[dim], dtype=np.dtype(op["dtype"]))
    view = [1] * len(shape)
    view[dim] = shape[dim]
    return np.broadcast_to(ramp.reshape(view), shape)


def _dynamic_truncate(op: Any, x: np.ndarray, size: np.ndarray) -> np.ndarray:
    axis = op["axis"]
    n = int(size)
    if not 0 <= n <= x.shape[axis]:
        raise ShapeGuardError(f"dynamic_truncate: size {n} outside [0, {x.shape[axis]}]")
    return np.take(x, np.arange(n), axis=axis)


def _pad_to_match(op: Any, x: np.ndarray, ref: np.ndarray) -> np.ndarray:
    axis = op["axis"]
    extra = ref.shape[axis] - x.shape[axis]
    if extra < 0:
        raise ShapeGuardError(
            f"pad_to_match: axis {axis} of {x.shape} is longer than the reference {ref.shape}"
        )
    widths = [(0, 0)] * x.ndim
    widths[axis] = (0, extra)
    return np.pad(x, widths)


KERNELS: dict[str, Kernel] = {
    "add": _binary(np.add),
    "sub": _binary(np.subtract),
    "mul": _binary(np.multiply),
    "div": _div,
    "rem": _rem,
    "pow": _pow,
    "neg": _unary(np.negative),
    "conj": _unary(np.conj),
    "real": _unary(lambda x: np.real(x).copy()),
    "imag": _unary(lambda x: np.imag(x).copy()),
    "complex": _complex,
    "abs": _abs,
    "sign": _sign,
    "maximum": _binary(np.maximum),
    "minimum": _binary(np.minimum),
    "clamp": lambda op, lo, x, hi: np.minimum(np.maximum(x, lo), hi),
    "compare": _compare,
    "select": lambda op, p, a, b: np.where(p, a, b),
    "and": _logical(np.logical_and, np.bitwise_and),
    "or": _logical(np.logical_or, np.bitwise_or),
    "not": _logical(np.logical_not, np.invert),
    "xor": _logical(np.logical_xor, np.bitwise_xor),
    "shift_left": _shift_left,
    "shift_right_logical": _shift_right_logical,
    "shift_right_arithmetic": _shift_right_arithmetic,
    "bitcast_convert_type": _bitcast_convert_type,
    "floor": _unary(np.floor),
    "ceil": _unary(np.ceil),
    "round": _unary(np.round),
    "dot_general": _dot_general,
    "reduce_sum": _reduction(np.add),
    "reduce_prod": _reduction(np.multiply),
    "reduce_max": _reduction(np.maximum),
    "reduce_min": _reduction(np.minimum),
    "argmax": _argreduce(np.argmax),
    "argmin": _argreduce(np.argmin),
    "cumsum": _cumsum,
    "transpose": lambda op, x: np.transpose(x, op["permutation"]),
    "reshape": lambda op, x: np.reshape(x, op["shape"]),
    "broadcast_in_dim": _broadcast_in_dim,
    "convert": _convert,
    "extract_diag": _extract_diag,
    "embed_diag": _embed_diag,
    "tril": lambda op, x: np.tril(x, op["k"]),
    "triu": lambda op, x: np.triu(x, op["k"]),
    "slice": _slice,
    "dynamic_slice": _dynamic_slice,
    "dynamic_update_slice": _dynamic_update_slice,
    "pad": _pad,
    "concatenate": lambda op, *xs: np.concatenate(xs, axis=op["axis"]),
    "reverse": lambda op, x: np.flip(x, op["axes"]),
    "iota": _iota,
    "shape_of": lambda op, x: np.asarray(x.shape[op["axis"]], dtype=np.int64),
    "dynamic_truncate": _dynamic_truncate,
    "pad_to_match": _pad_to_match,
    "constant": lambda op: op["value"].array,
    "gather": gather_kernel,
    "scatter_add": scatter_add_kernel,
}
