"""`jax.numpy.linalg` and `jax.numpy.fft`: well-conditioned matrices (general, SPD, Hermitian
with distinct eigenvalues) in float64, float32 and complex, batched and empty, each keyword
variant, and a bad shape JAX refuses. Decompositions defined up to sign or phase are recorded
through programs that build invariants from them (eigen-projectors, rank-one SVD terms,
eigenvectors scaled by their first component), so their derivatives are checked too."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from ..spec import Case, Static, program

INF = float("inf")
REAL = (np.float64, np.float32)
ALL = (np.float64, np.float32, np.complex128, np.complex64)


def _draw(rng: np.random.Generator, shape: tuple, dtype: Any) -> np.ndarray:
    x = rng.normal(size=shape)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * rng.normal(size=shape)
    return x


def _unitary(rng: np.random.Generator, m: int, k: int, dtype: Any) -> np.ndarray:
    q, _ = np.linalg.qr(_draw(rng, (m, k), dtype))
    return q


def general(rng: np.random.Generator, shape: tuple, dtype: Any = np.float64) -> np.ndarray:
    """Matrices U diag(s) V^H with distinct singular values s in [0.6, 2]: well conditioned,
    with derivatives of their decompositions well defined."""
    *batch, m, n = shape
    k = min(m, n)
    s = np.linspace(2.0, 0.6, k) if k > 1 else np.array([1.3])
    out = np.zeros(shape, np.result_type(dtype, np.float64))
    for index in np.ndindex(*batch):
        u, v = _unitary(rng, m, k, dtype), _unitary(rng, n, k, dtype)
        out[index] = (u * s) @ np.conj(v.T)
    return out.astype(dtype)


def nonsymmetric(rng: np.random.Generator, shape: tuple, dtype: Any = np.float64) -> np.ndarray:
    """Square matrices S diag(d) S^-1 with distinct eigenvalues d (complex ones for complex
    dtypes) and a well-conditioned S."""
    n = shape[-1]
    d = np.linspace(-1.5, 2.5, n) + 0.2 * np.arange(n) ** 2
    if np.dtype(dtype).kind == "c":
        d = d + 1j * np.linspace(0.5, -0.8, n)
    basis = np.eye(n) + 0.3 * _draw(rng, shape, dtype)
    return ((basis * d) @ np.linalg.inv(basis)).astype(dtype)


def spd(rng: np.random.Generator, shape: tuple, dtype: Any = np.float64) -> np.ndarray:
    """Hermitian positive definite matrices."""
    b = _draw(rng, shape, dtype)
    return (b @ np.conj(np.swapaxes(b, -1, -2)) + shape[-1] * np.eye(shape[-1])).astype(dtype)


def hermitian(rng: np.random.Generator, shape: tuple, dtype: Any = np.float64) -> np.ndarray:
    """Hermitian matrices with well separated eigenvalues (-2, 1, 3.5, ...)."""
    q, _ = np.linalg.qr(_draw(rng, shape, dtype))
    w = -2.0 + 2.5 * np.arange(shape[-1]) + 0.3 * np.arange(shape[-1]) ** 2
    return ((q * w) @ np.conj(np.swapaxes(q, -1, -2))).astype(dtype)


# --- programs: invariants of decompositions defined up to sign or phase ----------------------


def _h(root: Any, x: Any) -> Any:
    return root.numpy.conj(root.numpy.swapaxes(x, -1, -2))


@program("linalg.eigh_projectors")
def _eigh_projectors(root: Any) -> Any:
    def fn(a: Any, **kw: Any) -> Any:
        w, v = root.numpy.linalg.eigh(a, **kw)
        return w, v[..., :, None, :] * root.numpy.conj(v[..., None, :, :])

    return fn


@program("linalg.eig_scaled")
def _eig_scaled(root: Any) -> Any:
    def fn(a: Any) -> Any:
        w, v = root.numpy.linalg.eig(a)
        return w, v / v[..., :1, :]

    return fn


@program("linalg.svd_terms")
def _svd_terms(root: Any) -> Any:
    """The singular values and the rank-one terms u_k vh_k (reduced SVD)."""

    def fn(a: Any) -> Any:
        u, s, vh = root.numpy.linalg.svd(a, full_matrices=False)
        return s, u[..., :, None, :] * root.numpy.swapaxes(vh, -1, -2)[..., None, :, :]

    return fn


@program("linalg.svd_full_gram")
def _svd_full_gram(root: Any) -> Any:
    """The full SVD's singular values and the Gram matrices of its unitary factors."""

    def fn(a: Any) -> Any:
        u, s, vh = root.numpy.linalg.svd(a, full_matrices=True)
        return s, u @ _h(root, u), _h(root, vh) @ vh

    return fn


