"""JAX's small lax helpers (full, full_like, empty, dtype, broadcast_shapes, broadcast_to_rank,
broadcast_like, collapse, stack, unstack, split, tile, batch_matmul, the in-dim slices,
index_take, select_n), the parameter types (Precision, FftType), approx_max_k/approx_min_k,
platform_dependent and stage: values against numpy, derivatives, vmap and jit, errors."""

from __future__ import annotations

import numpy as np
import pytest

import tf8
from tf8 import lax
from tf8.errors import AxisError, DTypeError, ParameterError, ShapeError

RNG = np.random.default_rng(11)


def test_full_full_like_and_empty():
    out = lax.full((2, 3), 1.5)
    assert out.dtype == np.float64 and out._weak
    np.testing.assert_array_equal(out, np.full((2, 3), 1.5))
    typed = lax.full((2,), 7, "int32")
    assert typed.dtype == np.int32 and not typed._weak
    assert lax.full((2,), True).dtype == np.bool_
    like = lax.full_like(np.zeros((2, 2), np.float32), 2)
    assert like.dtype == np.float32 and not like._weak
    np.testing.assert_array_equal(lax.full_like(np.ones(3), 4.9, "int32"), [4, 4, 4])
    assert lax.full_like(np.ones(3), 0.0, shape=(2, 1)).shape == (2, 1)
    empty = lax.empty((3, 2), "uint8")
    assert empty.shape == (3, 2) and empty.dtype == np.uint8
    with pytest.raises(ShapeError, match="full: fill_value must be a scalar"):
        lax.full((2,), np.ones(2))
    traced = tf8.jit(lambda s: lax.full((2, 2), s))(3.0)  # a traced fill value
    np.testing.assert_array_equal(traced, np.full((2, 2), 3.0))
    assert float(tf8.grad(lambda s: lax.full((2, 3), s).sum())(1.0)) == 6.0


def test_dtype_is_jaxs_not_numpys():
    assert lax.dtype(1.5) == np.float64 and lax.dtype(3) == np.int64
    assert lax.dtype(True) == np.bool_ and lax.dtype(1j) == np.complex128
    assert lax.dtype(float) == np.float64 and lax.dtype("float32") == np.float32
    assert lax.dtype(np.ones(2, np.float32)) == np.float32
    assert lax.dtype(lax.full((1,), 2, "uint8")) == np.uint8
    with pytest.raises(ParameterError, match="dtype: got None"):
        lax.dtype(None)


def test_broadcasting_helpers():
    assert lax.broadcast_shapes((3, 1), (1, 4), (5, 1, 1)) == (5, 3, 4)
    assert lax.broadcast_shapes((2, 3)) == (2, 3) and lax.broadcast_shapes() == ()
    with pytest.raises(ShapeError, match=r"broadcast_shapes: shapes \(2, 3\), \(4,\)"):
        lax.broadcast_shapes((2, 3), (4,))
    x = RNG.uniform(size=(3,))
    assert lax.broadcast_to_rank(x, 3).shape == (1, 1, 3)
    with pytest.raises(ShapeError, match="broadcast_to_rank"):
        lax.broadcast_to_rank(np.ones((2, 2)), 1)
    like = np.zeros((2, 4, 3))
    np.testing.assert_array_equal(lax.broadcast_like(x, like), np.broadcast_to(x, like.shape))
    column = RNG.uniform(size=(4, 1))
    np.testing.assert_array_equal(
        lax.broadcast_like(column, like), np.broadcast_to(column, like.shape)
    )
    with pytest.raises(ShapeError, match="broadcast_like"):
        lax.broadcast_like(np.ones(2), like)
    grad = tf8.grad(lambda v: (lax.broadcast_like(v, like) * like.shape[0]).sum())(x)
    np.testing.assert_array_equal(grad, np.full(3, 2 * 4 * 2))


