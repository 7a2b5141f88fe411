"""Numerics at the edges: each case behaves as JAX does, or is a documented difference.

The expected values are JAX 0.10.2's (x64 enabled), computed once with
`jax.numpy`/`jax.grad` and written here as constants (the suite does not import jax). Every
derivative is checked on both of tf8's paths: the tape (`tf8.grad` of concrete arguments)
and the graph (`tf8.jit(tf8.grad(f))`).

The one documented difference: d/dx x**y at x = 0, y = 0 is 0 in tf8 (the limit along
y = 0, where x**0 = 1 is constant) and NaN in JAX (its rule computes 0 * 0**-1 = 0 * inf).

The double-where idiom. `where(x > 0, sqrt(x), 0)` has a NaN gradient at x <= 0 in tf8 as in
JAX: the untaken branch's derivative (inf or NaN at x <= 0) is multiplied by a zero
cotangent, and 0 * inf = NaN. Guard the branch's *input* as well, so that the untaken branch
is evaluated where it is smooth:

    safe = where(x > 0, x, 1.0)
    y = where(x > 0, sqrt(safe), 0.0)      # gradient 0 at x <= 0, 1/(2 sqrt x) at x > 0
"""

from __future__ import annotations

import numpy as np
import pytest

import tf8
import tf8.nn
import tf8.numpy as tnp
import tf8.scipy.special

INF, NAN = np.inf, np.nan
F64 = np.float64


def both_paths(f, argnums=0):
    """tf8's gradient of f on the tape and through the graph (jit of grad)."""
    return [tf8.grad(f, argnums=argnums), tf8.jit(tf8.grad(f, argnums=argnums))]


def same(got, expected):
    """Equal, NaN where NaN, inf of the same sign where inf, and -0.0 told from 0.0 (a NaN's
    sign bit carries no meaning and is not compared)."""
    got, expected = np.asarray(got, F64), np.asarray(expected, F64)
    np.testing.assert_array_equal(got, expected)
    numbers = ~np.isnan(expected)
    np.testing.assert_array_equal(np.signbit(got[numbers]), np.signbit(expected[numbers]))


def test_sqrt_at_zero_value_and_gradient():
    # JAX: sqrt(0.0) = 0.0, sqrt(-0.0) = -0.0, grad(sqrt)(0.0) = inf
    same(tnp.sqrt(F64(0.0)), 0.0)
    same(tnp.sqrt(F64(-0.0)), -0.0)
    for g in both_paths(tnp.sqrt):
        same(g(F64(0.0)), INF)


def _naive(x):
    return tnp.where(x > 0, tnp.sqrt(x), 0.0)


def _double_where(x):
    return tnp.where(x > 0, tnp.sqrt(tnp.where(x > 0, x, 1.0)), 0.0)


@pytest.mark.parametrize("x, expected", [(-1.0, NAN), (0.0, NAN), (4.0, 0.25)])
def test_where_with_a_nan_branch_differentiates_as_jax(x, expected):
    # JAX: grad of where(x > 0, sqrt(x), 0) is nan at -1 and at 0 (0 * inf), 0.25 at 4
    for g in both_paths(_naive):
        same(g(F64(x)), expected)


@pytest.mark.parametrize("x, expected", [(-1.0, 0.0), (0.0, 0.0), (4.0, 0.25)])
def test_the_double_where_idiom_gives_finite_gradients(x, expected):
    # JAX: the double-where form's grad is 0.0 at -1 and 0.25 at 4
    for g in both_paths(_double_where):
        same(g(F64(x)), expected)
    tf8.check_grads(_double_where, [F64(x) if x else F64(-0.5)], order=2)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_logsumexp_and_softmax_at_plus_minus_1000(dtype):
    x = np.array([1000.0, -1000.0, 0.0], dtype)
    # JAX: logsumexp = 1000.0, softmax = [1, 0, 0], log_softmax = [0, -2000, -1000],
    # grad(logsumexp) = [1, 0, 0]
    lse = tf8.scipy.special.logsumexp(x)
    assert np.asarray(lse).dtype == dtype
    same(lse, 1000.0)
    same(tf8.nn.softmax(x), [1.0, 0.0, 0.0])
    same(tf8.nn.log_softmax(x), [0.0, -2000.0, -1000.0])
    for g in both_paths(tf8.scipy.special.logsumexp):
        same(g(x), [1.0, 0.0, 0.0])
    # JAX: softmax([1000, 1000]) = [0.5, 0.5]
    same(tf8.nn.softmax(np.array([1000.0, 1000.0], dtype)), [0.5, 0.5])


def test_logsumexp_of_infinities():
    # JAX: logsumexp([-inf, -inf]) = -inf, logsumexp([inf, 1]) = inf
    same(tf8.scipy.special.logsumexp(np.array([-INF, -INF])), -INF)
    same(tf8.scipy.special.logsumexp(np.array([INF, 1.0])), INF)


@pytest.mark.parametrize("shape", [(3,), (2, 2)])
def test_norm_at_zero(shape):
    # JAX: norm(0) = 0.0; grad(norm)(zeros) is nan everywhere (x / norm(x) = 0 / 0), for the
    # vector 2-norm and the matrix Frobenius norm alike
    zeros = np.zeros(shape)
    same(tnp.linalg.norm(zeros), 0.0)
    for g in both_paths(tnp.linalg.norm):
        same(g(zeros), np.full(shape, NAN))


