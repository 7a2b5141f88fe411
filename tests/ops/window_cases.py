"""Loop references and random cases for the windowed reductions (`reduce_window_sum`,
`_max`, `_min`, `select_and_gather_add`, `select_and_scatter_add`).

The references walk every window element by element in Python, from XLA's definition: the
operand dilated by `base_dilation` and padded (negative padding crops), holes and padding
holding the identity; window k of output o reads position `o * stride + k * dilation`. They
share no code with tf8's kernels. `window_generators(Case)` gives catalog_cases.py its
generators (Case is handed in: this module imports nothing of it).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np

WINDOW = ("window_dimensions", "window_strides", "padding", "base_dilation", "window_dilation")


def _source(position: Sequence[int], shape, params) -> tuple[int, ...] | None:
    """The operand index at `position` of the padded, dilated operand, or None (padding or a
    hole)."""
    index = []
    for j, n, (lo, _), b in zip(position, shape, params["padding"], params["base_dilation"]):
        q = j - lo
        if q < 0 or q % b or q // b >= n:
            return None
        index.append(q // b)
    return tuple(index)


def windows(shape: Sequence[int], params: dict) -> Iterator[tuple[tuple, list]]:
    """Each output index with its window's operand indices (None: padding or a hole), in
    row-major window order."""
    out = output_shape(shape, params)
    for o in np.ndindex(*out):
        members = []
        for k in np.ndindex(*params["window_dimensions"]):
            position = [
                oi * s + ki * r
                for oi, ki, s, r in zip(o, k, params["window_strides"], params["window_dilation"])
            ]
            members.append(_source(position, shape, params))
        yield o, members


def output_shape(shape: Sequence[int], params: dict) -> tuple[int, ...]:
    grown = [
        lo + hi + (0 if n == 0 else (n - 1) * b + 1)
        for n, (lo, hi), b in zip(shape, params["padding"], params["base_dilation"])
    ]
    dims, rates = params["window_dimensions"], params["window_dilation"]
    spans = [(w - 1) * r + 1 for w, r in zip(dims, rates)]
    return tuple(
        0 if g < span else (g - span) // s + 1
        for g, span, s in zip(grown, spans, params["window_strides"])
    )


def reduce_reference(x: np.ndarray, params: dict, fn: Callable, init: Any) -> np.ndarray:
    """`fn` folded over each window from `init`; padding and holes hold `init`."""
    out = np.full(output_shape(x.shape, params), init, x.dtype)
    for o, members in windows(x.shape, params):
        values = [init if m is None else x[m] for m in members]
        out[o] = functools.reduce(fn, values, init)
    return out


def identity(dtype: np.dtype, kind: str) -> Any:
    if kind == "sum":
        return np.zeros((), dtype)[()]
    if dtype == np.bool_:
        return kind == "min"
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return info.min if kind == "max" else info.max
    return np.asarray(-np.inf if kind == "max" else np.inf, dtype)[()]


def _moves(select_prim: str, best: Any, e: Any) -> bool:
    return not (best >= e if select_prim == "ge" else best <= e)


def gather_reference(t: np.ndarray, x: np.ndarray, params: dict) -> np.ndarray:
    """Each window's `t` where its maximum (ge) / minimum (le) of `x` is, choosing from the
    identity (a window of identities gives 0) among the operand's elements (padding and holes
    skipped), ties to the first."""
    kind = "max" if params["select_prim"] == "ge" else "min"
    out = np.zeros(output_shape(x.shape, params), t.dtype)
    for o, members in windows(x.shape, params):
        best, chosen = identity(x.dtype, kind), 0
        for m in members:
            if m is not None and _moves(params["select_prim"], best, x[m]):
                best, chosen = x[m], t[m]
        out[o] = chosen
    return out


def scatter_reference(source: np.ndarray, x: np.ndarray, params: dict) -> np.ndarray:
    """`source` added where each window's maximum (minimum) of `x` is, choosing from the
    window's first element (padding included: what lands there is dropped)."""
    kind = "max" if params["select_prim"] == "ge" else "min"
    out = np.zeros(x.shape, source.dtype)
    for o, members in windows(x.shape, params):
        values = [identity(x.dtype, kind) if m is None else x[m] for m in members]
        best, chosen = values[0], members[0]
        for m, value in zip(members[1:], values[1:]):
            if _moves(params["select_prim"], best, value):
                best, chosen = value, m
        if chosen is not None:
            out[chosen] += source[o]
    return out


# --- random cases -----------------------------------------------------------------------------


def draw_params(d: Any, shape: Sequence[int], anywhere: bool) -> dict:
    """Random window parameters for `shape`. `anywhere`: any padding (negative too) and
    dilation; otherwise every window holds an element of the operand (a max-pool whose
    derivative is defined): padding below the window, or a dilation without padding."""
    params: dict[str, list] = {name: [] for name in WINDOW}
    for _ in shape:
        w, s = d.int(1, 3), d.int(1, 2)
        if anywhere:
            pad, b, r = (d.int(-1, 2), d.int(0, 2)), d.int(1, 2), d.int(1, 2)
        else:
            mode = d.int(0, 2)
            pad = (d.int(0, w - 1), d.int(0, w - 1)) if mode == 0 else (0, 0)
            b = 2 if mode == 2 else 1
            s = 2 if mode == 2 else s
            r = d.int(1, 2) if mode else 1
        for name, value in zip(WINDOW, (w, s, pad, b, r)):
            params[name].append(value)
    return {name: tuple(values) for name, values in params.items()}


def window_generators(case: type) -> dict[str, Callable]:
    """catalog_cases' generators of the five rows (`case` is its Case class)."""

    def reduction(fn: Callable, kind: str, anywhere: bool) -> Callable:
        def gen(d: Any, dtype: np.dtype) -> Any:
            x = d.array(dtype, d.shape(), -2, 2)
            if x.dtype.kind in "fc":  # quarters: sums in any order are exact
                x = (np.round(x * 4) / 4).astype(dtype)
            params = draw_params(d, x.shape, anywhere)
            return case([x], params, lambda: reduce_reference(x, params, fn, identity(dtype, kind)))

        return gen

    def selecting(reference: Callable, scatter: bool) -> Callable:
        def gen(d: Any, dtype: np.dtype) -> Any:
            x = d.array(dtype, d.shape(), -2, 2)
            params = {"select_prim": d.choice(["ge", "le"]), **draw_params(d, x.shape, False)}
            shape = output_shape(x.shape, params) if scatter else x.shape
            t = d.array(dtype, shape)
            return case([t, x], params, lambda: reference(t, x, params))

        return gen

    return {
        "reduce_window_sum": reduction(lambda a, b: a + b, "sum", True),
        "reduce_window_max": reduction(np.maximum, "max", False),
        "reduce_window_min": reduction(np.minimum, "min", False),
        "select_and_gather_add": selecting(gather_reference, False),
        "select_and_scatter_add": selecting(scatter_reference, True),
    }
