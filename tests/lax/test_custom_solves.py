"""lax.custom_linear_solve and lax.custom_root: values against numpy, derivatives against
differentiating the dense solve directly, closed forms and finite differences (to second
order), vmap against Python loops, jit against eager, and the solvers never differentiated."""

import numpy as np
import pytest

import tf8
import tf8.lax as lax
import tf8.numpy as tnp
from tf8.errors import (
    ControlFlowTypeError,
    DifferentiationError,
    DTypeError,
    ShapeError,
    TreeStructureError,
)
from tf8.graph import materialize_merge
from tf8.ops.extension.control import ClosedProgram, Scan, While

RNG = np.random.default_rng(7)
_M = RNG.normal(size=(4, 4))
SPD = _M @ _M.T + 4.0 * np.eye(4)  # symmetric positive definite: CG converges
NONSYM = _M + 5.0 * np.eye(4)
B = RNG.normal(size=4)
BS = RNG.normal(size=(3, 4))


def dense(a):
    return lambda mv, b: tnp.linalg.solve(a, b)


def cg(matvec, b):
    """Conjugate gradients, matrix-free, as a lax.while_loop (not reverse-differentiable)."""

    def cond(c):
        return (c[3] < 50) & (tnp.vdot(c[1], c[1]) > 1e-30)

    def body(c):
        x, r, p, k = c
        ap = matvec(p)
        alpha = tnp.vdot(r, r) / tnp.vdot(p, ap)
        r_new = r - alpha * ap
        beta = tnp.vdot(r_new, r_new) / tnp.vdot(r, r)
        return x + alpha * p, r_new, r_new + beta * p, k + 1

    return lax.while_loop(cond, body, (tnp.zeros_like(b), b, b, 0))[0]


def richardson(matvec, b):
    """x <- x + w (b - A x): converges for NONSYM and its transpose; a while_loop."""
    step = lambda c: (c[0] + 0.1 * (b - matvec(c[0])), c[1] + 1)  # noqa: E731
    return lax.while_loop(lambda c: c[1] < 600, step, (tnp.zeros_like(b), 0))[0]


def solve_sym(a, b):
    return lax.custom_linear_solve(lambda x: a @ x, b, cg, symmetric=True)


def solve_nonsym(a, b):
    return lax.custom_linear_solve(lambda x: a @ x, b, richardson, richardson)


def solve_dense(a, b):
    return lax.custom_linear_solve(lambda x: a @ x, b, dense(a), lambda vm, b: dense(a.T)(vm, b))


def loss(solver):
    return lambda a, b: tnp.sum(solver(a, b) ** 3) + tnp.sum(solver(a, b) * b)


def direct(a, b):  # differentiated through tnp.linalg.solve itself
    return loss(lambda a, b: tnp.linalg.solve(a, b))(a, b)


@pytest.mark.parametrize(
    "solver, a", [(solve_dense, NONSYM), (solve_sym, SPD), (solve_nonsym, NONSYM)]
)
def test_values_match_numpy_eager_and_under_jit(solver, a):
    expected = np.linalg.solve(a, B)
    np.testing.assert_allclose(solver(a, B), expected, rtol=1e-10)
    np.testing.assert_allclose(tf8.jit(solver)(a, B), expected, rtol=1e-10)


@pytest.mark.parametrize(
    "solver, a", [(solve_dense, NONSYM), (solve_sym, SPD), (solve_nonsym, NONSYM)]
)
def test_grad_wrt_b_and_the_closed_over_matrix_matches_the_dense_solve(solver, a):
    expected = tf8.grad(direct, argnums=(0, 1))(a, B)
    for fun in (tf8.grad(loss(solver), (0, 1)), tf8.jit(tf8.grad(loss(solver), (0, 1)))):
        got = fun(a, B)
        for g, e in zip(got, expected):
            np.testing.assert_allclose(g, e, rtol=1e-8, atol=1e-12)
    # a value the test computes itself: d/db sum(x) = A^{-T} 1
    got_b = tf8.grad(lambda b: tnp.sum(solver(a, b)))(B)
    np.testing.assert_allclose(got_b, np.linalg.solve(a.T, np.ones(4)), rtol=1e-8)


@pytest.mark.parametrize(
    "solver, a", [(solve_dense, NONSYM), (solve_sym, SPD), (solve_nonsym, NONSYM)]
)
def test_jvp_matches_the_dense_solve(solver, a):
    ta, tb = RNG.normal(size=(4, 4)), RNG.normal(size=4)
    x, t = tf8.jvp(solver, (a, B), (ta, tb))
    x_ref = np.linalg.solve(a, B)
    np.testing.assert_allclose(x, x_ref, rtol=1e-10)
    np.testing.assert_allclose(t, np.linalg.solve(a, tb - ta @ x_ref), rtol=1e-8)


