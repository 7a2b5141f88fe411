"""Random test cases for every catalog row: inputs, parameters and the numpy reference result.

`GENERATORS[name](draw, dtype) -> Case` draws one case of primitive `name` whose main operands
have `dtype`, from a `Draw` (a hypothesis-drawn base shape and seed). Shapes include 0-d
arrays and size-0 axes; axes are drawn negative as well as positive where the row accepts
them. References are numpy (or scipy), or the row's documented semantics written out
independently where numpy has no such operation.
`ADMITTED[name]` is the set of dtypes the row's dtype policy accepts, written out here as a
specification rather than read back from `tf8.ops.infer`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.special
from conv_cases import conv_generators
from window_cases import window_generators

from tf8.ops.catalog import DTypePolicy
from tf8.ops.gather import take_params, take_transpose_params
from tf8.ops.primitives import PRIMITIVES

ROWS = [d.row for d in PRIMITIVES.values()]

BOOL = np.dtype(np.bool_)
INTS = (np.dtype(np.uint8), np.dtype(np.uint32), np.dtype(np.int32), np.dtype(np.int64))
FLOATS = (np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.float64))
COMPLEXES = (np.dtype(np.complex64), np.dtype(np.complex128))
NUMERIC = INTS + FLOATS + COMPLEXES
ALL = (BOOL,) + NUMERIC

_BY_POLICY: dict[DTypePolicy, tuple[np.dtype, ...]] = {
    DTypePolicy.SAME_ANY: ALL,
    DTypePolicy.SAME_NUMERIC: NUMERIC,
    DTypePolicy.SAME_FLOAT: FLOATS,
    DTypePolicy.SAME_FLOAT_OR_COMPLEX: FLOATS + COMPLEXES,
    DTypePolicy.SAME_INT_OR_BOOL: (BOOL,) + INTS,
    DTypePolicy.SAME_INT: INTS,
    DTypePolicy.BITCAST: INTS + FLOATS,
    DTypePolicy.COMPARE_TO_BOOL: ALL,
    DTypePolicy.BOOL_SELECT: ALL,
    DTypePolicy.COMPLEX_TO_REAL: NUMERIC,
    DTypePolicy.REAL_TO_COMPLEX: FLOATS,
    DTypePolicy.INDEX: INTS + FLOATS,
    DTypePolicy.CONVERT: ALL,  # the operand's dtype; the target is a parameter
    DTypePolicy.SHAPE: ALL,
    DTypePolicy.CONSTANT: ALL,
}
# Rows whose admitted dtypes are narrower than their policy's.
_OVERRIDES: dict[str, tuple[np.dtype, ...]] = {
    "iota": NUMERIC,  # a ramp 0, 1, 2, ... has no bool form
}
ADMITTED: dict[str, tuple[np.dtype, ...]] = {
    row.name: _OVERRIDES.get(row.name, _BY_POLICY[row.dtype_policy]) for row in ROWS
}


@dataclass
class Case:
    """One call of a primitive: its operands, its parameters and how to compute the result."""

    inputs: list[np.ndarray]
    params: dict[str, Any]
    reference: Callable[[], Any]  # lazy: a refused dtype may have no numpy answer

    def expected(self) -> np.ndarray:
        return np.asarray(self.reference())


class Draw:
    """Where a case's randomness comes from.

    Hypothesis draws a base shape and a seed per example: it shrinks the shape and seeks out
    0-d arrays and size-0 axes. Values and parameters come from a numpy Generator with that
    seed, far cheaper than one hypothesis draw each (the whole table runs in seconds).
    """

    def __init__(self, base_shape: Sequence[int], seed: int) -> None:
        self.base = tuple(base_shape)
        self.rng = np.random.default_rng(seed)

    def shape(self, min_dims: int = 0, max_dims: int = 3, min_side: int = 0) -> tuple[int, ...]:
        """The example's base shape, cut or extended to the rank bounds, sides >= min_side."""
        dims = list(self.base[:max_dims])
        while len(dims) < min_dims:
            dims.append(self.int(min_side, 4))
        return tuple(max(d, min_side) for d in dims)

    def random_shape(self, max_dims: int = 2, max_side: int = 3) -> tuple[int, ...]:
        """A second, independent shape (0-d and size-0 included)."""
        return tuple(self.int(0, max_side) for _ in range(self.int(0, max_dims)))

    def int(self, lo: int, hi: int) -> int:
        """An int in [lo, hi], the bounds twice as likely as the rest."""
        if hi <= lo:
            return lo
        pick = self.rng.integers(-1, hi - lo + 2)
        return int(min(max(pick, 0), hi - lo)) + lo

    def flag(self) -> bool:
        return bool(self.rng.integers(2))

    def choice(self, options: Sequence[Any]) -> Any:
        return options[int(self.rng.integers(len(options)))]

    def permutation(self, items: Sequence[Any]) -> list[Any]:
        return [items[i] for i in self.rng.permutation(len(items))]

    def axis(self, ndim: int) -> int:
        """An axis of a rank-`ndim` array, negative half the time."""
        axis = self.int(0, ndim - 1)
        return axis - ndim if self.flag() else axis

    def axes(self, ndim: int) -> tuple[int, ...]:
        """Distinct axes (possibly none) in random order, some negative."""
        chosen = self.permutation(range(ndim))[: self.int(0, ndim)]
        return tuple(a - ndim if self.flag() else a for a in chosen)

    def array(
        self, dtype: np.dtype, shape: Sequence[int], lo: float = -4, hi: float = 4
    ) -> np.ndarray:
        """`dtype` values with (real and imaginary) parts in [lo, hi]; floats are often whole
        or half numbers, so zeros, ties and rounding cases are common."""
        dtype, shape = np.dtype(dtype), tuple(shape)
        if dtype == BOOL:
            return self.rng.integers(0, 2, shape).astype(BOOL)
        if dtype.kind in "iu":
            low = max(int(np.ceil(lo)), 0) if dtype.kind == "u" else int(np.ceil(lo))
            return self.rng.integers(low, int(np.floor(hi)) + 1, shape).astype(dtype)
        if dtype.kind == "c":
            part = FLOATS[1] if dtype == COMPLEXES[0] else FLOATS[2]
            out = np.empty(shape, dtype)
            out.real, out.imag = self.array(part, shape, lo, hi), self.array(part, shape, lo, hi)
            return out
        values = self.rng.uniform(lo, hi, shape)
        snap = self.rng.integers(0, 4, shape)
        values = np.where(snap == 0, np.round(values), values)
        values = np.where(snap == 1, np.clip(np.round(values * 2) / 2, lo, hi), values)
        return np.asarray(values, dtype)

    def scalar(self, dtype: np.dtype, lo: int, hi: int) -> np.ndarray:
        """An integer in [lo, hi] (lo raised to 0 for an unsigned `dtype`)."""
        lo = max(lo, 0) if np.dtype(dtype).kind == "u" else lo
        return np.asarray(self.int(lo, hi), dtype=dtype)


