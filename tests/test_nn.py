"""tf8.nn against reference formulas in numpy/scipy: values, derivatives to order 2 (away from
kinks), stability at ±1000, masks, one_hot's edge cases, and jit/grad through them."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest
import scipy.special as sp
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import tf8
import tf8.nn as nn

SELU_ALPHA, SELU_SCALE = 1.6732632423543772, 1.0507009873554805


def _gelu_tanh(x: np.ndarray) -> np.ndarray:
    return 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x**3)))


REFERENCES: dict[str, tuple[Callable, Callable]] = {
    "relu": (nn.relu, lambda x: np.maximum(x, 0)),
    "relu6": (nn.relu6, lambda x: np.clip(x, 0, 6)),
    "sigmoid": (nn.sigmoid, sp.expit),
    "softplus": (nn.softplus, lambda x: np.logaddexp(x, 0)),
    "log_sigmoid": (nn.log_sigmoid, sp.log_expit),
    "silu": (nn.silu, lambda x: x * sp.expit(x)),
    "swish": (nn.swish, lambda x: x * sp.expit(x)),
    "gelu": (nn.gelu, _gelu_tanh),
    "gelu_exact": (lambda x: nn.gelu(x, approximate=False), lambda x: x * sp.ndtr(x)),
    "elu": (nn.elu, lambda x: np.where(x > 0, x, np.expm1(np.minimum(x, 0)))),
    "celu": (
        lambda x: nn.celu(x, alpha=0.7),
        lambda x: np.where(x > 0, x, 0.7 * np.expm1(np.minimum(x, 0) / 0.7)),
    ),
    "selu": (
        nn.selu,
        lambda x: SELU_SCALE * np.where(x > 0, x, SELU_ALPHA * np.expm1(np.minimum(x, 0))),
    ),
    "leaky_relu": (nn.leaky_relu, lambda x: np.where(x >= 0, x, 0.01 * x)),
    "hard_tanh": (nn.hard_tanh, lambda x: np.clip(x, -1, 1)),
    "soft_sign": (nn.soft_sign, lambda x: x / (np.abs(x) + 1)),
    "hard_sigmoid": (nn.hard_sigmoid, lambda x: np.clip(x + 3, 0, 6) / 6),
    "hard_silu": (nn.hard_silu, lambda x: x * np.clip(x + 3, 0, 6) / 6),
}
KINKS = {
    "relu": [0],
    "relu6": [0, 6],
    "elu": [0],
    "celu": [0],
    "selu": [0],
    "leaky_relu": [0],
    "hard_tanh": [-1, 1],
    "hard_sigmoid": [-3, 3],
    "hard_silu": [-3, 3],
}

floats = hnp.arrays(
    np.float64,
    hnp.array_shapes(max_dims=2, max_side=4),
    elements=st.floats(-30, 30, allow_nan=False),
)


@pytest.mark.parametrize("name", sorted(REFERENCES))
@given(x=floats)
def test_activation_matches_reference(name: str, x: np.ndarray) -> None:
    fn, reference = REFERENCES[name]
    np.testing.assert_allclose(np.asarray(fn(x)), reference(x), rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("name", sorted(REFERENCES))
def test_activation_derivatives_away_from_kinks(name: str) -> None:
    x = np.array([-4.3, -2.2, -0.7, 0.4, 1.3, 2.9, 7.1])
    for kink in KINKS.get(name, []):
        assert np.all(np.abs(x - kink) > 0.1)
    tf8.check_grads(REFERENCES[name][0], (x,), order=2)


@pytest.mark.parametrize("name", sorted(REFERENCES))
def test_activation_is_finite_at_1000(name: str) -> None:
    fn, reference = REFERENCES[name]
    x = np.array([-1000.0, 1000.0])
    np.testing.assert_allclose(np.asarray(fn(x)), reference(x), rtol=1e-12, atol=1e-14)
    derivative = np.asarray(tf8.grad(lambda v: fn(v).sum())(x))
    assert np.all(np.isfinite(derivative)), derivative


def test_kink_derivatives_follow_jax() -> None:
    """relu and relu6 have derivative 0 at their kinks; softplus has 1/2 at 0 (smooth)."""

    def d(fn: Callable, x: float) -> float:
        return float(np.asarray(tf8.grad(fn)(x)))

    assert d(nn.relu, 0.0) == 0.0
    assert d(nn.relu6, 0.0) == 0.0 and d(nn.relu6, 6.0) == 0.0
    assert d(nn.softplus, 0.0) == 0.5
    assert d(nn.log_sigmoid, 0.0) == 0.5


def test_glu() -> None:
    x = np.random.default_rng(0).normal(size=(3, 4))
    np.testing.assert_allclose(np.asarray(nn.glu(x)), x[:, :2] * sp.expit(x[:, 2:]))
    tf8.check_grads(nn.glu, (x,), order=2)
    with pytest.raises(tf8.errors.ParameterError):
        nn.glu(x, axis=0)


# --- softmax, log_softmax, logsumexp -----------------------------------------------------------

AXES = [None, 0, 1, -1, (0, 1)]


@pytest.mark.parametrize("axis", AXES)
@pytest.mark.parametrize("keepdims", [False, True])
def test_logsumexp_matches_scipy(axis, keepdims: bool) -> None:
    a = np.random.default_rng(1).normal(size=(3, 4)) * 3
    np.testing.assert_allclose(
        np.asarray(nn.logsumexp(a, axis=axis, keepdims=keepdims)),
        sp.logsumexp(a, axis=axis, keepdims=keepdims),
        rtol=1e-13,
    )


def test_logsumexp_with_b_and_sign() -> None:
    a = np.random.default_rng(2).normal(size=(3, 4))
    b = np.array([1.0, -2.0, 0.0, 0.5])
    out, sign = nn.logsumexp(a, axis=1, b=b, return_sign=True)
    expected, expected_sign = sp.logsumexp(a, axis=1, b=b, return_sign=True)
    np.testing.assert_allclose(np.asarray(out), expected, rtol=1e-12)
    np.testing.assert_array_equal(np.asarray(sign), expected_sign)
    plain = np.asarray(nn.logsumexp(a, axis=1, b=b))
    np.testing.assert_array_equal(np.isnan(plain), expected_sign < 0)
    # a weight of 0 drops its entry, even an infinite one
    np.testing.assert_allclose(
        np.asarray(nn.logsumexp(np.array([np.inf, 1.0]), b=np.array([0.0, 1.0]))), 1.0
    )


@pytest.mark.parametrize("axis", [0, -1, (0, 1)])
def test_softmax_and_log_softmax_match_scipy(axis) -> None:
    x = np.random.default_rng(3).normal(size=(3, 4)) * 4
    np.testing.assert_allclose(np.asarray(nn.softmax(x, axis=axis)), sp.softmax(x, axis=axis))
    np.testing.assert_allclose(
        np.asarray(nn.log_softmax(x, axis=axis)), sp.log_softmax(x, axis=axis), atol=1e-13
    )


def test_stable_at_1000() -> None:
    x = np.array([[1000.0, -1000.0, 0.0], [1000.0, 1000.0, -1000.0], [-1000.0, -1000.0, -1000.0]])
    np.testing.assert_allclose(np.asarray(nn.logsumexp(x, axis=1)), sp.logsumexp(x, axis=1))
    np.testing.assert_allclose(np.asarray(nn.softmax(x)), sp.softmax(x, axis=-1), atol=1e-300)
    np.testing.assert_allclose(np.asarray(nn.log_softmax(x)), sp.log_softmax(x, axis=-1))
    gradient = np.asarray(tf8.grad(lambda v: nn.logsumexp(v, axis=1).sum())(x))
    np.testing.assert_allclose(gradient, sp.softmax(x, axis=1), atol=1e-300)
    for fn in (nn.softmax, nn.log_softmax):
        assert np.all(np.isfinite(np.asarray(tf8.grad(lambda v, f=fn: f(v)[:, 0].sum())(x))))


def test_infinite_entries() -> None:
    x = np.array([[-np.inf, 0.0, 1.0], [-np.inf, -np.inf, -np.inf]])
    np.testing.assert_array_equal(np.asarray(nn.logsumexp(x, axis=1)), sp.logsumexp(x, axis=1))
    np.testing.assert_allclose(np.asarray(nn.softmax(x[:1])), sp.softmax(x[:1], axis=1))


def test_gradient_of_logsumexp_is_softmax() -> None:
    x = np.random.default_rng(4).normal(size=(2, 5))
    gradient = np.asarray(tf8.grad(lambda v: nn.logsumexp(v, axis=1).sum())(x))
    np.testing.assert_allclose(gradient, sp.softmax(x, axis=1), rtol=1e-13)
    tf8.check_grads(lambda v: nn.logsumexp(v, axis=1), (x,), order=2)
    tf8.check_grads(lambda v: nn.logsumexp(v, b=np.arange(1.0, 6.0)), (x,), order=2)
    tf8.check_grads(nn.softmax, (x,), order=2)
    tf8.check_grads(nn.log_softmax, (x,), order=2)
    tf8.check_grads(lambda v: nn.logsumexp(v, axis=0), (x + 600,), order=2)


def test_where_masks() -> None:
    x = np.random.default_rng(5).normal(size=(2, 4))
    mask = np.array([[True, False, True, True], [False, False, True, False]])
    expected = np.where(mask, np.exp(x), 0)
    expected /= expected.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(np.asarray(nn.softmax(x, where=mask)), expected)
    log_expected = np.where(mask, np.log(np.where(mask, expected, 1)), -np.inf)
    np.testing.assert_allclose(np.asarray(nn.log_softmax(x, where=mask)), log_expected)
    np.testing.assert_allclose(
        np.asarray(nn.logsumexp(x, axis=1, where=mask)),
        np.log(np.where(mask, np.exp(x), 0).sum(axis=1)),
    )
    gradient = np.asarray(tf8.grad(lambda v: nn.logsumexp(v, axis=1, where=mask).sum())(x))
    np.testing.assert_allclose(gradient, expected)


# --- standardize, one_hot -----------------------------------------------------------------------


@pytest.mark.parametrize("axis", [-1, 0, (0, 1)])
def test_standardize(axis) -> None:
    x = np.random.default_rng(6).normal(size=(3, 4)) * 2 + 5
    mean = x.mean(axis=axis, keepdims=True)
    expected = (x - mean) / np.sqrt(x.var(axis=axis, keepdims=True) + 1e-5)
    np.testing.assert_allclose(np.asarray(nn.standardize(x, axis=axis)), expected, rtol=1e-12)
    tf8.check_grads(lambda v: nn.standardize(v, axis=axis), (x,), order=2)


def test_standardize_given_moments_and_mask() -> None:
    x = np.random.default_rng(7).normal(size=(2, 3))
    np.testing.assert_allclose(
        np.asarray(nn.standardize(x, mean=1.0, variance=4.0, epsilon=0.0)), (x - 1) / 2
    )
    mask = np.array([[True, True, False], [True, False, True]])
    got = np.asarray(nn.standardize(x, where=mask))
    for row in range(2):
        kept = x[row][mask[row]]
        expected = (x[row] - kept.mean()) / np.sqrt(kept.var() + 1e-5)
        np.testing.assert_allclose(got[row], expected)


def test_one_hot() -> None:
    labels = np.array([0, 2, 1, -1, 3])
    expected = np.array([[1, 0, 0], [0, 0, 1], [0, 1, 0], [0, 0, 0], [0, 0, 0]], float)
    got = nn.one_hot(labels, 3)
    assert np.asarray(got).dtype == np.float64
    np.testing.assert_array_equal(np.asarray(got), expected)
    np.testing.assert_array_equal(np.asarray(nn.one_hot(labels, 3, axis=0)), expected.T)
    out = np.asarray(nn.one_hot(np.array([[0, 1], [1, 1]]), 2, dtype=np.int32, axis=1))
    assert out.dtype == np.int32 and out.shape == (2, 2, 2)
    np.testing.assert_array_equal(out[:, :, 0], [[1, 0], [0, 1]])
    np.testing.assert_array_equal(np.asarray(nn.one_hot(2, 4)), [0, 0, 1, 0])
    np.testing.assert_array_equal(
        np.asarray(nn.one_hot(np.array([np.nan, 1.0]), 2)), [[0, 0], [0, 1]]
    )
    assert np.asarray(nn.one_hot(np.zeros(0, int), 3)).shape == (0, 3)
    assert np.asarray(nn.one_hot(labels, 0)).shape == (5, 0)
    with pytest.raises(tf8.errors.ParameterError):
        nn.one_hot(labels, 3, axis=2)


# --- transformations ----------------------------------------------------------------------------


def test_jit_and_grad_through_a_small_network() -> None:
    rng = np.random.default_rng(8)
    weights, inputs = rng.normal(size=(4, 3)), rng.normal(size=(5, 4))
    labels = nn.one_hot(np.array([0, 2, 1, 1, 0]), 3)

    def loss(w):
        hidden = nn.gelu(inputs @ w)
        return -(labels * nn.log_softmax(hidden)).sum()

    value = float(np.asarray(loss(weights)))
    assert float(np.asarray(tf8.jit(loss)(weights))) == pytest.approx(value, rel=1e-13)
    eager = np.asarray(tf8.grad(loss)(weights))
    np.testing.assert_allclose(np.asarray(tf8.jit(tf8.grad(loss))(weights)), eager, rtol=1e-12)
    tf8.check_grads(loss, (weights,), order=2)


def test_dtypes_and_edge_values_follow_jax():
    """JAX 0.10.2 (x64): elu/selu/relu6 of an integer array are weakly typed float64 (a float
    literal joins it), gelu goes to the inexact dtype (int32 → float32) and is never weak,
    relu keeps NaN, and softmax/log_softmax of a slice holding +inf are NaN throughout."""
    ints = np.array([-7, -1, 0, 2, 9], np.int32)
    for fn in (nn.elu, nn.selu, nn.relu6):
        out = fn(ints)
        assert np.asarray(out).dtype == np.float64 and out._weak
    assert np.asarray(nn.relu6(np.array([True, False]))).tolist() == [1.0, 0.0]
    for approximate in (True, False):
        out = nn.gelu(ints, approximate=approximate)
        assert np.asarray(out).dtype == np.float32 and not out._weak
        assert not nn.gelu(0.75, approximate=approximate)._weak
    exact = nn.gelu(np.array([-8.0, -1.0, 0.5]), approximate=False)
    x = np.array([-8.0, -1.0, 0.5])
    np.testing.assert_allclose(np.asarray(exact), x * 0.5 * sp.erfc(-x / np.sqrt(2)), rtol=1e-13)
    assert np.isnan(np.asarray(nn.relu(np.array([np.nan])))).all()
    rows = np.array([[1.0, np.nan], [np.inf, 2.0]])
    assert np.isnan(np.asarray(nn.softmax(rows))).all()
    assert np.isnan(np.asarray(nn.log_softmax(np.array([np.inf, 2.0])))).all()
    masked = nn.softmax(np.ones((2, 3)), where=np.zeros((2, 3), bool))
    assert np.asarray(masked).tolist() == [[0.0] * 3] * 2  # JAX: 0 where the mask is empty


def test_celu_at_its_kink_matches_jax_form():
    """celu = max(x, 0) + alpha · expm1(min(x, 0) / alpha), as JAX writes it: at x = 0 the
    tied max/min split the derivative, so d²/dx² = 1 / (4 alpha) (JAX: 0.0625 for alpha 1
    with tangents 0.5)."""
    alpha = 2.0
    f = lambda x: nn.celu(x, alpha)  # noqa: E731
    second = tf8.grad(tf8.grad(f))(0.0)
    assert float(second) == pytest.approx(1 / (4 * alpha))
    assert float(tf8.grad(f)(-1.0)) == pytest.approx(np.exp(-1.0 / alpha))