@pytest.mark.parametrize(
    "y, x, expected",
    [(0.0, 0.0, 0.0), (-0.0, 0.0, -0.0), (0.0, -0.0, np.pi), (-0.0, -0.0, -np.pi)],
)
def test_arctan2_at_the_origin(y, x, expected):
    # JAX: arctan2(±0, +0) = ±0, arctan2(±0, -0) = ±pi
    same(tnp.arctan2(F64(y), F64(x)), expected)


def test_arctan2_gradient_at_the_origin_is_nan():
    # JAX: grad(arctan2, argnums=(0, 1))(0.0, 0.0) = (nan, nan) (x / (x² + y²) = 0 / 0)
    for g in both_paths(tnp.arctan2, argnums=(0, 1)):
        dy, dx = g(F64(0.0), F64(0.0))
        same(dy, NAN)
        same(dx, NAN)


@pytest.mark.parametrize(
    "base, exponent, expected",
    [(0.0, 0.0, 1.0), (0.0, 1.0, 0.0), (0.0, -1.0, INF), (0.0, 2.0, 0.0), (0.0, 0.5, 0.0),
     (-0.0, -1.0, -INF)],
)  # fmt: skip
def test_power_at_zero(base, exponent, expected):
    # JAX: 0**0 = 1, 0**1 = 0, 0**-1 = inf, 0**2 = 0, 0**0.5 = 0, (-0)**-1 = -inf
    same(tnp.power(F64(base), F64(exponent)), expected)
    assert int(tnp.power(0, 0)) == 1  # JAX: power(0, 0) = 1 for integers too


@pytest.mark.parametrize(
    "exponent, expected",
    [(2.0, (0.0, 0.0)), (1.0, (1.0, 0.0)), (0.5, (INF, 0.0)), (0.0, (0.0, 0.0))],
)
def test_power_gradients_at_zero(exponent, expected):
    # JAX: grads (d/dx, d/dy) of x**y at x = 0: y = 2 → (0, 0), y = 1 → (1, 0),
    # y = 0.5 → (inf, 0), y = 0 → (nan, 0). The last is tf8's documented difference: tf8
    # gives d/dx = 0 (x**0 is the constant 1), JAX 0 * 0**-1 = nan.
    for g in both_paths(tnp.power, argnums=(0, 1)):
        dx, dy = g(F64(0.0), F64(exponent))
        same(dx, expected[0])
        same(dy, expected[1])


N_LONG = 1 << 21
EPS32 = float(np.finfo(np.float32).eps)
# The stated bound: a float32 sum of n terms computed pairwise (numpy) or in blocks (the
# optimised tier's regions, the numba engine) is within (log2(n) + 2) * eps32 * sum|x_i| of the
# float64 sum; the +2 covers the float32 rounding of each term's own elementwise ops. Measured
# on these inputs, every path stays under 1.0 * eps32 * sum|x_i| (numpy's pairwise sum: 0.18
# at n = 10^6, 0.56 at 4 * 10^6), the tighter figure asserted below.
BOUND = (np.log2(N_LONG) + 2) * EPS32


def _long_sum(v):
    return tnp.sum(tnp.sin(v) * 2.0 + v * 0.5)


@pytest.mark.parametrize("engine", ["numpy", "numba"])
def test_long_float32_reductions_stay_within_the_stated_bound(engine):
    if engine == "numba":
        pytest.importorskip("numba", reason="the numba engine is an optional extra")
    x = np.random.default_rng(0).uniform(0, 1, N_LONG).astype(np.float32)
    x64 = x.astype(F64)
    terms = np.sin(x64) * 2.0 + x64 * 0.5
    exact, l1 = float(np.sum(terms)), float(np.sum(np.abs(terms)))
    jitted = tf8.jit(_long_sum, engine=engine)
    results = {
        "eager": _long_sum(tf8.tensor(x)),
        "jit, lean": jitted(x),
        "jit, optimised": jitted(x),
        "mean": tf8.jit(lambda v: tnp.mean(v * 1.0 + 0.0), engine=engine)(x),
    }
    for label, result in results.items():
        assert np.asarray(result).dtype == np.float32, label
        reference = float(np.mean(x64)) * N_LONG if label == "mean" else exact
        total = float(result) * (N_LONG if label == "mean" else 1)
        error = abs(total - reference) / (EPS32 * (float(np.sum(x64)) if label == "mean" else l1))
        assert error * EPS32 <= BOUND, f"{label}: error {error:.3g} eps32 * sum|x|"
        assert error <= 1.0, f"{label}: error {error:.3g} eps32 * sum|x| (measured under 1)"


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_iterative_decompositions_of_a_non_finite_matrix_give_nan_as_jax(bad):
    # LAPACK refuses to iterate on a NaN (numpy raises "did not converge"); JAX's results are
    # NaN. In a batch only that matrix's results are NaN.
    good = np.array([[2.0, 1.0], [1.0, 3.0]])
    batch = np.stack([good, np.full((2, 2), bad)])
    for fn in (tnp.linalg.eigvalsh, tnp.linalg.svdvals, tnp.linalg.pinv):
        for run in (fn, tf8.jit(fn)):
            out = np.asarray(run(batch))
            np.testing.assert_allclose(out[0], np.asarray(fn(good)), rtol=1e-12)
            assert np.isnan(out[1]).all()
    u, s, vh = tnp.linalg.svd(batch[1])
    w, v = tnp.linalg.eigh(batch[1])
    for part in (u, s, vh, w, v):
        assert np.isnan(np.asarray(part)).all()
    x = tnp.linalg.lstsq(batch[1], np.ones(2))[0]
    assert np.isnan(np.asarray(x)).all()
    # a finite matrix keeps raising on a genuine failure (not positive definite)
    with pytest.raises(tf8.errors.LinAlgError):
        tnp.linalg.cholesky(-good)
