"""The chi-squared distribution with df degrees of freedom (scipy.stats.chi2): the gamma
distribution with shape df / 2 and scale 2."""

from __future__ import annotations

from typing import Any

from tf8.traced import TracedTensor

from . import gamma
from ._common import inexact

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "sf"]


def _gamma(name: str):
    fn = getattr(gamma, name)

    def chi2(x: Any, df: Any, loc: Any = 0, scale: Any = 1) -> TracedTensor:
        return fn(x, inexact(df) / 2, loc, inexact(scale) * 2)

    chi2.__name__ = chi2.__qualname__ = name
    chi2.__doc__ = f"chi2.{name}(x, df, loc, scale) = gamma.{name}(x, df / 2, loc, 2 scale)."
    return chi2


logpdf, pdf, cdf, logcdf, sf, logsf = (
    _gamma(n) for n in ("logpdf", "pdf", "cdf", "logcdf", "sf", "logsf")
)
