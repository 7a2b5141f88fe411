"""Running products, maxima, minima and log-sum-exps along an axis: cumprod, cummax, cummin
and cumlogsumexp (the running sum, cumsum, is linear and lives with the reductions).

Each row's kernel is numpy's `accumulate` of its binary function (maxima and minima with
XLA's signed zeros, `tf8.ops.extrema`; a loop for the log-sum-exp of complex numbers, which
numpy's logaddexp does not take). Their derivatives are
JAX's: the JVP of the parallel prefix scan (`associative_scan`, handed in with the rule kit)
of the function, on pairs (value, tangent) combined by the binary function's own rule — mul's
partials, maximum's and minimum's split of ties, logaddexp's (JAX's custom JVP). So a zero
factor, a tie and an infinite log-sum-exp get the derivative JAX gives them, and every order
follows: the scan is ordinary primitives. The batching rule moves the axis; the Dask engine
scans chunk by chunk (`dask.array.reductions.cumreduction`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from tf8.ops import extrema
from tf8.ops.avals import Aval
from tf8.ops.catalog import Category, DTypePolicy, Row
from tf8.ops.definition import OpDefinition, define
from tf8.ops.fusion import Fusion
from tf8.ops.shape_checks import Guards, check_axis
from tf8.ops.shapes import Dim

from .batch_axes import batched_axis, example_axis

_R, _P = Category.REDUCTION, DTypePolicy


def _shape(op: Any, avals: Sequence[Aval], guards: Guards) -> tuple[Dim, ...]:
    check_axis(op, op["axis"], avals[0].ndim, scalar_as_vector=True)
    return avals[0].shape


def _along_axis(accumulate: Callable[[np.ndarray, int], np.ndarray]) -> Callable[..., Any]:
    """The kernel running `accumulate(x, axis)` along the op's axis (from its end with
    `reverse`); a 0-d operand is its one element."""

    def kernel(op: Any, x: np.ndarray) -> np.ndarray:
        if x.ndim == 0:
            return x.copy()
        axis = op["axis"] % x.ndim
        if op["reverse"]:
            return np.flip(accumulate(np.flip(x, axis), axis), axis)
        return accumulate(x, axis)

    return kernel


def _complex_logaddexp(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """JAX's logaddexp of complex numbers: the larger (in lexicographic order) plus
    log1p(exp(a + b - 2 max)), its imaginary part wrapped into [-pi, pi]."""
    top = np.maximum(a, b)
    out = top + np.log1p(np.exp((a + b) - top * 2))
    imag = np.remainder(out.imag + np.pi, 2 * np.pi) - np.pi  # XLA's rem, then wrapped
    return (out.real + 1j * imag).astype(a.dtype)


def _logsumexp_accumulate(x: np.ndarray, axis: int) -> np.ndarray:
    if x.dtype.kind != "c":  # + 0: XLA's scan starts at -inf, and -inf (+) -0 is +0
        return np.logaddexp.accumulate(x, axis=axis) + x.dtype.type(0)
    moved = np.moveaxis(x, axis, 0)
    out = np.empty_like(moved)
    total = np.full(moved.shape[1:], -np.inf, x.dtype)  # XLA's window starts at -inf
    for i in range(moved.shape[0]):
        total = out[i] = _complex_logaddexp(total, moved[i])
    return np.moveaxis(out, 0, axis)


# --- derivatives ----------------------------------------------------------------------------


def _by_row(name: str) -> Callable[..., tuple[Any, Any]]:
    """Combine (a, ta) with (b, tb) by catalog row `name` and the JVP its home gives it."""

    def combine(lax: Any, a: Any, ta: Any, b: Any, tb: Any) -> tuple[Any, Any]:
        op = lax.make_primitive(name, 2, {})
        out = lax.apply(op, [a, b])[0]
        found = op.definition
        if found.jvp is not None:
            return out, found.jvp(lax, op, [a, b], [out], [ta, tb])[0]
        da, db = (partial(lax, a, b, out) for partial in found.partials)
        return out, lax.add(lax.mul(ta, da), lax.mul(tb, db))

    return combine


def _replace_inf(lax: Any, x: Any) -> Any:
    """0 where the real part of x is +inf (JAX's logaddexp rule)."""
    part = lax.real(x)
    return lax.select(lax.compare(part, math.inf, "eq"), lax.zeros(x.aval), x)


def _logaddexp(lax: Any, a: Any, b: Any) -> Any:
    """JAX's logaddexp in primitives: max + log1p(exp(-|a - b|)), a + b where that is NaN
    (infinities of one sign, NaN); for complex numbers as `_complex_logaddexp`. The real
    one takes the max and -|a - b| from one branch (a >= b or not), so that their
    derivatives agree at ties and give the softmax weights JAX's custom rule gives (max's
    split 1/2 beside |x|'s derivative 1 at 0 would not); the NaN case reads 0 instead, so no
    0 · NaN reaches the derivatives of what it does not use."""
    if a.dtype.kind != "c":
        delta = lax.sub(a, b)
        valid = lax.compare(delta, delta, "eq")
        above = lax.compare(delta, 0.0, "ge")
        top = lax.select(above, a, b)
        gap = lax.select(valid, lax.select(above, lax.neg(delta), delta), lax.like(delta, 0.0))
        out = lax.add(top, lax.unary("log1p", lax.unary("exp", gap)))
        return lax.select(valid, out, lax.add(a, b))
    top = lax.apply1("maximum", [a, b])
    out = lax.add(
        top, lax.unary("log1p", lax.unary("exp", lax.sub(lax.add(a, b), lax.mul(top, 2.0))))
    )
    imag = lax.apply1("imag", [out])
    wrapped = lax.apply1("fmod", [lax.add(imag, math.pi), lax.like(imag, 2 * math.pi)])
    wrapped = lax.select(lax.compare(wrapped, 0.0, "lt"), lax.add(wrapped, 2 * math.pi), wrapped)
    return lax.apply1("complex", [lax.apply1("real", [out]), lax.sub(wrapped, math.pi)])


def _logaddexp_pair(lax: Any, a: Any, ta: Any, b: Any, tb: Any) -> tuple[Any, Any]:
    out = _logaddexp(lax, a, b)
    top = _replace_inf(lax, out)
    weight_a = lax.unary("exp", lax.sub(_replace_inf(lax, a), top))
    weight_b = lax.unary("exp", lax.sub(_replace_inf(lax, b), top))
    return out, lax.add(lax.mul(ta, weight_a), lax.mul(tb, weight_b))


def _scan_jvp(combine: Callable[..., tuple[Any, Any]]) -> Callable[..., list]:
    """JAX's rule: the JVP of the associative scan of `combine`'s function, as the scan of
    (value, tangent) pairs."""

    def jvp(lax: Any, op: Any, primals: Any, outputs: Any, tangents: Any) -> list:
        (x,), (t,) = primals, tangents
        if t is None:
            return [None]
        if x.ndim == 0:
            return [t]

        def pairs(left: Any, right: Any) -> tuple[Any, Any]:
            return combine(lax, left[0], left[1], right[0], right[1])

        axis = op["axis"] % x.ndim
        _, tangent = lax.associative_scan(pairs, (x, t), reverse=op["reverse"], axis=axis)
        return [tangent]

    return jvp


# --- batching and Dask ----------------------------------------------------------------------


def _batch(lax: Any, op: Any, args: Any, dims: Any) -> tuple[list, list]:
    (x,), (d,) = args, dims
    if x.ndim == 1:  # per-example scalars: the scan of one element is itself
        return [x], [d]
    axis = batched_axis(example_axis(op["axis"], x.ndim - 1), d)
    return [lax.apply(lax.with_params(op, axis=axis), [x])[0]], [d]


def _dask(accumulate: Callable, binary: Callable, identity: Callable[[np.dtype], Any]) -> Any:
    """Scan each chunk, then carry the chunks' last values across (dask's cumreduction)."""

    def kernel(kit: Any, op: Any, x: Any) -> Any:
        da, x = kit.array, kit.as_dask(x)
        if x.ndim == 0:
            return x
        axis = op["axis"] % x.ndim
        flip = op["reverse"]
        scan = lambda block, axis, dtype=None: accumulate(block, axis)  # noqa: E731
        operand = da.flip(x, axis) if flip else x
        out = da.reductions.cumreduction(
            scan, binary, identity(x.dtype), operand, axis=axis, dtype=x.dtype
        )
        return da.flip(out, axis) if flip else out

    return kernel


def _lowest(dtype: np.dtype) -> Any:
    return -np.inf if dtype.kind in "fc" else np.iinfo(dtype).min


def _highest(dtype: np.dtype) -> Any:
    return np.inf if dtype.kind in "fc" else np.iinfo(dtype).max


def _row(
    name: str,
    doc: str,
    policy: DTypePolicy,
    accumulate: Callable[[np.ndarray, int], np.ndarray],
    binary: Callable,
    identity: Callable[[np.dtype], Any],
    combine: Callable[..., tuple[Any, Any]],
) -> OpDefinition:
    return define(
        Row(
            name,
            _R,
            policy,
            1,
            1,
            ("axis", "reverse"),
            doc=doc,
            defaults=(("reverse", False),),
        ),
        kernel=_along_axis(accumulate),
        shape=_shape,
        jvp=_scan_jvp(combine),
        batch=_batch,
        fusion=Fusion(dask=_dask(accumulate, binary, identity)),
    )


def _complex_aware_logaddexp(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return _complex_logaddexp(a, b) if a.dtype.kind == "c" else np.logaddexp(a, b)


DEFINITIONS: tuple[OpDefinition, ...] = (
    _row(
        "cumprod",
        "running product",
        _P.SAME_NUMERIC,
        lambda x, axis: np.multiply.accumulate(x, axis=axis, dtype=x.dtype),
        np.multiply,
        lambda dtype: 1,
        _by_row("mul"),
    ),
    _row(
        "cummax",
        "running maximum (NaN propagates)",
        _P.SAME_NUMERIC,
        extrema.accumulate_max,
        extrema.maximum,
        _lowest,
        _by_row("maximum"),
    ),
    _row(
        "cummin",
        "running minimum (NaN propagates)",
        _P.SAME_NUMERIC,
        extrema.accumulate_min,
        extrema.minimum,
        _highest,
        _by_row("minimum"),
    ),
    _row(
        "cumlogsumexp",
        "running log(sum(exp(x)))",
        _P.SAME_FLOAT_OR_COMPLEX,
        _logsumexp_accumulate,
        _complex_aware_logaddexp,
        lambda dtype: -np.inf,
        _logaddexp_pair,
    ),
)