@program("linalg.multi_dot_of_arguments")
def _multi_dot(root: Any) -> Any:
    return lambda *arrays: root.numpy.linalg.multi_dot(arrays)


# --- linalg ------------------------------------------------------------------------------------


def square_matrices(rng: np.random.Generator, make: Any = general) -> Iterator[tuple]:
    for dtype in ALL:
        yield (make(rng, (3, 3), dtype),)
    yield (make(rng, (2, 3, 3)),)  # batched
    yield (make(rng, (2, 2, 4, 4), np.float32),)
    yield (make(rng, (1, 1)),)


def linalg_cases() -> Iterator[Case]:
    rng = np.random.default_rng(28)
    bad = rng.normal(size=(2, 3))
    empty = np.zeros((0, 0))
    for name in ("det", "inv", "slogdet", "eigvals"):
        for args in square_matrices(rng, nonsymmetric if name == "eigvals" else general):
            yield Case(f"numpy.linalg.{name}", args)
        yield Case(f"numpy.linalg.{name}", (bad,))
        yield Case(f"numpy.linalg.{name}", (np.zeros(3),))
    # JAX differentiates eigenvalues only: eigenvectors are compared forward
    for args in square_matrices(rng, nonsymmetric):
        if args[0].dtype != np.float32:  # float32 eigenvectors differ in their last digits
            yield Case("linalg.eig_scaled", args, derivatives=False)
    yield Case("linalg.eig_scaled", (general(rng, (3, 3)),), derivatives=False)
    yield Case("numpy.linalg.eig", (bad,))
    for name in ("det", "inv", "slogdet"):
        yield Case(f"numpy.linalg.{name}", (empty,))
        yield Case(f"numpy.linalg.{name}", (np.zeros((2, 0, 0), np.float32),))
        yield Case(f"numpy.linalg.{name}", (general(rng, (2, 2)),))
    negative = general(rng, (3, 3))[::-1].copy()  # a negative determinant
    yield Case("numpy.linalg.slogdet", (negative,))
    yield Case("numpy.linalg.det", (negative,))
    yield Case("numpy.linalg.det", (np.array([[1, 2], [3, 4]], np.int32),))

    for n in (0, 1, 2, 3, -1, -2):
        yield Case("numpy.linalg.matrix_power", (general(rng, (3, 3)), Static(n)))
    yield Case("numpy.linalg.matrix_power", (general(rng, (2, 3, 3), np.complex128), Static(3)))
    yield Case("numpy.linalg.matrix_power", (general(rng, (3, 3), np.float32), Static(5)))
    yield Case("numpy.linalg.matrix_power", (np.array([[1, 2], [3, 4]], np.int32), Static(3)))
    yield Case("numpy.linalg.matrix_power", (bad, Static(2)))

    for args in square_matrices(rng, spd):
        yield Case("numpy.linalg.cholesky", args)
    yield Case("numpy.linalg.cholesky", (spd(rng, (3, 3)),), {"upper": True})
    yield Case("numpy.linalg.cholesky", (spd(rng, (3, 3)),), {"symmetrize_input": False})
    yield Case("numpy.linalg.cholesky", (spd(rng, (3, 3)) + np.triu(np.ones((3, 3)), 1),))
    yield Case("numpy.linalg.cholesky", (empty,))
    yield Case("numpy.linalg.cholesky", (bad,))

    for args in square_matrices(rng, hermitian):
        yield Case("linalg.eigh_projectors", args)
        yield Case("numpy.linalg.eigvalsh", args)
    for uplo in ("L", "U"):
        yield Case("linalg.eigh_projectors", (hermitian(rng, (3, 3)),), {"UPLO": uplo})
        complex_hermitian = hermitian(rng, (3, 3), np.complex128)
        yield Case("numpy.linalg.eigvalsh", (complex_hermitian,), {"UPLO": uplo})
    lower_only = np.tril(hermitian(rng, (3, 3)))  # what UPLO="L" reads; JAX symmetrizes first
    yield Case("numpy.linalg.eigvalsh", (lower_only,))
    yield Case("numpy.linalg.eigh", (hermitian(rng, (3, 3)),), select=(0,))
    yield Case("numpy.linalg.eigh", (bad,))
    yield Case("numpy.linalg.eigvalsh", (empty,))

    rect = [general(rng, s, d) for s, d in (((4, 3), np.float64), ((3, 5), np.float64))]
    rect += [general(rng, (4, 3), np.complex128), general(rng, (2, 4, 3), np.float32)]
    rect += [general(rng, (3, 3), np.complex64)]
    for a in rect:
        yield Case("numpy.linalg.svdvals", (a,))
        yield Case("numpy.linalg.svd", (a,), {"compute_uv": False})
        yield Case("linalg.svd_terms", (a,))
        yield Case("linalg.svd_full_gram", (a,), derivatives=False)  # JAX: not implemented
        yield Case("numpy.linalg.pinv", (a,), derivatives=a.dtype != np.float32)  # f32: noise
        for mode in ("reduced", "complete", "r"):
            yield Case("numpy.linalg.qr", (a,), {"mode": mode})
        for ord in (None, "fro", "nuc", 1, -1, 2, -2, INF, -INF):
            yield Case("numpy.linalg.norm", (a,), {"ord": ord, "axis": (-2, -1)})
    yield Case("numpy.linalg.qr", (rect[0],), {"mode": "raw"})
    yield Case("numpy.linalg.qr", (rect[0],), {"mode": "bogus"})
    yield Case("numpy.linalg.svd", (np.zeros(3),))
    yield Case("numpy.linalg.svdvals", (np.zeros((0, 3)),))
    yield Case("numpy.linalg.pinv", (rect[0],), {"rtol": 1e-3})
    yield Case("numpy.linalg.pinv", (hermitian(rng, (3, 3)),), {"hermitian": True})
    low_rank = np.outer([1.0, 2.0, -1.0], [0.5, 1.0, 3.0])
    yield Case("numpy.linalg.pinv", (low_rank,), derivatives=False)

    for p in (None, "fro", "nuc", 1, -1, 2, -2, INF, -INF):
        yield Case("numpy.linalg.cond", (general(rng, (3, 3)),), {"p": p})
    yield Case("numpy.linalg.cond", (general(rng, (2, 3, 3), np.complex128),))
    yield Case("numpy.linalg.cond", (general(rng, (4, 3), np.float32),))

    for a in (general(rng, (3, 3)), low_rank, rng.normal(size=(2, 4, 3)), np.eye(3) * 1e-20):
        yield Case("numpy.linalg.matrix_rank", (a,))
    yield Case("numpy.linalg.matrix_rank", (low_rank + 1e-6,), {"rtol": 1e-3})
    yield Case("numpy.linalg.matrix_rank", (low_rank + 1e-6,), {"tol": 1e-3})
    yield Case("numpy.linalg.matrix_rank", (hermitian(rng, (3, 3)),), {"hermitian": True})
    yield Case("numpy.linalg.matrix_rank", (np.array(2.0),))

    vector = rng.normal(size=5)
    for x in (vector, vector.astype(np.float32), (vector + 1j * vector[::-1]).astype(np.complex64)):
        for ord in (None, 1, 2, INF, -INF, 0, 3, -1, 0.5):
            yield Case("numpy.linalg.norm", (x,), {"ord": ord})
    stack = rng.normal(size=(2, 3, 4))
    yield Case("numpy.linalg.norm", (stack,))
    yield Case("numpy.linalg.norm", (stack,), {"axis": 1})
    yield Case("numpy.linalg.norm", (stack,), {"axis": -1, "ord": 1, "keepdims": True})
    yield Case("numpy.linalg.norm", (stack,), {"axis": (0, 2), "ord": "fro"})
    yield Case("numpy.linalg.norm", (stack,), {"axis": (2, 0), "ord": 1, "keepdims": True})
    yield Case("numpy.linalg.norm", (np.array([1, -2, 3], np.int32),))
    yield Case("numpy.linalg.norm", (np.zeros((0,)),))
    yield Case("numpy.linalg.norm", (np.array(-2.5),))
    yield Case("numpy.linalg.norm", (stack,), {"ord": "fro", "axis": 1})
    yield Case("numpy.linalg.norm", (stack,), {"ord": 2})

    a, rhs = general(rng, (3, 3)), rng.normal(size=(3, 2))
    for args in (
        (a, rhs[:, 0]),
        (a, rhs),
        (a.astype(np.float32), rhs.astype(np.float32)),
        (general(rng, (3, 3), np.complex128), rhs),
        (general(rng, (2, 3, 3)), rng.normal(size=(2, 3, 2))),
        (general(rng, (2, 3, 3)), rng.normal(size=3)),
        (a, rng.normal(size=(2, 3, 2))),  # a broadcast against a stack of b
        (a, rng.normal(size=4)),  # refused: the sizes differ
        (bad, rhs),
    ):
        yield Case("numpy.linalg.solve", args)

    tall, wide = general(rng, (5, 3)), general(rng, (3, 5))
    deficient = np.c_[tall[:, :2], tall[:, :1]]  # no derivative at a rank-deficient matrix
    for args, keywords in (
        ((tall, rng.normal(size=5)), {}),
        ((tall, rng.normal(size=(5, 2))), {}),
        ((wide, rng.normal(size=3)), {}),
        ((tall.astype(np.float32), rng.normal(size=5).astype(np.float32)), {}),
        ((general(rng, (4, 3), np.complex128), rng.normal(size=4)), {}),
        ((tall, rng.normal(size=5)), {"rcond": 1e-3}),
        ((deficient, rng.normal(size=5)), {}),
        ((tall, rng.normal(size=4)), {}),
    ):
        yield Case("numpy.linalg.lstsq", args, keywords, derivatives=args[0] is not deficient)

    chain = [rng.normal(size=s) for s in ((2, 3), (3, 4), (4, 2), (2, 5))]
    ends = (rng.normal(size=2), *chain[:2], rng.normal(size=4))  # 1-d first and last
    for arrays in (chain, chain[:2], ends, [c.astype(np.float32) for c in chain[:3]]):
        yield Case("linalg.multi_dot_of_arguments", tuple(arrays))
    yield Case("linalg.multi_dot_of_arguments", (chain[0], chain[0]))  # refused

    six = general(rng, (6, 6))
    yield Case("numpy.linalg.tensorinv", (six.reshape(2, 3, 6),))
    yield Case("numpy.linalg.tensorinv", (six.reshape(6, 2, 3),), {"ind": 1})
    yield Case("numpy.linalg.tensorinv", (general(rng, (4, 4), np.float32).reshape(2, 2, 2, 2),))
    yield Case("numpy.linalg.tensorinv", (rng.normal(size=(2, 3, 4)),))
    b23 = rng.normal(size=(2, 3))
    yield Case("numpy.linalg.tensorsolve", (six.reshape(2, 3, 6), b23))
    yield Case("numpy.linalg.tensorsolve", (six.reshape(6, 2, 3), b23), {"axes": (0,)})
    yield Case("numpy.linalg.tensorsolve", (six.reshape(2, 3, 2, 3), b23))
    yield Case("numpy.linalg.tensorsolve", (six.reshape(2, 3, 6), rng.normal(size=(3, 2))))


