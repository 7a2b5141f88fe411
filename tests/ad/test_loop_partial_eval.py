"""A loop's gradient runs its forward loop once (issue 32, partial evaluation of control flow).

The residual loop a scan's transpose rule runs, and the residual cond of a cond's, compute
what the user's own loop computes plus what the backward pass reads; the compiler merges the
two (tf8.lax.control.merge), and the op-by-op tape runs them as one (tf8.ad.saving). These
tests count the loops in compiled programs and the loops the tape runs, and check values
against finite differences.
"""

from __future__ import annotations

import numpy as np
import pytest

import tf8
import tf8.lax as lax
import tf8.numpy as tnp
from tf8.ops.extension.control import Checkpoint, Cond, ControlOp, Scan

RNG = np.random.default_rng(0)
W = RNG.standard_normal((3, 3)) * 0.5
XS = RNG.standard_normal((12, 3)) * 0.5


def _loops(program) -> list[tuple[str, bool]]:
    """(kind, reverse) of each control op at the top of a compiled program."""
    found = []
    for op in program.ops:
        if type(op) is Scan:
            found.append(("scan", op.payload[4]))
        elif isinstance(op, ControlOp):
            found.append((op.name, False))
    return found


def _inner_ops(op, kind) -> list:
    """The ops of type `kind` anywhere inside `op`'s sub-programs."""
    found = []
    for program in op.subprograms:
        for op_key in tf8.graph.materialize_merge(None, list(program.outputs)).operations:
            if type(op_key.op) is kind:
                found.append(op_key.op)
            if isinstance(op_key.op, ControlOp):
                found.extend(_inner_ops(op_key.op, kind))
    return found


def rnn(w, xs):
    def step(h, x):
        h = tnp.tanh(w @ h + x)
        return h, tnp.sum(h)

    h, ys = lax.scan(step, tnp.zeros(3), xs)
    return tnp.sum(ys) + tnp.sum(h**2)


def rnn_carry_only(w, xs):
    return tnp.sum(lax.scan(lambda h, x: (tnp.tanh(w @ h + x), None), tnp.zeros(3), xs)[0] ** 2)


def fori(w, xs):
    xs = tnp.asarray(xs)
    return tnp.sum(lax.fori_loop(0, 7, lambda i, h: tnp.tanh(w @ h + xs[i]), xs[0]) ** 2)


def branchy(w, x):
    y = lax.cond(x[0] > 0, lambda v: tnp.sin(w @ v) * 2.0, lambda v: tnp.cos(w @ v), x)
    return tnp.sum(y**2)


def nested(w, xs):
    def outer(h, x):
        inner = lax.scan(lambda g, z: (tnp.tanh(w @ g + z), None), h, tnp.stack([x, x * 0.5]))[0]
        return inner * 0.9, tnp.sum(inner)

    h, ys = lax.scan(outer, tnp.zeros(3), xs)
    return tnp.sum(ys) + tnp.sum(h)


def cond_in_scan(w, xs):
    def step(h, x):
        h = lax.cond(x[0] > 0, lambda v: tnp.sin(w @ v) * 2.0, lambda v: tnp.cos(w @ v + x), h)
        return h, None

    return tnp.sum(lax.scan(step, tnp.ones(3), xs)[0] ** 2)


def remat(w, xs):
    inner = tf8.checkpoint(lambda h, x: tnp.sin(w @ h) + x)
    return tnp.sum(lax.scan(lambda h, x: (inner(h, x), None), tnp.ones(3), xs)[0])


def _fd_grad(f, w, xs, eps=1e-6):
    g = np.zeros_like(w)
    for idx in np.ndindex(w.shape):
        d = np.zeros_like(w)
        d[idx] = eps
        g[idx] = (float(f(w + d, xs)) - float(f(w - d, xs))) / (2 * eps)
    return g


LOOP_FUNCTIONS = [rnn, rnn_carry_only, fori]


@pytest.mark.parametrize("f", LOOP_FUNCTIONS)
@pytest.mark.parametrize("transform", ["value_and_grad", "grad"])
def test_a_loops_gradient_is_one_forward_and_one_reverse_loop(f, transform):
    program = tf8.make_program(getattr(tf8, transform)(f))(W, XS)
    assert sorted(_loops(program)) == [("scan", False), ("scan", True)]


@pytest.mark.parametrize("f", LOOP_FUNCTIONS)
def test_vjp_of_a_loop_is_one_forward_and_one_reverse_loop(f):
    def value_and_pullback(w, xs):
        value, pullback = tf8.vjp(f, w, xs)
        return value, pullback(tnp.ones(()))

    program = tf8.make_program(value_and_pullback)(W, XS)
    assert sorted(_loops(program)) == [("scan", False), ("scan", True)]


@pytest.mark.parametrize("f", [*LOOP_FUNCTIONS, branchy, nested, cond_in_scan, remat])
def test_gradients_match_finite_differences_on_every_path(f):
    expected = _fd_grad(f, W, XS[:, :] if f is not branchy else XS[0])
    args = (W, XS if f is not branchy else XS[0])
    value, tape = tf8.value_and_grad(f)(*args)
    jitted = tf8.jit(tf8.value_and_grad(f))(*args)
    np.testing.assert_allclose(np.asarray(value), float(f(*args)), rtol=1e-12)
    for got in (tape, jitted[1], tf8.grad(f)(*args)):
        np.testing.assert_allclose(np.asarray(got), expected, rtol=1e-6, atol=1e-8)


