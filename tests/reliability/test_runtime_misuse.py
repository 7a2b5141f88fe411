"""Misuse of the compiler and runtime, and a forced fingerprint collision: with every 128-bit
digest equal (tf8.graph.fingerprint.digest128 patched), programs are still never confused."""

from __future__ import annotations

import numpy as np
import pytest
from misuse_table import expect, params

import tf8
import tf8.numpy as tnp
from tf8 import GraphCompiler, Runtime, errors
from tf8.graph import fingerprint
from tf8.ops.shapes import sym


def _prepared(shape=(2,), dtype="float64"):
    with tf8.recording():
        x = tf8.placeholder(shape, dtype, name="x")
        return Runtime().prepare(GraphCompiler().compile(x * 2))


def _shifted_pair():
    """A program over x of size n and y of size n + 1."""
    with tf8.recording():
        x = tf8.placeholder(("n",), "float64", name="x")
        y = tf8.placeholder((sym("n") + 1,), "float64", name="y")
        return Runtime().prepare(GraphCompiler().compile(tnp.sum(x) + tnp.sum(y)))


ROWS = [
    (
        "run-strings",
        lambda: _prepared().run(np.array(["a", "b"])),
        errors.RunDTypeError,
        "input 'x': expected dtype float64, got <U1",
    ),
    (
        "run-complex-into-float",
        lambda: _prepared().run(np.ones(2) + 1j),
        errors.RunDTypeError,
        "input 'x': expected dtype float64, got complex128",
    ),
    (
        "run-python-float-into-int",
        lambda: _prepared((), "int32").run(1.5),
        errors.RunDTypeError,
        r"input 'x': expected dtype int32, got float64 \(1.5\)",
    ),
    (
        "run-int64-into-float32",
        lambda: _prepared((2,), "float32").run(np.ones(2, np.int64)),
        errors.RunDTypeError,
        "expected dtype float32, got int64",
    ),
    (
        "run-a-nested-list",
        lambda: _prepared().run([[1.0, 2.0]]),
        errors.RunInputError,
        r"input 'x': expected shape \(2,\), got \(1, 2\)",
    ),
    (
        "run-derived-dimension-disagrees",
        lambda: _shifted_pair().run(np.ones(3), np.ones(5)),
        errors.ShapeGuardError,
        r"axis 0 has size 5, but n \+ 1 = 4 \(n=3\)",
    ),
    (
        "evaluate-a-float",
        lambda: tf8.evaluate([1.0]),
        errors.CompileError,
        "compile takes TracedTensors, got float",
    ),
]


@pytest.mark.parametrize(("misuse", "error", "message"), params(ROWS))
def test_runtime_misuse(misuse, error, message):
    expect(misuse, error, message)


def test_a_forced_fingerprint_collision_never_confuses_programs(monkeypatch):
    monkeypatch.setattr(fingerprint, "digest128", lambda data: 0)
    x = np.linspace(0.0, 1.0, 4)
    with tf8.recording():
        v = tf8.placeholder((4,), "float64", name="v")
        programs = [GraphCompiler().compile(f(v) * 2.0) for f in (tnp.sin, tnp.cos, tnp.exp)]
        again = GraphCompiler().compile(tnp.sin(v) * 2.0)
    digests = {bytes(p.fingerprint) for p in programs}
    assert digests == {bytes(16)}  # every digest collides ...
    assert len({p.fingerprint for p in programs}) == 3  # ... but the programs stay apart
    runtime = Runtime()
    for f, program in zip((np.sin, np.cos, np.exp), programs):
        np.testing.assert_allclose(runtime.prepare(program).run(x)[0], f(x) * 2.0, rtol=1e-15)
    assert (runtime.cache_stats.misses, runtime.cache_stats.hits) == (3, 0)
    np.testing.assert_allclose(runtime.prepare(again).run(x)[0], np.sin(x) * 2.0, rtol=1e-15)
    assert runtime.cache_stats.hits == 1  # an equal program still shares the entry
    # through jit, grad and eager dispatch too
    jitted = [tf8.jit(lambda a, f=f: tnp.sum(f(a))) for f in (tnp.sin, tnp.cos, tnp.tanh)]
    for j, f in zip(jitted, (np.sin, np.cos, np.tanh)):
        np.testing.assert_allclose(j(x), np.sum(f(x)), rtol=1e-14)
    np.testing.assert_allclose(tf8.grad(lambda a: tnp.sum(tnp.sin(a)))(x), np.cos(x))
    np.testing.assert_allclose(tf8.grad(lambda a: tnp.sum(tnp.cos(a)))(x), -np.sin(x))