def test_second_order_matches_the_dense_solve_and_finite_differences():
    for solver, a in ((solve_dense, NONSYM), (solve_nonsym, NONSYM)):
        for argnum in (0, 1):
            got = tf8.hessian(loss(solver), argnum)(a, B)
            np.testing.assert_allclose(got, tf8.hessian(direct, argnum)(a, B), atol=1e-9)
    got = tf8.hessian(loss(solve_sym), 1)(SPD, B)
    np.testing.assert_allclose(got, tf8.hessian(direct, 1)(SPD, B), atol=1e-9)
    # symmetric=True promises vecmat == matvec: true along symmetric perturbations only
    sym = lambda f: lambda s: f((s + s.T) / 2, B)  # noqa: E731
    np.testing.assert_allclose(
        tf8.hessian(sym(loss(solve_sym)))(SPD), tf8.hessian(sym(direct))(SPD), atol=1e-9
    )
    tf8.check_grads(lambda b: loss(solve_dense)(NONSYM, b), [B], order=2)
    tf8.check_grads(sym(loss(solve_sym)), [SPD], order=2, modes=("rev",))
    tf8.check_grads(lambda a: loss(solve_nonsym)(a, B), [NONSYM], order=1)


def test_symmetric_needs_no_transpose_solve_and_reverse_mode_refuses_without_one():
    got = tf8.grad(lambda b: tnp.sum(solve_sym(SPD, b) ** 2))(B)
    x = np.linalg.solve(SPD, B)
    np.testing.assert_allclose(got, np.linalg.solve(SPD, 2 * x), rtol=1e-8)
    forward_only = lambda b: lax.custom_linear_solve(lambda x: NONSYM @ x, b, dense(NONSYM))  # noqa: E731
    t = tf8.jvp(forward_only, (B,), (B,))[1]  # forward mode needs no transpose
    np.testing.assert_allclose(t, np.linalg.solve(NONSYM, B), rtol=1e-10)
    with pytest.raises(DifferentiationError, match="transpose_solve required"):
        tf8.grad(lambda b: tnp.sum(forward_only(b)))(B)


def test_transpose_solve_receives_vecmat_the_transposed_matvec():
    """transpose_solve builds its matrix from vecmat (a jacobian of it): A^T, not A."""
    seen = []

    def transpose_solve(vecmat, b):
        m = tf8.jacfwd(vecmat)(b)
        seen.append(m.shape)
        return tnp.linalg.solve(m, b)

    fun = lambda b: lax.custom_linear_solve(lambda x: NONSYM @ x, b, dense(NONSYM), transpose_solve)  # noqa: E731
    got = tf8.grad(lambda b: tnp.sum(fun(b) * np.arange(4.0)))(B)
    np.testing.assert_allclose(got, np.linalg.solve(NONSYM.T, np.arange(4.0)), rtol=1e-10)
    assert seen == [(4, 4)]  # traced once, when custom_linear_solve was called


def test_vecmat_of_a_constant_stays_in_the_transposed_solve():
    """`b / vecmat(1.0)` does not depend on b: it must not be hoisted out as a constant."""
    div = lambda mv, b: b / mv(1.0)  # noqa: E731
    fun = lambda a, b: lax.custom_linear_solve(lambda x: a * x, b, div, div)  # noqa: E731
    a, b = np.array(2.0), np.array(3.0)
    assert float(fun(a, b)) == 1.5
    assert float(tf8.jit(fun)(a, b)) == 1.5
    np.testing.assert_allclose(tf8.grad(fun, (0, 1))(a, b), (-0.75, 0.5), rtol=1e-15)
    got = tf8.vmap(tf8.grad(fun), in_axes=(0, None))(np.array([2.0, 4.0]), b)
    np.testing.assert_allclose(got, [-0.75, -0.1875], rtol=1e-15)


def test_derived_maps_refuse_arguments_of_another_dtype():
    a32 = np.float32(2.0)
    div = lambda mv, b: b / mv(1.0)  # noqa: E731  (1.0 is float64: JAX refuses it too)
    with pytest.raises(DTypeError, match="vecmat"):
        lax.custom_linear_solve(lambda x: a32 * x, a32, div, div)
    with pytest.raises(DTypeError, match="tangent_solve"):
        lax.custom_root(lambda x: x**2 - a32, a32, lambda f, x: x, lambda g, y: y / g(1.0))
    one = np.float32(1.0)
    assert float(lax.custom_linear_solve(lambda x: a32 * x, a32, div, lambda v, b: b / v(one))) == 1


