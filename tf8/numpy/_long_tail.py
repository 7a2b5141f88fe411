"""numpy's long tail, composed from tf8.numpy: append, rollaxis, select, interp, convolve,
correlate, gradient, histogram.

`interp` and `histogram` find each value's interval by counting the breakpoints at or below it
(an (n, m) comparison: no sort or searchsorted is needed); `convolve`/`correlate` gather the
sliding windows with constant indices and contract them, so all three differentiate through
ordinary ops.
"""

from __future__ import annotations

import builtins
from collections.abc import Sequence
from typing import Any

import numpy as np

from tf8.errors import DTypeError, ParameterError, ShapeError, UnsupportedOperationError
from tf8.lax.sorting import sort_all
from tf8.ops import dtypes as dt
from tf8.traced import TracedTensor

from ._arithmetic import absolute, add, clip, conj, divide, multiply, remainder, subtract
from ._core import (
    ArrayLike,
    asarray,
    broadcast_shapes,
    constant,
    full_of,
    inexact,
    normalize_axis,
    promote,
)
from ._creation import arange, linspace
from ._extremes import max, min
from ._logic import equal, greater, greater_equal, less, less_equal, logical_and, where
from ._nonzero import concrete_or_none
from ._reductions import all as all_
from ._reductions import sum as sum_
from ._shape import concatenate, expand_dims, moveaxis, ravel


def append(arr: ArrayLike, values: ArrayLike, axis: int | None = None) -> TracedTensor:
    """`values` appended to `arr` (both flattened when axis is None)."""
    if axis is None:
        return concatenate([ravel(asarray(arr)), ravel(asarray(values))])
    return concatenate([asarray(arr), asarray(values)], axis=axis)


def rollaxis(a: ArrayLike, axis: int, start: int = 0) -> TracedTensor:
    """Roll `axis` backwards until it lies before position `start` (numpy's older moveaxis)."""
    x = asarray(a)
    n = x.ndim
    axis = normalize_axis(axis, n)
    if not -n <= start <= n:
        raise ShapeError(f"rollaxis: start {start} out of range for {n} dimensions")
    start = start + n if start < 0 else start
    if axis < start:
        start -= 1
    return x if axis == start else moveaxis(x, axis, start)


def select(
    condlist: Sequence[ArrayLike], choicelist: Sequence[ArrayLike], default: ArrayLike = 0
) -> TracedTensor:
    """Elementwise, the choice of the first condition that holds (else `default`)."""
    if len(condlist) != len(choicelist):
        raise ShapeError(
            f"select: list of cases ({len(condlist)}) must be the same length as the list of "
            f"conditions ({len(choicelist)})"
        )
    if not condlist:
        raise ShapeError("select: needs at least one condition")
    conds = [asarray(c) for c in condlist]  # non-boolean ones are read as `!= 0`, as JAX
    *choices, fill = promote(*choicelist, default)
    result = fill
    for cond, choice in zip(reversed(conds), reversed(choices)):
        result = where(cond, choice, result)
    return result


def array_equiv(a1: ArrayLike, a2: ArrayLike) -> TracedTensor:
    """Whether a1 and a2 are equal everywhere once broadcast together (False when their
    shapes do not broadcast, as numpy's and as JAX documents)."""
    x, y = asarray(a1), asarray(a2)
    try:
        broadcast_shapes(x.shape, y.shape)
    except ShapeError:
        return constant(np.array(False))
    return all_(equal(x, y))


