"""Misuse of the extension op families: linalg, fft, einsum, sorting, special functions."""

from __future__ import annotations

import numpy as np
import pytest
from misuse_table import expect, params

import tf8
import tf8.numpy as tnp
from tf8 import errors, lax

X = np.ones(3)
M = np.ones((2, 3))
special = tf8.scipy.special

LINALG = [
    (
        "solve-non-square",
        lambda: tnp.linalg.solve(M, np.ones(2)),
        errors.ShapeError,
        r"solve: needs square matrices, got shape \(2, 3\)",
    ),
    (
        "solve-rhs-does-not-fit",
        lambda: tnp.linalg.solve(np.eye(3), np.ones(4)),
        errors.ShapeError,
        r"solve: matrix \(3, 3\) does not fit right-hand side \(4, 1\)",
    ),
    (
        "solve-singular",
        lambda: tnp.linalg.solve(np.zeros((2, 2)), np.ones(2)),
        errors.LinAlgError,
        "solve: Singular matrix",
    ),
    (
        "inv-vector",
        lambda: tnp.linalg.inv(X),
        errors.ShapeError,
        r"inv: needs a matrix \(at least 2 axes\), got \(3,\)",
    ),
    ("inv-non-square", lambda: tnp.linalg.inv(M), errors.ShapeError, "inv: needs square"),
    (
        "inv-singular",
        lambda: tnp.linalg.inv(np.zeros((2, 2))),
        errors.LinAlgError,
        "inv: Singular matrix",
    ),
    (
        "cholesky-not-positive-definite",
        lambda: tnp.linalg.cholesky(-np.eye(2)),
        errors.LinAlgError,
        "cholesky: Matrix is not positive definite",
    ),
    (
        "cholesky-non-square",
        lambda: tnp.linalg.cholesky(M),
        errors.ShapeError,
        "cholesky: needs square",
    ),
    ("det-vector", lambda: tnp.linalg.det(X), errors.ShapeError, "det: needs a matrix"),
    (
        "slogdet-non-square",
        lambda: tnp.linalg.slogdet(M),
        errors.ShapeError,
        "slogdet: needs square",
    ),
    ("eigh-non-square", lambda: tnp.linalg.eigh(M), errors.ShapeError, "eigh: needs square"),
    ("eig-non-square", lambda: tnp.linalg.eig(M), errors.ShapeError, "eig: needs square"),
    ("qr-vector", lambda: tnp.linalg.qr(X), errors.ShapeError, "qr: needs a matrix"),
    ("svd-vector", lambda: tnp.linalg.svd(X), errors.ShapeError, "svd: needs a matrix"),
    ("pinv-vector", lambda: tnp.linalg.pinv(X), errors.ShapeError, "pinv: needs a matrix"),
    (
        "lstsq-rows-differ",
        lambda: tnp.linalg.lstsq(M, np.ones(3)),
        errors.ShapeError,
        r"lstsq: matrix \(2, 3\) does not fit right-hand side \(3, 1\)",
    ),
    (
        "norm-unknown-order",
        lambda: tnp.linalg.norm(M, ord="fro2"),
        errors.ParameterError,
        "norm: invalid order 'fro2' for matrices",
    ),
    (
        "norm-axis-out-of-range",
        lambda: tnp.linalg.norm(M, axis=4),
        errors.ShapeError,
        r"norm: axis 4 out of range for \(2, 3\)",
    ),
    (
        "matrix-power-float-exponent",
        lambda: tnp.linalg.matrix_power(np.eye(2), 1.5),
        errors.DTypeError,
        "matrix_power: exponent must be an integer, got float 1.5",
    ),
]

FFT = [
    (
        "fft-axis-out-of-range",
        lambda: tnp.fft.fft(X, axis=3),
        errors.ParameterError,
        r"fft: axis 3 out of range for \(3,\)",
    ),
    (
        "fft-n-zero",
        lambda: tnp.fft.fft(X, n=0),
        errors.ParameterError,
        "fft: n must be a positive int, got 0",
    ),
    (
        "fft-unknown-norm",
        lambda: tnp.fft.fft(X, norm="loud"),
        errors.ParameterError,
        "fft: norm must be one of",
    ),
    ("fft-of-strings", lambda: tnp.fft.fft("abc"), errors.DTypeError, "dtype <U3"),
    (
        "fft2-of-a-vector",
        lambda: tnp.fft.fft2(X),
        errors.ParameterError,
        "fftn: axis -2 out of range for 1 axes",
    ),
    (
        "irfft-negative-n",
        lambda: tnp.fft.irfft(X, n=-2),
        errors.ParameterError,
        "irfft: n must be a positive int, got -2",
    ),
    (
        "rfft-of-complex",
        lambda: tnp.fft.rfft(X + 1j),
        errors.DTypeError,
        "rfft: needs a real operand, got complex128",
    ),
    (
        "fftshift-axis-out-of-range",
        lambda: tnp.fft.fftshift(X, axes=5),
        errors.AxisError,
        "fftshift: axis 5 is out of range for an array of 1 axes",
    ),
]