def test_vecmat_inside_scan_cond_and_checkpoint_bodies():
    """The transposed solve is rebuilt with vecmat replaced inside every body kind."""

    def transpose_solve(vecmat, b):
        step = lambda i, x: x + 0.1 * (b - tf8.checkpoint(vecmat)(x))  # noqa: E731
        iterate = lambda b: lax.fori_loop(0, 600, step, tnp.zeros_like(b))  # noqa: E731  (a scan)
        return lax.cond(tnp.sum(b) > -1e300, iterate, lambda b: b * 0.0, b)

    fun = lambda a, b: lax.custom_linear_solve(lambda x: a @ x, b, dense(a), transpose_solve)  # noqa: E731
    got = tf8.grad(lambda a, b: tnp.sum(fun(a, b) ** 2), (0, 1))(NONSYM, B)
    expected = tf8.grad(lambda a, b: tnp.sum(tnp.linalg.solve(a, b) ** 2), (0, 1))(NONSYM, B)
    for g, e in zip(got, expected):
        np.testing.assert_allclose(g, e, rtol=1e-9, atol=1e-12)


def test_vmap_over_b_and_the_matrix_matches_a_loop():
    for solver, a in ((solve_dense, NONSYM), (solve_sym, SPD), (solve_nonsym, NONSYM)):
        got = tf8.vmap(solver, in_axes=(None, 0))(a, BS)
        np.testing.assert_allclose(got, np.linalg.solve(a, BS.T).T, rtol=1e-9)
        mats = np.stack([a, a + np.eye(4), 1.5 * a])
        got = tf8.vmap(solver)(mats, BS)
        np.testing.assert_allclose(
            got, [np.linalg.solve(m, b) for m, b in zip(mats, BS)], rtol=1e-9
        )
        batched = tf8.jit(tf8.vmap(tf8.grad(loss(solver), (0, 1))))(mats, BS)
        for k, (m, b) in enumerate(zip(mats, BS)):
            ref = tf8.grad(direct, (0, 1))(m, b)
            np.testing.assert_allclose(batched[0][k], ref[0], rtol=1e-7, atol=1e-10)
            np.testing.assert_allclose(batched[1][k], ref[1], rtol=1e-7, atol=1e-10)
        # grad of a vmapped solve (the batched op is transposed)
        total = lambda mats, solver=solver: tnp.sum(tf8.vmap(solver)(mats, BS) ** 2)  # noqa: E731
        got = tf8.grad(total)(mats)
        for k, b in enumerate(BS):
            one = tf8.grad(lambda m, b=b: tnp.sum(tnp.linalg.solve(m, b) ** 2))(mats[k])
            np.testing.assert_allclose(got[k], one, rtol=1e-7, atol=1e-10)


def test_has_aux_returns_the_solvers_aux_and_it_carries_no_derivative():
    def solve(mv, b):
        return tnp.linalg.solve(SPD, b), {"iterations": tnp.array(3), "norm": tnp.sum(b * b)}

    x, aux = lax.custom_linear_solve(lambda x: SPD @ x, B, solve, symmetric=True, has_aux=True)
    np.testing.assert_allclose(x, np.linalg.solve(SPD, B), rtol=1e-12)
    assert int(aux["iterations"]) == 3 and np.isclose(aux["norm"], B @ B)
    grad = tf8.grad(
        lambda b: tnp.sum(
            lax.custom_linear_solve(lambda x: SPD @ x, b, solve, symmetric=True, has_aux=True)[0]
        )
    )(B)
    np.testing.assert_allclose(grad, np.linalg.solve(SPD, np.ones(4)), rtol=1e-10)
    xs, auxs = tf8.vmap(
        lambda b: lax.custom_linear_solve(lambda x: SPD @ x, b, solve, symmetric=True, has_aux=True)
    )(BS)
    np.testing.assert_allclose(auxs["norm"], (BS * BS).sum(1), rtol=1e-12)
    np.testing.assert_allclose(xs, np.linalg.solve(SPD, BS.T).T, rtol=1e-10)


