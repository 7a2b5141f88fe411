"""A loop runs as one generated function (tf8/runtime/engines/numpy/loops.py, issue #32):
scan, fori_loop and while_loop under jit against a Python loop and against the per-iteration
runner they replace; what Prepared.pretty() says; ownership of the results; effects; grads."""

import threading

import numpy as np
import pytest

import tf8
import tf8.lax as lax
import tf8.numpy as tnp
from tf8.api import runtime_for
from tf8.experimental import io_callback
from tf8.ops.extension.control import ClosedProgram
from tf8.runtime import bodies
from tf8.runtime.bodies import GENERATE_AT_STEPS


@pytest.fixture(autouse=True)
def _record_graphs():
    yield  # these tests trace with jit (the runtime folder's recording fixture is not needed)


class BodyRuns:
    """Counts the per-iteration runs of sub-programs (ClosedProgram.run)."""

    def __init__(self, monkeypatch):
        self.count = 0
        original = ClosedProgram.run

        def counted(program, arrays):
            self.count += 1
            return original(program, arrays)

        monkeypatch.setattr(ClosedProgram, "run", counted)


def per_iteration(monkeypatch, f, *args):
    """`f(*args)` with every loop run by its per-iteration runner (today's path)."""
    with monkeypatch.context() as patch:
        patch.setattr(ClosedProgram, "loop", lambda self, op, steps=None: None)
        return f(*args)


def generated(monkeypatch, f, *args):
    """`f(*args)` (called twice: a short scan is generated on its second call), checking that
    no loop body ran per iteration on the second call."""
    f(*args)
    runs = BodyRuns(monkeypatch)
    result = f(*args)
    assert runs.count == 0
    return result


def loops_of(f, *args):
    pretty = runtime_for("numpy").prepare(f.lower(*args)).pretty()
    return pretty.split("\nloops:\n")[1].splitlines() if "\nloops:\n" in pretty else []


def assert_same(a, b):
    for x, y in zip(tf8.tree.leaves(a), tf8.tree.leaves(b), strict=True):
        x, y = np.asarray(x), np.asarray(y)
        assert x.dtype == y.dtype and x.shape == y.shape
        np.testing.assert_array_equal(x, y)


def python_scan(f, init, xs, n, reverse=False):
    carry, ys = init, [None] * n
    for i in range(n - 1, -1, -1) if reverse else range(n):
        carry, ys[i] = f(carry, None if xs is None else tf8.tree.map(lambda x, i=i: x[i], xs))
    return carry, ys


def _step_np(c, x):
    h, k, t = c
    h = np.tanh(h * 0.5 + x)
    return (h, k + 1, t + h.sum()), (h * 2.0, k, h > 0, h.sum(), np.outer(h, h))


def _step(c, x):
    h, k, t = c
    h = tnp.tanh(h * 0.5 + x)
    return (h, k + 1, t + h.sum()), (h * 2.0, k, h > 0, h.sum(), tnp.outer(h, h))


@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("n", [0, 1, 5, GENERATE_AT_STEPS + 3])
def test_scan_equals_python_loop_and_per_iteration_runner(monkeypatch, n, reverse):
    rng = np.random.default_rng(n)
    init = (rng.normal(size=3), np.int32(2), np.float64(0.5))
    xs = rng.normal(size=(n, 3))
    f = tf8.jit(lambda c, xs: lax.scan(_step, c, xs, reverse=reverse))
    got = generated(monkeypatch, f, init, xs)
    assert_same(got, per_iteration(monkeypatch, f, init, xs))
    carry, ys = python_scan(_step_np, init, xs, n, reverse)
    np.testing.assert_allclose(got[0][0], carry[0], rtol=1e-14)
    assert int(got[0][1]) == 2 + n and got[0][1].dtype == np.int32
    np.testing.assert_allclose(got[0][2], carry[2], rtol=1e-14)
    dtypes = (np.float64, np.int32, np.bool_, np.float64, np.float64)
    shapes = ((n, 3), (n,), (n, 3), (n,), (n, 3, 3))
    for m, (dtype, shape) in enumerate(zip(dtypes, shapes)):
        y = np.asarray(got[1][m])
        assert y.dtype == dtype and y.shape == shape
        if n:
            np.testing.assert_allclose(y, np.stack([step[m] for step in ys]), rtol=1e-14)
    assert loops_of(f, init, xs) == [
        "  instruction 0 scan: loop generated (one function, body inlined)"
    ]


