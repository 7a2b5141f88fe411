"""tf8.scipy.stats: scipy.stats distributions' density and distribution functions (as
jax.scipy.stats), one module per distribution: `norm.logpdf(x, loc, scale)`.

Those needing gammaln (t, beta, gamma, chi2, dirichlet, poisson, binom, ...) and norm's ppf
(ndtri) wait for those primitives.
"""

from tf8.scipy.stats import (
    bernoulli,
    cauchy,
    expon,
    geom,
    laplace,
    logistic,
    multivariate_normal,
    norm,
    uniform,
)

__all__ = [
    "bernoulli",
    "cauchy",
    "expon",
    "geom",
    "laplace",
    "logistic",
    "multivariate_normal",
    "norm",
    "uniform",
]