def interp(
    x: ArrayLike,
    xp: ArrayLike,
    fp: ArrayLike,
    left: ArrayLike | str | None = None,
    right: ArrayLike | str | None = None,
    period: ArrayLike | None = None,
) -> TracedTensor:
    """Piecewise-linear interpolation of (xp, fp) at x (xp increasing), as jax.numpy: x and
    xp in their common inexact dtype, fp in its own; `left`/`right` may be 'extrapolate';
    `period` wraps x and xp and sorts xp (traced values too)."""
    xs, xp_ = promote(inexact(x), inexact(xp))
    fp_ = inexact(fp)
    if xp_.ndim != 1 or fp_.ndim != 1 or xp_.shape != fp_.shape:
        raise ShapeError(
            f"interp: xp and fp must be 1-D of one length, got {xp_.shape} and {fp_.shape}"
        )
    if xp_.shape[0] == 0:
        raise ShapeError("interp: xp and fp must not be empty")
    if dt.is_complex(xs.dtype):
        raise DTypeError(f"interp: complex x values are not supported, got {xs.aval}")
    extrapolate = [_extrapolates(side, value) for side, value in (("left", left), ("right", right))]
    if period is not None:
        xs, xp_, fp_ = _periodic(xs, xp_, fp_, period)
    n = xp_.shape[0]
    flat = ravel(xs)
    above = sum_(less_equal(expand_dims(xp_, 0), expand_dims(flat, 1)), axis=1)  # searchsorted
    i = clip(above, 1, builtins.max(n - 1, 1))
    f0, x0 = fp_[i - 1], xp_[i - 1]
    df, dx = subtract(fp_[i], f0), subtract(xp_[i], x0)
    tiny = np.spacing(np.finfo(np.dtype(xp_.dtype)).eps)
    flat_step = less_equal(absolute(dx), tiny)  # no NaN gradients where dx vanishes (JAX's)
    step = divide(subtract(flat, x0), where(flat_step, 1, dx))
    value = where(flat_step, f0, add(f0, multiply(step, df)))
    if period is None:
        if not extrapolate[0]:
            value = where(less(flat, xp_[0]), fp_[0] if left is None else left, value)
        if not extrapolate[1]:
            value = where(greater(flat, xp_[n - 1]), fp_[n - 1] if right is None else right, value)
    return value.reshape(xs.shape)


def _extrapolates(side: str, value: Any) -> bool:
    if not isinstance(value, str):
        return False
    if value != "extrapolate":
        raise ParameterError(f"interp: the only string {side}= is 'extrapolate', got {value!r}")
    return True


def _periodic(xs: TracedTensor, xp: TracedTensor, fp: TracedTensor, period: Any) -> tuple:
    """x and xp modulo |period|, xp sorted (fp with it) and extended by one period-shifted
    point at each end."""
    if np.ndim(period) != 0:
        raise ShapeError(f"interp: period must be a scalar, got {period!r}")
    period = absolute(asarray(period))
    xs, xp = remainder(xs, period), remainder(xp, period)
    xp, fp = sort_all([xp, fp], 0)
    xp = concatenate([subtract(xp[-1:], period), xp, add(xp[:1], period)])
    fp = concatenate([fp[-1:], fp, fp[:1]])
    return xs, xp, fp


def _full_convolution(a: TracedTensor, v: TracedTensor) -> TracedTensor:
    """out[k] = Σ_j a[k - j] v[j] for k in 0 … n + m − 2: a's zero-padded windows gathered with
    constant indices, contracted with v."""
    n, m = a.shape[0], v.shape[0]
    padded = concatenate([_zeros(m - 1, a), a, _zeros(m - 1, a)])
    windows = np.arange(n + m - 1)[:, None] + np.arange(m)[None, :]  # window k: padded[k : k+m]
    gathered = padded[constant(windows)]
    flipped = v[constant(np.arange(m - 1, -1, -1))]
    return sum_(multiply(gathered, expand_dims(flipped, 0)), axis=1)


def _zeros(count: int, like: TracedTensor) -> TracedTensor:
    return full_of(0, (count,), like.dtype)


def _mode_cut(
    full: TracedTensor, n: int, m: int, mode: str, name: str, late: bool = False
) -> TracedTensor:
    """The 'same' or 'valid' part of a full result; `late` rounds an odd 'same' margin up
    (numpy's correlate of a shorter a computes the swapped correlation, reversed)."""
    if mode == "full":
        return full
    if mode == "same":
        size = builtins.max(n, m)
        start = (n + m - 1 - size + (1 if late else 0)) // 2
        return full[start : start + size]
    if mode == "valid":
        size = builtins.max(n, m) - builtins.min(n, m) + 1
        start = builtins.min(n, m) - 1
        return full[start : start + size]
    raise ValueError(f"{name}: mode must be 'full', 'same' or 'valid', got {mode!r}")