Generator = Callable[[Draw, np.dtype], Case]


# --- generator factories --------------------------------------------------------------------


def unary(reference: Callable[[np.ndarray], Any], lo: float = -4, hi: float = 4) -> Generator:
    def gen(d: Draw, dtype: np.dtype) -> Case:
        x = d.array(dtype, d.shape(), lo, hi)
        return Case([x], {}, lambda: reference(x))

    return gen


def binary(
    reference: Callable[[np.ndarray, np.ndarray], Any], lo: float = -4, hi: float = 4
) -> Generator:
    def gen(d: Draw, dtype: np.dtype) -> Case:
        shape = d.shape()
        x, y = d.array(dtype, shape, lo, hi), d.array(dtype, shape, lo, hi)
        return Case([x, y], {}, lambda: reference(x, y))

    return gen


# --- references numpy does not have ------------------------------------------------------


def atan2(y: np.ndarray, x: np.ndarray) -> np.ndarray:
    """numpy's arctan2; on complex operands XLA's (JAX's) continuation -i log((x + iy) / |.|),
    |.| = sqrt(x² + y²)."""
    if y.dtype.kind != "c":
        return np.arctan2(y, x)
    return (-1j * np.log((x + 1j * y) / np.sqrt(x * x + y * y))).astype(y.dtype)