# --- fft ---------------------------------------------------------------------------------------


def _signal(rng: np.random.Generator, shape: tuple, dtype: Any) -> np.ndarray:
    return _draw(rng, shape, dtype).astype(dtype)


def one_axis(rng: np.random.Generator, name: str) -> Iterator[tuple]:
    """(args, keywords) of a transform along one axis (fft, ifft, rfft, irfft)."""
    dtypes = {"rfft": REAL, "irfft": (np.complex128, np.complex64)}.get(name, ALL)
    base = dtypes[0]
    for dtype in dtypes:
        yield (_signal(rng, (8,), dtype),), {}
    yield (_signal(rng, (7,), base),), {}
    yield (np.array([1, 0, -2, 3], np.int64),), {}
    x = _signal(rng, (3, 6), base)
    yield (x,), {}
    yield (x,), {"axis": 0}
    yield (x,), {"n": 4}
    yield (x,), {"n": 9, "axis": 0}
    for norm in ("backward", "ortho", "forward"):
        yield (x,), {"norm": norm}
    yield (_signal(rng, (2, 3, 5), base),), {"axis": 1, "norm": "ortho"}
    yield (np.array(1.5, base),), {}  # refused: 0-d
    yield (x,), {"n": 0}  # refused
    yield (x,), {"axis": 2}  # refused
    yield (x,), {"norm": "bogus"}  # refused


