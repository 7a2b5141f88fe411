"""tf8.linalg: values against numpy, derivatives (check_grads and closed forms), pruning, errors."""

import time

import numpy as np
import pytest
from scaling_timer import assert_faster

import tf8
import tf8.numpy as tnp
from tf8 import linalg
from tf8.errors import LinAlgError, ParameterError, ShapeError
from tf8.ops.extension import linalg as ops

RNG = np.random.default_rng(0)
GENERAL = RNG.standard_normal((2, 3, 3)) + 3 * np.eye(3)  # batched, well conditioned
SPD = GENERAL @ np.swapaxes(GENERAL, -1, -2) + np.eye(3)
TALL = RNG.standard_normal((2, 4, 3))
RHS = RNG.standard_normal((2, 3, 2))
COMPLEX = RNG.standard_normal((3, 3)) + 1j * RNG.standard_normal((3, 3)) + 3 * np.eye(3)
HERMITIAN = COMPLEX @ COMPLEX.conj().T + np.eye(3)
COMPLEX_RHS = RNG.standard_normal((3, 2)) + 1j * RNG.standard_normal((3, 2))
COMPLEX_TALL = TALL[0] + 1j * RNG.standard_normal((4, 3))

# name, tf8 function, numpy reference, arguments, check_grads order
CASES = [
    ("inv", linalg.inv, np.linalg.inv, [GENERAL], 2),
    ("det", linalg.det, np.linalg.det, [GENERAL], 2),
    ("slogdet", linalg.slogdet, np.linalg.slogdet, [GENERAL], 2),
    ("solve", linalg.solve, np.linalg.solve, [GENERAL, RHS], 2),
    ("solve_vector", linalg.solve, np.linalg.solve, [GENERAL[0], RHS[0, :, 0]], 1),
    ("solve_broadcast", linalg.solve, np.linalg.solve, [GENERAL, RHS[0]], 1),
    ("cholesky", linalg.cholesky, np.linalg.cholesky, [SPD], 2),
    ("eigh", linalg.eigh, np.linalg.eigh, [SPD], 1),
    ("eigvalsh", linalg.eigvalsh, np.linalg.eigvalsh, [SPD], 2),
    ("svdvals", linalg.svdvals, lambda a: np.linalg.svd(a, compute_uv=False), [TALL], 2),
    (
        "svd_tall",
        lambda a: linalg.svd(a, full_matrices=False),
        lambda a: tuple(np.linalg.svd(a, full_matrices=False)),
        [TALL],
        1,
    ),
    (
        "svd_wide",
        lambda a: linalg.svd(a, full_matrices=False),
        lambda a: tuple(np.linalg.svd(a, full_matrices=False)),
        [np.swapaxes(TALL, -1, -2)],
        1,
    ),
    ("qr", linalg.qr, lambda a: tuple(np.linalg.qr(a)), [TALL], 1),
    ("qr_r", lambda a: linalg.qr(a, mode="r"), lambda a: np.linalg.qr(a, mode="r"), [TALL], 2),
    # complex128 to second order (JAX's convention: ⟨t, vjp(ct)⟩ = Re Σ conj(t)·ct)
    ("complex_inv", linalg.inv, np.linalg.inv, [COMPLEX], 2),
    ("complex_solve", linalg.solve, np.linalg.solve, [COMPLEX, COMPLEX_RHS], 2),
    ("complex_det", linalg.det, np.linalg.det, [COMPLEX], 2),
    ("complex_slogdet", linalg.slogdet, np.linalg.slogdet, [COMPLEX], 2),
    ("complex_cholesky", linalg.cholesky, np.linalg.cholesky, [HERMITIAN], 2),
    ("complex_eigvalsh", linalg.eigvalsh, np.linalg.eigvalsh, [HERMITIAN], 2),
    (
        "complex_eigh_values",
        lambda a: linalg.eigh(a)[0],
        lambda a: np.linalg.eigh(a)[0],
        [HERMITIAN],
        2,
    ),
    ("complex_svdvals", linalg.svdvals, lambda a: np.linalg.svd(a, compute_uv=False), [COMPLEX], 2),
    (
        "complex_svd_values",
        lambda a: linalg.svd(a, full_matrices=False)[1],
        lambda a: np.linalg.svd(a, compute_uv=False),
        [COMPLEX_TALL],
        2,
    ),
    ("complex_qr", linalg.qr, lambda a: tuple(np.linalg.qr(a)), [COMPLEX], 1),
]


