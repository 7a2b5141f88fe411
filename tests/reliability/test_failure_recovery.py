"""Nothing is corrupted by a failure: a kernel raising mid-run (a LinAlgError from a singular
solve, a MemoryError injected into a kernel) leaves every cache and memoised value as it was,
and the next call works — eagerly, under jit, under grad, and in the runtime's prepare cache.

"As it was" is checked exactly: once a computation has run, a failing run of it leaves every
live cache with the same keys holding the same objects (`_contents`)."""

from __future__ import annotations

import gc

import numpy as np
import pytest

import tf8
import tf8.numpy as tnp
from tf8 import GraphCompiler, Runtime
from tf8.errors import LinAlgError
from tf8.graph import caches
from tf8.lax.core import apply1
from tf8.ops.catalog import Category, DTypePolicy, Row
from tf8.ops.definition import define
from tf8.ops.primitive import register_primitive, unregister_primitive
from tf8.runtime import tiers

SINGULAR = np.array([[1.0, 2.0], [2.0, 4.0]])
REGULAR = np.array([[2.0, 1.0], [1.0, 3.0]])
B = np.array([1.0, 2.0])


class Switch:
    """Makes the fragile kernel raise MemoryError while `on`."""

    on = False
    calls = 0


def _fragile_kernel(op, x):
    Switch.calls += 1
    if Switch.on:
        raise MemoryError("injected: out of memory in fragile_cube")
    return x * x * x


@pytest.fixture
def fragile():
    """`fragile(x) = x**3` through a registered primitive whose kernel fails on demand."""
    register_primitive(  # analytic: its batching rule comes from its category
        define(
            Row("fragile_cube", Category.ANALYTIC, DTypePolicy.SAME_FLOAT, 1, 1, doc="x**3"),
            kernel=_fragile_kernel,
            partials=(lambda lax, x, out: lax.mul(3.0, lax.mul(x, x)),),
        )
    )
    Switch.on = False
    yield lambda x: apply1("fragile_cube", [tnp.asarray(x)])
    Switch.on = False
    unregister_primitive("fragile_cube")


def _contents() -> dict[int, tuple[str, dict]]:
    """Every live cache: its name and its entries (key → the id of the object held)."""
    gc.collect()
    found = {}
    for cache in list(caches._LIVE):
        items = cache._data.items() if isinstance(cache, caches.LRUCache) else cache.items()
        found[id(cache)] = (cache.name, {k: id(v) for k, v in list(items)})
    return found


def _assert_unchanged(before: dict, after: dict) -> None:
    assert set(after) <= set(before), "a failure made a new cache"
    for key in set(before) & set(after):
        assert after[key] == before[key], f"{before[key][0]} changed"


def _expect_failure(call, error, match):
    before = _contents()
    with pytest.raises(error, match=match):
        call()
    _assert_unchanged(before, _contents())


def test_eager_singular_solve_leaves_the_caches_and_the_next_solve_works():
    tnp.linalg.solve(REGULAR, B)  # warm: plans made
    _expect_failure(lambda: tnp.linalg.solve(SINGULAR, B), LinAlgError, "solve: Singular")
    np.testing.assert_allclose(
        np.asarray(tnp.linalg.solve(REGULAR, B)), np.linalg.solve(REGULAR, B)
    )


def test_jit_singular_solve_then_regular(fragile):
    f = tf8.jit(lambda a, b: tnp.linalg.solve(a, b) * 2.0)
    f(REGULAR, B)
    f(REGULAR, B)  # optimised tier built
    _expect_failure(lambda: f(SINGULAR, B), LinAlgError, "Singular matrix")
    np.testing.assert_allclose(f(REGULAR, B), np.linalg.solve(REGULAR, B) * 2.0, rtol=1e-14)
    assert f.cache_info()["traces"] == 1


def test_grad_through_a_singular_solve_then_a_regular_one():
    loss = lambda a: tnp.sum(tnp.linalg.solve(a, B))  # noqa: E731
    g = tf8.grad(loss)
    expected = np.asarray(g(REGULAR))
    _expect_failure(lambda: g(SINGULAR), LinAlgError, "Singular matrix")
    np.testing.assert_allclose(np.asarray(g(REGULAR)), expected, rtol=1e-14)
    inv = np.linalg.inv(REGULAR)  # d/dA sum(A^-1 b) = -(A^-T 1)(A^-1 b)^T
    np.testing.assert_allclose(expected, -np.outer(inv.T @ np.ones(2), inv @ B), rtol=1e-12)


