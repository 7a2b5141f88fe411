"""Transforms of `tf8.lax.gather` and the scatters: derivatives against finite differences to
second order (repeated and out-of-bounds indices under each mode), `vmap` against a Python
loop (batched operand, batched indices, both), `jit` on every installed engine against
eager, and `scatter_apply`."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest
from gather_scatter_reference import (
    SCATTERS,
    random_gather_config,
    random_scatter_config,
    reference_scatter,
)

import tf8
from tf8 import lax
from tf8.errors import DTypeError, ShapeError

GDN, SDN = lax.GatherDimensionNumbers, lax.ScatterDimensionNumbers
ENGINES = [e for e in ("numpy", "numba", "dask") if e == "numpy" or importlib.util.find_spec(e)]


def _scatter(name: str):
    return getattr(lax, name)


def _has_elements(*arrays: np.ndarray) -> bool:
    return all(a.size for a in arrays)


# --- derivatives ------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("mode", ["clip", "fill"])
def test_gather_derivatives_to_second_order(seed, mode):
    x, idx, dn, sizes = random_gather_config(np.random.default_rng(seed))
    # a finite fill value: central differences of NaN are NaN (the tangent there is 0)
    tf8.check_grads(
        lambda x: lax.gather(x, idx, GDN(*dn), sizes, mode=mode, fill_value=0.5), (x,), order=2
    )


LINEAR = ("scatter", "scatter_add", "scatter_sub")


@pytest.mark.parametrize("seed", range(10))
@pytest.mark.parametrize("name", [*LINEAR, "scatter_min", "scatter_max"])
@pytest.mark.parametrize("mode", ["clip", "drop"])
def test_scatter_derivatives_to_second_order_with_repeated_indices(seed, name, mode):
    """Random values: no ties for min/max (whose rule averages the tied values' tangents)."""
    x, idx, u, dn = random_scatter_config(np.random.default_rng(seed))
    if not _has_elements(x, u):
        return

    def f(x, u):
        return _scatter(name)(x, idx, u, SDN(*dn), mode=mode)

    tf8.check_grads(f, (x, u), order=2)


def test_scatter_transposes_give_each_cotangent_to_the_update_that_won():
    x, u = np.zeros(4), np.array([1.0, 2.0, 3.0, 4.0, 5.0])
    idx = np.array([[1], [1], [2], [1], [9]])  # 9 is dropped
    dn = SDN((), (0,), (0,))
    _, pullback = tf8.vjp(lambda x, u: lax.scatter(x, idx, u, dn), x, u)
    ct_x, ct_u = pullback(np.array([10.0, 20.0, 30.0, 40.0]))
    np.testing.assert_array_equal(ct_x, [10.0, 0.0, 0.0, 40.0])
    np.testing.assert_array_equal(ct_u, [0.0, 0.0, 30.0, 20.0, 0.0])
    _, pullback = tf8.vjp(lambda u: lax.scatter_add(x, idx, u, dn), u)
    np.testing.assert_array_equal(
        pullback(np.array([10.0, 20.0, 30.0, 40.0]))[0], [20.0, 20.0, 30.0, 20.0, 0.0]
    )


def test_scatter_with_unique_indices_uses_the_plain_transpose():
    x, u = np.zeros((4, 2)), np.arange(6.0).reshape(3, 2)
    idx = np.array([[3], [0], [2]])
    dn = SDN((1,), (0,), (0,))
    for unique in (False, True):
        tf8.check_grads(
            lambda x, u, unique=unique: lax.scatter(x, idx, u, dn, unique_indices=unique),
            (x, u),
            order=2,
        )


@pytest.mark.parametrize("mode", ["clip", "drop"])
def test_scatter_mul_derivatives(mode):
    rng = np.random.default_rng(5)
    x, u = rng.uniform(0.5, 2.0, (5, 3)), rng.uniform(0.5, 2.0, (4, 3))
    dn = SDN((1,), (0,), (0,))
    repeated = np.array([[1], [7], [1], [-1]])
    # the operand's derivative needs nothing of the indices
    tf8.check_grads(lambda x: lax.scatter_mul(x, repeated, u, dn, mode=mode), (x,), order=2)
    unique = np.array([[1], [4], [0], [9 if mode == "drop" else 2]])  # 9 clamped would repeat
    tf8.check_grads(
        lambda x, u: lax.scatter_mul(x, unique, u, dn, mode=mode, unique_indices=True),
        (x, u),
        order=2,
    )


@pytest.mark.parametrize("name", ["scatter_min", "scatter_max"])
def test_tied_extrema_share_the_tangent_as_in_jax(name):
    x = np.array([1.0, 5.0, 3.0])
    u = np.array([5.0, 1.0, 5.0, 1.0])
    idx = np.array([[1], [0], [1], [0]])
    dn = SDN((), (0,), (0,))
    _, t = tf8.jvp(
        lambda x, u: _scatter(name)(x, idx, u, dn),
        (x, u),
        (np.array([1.0, 10.0, 100.0]), np.array([1000.0, 2e4, 3e5, 4e6])),
    )
    # min at 0: operand 1 ties with updates 1 and 3; max at 1: operand 5 with updates 0 and 2
    expected = (1.0 + 2e4 + 4e6) / 3 if name == "scatter_min" else (10.0 + 1000.0 + 3e5) / 3
    position = 0 if name == "scatter_min" else 1
    np.testing.assert_allclose(t[position], expected)
    np.testing.assert_allclose(t[2], 100.0)


# --- vmap against a Python loop ---------------------------------------------------------------


def _loop(f, args, axes):
    size = next(a.shape[d] for a, d in zip(args, axes) if d is not None)
    rows = [
        f(*[a if d is None else np.take(a, b, d) for a, d in zip(args, axes)]) for b in range(size)
    ]
    return np.stack([np.asarray(r) for r in rows])


def _batched(rng, a, axis):
    """Three variants of `a` stacked on `axis` (indices stay in their range, +-1)."""
    if a.dtype.kind in "iu":
        rows = [np.clip(a + rng.integers(-1, 2, a.shape), -1, None) for _ in range(3)]
    else:
        rows = [rng.uniform(-2.0, 2.0, a.shape) for _ in range(3)]
    return np.stack(rows, axis)


CASES = [("x", (0, None)), ("indices", (None, 1)), ("both", (1, 0))]


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("which, axes", CASES, ids=[c[0] for c in CASES])
def test_vmap_of_gather_matches_a_loop(seed, which, axes):
    rng = np.random.default_rng(seed)
    x, idx, dn, sizes = random_gather_config(rng)
    args = [x, idx]
    args = [a if d is None else _batched(rng, a, d) for a, d in zip(args, axes)]
    for mode in ("clip", "fill"):

        def f(x, i, mode=mode):
            return lax.gather(x, i, GDN(*dn), sizes, mode=mode)

        np.testing.assert_array_equal(tf8.vmap(f, in_axes=axes)(*args), _loop(f, args, axes))


SCATTER_CASES = [
    ("x", (0, None, None)),
    ("indices", (None, 1, None)),
    ("updates", (None, None, 2)),
    ("all", (1, 0, 0)),
]


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("name", SCATTERS)
@pytest.mark.parametrize("which, axes", SCATTER_CASES, ids=[c[0] for c in SCATTER_CASES])
def test_vmap_of_scatters_matches_a_loop(seed, name, which, axes):
    rng = np.random.default_rng(seed)
    x, idx, u, dn = random_scatter_config(rng)
    args = [x, idx, u]
    axes = tuple(None if d is None else min(d, a.ndim) for a, d in zip(args, axes))
    args = [a if d is None else _batched(rng, a, d) for a, d in zip(args, axes)]
    for mode in ("clip", "drop"):

        def f(x, i, u, mode=mode):
            return _scatter(name)(x, i, u, SDN(*dn), mode=mode)

        np.testing.assert_allclose(
            tf8.vmap(f, in_axes=axes)(*args), _loop(f, args, axes), rtol=1e-13, atol=1e-13
        )


def test_vmap_of_a_gradient_through_scatter():
    x = np.random.default_rng(1).uniform(-1, 1, (3, 5))
    idx = np.array([[[1], [1], [4]], [[0], [2], [2]], [[3], [3], [3]]])
    dn = SDN((), (0,), (0,))

    def loss(x, i):
        return (lax.scatter(x, i, x[:3] * 2.0, dn) ** 2).sum()

    grads = tf8.vmap(tf8.grad(loss))(x, idx)
    np.testing.assert_allclose(grads, _loop(tf8.grad(loss), [x, idx], (0, 0)), rtol=1e-13)


# --- jit on every engine ----------------------------------------------------------------------


@pytest.mark.parametrize("engine", ENGINES)
def test_jit_matches_eager_on_each_engine(engine):
    rng = np.random.default_rng(7)
    for _ in range(4):
        x, idx, u, dn = random_scatter_config(rng)
        for name in SCATTERS:
            for mode in ("clip", "drop"):

                def f(x, i, u, name=name, mode=mode, dn=dn):
                    return _scatter(name)(x, i, u, SDN(*dn), mode=mode)

                np.testing.assert_allclose(
                    tf8.jit(f, engine=engine)(x, idx, u),
                    reference_scatter(name, x, idx, u, dn, mode),
                    rtol=1e-13,
                    atol=1e-13,
                )
        x, idx, gdn, sizes = random_gather_config(rng)
        for mode in ("clip", "fill"):

            def g(x, i, mode=mode, gdn=gdn, sizes=sizes):
                return lax.gather(x, i, GDN(*gdn), sizes, mode=mode)

            np.testing.assert_array_equal(tf8.jit(g, engine=engine)(x, idx), g(x, idx))


@pytest.mark.parametrize("engine", ENGINES)
def test_jit_of_gradients_matches_eager_on_each_engine(engine):
    x, u = np.linspace(-1, 1, 12).reshape(4, 3), np.linspace(2, 3, 9).reshape(3, 3)
    idx = np.array([[1], [3], [1]])
    dn = SDN((1,), (0,), (0,))

    def loss(x, u, i):
        out = lax.scatter_max(x, i, u * x[:3], dn) + lax.scatter(x, i, u, dn, mode="clip")
        return (lax.gather(out, i, GDN((1,), (0,), (0,)), (1, 3), mode="fill") ** 2).sum()

    eager = tf8.grad(loss, argnums=(0, 1))(x, u, idx)
    jitted = tf8.jit(tf8.grad(loss, argnums=(0, 1)), engine=engine)(x, u, idx)
    for a, b in zip(eager, jitted):
        np.testing.assert_allclose(a, b, rtol=1e-13)


# --- scatter_apply ----------------------------------------------------------------------------


def _reference_apply(x, idx, func, mode):
    """func applied once per update that names an element (windows of 1 along axis 0)."""
    out = x.copy()
    for (i,) in idx:
        i = min(max(i, 0), x.shape[0] - 1) if mode == "clip" else i
        if 0 <= i < x.shape[0]:
            out[i] = func(out[i])
    return out


@pytest.mark.parametrize("mode", ["clip", "drop"])
@pytest.mark.parametrize("unique", [False, True])
def test_scatter_apply_applies_once_per_update(mode, unique):
    x = np.linspace(-1.0, 1.0, 15).reshape(5, 3)
    idx = np.array([[0], [3], [1], [9]]) if unique else np.array([[1], [7], [1], [-1], [1]])
    dn = SDN((1,), (0,), (0,))
    shape = (idx.shape[0], 3)

    def f(x, i):
        return lax.scatter_apply(
            x, i, lambda v: v * 2.0 + 1.0, dn, update_shape=shape, mode=mode, unique_indices=unique
        )

    expected = _reference_apply(x, idx, lambda v: v * 2.0 + 1.0, mode)
    np.testing.assert_allclose(f(x, idx), expected, rtol=1e-15)
    np.testing.assert_allclose(tf8.jit(f)(x, idx), expected, rtol=1e-15)  # a loop in the program
    batched = np.stack([idx, np.clip(idx - 1, -1, None)])
    np.testing.assert_allclose(
        tf8.vmap(f, in_axes=(None, 0))(x, batched), _loop(f, [x, batched], (None, 0)), rtol=1e-15
    )
    tf8.check_grads(
        lambda x: lax.scatter_apply(
            x, idx, lax.sin, dn, update_shape=shape, mode=mode, unique_indices=unique
        ),
        (x,),
        order=2,
    )


def test_scatter_apply_refusals():
    dn = SDN((1,), (0,), (0,))
    x, idx = np.zeros((5, 3)), np.array([[1], [1]])
    with pytest.raises(DTypeError, match="elementwise"):
        lax.scatter_apply(
            x, idx, lambda v: lax.convert_element_type(v, np.float32), dn, update_shape=(2, 3)
        )
    with pytest.raises(ShapeError, match="scatter_apply"):
        lax.scatter_apply(x, idx, lax.sin, dn, update_shape=(2, 4))
    empty = lax.scatter_apply(np.zeros((5, 0)), idx, lax.sin, dn, update_shape=(2, 0))
    assert empty.shape == (5, 0)
