"""tf8.scipy.special's gamma, beta, Bessel and inverse-normal functions against scipy (random
inputs, large arguments, poles and signs), derivatives to order 2, and scipy.special's own
ufuncs dispatching on traced values."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest
import scipy.special as sp
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import tf8
from tf8 import errors
from tf8.scipy import special

ARRAYS = hnp.array_shapes(max_dims=2, max_side=4)


def _psi_jax(x: np.ndarray) -> np.ndarray:
    """scipy's psi with JAX's NaN at the poles 0, -1, -2, ... (scipy: ±inf at ±0)."""
    return np.where((x <= 0) & (x == np.floor(x)), np.nan, sp.psi(x))


# name -> (tf8, scipy, operand ranges, rtol)
CASES: dict[str, tuple[Callable, Callable, tuple[tuple[float, float], ...], float]] = {
    "gammaln": (special.gammaln, sp.gammaln, ((-20, 1e6),), 1e-12),
    "digamma": (special.digamma, _psi_jax, ((-20, 1e6),), 1e-9),
    "gamma": (special.gamma, sp.gamma, ((-20, 170),), 1e-11),
    "gammasgn": (special.gammasgn, sp.gammasgn, ((-20, 20),), 0),
    "erfinv": (special.erfinv, sp.erfinv, ((-1, 1),), 1e-14),
    "ndtri": (special.ndtri, sp.ndtri, ((1e-300, 1),), 1e-14),
    "i0e": (special.i0e, sp.i0e, ((-700, 700),), 1e-14),
    "i1e": (special.i1e, sp.i1e, ((-700, 700),), 1e-14),
    "i0": (special.i0, sp.i0, ((-50, 50),), 1e-13),
    "i1": (special.i1, sp.i1, ((-50, 50),), 1e-13),
    "gammainc": (special.gammainc, sp.gammainc, ((0.01, 50), (0, 60)), 1e-12),
    "gammaincc": (special.gammaincc, sp.gammaincc, ((0.01, 50), (0, 60)), 1e-12),
    "betainc": (special.betainc, sp.betainc, ((0.01, 20), (0.01, 20), (0, 1)), 1e-11),
    # JAX's betaln (scipy's algdiv for max(a, b) >= 8, few terms): within 5e-6 of scipy's
    "betaln": (special.betaln, sp.betaln, ((0.01, 300), (0.01, 300)), 5e-6),
    "beta": (special.beta, sp.beta, ((0.1, 30), (0.1, 30)), 5e-6),
    "poch": (special.poch, sp.poch, ((0.1, 20), (-3, 10)), 1e-9),
    "rel_entr": (special.rel_entr, sp.rel_entr, ((-1, 5), (-1, 5)), 1e-12),
    "kl_div": (special.kl_div, sp.kl_div, ((-1, 5), (-1, 5)), 1e-12),
    "erfcx": (special.erfcx, sp.erfcx, ((-20, 1e8),), 1e-12),
    "boxcox": (special.boxcox, sp.boxcox, ((0.01, 50), (-2, 2)), 1e-10),
    "boxcox1p": (special.boxcox1p, sp.boxcox1p, ((-0.99, 50), (-2, 2)), 1e-10),
}


@pytest.mark.parametrize("name", sorted(CASES))
@given(data=st.data())
def test_matches_scipy(name: str, data: st.DataObject) -> None:
    fn, reference, ranges, rtol = CASES[name]
    shape = data.draw(ARRAYS)
    xs = [data.draw(hnp.arrays(np.float64, shape, elements=st.floats(lo, hi))) for lo, hi in ranges]
    with np.errstate(all="ignore"):
        expected = reference(*xs)
    atol = 5e-6 if name == "betaln" else 1e-300  # algdiv's error is absolute, in the log
    np.testing.assert_allclose(np.asarray(fn(*xs)), expected, rtol=rtol, atol=atol)


def test_polygamma_multigammaln_factorial_match_scipy() -> None:
    x = np.array([0.2, 1.0, 3.5, 40.0])
    for n in range(4):
        np.testing.assert_allclose(special.polygamma(n, x), sp.polygamma(n, x), rtol=1e-10)
    with pytest.raises(errors.DTypeError, match="integer"):
        special.polygamma(1.5, 2.0)  # n must have an integer dtype, as in JAX
    assert np.isnan(np.asarray(tf8.lax.polygamma(1.5, 2.0)))  # the row: NaN off the integers
    for d in (1, 2, 5):
        np.testing.assert_allclose(special.multigammaln(x + 3, d), sp.multigammaln(x + 3, d))
    n = np.array([-2.0, 0.0, 1.0, 5.0, 10.5])
    np.testing.assert_allclose(special.factorial(n), sp.factorial(n), rtol=1e-12)
    N, k = np.array([5.0, 10.0, 4.5, 3.0, 60.0]), np.array([2.0, 0.0, 1.5, 4.0, 30.0])
    np.testing.assert_allclose(special.comb(N, k), sp.comb(N, k), rtol=1e-11)
    np.testing.assert_allclose(
        special.comb(N, k, repetition=True), sp.comb(N, k, repetition=True), rtol=1e-11
    )
    np.testing.assert_allclose(special.boxcox(2.5, 0.0), np.log(2.5))
    np.testing.assert_allclose(special.boxcox1p(1e-65, 5e-324), 1e-65)  # tiny lmbda: the log


def test_poles_and_large_arguments() -> None:
    x = np.array([-3.0, -1.0, 0.0, 1e300])
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal(special.gammaln(x), sp.gammaln(x))
        np.testing.assert_array_equal(np.isnan(special.gamma(x[:3])), np.isnan(sp.gamma(x[:3])))
    a = np.array([-1.5, -2.5, -0.3, 4.2])  # signs of Γ below 0
    np.testing.assert_allclose(special.beta(a, 1.7), sp.beta(a, 1.7), rtol=1e-10)
    assert np.asarray(special.ndtri(0.0)) == -np.inf and np.asarray(special.ndtri(1.0)) == np.inf
    np.testing.assert_allclose(special.ndtri(1e-300), sp.ndtri(1e-300), rtol=1e-14)


FIRST_ORDER = {  # closed-form derivatives
    "gammaln": (special.gammaln, sp.psi, np.array([0.3, 2.0, 1e3])),
    "digamma": (special.digamma, lambda v: sp.polygamma(1, v), np.array([0.3, 2.0, 1e3])),
    "gamma": (special.gamma, lambda v: sp.gamma(v) * sp.psi(v), np.array([-1.5, 0.3, 5.0])),
    "erfinv": (special.erfinv, lambda v: np.sqrt(np.pi) / 2 * np.exp(sp.erfinv(v) ** 2), None),
    "ndtri": (special.ndtri, lambda v: np.sqrt(2 * np.pi) * np.exp(sp.ndtri(v) ** 2 / 2), None),
    "i0": (special.i0, sp.i1, np.array([-3.0, 0.5, 20.0])),
}


@pytest.mark.parametrize("name", sorted(FIRST_ORDER))
def test_derivatives_closed_form_and_second_order(name: str) -> None:
    fn, derivative, x = FIRST_ORDER[name]
    x = np.array([1e-9, 0.3, 0.95]) if x is None else x
    got = tf8.grad(lambda v: fn(v).sum())(x)
    np.testing.assert_allclose(got, derivative(x), rtol=1e-9)
    tf8.check_grads(fn, (x[1:],), order=2, rtol=1e-4)


def test_second_order_of_the_compositions() -> None:
    a, b = np.array([0.7, 2.5, 9.0]), np.array([1.5, 0.4, 3.0])
    tf8.check_grads(special.betaln, (a, b), order=2)
    tf8.check_grads(special.beta, (a, b), order=2)
    tf8.check_grads(special.poch, (a, b), order=2)
    tf8.check_grads(lambda v: special.multigammaln(v, 3), (a + 2,), order=2)
    tf8.check_grads(lambda v: special.polygamma(2, v), (a,), order=2)
    tf8.check_grads(lambda v: special.gammainc(a, v), (b,), order=2)
    tf8.check_grads(lambda v: special.betainc(a, b, v), (np.array([0.2, 0.5, 0.7]),), order=2)
    tf8.check_grads(special.i1, (np.array([-2.0, 0.3, 4.0]),), order=2)
    tf8.check_grads(special.kl_div, (a, b), order=2)
    tf8.check_grads(special.erfcx, (np.array([-1.0, 0.5, 3.0, 40.0]),), order=2, rtol=1e-4)
    tf8.check_grads(special.boxcox, (a, np.array([-0.5, 0.3, 1.7])), order=2)
    tf8.check_grads(lambda n: special.comb(n, 2.0), (np.array([3.0, 5.5, 9.0]),), order=2)


def test_scipy_ufuncs_dispatch_on_traced_values() -> None:
    x = np.array([0.4, 2.0, 7.5])
    for ufunc in (sp.gammaln, sp.psi, sp.digamma, sp.erfinv, sp.ndtri, sp.i0e, sp.i1e, sp.expit):
        arg = x / 8 if ufunc in (sp.erfinv, sp.ndtri) else x
        out = ufunc(tf8.tensor(arg))
        assert isinstance(out, tf8.TracedTensor), ufunc.__name__
        np.testing.assert_allclose(np.asarray(out), ufunc(arg), rtol=1e-13)
    np.testing.assert_allclose(tf8.grad(lambda v: sp.gammaln(v).sum())(x), sp.psi(x), rtol=1e-12)
    np.testing.assert_allclose(tf8.jit(lambda a, v: sp.gammainc(a, v))(x, x), sp.gammainc(x, x))
    with pytest.raises(errors.UnsupportedOperationError, match="ufunc"):
        sp.wrightomega(tf8.tensor(x))  # a scipy ufunc tf8 lacks: said, not silently constant


def test_non_differentiable_operands_raise() -> None:
    with pytest.raises(errors.DifferentiationError, match="respect to a"):
        tf8.grad(tf8.grad(lambda a: special.gammainc(a, 1.0)))(2.0)  # first order: JAX's
    with pytest.raises(errors.UnsupportedOperationError, match="exact"):
        special.factorial(3.0, exact=True)
