"""Linear-algebra workloads: gradients through decompositions and einsum, and output pruning.

Gradients (200 × 200 float64), tf8.jit(tf8.grad(f)) against the gradient written by hand in
numpy (and jax.jit(jax.grad(f)) / autograd.grad(f) when they import):
  - nuclear norm, sum(svdvals(A)): U Vᴴ from the reduced SVD;
  - log|det A| (slogdet's second output): A⁻ᵀ;
  - the 3-operand einsum "ij,jk,kl->" in each operand: outer products of row/column sums.
Pruning (300 × 300): the forward of sum(svd(A).S); tf8 compiles it to `svdvals`. The
"tf8.jit unpruned" variant traces an SVD op that refuses to prune, so its kernel computes U
and Vh too; the ratio of the two tf8 rows is the saving pruning buys.
All rows are BLAS/LAPACK-bound and run with one BLAS thread.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from benchmarks.harness import BASELINE, Options, Variants, Workload, optional_module

SUBSCRIPTS = "ij,jk,kl->"


def _matrices(options: Options, size: int, count: int = 1) -> list[np.ndarray]:
    n = 12 if options.tiny else size
    rng = np.random.default_rng(0)
    return [rng.standard_normal((n, n)) / np.sqrt(n) + np.eye(n) for _ in range(count)]


def _gradient_variants(
    f: Callable[..., Any],
    by_hand: Callable[..., Any],
    args: list[np.ndarray],
    with_autograd: bool = True,
) -> Variants:
    """numpy by hand, tf8.jit(tf8.grad(f)), and jax/autograd's grad when they import.

    `f(xp, *args)` is written once against a numpy-like module; the gradient is taken in
    every argument (a tuple when there are several)."""
    import tf8
    import tf8.numpy as tnp

    argnums = tuple(range(len(args))) if len(args) > 1 else 0
    variants: Variants = {BASELINE: lambda: by_hand(*args)}
    tf8_grad = tf8.jit(tf8.grad(lambda *xs: f(tnp, *xs), argnums=argnums))
    variants["tf8.jit"] = lambda: tf8_grad(*args)
    jax = optional_module("jax")
    if jax is not None:
        jax.config.update("jax_enable_x64", True)
        jnp = optional_module("jax.numpy")
        jax_grad = jax.jit(jax.grad(lambda *xs: f(jnp, *xs), argnums=argnums))
        jax_args = [jnp.asarray(a) for a in args]
        variants["jax.jit"] = lambda: jax.block_until_ready(jax_grad(*jax_args))
    autograd = optional_module("autograd") if with_autograd else None
    if autograd is not None:
        anp = optional_module("autograd.numpy")
        autograd_grad = autograd.grad(lambda *xs: f(anp, *xs), argnums)
        variants["autograd"] = lambda: autograd_grad(*args)
    return variants


def _svdvals(xp: Any, a: Any) -> Any:
    if xp.__name__.startswith("tf8"):
        from tf8 import linalg

        return linalg.svdvals(a)
    return xp.linalg.svd(a, full_matrices=False)[1]  # autograd has no compute_uv=False rule


def nuclear_norm(xp: Any, a: Any) -> Any:
    return xp.sum(_svdvals(xp, a))


def nuclear_norm_gradient(a: np.ndarray) -> np.ndarray:
    u, _, vh = np.linalg.svd(a, full_matrices=False)
    return u @ vh


def logabsdet(xp: Any, a: Any) -> Any:
    if xp.__name__.startswith("tf8"):
        from tf8 import linalg

        return linalg.slogdet(a)[1]
    return xp.linalg.slogdet(a)[1]


def logabsdet_gradient(a: np.ndarray) -> np.ndarray:
    return np.linalg.inv(a).T


def chain3(xp: Any, a: Any, b: Any, c: Any) -> Any:
    return xp.einsum(SUBSCRIPTS, a, b, c)


def chain3_gradient(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> tuple[np.ndarray, ...]:
    """∂/∂A_ij = (B c)_j, ∂/∂B_jk = a_j c_k, ∂/∂C_kl = (aᵀB)_k, with a, c the column sums of
    A and row sums of C."""
    ones = np.ones(a.shape[0])
    col_sums, row_sums = a.sum(axis=0), c.sum(axis=1)
    return (
        np.outer(ones, b @ row_sums),
        np.outer(col_sums, row_sums),
        np.outer(col_sums @ b, ones),
    )


def grad_nuclear(options: Options) -> Variants:
    return _gradient_variants(nuclear_norm, nuclear_norm_gradient, _matrices(options, 200))


def grad_logdet(options: Options) -> Variants:
    return _gradient_variants(logabsdet, logabsdet_gradient, _matrices(options, 200))


def grad_einsum3(options: Options) -> Variants:
    # autograd's einsum VJP drops `optimize` and contracts all four letters in one loop nest,
    # O(n⁴): about 10 s per call at n = 200, so it is left out here.
    matrices = _matrices(options, 200, count=3)
    return _gradient_variants(chain3, chain3_gradient, matrices, with_autograd=False)


def prune_svd(options: Options) -> Variants:
    import tf8
    import tf8.numpy as tnp
    from tf8.lax.core import apply
    from tf8.ops.extension.kernels import FAMILY_KERNELS
    from tf8.ops.extension.linalg import Svd

    class UnprunedSvd(Svd):
        """The reduced SVD, but never pruned: U and Vh are computed even when unused."""

        name = "svd_unpruned"

        def prune_outputs(self, live: tuple[bool, ...]) -> None:
            return None

        def kernel(self, op: Svd, a: np.ndarray) -> tuple:
            return FAMILY_KERNELS[Svd](op, a)  # kernels are keyed by exact class

    (a,) = _matrices(options, 300)
    pruned = tf8.jit(lambda x: tnp.sum(tf8.linalg.svd(x)[1]))
    unpruned = tf8.jit(lambda x: tnp.sum(apply(UnprunedSvd(), [x])[1]))
    return {
        BASELINE: lambda: np.sum(np.linalg.svd(a, compute_uv=False)),
        "numpy full svd": lambda: np.sum(np.linalg.svd(a)[1]),
        "tf8.jit": lambda: pruned(a),
        "tf8.jit unpruned": lambda: unpruned(a),
    }


WORKLOADS = [
    Workload(
        "grad_nuclear",
        "grad of sum(svdvals(A)), 200 × 200 (by hand: U Vh)",
        grad_nuclear,
        blas_bound=True,
        rtol=1e-8,
        atol=1e-10,
    ),
    Workload(
        "grad_logdet",
        "grad of slogdet(A)[1], 200 × 200 (by hand: inv(A).T)",
        grad_logdet,
        blas_bound=True,
        rtol=1e-8,
        atol=1e-10,
    ),
    Workload(
        "grad_einsum3",
        f"grad of einsum('{SUBSCRIPTS}', A, B, C) in A, B, C; 200 × 200 (by hand: outer products)",
        grad_einsum3,
        blas_bound=True,
        rtol=1e-9,
        atol=1e-10,
    ),
    Workload(
        "prune_svd",
        "forward of sum(svd(A).S), 300 × 300: pruned to svdvals vs unpruned",
        prune_svd,
        blas_bound=True,
        rtol=1e-9,
    ),
]
