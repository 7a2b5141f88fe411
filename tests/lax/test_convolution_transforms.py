"""conv_general_dilated under the transforms: derivatives in both operands against finite
differences to second order, vmap against a Python loop (the batch axis on either operand,
anywhere, with feature and batch groups), and jit against eager on every installed engine,
chunked Dask operands included."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

import tf8
import tf8.numpy as tnp
from tf8 import lax
from tf8.testing import check_grads

RNG = np.random.default_rng(7)

# (lhs shape, rhs shape, strides, padding, lhs dilation, rhs dilation, layout, groups, batch groups)
CONFIGS = [
    ((2, 3, 5, 4), (4, 3, 2, 3), (1, 1), "SAME", None, None, None, 1, 1),
    ((2, 5, 4, 4), (3, 2, 4, 3), (2, 1), "VALID", None, (2, 1), ("NHWC", "HWIO", "NHWC"), 1, 1),
    ((1, 4, 5, 6), (4, 2, 3, 2), (1, 2), ((1, -1), (2, 0)), (2, 1), (1, 2), None, 2, 1),
    ((4, 2, 5), (4, 2, 3), (2,), ((0, 2),), (1,), (2,), None, 1, 2),
    ((1, 2, 3, 3, 4), (2, 2, 2, 1, 2), (1, 2, 1), "SAME", None, None, None, 1, 1),
    ((3, 2, 6), (6, 1, 2), (1,), "SAME_LOWER", None, (3,), ("NCH", "OIH", "HNC"), 2, 1),
]


def _conv(config):
    _, _, strides, padding, lhs_dil, rhs_dil, layout, groups, batch_groups = config
    return lambda x, w: lax.conv_general_dilated(
        x, w, strides, padding, lhs_dil, rhs_dil, layout, groups, batch_groups
    )


def _operands(config, dtype=np.float64):
    x, w = RNG.uniform(-1, 1, config[0]), RNG.uniform(-1, 1, config[1])
    if np.dtype(dtype).kind == "c":
        x, w = x + 1j * RNG.uniform(-1, 1, x.shape), w - 1j * RNG.uniform(-1, 1, w.shape)
    return x.astype(dtype), w.astype(dtype)


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: f"{c[0]}-g{c[7]}b{c[8]}")
def test_derivatives_to_second_order_in_both_operands(config):
    check_grads(_conv(config), _operands(config), order=2, modes=("fwd", "rev"))


def test_complex_derivatives_and_a_hessian():
    config = CONFIGS[2]
    check_grads(_conv(config), _operands(config, np.complex128), order=2)
    x, w = _operands(CONFIGS[0])
    energy = lambda w: tnp.sum(_conv(CONFIGS[0])(x, w) ** 2)  # noqa: E731
    hessian = np.asarray(tf8.hessian(energy)(w)).reshape(w.size, w.size)
    # energy is quadratic in w: its Hessian is 2 J^T J, J the convolution's matrix in w
    jacobian = np.asarray(tf8.jacfwd(lambda w: _conv(CONFIGS[0])(x, w))(w)).reshape(-1, w.size)
    np.testing.assert_allclose(hessian, 2 * jacobian.T @ jacobian, rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: f"{c[0]}-g{c[7]}b{c[8]}")
@pytest.mark.parametrize("axes", [(0, 0), (0, None), (None, 0), (2, 1), (-1, None), (None, -1)])
def test_vmap_matches_a_loop(config, axes):
    f = _conv(config)
    x, w = _operands(config)
    size = 3
    xs = np.stack([x * (i + 1) for i in range(size)], axis=axes[0]) if axes[0] is not None else x
    ws = np.stack([w - i for i in range(size)], axis=axes[1]) if axes[1] is not None else w
    got = np.asarray(tf8.vmap(f, in_axes=axes)(xs, ws))
    pick = lambda a, ax, i: a if ax is None else np.take(a, i, axis=ax)  # noqa: E731
    expected = np.stack(
        [np.asarray(f(pick(xs, axes[0], i), pick(ws, axes[1], i))) for i in range(size)]
    )
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12)


def test_vmap_of_grad_and_empty_batches():
    config = CONFIGS[2]
    f = _conv(config)
    x, w = _operands(config)
    loss = lambda x, w: tnp.sum(tnp.tanh(f(x, w)))  # noqa: E731
    xs = np.stack([x, 2 * x])
    got = tf8.vmap(tf8.grad(loss, argnums=(0, 1)), in_axes=(0, None))(xs, w)
    for i in range(2):
        each = tf8.grad(loss, argnums=(0, 1))(xs[i], w)
        for a, b in zip(got, each):
            np.testing.assert_allclose(np.asarray(a)[i], np.asarray(b), rtol=1e-12)
    empty = tf8.vmap(f, in_axes=(0, None))(np.zeros((0, *x.shape)), w)
    assert empty.shape == (0, *f(x, w).shape)


ENGINES = [
    e
    for e, package in (("numpy", None), ("numba", "numba"), ("dask", "dask"))
    if package is None or importlib.util.find_spec(package)
]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("config", CONFIGS[:4], ids=lambda c: f"{c[0]}-g{c[7]}b{c[8]}")
def test_jit_on_every_engine_matches_eager(engine, config):
    f = _conv(config)
    x, w = _operands(config)
    loss = lambda x, w: tnp.sum(f(x, w) ** 2)  # noqa: E731
    program = tf8.value_and_grad(loss, argnums=(0, 1))
    value, grads = program(x, w)
    jitted = tf8.jit(program, engine=engine)
    for _ in range(2):  # the first call's lean tier, then the optimised one
        got_value, got_grads = jitted(x, w)
        np.testing.assert_allclose(np.asarray(got_value), np.asarray(value), rtol=1e-12)
        for a, b in zip(got_grads, grads):
            np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-11, atol=1e-12)
    np.testing.assert_allclose(
        np.asarray(tf8.jit(f, engine=engine)(x, w)), np.asarray(f(x, w)), rtol=1e-12
    )


@pytest.mark.skipif(
    "dask" not in ENGINES, reason="the Dask engine needs its extra: pip install dask"
)
@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: f"{c[0]}-g{c[7]}b{c[8]}")
def test_dask_runs_chunked_operands_blockwise(config):
    import dask
    import dask.array as da

    f = _conv(config)
    x, w = _operands(config)
    loss = lambda x, w: tnp.sum(tnp.sin(f(x, w)))  # noqa: E731
    expected = tf8.value_and_grad(loss, argnums=(0, 1))(x, w)
    halves = lambda a: da.from_array(a, chunks=tuple(max(1, (d + 1) // 2) for d in a.shape))  # noqa: E731
    lazy = tf8.jit(f, engine="dask")(halves(x), halves(w))
    assert isinstance(lazy, da.Array)
    with dask.config.set(scheduler="synchronous"):
        np.testing.assert_allclose(lazy.compute(), np.asarray(f(x, w)), rtol=1e-12, atol=1e-13)
        value, grads = dask.compute(
            *tf8.jit(tf8.value_and_grad(loss, argnums=(0, 1)))(halves(x), halves(w))
        )
    np.testing.assert_allclose(value, np.asarray(expected[0]), rtol=1e-12)
    for a, b in zip(grads, expected[1]):
        np.testing.assert_allclose(a, np.asarray(b), rtol=1e-11, atol=1e-12)


@pytest.mark.skipif(
    "dask" not in ENGINES, reason="the Dask engine needs its extra: pip install dask"
)
def test_dask_keeps_batch_chunks_and_sums_feature_blocks():
    import dask.array as da

    x, w = RNG.uniform(-1, 1, (8, 6, 5, 5)), RNG.uniform(-1, 1, (4, 6, 3, 3))
    lazy = tf8.jit(lambda x, w: lax.conv(x, w, (1, 1), "SAME"), engine="dask")(
        da.from_array(x, chunks=(2, 3, 5, 5)), da.from_array(w, chunks=(2, 6, 3, 3))
    )
    assert lazy.chunks[:2] == ((2, 2, 2, 2), (2, 2)), lazy.chunks  # examples and out features
    np.testing.assert_allclose(
        lazy.compute(scheduler="synchronous"),
        np.asarray(lax.conv(x, w, (1, 1), "SAME")),
        rtol=1e-12,
    )


def test_checkpoint_policies_save_it_as_jax_does():
    """JAX's dots_saveable saves convolutions; dots_with_no_batch_dims_saveable does not."""
    from tf8.ops.primitive import Primitive

    op = Primitive(
        "conv_general_dilated", 2, window_strides=(1,), padding=((0, 0),), lhs_dilation=(1,),
        rhs_dilation=(1,), dimension_numbers=((0, 1, 2),) * 3,
    )  # fmt: skip
    assert tf8.checkpoint_policies.dots_saveable(op)
    assert not tf8.checkpoint_policies.dots_with_no_batch_dims_saveable(op)


def test_a_symbolic_batch_compiles_once_for_every_size():
    x = tf8.placeholder(("n", 3, 8, 8), np.float64)
    w = RNG.uniform(-1, 1, (4, 3, 3, 3))
    y = lax.conv_general_dilated(x, w, (2, 1), ((1, 1), (0, 0)))
    assert str(y.shape[0]) == "n" and y.shape[1:] == (4, 4, 6)
    prepared = tf8.Runtime().prepare(tf8.GraphCompiler().compile(y))
    for n in (1, 5):
        data = RNG.uniform(-1, 1, (n, 3, 8, 8))
        expected = lax.conv_general_dilated(data, w, (2, 1), ((1, 1), (0, 0)))
        np.testing.assert_allclose(prepared.run(data)[0], np.asarray(expected), rtol=1e-13)