@pytest.mark.parametrize("name,fn,reference,args,order", CASES, ids=[c[0] for c in CASES])
def test_values_match_numpy_and_derivatives_check(name, fn, reference, args, order):
    got, expected = fn(*args), reference(*args)
    got = got if isinstance(got, tuple) else (got,)
    expected = expected if isinstance(expected, tuple) else (expected,)
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        np.testing.assert_allclose(np.asarray(g), e, rtol=1e-9, atol=1e-11)
    tf8.check_grads(fn, args, order=order)


def test_complex_eigh_derivatives_of_gauge_invariant_values():
    # Eigenvectors of a complex Hermitian matrix are defined up to a phase: check |V|².
    tf8.check_grads(lambda a: tnp.abs(linalg.eigh(a)[1]) ** 2, [HERMITIAN], order=1)


def test_closed_forms():
    a = GENERAL[0]
    np.testing.assert_allclose(
        tf8.grad(lambda x: linalg.slogdet(x)[1])(a), np.linalg.inv(a).T, rtol=1e-10
    )
    ainv = np.linalg.inv(a)
    expected = -(ainv.T @ np.ones((3, 3)) @ ainv.T)  # d/dA sum(A⁻¹) = −A⁻ᵀ 1 A⁻ᵀ
    np.testing.assert_allclose(tf8.grad(lambda x: tnp.sum(linalg.inv(x)))(a), expected)
    u, _, vh = np.linalg.svd(TALL[0], full_matrices=False)
    nuclear = tf8.grad(lambda x: tnp.sum(linalg.svdvals(x)))(TALL[0])
    np.testing.assert_allclose(nuclear, u @ vh, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(
        tf8.grad(lambda x: linalg.det(x))(a), np.linalg.det(a) * ainv.T, rtol=1e-10
    )


@pytest.mark.parametrize(
    "fn,pruned",
    [
        (lambda a: tnp.sum(linalg.svd(a)[1]), ops.Svdvals),
        (lambda a: tnp.sum(linalg.eigh(a)[0]), ops.Eigvalsh),
        (lambda a: linalg.slogdet(a)[1], ops.LogAbsDet),
        (lambda a: linalg.qr(a)[1], ops.QrR),
    ],
)
def test_unused_outputs_prune_to_a_cheaper_op(fn, pruned):
    program_ops = tf8.make_program(fn)(SPD[0]).ops
    assert any(isinstance(op, pruned) for op in program_ops)
    assert not any(isinstance(op, pruned.full) for op in program_ops)
    np.testing.assert_allclose(tf8.jit(fn)(SPD[0]), fn(SPD[0]), rtol=1e-10)


def test_pruning_keeps_outputs_the_gradient_needs():
    program_ops = tf8.make_program(tf8.grad(lambda a: tnp.sum(linalg.svd(a)[1])))(SPD[0]).ops
    assert any(isinstance(op, ops.Svd) for op in program_ops)


def _timer(fn, array):
    fn(array)

    def seconds():
        start = time.perf_counter()
        fn(array)
        return time.perf_counter() - start

    return seconds


def test_pruned_svd_is_faster_at_run_time():
    # one BLAS thread: on a loaded machine competing BLAS thread pools swamp the difference
    threadpoolctl = pytest.importorskip("threadpoolctl")
    a = np.random.default_rng(1).standard_normal((300, 300))
    with threadpoolctl.threadpool_limits(limits=1, user_api="blas"):
        values_only = _timer(tf8.jit(lambda x: tnp.sum(linalg.svd(x)[1])), a)
        with_vectors = _timer(tf8.jit(lambda x: tnp.sum(linalg.svd(x)[0])), a)
        assert_faster(values_only, with_vectors, 0.9)


def test_non_square_input_is_a_shape_error_at_trace_time():
    for fn in (linalg.inv, linalg.det, linalg.slogdet, linalg.cholesky, linalg.eigh):
        with pytest.raises(ShapeError, match=r"\(2, 3\)"):
            fn(tf8.placeholder((2, 3)))
    with pytest.raises(ShapeError, match=r"\(2, 3\)"):
        linalg.solve(tf8.placeholder((2, 3)), np.ones(2))
    with pytest.raises(ShapeError):
        linalg.inv(np.ones(3))


def test_kernel_failures_raise_linalg_error():
    with pytest.raises(LinAlgError, match="inv"):
        np.asarray(linalg.inv(np.ones((3, 3))))
    with pytest.raises(LinAlgError, match="solve"):
        np.asarray(linalg.solve(np.zeros((2, 2)), np.ones(2)))
    with pytest.raises(LinAlgError, match="cholesky"):
        np.asarray(linalg.cholesky(-np.eye(3)))
    assert issubclass(LinAlgError, ValueError)


def test_unsupported_options_are_parameter_errors():
    with pytest.raises(ParameterError, match="mode"):
        linalg.qr(TALL, mode="economic")
    with pytest.raises(ParameterError, match="UPLO"):
        linalg.eigh(SPD, UPLO="X")


def test_eigh_reads_the_upper_triangle_with_uplo_u():
    upper_only = np.triu(SPD[0])
    for uplo in ("U", "u"):
        np.testing.assert_allclose(
            np.asarray(linalg.eigvalsh(upper_only, UPLO=uplo, symmetrize_input=False)),
            np.linalg.eigvalsh(SPD[0]),
        )
    w, v = linalg.eigh(HERMITIAN, UPLO="U", symmetrize_input=False)
    w0, v0 = np.linalg.eigh(HERMITIAN, UPLO="U")
    np.testing.assert_allclose(np.asarray(w), w0)
    np.testing.assert_allclose(np.abs(np.asarray(v)), np.abs(v0), atol=1e-12)
    tf8.check_grads(lambda a: linalg.eigvalsh(a, UPLO="U", symmetrize_input=False), [SPD], order=1)


def test_eigh_and_cholesky_symmetrize_by_default_as_jax():
    # JAX's default symmetrize_input=True: both triangles count, as (A + Aᴴ)/2, and the
    # gradient is symmetric; UPLO then changes nothing.
    lopsided = np.tril(SPD[0])
    sym = (lopsided + lopsided.T) / 2
    for uplo in ("L", "U"):
        np.testing.assert_allclose(
            np.asarray(linalg.eigvalsh(lopsided, UPLO=uplo)), np.linalg.eigvalsh(sym)
        )
    np.testing.assert_allclose(np.asarray(linalg.cholesky(lopsided)), np.linalg.cholesky(sym))
    grad = np.asarray(tf8.grad(lambda a: linalg.cholesky(a)[2, 1])(SPD[0]))
    np.testing.assert_allclose(grad, grad.T, atol=1e-12)
    tf8.check_grads(linalg.cholesky, [lopsided + 0.1 * np.triu(SPD[0], 1)], order=2)


def test_integer_input_computes_in_float64():
    out = linalg.inv(np.array([[2, 0], [0, 4]]))
    assert out.dtype == np.float64
    np.testing.assert_allclose(out, [[0.5, 0], [0, 0.25]])
    np.testing.assert_allclose(linalg.svd(TALL[0], compute_uv=False), linalg.svdvals(TALL[0]))
