"""tf8.scipy.linalg's schur, rsf2csf, hessenberg, qr, qr_multiply and polar: values against
scipy, derivatives against central differences (where JAX differentiates), the refusal where
JAX's raises, pruning, and vmap against a loop."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.linalg

import tf8
import tf8.numpy as tnp
from tf8.errors import DifferentiationError, ParameterError, ShapeError
from tf8.ops.extension.linalg import QrR
from tf8.ops.extension.linalg.schur import (
    Hessenberg,
    HessenbergH,
    QrPivoted,
    QrPivotedR,
    Schur,
    SchurT,
)
from tf8.scipy import linalg

RNG = np.random.default_rng(11)
A = RNG.standard_normal((4, 4))
COMPLEX = A + 1j * RNG.standard_normal((4, 4))


@pytest.mark.parametrize("a", [A, COMPLEX], ids=["real", "complex"])
@pytest.mark.parametrize("output", ["real", "complex"])
def test_schur_matches_scipy(a, output):
    t, z = linalg.schur(a, output)
    expected_t, expected_z = scipy.linalg.schur(a, output)
    np.testing.assert_allclose(t, expected_t, atol=1e-13)
    np.testing.assert_allclose(z, expected_z, atol=1e-13)
    np.testing.assert_allclose(
        np.asarray(z) @ np.asarray(t) @ np.asarray(z).conj().T, a, atol=1e-13
    )


def test_hessenberg_matches_scipy():
    np.testing.assert_allclose(linalg.hessenberg(A), scipy.linalg.hessenberg(A), atol=1e-14)
    h, q = linalg.hessenberg(COMPLEX, calc_q=True)
    expected_h, expected_q = scipy.linalg.hessenberg(COMPLEX, calc_q=True)
    np.testing.assert_allclose(h, expected_h, atol=1e-14)
    np.testing.assert_allclose(q, expected_q, atol=1e-14)
    assert np.asarray(linalg.hessenberg(np.zeros((0, 0)), calc_q=True)[1]).shape == (0, 0)


@pytest.mark.parametrize(
    "fn,pruned,full",
    [
        (lambda a: linalg.schur(a)[0], SchurT, Schur),
        (lambda a: linalg.hessenberg(a), HessenbergH, Hessenberg),
        (lambda a: linalg.qr(a, mode="r", pivoting=True)[0], QrPivotedR, QrPivoted),
        (lambda a: linalg.qr(a, mode="r")[0], QrR, None),
    ],
)
def test_unused_factors_are_not_computed(fn, pruned, full):
    program = tf8.make_program(fn)(A)
    assert any(isinstance(op, pruned) for op in program.ops)
    assert full is None or not any(type(op) is full for op in program.ops)
    np.testing.assert_allclose(tf8.jit(fn)(A), fn(A), atol=1e-14)


def test_schur_and_hessenberg_batch_like_a_loop():
    batch = RNG.standard_normal((3, 4, 4))
    t, z = linalg.schur(batch)
    hessenbergs = tf8.vmap(linalg.hessenberg)(batch)
    for k, a in enumerate(batch):
        expected_t, expected_z = scipy.linalg.schur(a)
        np.testing.assert_allclose(np.asarray(t)[k], expected_t, atol=1e-13)
        np.testing.assert_allclose(np.asarray(z)[k], expected_z, atol=1e-13)
        np.testing.assert_allclose(
            np.asarray(hessenbergs)[k], scipy.linalg.hessenberg(a), atol=1e-13
        )


@pytest.mark.parametrize(
    "fn",
    [
        lambda a: linalg.schur(a)[0],
        lambda a: linalg.schur(a, "complex")[1],
        lambda a: linalg.hessenberg(a),
        lambda a: linalg.hessenberg(a, calc_q=True)[1],
        lambda a: linalg.qr_multiply(a, a)[0],
    ],
)
def test_what_jax_does_not_differentiate_raises(fn):
    with pytest.raises(DifferentiationError, match="not differentiable"):
        tf8.grad(lambda a: tnp.sum(tnp.real(fn(a))))(A)
    with pytest.raises(DifferentiationError):
        tf8.jvp(fn, (A,), (A,))
    # outside a derivative, stop_gradient makes it usable
    tf8.grad(lambda a: tnp.sum(tnp.real(fn(tf8.lax.stop_gradient(a)))) + tnp.sum(a))(A)


def test_rsf2csf_matches_scipy_and_differentiates():
    rotation = np.array(
        [[1.0, 2.0, 0.5, 0.0], [-3.0, 1.0, 0.2, 1.0], [0, 0, 2.0, 1.0], [0, 0, -1, 2.0]]
    )
    for a in (A, rotation, RNG.standard_normal((5, 5))):
        t, z = scipy.linalg.schur(a)
        ours = linalg.rsf2csf(t, z)
        for found, expected in zip(ours, scipy.linalg.rsf2csf(t, z)):
            np.testing.assert_allclose(found, expected, atol=1e-13)
        # the derivative at the structure of a real Schur form (its zeros stay zero: an entry
        # below a block that moves off zero changes which rotations apply)
        free = np.abs(t) > 1e-14
        structured = lambda x, y, free=free: linalg.rsf2csf(tnp.where(free, x, 0.0), y)  # noqa: E731
        tf8.check_grads(structured, [t, z], order=2)


def test_rsf2csf_batches():
    pairs = [scipy.linalg.schur(a) for a in RNG.standard_normal((3, 4, 4))]
    t, z = (np.stack(p) for p in zip(*pairs))
    found = tf8.jit(tf8.vmap(linalg.rsf2csf))(t, z)
    for k, (tk, zk) in enumerate(pairs):
        for part, expected in zip(found, scipy.linalg.rsf2csf(tk, zk)):
            np.testing.assert_allclose(np.asarray(part)[k], expected, atol=1e-13)


@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (4, 4)])
@pytest.mark.parametrize("mode", ["full", "economic", "r"])
@pytest.mark.parametrize("pivoting", [False, True])
def test_qr_matches_scipy_and_differentiates(shape, mode, pivoting):
    a = RNG.standard_normal(shape)
    found = linalg.qr(a, mode=mode, pivoting=pivoting)
    expected = scipy.linalg.qr(a, mode=mode, pivoting=pivoting)
    assert len(found) == len(expected)
    for f, e in zip(found, expected):
        np.testing.assert_allclose(f, e, atol=1e-13)
    floats = [k for k, e in enumerate(expected) if e.dtype.kind == "f"]
    tf8.check_grads(
        lambda x: [linalg.qr(x, mode=mode, pivoting=pivoting)[k] for k in floats], [a], 2
    )


def test_pivoted_qr_permutes_columns_and_batches():
    batch = RNG.standard_normal((2, 4, 3))
    q, r, p = linalg.qr(batch, pivoting=True)
    assert np.asarray(p).dtype == np.int32
    for k in range(2):
        permuted = batch[k][:, np.asarray(p)[k]]
        np.testing.assert_allclose(np.asarray(q)[k] @ np.asarray(r)[k], permuted, atol=1e-13)
    tf8.check_grads(lambda x: linalg.qr(x, pivoting=True)[:2], [batch], order=1)


@pytest.mark.parametrize("shape", [(5, 3), (3, 5)])
@pytest.mark.parametrize("mode", ["right", "left"])
@pytest.mark.parametrize("conjugate", [False, True])
def test_qr_multiply_matches_scipy(shape, mode, conjugate):
    a = RNG.standard_normal(shape) + 1j * RNG.standard_normal(shape)
    m, k = shape[0], min(shape)
    c = RNG.standard_normal((2, m) if mode == "right" else (k, 2))
    for pivoting in (False, True):
        found = linalg.qr_multiply(a, c, mode, pivoting, conjugate)
        expected = scipy.linalg.qr_multiply(a, c, mode, pivoting, conjugate)
        for f, e in zip(found, expected):
            np.testing.assert_allclose(f, e, atol=1e-13)
    vector = np.asarray(linalg.qr_multiply(a, c[0] if mode == "right" else c[:, 0], mode)[0])
    assert vector.ndim == 1


@pytest.mark.parametrize("side,shape", [("right", (4, 3)), ("left", (3, 4)), ("right", (3, 3))])
@pytest.mark.parametrize("method", ["qdwh", "svd"])
def test_polar_matches_scipy_and_differentiates(side, shape, method):
    a = RNG.standard_normal(shape)
    u, p = linalg.polar(a, side, method=method)
    expected_u, expected_p = scipy.linalg.polar(a, side)
    np.testing.assert_allclose(u, expected_u, atol=1e-13)
    np.testing.assert_allclose(p, expected_p, atol=1e-13)
    tf8.check_grads(lambda x: linalg.polar(x, side, method=method), [a], order=2)


def test_polar_of_a_complex_batch_is_a_loop():
    batch = RNG.standard_normal((2, 3, 3)) + 1j * RNG.standard_normal((2, 3, 3))
    u, p = tf8.vmap(lambda a: linalg.polar(a, method="svd"))(batch)
    for k, a in enumerate(batch):
        expected_u, expected_p = scipy.linalg.polar(a)
        np.testing.assert_allclose(np.asarray(u)[k], expected_u, atol=1e-13)
        np.testing.assert_allclose(np.asarray(p)[k], expected_p, atol=1e-13)


def test_errors():
    with pytest.raises(ParameterError, match="schur: output"):
        linalg.schur(A, "other")
    with pytest.raises(ShapeError, match="square"):
        linalg.schur(A[:3])
    with pytest.raises(ParameterError, match="qr: mode"):
        linalg.qr(A, mode="raw")
    with pytest.raises(ParameterError, match="qr_multiply: mode"):
        linalg.qr_multiply(A, A, mode="middle")
    with pytest.raises(ShapeError, match="qr_multiply"):
        linalg.qr_multiply(A, A[:, :3])
    with pytest.raises(ParameterError, match="qdwh"):
        linalg.polar(A[:3])
    with pytest.raises(ParameterError, match="side"):
        linalg.polar(A, "up")
    with pytest.raises(ShapeError, match="rsf2csf"):
        linalg.rsf2csf(A, A[:3, :3])
