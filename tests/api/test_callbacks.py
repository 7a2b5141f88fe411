"""tf8.debug.print / callback / breakpoint (issue #29): eager, under jit (at every run, not
at trace time), vmap, grad, jvp, the control-flow ops and nested. The expected printed lines
were recorded from JAX 0.10.2 with JAX_ENABLE_X64=1 (the same programs on jax/jnp)."""

from __future__ import annotations

import doctest
import sys

import numpy as np
import pytest

import tf8
import tf8.numpy as jnp
from tf8.errors import ParameterError


def lines(capsys) -> list[str]:
    return capsys.readouterr().out.splitlines()


def h(x):
    tf8.debug.print("x={x} s={s}", x=x, s=x.sum())
    return x * 2


# --- debug.print: the brief's four programs, as JAX printed them ---------------------------


def test_print_vmap_prints_each_example(capsys):
    tf8.vmap(h)(jnp.arange(4.0).reshape(2, 2))
    assert lines(capsys) == ["x=[0. 1.] s=1.0", "x=[2. 3.] s=5.0"]  # JAX


def test_print_grad_prints_the_primal_values_once(capsys):
    g = tf8.grad(lambda x: h(x).sum())(jnp.ones(2))
    assert lines(capsys) == ["x=[1. 1.] s=2.0"]  # JAX
    np.testing.assert_array_equal(g, [2.0, 2.0])


def test_print_jit_prints_at_every_call(capsys):
    f = tf8.jit(h)
    f(jnp.ones(2))
    f(jnp.ones(2))
    f(jnp.arange(2.0))
    assert lines(capsys) == ["x=[1. 1.] s=2.0", "x=[1. 1.] s=2.0", "x=[0. 1.] s=1.0"]
    assert f.trace_count == 1


def test_print_in_scan_body_prints_each_iteration(capsys):
    tf8.lax.scan(lambda c, x: (tf8.debug.print("c={}", c) or c + x, None), 0.0, jnp.arange(3.0))
    assert lines(capsys) == ["c=0.0", "c=0.0", "c=1.0"]  # JAX


# --- more programs, each recorded from JAX -----------------------------------------------


def _branch(tag):
    return lambda x: (tf8.debug.print(tag + " {}", x), x)[1]


def test_print_cond_runs_the_branch_taken_only(capsys):
    tf8.lax.cond(True, _branch("T"), _branch("F"), 1.0)
    f = tf8.jit(lambda p, x: tf8.lax.cond(p, _branch("T"), _branch("F"), x))
    f(False, 2.0)
    f(True, 3.0)
    assert lines(capsys) == ["T 1.0", "F 2.0", "T 3.0"]  # JAX


def test_print_while_and_fori_loops(capsys):
    tf8.lax.while_loop(lambda c: c < 3, lambda c: (tf8.debug.print("w {}", c), c + 1)[1], 0)
    body = lambda i, c: (tf8.debug.print("i={} c={}", i, c), c + i)[1]  # noqa: E731
    tf8.lax.fori_loop(0, 3, body, 0.0)
    tf8.lax.fori_loop(0, 2, lambda i, c: (tf8.debug.print("hi"), c + i)[1], 0.0)
    assert lines(capsys) == [
        *["w 0", "w 1", "w 2"],
        *["i=0 c=0.0", "i=1 c=0.0", "i=2 c=1.0"],
        *["hi", "hi"],  # no argument: still once per iteration (JAX)
    ]


def test_print_in_a_map_body_that_returns_nothing(capsys):
    assert tf8.lax.map(lambda x: tf8.debug.print("m {}", x), jnp.arange(2.0)) is None
    tf8.jit(lambda xs: tf8.lax.map(lambda x: tf8.debug.print("mj {}", x), xs))(jnp.arange(2.0))
    assert lines(capsys) == ["m 0.0", "m 1.0", "mj 0.0", "mj 1.0"]  # JAX (m)


def test_print_loops_under_jit_run_at_every_call(capsys):
    f = tf8.jit(lambda n: tf8.lax.fori_loop(0, n, lambda i, c: (tf8.debug.print("{}", i), c)[1], 0))
    f(2)
    f(2)
    g = tf8.jit(
        lambda c: tf8.lax.scan(
            lambda c, _: (tf8.debug.print("s {}", c) or c * 2, None), c, None, length=2
        )
    )
    g(1.0)
    assert lines(capsys) == ["0", "1", "0", "1", "s 1.0", "s 2.0"]