def test_pytree_right_hand_side():
    mat = np.array([[2.0, 1.0, 0.0], [1.0, 3.0, 0.0], [1.0, 0.0, 3.0]])

    def matvec(x):
        return {"a": 2.0 * x["a"] + x["b"][0], "b": 3.0 * x["b"] + x["a"]}

    def solve(mv, b):
        s = tnp.linalg.solve(mat, tnp.concatenate([b["a"][None], b["b"]]))
        return {"a": s[0], "b": s[1:]}

    b = {"a": np.array(1.0), "b": np.array([2.0, 3.0])}
    x = lax.custom_linear_solve(matvec, b, solve)
    ref = np.linalg.solve(mat, [1.0, 2.0, 3.0])
    np.testing.assert_allclose([x["a"], *x["b"]], ref, rtol=1e-12)
    _, t = tf8.jvp(lambda b: lax.custom_linear_solve(matvec, b, solve), (b,), (b,))
    np.testing.assert_allclose([t["a"], *t["b"]], ref, rtol=1e-12)


def test_bad_callbacks_raise_tf8_errors_naming_the_argument():
    mv = lambda x: SPD @ x  # noqa: E731
    with pytest.raises(ControlFlowTypeError, match="matvec must be callable"):
        lax.custom_linear_solve(SPD, B, dense(SPD))
    with pytest.raises(ShapeError, match=r"matvec\(\) output shapes must match b"):
        lax.custom_linear_solve(lambda x: x[:2], B, dense(SPD))
    with pytest.raises(ControlFlowTypeError, match=r"solve\(\) output pytree structure"):
        lax.custom_linear_solve(mv, B, lambda m, b: (b, b))
    with pytest.raises(TreeStructureError, match="has_aux was set to True"):
        lax.custom_linear_solve(mv, B, dense(SPD), has_aux=True)
    with pytest.raises(ShapeError, match="vecmat"):
        tf8.grad(
            lambda b: tnp.sum(lax.custom_linear_solve(mv, b, dense(SPD), lambda vm, b: vm(b[:2])))
        )(B)  # noqa: E501
    with pytest.raises(ControlFlowTypeError, match="tangent_solve must be callable"):
        lax.custom_root(lambda x: x - 1.0, 0.0, lambda f, x: x, None)


# --- custom_root --------------------------------------------------------------------------------


def newton(f, x0):
    step = lambda i, x: x - f(x) / tf8.grad(f)(x)  # noqa: E731
    return lax.fori_loop(0, 30, step, x0)


def newton_while(f, x0):
    def cond(c):
        return (c[1] < 50) & (tnp.abs(f(c[0])) > 1e-15)

    return lax.while_loop(cond, lambda c: (c[0] - f(c[0]) / tf8.grad(f)(c[0]), c[1] + 1), (x0, 0))


def sqrt(a, solver=newton):
    return lax.custom_root(lambda x: x**2 - a, tnp.ones_like(a), solver, lambda g, y: y / g(1.0))


def test_custom_root_sqrt_value_gradients_and_second_order():
    a = np.array(2.0)
    assert np.isclose(sqrt(a), np.sqrt(2.0), rtol=1e-14)
    assert np.isclose(tf8.grad(sqrt)(a), 0.5 / np.sqrt(2.0), rtol=1e-12)
    assert np.isclose(tf8.jit(tf8.grad(sqrt))(a), 0.5 / np.sqrt(2.0), rtol=1e-12)
    assert np.isclose(tf8.grad(tf8.grad(sqrt))(a), -0.25 * 2.0**-1.5, rtol=1e-10)
    _, t = tf8.jvp(sqrt, (np.array(4.0),), (np.array(1.0),))
    assert np.isclose(t, 0.25, rtol=1e-12)
    tf8.check_grads(sqrt, [np.array(3.0)], order=2)
    # a while_loop solver: still differentiable in reverse mode (never differentiated)
    assert np.isclose(
        tf8.grad(lambda a: sqrt(a, lambda f, x: newton_while(f, x)[0]))(a), 0.5 / np.sqrt(2)
    )


def test_custom_root_has_aux_vmap_and_jit():
    a = np.array([1.0, 2.0, 9.0])
    with_aux = lambda a: lax.custom_root(  # noqa: E731
        lambda x: x**2 - a, 1.0 + 0.0 * a, newton_while, lambda g, y: y / g(1.0), has_aux=True
    )
    roots, counts = tf8.vmap(with_aux)(a)
    np.testing.assert_allclose(roots, np.sqrt(a), rtol=1e-14)
    assert counts.dtype.kind == "i" and counts[0] == 0 and all(counts[1:] > 0)
    grads = tf8.vmap(tf8.grad(lambda a: with_aux(a)[0]))(a)
    np.testing.assert_allclose(
        grads, [tf8.grad(lambda v: with_aux(v)[0])(v) for v in a], rtol=1e-12
    )
    np.testing.assert_allclose(grads, 0.5 / np.sqrt(a), rtol=1e-12)
    total = lambda a: tnp.sum(tf8.vmap(sqrt)(a) ** 3)  # noqa: E731
    np.testing.assert_allclose(tf8.grad(total)(a), 1.5 * np.sqrt(a), rtol=1e-12)
    np.testing.assert_allclose(tf8.jit(tf8.grad(total))(a), 1.5 * np.sqrt(a), rtol=1e-12)
    np.testing.assert_allclose(tf8.hessian(total)(a), np.diag(0.75 / np.sqrt(a)), atol=1e-10)