def test_program_size_does_not_depend_on_the_trip_count():
    sizes = [
        len(tf8.make_program(tf8.value_and_grad(rnn))(W, np.ones((n, 3))).ops) for n in (10, 10_000)
    ]
    assert sizes[0] == sizes[1]


def test_a_cond_is_one_forward_and_one_backward_pass():
    program = tf8.make_program(tf8.value_and_grad(branchy))(W, XS[0])
    conds = [op for op in program.ops if type(op) is Cond]
    assert len(conds) == 2
    # the backward branches read the saved residuals: none computes sin or cos again
    backward = conds[-1]
    for branch in backward.branches:
        ops = tf8.graph.materialize_merge(None, list(branch.outputs)).operations
        assert not {o.op.name for o in ops} & {"sin", "cos"}


def test_nested_loops_are_one_forward_and_one_reverse_loop_each():
    program = tf8.make_program(tf8.value_and_grad(nested))(W, XS)
    assert sorted(_loops(program)) == [("scan", False), ("scan", True)]
    # the outer forward loop stacks the inner loop's residuals; the outer reverse loop runs
    # only the inner reverse loop (no inner forward loop again)
    for op in program.ops:
        if type(op) is Scan:
            assert [o.payload[4] for o in _inner_ops(op, Scan)] == [op.payload[4]]


def test_a_cond_in_a_loop_runs_forward_once():
    program = tf8.make_program(tf8.value_and_grad(cond_in_scan))(W, XS)
    assert sorted(_loops(program)) == [("scan", False), ("scan", True)]
    for op in program.ops:
        if type(op) is Scan:  # one cond each way; the reverse one computes no sin or cos
            (cond,) = _inner_ops(op, Cond)
            names = set()
            for branch in cond.branches:
                ops = tf8.graph.materialize_merge(None, list(branch.outputs)).operations
                names |= {o.op.name for o in ops}
            assert ("sin" in names) is (not op.payload[4])


def test_the_tape_runs_nested_loops_forward_once(monkeypatch):
    count = _Count(monkeypatch, Scan)
    grad = tf8.grad(nested)(W, XS)
    runs = sorted((op.payload[3], op.payload[4]) for op in count.calls)
    inner = [(2, False)] * len(XS) + [(2, True)] * len(XS)  # once per outer step, each way
    assert runs == [*inner, (len(XS), False), (len(XS), True)]
    np.testing.assert_allclose(np.asarray(grad), _fd_grad(nested, W, XS), rtol=1e-6, atol=1e-8)


def test_a_users_checkpoint_in_a_scan_body_still_recomputes():
    program = tf8.make_program(tf8.grad(remat))(W, XS)
    assert sorted(_loops(program)) == [("scan", False), ("scan", True)]
    forward, reverse = sorted((op for op in program.ops if type(op) is Scan), key=_reverse)
    # the reverse body runs the checkpointed function again (w @ h, and cos for sin's
    # derivative); the forward loop saves nothing of it
    (recomputed,) = _inner_ops(reverse, Checkpoint)
    ops = tf8.graph.materialize_merge(None, list(recomputed.payload[0].outputs)).operations
    assert {"dot_general", "cos"} <= {o.op.name for o in ops}
    saved = tf8.graph.materialize_merge(None, list(forward.payload[0].outputs)).operations
    assert "cos" not in {o.op.name for o in saved}


def _reverse(op) -> bool:
    return op.payload[4]


def test_jvp_of_a_loop_is_one_loop():
    def tangent(w, xs):
        return tf8.jvp(rnn, (w, xs), (tnp.ones_like(w), tnp.zeros_like(xs)))

    program = tf8.make_program(tangent)(W, XS)
    assert _loops(program) == [("scan", False)]
    eps = 1e-6
    fd = (float(rnn(W + eps, XS)) - float(rnn(W - eps, XS))) / (2 * eps)
    np.testing.assert_allclose(np.asarray(tf8.jit(tangent)(W, XS)[1]), fd, rtol=1e-6)


def test_linearize_of_a_loop_is_one_loop():
    value, f_jvp = tf8.linearize(rnn, W, XS)
    dw, dxs = np.ones_like(W), np.zeros_like(XS)
    assert _loops(tf8.make_program(f_jvp)(dw, dxs)) == [("scan", False)]
    expected = tf8.jvp(rnn, (W, XS), (dw, dxs))[1]
    np.testing.assert_allclose(np.asarray(f_jvp(dw, dxs)), np.asarray(expected), rtol=1e-12)


def test_two_unrelated_loops_of_one_length_stay_two():
    def two(w, xs):
        a = lax.scan(lambda h, x: (tnp.tanh(w @ h + x), None), tnp.zeros(3), xs)[0]
        b = lax.scan(lambda h, x: (h * 0.5 + tnp.sin(x), None), tnp.ones(3), xs * 2.0)[0]
        return a, b

    assert len(_loops(tf8.make_program(two)(W, XS))) == 2