@pytest.mark.parametrize("where", ["eager", "jit lean", "jit optimised", "grad", "vmap"])
def test_an_injected_memory_error_leaves_everything_as_it_was(fragile, where):
    x = np.linspace(-1.0, 2.0, 5)
    cube = fragile
    run = {
        "eager": lambda v: np.asarray(cube(tf8.tensor(v)) + 1.0),
        "jit lean": tf8.jit(lambda v: cube(v) + 1.0),
        "jit optimised": tf8.jit(lambda v: cube(v) + 1.0),
        "grad": tf8.grad(lambda v: tnp.sum(cube(v) + 1.0)),
        "vmap": tf8.vmap(lambda v: cube(v) + 1.0),
    }[where]
    args = (x,) if where != "vmap" else (x.reshape(5, 1),)
    expected = np.asarray(run(*args))  # warm (the lean tier, for jit)
    if where == "jit optimised":
        run(*args)  # the second run builds the optimised tier
    Switch.on = True
    _expect_failure(lambda: run(*args), MemoryError, "injected")
    Switch.on = False
    np.testing.assert_allclose(np.asarray(run(*args)), expected, rtol=1e-15)
    np.testing.assert_allclose(np.asarray(run(*args)), expected, rtol=1e-15)
    if where == "grad":
        np.testing.assert_allclose(expected, 3 * x**2, rtol=1e-15)
    else:
        np.testing.assert_allclose(expected.reshape(x.shape), x**3 + 1.0, rtol=1e-15)


def test_a_failed_optimisation_keeps_the_lean_tier_and_retries(fragile, monkeypatch):
    f = tf8.jit(lambda v: tnp.exp(v) * 2.0 + 1.0)
    x = np.linspace(0.0, 1.0, 4)
    f(x)
    (prepared,) = [t.run.__self__.prepared for t in f._traces._data.values()]
    lean = prepared.current

    def failing_generate(*args, **kwargs):
        raise MemoryError("injected: out of memory while generating code")

    monkeypatch.setattr(prepared.engine, "generate", failing_generate)
    with pytest.raises(MemoryError, match="while generating code"):
        f(x)
    assert prepared.tier == "lean" and prepared.current is lean
    monkeypatch.undo()
    np.testing.assert_allclose(f(x), np.exp(x) * 2.0 + 1.0, rtol=1e-15)
    assert prepared.tier == "optimised" and prepared.current is not lean


def test_a_failed_prepare_caches_nothing(monkeypatch):
    runtime = Runtime()
    with tf8.recording():
        v = tf8.placeholder((3,), "float64", name="v")
        compiled = GraphCompiler().compile(tnp.cos(v) + 1.0)

    def failing_lean_function(program, engine):
        raise MemoryError("injected: out of memory while preparing")

    # (the lean tier's run function is what prepare builds; lowering waits for a second run)
    monkeypatch.setattr(tiers, "lean_function", failing_lean_function)
    with pytest.raises(MemoryError, match="while preparing"):
        runtime.prepare(compiled)
    assert len(runtime.cache_stats) == 0
    monkeypatch.undo()
    x = np.array([0.0, 1.0, 2.0])
    np.testing.assert_allclose(runtime.prepare(compiled).run(x)[0], np.cos(x) + 1.0)
    assert (runtime.cache_stats.misses, len(runtime.cache_stats)) == (2, 1)


def test_a_function_raising_while_traced_caches_no_trace():
    state = {"fail": True}

    def f(v):
        if state["fail"]:
            raise MemoryError("injected: out of memory while tracing")
        return tnp.tanh(v)

    g = tf8.jit(f)
    with pytest.raises(MemoryError, match="while tracing"):
        g(np.ones(3))
    assert g.cache_info()["size"] == 0
    state["fail"] = False
    np.testing.assert_allclose(g(np.ones(3)), np.tanh(np.ones(3)))


def test_a_recorded_value_whose_evaluation_failed_is_computed_next_time(fragile):
    x = np.linspace(-1.0, 2.0, 5)
    with tf8.recording():
        y = fragile(tf8.tensor(x)) * 2.0
        warm = fragile(tf8.tensor(x + 1.0)) * 2.0  # the same program: prepared here
    np.testing.assert_allclose(np.asarray(warm), 2 * (x + 1.0) ** 3, rtol=1e-15)
    Switch.on = True
    _expect_failure(lambda: np.asarray(y), MemoryError, "injected")
    Switch.on = False
    np.testing.assert_allclose(np.asarray(y), 2 * x**3, rtol=1e-15)
    np.testing.assert_allclose(tf8.evaluate([y])[0], 2 * x**3, rtol=1e-15)