def test_scan_without_xs_and_weak_scalar_carry(monkeypatch):
    f = tf8.jit(lambda c: lax.scan(lambda c, _: (c * 2.0, c), c, None, length=6))
    carry, ys = generated(monkeypatch, f, np.float64(1.0))
    assert float(carry) == 64.0
    np.testing.assert_array_equal(ys, [1.0, 2.0, 4.0, 8.0, 16.0, 32.0])
    assert_same((carry, ys), per_iteration(monkeypatch, f, np.float64(1.0)))


def test_long_scan_is_generated_on_its_first_call_short_one_on_its_second(monkeypatch):
    def body(c, x):
        return c + x, c

    long = tf8.jit(lambda c, xs: lax.scan(body, c, xs))
    runs = BodyRuns(monkeypatch)
    long(np.zeros(2), np.ones((GENERATE_AT_STEPS, 2)))
    assert runs.count == 0
    short = tf8.jit(lambda c, xs: lax.scan(lambda c, x: (c * x, c), c, xs))
    args = (np.ones(2), np.full((3, 2), 2.0))
    assert "fewer than" in loops_of(short, *args)[0]
    short(*args)
    assert runs.count == 3  # per iteration, once
    short(*args)
    assert runs.count == 3
    assert "loop generated (one function" in loops_of(short, *args)[0]


def test_one_body_in_scans_of_different_lengths_and_directions(monkeypatch):
    def body(c, x):
        return c * 0.5 + x, c - x

    def f(c, xs):
        a = lax.scan(body, c, xs)
        b = lax.scan(body, c, xs[:3], reverse=True)
        return a, b

    c, xs = np.array([1.0, -2.0]), np.arange(10.0).reshape(5, 2)
    got = generated(monkeypatch, tf8.jit(f), c, xs)
    assert_same(got, per_iteration(monkeypatch, tf8.jit(f), c, xs))
    ref = python_scan(lambda c, x: (c * 0.5 + x, c - x), c, xs[:3], 3, reverse=True)
    np.testing.assert_allclose(got[1][0], ref[0])
    np.testing.assert_allclose(got[1][1], np.stack(ref[1]))


def test_fori_loop_static_and_dynamic_bounds(monkeypatch):
    def body(i, v):
        return v * 1.5 + i

    static = tf8.jit(lambda v: lax.fori_loop(0, 7, body, v))
    dynamic = tf8.jit(lambda n, v: lax.fori_loop(0, n, body, v))
    v = np.array([1.0, 2.0])
    ref = v.copy()
    for i in range(7):
        ref = ref * 1.5 + i
    np.testing.assert_allclose(generated(monkeypatch, static, v), ref, rtol=1e-15)
    np.testing.assert_allclose(generated(monkeypatch, dynamic, 7, v), ref, rtol=1e-15)
    assert_same(per_iteration(monkeypatch, dynamic, 7, v), dynamic(7, v))
    assert "while: loop generated (one function" in loops_of(dynamic, 7, v)[0]
    np.testing.assert_array_equal(dynamic(0, v), v)


@pytest.mark.parametrize("limit", [0.5, 1.0, 40.0])
def test_while_loop_with_consts_and_an_unread_carry(monkeypatch, limit):
    bound, scale = np.float64(limit), np.array([2.0, 3.0])

    def f(bound, scale, v):
        def cond(c):
            return c[0][0] < bound  # reads only the first carry

        def body(c):
            v, k, tag = c
            return v * scale, k + 1, tag  # tag is never read: passed through

        return lax.while_loop(cond, body, (v, np.int64(0), np.float64(7.0)))

    g = tf8.jit(f)
    v = np.array([1.0, 1.0])
    got = generated(monkeypatch, g, bound, scale, v)
    assert_same(got, per_iteration(monkeypatch, g, bound, scale, v))
    ref, k = v.copy(), 0
    while ref[0] < limit:
        ref, k = ref * scale, k + 1
    np.testing.assert_array_equal(got[0], ref)
    assert int(got[1]) == k and float(got[2]) == 7.0
    assert not np.shares_memory(np.asarray(got[0]), v)  # zero iterations: still a copy


def test_nested_loops(monkeypatch):
    def inner(c, x):
        return c + x * c, c.sum()

    def outer(c, x):
        c, ys = lax.scan(inner, c, tnp.stack([x, x * 0.5]))
        c = lax.while_loop(lambda c: c.sum() > 10.0, lambda c: c * 0.5, c)
        return c, ys

    f = tf8.jit(lambda c, xs: lax.scan(outer, c, xs))
    c, xs = np.array([1.0, 0.5]), np.linspace(0.1, 1.0, 8).reshape(4, 2)
    got = generated(monkeypatch, f, c, xs)
    assert_same(got, per_iteration(monkeypatch, f, c, xs))

    def outer_np(c, x):
        ys = []
        for xi in (x, x * 0.5):
            c, y = c + xi * c, c.sum()
            ys.append(y)
        while c.sum() > 10.0:
            c = c * 0.5
        return c, np.array(ys)

    carry, ys = python_scan(outer_np, c, xs, 4)
    np.testing.assert_allclose(got[0], carry, rtol=1e-14)
    np.testing.assert_allclose(got[1], np.stack(ys), rtol=1e-14)


