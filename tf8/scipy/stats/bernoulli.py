"""The Bernoulli distribution: k = 1 with probability p, k = 0 otherwise (shifted by loc)."""

from __future__ import annotations

import math
from typing import Any

import tf8.numpy as tnp
from tf8.scipy.special import xlog1py, xlogy
from tf8.traced import TracedTensor

from ._common import inexact

__all__ = ["cdf", "logpmf", "pmf"]


def logpmf(k: Any, p: Any, loc: Any = 0) -> TracedTensor:
    k = inexact(k) - loc
    in_support = (k == 0) | (k == 1)
    return tnp.where(in_support, xlogy(k, p) + xlog1py(1 - k, -inexact(p)), -math.inf)


def pmf(k: Any, p: Any, loc: Any = 0) -> TracedTensor:
    return tnp.exp(logpmf(k, p, loc))


def cdf(k: Any, p: Any, loc: Any = 0) -> TracedTensor:
    k = inexact(k) - loc
    p = inexact(p)
    return tnp.where(k < 0, 0.0, tnp.where(k < 1, 1 - p, 1.0))