def test_collapse_stack_unstack_split_tile_match_numpy():
    cube = RNG.uniform(size=(2, 3, 4))
    np.testing.assert_array_equal(lax.collapse(cube, 1), cube.reshape(2, 12))
    np.testing.assert_array_equal(lax.collapse(cube, 0, 2), cube.reshape(6, 4))
    np.testing.assert_array_equal(lax.collapse(cube, -2, None), cube.reshape(2, 12))
    with pytest.raises(AxisError, match="collapse"):
        lax.collapse(cube, 2, 1)
    for axis in (0, 1, 2, -1):
        np.testing.assert_array_equal(lax.stack([cube[0], cube[1]], axis), np.stack(cube, axis))
    for axis in (0, 2, -1):
        parts = lax.unstack(cube, axis)
        assert isinstance(parts, tuple) and len(parts) == cube.shape[axis]
        for got, expected in zip(parts, np.moveaxis(cube, axis, 0)):
            np.testing.assert_array_equal(got, expected)
    pieces = lax.split(cube, (1, 0, 3), axis=2)
    for got, expected in zip(pieces, np.split(cube, [1, 1], axis=2)):
        np.testing.assert_array_equal(got, expected)
    np.testing.assert_array_equal(lax.tile(cube[0], (2, 3)), np.tile(cube[0], (2, 3)))
    np.testing.assert_array_equal(lax.tile(cube, (1, 0, 2)), np.tile(cube, (1, 0, 2)))
    with pytest.raises(ShapeError, match="split: sizes"):
        lax.split(cube, (1, 2), axis=0)
    with pytest.raises(ShapeError, match="stack: the operands must share one shape"):
        lax.stack([cube[0], cube[0, 0]])
    with pytest.raises(ShapeError, match="unstack"):
        lax.unstack(np.array(1.0))
    with pytest.raises(ShapeError, match="tile: reps"):
        lax.tile(cube, (2,))


def test_joining_and_splitting_derivatives_vmap_and_jit():
    x = RNG.uniform(size=(2, 3))
    tf8.check_grads(lambda a, b: lax.stack([a, b * a], 1), [x, x + 1], order=2)
    tf8.check_grads(lambda a: lax.tile(a, (2, 2)) ** 2, [x], order=2)
    tf8.check_grads(lambda a: [p * p for p in lax.split(a, (1, 2), 1)], [x], order=2)
    tf8.check_grads(lambda a: lax.unstack(a, 1)[2] ** 3, [x], order=2)
    batch = RNG.uniform(size=(4, 2, 3))
    np.testing.assert_array_equal(
        tf8.vmap(lambda a: lax.tile(a, (1, 2)))(batch),
        np.stack([np.tile(a, (1, 2)) for a in batch]),
    )
    np.testing.assert_array_equal(tf8.jit(lambda a: lax.stack(lax.unstack(a, 2), 0))(batch),
                                  np.moveaxis(batch, 2, 0))  # fmt: skip


def test_batch_matmul_and_precision():
    a, b = RNG.uniform(size=(2, 5, 2, 3)), RNG.uniform(size=(2, 5, 3, 4))
    np.testing.assert_allclose(lax.batch_matmul(a, b), a @ b, rtol=1e-14)
    for precision in (None, "highest", lax.Precision.HIGH, ("bfloat16", "float32")):
        np.testing.assert_allclose(lax.batch_matmul(a, b, precision), a @ b, rtol=1e-14)
    with pytest.raises(ShapeError, match="batch_matmul"):
        lax.batch_matmul(a[0], b)
    tf8.check_grads(lax.batch_matmul, [a[0], b[0]], order=2)
    assert lax.Precision("float32") is lax.Precision.HIGHEST
    assert lax.Precision("tensorfloat32") is lax.Precision.HIGH
    assert repr(lax.Precision.DEFAULT) == "Precision.DEFAULT" and str(lax.Precision.HIGH) == "HIGH"
    with pytest.raises(ValueError):
        lax.Precision("fastest-ever")
    from tf8.lax.precision import canonicalize_precision

    assert canonicalize_precision(None) is None
    assert canonicalize_precision(("high", lax.Precision.DEFAULT)) == (
        lax.Precision.HIGH,
        lax.Precision.DEFAULT,
    )
    with pytest.raises(ParameterError, match="precision must be"):
        canonicalize_precision("bogus")


