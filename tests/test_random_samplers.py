"""tf8.random's samplers beyond uniform/normal/randint/bernoulli: against recorded JAX draws
(random_jax_vectors.py), against scipy.stats distributions, and under jit, vmap and scan.

Distribution tests draw with fixed keys, so they are deterministic: each Kolmogorov-Smirnov
or chi-square test must give p > 1e-3 (a correct sampler fails one such test with
probability 1e-3 for a fresh key; with these keys they pass, and a wrong distribution,
mean or scale gives p far below).
"""

from __future__ import annotations

import numpy as np
import pytest
from random_jax_vectors import EXACT, VECTORS, assert_recorded
from scipy import stats

import tf8
import tf8.numpy as tnp
import tf8.random as random
from tf8.errors import DTypeError, ParameterError, ShapeError

F32 = np.float32
COV = np.array([[2.0, 0.5], [0.5, 1.0]])
GRID = np.arange(12.0).reshape(3, 4)
P5 = np.array([0.1, 0.2, 0.3, 0.2, 0.2])
LOGITS = np.log(np.array([[0.2, 0.3, 0.5], [0.6, 0.3, 0.1]]))
ALPHAS = np.array([0.3, 1.0, 2.5, 10.0, 0.05])

# The calls whose JAX outputs random_jax_vectors.py holds (key PRNGKey(20261201)).
CALLS = {
    "truncated_normal_f64": lambda k: random.truncated_normal(k, -1.0, 2.0, (5,)),
    "truncated_normal_f32": lambda k: random.truncated_normal(k, -1.0, 2.0, (5,), F32),
    "exponential_f64": lambda k: random.exponential(k, (5,)),
    "exponential_f32": lambda k: random.exponential(k, (5,), F32),
    "laplace_f64": lambda k: random.laplace(k, (5,)),
    "logistic_f64": lambda k: random.logistic(k, (5,)),
    "gumbel_f64": lambda k: random.gumbel(k, (5,)),
    "gumbel_f32": lambda k: random.gumbel(k, (5,), F32),
    "gumbel_high_f64": lambda k: random.gumbel(k, (5,), mode="high"),
    "cauchy_f64": lambda k: random.cauchy(k, (5,)),
    "pareto_f64": lambda k: random.pareto(k, 3.0, (5,)),
    "weibull_min_f64": lambda k: random.weibull_min(k, 2.0, 1.5, (5,)),
    "maxwell_f64": lambda k: random.maxwell(k, (4,)),
    "lognormal_f64": lambda k: random.lognormal(k, 0.5, (5,)),
    "rayleigh_f64": lambda k: random.rayleigh(k, 2.0, (5,)),
    "rademacher": lambda k: random.rademacher(k, (8,)),
    "categorical": lambda k: random.categorical(k, np.log(np.array([0.2, 0.3, 0.5])), shape=(8,)),
    "categorical_batch": lambda k: random.categorical(k, LOGITS, axis=1),
    "gamma_f64": lambda k: random.gamma(k, ALPHAS),
    "gamma_f32": lambda k: random.gamma(k, ALPHAS.astype(F32), dtype=F32),
    "loggamma_f64": lambda k: random.loggamma(k, ALPHAS),
    "beta_f64": lambda k: random.beta(k, 2.0, 3.0, (5,)),
    "dirichlet_f64": lambda k: random.dirichlet(k, np.array([0.5, 1.0, 3.0]), (2,)),
    "t_f64": lambda k: random.t(k, 4.0, (5,)),
    "chisquare_f64": lambda k: random.chisquare(k, 3.0, (5,)),
    "generalized_normal_f64": lambda k: random.generalized_normal(k, 3.0, (5,)),
    "ball_f64": lambda k: random.ball(k, 3, 2, (2,)),
    "multivariate_normal_cholesky": lambda k: random.multivariate_normal(
        k, np.array([1.0, -1.0]), COV, (3,)
    ),
    "multivariate_normal_eigh": lambda k: random.multivariate_normal(
        k, np.array([1.0, -1.0]), COV, (3,), method="eigh"
    ),
    "multivariate_normal_svd": lambda k: random.multivariate_normal(
        k, np.array([1.0, -1.0]), COV, (3,), method="svd"
    ),
    "orthogonal_f64": lambda k: random.orthogonal(k, 3),
    "orthogonal_2x4": lambda k: random.orthogonal(k, 2, m=4),
    "permutation_int": lambda k: random.permutation(k, 10),
    "permutation_rows": lambda k: random.permutation(k, GRID, axis=0),
    "permutation_independent": lambda k: random.permutation(k, GRID, axis=1, independent=True),
    "choice_replace": lambda k: random.choice(k, 10, (6,)),
    "choice_array_axis1": lambda k: random.choice(k, GRID, (2,), axis=1),
    "choice_no_replace": lambda k: random.choice(k, 10, (4,), replace=False),
    "choice_p": lambda k: random.choice(k, 5, (6,), p=P5),
    "choice_p_no_replace": lambda k: random.choice(k, 5, (3,), replace=False, p=P5),
    "poisson_small": lambda k: random.poisson(k, 3.5, (6,)),
    "poisson_mixed": lambda k: random.poisson(k, np.array([0.0, 0.5, 9.0, 10.0, 50.0, 1000.0])),
    "poisson_int32": lambda k: random.poisson(k, 25.0, (4,), np.int32),
    "categorical_no_replace": lambda k: random.categorical(k, LOGITS, shape=(2, 2), replace=False),
}


