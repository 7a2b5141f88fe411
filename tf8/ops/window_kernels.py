"""Numpy kernels of the windowed reductions (`tf8.ops.primitives.windows`).

Every row there shares JAX's window parameters: `window_dimensions`, `window_strides`,
`padding` (one `(low, high)` pair per axis; negative crops), `base_dilation` (holes between
the operand's elements) and `window_dilation` (holes between a window's elements). The
operand is first padded and dilated (`padded`, filled with the reduction's identity), then
each window offset is a strided view of it (`window_view`), so a kernel is a short loop over
the offsets of one window with whole-array ufunc calls: no Python loop over elements.

- `reduce_window` reduces one axis at a time (a box window is a product of intervals, so
  sums, maxima and minima separate): a 2x2 max-pool is two `np.maximum` calls on half-size
  views rather than three on quarter-size ones;
- `select_and_gather_add` and `select_and_scatter_add` pick one element per window as XLA
  does: start from the identity (gather) or the window's first element (scatter), and move
  to each later element `e` (row-major order) unless `best >= e` (`le` for a minimum). Ties
  go to the first element; a NaN is passed by the next element, as in XLA. The gather visits
  the operand's elements only (XLA's reduce_window), the scatter padding and holes too (as
  -inf: JAX pads the operand first), so they differ only on -inf and NaN.

A kernel reads its parameters as `op[name]` (a primitive, or a dict):

>>> import numpy as np
>>> op = {"window_dimensions": (2,), "window_strides": (2,), "padding": ((0, 1),),
...       "base_dilation": (1,), "window_dilation": (1,), "select_prim": "ge"}
>>> x = np.array([1.0, 3.0, 3.0, 2.0, 5.0])
>>> reduce_window(op, x, np.maximum, "max")
array([3., 3., 5.])
>>> select_and_scatter_add(op, np.array([10.0, 20.0, 30.0]), x)  # ties: the first
array([ 0., 10., 20.,  0., 30.])
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from tf8.ops import extrema

Pairs = Sequence[tuple[int, int]]


# --- geometry ---------------------------------------------------------------------------------


def dilated(size: int, dilation: int) -> int:
    """The size of an axis of `size` elements with `dilation - 1` holes between neighbours."""
    return 0 if size == 0 else (size - 1) * dilation + 1


def output_size(
    size: int, window: int, stride: int, pad: tuple[int, int], base: int, rate: int
) -> int:
    """How many windows fit along one axis (0 when even one does not)."""
    span = pad[0] + pad[1] + dilated(size, base) - dilated(window, rate)
    return 0 if span < 0 else span // stride + 1


def output_shape(op: Any, shape: Sequence[int]) -> tuple[int, ...]:
    """The result shape of the windowed reduction `op` on an operand of `shape`."""
    return tuple(
        output_size(n, w, s, p, b, r)
        for n, w, s, p, b, r in zip(
            shape,
            op["window_dimensions"],
            op["window_strides"],
            op["padding"],
            op["base_dilation"],
            op["window_dilation"],
        )
    )


def _bare(padding: Pairs, base: Sequence[int]) -> bool:
    return all(lo == hi == 0 for lo, hi in padding) and all(b == 1 for b in base)


def padded(x: np.ndarray, fill: Any, padding: Pairs, base: Sequence[int]) -> np.ndarray:
    """`x` with `base - 1` holes between neighbours and `padding` at the ends, all holding
    `fill` (negative padding crops), as `lax.pad(x, fill, (lo, hi, base - 1))`. `x` itself
    when there is nothing to add."""
    if _bare(padding, base):
        return x
    inner = [dilated(n, b) for n, b in zip(x.shape, base)]
    grown = [max(lo, 0) + n + max(hi, 0) for n, (lo, hi) in zip(inner, padding)]
    out = np.full(grown, fill, dtype=x.dtype)
    out[
        tuple(slice(max(lo, 0), max(lo, 0) + n, b) for n, (lo, _), b in zip(inner, padding, base))
    ] = x
    crop = tuple(slice(-min(lo, 0), g + min(hi, 0)) for g, (lo, hi) in zip(grown, padding))
    return out[crop]


def unpadded(
    y: np.ndarray, shape: Sequence[int], padding: Pairs, base: Sequence[int]
) -> np.ndarray:
    """The transpose of `padded`: the elements of `y` where `x`'s were (zeros for those a
    negative padding cropped); `y` itself when nothing was added."""
    if _bare(padding, base):
        return y
    regrow = [(max(-lo, 0), max(-hi, 0)) for lo, hi in padding]
    if any(a or b for a, b in regrow):
        y = np.pad(y, regrow)
    return y[
        tuple(
            slice(max(lo, 0), max(lo, 0) + dilated(n, b), b)
            for n, (lo, _), b in zip(shape, padding, base)
        )
    ]


def window_view(
    p: np.ndarray,
    offset: Sequence[int],
    strides: Sequence[int],
    rates: Sequence[int],
    out: Sequence[int],
) -> np.ndarray:
    """The elements at window position `offset` of every window: a strided view of the
    padded operand `p`, of the result's shape `out` (which has no empty axis)."""
    at = [
        slice(k * r, k * r + (o - 1) * s + 1, s) for k, s, r, o in zip(offset, strides, rates, out)
    ]
    return p[(*at, Ellipsis)]  # (a view even of a 0-d array)


