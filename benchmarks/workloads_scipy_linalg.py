"""scipy.linalg workloads: solves on LU and Cholesky factors, and their gradients.

200 × 200 float64 factors (12 × 12 with --tiny), a right-hand side b of one column (a vector)
or ten. Each row is tf8.jit against jax.jit (when JAX imports) and scipy.linalg's own call
(the baseline; the gradients are written by hand in scipy):
  - `lu_solve`, `cho_solve`: the forward solve;
  - `grad_lu_solve`, `grad_cho_solve`: grad of sum(x²), x = lu_solve((lu, piv), b) or
    cho_solve((c, False), b), in the factor and in b. By hand: b̄ = op(A)⁻ᵀ x̄ with x̄ = 2x,
    and the factor's cotangent from the two half solves, −(tril(w yᵀ, −1) + triu(q xᵀ)) for
    LU (q = U⁻ᵀ x̄, w = L⁻ᵀ q, y = U x) and −triu(q xᵀ + y rᵀ) for Cholesky (r = U⁻¹ q).
BLAS-bound: one BLAS thread. For a single-threaded JAX row, run with
XLA_FLAGS="--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1".
"""

from __future__ import annotations

from typing import Any

import numpy as np

from benchmarks.harness import BASELINE, Options, Variants, Workload, optional_module


def _problem(options: Options, columns: int | None) -> dict[str, np.ndarray]:
    n = 12 if options.tiny else 200
    rng = np.random.default_rng(0)
    a = rng.standard_normal((n, n)) + np.sqrt(n) * np.eye(n)
    b = rng.standard_normal(n if columns is None else (n, columns))
    import scipy.linalg

    lu, piv = scipy.linalg.lu_factor(a)
    c = scipy.linalg.cholesky(a @ a.T)  # upper, with a zero lower triangle (as JAX's)
    return {"lu": lu, "piv": piv.astype(np.int32), "c": c, "b": b}


def _lu_solve(linalg: Any, lu: Any, piv: Any, b: Any) -> Any:
    return linalg.lu_solve((lu, piv), b)


def _cho_solve(linalg: Any, c: Any, b: Any) -> Any:
    return linalg.cho_solve((c, False), b)


def _variants(problem: dict, keys: tuple[str, ...], f: Any, by_hand: Any, grad: bool) -> Variants:
    """scipy (by hand for gradients), tf8.jit and jax.jit of `f(linalg, *args)` or of the
    gradient of sum(f²) in the first and last arguments."""
    import tf8
    import tf8.numpy as tnp
    from tf8.scipy import linalg as tf8_linalg

    args = [problem[k] for k in keys]
    wrt = (0, len(args) - 1)
    variants: Variants = {BASELINE: lambda: by_hand(*args)}
    if grad:
        tf8_f = tf8.jit(tf8.grad(lambda *xs: tnp.sum(f(tf8_linalg, *xs) ** 2), argnums=wrt))
    else:
        tf8_f = tf8.jit(lambda *xs: f(tf8_linalg, *xs))
    variants["tf8.jit"] = lambda: tf8_f(*args)
    jax = optional_module("jax")
    if jax is not None:
        jax.config.update("jax_enable_x64", True)
        jnp = optional_module("jax.numpy")
        jax_linalg = optional_module("jax.scipy.linalg")
        if grad:
            jax_f = jax.jit(jax.grad(lambda *xs: jnp.sum(f(jax_linalg, *xs) ** 2), argnums=wrt))
        else:
            jax_f = jax.jit(lambda *xs: f(jax_linalg, *xs))
        jax_args = [jnp.asarray(a) for a in args]
        variants["jax.jit"] = lambda: jax.block_until_ready(jax_f(*jax_args))
    return variants


def _scipy():
    import scipy.linalg

    return scipy.linalg


def _lu_by_hand(lu: np.ndarray, piv: np.ndarray, b: np.ndarray) -> Any:
    return _scipy().lu_solve((lu, piv), b, check_finite=False)


def _cho_by_hand(c: np.ndarray, b: np.ndarray) -> Any:
    return _scipy().cho_solve((c, False), b, check_finite=False)


def _column(v: np.ndarray) -> np.ndarray:
    return v[:, None] if v.ndim == 1 else v


def _grad_lu_by_hand(lu: np.ndarray, piv: np.ndarray, b: np.ndarray) -> tuple:
    sl = _scipy()
    x = sl.lu_solve((lu, piv), b, check_finite=False)
    y = np.triu(lu) @ x  # L⁻¹ P b
    q = sl.solve_triangular(lu, 2 * x, trans=1, check_finite=False)
    w = sl.solve_triangular(lu, q, trans=1, lower=True, unit_diagonal=True, check_finite=False)
    w2, y2, q2, x2 = map(_column, (w, y, q, x))
    grad_lu = -(np.tril(w2 @ y2.T, -1) + np.triu(q2 @ x2.T))
    grad_b = np.empty_like(w)
    perm = np.arange(len(piv))
    for i, p in enumerate(piv):
        perm[i], perm[p] = perm[p], perm[i]
    grad_b[perm] = w
    return grad_lu, grad_b


def _grad_cho_by_hand(c: np.ndarray, b: np.ndarray) -> tuple:
    sl = _scipy()
    x = sl.cho_solve((c, False), b, check_finite=False)
    y = c @ x
    q = sl.solve_triangular(c, 2 * x, trans=1, check_finite=False)
    r = sl.solve_triangular(c, q, check_finite=False)
    q2, x2, y2, r2 = map(_column, (q, x, y, r))
    return -np.triu(q2 @ x2.T + y2 @ r2.T), r


def _builder(name: str, grad: bool, columns: int | None):
    def build(options: Options) -> Variants:
        problem = _problem(options, columns)
        if name == "lu":
            by_hand = _grad_lu_by_hand if grad else _lu_by_hand
            return _variants(problem, ("lu", "piv", "b"), _lu_solve, by_hand, grad)
        by_hand = _grad_cho_by_hand if grad else _cho_by_hand
        return _variants(problem, ("c", "b"), _cho_solve, by_hand, grad)

    return build


def _workloads() -> list[Workload]:
    rows = []
    for name in ("lu", "cho"):
        for grad in (False, True):
            for columns, label in ((None, "b a vector"), (10, "b 10 columns")):
                suffix = "" if columns is None else f"_k{columns}"
                what = f"{'grad of sum(x²), ' if grad else ''}x = {name}_solve, 200 × 200; {label}"
                rows.append(
                    Workload(
                        f"{'grad_' if grad else ''}{name}_solve{suffix}",
                        what + (" (in the factor and b)" if grad else ""),
                        _builder(name, grad, columns),
                        blas_bound=True,
                        rtol=1e-8,
                        atol=1e-10,
                    )
                )
    return rows


WORKLOADS = _workloads()