EINSUM = [
    (
        "einsum-sizes-disagree",
        lambda: tnp.einsum("ij,jk->ik", M, M),
        errors.ShapeError,
        "subscript 'j' has size 3 in operand 0 but size 2 in operand 1",
    ),
    (
        "einsum-too-few-operands",
        lambda: tnp.einsum("ij,jk->ik", M),
        errors.ParameterError,
        r"names 2 operand\(s\) but 1 were given",
    ),
    (
        "einsum-rank-disagrees",
        lambda: tnp.einsum("ijk->i", M),
        errors.ShapeError,
        r"operand 0 has shape \(2, 3\) but subscripts 'ijk'",
    ),
    (
        "einsum-output-index-unknown",
        lambda: tnp.einsum("ij->iz", M),
        errors.ParameterError,
        "output subscript 'z' repeated or not an input",
    ),
    (
        "einsum-output-index-repeated",
        lambda: tnp.einsum("ij->ii", M),
        errors.ParameterError,
        "output subscript 'i' repeated",
    ),
    (
        "einsum-bad-character",
        lambda: tnp.einsum("i$->i", X),
        errors.ParameterError,
        r"bad subscripts 'i\$->i'",
    ),
]

SORTING = [
    ("sort-axis-out-of-range", lambda: tnp.sort(X, axis=2), errors.AxisError, "axis 2 is out"),
    (
        "argsort-axis-out-of-range",
        lambda: tnp.argsort(X, axis=-3),
        errors.AxisError,
        "axis -3 is out of bounds",
    ),
    (
        "top-k-too-large",
        lambda: lax.top_k(X, 5),
        errors.ParameterError,
        r"top_k: k must be in \[0, 3\].*got 5",
    ),
    ("top-k-negative", lambda: lax.top_k(X, -1), errors.ParameterError, "got -1"),
    (
        "top-k-of-a-scalar",
        lambda: lax.top_k(np.float64(1.0), 1),
        errors.ParameterError,
        "top_k: operand must have at least one dimension",
    ),
    (
        "sort-key-val-shapes",
        lambda: lax.sort_key_val(X, np.ones(4)),
        errors.ShapeError,
        r"sort: operands must have one shape, got float64\(3,\), float64\(4,\)",
    ),
    (
        "searchsorted-2d",
        lambda: tnp.searchsorted(M, X),
        errors.ShapeError,
        "searchsorted: a must be 1-D",
    ),
    (
        "cumsum-axis-out-of-range",
        lambda: tnp.cumsum(X, axis=1),
        errors.AxisError,
        "axis 1 is out of bounds",
    ),
]

SPECIAL = [
    (
        "gammaln-of-complex",
        lambda: special.gammaln(X + 1j),
        errors.DTypeError,
        "lgamma: dtype complex128 not accepted",
    ),
    ("erf-of-strings", lambda: special.erf("x"), errors.DTypeError, "dtype <U1"),
    (
        "logsumexp-axis-out-of-range",
        lambda: special.logsumexp(X, axis=1),
        errors.AxisError,
        "axis 1 is out of bounds",
    ),
    (
        "softmax-axis-out-of-range",
        lambda: tf8.nn.softmax(X, axis=2),
        errors.AxisError,
        "axis 2 is out of bounds",
    ),
    (
        "one-hot-float-classes",
        lambda: tf8.nn.one_hot(np.array([0, 1]), 2.5),
        errors.ParameterError,
        "got 2.5 of type float",
    ),
]


@pytest.mark.parametrize(
    ("misuse", "error", "message"), params(LINALG + FFT + EINSUM + SORTING + SPECIAL)
)
def test_extension_op_misuse(misuse, error, message):
    expect(misuse, error, message)