def several_axes(rng: np.random.Generator, name: str) -> Iterator[tuple]:
    """(args, keywords) of fft2/fftn and their real and inverse forms."""
    dtype = np.complex128 if name.startswith("irfft") else np.float64
    x = _signal(rng, (4, 6), dtype)
    cube = _signal(rng, (2, 4, 6), dtype)
    yield (x,), {}
    yield (x.astype(np.complex64 if dtype == np.complex128 else np.float32),), {}
    if not name.startswith(("rfft", "irfft")):
        yield (_signal(rng, (4, 6), np.complex128),), {}
    yield (cube,), {}
    yield (cube,), {"axes": (0, 2)}
    yield (cube,), {"axes": (2, 0)}
    yield (x,), {"s": (3, 8)}
    yield (cube,), {"s": (3, 5), "axes": (0, 1)}
    for norm in ("ortho", "forward"):
        yield (cube,), {"norm": norm}
    if name.endswith("n"):
        yield (cube,), {"axes": (1,)}
        yield (cube,), {"s": (2, 3, 4)}
    yield (_signal(rng, (5,), dtype),), {}  # 2-d transforms refuse it; n-d ones do not
    yield (cube,), {"axes": (0, 3)}  # refused


def fft_cases() -> Iterator[Case]:
    rng = np.random.default_rng(8)
    for name in ("fft", "ifft", "rfft", "irfft"):
        for args, keywords in one_axis(rng, name):
            yield Case(f"numpy.fft.{name}", args, keywords)
    yield Case("numpy.fft.rfft", (_signal(rng, (8,), np.complex128),))  # JAX refuses
    yield Case("numpy.fft.irfft", (_signal(rng, (8,), np.float64),))
    for name in ("fft2", "ifft2", "rfft2", "irfft2", "fftn", "ifftn", "rfftn", "irfftn"):
        for args, keywords in several_axes(rng, name):
            yield Case(f"numpy.fft.{name}", args, keywords)
    for name in ("fftfreq", "rfftfreq"):
        for n in (1, 2, 7, 8):
            yield Case(f"numpy.fft.{name}", (Static(n),))
        yield Case(f"numpy.fft.{name}", (Static(8),), {"d": 0.1})
        yield Case(f"numpy.fft.{name}", (Static(5), 0.5))  # d traced
        yield Case(f"numpy.fft.{name}", (Static(6), np.array(0.25)))
        yield Case(f"numpy.fft.{name}", (Static(6),), {"dtype": "float32"})
    for name in ("fftshift", "ifftshift"):
        for x in (
            rng.normal(size=6),
            rng.normal(size=7).astype(np.float32),
            np.arange(12, dtype=np.int32).reshape(3, 4),
            _signal(rng, (3, 5), np.complex128),
        ):
            yield Case(f"numpy.fft.{name}", (x,))
        cube = rng.normal(size=(2, 3, 5))
        for axes in (0, -1, (0, 2), (1,)):
            yield Case(f"numpy.fft.{name}", (cube,), {"axes": axes})
        yield Case(f"numpy.fft.{name}", (np.array(2.0),))
        yield Case(f"numpy.fft.{name}", (np.zeros((0, 3)),))


def cases() -> Iterator[Case]:
    yield from linalg_cases()
    yield from fft_cases()


# the shared names each program calls (test_coverage)
COVERS: dict[str, list[str]] = {
    "linalg.eigh_projectors": ["numpy.linalg.eigh"],
    "linalg.eig_scaled": ["numpy.linalg.eig"],
    "linalg.svd_terms": ["numpy.linalg.svd"],
    "linalg.svd_full_gram": ["numpy.linalg.svd"],
    "linalg.multi_dot_of_arguments": ["numpy.linalg.multi_dot"],
}