def _offsets(op: Any) -> Iterator[tuple[int, ...]]:
    return np.ndindex(*op["window_dimensions"])


def identity(dtype: np.dtype, kind: str) -> Any:
    """The identity of `kind` ("sum", "max" or "min") in `dtype`, which fills the padding."""
    if kind == "sum":
        return dtype.type(0)
    lowest = kind == "max"
    if dtype == np.bool_:
        return not lowest
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return info.min if lowest else info.max
    return -np.inf if lowest else np.inf


def _fresh(out: np.ndarray, x: np.ndarray) -> np.ndarray:
    """`out`, copied when it is a view of (or is) the operand: a kernel's result is its own."""
    return out.copy() if out is x or out.base is not None else out


# --- reductions -------------------------------------------------------------------------------


def _reduce_axis(p: np.ndarray, axis: int, op: Any, size: int, ufunc: np.ufunc) -> np.ndarray:
    """`p` reduced by `ufunc` over the windows along `axis` (`size` of them)."""
    w = op["window_dimensions"][axis]
    s, r = op["window_strides"][axis], op["window_dilation"][axis]
    at: list[Any] = [slice(None)] * p.ndim

    def view(k: int) -> np.ndarray:
        at[axis] = slice(k * r, k * r + (size - 1) * s + 1, s)
        return p[tuple(at)]

    if w == 1:
        return view(0)
    out = ufunc(view(0), view(1))
    for k in range(2, w):
        ufunc(out, view(k), out=out)
    return out


def reduce_window(op: Any, x: np.ndarray, ufunc: np.ufunc, kind: str) -> np.ndarray:
    """`ufunc` (np.add, np.maximum, np.minimum) over every window of `x`, one axis at a time;
    padding and holes hold `kind`'s identity. The result keeps `x`'s dtype; a max's (min's)
    zeros are signed as XLA's (`tf8.ops.extrema`: +0 where a window holds one)."""
    out_shape = output_shape(op, x.shape)
    fill = identity(x.dtype, kind)
    if 0 in out_shape:
        return np.full(out_shape, fill, x.dtype)
    p = padded(x, fill, op["padding"], op["base_dilation"])
    for axis in reversed(range(x.ndim)):
        if p.shape[axis] != out_shape[axis] or op["window_dimensions"][axis] != 1:
            p = _reduce_axis(p, axis, op, out_shape[axis], ufunc)
    out = _fresh(p, x)
    if kind == "sum":
        return out
    wins = kind == "max"
    return extrema.mend_zeros(
        out, wins, lambda: reduce_window(op, extrema.winners(x, wins), np.maximum, "max"), x.dtype
    )


# --- choosing one element per window ----------------------------------------------------------
#
# The rule, from XLA: the choice moves from `best` to each later element `e` unless
# `best >= e` (`<=` for a minimum). Without NaNs that is the first element equal to the
# window's extremum, which whole-array comparisons find (`_firsts`), free of the masked
# copies numpy runs slowly; a NaN extremum takes the sequential walk (`_walk`).


def _select_kind(op: Any) -> str:
    return "max" if op["select_prim"] == "ge" else "min"


def _extremum(op: Any, x: np.ndarray) -> np.ndarray | None:
    """Each window's maximum (minimum) of `x`, or None when one is NaN (the walk decides)."""
    kind = _select_kind(op)
    found = reduce_window(op, x, np.maximum if kind == "max" else np.minimum, kind)
    return None if np.isnan(found).any() else found


