"""Regression tests for issue 15's two wrong numbers: logaddexp/logaddexp2 at ties and
non-finite inputs, and linspace with traced endpoints and one sample."""

import numpy as np
import pytest

import tf8
import tf8.numpy as tnp

INF = np.inf


@pytest.mark.parametrize("name", ["logaddexp", "logaddexp2"])
def test_logaddexp_values_match_numpy(name):
    a = np.array([0.0, 1.0, -3.0, INF, -INF, 1e300, 5.0, 700.0, -800.0, np.nan, INF, 0.0])
    b = np.array([0.0, 2.0, -3.0, INF, -INF, 1e300, -INF, 710.0, -790.0, 1.0, -INF, np.nan])
    with np.errstate(invalid="ignore"):
        expected = getattr(np, name)(a, b)
    for fn in (getattr(tnp, name), tf8.jit(getattr(tnp, name))):
        np.testing.assert_array_equal(np.asarray(fn(a, b)), expected)
    rng = np.random.default_rng(0)
    for dtype in (np.float32, np.float64):
        x = (rng.normal(size=2000) * 50).astype(dtype)
        y = rng.normal(size=2000).astype(dtype)
        ours, theirs = np.asarray(getattr(tnp, name)(x, y)), getattr(np, name)(x, y)
        assert ours.dtype == theirs.dtype
        # numpy's loops call libm's exp/log1p, tf8 numpy's vectorised ones: within two ulps
        # of the larger input apart (the sum may cancel, so not an ulp of the result)
        ulp = np.spacing(np.maximum(np.abs(x), np.abs(y))) + np.spacing(np.abs(theirs))
        assert np.all(np.abs(ours - theirs) <= 2 * ulp)


@pytest.mark.parametrize("name", ["logaddexp", "logaddexp2"])
def test_logaddexp_derivative_at_a_tie_is_one_half(name):
    fn = getattr(tnp, name)
    gx, gy = tf8.grad(lambda x, y: fn(x, y), (0, 1))(1.5, 1.5)
    assert gx == pytest.approx(0.5) and gy == pytest.approx(0.5)  # JAX's too; was 1 and 0
    tf8.check_grads(fn, (np.array([0.3, -1.0]), np.array([0.7, 2.0])), order=2)


def test_linspace_one_sample_with_traced_endpoints():
    out, step = tnp.linspace(tnp.asarray(1.0), 3.0, 1, retstep=True)
    expected, expected_step = np.linspace(1.0, 3.0, 1, retstep=True)
    np.testing.assert_array_equal(out, expected)  # was [nan]
    assert np.isnan(step) and np.isnan(expected_step)
    tf8.check_grads(lambda s, e: tnp.linspace(s, e, 1) ** 2, (1.0, 3.0), order=2)


@pytest.mark.parametrize("num, endpoint", [(5, True), (5, False), (2, True), (1, False)])
def test_linspace_vjp_with_traced_endpoints(num, endpoint):
    start, stop = np.array([1.0, 2.0]), np.array([3.0, -1.0])
    fn = tf8.jit(lambda s, e: tnp.sin(tnp.linspace(s, e, num, endpoint=endpoint, axis=1)))
    np.testing.assert_allclose(
        fn(start, stop), np.sin(np.linspace(start, stop, num, endpoint, axis=1))
    )
    tf8.check_grads(fn, (start, stop), order=2, modes=("rev",))
