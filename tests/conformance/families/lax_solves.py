"""`jax.lax.custom_linear_solve` and `jax.lax.custom_root`, as programs written once for both
libraries: dense solves, matrix-free solvers written with `lax.while_loop` (conjugate
gradients, a Richardson iteration), `transpose_solve` built from `vecmat`, `symmetric=True`,
`has_aux`, pytree right-hand sides, Newton's method as a root solver with scalar and vector
roots, and `tangent_solve` as a division, a jacobian of `g`, or a `custom_linear_solve` of `g`.

The replay differentiates each to second order; the solvers are never differentiated, so
while-loop solvers work in reverse mode. A solve without `transpose_solve` refuses reverse
mode (JAX's TypeError). Refusals: callbacks whose outputs have the wrong shape or structure."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from ..spec import Case, program


def _dense(root, a):
    return lambda mv, b: root.numpy.linalg.solve(a, b)


def _cg(root):
    """Conjugate gradients as a while_loop (the trip count ends on the residual)."""
    np_, lax = root.numpy, root.lax

    def solve(matvec, b):
        def cond(c):
            return (c[3] < 40) & (np_.sum(c[1] * c[1]) > 1e-26)

        def body(c):
            x, r, p, k = c
            ap = matvec(p)
            alpha = np_.sum(r * r) / np_.sum(p * ap)
            r_new = r - alpha * ap
            beta = np_.sum(r_new * r_new) / np_.sum(r * r)
            return x + alpha * p, r_new, r_new + beta * p, k + 1

        return lax.while_loop(cond, body, (np_.zeros_like(b), b, b, 0))[0]

    return solve


def _richardson(root):
    """x <- x + (b - A x) / 6, 120 times, as a while_loop (converges for MATRIX, MATRIX.T)."""
    lax = root.lax

    def solve(matvec, b):
        step = lambda c: (c[0] + (b - matvec(c[0])) / 6.0, c[1] + 1)  # noqa: E731
        return lax.while_loop(lambda c: c[1] < 120, step, (b * 0.0, 0))[0]

    return solve


@program("lax.custom_linear_solve[dense]")
def _dense_solve(root):
    def fn(a, b):
        ts = lambda vm, b: root.numpy.linalg.solve(a.T, b)  # noqa: E731
        return root.lax.custom_linear_solve(lambda x: a @ x, b, _dense(root, a), ts)

    return fn


@program("lax.custom_linear_solve[cg]")
def _cg_solve(root):
    """Symmetric: solve serves as transpose_solve. The matrix is symmetrised inside, so that
    symmetric=True holds along every perturbation the replay makes."""

    def fn(s, b):
        a = (s + s.T) / 2
        return root.lax.custom_linear_solve(lambda x: a @ x, b, _cg(root), symmetric=True)

    return fn


@program("lax.custom_linear_solve[vecmat_loop]")
def _vecmat_loop(root):
    """Non-symmetric, both solvers matrix-free while_loops: transpose_solve runs on vecmat."""

    def fn(a, b):
        solver = _richardson(root)
        return root.lax.custom_linear_solve(lambda x: a @ x, b, solver, solver)

    return fn


@program("lax.custom_linear_solve[vecmat_jacobian]")
def _vecmat_jacobian(root):
    """transpose_solve builds the transposed matrix as the jacobian of vecmat."""

    def fn(a, b):
        ts = lambda vm, b: root.numpy.linalg.solve(root.jacfwd(vm)(b), b)  # noqa: E731
        return root.lax.custom_linear_solve(lambda x: a @ x, b, _dense(root, a), ts)

    return fn


@program("lax.custom_linear_solve[scalar]")
def _scalar(root):
    def fn(a, b):
        div = lambda mv, b: b / mv(1.0)  # noqa: E731
        return root.lax.custom_linear_solve(lambda x: a * x, b, div, div)

    return fn


@program("lax.custom_linear_solve[forward_only]")
def _forward_only(root):
    """No transpose_solve: forward mode works, reverse mode is refused."""
    return lambda a, b: root.lax.custom_linear_solve(lambda x: a @ x, b, _dense(root, a))


@program("lax.custom_linear_solve[has_aux]")
def _has_aux(root):
    np_ = root.numpy

    def fn(a, b):
        def solve(mv, b):
            x = np_.linalg.solve(a, b)
            return x, {"residual": np_.sum((mv(x) - b) ** 2), "norm": np_.sum(b * b)}

        def ts(vm, b):
            return np_.linalg.solve(a.T, b), {"residual": np_.sum(b), "norm": np_.sum(b * b)}

        return root.lax.custom_linear_solve(lambda x: a @ x, b, solve, ts, has_aux=True)

    return fn


MAT3 = np.array([[2.0, 1.0, 0.0], [1.0, 3.0, 0.0], [1.0, 0.0, 3.0]])


@program("lax.custom_linear_solve[pytree]")
def _pytree(root):
    """b = (u, v), matvec (u, v) -> (2u + v[0], 3v + u): a 3 by 3 system, solved densely."""
    np_ = root.numpy

    def fn(u, v):
        mat = np_.asarray(MAT3, np_.asarray(u).dtype)

        def matvec(x):
            return 2.0 * x[0] + x[1][0], 3.0 * x[1] + x[0]

        def solve(mv, b, m=mat):
            s = np_.linalg.solve(m, np_.concatenate([b[0][None], b[1]]))
            return s[0], s[1:]

        return root.lax.custom_linear_solve(
            matvec, (u, v), solve, lambda vm, b: solve(vm, b, mat.T)
        )

    return fn


@program("lax.custom_linear_solve[bad_matvec_shape]")
def _bad_matvec(root):
    return lambda a, b: root.lax.custom_linear_solve(lambda x: x[:2], b, _dense(root, a))


@program("lax.custom_linear_solve[bad_solve_tree]")
def _bad_solve(root):
    return lambda a, b: root.lax.custom_linear_solve(lambda x: a @ x, b, lambda mv, b: (b, b))


@program("lax.custom_linear_solve[aux_not_pair]")
def _aux_not_pair(root):
    return lambda a, b: root.lax.custom_linear_solve(
        lambda x: a @ x, b, _dense(root, a), has_aux=True
    )


def _newton(root, steps=20):
    def solve(f, x0):
        step = lambda i, x: x - f(x) / root.grad(f)(x)  # noqa: E731
        return root.lax.fori_loop(0, steps, step, x0)

    return solve


@program("lax.custom_root[sqrt]")
def _sqrt(root):
    np_ = root.numpy
    div = lambda g, y: y / g(1.0)  # noqa: E731
    return lambda a: root.lax.custom_root(lambda x: x**2 - a, np_.ones_like(a), _newton(root), div)


@program("lax.custom_root[cbrt_while_aux]")
def _cbrt_while(root):
    """Newton in a while_loop, returning the last residual as aux."""
    np_, lax = root.numpy, root.lax

    def solve(f, x0):
        def body(c):
            x = c[0] - f(c[0]) / (3.0 * c[0] ** 2)
            return x, c[1] + 1

        x, _ = lax.while_loop(lambda c: c[1] < 40, body, (x0, 0))
        return x, f(x)

    return lambda a: lax.custom_root(
        lambda x: x**3 - a, np_.ones_like(a), solve, lambda g, y: y / g(1.0), has_aux=True
    )


def _vector_f(root, p):
    np_ = root.numpy
    return lambda x: x**3 + p * x - 1.0 + 0.1 * np_.roll(x, 1)


def _vector_newton(root):
    np_ = root.numpy

    def solve(f, x0):
        step = lambda i, x: x - np_.linalg.solve(root.jacfwd(f)(x), f(x))  # noqa: E731
        return root.lax.fori_loop(0, 25, step, x0)

    return solve


@program("lax.custom_root[vector_jacobian]")
def _vector_jacobian(root):
    np_ = root.numpy
    tangent = lambda g, y: np_.linalg.solve(root.jacobian(g)(y), y)  # noqa: E731
    return lambda p: root.lax.custom_root(
        _vector_f(root, p), np_.ones_like(p), _vector_newton(root), tangent
    )


@program("lax.custom_root[vector_linear_solve]")
def _vector_linear_solve(root):
    """tangent_solve as a custom_linear_solve of g, whose solvers are jacobians of g and of
    its transpose."""
    np_ = root.numpy

    def tangent(g, y):
        by_jacobian = lambda m, b: np_.linalg.solve(root.jacfwd(m)(b), b)  # noqa: E731
        return root.lax.custom_linear_solve(g, y, by_jacobian, by_jacobian)

    return lambda p: root.lax.custom_root(
        _vector_f(root, p), np_.ones_like(p), _vector_newton(root), tangent
    )


@program("lax.custom_root[bad_f_tree]")
def _bad_f(root):
    return lambda a: root.lax.custom_root(
        lambda x: (x, x), a, lambda f, x: x, lambda g, y: y / g(1.0)
    )


# --- cases -------------------------------------------------------------------------------------


def cases() -> Iterator[Case]:
    rng = np.random.default_rng(31)
    matrix = rng.normal(size=(3, 3)) * 0.3 + 3.0 * np.eye(3)  # Richardson converges
    spd = matrix @ matrix.T
    b, b2 = rng.normal(size=3), rng.normal(size=(3, 2))
    f32 = lambda *a: tuple(np.asarray(v, np.float32) for v in a)  # noqa: E731
    for name in ("dense", "vecmat_loop", "vecmat_jacobian", "forward_only", "has_aux"):
        yield Case(f"lax.custom_linear_solve[{name}]", (matrix, b))
        yield Case(f"lax.custom_linear_solve[{name}]", f32(matrix, b))
    yield Case("lax.custom_linear_solve[dense]", (matrix, b2))
    yield Case("lax.custom_linear_solve[dense]", (matrix, b.astype(np.float32)))
    yield Case("lax.custom_linear_solve[vecmat_loop]", (matrix, b2))
    yield Case("lax.custom_linear_solve[cg]", (spd, b))
    yield Case("lax.custom_linear_solve[cg]", (spd, b2[:, 0].copy()))
    yield Case("lax.custom_linear_solve[cg]", f32(spd, b))
    for a, rhs in ((np.array(2.0), np.array(3.0)), (np.array(2.0), b), f32(2.0, 3.0)):
        yield Case("lax.custom_linear_solve[scalar]", (a, rhs))
    yield Case("lax.custom_linear_solve[scalar]", (2.0, np.array(3.0)))
    yield Case("lax.custom_linear_solve[pytree]", (np.array(1.0), np.array([2.0, 3.0])))
    yield Case("lax.custom_linear_solve[pytree]", f32(1.0, [2.0, 3.0]))
    for name in ("bad_matvec_shape", "bad_solve_tree", "aux_not_pair"):
        yield Case(f"lax.custom_linear_solve[{name}]", (matrix, b))
    for a in (np.array(2.0), np.array([0.5, 2.0, 9.0]), np.array(3.0, np.float32)):
        yield Case("lax.custom_root[sqrt]", (a,))
        yield Case("lax.custom_root[cbrt_while_aux]", (a,))
    yield Case("lax.custom_root[sqrt]", (np.array([[1.5, 4.0], [0.25, 7.0]]),))
    yield Case("lax.custom_root[cbrt_while_aux]", (2.0,))  # (sqrt's grad: tf8 drops weak types)
    yield Case("lax.custom_root[cbrt_while_aux]", (np.array([1.0, 8.0, 0.5]),))
    yield Case("lax.custom_linear_solve[scalar]", (2.0, 3.0))
    # (a Python float u: JAX's JVP passes its symbolic zero tangent to bind and fails)
    yield Case("lax.custom_linear_solve[cg]", (spd, b2))
    yield Case("lax.custom_linear_solve[vecmat_jacobian]", (matrix, b2[:, 1].copy()))
    p = np.array([1.0, 2.0, 3.0])
    for name in ("vector_jacobian", "vector_linear_solve"):
        yield Case(f"lax.custom_root[{name}]", (p,))
        yield Case(f"lax.custom_root[{name}]", (p.astype(np.float32),))
    yield Case("lax.custom_root[bad_f_tree]", (np.array(1.0),))