def test_print_nested_jit_eager_and_formats(capsys):
    tf8.jit(lambda x: tf8.jit(h)(x) + 1)(jnp.arange(2.0))
    h(jnp.arange(3.0))  # eager: at once
    tf8.debug.print("{} and {:.2f} {k}", 1, jnp.float32(2.5), k=jnp.arange(2))
    tf8.debug.print("no placeholders", jnp.arange(2), skip_format_check=True)
    tf8.debug.print(ordered=True)("two-call {x}", x=jnp.float64(1.5))
    assert lines(capsys) == [
        "x=[0. 1.] s=1.0",
        "x=[0. 1. 2.] s=3.0",
        "1 and 2.50 [0 1]",  # JAX
        "no placeholders [0 1]",
        "two-call 1.5",
    ]


def test_print_is_kept_when_nothing_reads_it_and_when_jit_returns_none(capsys):
    tf8.jit(lambda x: (tf8.debug.print("u {}", x), 1.0)[1])(3.0)
    f = tf8.jit(lambda x: tf8.debug.print("n {}", x))
    assert f(4.0) is None
    f(5.0)
    # a scan whose results nobody reads still prints (it carries the effect)
    tf8.jit(
        lambda x: (
            tf8.lax.scan(lambda c, _: (tf8.debug.print("k {}", c) or c, None), x, None, length=1),
            x,
        )[1]
    )(6.0)
    assert lines(capsys) == ["u 3.0", "n 4.0", "n 5.0", "k 6.0"]  # JAX (u, n)


def test_print_order_follows_the_program(capsys):
    def f(x):
        tf8.debug.print("a {}", x, ordered=True)
        y = tf8.lax.scan(
            lambda c, _: (tf8.debug.print("loop {}", c) or c + 1, None), x, None, length=2
        )[0]
        tf8.debug.print("b {}", y, ordered=True)
        tf8.debug.print("c {}", x)
        return y

    tf8.jit(f)(1.0)
    assert lines(capsys) == ["a 1.0", "loop 1.0", "loop 2.0", "b 3.0", "c 1.0"]


def test_print_under_jvp_jit_grad_and_grad_of_loops(capsys):
    tf8.jvp(h, (jnp.ones(2),), (jnp.ones(2),))
    tf8.jit(tf8.grad(lambda x: (tf8.debug.print("gj {}", x), x**2)[1]))(3.0)

    def loop(x):
        step = lambda c, _: (tf8.debug.print("gs {}", c) or c * x, None)  # noqa: E731
        return tf8.lax.scan(step, 1.0, None, length=2)[0]

    assert tf8.grad(loop)(2.0) == 4.0
    tf8.jit(tf8.grad(loop))(2.0)
    tf8.jvp(
        lambda x: tf8.lax.while_loop(
            lambda c: c < 2, lambda c: (tf8.debug.print("w {}", c), c + 1.0)[1], x
        ),
        (0.0,),
        (1.0,),
    )
    # JAX: x=.. once (jvp), gj 3.0, gs 1.0/2.0 once per grad, w 0.0/1.0 once
    assert lines(capsys) == [
        "x=[1. 1.] s=2.0",
        "gj 3.0",
        "gs 1.0",
        "gs 2.0",
        "gs 1.0",
        "gs 2.0",
        "w 0.0",
        "w 1.0",
    ]


def test_print_in_nested_loops_under_grad_prints_once(capsys):
    def outer(x):
        def body(c, _):
            step = lambda d, _: (tf8.debug.print("in {}", d) or d * x, None)  # noqa: E731
            return tf8.lax.scan(step, c, None, length=2)[0], None

        return tf8.lax.scan(body, 1.0, None, length=1)[0]

    assert tf8.grad(outer)(2.0) == 4.0
    assert tf8.jit(tf8.grad(outer))(2.0) == 4.0
    tf8.jit(tf8.checkpoint(outer))(2.0)
    assert lines(capsys) == ["in 1.0", "in 2.0"] * 3  # JAX: in 1.0, in 2.0 (grad)