def _vectors(name: str, a: ArrayLike, v: ArrayLike) -> tuple[TracedTensor, TracedTensor]:
    x, y = promote(a, v)
    if x.ndim != 1 or y.ndim != 1:
        raise ShapeError(f"{name}: a and v must be 1-D, got shapes {x.shape} and {y.shape}")
    if x.shape[0] == 0 or y.shape[0] == 0:
        raise ShapeError(f"{name}: a and v must not be empty")
    return inexact(x), inexact(y)  # JAX's convolutions promote to inexact (int32 → float32)


def convolve(a: ArrayLike, v: ArrayLike, mode: str = "full", **ignored: Any) -> TracedTensor:
    """The discrete linear convolution of two 1-D sequences (modes 'full', 'same', 'valid');
    JAX's precision= and preferred_element_type= are accepted and ignored."""
    x, y = _vectors("convolve", a, v)
    n, m = x.shape[0], y.shape[0]
    return _mode_cut(_full_convolution(x, y), n, m, mode, "convolve")


def correlate(a: ArrayLike, v: ArrayLike, mode: str = "valid", **ignored: Any) -> TracedTensor:
    """The cross-correlation c[k] = Σ_n a[n + k] · conj(v[n]) of two 1-D sequences."""
    x, y = _vectors("correlate", a, v)
    n, m = x.shape[0], y.shape[0]
    reversed_v = y[constant(np.arange(m - 1, -1, -1))]
    if dt.is_complex(reversed_v.dtype):
        reversed_v = conj(reversed_v)
    return _mode_cut(_full_convolution(x, reversed_v), n, m, mode, "correlate", late=n < m)


def gradient(
    f: ArrayLike, *varargs: Any, axis: int | Sequence[int] | None = None, edge_order: int = 1
) -> Any:
    """numpy.gradient: second-order central differences inside, first- or second-order
    one-sided ones at the edges; spacings are scalars or coordinate arrays per axis."""
    y = inexact(f)  # JAX's inexact dtype (int32 → float32)
    if axis is None:
        axes = list(range(y.ndim))
    elif isinstance(axis, (int, np.integer)):
        axes = [normalize_axis(axis, y.ndim)]
    else:
        axes = [normalize_axis(ax, y.ndim) for ax in axis]
    if len(varargs) == 0:
        spacings: list[Any] = [1.0] * len(axes)
    elif len(varargs) == 1 and np.ndim(varargs[0]) == 0:
        spacings = [varargs[0]] * len(axes)
    elif len(varargs) == len(axes):
        spacings = list(varargs)
    else:
        raise ParameterError(
            f"gradient: {len(varargs)} spacings for {len(axes)} axes (give one, or one per axis)"
        )
    if edge_order not in (1, 2):
        raise ParameterError("gradient: edge_order must be 1 or 2")
    out = tuple(_gradient_axis(y, ax, h, edge_order) for ax, h in zip(axes, spacings))
    return out[0] if len(out) == 1 else out