def _loops(program):
    """How many loop ops a program holds, at any depth of nesting."""
    count, stack = 0, [inst.op for inst in program.instructions]
    while stack:
        op = stack.pop()
        count += isinstance(op, (Scan, While))
        payload = getattr(op, "payload", None)
        for item in payload if isinstance(payload, tuple) else ():
            for sub in item if isinstance(item, tuple) else (item,):
                if isinstance(sub, ClosedProgram):
                    stack += [k.op for k in materialize_merge(None, list(sub.outputs)).operations]
    return count


def test_the_solvers_iterations_are_never_differentiated():
    traced = []

    def counting_newton(f, x0):
        traced.append(1)
        return newton(f, x0)

    fun = lambda a: sqrt(a, counting_newton)  # noqa: E731
    a = np.array(2.0)
    value = tf8.make_program(fun)(a)
    grad = tf8.make_program(tf8.grad(fun))(a)
    jvp = tf8.make_program(lambda a, t: tf8.jvp(fun, (a,), (t,)))(a, a)
    # the forward solve's loop is there once; its derivative adds no loop
    assert _loops(value.program) == _loops(grad.program) == _loops(jvp.program) == 1
    through = tf8.make_program(tf8.grad(lambda a: newton(lambda x: x**2 - a, tnp.ones_like(a))))(a)
    assert _loops(through.program) >= 2  # differentiating the loop itself reverses it
    assert len(traced) == 3  # the solver is traced once per call of custom_root


def _implicit(p, x):
    """dx/dp of the root of x^3 + p x - 1 + 0.1 roll(x, 1) by the implicit function theorem."""
    jx = np.diag(3 * x**2 + p) + 0.1 * np.roll(np.eye(3), 1, axis=0)
    return -np.linalg.solve(jx, np.diag(x))


def vector_root(p, tangent_solve):
    f = lambda x: x**3 + p * x - 1.0 + 0.1 * tnp.roll(x, 1)  # noqa: E731

    def newton_vec(f, x0):
        return lax.fori_loop(0, 30, lambda i, x: x - tnp.linalg.solve(tf8.jacfwd(f)(x), f(x)), x0)

    return lax.custom_root(f, tnp.ones(3), newton_vec, tangent_solve)


def _by_jacobian(g, y):
    return tnp.linalg.solve(tf8.jacobian(g)(y), y)


def _by_linear_solve(g, y):
    """tangent_solve as a custom_linear_solve of g with while-loop solvers (vecmat inside)."""
    step = lambda mv, b: lambda c: (c[0] + 0.2 * (b - mv(c[0])), c[1] + 1)  # noqa: E731
    iterate = lambda mv, b: lax.while_loop(lambda c: c[1] < 400, step(mv, b), (b * 0.0, 0))[0]  # noqa: E731
    return lax.custom_linear_solve(g, y, iterate, iterate)


@pytest.mark.parametrize("tangent_solve", [_by_jacobian, _by_linear_solve])
def test_vector_custom_root_jacobians_match_the_implicit_function_theorem(tangent_solve):
    p = np.array([1.0, 2.0, 3.0])
    x = vector_root(p, tangent_solve)
    np.testing.assert_allclose(x**3 + p * x - 1.0 + 0.1 * np.roll(x, 1), 0.0, atol=1e-13)
    expected = _implicit(p, np.asarray(x))
    np.testing.assert_allclose(tf8.jacfwd(vector_root)(p, tangent_solve), expected, atol=1e-10)
    np.testing.assert_allclose(tf8.jacrev(vector_root)(p, tangent_solve), expected, atol=1e-10)
    ps = np.stack([p, p + 1.0])
    batched = tf8.vmap(lambda p: tf8.jacrev(vector_root)(p, tangent_solve))(ps)
    for k in range(2):
        xk = np.asarray(vector_root(ps[k], tangent_solve))
        np.testing.assert_allclose(batched[k], _implicit(ps[k], xk), atol=1e-10)
    tf8.check_grads(
        lambda p: tnp.sum(vector_root(p, tangent_solve) ** 2),
        [p],
        order=2,
        modes=("fwd", "rev") if tangent_solve is _by_jacobian else ("rev",),
    )  # noqa: E501