def test_print_in_loops_under_vmap_and_grad_in_either_order(capsys):
    def loop(x):
        step = lambda c, _: (tf8.debug.print("gs {}", c) or c * x, None)  # noqa: E731
        return tf8.lax.scan(step, 1.0, None, length=2)[0]

    xs = jnp.array([2.0, 3.0])
    np.testing.assert_array_equal(tf8.vmap(tf8.grad(loop))(xs), [4.0, 6.0])
    np.testing.assert_array_equal(tf8.grad(lambda x: tf8.vmap(loop)(x).sum())(xs), [4.0, 6.0])
    tf8.jit(tf8.grad(lambda x: tf8.vmap(loop)(x).sum()))(xs)
    assert lines(capsys) == ["gs 1.0", "gs 1.0", "gs 2.0", "gs 3.0"] * 3  # JAX, each


def test_print_vmap_of_loops_and_jit_of_vmap(capsys):
    tf8.vmap(lambda x: tf8.debug.print("v {}", x))(jnp.arange(3))
    tf8.jit(tf8.vmap(h))(jnp.arange(4.0).reshape(2, 2))

    def f(x):
        step = lambda c, _: (tf8.debug.print("vs {}", c) or c + 1, None)  # noqa: E731
        return tf8.lax.scan(step, x, None, length=2)[0]

    tf8.vmap(f)(jnp.arange(2.0))
    out = lines(capsys)
    assert out[:5] == ["v 0", "v 1", "v 2", "x=[0. 1.] s=1.0", "x=[2. 3.] s=5.0"]  # JAX
    # JAX prints vs 1.0, vs 0.0, vs 2.0, vs 1.0 here; tf8 prints example by example per step
    assert out[5:] == ["vs 0.0", "vs 1.0", "vs 1.0", "vs 2.0"]


def test_print_format_is_checked_when_traced():
    with pytest.raises(ParameterError, match="Unused positional arguments"):
        tf8.debug.print("x", jnp.ones(2))
    with pytest.raises(ParameterError, match="f-string"):
        tf8.jit(lambda x: tf8.debug.print("{y}", y=x, z=x))(1.0)
    with pytest.raises(ParameterError, match="format string"):
        tf8.debug.print(3)


def test_programs_without_effects_are_unchanged():
    f = tf8.jit(lambda x: x * 2 + 1)
    text = f.lower(np.ones(2)).pretty()
    assert "effect" not in text and "callback" not in text
    g = tf8.jit(lambda x: (tf8.debug.print("{}", x), x * 2)[1])
    assert "debug_callback" in g.lower(np.ones(2)).pretty()


# --- debug.callback and breakpoint --------------------------------------------------------


def test_debug_callback_eager_jit_vmap_and_static_arguments():
    seen = []

    def record(a, b, tag="t"):
        seen.append((type(a).__name__, np.asarray(a).tolist(), b, tag))

    tf8.debug.callback(record, jnp.ones(2), 3)
    f = tf8.jit(lambda x: tf8.debug.callback(record, x, "s", tag="k") or x)
    f(jnp.arange(2.0))
    f(jnp.arange(2.0))
    tf8.vmap(lambda x: tf8.debug.callback(record, x, None))(jnp.arange(2.0))
    assert seen == [
        ("ndarray", [1.0, 1.0], 3, "t"),
        ("ndarray", [0.0, 1.0], "s", "k"),
        ("ndarray", [0.0, 1.0], "s", "k"),
        ("ndarray", 0.0, None, "t"),
        ("ndarray", 1.0, None, "t"),
    ]


