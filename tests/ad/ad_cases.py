"""Per-row differentiation cases: the catalog's random cases, moved inside each op's domain.

`DIFFERENTIABLE[name]` says how to turn a random case of row `name` (drawn by
`tests/ops/catalog_cases.py` from a base shape and a seed) into one where the row is smooth:
`domain(inputs, params)` moves the operands away from poles, branch cuts and kinks (log of
positive numbers, asin in (-1, 1), no ties for maximum, ...) and `complex_ok` says whether
the complex128 case is tested. `ZERO_DERIVATIVE` lists the rows that declare a zero
derivative. Together they must cover the catalog (tests/ad/test_ad_rules.py checks it), so a
new row needs an entry here.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "ops"))
from catalog_cases import ADMITTED, GENERATORS, Case, Draw  # noqa: E402

import tf8  # noqa: E402
from tf8.lax.core import apply1  # noqa: E402
from tf8.traced import TracedTensor  # noqa: E402

F64 = np.dtype(np.float64)
C128 = np.dtype(np.complex128)

Domain = Callable[[list[np.ndarray], dict[str, Any]], tuple[list[np.ndarray], dict[str, Any]]]


@dataclass(frozen=True)
class AdCase:
    """How row `name` is differentiated: a domain map, and whether complex128 is tested."""

    domain: Domain | None = None
    complex_ok: bool = True
    constant_operands: tuple[int, ...] = ()  # not differentiated (JAX has no rule either)


# --- moving operands inside a domain ----------------------------------------------------------


def _real_map(fn: Callable[[np.ndarray], np.ndarray]) -> Callable[[np.ndarray], np.ndarray]:
    """Apply `fn` to a real array, or to the real part of a complex one."""

    def apply(x: np.ndarray) -> np.ndarray:
        if x.dtype.kind != "c":
            return fn(x).astype(x.dtype)
        return (fn(x.real) + 1j * x.imag).astype(x.dtype)

    return apply


def _imag_scale(factor: float) -> Callable[[np.ndarray], np.ndarray]:
    def apply(x: np.ndarray) -> np.ndarray:
        return x if x.dtype.kind != "c" else (x.real + 1j * factor * x.imag).astype(x.dtype)

    return apply


def _scale(factor: float) -> Callable[[np.ndarray], np.ndarray]:
    return lambda x: (x * factor).astype(x.dtype)


def positive(x: np.ndarray) -> np.ndarray:
    """Real part >= 0.5: inside the domain of log/sqrt/pow and off their branch cuts."""
    return _real_map(lambda r: np.abs(r) + 0.5)(x)


def away_from_zero(x: np.ndarray, gap: float = 0.25) -> np.ndarray:
    """Entries closer than `gap` to 0 moved out to ±(gap + 0.25)."""
    near = np.abs(x) < gap
    side = np.where(np.real(x) < 0, -1.0, 1.0)
    return np.where(near, side * (gap + 0.25), x).astype(x.dtype)


def separate(x: np.ndarray, others: Sequence[np.ndarray], gap: float = 0.04) -> np.ndarray:
    """`x` shifted up in steps of 0.1 until no entry is within `gap` of an entry of `others`.

    Real parts are compared: complex numbers are ordered lexicographically, so the kinks of
    maximum/minimum/clamp lie where the real parts meet.
    """
    for _ in range(len(others) + 2):
        near = np.zeros(x.shape, bool)
        for other in others:
            near |= np.abs(np.real(x - other)) < gap
        x = np.where(near, x + 0.1, x).astype(x.dtype)
    return x


def distinct(x: np.ndarray, step: float = 0.37) -> np.ndarray:
    """All entries made distinct (spaced `step` apart) keeping their order: no ties."""
    ranks = np.argsort(np.argsort(np.real(x).ravel(), kind="stable"), kind="stable")
    values = (ranks - ranks.size / 2) * step
    out = values.reshape(x.shape).astype(x.dtype)
    if x.dtype.kind == "c":
        out = out + 1j * x.imag
    return out


def one_zero(x: np.ndarray) -> np.ndarray:
    """Exact zeros after the first replaced by 0.5.

    A product with two zero factors has derivative exactly 0, which central differences
    only reach up to an O(eps**2) error scaled by the other (many, up to 2 in size) factors;
    one zero still tests the rule's zero handling with a nonzero derivative.
    """
    flat = x.ravel().copy()
    flat[np.flatnonzero(flat == 0)[1:]] = 0.5
    return flat.reshape(x.shape)


def each(*maps: Callable[[np.ndarray], np.ndarray] | None) -> Domain:
    """Operand i goes through maps[i] (None leaves it alone); parameters are kept."""

    def domain(inputs, params):
        out = [m(x) if m is not None else x for m, x in zip(maps, inputs)]
        return out + list(inputs[len(maps) :]), params

    return domain


def chain(*fns: Callable[[np.ndarray], np.ndarray]) -> Callable[[np.ndarray], np.ndarray]:
    def apply(x: np.ndarray) -> np.ndarray:
        for fn in fns:
            x = fn(x)
        return x

    return apply


def _divisor_nonzero(inputs, params):
    x, y = inputs
    return [x, away_from_zero(y)], params


def _rem_off_integers(inputs, params):
    """Divisor away from 0 and Re(x / y) away from integers (where rem jumps)."""
    x, y = inputs
    y = away_from_zero(y, 0.5)
    quotient = np.real(x / y)
    near = np.abs(quotient - np.round(quotient)) < 0.05
    return [np.where(near, x + 0.25 * y, x).astype(x.dtype), y], params


def _no_ties(inputs, params):
    x, y = inputs
    return [x, separate(y, [x])], params


def _clamp_apart(inputs, params):
    lo, x, hi = inputs
    hi = separate(hi, [lo])
    return [lo, separate(x, [lo, hi]), hi], params


def _convert_inexact(inputs, params):
    """Targets of the same precision: float64 or complex128 (int/bool targets are zero rows)."""
    (x,) = inputs
    target = params["dtype"]
    if x.dtype.kind == "c":
        return inputs, {**params, "dtype": C128}
    return inputs, {**params, "dtype": C128 if target.kind == "c" else F64}


def _atan2_off_cut(inputs, params):
    y, x = inputs
    return [away_from_zero(y), x], params


def _some_indices_out_of_range(inputs, params):
    """Index vectors moved out of range (past either end) for a third of the entries each way:
    gather clamps them and scatter_add drops them, and the derivatives must agree."""
    operand, indices, *rest = inputs
    shifted = np.where(
        indices % 3 == 1, indices + 7, np.where(indices % 3 == 2, indices - 9, indices)
    )
    return [operand, shifted.astype(indices.dtype), *rest], params


def _distinct_indices(inputs, params):
    """In-range indices made distinct (the extras sent out of range, where they are dropped)
    and promised unique: scatter_mul's derivative in its updates needs it, as JAX's does."""
    operand, indices, updates = inputs
    size = operand.shape[params["scatter_dims_to_operand_dims"][0]]
    flat = np.arange(indices.size)
    flat = np.where(flat < size, flat, flat + size).reshape(indices.shape)
    return [operand, flat.astype(indices.dtype), updates], {**params, "unique_indices": True}


def _scatter_no_ties(inputs, params):
    """The operand's and the updates' values all distinct (no ties for scatter_min/max), and
    some indices out of range."""
    (operand, indices, updates), params = _some_indices_out_of_range(inputs, params)
    values = distinct(np.concatenate([operand.ravel(), updates.ravel()]))
    operand, updates = values[: operand.size], values[operand.size :]
    return [operand.reshape(inputs[0].shape), indices, updates.reshape(inputs[2].shape)], params


# Rows whose derivative is 0 (piecewise constant, boolean/integer-valued, or inputless).
ZERO_DERIVATIVE = frozenset(
    "sign compare and or not xor shift_left shift_right_logical shift_right_arithmetic"
    " bitcast_convert_type floor ceil round argmax argmin iota shape_of constant"
    " population_count clz".split()
)

_SMOOTH = AdCase()
# reduce_precision is linear (JAX's rule): its derivative is the true one at full precision
_FULL_PRECISION = {"exponent_bits": 11, "mantissa_bits": 52}
DIFFERENTIABLE: dict[str, AdCase] = {
    # arithmetic
    "add": _SMOOTH,
    "sub": _SMOOTH,
    "mul": _SMOOTH,
    "div": AdCase(_divisor_nonzero),
    "rem": AdCase(_rem_off_integers),
    "fmod": AdCase(_rem_off_integers),
    "pow": AdCase(each(positive, None)),
    "neg": _SMOOTH,
    "conj": _SMOOTH,
    "real": _SMOOTH,
    "imag": _SMOOTH,
    "complex": _SMOOTH,
    "abs": AdCase(each(away_from_zero)),
    "maximum": AdCase(_no_ties),
    "minimum": AdCase(_no_ties),
    "clamp": AdCase(_clamp_apart),
    "select": _SMOOTH,
    # analytic
    "exp": _SMOOTH,
    "expm1": _SMOOTH,
    "log": AdCase(each(positive)),
    "log1p": AdCase(each(_real_map(lambda r: np.abs(r) - 0.5))),
    "sin": _SMOOTH,
    "cos": _SMOOTH,
    "tan": AdCase(each(_real_map(lambda r: 0.35 * r))),  # |x| < 1.4 < pi/2
    "sinh": _SMOOTH,
    "cosh": _SMOOTH,
    "tanh": AdCase(each(_imag_scale(0.35))),  # poles at i*pi/2
    "asin": AdCase(each(_real_map(lambda r: 0.6 * r))),  # |x| <= 0.9
    "acos": AdCase(each(_real_map(lambda r: 0.6 * r))),
    "atan": AdCase(each(_imag_scale(0.2))),  # poles at ±i
    "atan2": AdCase(_atan2_off_cut),
    "sqrt": AdCase(each(positive)),
    "rsqrt": AdCase(each(positive)),
    "erf": _SMOOTH,
    "erfc": _SMOOTH,
    "asinh": AdCase(each(_imag_scale(0.2))),  # cuts beyond ±i
    "acosh": AdCase(each(_real_map(lambda r: np.abs(r) + 1.5))),  # real part > 1
    "atanh": AdCase(each(_real_map(lambda r: 0.2 * r))),  # |x| < 1
    "cbrt": AdCase(each(away_from_zero)),  # infinite slope at 0
    "nextafter": AdCase(constant_operands=(0, 1)),  # JAX has no rule either
    "reduce_precision": AdCase(lambda inputs, params: (inputs, _FULL_PRECISION)),
    "erf_inv": AdCase(each(_real_map(lambda r: 0.6 * r))),  # |x| <= 0.9
    "logistic": AdCase(each(_imag_scale(0.35))),  # poles at i*pi
    "ndtri": AdCase(each(lambda p: np.asarray(0.02 + 0.96 * p, p.dtype))),  # p in (0, 1)
    "lgamma": AdCase(each(positive)),
    "digamma": AdCase(each(positive)),
    "polygamma": AdCase(each(np.floor, positive), constant_operands=(0,)),  # whole n
    "zeta": AdCase(constant_operands=(0,)),
    # in the domain; a is differentiated to first order only (igamma_grad_a has no rule, as in
    # JAX): tests/lax/test_igamma_grad.py checks it
    "igamma": AdCase(constant_operands=(0,)),
    "igammac": AdCase(constant_operands=(0,)),
    "igamma_grad_a": AdCase(constant_operands=(0, 1)),  # JAX has no rule either
    "random_gamma_grad": AdCase(constant_operands=(0, 1)),
    "betainc": AdCase(constant_operands=(0, 1)),
    "bessel_i0e": AdCase(each(away_from_zero)),  # a kink at 0
    "bessel_i1e": _SMOOTH,
    "xlogy": AdCase(each(None, positive)),
    "xlog1py": AdCase(each(None, _real_map(lambda r: np.abs(r) - 0.5))),  # 1 + y off the cut
    # contraction, reductions
    "dot_general": _SMOOTH,
    "conv_general_dilated": _SMOOTH,
    "reduce_sum": _SMOOTH,
    "reduce_prod": AdCase(each(one_zero)),
    "reduce_max": AdCase(each(distinct)),
    "reduce_min": AdCase(each(distinct)),
    "cumsum": _SMOOTH,
    "cumprod": _SMOOTH,
    "cummax": AdCase(each(distinct), complex_ok=False),
    "cummin": AdCase(each(distinct), complex_ok=False),
    "cumlogsumexp": _SMOOTH,
    # structural and indexing (all linear in their array operands)
    "transpose": _SMOOTH,
    "reshape": _SMOOTH,
    "broadcast_in_dim": _SMOOTH,
    "convert": AdCase(_convert_inexact),
    "extract_diag": _SMOOTH,
    "embed_diag": _SMOOTH,
    "tril": _SMOOTH,
    "triu": _SMOOTH,
    "gather": AdCase(_some_indices_out_of_range),
    "scatter_add": AdCase(_some_indices_out_of_range),
    "scatter": AdCase(_some_indices_out_of_range),
    "scatter_mul": AdCase(_distinct_indices),
    "scatter_min": AdCase(_scatter_no_ties),
    "scatter_max": AdCase(_scatter_no_ties),
    "slice": _SMOOTH,
    "dynamic_slice": _SMOOTH,
    "dynamic_update_slice": _SMOOTH,
    "pad": _SMOOTH,
    "concatenate": _SMOOTH,
    "reverse": _SMOOTH,
    "dynamic_truncate": _SMOOTH,
    "pad_to_match": _SMOOTH,
    # windowed reductions: no ties (a max-pool's kink); the selecting rows are linear in their
    # first operand, the second fixed
    "reduce_window_sum": _SMOOTH,
    "reduce_window_max": AdCase(each(distinct)),
    "reduce_window_min": AdCase(each(distinct)),
    "select_and_gather_add": AdCase(each(None, distinct), constant_operands=(1,)),
    "select_and_scatter_add": AdCase(each(None, distinct), constant_operands=(1,)),
}


def dtypes_of(name: str) -> list[np.dtype]:
    """float64, and complex128 where the row admits it and its case allows it."""
    admitted = ADMITTED[name]
    out = [F64] if F64 in admitted else []
    if C128 in admitted and DIFFERENTIABLE.get(name, _SMOOTH).complex_ok:
        out.append(C128)
    return out


def as_traced(x: Any) -> TracedTensor:
    return x if isinstance(x, TracedTensor) else tf8.tensor(np.asarray(x))


@dataclass
class RowCall:
    """Row `name` applied to `inputs`, as a function of the operands at `positions`."""

    name: str
    inputs: list[np.ndarray]
    params: dict[str, Any]
    positions: list[int]

    def __call__(self, *xs: Any) -> TracedTensor:
        operands: list[Any] = list(self.inputs)
        for position, x in zip(self.positions, xs):
            operands[position] = x
        return apply1(self.name, [as_traced(o) for o in operands], **self.params)

    @property
    def args(self) -> list[np.ndarray]:
        return [self.inputs[p] for p in self.positions]


def draw_call(base_shape: Sequence[int], seed: int, name: str, dtype: np.dtype) -> RowCall:
    """A random call of row `name` on `dtype` operands, inside the row's smooth domain."""
    case: Case = GENERATORS[name](Draw(base_shape, seed), dtype)
    inputs, params = list(case.inputs), dict(case.params)
    spec = DIFFERENTIABLE.get(name)
    if spec is not None and spec.domain is not None:
        inputs, params = spec.domain(inputs, params)
    fixed = () if spec is None else spec.constant_operands
    positions = [i for i, x in enumerate(inputs) if x.dtype.kind in "fc" and i not in fixed]
    return RowCall(name, inputs, params, positions)
