"""Maxima and minima by XLA's rule, which the kernels of clamp and of the reductions (over
axes, running, windowed) share: NaN propagates, and +0 is greater than -0 (max(0.0, -0.0) is
0.0 and min(0.0, -0.0) is -0.0, whichever comes first). numpy's maximum and minimum propagate
NaN too, but of two equal zeros they return whichever their SIMD loop hands back. So each
function here computes numpy's result, then, where that holds a -0 (a minimum: +0), signs it
as XLA: a maximum is +0 where one of the zeros it was chosen from is +0 (`winners`), else -0;
a minimum the other way round. Only real floats have signed zeros: integers and complex
numbers (numpy's lexicographic order) are numpy's. (The maximum and minimum rows themselves
stay numpy's ufuncs, a deliberate difference README names.)

The numba engine's loops compare element by element: `max_source`, `min_source` and the folds
`MAX_FOLD`, `MIN_FOLD` write the same rule as source text.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

Axes = int | tuple[int, ...] | None


def winners(x: Any, positive_wins: bool) -> np.ndarray:
    """Where `x` holds the zero a maximum (`positive_wins`: +0) or a minimum (-0) prefers."""
    x = np.asarray(x)
    return (x == 0) & (np.signbit(x) != positive_wins)


def mend_zeros(
    out: Any, positive_wins: bool, seen: Callable[[], np.ndarray], dtype: np.dtype
) -> Any:
    """`out` with its zeros signed by XLA's rule. numpy's result can only be wrong where it
    holds the zero a maximum (minimum) does not prefer: a -0 (+0) that should be +0 (-0)
    where `seen()` (computed only then) says the preferred zero was among the candidates. A
    maximum over values without -0 (relu's outputs) checks its result and nothing more."""
    if dtype.kind != "f":
        return out
    zero = np.asarray(out) == 0
    if not zero.any():  # the common case: one comparison
        return out
    suspect = zero & (np.signbit(out) == positive_wins)
    if not suspect.any():
        return out
    return np.where(suspect & seen(), np.asarray(0.0 if positive_wins else -0.0, dtype), out)


def _pair(ufunc: np.ufunc, positive_wins: bool) -> Callable[[Any, Any], Any]:
    def extremum(a: Any, b: Any) -> Any:
        out = ufunc(a, b)
        return mend_zeros(
            out,
            positive_wins,
            lambda: winners(a, positive_wins) | winners(b, positive_wins),
            np.result_type(out),
        )

    extremum.__name__ = ufunc.__name__
    extremum.__doc__ = f"numpy's {ufunc.__name__} with XLA's signed zeros."
    return extremum


maximum = _pair(np.maximum, True)
minimum = _pair(np.minimum, False)


def _reduction(ufunc: np.ufunc, positive_wins: bool) -> Callable[..., Any]:
    def reduce(x: np.ndarray, axis: Axes = None, keepdims: bool = False) -> Any:
        out = ufunc.reduce(x, axis=axis, keepdims=keepdims)
        return mend_zeros(
            out,
            positive_wins,
            lambda: np.logical_or.reduce(winners(x, positive_wins), axis=axis, keepdims=keepdims),
            x.dtype,
        )

    reduce.__doc__ = f"numpy's {ufunc.__name__}.reduce with XLA's signed zeros (dask's chunk)."
    return reduce


reduce_max = _reduction(np.maximum, True)
reduce_min = _reduction(np.minimum, False)


def _accumulation(ufunc: np.ufunc, positive_wins: bool) -> Callable[[np.ndarray, int], Any]:
    def accumulate(x: np.ndarray, axis: int) -> Any:
        out = ufunc.accumulate(x, axis=axis)
        return mend_zeros(
            out,
            positive_wins,
            lambda: np.logical_or.accumulate(winners(x, positive_wins), axis=axis),
            x.dtype,
        )

    accumulate.__doc__ = f"numpy's {ufunc.__name__}.accumulate with XLA's signed zeros."
    return accumulate


accumulate_max = _accumulation(np.maximum, True)
accumulate_min = _accumulation(np.minimum, False)


# --- numba source -----------------------------------------------------------------------------


def max_source(a: str, b: str) -> str:
    """One element of maximum(a, b): `a` where it is greater, NaN, or a tie of zeros with `b`
    the -0 (`math` is in the generated module's scope)."""
    return (
        f"({a} if ({a} > {b} or {a} != {a} or ({b} == 0 and {a} == 0 and "
        f"math.copysign(1.0, {b}) < 0)) else {b})"
    )


def min_source(a: str, b: str) -> str:
    """One element of minimum(a, b): `a` where it is smaller, NaN, or a tie of zeros with `b`
    the +0."""
    return (
        f"({a} if ({a} < {b} or {a} != {a} or ({b} == 0 and {a} == 0 and "
        f"math.copysign(1.0, {b}) > 0)) else {b})"
    )


# statements folding an element `{e}` into an accumulator `{acc}` (numba's loops along axes)
MAX_FOLD = "{acc} = " + max_source("{acc}", "{e}")
MIN_FOLD = "{acc} = " + min_source("{acc}", "{e}")