def _firsts(op: Any, p: np.ndarray, extremum: np.ndarray) -> Iterator[tuple[Any, np.ndarray]]:
    """Each window offset, with where its element of `p` is its window's first equal to
    `extremum`."""
    strides, rates, shape = op["window_strides"], op["window_dilation"], extremum.shape
    taken = np.zeros(shape, np.bool_)
    equal = np.empty(shape, np.bool_)
    for offset in _offsets(op):
        np.equal(window_view(p, offset, strides, rates, shape), extremum, out=equal)
        yield offset, np.greater(equal, taken)  # equal, and no earlier element was
        taken |= equal


def _walk(
    op: Any, p: np.ndarray, shape: tuple[int, ...], start: Any, inside: np.ndarray | None
) -> Iterator[tuple[Any, np.ndarray]]:
    """Each window offset, with where the sequential rule chose its element of `p`: from the
    value `start` (None: from each window's first element), visiting only the elements
    `inside` marks (None: all)."""
    strides, rates = op["window_strides"], op["window_dilation"]
    offsets = list(_offsets(op))
    if start is None:
        best = window_view(p, offsets[0], strides, rates, shape).copy()
        chosen, begin = np.zeros(shape, np.intp), 1
    else:
        best, chosen, begin = np.full(shape, start, p.dtype), np.full(shape, -1, np.intp), 0
    move = np.empty(shape, np.bool_)
    compare = np.greater_equal if op["select_prim"] == "ge" else np.less_equal
    for j in range(begin, len(offsets)):
        e = window_view(p, offsets[j], strides, rates, shape)
        np.logical_not(compare(best, e, out=move), out=move)
        if inside is not None:
            move &= window_view(inside, offsets[j], strides, rates, shape)
        np.copyto(best, e, where=move)
        np.copyto(chosen, j, where=move)
    for j, offset in enumerate(offsets):
        yield offset, chosen == j


def _masked(values: np.ndarray, where: np.ndarray, finite: bool) -> np.ndarray:
    """`values` where `where` holds, else 0 (a product when every value is finite)."""
    return values * where if finite else np.where(where, values, 0)


def select_and_gather_add(op: Any, t: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Each window's element of `t` at the position of the window's maximum (minimum) of `x`:
    the tangent of a max-pool. The choice starts from the identity with a zero tangent (a
    window of only identities gives 0) and visits the operand's elements only, as XLA's
    reduce_window does: padding and holes are skipped."""
    shape = output_shape(op, x.shape)
    if 0 in shape:
        return np.zeros(shape, t.dtype)
    fill = identity(x.dtype, _select_kind(op))
    padding, base = op["padding"], op["base_dilation"]
    p, q = padded(x, fill, padding, base), padded(t, 0, padding, base)
    extremum = _extremum(op, x)
    if extremum is not None:
        chosen = _firsts(op, p, extremum)
    else:
        inside = None if p is x else padded(np.ones(x.shape, np.bool_), False, padding, base)
        chosen = _walk(op, p, shape, fill, inside)
    strides, rates = op["window_strides"], op["window_dilation"]
    finite = bool(np.isfinite(t).all())
    out = np.zeros(shape, t.dtype)
    for offset, where in chosen:
        out += _masked(window_view(q, offset, strides, rates, shape), where, finite)
    if extremum is not None:  # a window whose extremum is the identity chose nothing
        out[extremum == fill] = 0
    return out


def select_and_scatter_add(op: Any, source: np.ndarray, x: np.ndarray) -> np.ndarray:
    """`source` (one value per window) added at the position of each window's maximum
    (minimum) of `x`: the cotangent of a max-pool, shaped like `x`. The choice starts from the
    window's first element, padding and holes included (as -inf); what lands there is
    dropped."""
    shape = output_shape(op, x.shape)
    if 0 in shape:
        return np.zeros(x.shape, source.dtype)
    padding, base = op["padding"], op["base_dilation"]
    p = padded(x, identity(x.dtype, _select_kind(op)), padding, base)
    extremum = _extremum(op, x)
    chosen = _walk(op, p, shape, None, None) if extremum is None else _firsts(op, p, extremum)
    strides, rates = op["window_strides"], op["window_dilation"]
    # windows apart (stride past the span): each element is in one window at most
    apart = all(s >= dilated(w, r) for w, s, r in zip(op["window_dimensions"], strides, rates))
    finite = bool(np.isfinite(source).all())
    grid = np.zeros(p.shape, source.dtype)
    for offset, where in chosen:
        target = window_view(grid, offset, strides, rates, shape)
        if apart and finite:
            np.multiply(source, where, out=target)
        else:
            target += _masked(source, where, finite)
    out = unpadded(grid, x.shape, padding, base)
    return out if out is grid else out.copy()  # (not a view keeping the padded grid alive)