@pytest.mark.parametrize("transform", ["value_and_grad", "grad"])
def test_a_loop_that_prints_still_merges_with_its_residual_loop(capsys, transform):
    def printing(w, xs):
        def step(h, x):
            tf8.debug.print("step")
            return tnp.tanh(w @ h + x), None

        return tnp.sum(lax.scan(step, tnp.zeros(3), xs)[0])

    differentiated = getattr(tf8, transform)(printing)
    program = tf8.make_program(differentiated)(W, XS[:4])
    assert sorted(_loops(program)) == [("scan", False), ("scan", True)]
    capsys.readouterr()
    for run in (tf8.jit(differentiated), differentiated):  # compiled, then on the tape
        run(W, XS[:4])
        assert capsys.readouterr().out.count("step") == 4


class _Count:
    def __init__(self, monkeypatch, cls):
        self.calls: list = []
        kernel = cls.kernel

        def counting(op, *arrays):
            self.calls.append(op)
            return kernel(op, *arrays)

        monkeypatch.setattr(cls, "kernel", staticmethod(counting))


@pytest.mark.parametrize("f", LOOP_FUNCTIONS)
def test_the_tape_runs_the_forward_loop_once(monkeypatch, f):
    count = _Count(monkeypatch, Scan)
    value, grad = tf8.value_and_grad(f)(W, XS)
    assert sorted(op.payload[4] for op in count.calls) == [False, True]
    np.testing.assert_allclose(np.asarray(grad), _fd_grad(f, W, XS), rtol=1e-6, atol=1e-8)


def test_the_tape_runs_a_cond_once_forward(monkeypatch):
    count = _Count(monkeypatch, Cond)
    tf8.grad(branchy)(W, XS[0])
    assert len(count.calls) == 2  # the forward cond (with residuals), the backward one


def test_the_tape_still_runs_a_scan_whose_ys_have_no_cotangent():
    def last(w, xs):
        h, ys = lax.scan(lambda h, x: (tnp.tanh(w @ h + x), h * 2.0), tnp.zeros(3), xs)
        return tnp.sum(h)

    np.testing.assert_allclose(
        np.asarray(tf8.grad(last)(W, XS)), _fd_grad(last, W, XS), rtol=1e-6, atol=1e-8
    )


@pytest.mark.parametrize("f", LOOP_FUNCTIONS)
def test_eager_jvp_of_a_loop_runs_one_loop(monkeypatch, f):
    count = _Count(monkeypatch, Scan)
    dw = RNG.standard_normal(W.shape)
    value, tangent = tf8.jvp(f, (W, XS), (dw, np.zeros_like(XS)))
    assert [op.payload[4] for op in count.calls] == [False]  # the loop and its JVP, together
    eps = 1e-6
    fd = (float(f(W + eps * dw, XS)) - float(f(W - eps * dw, XS))) / (2 * eps)
    np.testing.assert_allclose(float(tangent), fd, rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(float(value), float(f(W, XS)), rtol=1e-13)


def test_eager_jvp_of_a_cond_runs_one_cond(monkeypatch):
    count = _Count(monkeypatch, Cond)
    dw = RNG.standard_normal(W.shape)
    value, tangent = tf8.jvp(branchy, (W, XS[0]), (dw, np.zeros_like(XS[0])))
    assert len(count.calls) == 1
    jitted = tf8.jit(lambda w, x: tf8.jvp(branchy, (w, x), (dw, np.zeros_like(x))))(W, XS[0])
    np.testing.assert_allclose(np.asarray(tangent), np.asarray(jitted[1]), rtol=1e-12)
    np.testing.assert_allclose(np.asarray(value), np.asarray(jitted[0]), rtol=1e-13)


def test_a_custom_vjp_whose_fwd_calls_the_function_runs_its_loop_once_forward():
    """The primal and fwd each trace the loop; their captured counter starts (0) are one leaf
    (small constants are leaves by content), so the two loops are equal and merge."""

    @tf8.custom_vjp
    def solve(w):
        return lax.fori_loop(0, 6, lambda i, h: tnp.tanh(w @ h + 0.1), tnp.ones(3))

    def solve_fwd(w):
        h = solve(w)
        return h, (w, h)

    def solve_bwd(res, g):
        w, h = res
        return (tnp.outer(g * (1 - h**2), h),)  # (a stand-in cotangent: the last step's)

    solve.defvjp(solve_fwd, solve_bwd)
    program = tf8.make_program(tf8.value_and_grad(lambda w: tnp.sum(solve(w))))(W)
    assert _loops(program) == [("scan", False)]
    value, grad = tf8.jit(tf8.value_and_grad(lambda w: tnp.sum(solve(w))))(W)
    h = np.ones(3)
    for _ in range(6):
        h = np.tanh(W @ h + 0.1)
    np.testing.assert_allclose(float(value), h.sum(), rtol=1e-13)
    np.testing.assert_allclose(np.asarray(grad), np.outer(1 - h**2, h), rtol=1e-12)