def test_effects_run_once_per_iteration_in_order(monkeypatch, capsys):
    seen = []

    def log(v):
        seen.append(float(np.asarray(v)))
        return np.asarray(v)

    def body(c, x):
        c = io_callback(log, jax_struct(), c + x)
        tf8.debug.print("step {}", c)
        return c, c

    f = tf8.jit(lambda c, xs: lax.scan(body, c, xs))
    xs = np.array([1.0, 2.0, 3.0])
    generated(monkeypatch, f, np.float64(0.0), xs)
    assert seen == [1.0, 3.0, 6.0] * 2
    assert capsys.readouterr().out.split() == ["step", "1.0", "step", "3.0", "step", "6.0"] * 2
    w = tf8.jit(
        lambda c: lax.while_loop(
            lambda c: c < 3, lambda c: (tf8.debug.print("w {}", c), c + 1)[1], c
        )
    )
    generated(monkeypatch, w, np.int32(0))
    assert capsys.readouterr().out.split() == ["w", "0", "w", "1", "w", "2"] * 2


def jax_struct():
    return tf8.ShapeDtypeStruct((), np.float64)


def test_returned_carry_never_aliases_an_input_or_the_stacks(monkeypatch):
    c, w = np.array([1.0, 2.0]), np.array([3.0, 4.0])

    def f(c, w, xs):
        def body(carry, x):
            a, b, k = carry
            h = tnp.tanh(a * x)
            return (h, b, w), h  # h is a carry and a y; b and the const w pass through

        return lax.scan(body, (c, c, w), xs)

    g = tf8.jit(f)
    xs = np.ones((4, 2))
    originals = [a.copy() for a in (c, w, xs)]
    (h, b, k), ys = generated(monkeypatch, g, c, w, xs)
    for a, original in zip((c, w, xs), originals):
        np.testing.assert_array_equal(a, original)  # no input was written into
    for out in (h, b, k, ys):  # (tf8.Arrays are read-only: the loop's own arrays are below)
        assert not any(np.shares_memory(np.asarray(out), a) for a in (c, w, xs))
    assert not np.shares_memory(np.asarray(h), np.asarray(ys))
    np.testing.assert_array_equal(b, c)
    np.testing.assert_array_equal(k, w)
    np.testing.assert_array_equal(np.asarray(ys)[-1], h)


def test_loop_function_results_are_owned_arrays():
    def body(carry, _):
        a, b = carry
        return (a, tnp.sin(b)), tnp.sin(b)  # a returned unchanged

    f = tf8.jit(lambda a, b: lax.scan(body, (a, b), None, length=GENERATE_AT_STEPS))
    a, b = np.array([1.0, 2.0]), np.array([0.5, 0.25])
    f(a, b)
    program = runtime_for("numpy").prepare(f.lower(a, b)).program
    scan = next(i.op for i in program.instructions if i.op.name == "scan")
    loop = scan.payload[0].loop(scan, GENERATE_AT_STEPS)
    assert loop is not None and "for _i in range(length)" in loop.source
    operands = [a, b][: len(scan.payload[0].inputs)]
    outs = loop(operands, 4)
    for out in outs:
        assert out.flags.owndata and out.flags.writeable
        assert not any(np.shares_memory(out, x) for x in operands)
    np.testing.assert_array_equal(outs[-1][0], np.sin(b))


def test_large_body_keeps_blocked_regions(monkeypatch):
    n = 200_000  # above regions.MIN_ELEMENTS: the body runs blocked regions in the loop

    def body(c, x):
        return tnp.sin(c) * x + tnp.cos(c) * 0.5 - c * c * 0.1, (c * 2.0).sum()

    f = tf8.jit(lambda c, xs: lax.scan(body, c, xs))
    c, xs = np.linspace(-1, 1, n), np.array([0.5, 1.5, -1.0])
    got = generated(monkeypatch, f, c, xs)
    assert_same(got, per_iteration(monkeypatch, f, c, xs))
    ref = c
    for x in xs:
        ref = np.sin(ref) * x + np.cos(ref) * 0.5 - ref * ref * 0.1
    np.testing.assert_allclose(got[0], ref, rtol=1e-13)