def test_fft_type_selects_the_transform():
    x = RNG.uniform(size=(3, 8))
    assert [int(t) for t in lax.FftType] == [0, 1, 2, 3]
    np.testing.assert_allclose(lax.fft(x, lax.FftType.RFFT, (8,)), np.fft.rfft(x), rtol=1e-13)
    z = x + 1j
    np.testing.assert_allclose(lax.fft(z, lax.FftType.IFFT, (3, 8)), np.fft.ifft2(z), rtol=1e-13)


def test_in_dim_slices_match_numpy_indexing():
    x = RNG.uniform(size=(3, 5))
    np.testing.assert_array_equal(lax.slice_in_dim(x, 1, -1, 2, axis=1), x[:, 1:-1:2])
    np.testing.assert_array_equal(lax.slice_in_dim(x, None, 2), x[:2])
    np.testing.assert_array_equal(lax.index_in_dim(x, -1, axis=1), x[:, -1:])
    np.testing.assert_array_equal(lax.index_in_dim(x, 2, keepdims=False), x[2])
    with pytest.raises(ShapeError, match="index_in_dim: index 3"):
        lax.index_in_dim(x, 3)
    with pytest.raises(AxisError, match="slice_in_dim: axis 2"):
        lax.slice_in_dim(x, 0, 1, axis=2)
    expected = x.copy()
    expected[:, 4] = 7.0
    np.testing.assert_array_equal(
        lax.dynamic_update_index_in_dim(x, np.full(3, 7.0), -1, 1), expected
    )
    np.testing.assert_array_equal(
        lax.dynamic_update_index_in_dim(x, np.full((3, 1), 7.0), 9, 1), expected
    )
    clamped = lax.dynamic_update_index_in_dim(
        x, np.full(5, 2.0), -1, 0, allow_negative_indices=False
    )
    np.testing.assert_array_equal(clamped[0], np.full(5, 2.0))
    traced = tf8.jit(
        lambda v, i: lax.dynamic_update_index_in_dim(v, 7.0 * lax.full((3,), 1.0), i, 1)
    )
    np.testing.assert_array_equal(traced(x, np.int32(4)), expected)
    tf8.check_grads(lambda v, u: lax.dynamic_update_index_in_dim(v, u * u, 1, 0), [x, x[0]], 2)


def test_index_take_gathers_rows_with_wrapping_indices():
    cube = RNG.uniform(size=(3, 4, 5))
    i, j = np.array([0, 2, -1, 4]), np.array([3, -1, 0, 1])
    got = lax.index_take(cube, [i, j], (0, 1))
    np.testing.assert_array_equal(got, cube[i % 3, j % 4])
    np.testing.assert_array_equal(
        lax.index_take(cube, [j], (2,)), np.moveaxis(cube[..., j % 5], 2, 0)
    )
    tf8.check_grads(lambda c: lax.index_take(c, [i, j], (0, 1)) ** 2, [cube], order=2)
    looped = np.stack([lax.index_take(c, [i], (0,)) for c in np.moveaxis(cube, 2, 0)])
    np.testing.assert_array_equal(tf8.vmap(lambda c: lax.index_take(c, [i], (0,)), 2)(cube), looped)
    with pytest.raises(DTypeError, match="index_take: idxs"):
        lax.index_take(cube, [np.array([0.5])], (0,))
    with pytest.raises(AxisError, match="index_take: axes"):
        lax.index_take(cube, [i, i], (0, 0))


