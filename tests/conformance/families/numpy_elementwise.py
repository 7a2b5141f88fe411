"""`jax.numpy`'s elementwise functions and reductions, over the shared grids."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from ..grids import binary, mixed, reductions, unary
from ..spec import Case

UNARY = [
    "abs", "absolute", "arccos", "arccosh", "arcsin", "arcsinh", "arctan", "arctanh", "cbrt",
    "ceil", "conj", "conjugate", "cos", "cosh", "deg2rad", "degrees", "exp", "exp2", "expm1",
    "fabs", "floor", "imag", "isfinite", "isinf", "isnan", "log", "log10", "log1p",
    "log2", "logical_not", "negative", "positive", "rad2deg", "radians", "real", "reciprocal",
    "rint", "sign", "signbit", "sin", "sinc", "sinh", "sqrt", "square", "tan", "tanh", "trunc",
    "angle", "i0", "isreal", "iscomplex", "isneginf", "isposinf", "nan_to_num", "invert",
    "round", "around",
]  # fmt: skip
ABOVE_ONE = {"arccosh", "log", "log10", "log2", "sqrt"}  # also sampled where they are real

BINARY = [
    "add", "arctan2", "copysign", "divide", "equal", "float_power", "floor_divide", "fmax",
    "fmin", "fmod", "greater", "greater_equal", "heaviside", "hypot", "less", "less_equal",
    "logaddexp", "logaddexp2", "logical_and", "logical_or", "logical_xor", "maximum",
    "minimum", "mod", "multiply", "not_equal", "power", "remainder", "subtract", "true_divide",
    "bitwise_and", "bitwise_or", "bitwise_xor", "left_shift", "right_shift", "divmod",
]  # fmt: skip

REDUCTIONS = [
    "sum", "prod", "mean", "max", "min", "argmax", "argmin", "std", "var", "all", "any",
    "cumsum", "cumprod", "nansum", "nanmean", "amax", "amin", "ptp", "median",
    "count_nonzero", "average", "nanprod", "nanmedian",
]  # fmt: skip


def cases() -> Iterator[Case]:
    for name in UNARY:
        rng = np.random.default_rng(len(name))
        ranges = ("unit", "above_one", "wide") if name in ABOVE_ONE else ("unit", "wide")
        for args in unary(rng, ranges):
            yield Case(f"numpy.{name}", args)
    for name in BINARY:
        rng = np.random.default_rng(len(name) + 100)
        for args in binary(rng):
            yield Case(f"numpy.{name}", args, derivatives=not mixed(args))
    for name in REDUCTIONS:
        rng = np.random.default_rng(len(name) + 200)
        for args, keywords in reductions(rng):
            yield Case(f"numpy.{name}", args, keywords)