def test_symbolic_body_falls_back_to_the_per_iteration_runner():
    x = tf8.placeholder(("n",), np.float64)
    with tf8.recording():
        out = lax.scan(lambda c, _: (tnp.sin(c) * 2.0 + 1.0, None), x, None, length=3)[0]
    prepared = tf8.Runtime().prepare(tf8.GraphCompiler().compile(out))
    (carry,) = prepared.run(np.ones(4))
    ref = np.ones(4)
    for _ in range(3):
        ref = np.sin(ref) * 2.0 + 1.0
    np.testing.assert_allclose(carry, ref, rtol=1e-15)
    assert "per-iteration runner: its sizes are symbolic" in prepared.pretty()


def test_lean_runtime_runs_per_iteration():
    runtime = tf8.Runtime(optimise=False)
    with tf8.recording():
        c = tf8.tensor(np.array([1.0, 2.0]))
        out = lax.scan(lambda c, _: (c * 3.0 - 1.0, c), c, None, length=3)
    prepared = runtime.prepare(tf8.GraphCompiler().compile(*out))
    carry, ys = prepared.run()
    np.testing.assert_array_equal(carry, [14.0, 41.0])
    assert "per-iteration runner: the runtime runs programs lean" in prepared.pretty()


def _rnn(w, xs):
    def body(h, x):
        h = tnp.tanh(w @ h + x)
        return h, tnp.sum(h)

    h, ys = lax.scan(body, tnp.zeros(w.shape[0]), xs)
    return tnp.sum(ys) + tnp.sum(h * h)


def test_grad_through_scan_and_fori_loop(monkeypatch):
    rng = np.random.default_rng(3)
    w, xs = rng.normal(size=(4, 4)) * 0.4, rng.normal(size=(6, 4))
    f = tf8.jit(tf8.value_and_grad(_rnn))
    value, grad = generated(monkeypatch, f, w, xs)
    assert_same((value, grad), per_iteration(monkeypatch, f, w, xs))
    eps, numeric = 1e-6, np.zeros_like(w)
    for idx in np.ndindex(w.shape):
        dw = np.zeros_like(w)
        dw[idx] = eps
        numeric[idx] = (float(_rnn(w + dw, xs)) - float(_rnn(w - dw, xs))) / (2 * eps)
    np.testing.assert_allclose(grad, numeric, rtol=1e-6, atol=1e-8)
    tf8.check_grads(tf8.jit(_rnn), [w, xs], order=2, modes=["rev"])

    def rk(v, a):
        return lax.fori_loop(0, 5, lambda i, v: v + 0.1 * tnp.sin(a * v), v).sum()

    tf8.check_grads(tf8.jit(rk), [np.array([0.3, -0.7]), np.array([1.2, 0.4])], order=2)


def test_threads_share_generated_loops():
    f = tf8.jit(tf8.value_and_grad(_rnn))
    rng = np.random.default_rng(5)
    cases = [(rng.normal(size=(4, 4)) * 0.4, rng.normal(size=(30, 4))) for _ in range(8)]
    expected = [f(*case) for case in cases]
    results: list = [None] * len(cases)

    def work(i):
        for _ in range(20):
            results[i] = f(*cases[i])

    threads = [threading.Thread(target=work, args=(i,)) for i in range(len(cases))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for got, want in zip(results, expected):
        assert_same(got, want)


def test_vmap_of_while_loop_on_a_batched_predicate(monkeypatch):
    f = tf8.jit(tf8.vmap(lambda v: lax.while_loop(lambda v: v < 10.0, lambda v: v * 3.0, v)))
    v = np.array([0.5, 2.0, 20.0])
    got = generated(monkeypatch, f, v)
    np.testing.assert_array_equal(got, [13.5, 18.0, 20.0])
    assert_same(got, per_iteration(monkeypatch, f, v))


def test_status_names_each_loop():
    def f(c, xs):
        c, _ = lax.scan(lambda c, x: (tnp.sin(c) + x, None), c, xs)
        return lax.while_loop(lambda c: c.sum() < 5.0, lambda c: c + 1.0, c)

    g = tf8.jit(f)
    args = (np.zeros(2), np.ones((3, 2)))
    g(*args)
    lines = loops_of(g, *args)
    assert len(lines) == 2
    assert "scan: loop generated on its first run" in lines[0]
    assert "while: loop generated (one function" in lines[1]
    assert bodies.describe_loops(runtime_for("numpy").prepare(g.lower(*args)).program) == lines