def test_breakpoint_opens_the_hook_on_run_time_values(monkeypatch):
    stops = []

    def hook():
        frame = sys._getframe(1)
        stops.append({k: np.asarray(v).tolist() for k, v in frame.f_locals.items() if k != "n"})

    monkeypatch.setattr(sys, "breakpointhook", hook)

    def f(x):
        y = x * 2
        n = "static"  # noqa: F841 - a non-array local reaches the debugger as it is
        tf8.debug.breakpoint()
        return y

    f(jnp.ones(1))
    g = tf8.jit(f)
    g(jnp.arange(2.0))
    g(jnp.arange(2.0) + 1)
    tf8.vmap(f)(jnp.arange(2.0))
    tf8.lax.fori_loop(0, 2, lambda i, c: (tf8.debug.breakpoint(), c + i)[1], 0)
    assert stops[:5] == [
        {"x": [1.0], "y": [2.0]},
        {"x": [0.0, 1.0], "y": [0.0, 2.0]},
        {"x": [1.0, 2.0], "y": [2.0, 4.0]},
        {"x": 0.0, "y": 0.0},
        {"x": 1.0, "y": 2.0},
    ]
    assert [s["i"] for s in stops[5:]] == [0, 1]
    with pytest.raises(ParameterError, match="num_frames"):
        tf8.debug.breakpoint(num_frames=3)


def test_breakpoint_is_a_pdb_session_on_the_values(monkeypatch):
    import io
    import pdb

    out = io.StringIO()

    def hook():  # what sys.breakpointhook does by default, with scripted input
        pdb.Pdb(stdin=io.StringIO("p x + 1\nc\n"), stdout=out).set_trace(sys._getframe(1))

    monkeypatch.setattr(sys, "breakpointhook", hook)
    tf8.jit(lambda x: (tf8.debug.breakpoint(), x)[1])(jnp.arange(2))
    assert "array([1, 2])" in out.getvalue()


# --- the public names' documentation ----------------------------------------------------

PUBLIC = {
    "tf8.debug.print": tf8.debug.print,
    "tf8.debug.callback": tf8.debug.callback,
    "tf8.debug.breakpoint": tf8.debug.breakpoint,
    "tf8.pure_callback": tf8.pure_callback,
    "tf8.experimental.io_callback": tf8.experimental.io_callback,
}


@pytest.mark.parametrize("name", sorted(PUBLIC))
def test_public_names_are_documented_with_a_running_example(name):
    fun = PUBLIC[name]
    doc = fun.__doc__ or ""
    assert "Parameters" in doc and ">>>" in doc and "Differences from JAX" in doc, name
    finder = doctest.DocTestFinder(recurse=False)
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    for test in finder.find(fun, name, globs={}):
        runner.run(test)
    assert runner.failures == 0 and runner.tries > 0, name


def test_print_in_cond_and_while_under_vmap(capsys):
    def f(x):
        true = lambda v: (tf8.debug.print("T {}", v), v)[1]  # noqa: E731
        false = lambda v: (tf8.debug.print("F {}", v), -v)[1]  # noqa: E731
        return tf8.lax.cond(x > 1, true, false, x)

    np.testing.assert_array_equal(tf8.vmap(f)(jnp.arange(3.0)), [-0.0, -1.0, 2.0])
    assert lines(capsys) == ["F 0.0", "F 1.0", "F 2.0", "T 0.0", "T 1.0", "T 2.0"]  # JAX
    tf8.jit(tf8.vmap(f))(jnp.arange(3.0))  # both branches run; JAX interleaves them here
    assert sorted(lines(capsys)) == ["F 0.0", "F 1.0", "F 2.0", "T 0.0", "T 1.0", "T 2.0"]

    def g(x):
        body = lambda c: (tf8.debug.print("w {}", c), c + 1.0)[1]  # noqa: E731
        return tf8.lax.while_loop(lambda c: c < x, body, 0.0)

    np.testing.assert_array_equal(tf8.vmap(g)(jnp.array([1.0, 2.0])), [1.0, 2.0])
    assert lines(capsys) == ["w 0.0", "w 0.0", "w 1.0", "w 1.0"]  # JAX


def test_debug_log_logs_the_run_time_values_at_info(caplog):
    import logging

    f = tf8.jit(lambda x: tf8.debug.log("x={x}", x=x) or x * 2.0)
    with caplog.at_level(logging.INFO, logger="tf8.debug"):
        f(np.ones(2))
        f(np.zeros(2))  # every call logs, not only the trace
    assert [r.getMessage() for r in caplog.records] == ["x=[1. 1.]", "x=[0. 0.]"]
    assert all(r.name == "tf8.debug" and r.levelno == logging.INFO for r in caplog.records)