def _gradient_axis(y: TracedTensor, axis: int, h: Any, edge_order: int) -> TracedTensor:
    z = moveaxis(y, axis, -1)
    n = z.shape[-1]
    if n < edge_order + 1:
        raise ShapeError(
            f"gradient: axis {axis} of {y.aval} is too short for a numerical gradient: at "
            f"least edge_order + 1 = {edge_order + 1} elements are required"
        )
    if np.ndim(h) == 0 and not (isinstance(h, TracedTensor) and h.ndim):
        dx = asarray(h)
        dx1 = dx2 = dx
        first = (dx, dx)
        last = (dx, dx)
    else:
        coords = asarray(h)
        if coords.ndim != 1 or coords.shape[0] != n:
            raise ShapeError(f"gradient: distances must be scalars or of length {n}")
        coords = coords if dt.is_inexact(coords.dtype) else coords.astype(dt.as_dtype(dt.float64))
        steps = subtract(coords[1:], coords[:-1])
        dx1, dx2 = steps[:-1], steps[1:]
        first = (steps[0], steps[1] if n > 2 else steps[0])
        last = (steps[-2] if n > 2 else steps[-1], steps[-1])
    f0, f1, f2 = z[..., :-2], z[..., 1:-1], z[..., 2:]
    total = add(dx1, dx2)
    interior = add(
        add(multiply(f0, -dx2 / (dx1 * total)), multiply(f1, (dx2 - dx1) / (dx1 * dx2))),
        multiply(f2, dx1 / (dx2 * total)),
    )
    if edge_order == 1:
        start = (z[..., 1] - z[..., 0]) / first[0]
        end = (z[..., -1] - z[..., -2]) / last[1]
    else:
        a, b = first
        start = (
            z[..., 0] * (-(2 * a + b) / (a * (a + b)))
            + z[..., 1] * ((a + b) / (a * b))
            + z[..., 2] * (-a / (b * (a + b)))
        )
        a, b = last
        end = (
            z[..., -3] * (b / (a * (a + b)))
            + z[..., -2] * (-(a + b) / (a * b))
            + z[..., -1] * ((2 * b + a) / (b * (a + b)))
        )
    out = concatenate([expand_dims(start, -1), interior, expand_dims(end, -1)], axis=-1)
    return moveaxis(out, -1, axis)


def histogram(
    a: ArrayLike,
    bins: Any = 10,
    range: tuple[Any, Any] | None = None,  # noqa: A002 - numpy's name
    density: bool | None = None,
    weights: ArrayLike = None,
) -> tuple[TracedTensor, TracedTensor]:
    """(counts, bin edges) as numpy.histogram: `bins` equal bins over `range` (default the
    data's min and max) or explicit increasing edges; the last bin is closed. Named bin rules
    ('auto', ...) are not supported."""
    x = ravel(asarray(a))
    if isinstance(bins, str):
        raise UnsupportedOperationError(
            f"histogram: bin rule {bins!r} is not supported; pass a count or edges"
        )
    if np.ndim(bins) == 0 and not isinstance(bins, TracedTensor):
        count = int(bins)
        if count < 1:
            raise ValueError("histogram: `bins` must be positive")
        if range is not None and range[0] > range[1]:
            raise ValueError(f"histogram: max must be larger than min in range {range}")
        lo, hi = (min(x), max(x)) if range is None else range
        lo, hi = promote(inexact(lo), inexact(hi))
        same = equal(lo, hi)  # numpy widens an empty range to ±0.5
        edges = linspace(where(same, lo - 0.5, lo), where(same, hi + 0.5, hi), count + 1)
    else:
        edges = inexact(asarray(bins))
        if edges.ndim != 1:
            raise ShapeError("histogram: `bins` must be 1-D when an array")
        known = concrete_or_none(edges)
        if known is not None and (np.diff(known) < 0).any():  # numpy refuses; JAX bins garbage
            raise ParameterError(f"histogram: bins must increase monotonically, got {known}")
        count = edges.shape[0] - 1
    values = inexact(x)
    inside = logical_and(greater_equal(values, edges[0]), less_equal(values, edges[-1]))
    index = sum_(greater_equal(expand_dims(values, 1), expand_dims(edges[1:-1], 0)), axis=1)
    slots = equal(expand_dims(index, 1), expand_dims(arange(count), 0))
    hits = logical_and(slots, expand_dims(inside, 1))
    # the counts are in the inexact dtype of a (and the weights), as jax.numpy's
    if weights is None:
        counts = sum_(hits.astype(values.dtype), axis=0)
    else:
        values, w = promote(values, inexact(ravel(asarray(weights))))
        counts = sum_(where(hits, expand_dims(w, 1), 0), axis=0)
    if density:
        widths = subtract(edges[1:], edges[:-1])
        counts = divide(divide(counts, widths), sum_(counts))
    return counts, edges
