"""Analytic functions: exp, log, the trigonometric and hyperbolic functions and their
inverses, square and cube roots and the logistic function.

Each row sits with its numpy kernel, its partial derivative (`partials`, written with the
builders the transforms hand in as `lax`), the ufunc the numpy engine fuses it as and the
scalar code the numba engine compiles.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from tf8.ops.catalog import Category, DTypePolicy, Row
from tf8.ops.definition import OpDefinition, define
from tf8.ops.fusion import PREVIOUS, Fusion, Literal, Step, call, direct, scipy_direct

from .common import binary_kernel, special_kernel, unary_kernel

_A, _P = Category.ANALYTIC, DTypePolicy


def _function(
    name: str,
    doc: str,
    ufunc: np.ufunc,
    partial: Callable[..., Any],
    *,
    policy: DTypePolicy = _P.SAME_FLOAT_OR_COMPLEX,
    numba_declines: tuple[str, ...] = (),
) -> OpDefinition:
    """A unary analytic row computed by numpy's `ufunc` (numba calls the same `np.` name,
    except on the dtypes `numba_declines`)."""
    return define(
        Row(name, _A, policy, 1, 1, doc=doc),
        kernel=unary_kernel(ufunc),
        partials=(partial,),
        fusion=Fusion(
            ufunc=direct(ufunc),
            scalar=call(f"np.{ufunc.__name__}"),
            numba_declines=numba_declines,
        ),
    )


def _one_minus_square(lax: Any, v: Any) -> Any:
    return lax.sub(1.0, lax.mul(v, v))


def _rsqrt(op: Any, x: np.ndarray) -> np.ndarray:
    return 1 / np.sqrt(x)


def _logistic(op: Any, x: np.ndarray) -> np.ndarray:
    if x.dtype.kind == "f":
        return special_kernel("expit")(op, x)
    return 1 / (1 + np.exp(-x))


def _atan2(y: np.ndarray, x: np.ndarray) -> np.ndarray:
    """numpy's arctan2 on reals; on complex operands XLA's -i log((x + iy) / sqrt(x² + y²)),
    the analytic continuation JAX computes."""
    if y.dtype.kind != "c":
        return np.arctan2(y, x)
    with np.errstate(all="ignore"):
        out = -1j * np.log((x + 1j * y) / np.sqrt(x * x + y * y))
    return out.astype(y.dtype, copy=False)


def _hypot2(lax: Any, y: Any, x: Any) -> Any:
    return lax.add(lax.mul(x, x), lax.mul(y, y))


DEFINITIONS: tuple[OpDefinition, ...] = (
    _function("exp", "e**x", np.exp, lambda lax, x, out: out),
    _function("expm1", "e**x - 1", np.expm1, lambda lax, x, out: lax.add(out, 1.0)),
    _function("log", "natural log", np.log, lambda lax, x, out: lax.div(1.0, x)),
    # numba would call libm's scalar log1pf on float32 (~10 ns an element, and the call keeps
    # the whole fused loop from vectorising) where numpy's SIMD loop takes ~0.5 ns; the normal
    # sampler's erf_inv runs 10x faster with its log1p on numpy
    _function(
        "log1p",
        "log(1 + x)",
        np.log1p,
        lambda lax, x, out: lax.div(1.0, lax.add(x, 1.0)),
        numba_declines=("float32",),
    ),
    _function("sin", "sine", np.sin, lambda lax, x, out: lax.unary("cos", x)),
    _function("cos", "cosine", np.cos, lambda lax, x, out: lax.neg(lax.unary("sin", x))),
    _function("tan", "tangent", np.tan, lambda lax, x, out: lax.add(1.0, lax.mul(out, out))),
    _function("sinh", "hyperbolic sine", np.sinh, lambda lax, x, out: lax.unary("cosh", x)),
    _function("cosh", "hyperbolic cosine", np.cosh, lambda lax, x, out: lax.unary("sinh", x)),
    _function(
        "tanh", "hyperbolic tangent", np.tanh, lambda lax, x, out: _one_minus_square(lax, out)
    ),
    _function(
        "asin",
        "arcsine",
        np.arcsin,
        lambda lax, x, out: lax.unary("rsqrt", _one_minus_square(lax, x)),
    ),
    _function(
        "acos",
        "arccosine",
        np.arccos,
        lambda lax, x, out: lax.neg(lax.unary("rsqrt", _one_minus_square(lax, x))),
    ),
    _function(
        "atan",
        "arctangent",
        np.arctan,
        lambda lax, x, out: lax.div(1.0, lax.add(1.0, lax.mul(x, x))),
    ),
    define(
        Row("atan2", _A, _P.SAME_FLOAT_OR_COMPLEX, 2, 2, doc="arctan2(y, x)"),
        kernel=binary_kernel(_atan2),
        partials=(
            lambda lax, y, x, out: lax.div(x, _hypot2(lax, y, x)),
            lambda lax, y, x, out: lax.neg(lax.div(y, _hypot2(lax, y, x))),
        ),
        fusion=Fusion(
            ufunc=direct(np.arctan2, "f"),
            scalar=call("np.arctan2"),
            numba_declines=("complex64", "complex128"),
        ),
    ),
    # JAX's rules: rsqrt(x² + 1), rsqrt(x² - 1) (infinite at 1), 1 / ((1 + x)(1 - x))
    _function(
        "asinh",
        "inverse hyperbolic sine",
        np.arcsinh,
        lambda lax, x, out: lax.unary("rsqrt", lax.add(lax.mul(x, x), 1.0)),
    ),
    _function(
        "acosh",
        "inverse hyperbolic cosine (NaN below 1)",
        np.arccosh,
        lambda lax, x, out: lax.unary("rsqrt", lax.sub(lax.mul(x, x), 1.0)),
    ),
    _function(
        "atanh",
        "inverse hyperbolic tangent (±inf at ±1)",
        np.arctanh,
        lambda lax, x, out: lax.div(lax.div(1.0, lax.add(1.0, x)), lax.sub(1.0, x)),
    ),
    _function(
        "cbrt",
        "real cube root",
        np.cbrt,
        lambda lax, x, out: lax.mul(1.0 / 3.0, lax.pow_(out, -2.0)),  # JAX's: out**-2 / 3
        policy=_P.SAME_FLOAT,
    ),
    _function("sqrt", "square root", np.sqrt, lambda lax, x, out: lax.div(0.5, out)),
    define(
        Row("rsqrt", _A, _P.SAME_FLOAT_OR_COMPLEX, 1, 1, doc="1 / sqrt(x)"),
        kernel=_rsqrt,
        partials=(lambda lax, x, out: lax.mul(-0.5, lax.div(out, x)),),
        fusion=Fusion(
            ufunc=lambda op, dtypes: (
                Step(np.sqrt, (0,)),
                Step(np.true_divide, (Literal(1), PREVIOUS)),
            ),
            scalar=lambda op, a: f"(1.0 / np.sqrt({a[0]}))",
        ),
    ),
    define(
        Row("logistic", _A, _P.SAME_FLOAT_OR_COMPLEX, 1, 1, doc="1 / (1 + e**-x)"),
        kernel=_logistic,
        partials=(lambda lax, x, out: lax.mul(out, lax.sub(1.0, out)),),
        fusion=Fusion(
            ufunc=scipy_direct("expit", "f"),
            scalar=lambda op, a: f"(1.0 / (1.0 + np.exp(-{a[0]})))",
        ),
    ),
)