def trunc_div(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Integer division rounding toward zero, x / 0 == 0 (the catalog's `div` on ints)."""
    out = np.zeros(x.shape, x.dtype)
    for index in np.ndindex(x.shape):
        a, b = int(x[index]), int(y[index])
        if b:
            q = abs(a) // abs(b)
            out[index] = q if (a < 0) == (b < 0) else -q
    return out


def complex_rem(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """`rem` on complex operands: x - y * floor(Re(x / y)) (numpy has no complex remainder)."""
    return x - y * np.floor((x / y).real)


def int_pow(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Integer power with XLA's answer for negative exponents (1 or -1 for ±1, else 0)."""
    out = np.zeros(x.shape, x.dtype)
    for index in np.ndindex(x.shape):
        a, b = int(x[index]), int(y[index])
        if b >= 0:
            out[index] = np.asarray(a**b).astype(x.dtype)  # unsigned powers wrap around
        elif a == 1 or (a == -1 and b % 2 == 0):
            out[index] = 1
        elif a == -1:
            out[index] = -1
    return out


def make_complex(re: np.ndarray, im: np.ndarray) -> np.ndarray:
    out = np.empty(re.shape, np.result_type(re.dtype, np.complex64))
    out.real, out.imag = re, im
    return out


def logical(bool_fn: Callable, int_fn: Callable) -> Callable:
    return lambda *xs: (bool_fn if xs[0].dtype == BOOL else int_fn)(*xs)


def pad_reference(x: np.ndarray, value: np.ndarray, config: Sequence[tuple]) -> np.ndarray:
    """lax.pad: element i of an axis lands at lo + i * (interior + 1); negative lo/hi crop."""
    out_shape = [
        lo + hi + d + max(d - 1, 0) * interior for d, (lo, hi, interior) in zip(x.shape, config)
    ]
    out = np.full(out_shape, value, x.dtype)
    for index in np.ndindex(x.shape):
        target = tuple(lo + i * (inner + 1) for i, (lo, _, inner) in zip(index, config))
        if all(0 <= t < n for t, n in zip(target, out_shape)):
            out[target] = x[index]
    return out


# --- per-row generators -----------------------------------------------------------------------


def gen_div(d: Draw, dtype: np.dtype) -> Case:
    shape = d.shape()
    x, y = d.array(dtype, shape, -20, 20), d.array(dtype, shape, -5, 5)
    return Case([x, y], {}, lambda: trunc_div(x, y) if dtype.kind in "iu" else x / y)


def gen_rem(d: Draw, dtype: np.dtype) -> Case:
    shape = d.shape()
    x, y = d.array(dtype, shape, -20, 20), d.array(dtype, shape, -5, 5)
    return Case([x, y], {}, lambda: complex_rem(x, y) if dtype.kind == "c" else np.remainder(x, y))


def gen_fmod(d: Draw, dtype: np.dtype) -> Case:
    shape = d.shape()
    x, y = d.array(dtype, shape, -20, 20), d.array(dtype, shape, -5, 5)
    if dtype.kind == "c":  # C's remainder of a complex quotient: trunc(Re(x / y))
        return Case([x, y], {}, lambda: x - y * np.trunc((x / y).real))
    return Case([x, y], {}, lambda: np.fmod(x, y))


def gen_pow(d: Draw, dtype: np.dtype) -> Case:
    shape = d.shape()
    x, y = d.array(dtype, shape, -4, 4), d.array(dtype, shape, -3, 5)
    return Case([x, y], {}, lambda: int_pow(x, y) if dtype.kind in "iu" else np.power(x, y))


def gen_complex(d: Draw, dtype: np.dtype) -> Case:
    shape = d.shape()
    re, im = d.array(dtype, shape), d.array(dtype, shape)
    return Case([re, im], {}, lambda: make_complex(re, im))


def gen_clamp(d: Draw, dtype: np.dtype) -> Case:
    shape = d.shape()
    lo, x, hi = (d.array(dtype, shape) for _ in range(3))
    return Case([lo, x, hi], {}, lambda: np.minimum(np.maximum(x, lo), hi))


_COMPARISONS = {
    "eq": np.equal,
    "ne": np.not_equal,
    "lt": np.less,
    "le": np.less_equal,
    "gt": np.greater,
    "ge": np.greater_equal,
}


def gen_compare(d: Draw, dtype: np.dtype) -> Case:
    shape = d.shape()
    # a narrow range so that equal elements are common
    x, y = d.array(dtype, shape, -2, 2), d.array(dtype, shape, -2, 2)
    direction = d.choice(sorted(_COMPARISONS))
    return Case([x, y], {"direction": direction}, lambda: _COMPARISONS[direction](x, y))


def gen_select(d: Draw, dtype: np.dtype) -> Case:
    shape = d.shape()
    pred = d.array(BOOL, shape)
    a, b = d.array(dtype, shape), d.array(dtype, shape)
    return Case([pred, a, b], {}, lambda: np.where(pred, a, b))


def gen_dot_general(d: Draw, dtype: np.dtype) -> Case:
    """Random batch / contracting / free axes in random positions, against einsum."""
    n_batch = d.int(0, 1)
    n_contract = d.int(0, 2)
    n_lfree, n_rfree = d.int(0, 2), d.int(0, 2)
    batch = [d.int(0, 3) for _ in range(n_batch)]
    contract = [d.int(0, 3) for _ in range(n_contract)]
    lfree = [d.int(0, 3) for _ in range(n_lfree)]
    rfree = [d.int(0, 3) for _ in range(n_rfree)]
    letters = iter("abcdefghij")
    b_l = [next(letters) for _ in batch]
    c_l = [next(letters) for _ in contract]
    lf_l = [next(letters) for _ in lfree]
    rf_l = [next(letters) for _ in rfree]
    # Logical axis order (batch, contract, free), then a random physical order per operand.
    lhs_axes = list(zip(b_l + c_l + lf_l, batch + contract + lfree))
    rhs_axes = list(zip(b_l + c_l + rf_l, batch + contract + rfree))
    lhs_axes = d.permutation(lhs_axes)
    rhs_axes = d.permutation(rhs_axes)
    x = d.array(dtype, [s for _, s in lhs_axes], -3, 3)
    y = d.array(dtype, [s for _, s in rhs_axes], -3, 3)
    lpos = {letter: i for i, (letter, _) in enumerate(lhs_axes)}
    rpos = {letter: i for i, (letter, _) in enumerate(rhs_axes)}
    params = {
        "contracting": (tuple(lpos[c] for c in c_l), tuple(rpos[c] for c in c_l)),
        "batch": (tuple(lpos[b] for b in b_l), tuple(rpos[b] for b in b_l)),
    }
    spec = (
        "".join(letter for letter, _ in lhs_axes)
        + ","
        + "".join(letter for letter, _ in rhs_axes)
        + "->"
        + "".join(b_l)  # then the free axes of each operand, in their operand order
        + "".join(letter for letter, _ in lhs_axes if letter in lf_l)
        + "".join(letter for letter, _ in rhs_axes if letter in rf_l)
    )
    return Case([x, y], params, lambda: np.einsum(spec, x, y).astype(dtype))


def _reduction(fn: Callable, *, nonempty: bool, accumulate: bool) -> Generator:
    def gen(d: Draw, dtype: np.dtype) -> Case:
        shape = list(d.shape())
        axes = d.axes(len(shape))
        if nonempty:
            for a in axes:
                shape[a] = max(shape[a], 1)
        x = d.array(dtype, shape, -2, 2)
        kwargs = {"dtype": dtype} if accumulate else {}
        return Case([x], {"axes": axes}, lambda: fn(x, axis=axes, **kwargs))

    return gen


def _arg_reduction(fn: Callable) -> Generator:
    def gen(d: Draw, dtype: np.dtype) -> Case:
        shape = list(d.shape())
        axis = d.axis(max(len(shape), 1))
        if shape:
            shape[axis] = max(shape[axis], 1)
        x = d.array(dtype, shape, -3, 3)  # narrow: ties are common
        return Case([x], {"axis": axis}, lambda: np.asarray(fn(x, axis=axis), np.int64))

    return gen


def gen_cumsum(d: Draw, dtype: np.dtype) -> Case:
    shape = d.shape()
    axis = d.axis(max(len(shape), 1))
    reverse = d.flag()
    x = d.array(dtype, shape)

    def reference() -> np.ndarray:
        if x.ndim == 0:
            return x.copy()
        if reverse:
            return np.flip(np.cumsum(np.flip(x, axis), axis=axis, dtype=dtype), axis)
        return np.cumsum(x, axis=axis, dtype=dtype)

    return Case([x], {"axis": axis, "reverse": reverse}, reference)


def _scan_reference(step: Callable[[Any, Any], Any]) -> Callable[[np.ndarray, int], np.ndarray]:
    """A running fold along an axis, element by element in Python: out[0] = x[0],
    out[i] = step(out[i - 1], x[i])."""

    def scan(x: np.ndarray, axis: int) -> np.ndarray:
        moved = np.moveaxis(x, axis, 0).copy()
        for i in range(1, moved.shape[0]):
            moved[i] = step(moved[i - 1], moved[i])
        return np.moveaxis(moved, 0, axis)

    return scan


def _complex_logaddexp(a: Any, b: Any) -> Any:
    """log(exp(a) + exp(b)), the principal branch (as the row's, up to its [-pi, pi])."""
    return np.log(np.exp(a) + np.exp(b))


def gen_cumulative(step: Callable[[Any, Any], Any], lo: float = -4, hi: float = 4) -> Generator:
    """A running reduction along a random axis (maybe reversed), against a Python loop."""
    scan = _scan_reference(step)

    def gen(d: Draw, dtype: np.dtype) -> Case:
        shape = d.shape()
        axis = d.axis(max(len(shape), 1))
        reverse = d.flag()
        x = d.array(dtype, shape, lo, hi)

        def reference() -> np.ndarray:
            if x.ndim == 0:
                return x.copy()
            if reverse:
                return np.flip(scan(np.flip(x, axis), axis), axis)
            return scan(x, axis)

        return Case([x], {"axis": axis, "reverse": reverse}, reference)

    return gen


def _logsumexp_step(a: Any, b: Any) -> Any:
    return _complex_logaddexp(a, b) if np.iscomplexobj(a) else np.logaddexp(a, b)


def gen_cumlogsumexp(d: Draw, dtype: np.dtype) -> Case:
    """As gen_cumulative; a complex first entry has its imaginary part in [-pi, pi] (XLA's
    scan starts from -inf), so the operands' imaginary parts stay inside."""
    return gen_cumulative(_logsumexp_step, -3, 3)(d, dtype)


def _bits_of(x: np.ndarray) -> list[int]:
    """Each entry's two's-complement bits, as a non-negative Python int."""
    mask = (1 << (8 * x.dtype.itemsize)) - 1
    return [int(v) & mask for v in x.ravel().tolist()]


def popcount_reference(x: np.ndarray) -> np.ndarray:
    counts = [bin(v).count("1") for v in _bits_of(x)]
    return np.array(counts, np.int64).astype(x.dtype).reshape(x.shape)


def clz_reference(x: np.ndarray) -> np.ndarray:
    width = 8 * x.dtype.itemsize
    return (
        np.array([width - v.bit_length() for v in _bits_of(x)], np.int64)
        .astype(x.dtype)
        .reshape(x.shape)
    )


_FLOAT_FORMATS = ((np.float16, 5, 10), (np.float32, 8, 23), (np.float64, 11, 52))


def gen_reduce_precision(d: Draw, dtype: np.dtype) -> Case:
    """Rounding to a format numpy has (float16, float32, float64): numpy's own conversion,
    on values inside its normal range."""
    narrow, exponent_bits, mantissa_bits = d.choice(_FLOAT_FORMATS)
    x = d.array(dtype, d.shape())
    params = {"exponent_bits": exponent_bits, "mantissa_bits": mantissa_bits}

    def reference() -> np.ndarray:
        if np.dtype(narrow).itemsize >= x.dtype.itemsize:
            return x.copy()
        return x.astype(narrow).astype(x.dtype)

    return Case([x], params, reference)


def gen_transpose(d: Draw, dtype: np.dtype) -> Case:
    x = d.array(dtype, d.shape())
    perm = tuple(d.permutation(range(x.ndim)))
    return Case([x], {"permutation": perm}, lambda: np.transpose(x, perm))


def gen_reshape(d: Draw, dtype: np.dtype) -> Case:
    """A new shape of the same size: the old axes permuted, some merged, some 1s inserted."""
    x = d.array(dtype, d.shape())
    dims = list(d.permutation(list(x.shape)))
    merged: list[int] = []
    for size in dims:
        if merged and d.flag():
            merged[-1] *= size
        else:
            merged.append(size)
    for _ in range(d.int(0, 2)):
        merged.insert(d.int(0, len(merged)), 1)
    return Case([x], {"shape": tuple(merged)}, lambda: np.reshape(x, merged))


def gen_broadcast_in_dim(d: Draw, dtype: np.dtype) -> Case:
    target = d.shape(max_dims=4)
    dims = tuple(sorted(a % len(target) for a in d.axes(len(target))))
    operand_shape = [target[axis] if d.flag() else 1 for axis in dims]
    x = d.array(dtype, operand_shape)
    expanded = [1] * len(target)
    for axis, size in zip(dims, operand_shape):
        expanded[axis] = size
    params = {"shape": tuple(target), "broadcast_dimensions": dims}
    return Case([x], params, lambda: np.broadcast_to(x.reshape(expanded), target))


def shift_reference(kind: str) -> Callable:
    """XLA's shifts written out on Python ints, element by element."""

    def reference(x: np.ndarray, y: np.ndarray) -> np.ndarray:
        bits = x.dtype.itemsize * 8
        out = np.zeros(x.shape, x.dtype)
        for index in np.ndindex(x.shape):
            a, b = int(x[index]), int(y[index])
            unsigned = a % 2**bits
            signed = unsigned - 2**bits if unsigned >= 2 ** (bits - 1) else unsigned
            inside = 0 <= b < bits
            if kind == "left":
                value = (unsigned << b) % 2**bits if inside else 0
            elif kind == "logical":
                value = unsigned >> b if inside else 0
            else:
                value = signed >> (b if inside else bits - 1)
            out[index] = np.asarray(value % 2**bits, f"u{x.dtype.itemsize}").view(x.dtype)
        return out

    return reference


def gen_shift(kind: str) -> Generator:
    def gen(d: Draw, dtype: np.dtype) -> Case:
        shape = d.shape()
        if dtype.kind in "iu":
            info = np.iinfo(dtype)
            x = d.rng.integers(info.min, int(info.max) + 1, shape, dtype=dtype)
            low = 0 if dtype.kind == "u" else -2
            y = d.rng.integers(low, dtype.itemsize * 8 + 3, shape).astype(dtype)
        else:
            x, y = d.array(dtype, shape), d.array(dtype, shape)
        return Case([x, y], {}, lambda: shift_reference(kind)(x, y))

    return gen


def gen_bitcast(d: Draw, dtype: np.dtype) -> Case:
    x = d.array(dtype, d.shape())
    same_width = [t for t in INTS + FLOATS if t.itemsize == dtype.itemsize] or [INTS[0]]
    target = d.choice(same_width)
    return Case([x], {"dtype": target}, lambda: x.view(target))


def gen_convert(d: Draw, dtype: np.dtype) -> Case:
    x = d.array(dtype, d.shape())
    target = d.choice(ALL)
    source = x.real if dtype.kind == "c" and target.kind != "c" else x
    return Case([x], {"dtype": target}, lambda: _saturating_cast(source, target))


def _saturating_cast(x: np.ndarray, target: np.dtype) -> np.ndarray:
    """XLA's convert: a float goes into an integer dtype clipped to its range, NaN to 0
    (numpy's astype wraps); everything else as astype."""
    if x.dtype.kind != "f" or target.kind not in "iu":
        return x.astype(target)
    info = np.iinfo(target)
    out = [info.max if v >= info.max else info.min if v <= info.min else v for v in x.ravel()]
    return np.array([0 if np.isnan(v) else int(v) for v in out], target).reshape(x.shape)


def gen_extract_diag(d: Draw, dtype: np.dtype) -> Case:
    n = d.int(0, 4)
    batch = d.random_shape()
    x = d.array(dtype, tuple(batch) + (n, n))
    return Case([x], {}, lambda: np.diagonal(x, axis1=-2, axis2=-1))


def gen_embed_diag(d: Draw, dtype: np.dtype) -> Case:
    x = d.array(dtype, d.shape(min_dims=1))

    def reference() -> np.ndarray:
        out = np.zeros(x.shape + x.shape[-1:], dtype)
        for index in np.ndindex(x.shape):
            out[index + (index[-1],)] = x[index]
        return out

    return Case([x], {}, reference)


def _triangle(fn: Callable) -> Generator:
    def gen(d: Draw, dtype: np.dtype) -> Case:
        x = d.array(dtype, d.shape(min_dims=2, max_dims=4))
        k = d.int(-3, 3)
        return Case([x], {"k": k}, lambda: fn(x, k))

    return gen


def gen_gather(d: Draw, dtype: np.dtype) -> Case:
    """np.take along an axis, through the take builder's gather parameters."""
    shape = list(d.shape(min_dims=1))
    axis = d.axis(len(shape))
    shape[axis] = max(shape[axis], 1)
    x = d.array(dtype, shape)
    index_dtype = d.choice(INTS)
    idx = d.array(index_dtype, d.random_shape(), 0, shape[axis] - 1)
    params = take_params(x.shape, axis, idx.ndim)
    return Case([x, idx[..., None]], params, lambda: np.take(x, idx, axis=axis))


def gen_scatter_add(d: Draw, dtype: np.dtype) -> Case:
    """np.add.at along an axis (repeated indices accumulate), via the take builders."""
    shape = list(d.shape(min_dims=1))
    axis = d.axis(len(shape)) % len(shape)
    shape[axis] = max(shape[axis], 1)
    x = d.array(dtype, shape)
    index_dtype = d.choice(INTS)
    idx = d.array(index_dtype, d.random_shape(), 0, shape[axis] - 1)
    updates = d.array(dtype, tuple(shape[:axis]) + idx.shape + tuple(shape[axis + 1 :]))
    params = take_transpose_params(x.shape, axis, idx.ndim)

    def reference() -> np.ndarray:
        out = x.copy()
        np.add.at(out, (slice(None),) * axis + (idx,), updates)
        return out

    return Case([x, idx[..., None], updates], params, reference)


def _gen_scatter(combine: np.ufunc | None) -> Generator:
    """`gen_scatter_add`'s case for another scatter row: `combine.at` (None: replace, the
    last update in index order winning where indices repeat)."""

    def gen(d: Draw, dtype: np.dtype) -> Case:
        case = gen_scatter_add(d, dtype)
        x, column, updates = case.inputs
        axis, idx = case.params["inserted_window_dims"][0], column[..., 0]
        at = (slice(None),) * axis

        def reference() -> np.ndarray:
            out = x.copy()
            if combine is not None:
                combine.at(out, at + (idx,), updates)
            for s in np.ndindex(idx.shape) if combine is None else ():
                out[at + (idx[s],)] = updates[at + s]
            return out

        return Case(case.inputs, case.params, reference)

    return gen


def gen_slice(d: Draw, dtype: np.dtype) -> Case:
    x = d.array(dtype, d.shape())
    start, limit, strides = [], [], []
    for size in x.shape:
        a = d.int(0, size)
        start.append(a)
        limit.append(d.int(a, size))
        strides.append(d.int(1, 3))
    unit = d.flag()
    params = {
        "start": tuple(start),
        "limit": tuple(limit),
        "strides": None if unit else tuple(strides),
    }
    step = [1] * x.ndim if unit else strides
    index = tuple(slice(a, b, s) for a, b, s in zip(start, limit, step))
    return Case([x], params, lambda: x[index])


def _clamp_start(start: int, dim: int, size: int) -> int:
    return min(max(start, 0), dim - size)


def gen_dynamic_slice(d: Draw, dtype: np.dtype) -> Case:
    x = d.array(dtype, d.shape())
    sizes = tuple(d.int(0, n) for n in x.shape)
    index_dtype = d.choice(INTS)
    starts = [d.scalar(index_dtype, -3, n + 3) for n in x.shape]
    begin = [_clamp_start(int(s), n, z) for s, n, z in zip(starts, x.shape, sizes)]
    index = tuple(slice(b, b + z) for b, z in zip(begin, sizes))
    return Case([x, *starts], {"slice_sizes": sizes}, lambda: x[index])


def gen_dynamic_update_slice(d: Draw, dtype: np.dtype) -> Case:
    x = d.array(dtype, d.shape())
    update = d.array(dtype, [d.int(0, n) for n in x.shape])
    index_dtype = d.choice(INTS)
    starts = [d.scalar(index_dtype, -3, n + 3) for n in x.shape]
    begin = [_clamp_start(int(s), n, z) for s, n, z in zip(starts, x.shape, update.shape)]

    def reference() -> np.ndarray:
        out = x.copy()
        out[tuple(slice(b, b + z) for b, z in zip(begin, update.shape))] = update
        return out

    return Case([x, update, *starts], {}, reference)


def gen_pad(d: Draw, dtype: np.dtype) -> Case:
    x = d.array(dtype, d.shape())
    value = d.array(dtype, ())
    config = []
    for n in x.shape:
        lo, hi = d.int(-2, 3), d.int(-2, 3)
        interior = d.int(0, 2)
        size = lo + hi + n + max(n - 1, 0) * interior
        config.append((lo, hi - min(size, 0), interior))  # keep every result axis >= 0
    return Case([x, value], {"config": tuple(config)}, lambda: pad_reference(x, value, config))


def gen_concatenate(d: Draw, dtype: np.dtype) -> Case:
    shape = list(d.shape(min_dims=1))
    axis = d.axis(len(shape))
    xs = []
    for _ in range(d.int(1, 3)):
        shape[axis] = d.int(0, 3)
        xs.append(d.array(dtype, shape))
    return Case(xs, {"axis": axis}, lambda: np.concatenate(xs, axis=axis))


def gen_reverse(d: Draw, dtype: np.dtype) -> Case:
    x = d.array(dtype, d.shape())
    axes = d.axes(x.ndim)
    return Case([x], {"axes": axes}, lambda: np.flip(x, axes) if axes else x)


def gen_iota(d: Draw, dtype: np.dtype) -> Case:
    shape = tuple(d.shape(min_dims=1))
    dimension = d.int(0, len(shape) - 1)
    view = [1] * len(shape)
    view[dimension] = shape[dimension]
    params = {"shape": shape, "dtype": dtype, "dimension": dimension}
    ramp = np.arange(shape[dimension]).astype(dtype).reshape(view)
    return Case([], params, lambda: np.broadcast_to(ramp, shape))


def gen_shape_of(d: Draw, dtype: np.dtype) -> Case:
    x = d.array(dtype, d.shape(min_dims=1))
    axis = d.axis(x.ndim)
    return Case([x], {"axis": axis}, lambda: np.asarray(x.shape[axis], np.int64))


def gen_dynamic_truncate(d: Draw, dtype: np.dtype) -> Case:
    x = d.array(dtype, d.shape(min_dims=1))
    axis = d.axis(x.ndim)
    size = d.scalar(d.choice(INTS), 0, x.shape[axis])
    return Case([x, size], {"axis": axis}, lambda: np.take(x, np.arange(int(size)), axis=axis))


def gen_pad_to_match(d: Draw, dtype: np.dtype) -> Case:
    x = d.array(dtype, d.shape(min_dims=1))
    axis = d.axis(x.ndim)
    ref_shape = list(x.shape)
    ref_shape[axis] += d.int(0, 3)
    ref = d.array(d.choice(ALL), ref_shape)
    widths = [(0, 0)] * x.ndim
    widths[axis] = (0, ref_shape[axis] - x.shape[axis])
    return Case([x, ref], {"axis": axis}, lambda: np.pad(x, widths))


def gen_constant(d: Draw, dtype: np.dtype) -> Case:
    x = d.array(dtype, d.shape())
    return Case([], {"value": x}, lambda: x)


def gen_polygamma(d: Draw, dtype: np.dtype) -> Case:
    """n a whole number in [0, 3] (or not, for the NaN case), x anywhere."""
    shape = d.shape()
    n = np.floor(np.abs(d.array(dtype, shape))) % 4
    if d.flag():
        n = n + np.asarray(0.5, dtype)  # not an integer: NaN, as JAX's
    x = d.array(dtype, shape)

    def expected() -> np.ndarray:
        whole = n == np.floor(n)
        out = scipy.special.polygamma(np.where(whole, n, 0).astype(int), x)
        pole = (x <= 0) & (x == np.floor(x)) & (n % 2 == 0)  # XLA's NaN at even-n poles
        return np.where(whole & ~pole & ~((x == np.inf) & (n >= 1)), out, np.nan).astype(dtype)

    n = np.asarray(n, dtype)
    return Case([n, x], {}, expected)


def igamma_grad_a_reference(a: np.ndarray, x: np.ndarray) -> np.ndarray:
    """d/da P(a, x), independently of tf8's algorithm: P = sum_k x**(a+k) e**-x / Gamma(a+k+1)
    differentiated term by term (scipy's gammaln and psi; 300 terms: x <= ~100), float64."""
    a, x = np.broadcast_arrays(np.asarray(a, np.float64), np.asarray(x, np.float64))
    k = np.arange(300.0).reshape((-1,) + (1,) * a.ndim)
    with np.errstate(divide="ignore"):
        log_x = np.log(x)
    weights = np.exp((a + k) * log_x - x - scipy.special.gammaln(a + k + 1))
    return np.sum(weights * (log_x - scipy.special.psi(a + k + 1)), axis=0)


def random_gamma_grad_reference(a: np.ndarray, x: np.ndarray) -> np.ndarray:
    """dx/da = -(dP/da) / (dP/dx), from `igamma_grad_a_reference` and the gamma density."""
    a, x = np.asarray(a, np.float64), np.asarray(x, np.float64)
    density = np.exp((a - 1) * np.log(x) - x - scipy.special.gammaln(a))
    return -igamma_grad_a_reference(a, x) / density


def _in_dtype(reference: Callable[..., Any]) -> Callable[..., Any]:
    return lambda *xs: np.asarray(reference(*xs)).astype(xs[-1].dtype)


def _positive_args(
    reference: Callable[..., Any], count: int, unit_last: bool = False, shift_first: float = 0.0
) -> Generator:
    """`count` operands in (0, 4.5] (the last in (0, 1) when `unit_last`, the first shifted by
    `shift_first`): the domain of the incomplete gamma, beta and zeta functions."""

    def gen(d: Draw, dtype: np.dtype) -> Case:
        shape = d.shape()
        xs = [np.asarray(np.abs(d.array(dtype, shape)) + 0.25, dtype) for _ in range(count)]
        xs[0] = np.asarray(xs[0] + shift_first, dtype)
        if unit_last:
            xs[-1] = np.asarray(xs[-1] / 4.5, dtype)
        return Case(xs, {}, lambda: reference(*xs))

    return gen


def _logistic(x: np.ndarray) -> np.ndarray:
    return scipy.special.expit(x) if x.dtype.kind == "f" else 1 / (1 + np.exp(-x))


GENERATORS: dict[str, Generator] = {
    "add": binary(np.add),
    "sub": binary(np.subtract),
    "mul": binary(np.multiply),
    "div": gen_div,
    "rem": gen_rem,
    "fmod": gen_fmod,
    "pow": gen_pow,
    "neg": unary(np.negative),
    "conj": unary(np.conj),
    "real": unary(np.real),
    "imag": unary(np.imag),
    "complex": gen_complex,
    "abs": unary(np.abs),
    "sign": unary(np.sign),
    "maximum": binary(np.maximum),
    "minimum": binary(np.minimum),
    "clamp": gen_clamp,
    "compare": gen_compare,
    "select": gen_select,
    "and": binary(logical(np.logical_and, np.bitwise_and)),
    "or": binary(logical(np.logical_or, np.bitwise_or)),
    "not": unary(logical(np.logical_not, np.invert)),
    "xor": binary(logical(np.logical_xor, np.bitwise_xor)),
    "shift_left": gen_shift("left"),
    "shift_right_logical": gen_shift("logical"),
    "shift_right_arithmetic": gen_shift("arithmetic"),
    "bitcast_convert_type": gen_bitcast,
    "exp": unary(np.exp),
    "expm1": unary(np.expm1),
    "log": unary(np.log),
    "log1p": unary(np.log1p),
    "sin": unary(np.sin),
    "cos": unary(np.cos),
    "tan": unary(np.tan),
    "sinh": unary(np.sinh),
    "cosh": unary(np.cosh),
    "tanh": unary(np.tanh),
    "asin": unary(np.arcsin, -1.5, 1.5),
    "acos": unary(np.arccos, -1.5, 1.5),
    "atan": unary(np.arctan),
    "atan2": binary(atan2),
    "sqrt": unary(np.sqrt),
    "rsqrt": unary(lambda x: 1 / np.sqrt(x)),
    "erf": unary(scipy.special.erf),
    "erfc": unary(scipy.special.erfc),
    "asinh": unary(np.arcsinh),
    "acosh": unary(np.arccosh, 0.5, 5.0),
    "atanh": unary(np.arctanh, -1.5, 1.5),
    "cbrt": unary(np.cbrt),
    "erf_inv": unary(scipy.special.erfinv, -0.99, 0.99),
    "ndtri": unary(scipy.special.ndtri, 0.0, 1.0),
    "lgamma": unary(scipy.special.gammaln),
    "digamma": unary(
        lambda x: np.where((x <= 0) & (x == np.floor(x)), np.nan, scipy.special.psi(x))
    ),
    "polygamma": gen_polygamma,
    "zeta": _positive_args(scipy.special.zeta, 2, shift_first=1.0),
    "igamma": _positive_args(scipy.special.gammainc, 2),
    "igammac": _positive_args(scipy.special.gammaincc, 2),
    "igamma_grad_a": _positive_args(_in_dtype(igamma_grad_a_reference), 2),
    "random_gamma_grad": _positive_args(_in_dtype(random_gamma_grad_reference), 2),
    "betainc": _positive_args(  # in float64, rounded: scipy's float32 loop is off by 1e-5
        _in_dtype(lambda *xs: scipy.special.betainc(*[x.astype(np.float64) for x in xs])),
        3,
        unit_last=True,
    ),
    "bessel_i0e": unary(scipy.special.i0e),
    "bessel_i1e": unary(scipy.special.i1e),
    "xlogy": binary(scipy.special.xlogy),
    "xlog1py": binary(scipy.special.xlog1py),
    "logistic": unary(_logistic),
    "floor": unary(np.floor),
    "ceil": unary(np.ceil),
    "round": unary(np.round, -3, 3),
    "dot_general": gen_dot_general,
    "reduce_sum": _reduction(np.sum, nonempty=False, accumulate=True),
    "reduce_prod": _reduction(np.prod, nonempty=False, accumulate=True),
    "reduce_max": _reduction(np.max, nonempty=True, accumulate=False),
    "reduce_min": _reduction(np.min, nonempty=True, accumulate=False),
    "argmax": _arg_reduction(np.argmax),
    "argmin": _arg_reduction(np.argmin),
    "cumsum": gen_cumsum,
    "cumprod": gen_cumulative(lambda a, b: a * b, -2, 2),
    "cummax": gen_cumulative(np.maximum),
    "cummin": gen_cumulative(np.minimum),
    "cumlogsumexp": gen_cumlogsumexp,
    "population_count": unary(popcount_reference, -100, 100),
    "clz": unary(clz_reference, -100, 100),
    "nextafter": binary(np.nextafter),
    "reduce_precision": gen_reduce_precision,
    "transpose": gen_transpose,
    "reshape": gen_reshape,
    "broadcast_in_dim": gen_broadcast_in_dim,
    "convert": gen_convert,
    "extract_diag": gen_extract_diag,
    "embed_diag": gen_embed_diag,
    "tril": _triangle(np.tril),
    "triu": _triangle(np.triu),
    "gather": gen_gather,
    "scatter_add": gen_scatter_add,
    "scatter": _gen_scatter(None),
    "scatter_mul": _gen_scatter(np.multiply),
    "scatter_min": _gen_scatter(np.minimum),
    "scatter_max": _gen_scatter(np.maximum),
    "slice": gen_slice,
    "dynamic_slice": gen_dynamic_slice,
    "dynamic_update_slice": gen_dynamic_update_slice,
    "pad": gen_pad,
    "concatenate": gen_concatenate,
    "reverse": gen_reverse,
    "iota": gen_iota,
    "shape_of": gen_shape_of,
    "dynamic_truncate": gen_dynamic_truncate,
    "pad_to_match": gen_pad_to_match,
    "constant": gen_constant,
}


def kept_in_float16(reference: Callable[..., Any]) -> Callable[..., Any]:
    """A scipy.special reference as tf8 computes it: scipy has no float16 loops and answers
    float16 operands in float32 or float64; tf8 (as JAX) rounds the answer back to float16."""

    def rounded(*xs: np.ndarray) -> Any:
        out = np.asarray(reference(*xs))
        return out.astype(np.float16) if xs[-1].dtype == np.float16 else out

    return rounded


def _rounded_to_float16(gen: Generator) -> Generator:
    def generate(d: Draw, dtype: np.dtype) -> Case:
        case = gen(d, dtype)
        reference = kept_in_float16(lambda *xs: case.reference())
        return Case(case.inputs, case.params, lambda: reference(*case.inputs))

    return generate


SCIPY_ROWS = (
    "erf",
    "erf_inv",
    "ndtri",
    "lgamma",
    "digamma",
    "polygamma",
    "zeta",
    "igamma",
    "igammac",
    "betainc",
    "bessel_i0e",
    "bessel_i1e",
    "erfc",
    "logistic",
    "xlogy",
    "xlog1py",
)
GENERATORS.update({name: _rounded_to_float16(GENERATORS[name]) for name in SCIPY_ROWS})
GENERATORS.update(window_generators(Case))  # the windowed reductions (window_cases.py)
GENERATORS.update(conv_generators(Case))  # conv_general_dilated (conv_cases.py)
