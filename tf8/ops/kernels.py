"""numpy kernels for every catalog row: `KERNELS[name](op, *arrays) -> ndarray`.

Kernels return exactly the dtype inference promised (numpy would sometimes widen, e.g. the sum
of int32), and follow numpy's semantics where numpy has the operation.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

import numpy as np

from tf8.errors import ShapeGuardError
from tf8.ops import dtypes as dt
from tf8.ops.gather import gather_kernel, scatter_add_kernel
from tf8.ops.igamma_grad_kernels import igamma_grad_a_kernel, random_gamma_grad_kernel

Kernel = Callable[..., np.ndarray]


def _scipy_special() -> Any:
    """scipy.special, imported when a kernel first needs it (`import tf8` stays fast)."""
    return importlib.import_module("scipy.special")


def _special(name: str) -> Kernel:
    """The kernel of scipy.special.`name`, its result in the operands' dtype: scipy has no
    float16 loops and computes float16 in float32 or float64."""

    def kernel(op: Any, *xs: np.ndarray) -> np.ndarray:
        out = getattr(_scipy_special(), name)(*xs)
        return out if out.dtype == xs[-1].dtype else out.astype(xs[-1].dtype)

    return kernel


def _polygamma(op: Any, n: np.ndarray, x: np.ndarray) -> np.ndarray:
    """scipy's polygamma, NaN where n is not a non-negative integer (as JAX's)."""
    valid = (n >= 0) & (n == np.floor(n))
    out = _scipy_special().polygamma(np.where(valid, n, 0).astype(np.int64), x)
    return np.where(valid, out, np.nan).astype(x.dtype)


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


def _convert(op: Any, x: np.ndarray) -> np.ndarray:
    target = np.dtype(op["dtype"])
    if x.dtype.kind == "c" and target.kind != "c":
        x = x.real
    return x.astype(target)


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
    "erf": _special("erf"),
    "erf_inv": _special("erfinv"),
    "ndtri": _special("ndtri"),
    "lgamma": _special("gammaln"),
    "digamma": _special("psi"),
    "polygamma": _polygamma,
    "zeta": _special("zeta"),
    "igamma": _special("gammainc"),
    "igammac": _special("gammaincc"),
    "igamma_grad_a": igamma_grad_a_kernel,
    "random_gamma_grad": random_gamma_grad_kernel,
    "betainc": _special("betainc"),
    "bessel_i0e": _special("i0e"),
    "bessel_i1e": _special("i1e"),
    "floor": _unary(np.floor),
    "ceil": _unary(np.ceil),
    "round": _unary(np.round),
    "convert": _convert,
    "slice": _slice,
    "dynamic_slice": _dynamic_slice,
    "dynamic_update_slice": _dynamic_update_slice,
    "pad": _pad,
    "shape_of": lambda op, x: np.asarray(x.shape[op["axis"]], dtype=np.int64),
    "dynamic_truncate": _dynamic_truncate,
    "pad_to_match": _pad_to_match,
    "constant": lambda op: op["value"].array,
    "gather": gather_kernel,
    "scatter_add": scatter_add_kernel,
}