def test_select_n_picks_by_bool_and_int():
    a, b, c = RNG.uniform(size=(3, 2, 4))
    which = np.array([[0, 1, 2, 1], [2, 2, 0, 5]], np.int32)
    expected = np.choose(np.clip(which, 0, 2), [a, b, c])
    np.testing.assert_array_equal(lax.select_n(which, a, b, c), expected)
    np.testing.assert_array_equal(lax.select_n(np.int32(1), a, b, c), b)
    flags = a > 0.5
    np.testing.assert_array_equal(lax.select_n(flags, a, b), np.where(flags, b, a))
    np.testing.assert_array_equal(lax.select_n(flags, a), a)
    tf8.check_grads(lambda u, v, w: lax.select_n(which, u * v, v, w * w), [a, b, c], order=2)
    np.testing.assert_array_equal(tf8.jit(lax.select_n)(which, a, b, c), expected)
    looped = np.stack([lax.select_n(w, x, y) for w, x, y in zip(flags, a, b)])
    np.testing.assert_array_equal(tf8.vmap(lax.select_n)(flags, a, b), looped)
    with pytest.raises(DTypeError, match="select_n: a bool which picks among 2"):
        lax.select_n(flags, a, b, c)
    with pytest.raises(DTypeError, match="select_n: which must be bool or an integer"):
        lax.select_n(a, a, b)
    with pytest.raises(ShapeError, match="select_n: which"):
        lax.select_n(flags[0], a, b)
    with pytest.raises(DTypeError, match="select_n: the cases must share one dtype"):
        lax.select_n(flags, a, b.astype(np.float32))
    with pytest.raises(ParameterError, match="select_n: needs at least one case"):
        lax.select_n(flags)


def test_approx_top_k_is_exact_top_k():
    x = RNG.uniform(size=(3, 10))
    values, indices = lax.approx_max_k(x, 4)
    order = np.argsort(-x, axis=1, kind="stable")[:, :4]
    np.testing.assert_array_equal(indices, order)
    np.testing.assert_array_equal(values, np.take_along_axis(x, order, 1))
    assert indices.dtype == np.int32
    low, where = lax.approx_min_k(x, 2, reduction_dimension=0)
    np.testing.assert_array_equal(where, np.argsort(x, axis=0, kind="stable")[:2])
    np.testing.assert_array_equal(low, np.sort(x, axis=0)[:2])
    tf8.check_grads(lambda v: lax.approx_max_k(v, 3)[0], [x], order=2)
    with pytest.raises(ParameterError, match="approx_max_k: k must be in"):
        lax.approx_max_k(x, 11)
    with pytest.raises(DTypeError, match="approx_min_k: operand must be a real float"):
        lax.approx_min_k(np.arange(4), 2)
    with pytest.raises(ParameterError, match="aggregate_to_topk"):
        lax.approx_max_k(x, 2, aggregate_to_topk=False)


def test_platform_dependent_runs_the_cpu_branch_and_stage_lifts():
    x = np.array([0.5, 1.0])
    np.testing.assert_array_equal(
        lax.platform_dependent(x, cpu=lax.sin, default=lax.cos), np.sin(x)
    )
    np.testing.assert_array_equal(
        lax.platform_dependent(x, tpu=lax.sin, default=lax.cos), np.cos(x)
    )
    jitted = tf8.jit(lambda v: lax.platform_dependent(v, cpu=lambda u: u * 2, cuda=lax.exp))
    np.testing.assert_array_equal(jitted(x), 2 * x)
    with pytest.raises(ParameterError, match="no branch for the platform 'cpu'"):
        lax.platform_dependent(x, tpu=lax.sin)
    with pytest.raises(ParameterError, match="'cuda' or 'rocm'"):
        lax.platform_dependent(x, gpu=lax.sin)
    staged = lax.stage(2.0)
    assert isinstance(staged, tf8.Array) and staged._weak and float(staged) == 2.0
    np.testing.assert_array_equal(tf8.jit(lambda v: lax.stage(np.ones(2)) + v)(x), x + 1)