def key(seed: int = 20261201):
    return random.PRNGKey(seed)


def test_every_recorded_call_is_tested():
    assert set(CALLS) == set(VECTORS)
    assert len(EXACT) >= 22


@pytest.mark.parametrize("name", sorted(CALLS))
def test_matches_jax(name):
    assert_recorded(CALLS[name](key()), VECTORS[name], name in EXACT)


# --- distributions ----------------------------------------------------------------------------

N = 4000
SIGNIFICANCE = 1e-3

# sampler(key, n) -> n draws, and the scipy.stats distribution they follow.
CONTINUOUS = {
    "truncated_normal": (
        lambda k, n: random.truncated_normal(k, -1.0, 2.0, (n,)),
        stats.truncnorm(-1, 2),
    ),
    "exponential": (lambda k, n: random.exponential(k, (n,)), stats.expon()),
    "laplace": (lambda k, n: random.laplace(k, (n,)), stats.laplace()),
    "logistic": (lambda k, n: random.logistic(k, (n,)), stats.logistic()),
    "gumbel": (lambda k, n: random.gumbel(k, (n,)), stats.gumbel_r()),
    "gumbel_high": (lambda k, n: random.gumbel(k, (n,), mode="high"), stats.gumbel_r()),
    "cauchy": (lambda k, n: random.cauchy(k, (n,)), stats.cauchy()),
    "pareto": (lambda k, n: random.pareto(k, 3.0, (n,)), stats.pareto(3.0)),
    "weibull_min": (
        lambda k, n: random.weibull_min(k, 2.0, 1.5, (n,)),
        stats.weibull_min(1.5, scale=2.0),
    ),
    "maxwell": (lambda k, n: random.maxwell(k, (n,)), stats.maxwell()),
    "lognormal": (lambda k, n: random.lognormal(k, 0.5, (n,)), stats.lognorm(0.5)),
    "rayleigh": (lambda k, n: random.rayleigh(k, 2.0, (n,)), stats.rayleigh(scale=2.0)),
    "gamma_small": (lambda k, n: random.gamma(k, 0.3, (n,)), stats.gamma(0.3)),
    "gamma_large": (lambda k, n: random.gamma(k, 4.5, (n,)), stats.gamma(4.5)),
    "gamma_f32": (lambda k, n: random.gamma(k, 2.0, (n,), F32), stats.gamma(2.0)),
    "loggamma": (lambda k, n: tnp.exp(random.loggamma(k, 0.7, (n,))), stats.gamma(0.7)),
    "beta": (lambda k, n: random.beta(k, 2.0, 3.0, (n,)), stats.beta(2.0, 3.0)),
    "dirichlet_marginal": (
        lambda k, n: random.dirichlet(k, np.array([0.5, 1.0, 3.0]), (n,))[:, 2],
        stats.beta(3.0, 1.5),
    ),
    "t": (lambda k, n: random.t(k, 4.0, (n,)), stats.t(4.0)),
    "chisquare": (lambda k, n: random.chisquare(k, 3.0, (n,)), stats.chi2(3.0)),
    "generalized_normal": (
        lambda k, n: random.generalized_normal(k, 3.0, (n,)),
        stats.gennorm(3.0),
    ),
    "ball_radius": (  # the radius**d of a uniform point in the d-ball is uniform on [0, 1]
        lambda k, n: tnp.sum(random.ball(k, 3, 2, (n,)) ** 2, axis=-1) ** 1.5,
        stats.uniform(),
    ),
    "orthogonal_entry": (  # (q[0, 0] + 1) / 2 ~ Beta((n-1)/2, (n-1)/2) under Haar measure on O(n)
        lambda k, n: (random.orthogonal(k, 4, (n // 4,))[:, 0, 0] + 1) / 2,
        stats.beta(1.5, 1.5),
    ),
}


@pytest.mark.parametrize("name", sorted(CONTINUOUS))
def test_continuous_draws_follow_their_distribution(name):
    sampler, law = CONTINUOUS[name]
    draws = np.asarray(sampler(key(7), N), np.float64)
    assert np.all(np.isfinite(draws))
    support = law.support()
    assert np.all((draws >= support[0]) & (draws <= support[1]))
    assert stats.kstest(draws, law.cdf).pvalue > SIGNIFICANCE
    if np.isfinite(law.var()):  # the sample mean within 5 standard errors
        assert abs(draws.mean() - law.mean()) < 5 * np.sqrt(law.var() / draws.size)
    wrong = stats.kstest(draws * 1.1 + 0.1, law.cdf).pvalue  # the test can fail
    assert wrong < SIGNIFICANCE


def _chi_square(counts, probabilities) -> float:
    return stats.chisquare(counts, np.sum(counts) * np.asarray(probabilities)).pvalue


def test_discrete_draws_follow_their_distribution():
    p = np.array([0.2, 0.3, 0.5])
    drawn = np.asarray(random.categorical(key(7), np.log(p), shape=(N,)))
    assert _chi_square(np.bincount(drawn, minlength=3), p) > SIGNIFICANCE
    assert _chi_square(np.bincount(drawn, minlength=3), p[::-1]) < SIGNIFICANCE
    signs = np.asarray(random.rademacher(key(7), (N,)))
    assert set(np.unique(signs)) == {-1, 1}
    assert _chi_square([np.sum(signs == -1), np.sum(signs == 1)], [0.5, 0.5]) > SIGNIFICANCE
    picked = np.asarray(random.choice(key(7), 5, (N,), p=P5))
    assert _chi_square(np.bincount(picked, minlength=5), P5) > SIGNIFICANCE
    uniform_pick = np.asarray(random.choice(key(7), 5, (N,)))
    assert _chi_square(np.bincount(uniform_pick, minlength=5), np.full(5, 0.2)) > SIGNIFICANCE


@pytest.mark.parametrize("lam", [0.7, 4.0, 30.0, 400.0])  # Knuth below 10, rejection above
def test_poisson_draws_follow_their_distribution(lam):
    drawn = np.asarray(random.poisson(key(7), lam, (N,)))
    assert drawn.dtype == np.int64 and drawn.min() >= 0
    law = stats.poisson(lam)
    # bins of the support holding about equal probability, open-ended at both sides
    edges = np.unique(law.ppf(np.linspace(0, 1, 9)[1:-1]).astype(int))
    bins = np.concatenate([[-1], edges, [np.inf]]) + 0.5  # bin i holds edges[i-1]+1 .. edges[i]
    counts = np.histogram(drawn, bins)[0]
    probabilities = np.diff(law.cdf(bins))
    assert _chi_square(counts, probabilities) > SIGNIFICANCE
    assert abs(drawn.mean() - lam) < 5 * np.sqrt(lam / N)
    shifted = drawn + max(1, int(np.sqrt(lam) / 2))  # by half a standard deviation: detected
    assert _chi_square(np.histogram(shifted, bins)[0], probabilities) < SIGNIFICANCE


def test_permutations_are_uniform_and_without_replacement():
    keys = np.asarray(random.split(key(7), 600))
    firsts = [int(np.asarray(random.permutation(k, 4))[0]) for k in keys[:300]]
    assert _chi_square(np.bincount(firsts, minlength=4), np.full(4, 0.25)) > SIGNIFICANCE
    for k in keys[300:310]:
        assert sorted(np.asarray(random.permutation(k, 50))) == list(range(50))
        assert len(set(np.asarray(random.choice(k, 20, (20,), replace=False)))) == 20
        picked = np.asarray(random.choice(k, 6, (3,), replace=False, p=P5[:5].tolist() + [0.0]))
        assert len(set(picked)) == 3 and 5 not in picked  # probability 0 is never picked
    rows = np.asarray(random.permutation(key(), GRID))
    assert sorted(map(tuple, rows)) == sorted(map(tuple, GRID))  # rows move whole
    cols = np.asarray(random.shuffle(key(), GRID, axis=1))
    assert all(sorted(c) == sorted(g) for c, g in zip(cols, GRID))


def test_multivariate_normal_has_the_requested_moments():
    mean = np.array([1.0, -1.0])
    variances = np.diag(COV)
    cov_error = np.sqrt((COV**2 + np.outer(variances, variances)) / N)  # of each sample entry
    for method in ("cholesky", "eigh", "svd"):
        draws = np.asarray(random.multivariate_normal(key(7), mean, COV, (N,), method=method))
        assert draws.shape == (N, 2)
        np.testing.assert_allclose(draws.mean(0), mean, atol=5 * np.sqrt(2.0 / N))
        assert np.all(np.abs(np.cov(draws.T) - COV) < 5 * cov_error)
    singular = np.array([[1.0, 1.0], [1.0, 1.0]])
    draws = np.asarray(random.multivariate_normal(key(7), mean, singular, (50,), method="eigh"))
    np.testing.assert_allclose(draws[:, 0] - draws[:, 1], 2.0, atol=1e-6)


def test_orthogonal_and_simplex_supports():
    q = np.asarray(random.orthogonal(key(7), 5, (3,)))
    np.testing.assert_allclose(
        q @ np.swapaxes(q, -1, -2), np.broadcast_to(np.eye(5), (3, 5, 5)), atol=1e-12
    )
    wide = np.asarray(random.orthogonal(key(7), 2, m=5))
    np.testing.assert_allclose(wide @ wide.T, np.eye(2), atol=1e-12)
    simplex = np.asarray(random.dirichlet(key(7), np.array([0.1, 1.0, 2.0]), (100,)))
    assert np.all(simplex >= 0) and np.allclose(simplex.sum(-1), 1)
    inside = np.asarray(random.ball(key(7), 4, 1.5, (200,)))
    assert np.all(np.sum(np.abs(inside) ** 1.5, -1) <= 1)
    narrow = np.asarray(random.truncated_normal(key(7), 5.0, 5.0 + 1e-9, (100,)))
    assert np.all((narrow > 5.0) & (narrow < 5.0 + 1e-9))  # the open interval, after rounding
    beta_small = np.asarray(random.beta(key(7), 0.01, 0.01, (200,)))
    assert np.all((beta_small >= 0) & (beta_small <= 1)) and np.all(np.isfinite(beta_small))


@pytest.mark.parametrize(
    "name", ["gamma_f64", "truncated_normal_f64", "choice_p", "orthogonal_f64", "permutation_rows"]
)
def test_draws_depend_on_the_key_only(name):
    first, again = np.asarray(CALLS[name](key(3))), np.asarray(CALLS[name](key(3)))
    np.testing.assert_array_equal(first, again)
    assert not np.array_equal(first, np.asarray(CALLS[name](key(4))))


# --- jit, vmap, scan --------------------------------------------------------------------------

TRANSFORMED = [
    "gamma_f64",
    "beta_f64",
    "dirichlet_f64",
    "truncated_normal_f32",
    "categorical_batch",
    "choice_p_no_replace",
    "permutation_rows",
    "multivariate_normal_cholesky",
    "orthogonal_2x4",
    "ball_f64",
]


@pytest.mark.parametrize("name", TRANSFORMED)
def test_jit_draws_what_eager_draws(name):
    eager = np.asarray(CALLS[name](key()))
    jitted = np.asarray(tf8.jit(CALLS[name])(np.asarray(key())))
    np.testing.assert_allclose(jitted, eager, rtol=1e-14)


@pytest.mark.parametrize(
    "name", ["gamma_f64", "beta_f64", "categorical_batch", "choice_no_replace", "t_f64"]
)
def test_vmap_over_keys_is_a_loop(name):
    keys = np.asarray(random.split(key(), 3))
    batched = np.asarray(tf8.vmap(CALLS[name])(keys))
    looped = np.stack([np.asarray(CALLS[name](k)) for k in keys])
    np.testing.assert_allclose(batched, looped, rtol=1e-14)


def test_vmap_over_gamma_shapes_is_a_loop():
    alphas = np.array([0.2, 1.0, 7.0])
    batched = np.asarray(tf8.vmap(lambda a: random.gamma(key(), a, (4,)))(alphas))
    looped = np.stack([np.asarray(random.gamma(key(), a, (4,))) for a in alphas])
    np.testing.assert_allclose(batched, looped, rtol=1e-14)


def test_scan_that_splits_each_step_is_the_python_loop():
    def step(k, _):
        k, sub_normal, sub_gamma = random.split(k, 3)
        return k, (random.normal(sub_normal, (2,)), random.gamma(sub_gamma, 1.5))

    final, (normals, gammas) = tf8.lax.scan(step, np.asarray(key()), None, length=4)
    k, want_normals, want_gammas = key(), [], []
    for _ in range(4):
        k, (n, g) = step(k, None)
        want_normals.append(np.asarray(n))
        want_gammas.append(float(g))
    np.testing.assert_array_equal(np.asarray(final), np.asarray(k))
    np.testing.assert_array_equal(np.asarray(normals), np.stack(want_normals))
    np.testing.assert_allclose(np.asarray(gammas), want_gammas, rtol=1e-14)


def test_reparameterised_samplers_differentiate_in_their_location_and_scale():
    def loss(m):
        return tnp.sum(random.multivariate_normal(key(), m, COV, (3,)) ** 2)

    tf8.check_grads(loss, (np.array([0.5, -0.2]),), order=2)
    grad_scale = tf8.grad(lambda s: tnp.sum(random.rayleigh(key(), s, (4,))))(2.0)
    np.testing.assert_allclose(grad_scale, np.sum(np.asarray(random.rayleigh(key(), 1.0, (4,)))))


# --- errors -----------------------------------------------------------------------------------

SAMPLERS = [
    random.split,
    lambda k: random.split(random.wrap_key_data(k)),  # wrap_key_data takes batches
    lambda k: random.fold_in(k, 3),
    lambda k: random.uniform(k, (2,)),
    lambda k: random.exponential(k, (2,)),
    lambda k: random.gamma(k, 2.0),
    lambda k: random.truncated_normal(k, 0.0, 1.0),
    lambda k: random.categorical(k, LOGITS),
    lambda k: random.permutation(k, 5),
    lambda k: random.choice(k, 5, (2,)),
    lambda k: random.multivariate_normal(k, np.zeros(2), COV),
    lambda k: random.orthogonal(k, 2),
]


@pytest.mark.parametrize("sampler", SAMPLERS)
@pytest.mark.parametrize(
    ("bad", "error"),
    [
        (np.zeros(3, np.uint32), ShapeError),
        (np.zeros((2, 2), np.uint32), ShapeError),
        (np.zeros(2, np.int32), DTypeError),
        (np.zeros(2, np.float64), DTypeError),
        (1.5, DTypeError),
    ],
    ids=["three-words", "batch-of-keys", "int32", "float", "python-float"],
)
def test_malformed_keys_are_refused(sampler, bad, error):
    with pytest.raises(error, match="a key is a uint32 array of shape"):
        sampler(bad)


@pytest.mark.parametrize(
    ("call", "argument"),
    [
        (lambda k: random.truncated_normal(k, np.zeros(3), 1.0, (2,)), "lower of shape \\(3,\\)"),
        (lambda k: random.gamma(k, np.ones((2, 3)), (3,)), "a of shape \\(2, 3\\)"),
        (lambda k: random.beta(k, 1.0, np.ones(4), (2,)), "b of shape \\(4,\\)"),
        (lambda k: random.pareto(k, np.ones(3), (2, 2)), "b of shape \\(3,\\)"),
        (lambda k: random.uniform(k, (2,), minval=np.zeros(3)), "minval of shape \\(3,\\)"),
        (lambda k: random.randint(k, (2,), np.zeros(3, int), 5), "minval of shape \\(3,\\)"),
        (lambda k: random.bernoulli(k, np.full(3, 0.5), (4,)), "p of shape \\(3,\\)"),
        (lambda k: random.t(k, np.ones(2), (3,)), "df of shape \\(2,\\)"),
        (lambda k: random.poisson(k, np.ones(2), (3,)), "lam of shape \\(2,\\)"),
        (
            lambda k: random.dirichlet(k, np.ones((2, 3)), (4,)),
            "alpha.s batch axes of shape \\(2,\\)",
        ),
        (
            lambda k: random.categorical(k, LOGITS, shape=(3,)),
            "logits. batch axes of shape \\(2,\\)",
        ),
        (
            lambda k: random.multivariate_normal(k, np.zeros((2, 2)), COV, (3,)),
            "mean.s batch axes of shape",
        ),
        (lambda k: random.truncated_normal(k, np.zeros(2), np.zeros(3)), "do not broadcast"),
    ],
)
def test_parameter_shapes_inconsistent_with_shape_are_refused(call, argument):
    with pytest.raises(ShapeError, match=argument):
        call(key())


def test_bad_arguments_are_refused():
    with pytest.raises(DTypeError, match="exponential: dtype must be a float"):
        random.exponential(key(), (2,), np.int32)
    with pytest.raises(ParameterError, match="method must be one of"):
        random.multivariate_normal(key(), np.zeros(2), COV, method="lu")
    with pytest.raises(ShapeError, match=r"cov must have shape \(\.\.\., 2, 2\)"):
        random.multivariate_normal(key(), np.zeros(2), np.eye(3))
    with pytest.raises(ParameterError, match="larger sample"):
        random.choice(key(), 3, (4,), replace=False)
    with pytest.raises(ShapeError, match="p must be None or a 1-d vector"):
        random.choice(key(), 3, (2,), p=np.ones(4) / 4)
    with pytest.raises(ParameterError, match="cannot exceed the number of categories"):
        random.categorical(key(), LOGITS, shape=(4, 2), replace=False)
    with pytest.raises(ParameterError, match='mode must be "low" or "high"'):
        random.gumbel(key(), (2,), mode="highest")
    with pytest.raises(DTypeError, match="x must be an integer or an array"):
        random.permutation(key(), 2.5)
