"""`tf8.lax.gather` and the scatters: values against Python-loop references over many
dimension-number configurations (batching dimensions, repeated and out-of-bounds indices
under each mode), the mode names, and the errors for inconsistent arguments.
(Derivatives, vmap and jit: test_scatter_gather_transforms.py.)"""

from __future__ import annotations

import numpy as np
import pytest
from gather_scatter_reference import (
    SCATTERS,
    random_gather_config,
    random_scatter_config,
    reference_gather,
    reference_scatter,
)

import tf8
from tf8 import lax
from tf8.errors import DTypeError, ParameterError, ShapeError, UnsupportedOperationError

GDN, SDN, MODE = lax.GatherDimensionNumbers, lax.ScatterDimensionNumbers, lax.GatherScatterMode
TAKE = GDN(offset_dims=(1,), collapsed_slice_dims=(0,), start_index_map=(0,))
PUT = SDN(update_window_dims=(1,), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,))


def _scatter(name: str):
    return getattr(lax, name)


# --- values against the loop references --------------------------------------------------------


@pytest.mark.parametrize("seed", range(40))
@pytest.mark.parametrize("mode", ["clip", "fill", "promise_in_bounds", None])
def test_gather_matches_the_loop_reference(seed, mode):
    x, idx, dn, sizes = random_gather_config(np.random.default_rng(seed))
    # None and PROMISE_IN_BOUNDS clamp, as XLA does (JAX's default for gather)
    expected = reference_gather(x, idx, dn, sizes, "fill" if mode == "fill" else "clip", np.nan)
    out = lax.gather(x, idx, GDN(*dn), sizes, mode=mode)
    assert isinstance(out, tf8.Array) and out.dtype == x.dtype
    np.testing.assert_array_equal(np.asarray(out), expected)


@pytest.mark.parametrize("seed", range(25))
@pytest.mark.parametrize("name", SCATTERS)
@pytest.mark.parametrize("mode", ["clip", "drop", "promise_in_bounds", None])
def test_scatter_matches_the_loop_reference(seed, name, mode):
    x, idx, u, dn = random_scatter_config(np.random.default_rng(seed))
    expected = reference_scatter(name, x, idx, u, dn, "clip" if mode == "clip" else "drop")
    out = _scatter(name)(x, idx, u, SDN(*dn), mode=mode)
    assert out.shape == x.shape and out.dtype == x.dtype
    np.testing.assert_allclose(np.asarray(out), expected, rtol=1e-13, atol=1e-13)


def test_repeated_indices_combine_in_turn_and_scatter_keeps_the_last():
    x = np.array([1.0, 5.0, -2.0, 3.0])
    idx = np.array([[1], [3], [1], [1], [3]])
    u = np.array([2.0, -1.0, 7.0, 0.5, 4.0])
    dn = SDN((), (0,), (0,))
    np.testing.assert_array_equal(lax.scatter(x, idx, u, dn), [1.0, 0.5, -2.0, 4.0])
    np.testing.assert_array_equal(lax.scatter_add(x, idx, u, dn), [1.0, 14.5, -2.0, 6.0])
    np.testing.assert_array_equal(lax.scatter_sub(x, idx, u, dn), [1.0, -4.5, -2.0, 0.0])
    np.testing.assert_array_equal(lax.scatter_mul(x, idx, u, dn), [1.0, 35.0, -2.0, -12.0])
    np.testing.assert_array_equal(lax.scatter_min(x, idx, u, dn), [1.0, 0.5, -2.0, -1.0])
    np.testing.assert_array_equal(lax.scatter_max(x, idx, u, dn), [1.0, 7.0, -2.0, 4.0])


def test_modes_on_out_of_bounds_windows():
    x = np.arange(12.0).reshape(4, 3)
    idx = np.array([[-1], [2], [9]])
    np.testing.assert_array_equal(lax.gather(x, idx, TAKE, (1, 3)), x[[0, 2, 3]])
    np.testing.assert_array_equal(lax.gather(x, idx, TAKE, (1, 3), mode="clip"), x[[0, 2, 3]])
    filled = lax.gather(x, idx, TAKE, (1, 3), mode=MODE.FILL_OR_DROP)
    assert np.isnan(filled[0]).all() and np.isnan(filled[2]).all()
    np.testing.assert_array_equal(filled[1], x[2])
    with_value = lax.gather(x, idx, TAKE, (1, 3), mode="fill", fill_value=-7)
    np.testing.assert_array_equal(with_value, [[-7] * 3, x[2], [-7] * 3])
    u = np.ones((3, 3))
    dropped = lax.scatter_add(x, idx, u, PUT)  # the default drops
    np.testing.assert_array_equal(dropped, x + np.array([[0], [0], [1], [0]]))
    clipped = lax.scatter_add(x, idx, u, PUT, mode="clip")
    np.testing.assert_array_equal(clipped, x + np.array([[1], [0], [1], [1]]))


def test_a_window_that_does_not_fit_whole_is_filled_or_dropped_whole():
    x = np.arange(10.0)
    idx = np.array([[7], [8]])  # windows of 3: [7, 10) fits, [8, 11) does not
    dn = GDN(offset_dims=(1,), collapsed_slice_dims=(), start_index_map=(0,))
    out = lax.gather(x, idx, dn, (3,), mode="fill", fill_value=0.0)
    np.testing.assert_array_equal(out, [[7.0, 8.0, 9.0], [0.0, 0.0, 0.0]])
    np.testing.assert_array_equal(lax.gather(x, idx, dn, (3,)), [[7.0, 8.0, 9.0]] * 2)
    sdn = SDN(update_window_dims=(1,), inserted_window_dims=(), scatter_dims_to_operand_dims=(0,))
    out = lax.scatter(x, idx, np.full((2, 3), -1.0), sdn)
    np.testing.assert_array_equal(out, [0, 1, 2, 3, 4, 5, 6, -1, -1, -1])


@pytest.mark.parametrize(
    "dtype, fill",
    [
        (np.float32, np.nan),
        (np.complex128, np.nan),
        (np.int32, -(2**31)),
        (np.uint8, 255),
        (np.bool_, True),
    ],
)
def test_default_fill_values_follow_jax(dtype, fill):
    x = np.ones(3, dtype)
    dn = GDN((), (0,), (0,))
    out = lax.gather(x, np.array([[5]]), dn, (1,), mode="fill")
    assert out.dtype == x.dtype
    np.testing.assert_array_equal(np.asarray(out), np.array([fill]).astype(dtype))


def test_operand_batching_dims_pair_each_index_position_with_its_own_slice():
    x = np.arange(24.0).reshape(2, 3, 4)
    idx = np.array([[[1], [2]], [[0], [3]]])  # per example of axis 0: two starts on axis 2
    dn = GDN((2,), (2,), (2,), operand_batching_dims=(0,), start_indices_batching_dims=(0,))
    out = lax.gather(x, idx, dn, (1, 3, 1))
    expected = np.stack([x[b][:, idx[b, :, 0]].T for b in range(2)])
    np.testing.assert_array_equal(out, expected)
    sdn = SDN((2,), (2,), (2,), operand_batching_dims=(0,), scatter_indices_batching_dims=(0,))
    back = lax.scatter_add(np.zeros_like(x), idx, np.ones((2, 2, 3)), sdn)
    for b in range(2):
        hit = np.zeros((3, 4))
        hit[:, idx[b, :, 0]] += 1
        np.testing.assert_array_equal(back[b], hit)


def test_dtypes_and_index_dtypes():
    dn = SDN((), (0,), (0,))
    for dtype in (np.float32, np.int32, np.uint8, np.complex64):
        x, u = np.arange(4).astype(dtype), np.array([3, 2]).astype(dtype)
        for idx in (np.array([[1], [1]], np.int32), np.array([[1], [1]], np.uint8)):
            out = lax.scatter_add(x, idx, u, dn)
            assert out.dtype == dtype
            np.testing.assert_array_equal(out, np.array([0, 6, 2, 3]).astype(dtype))
    flags = np.array([False, True, False])
    out = lax.scatter_max(flags, np.array([[0]]), np.array([True]), dn)
    np.testing.assert_array_equal(out, [True, True, False])
    assert lax.scatter(flags, np.array([[1]]), np.array([False]), dn).tolist() == [False] * 3


def test_a_plain_tuple_and_a_jax_style_namedtuple_are_accepted():
    x, idx = np.arange(5.0), np.array([[4], [1]])
    expected = lax.gather(x, idx, GDN((), (0,), (0,)), (1,))
    np.testing.assert_array_equal(lax.gather(x, idx, ((), (0,), (0,)), [1]), expected)
    np.testing.assert_array_equal(lax.gather(x, idx, GDN([], [0], [np.int64(0)]), (1,)), expected)


# --- GatherScatterMode ---------------------------------------------------------------------


def test_mode_names_are_jaxs():
    assert MODE.from_any(None) is MODE.FILL_OR_DROP
    assert MODE.from_any("fill") is MODE.from_any("drop") is MODE.FILL_OR_DROP
    assert MODE.from_any("clip") is MODE.CLIP
    assert MODE.from_any("promise_in_bounds") is MODE.PROMISE_IN_BOUNDS
    assert MODE.from_any("one_hot") is MODE.ONE_HOT
    assert MODE.from_any(MODE.CLIP) is MODE.CLIP
    with pytest.raises(ParameterError, match="'nearest'"):
        MODE.from_any("nearest")
    with pytest.raises(ParameterError):
        MODE.from_any("CLIP")  # JAX's names are lower case


def test_numpy_at_takes_the_mode_enum():
    x = tf8.numpy.arange(4.0)
    got = x.at[np.array([1, 7])].get(mode=MODE.FILL_OR_DROP, fill_value=-1.0)
    np.testing.assert_array_equal(got, [1.0, -1.0])
    np.testing.assert_array_equal(x.at[7].set(9.0, mode=MODE.CLIP), [0.0, 1.0, 2.0, 9.0])


def test_numpy_at_with_traced_repeated_indices_combines_as_jax():
    """Under jit the positions are traced: one scatter row each (values recorded from JAX)."""
    x, i, v = tf8.numpy.full(3, 5.0), np.array([1, 1, 2]), np.array([3.0, 1.0, 4.0])
    expected = {
        "set": [5.0, 1.0, 4.0],
        "multiply": [5.0, 15.0, 20.0],
        "min": [5.0, 1.0, 4.0],
        "max": [5.0, 5.0, 5.0],
        "add": [5.0, 9.0, 9.0],
    }
    for name, values in expected.items():
        out = tf8.jit(lambda x, i, v, name=name: getattr(x.at[i], name)(v))(x, i, v)
        np.testing.assert_array_equal(out, values)

    def loss(x, v, i, unique=True):
        return (x.at[i].multiply(v, unique_indices=unique) ** 2).sum()

    x, v, i = np.array([1.0, 2.0, 3.0]), np.array([0.5, -2.0]), np.array([2, 0])
    traced = tf8.jit(tf8.grad(loss, argnums=(0, 1)))(x, v, i)  # positions traced: scatter_mul
    constant = tf8.grad(lambda x, v: loss(x, v, i), argnums=(0, 1))(x, v)  # positions known
    for a, b in zip(traced, constant):
        np.testing.assert_allclose(a, b, rtol=1e-14)
    np.testing.assert_allclose(constant[1], [2 * 3.0**2 * 0.5, 2 * 1.0**2 * -2.0])
    with pytest.raises(UnsupportedOperationError, match="unique_indices"):
        tf8.jit(tf8.grad(lambda x, v, i: loss(x, v, i, False), argnums=1))(x, v, i)


# --- errors -----------------------------------------------------------------------------------


X, IDX = np.zeros((5, 3)), np.array([[1], [4]])


@pytest.mark.parametrize(
    "dn, sizes, match",
    [
        (GDN((1,), (0,), (0,)), (2, 3), "collapsed_slice_dims"),
        (GDN((1,), (0,), (0, 1)), (1, 3), "start_index_map"),
        (GDN((1,), (0,), (0,)), (1, 4), "slice_sizes"),
        (GDN((1,), (0,), (0,)), (1,), "slice_sizes"),
        (GDN((2,), (0,), (0,)), (1, 3), "offset_dims"),
        (GDN((1,), (), (0,)), (1, 3), "offset_dims"),
        (GDN((1,), (0,), (2,)), (1, 3), "start_index_map"),
        (GDN((1,), (0,), (0,), (1,), (0,)), (1, 1), "batching"),
        (GDN((1,), (0,), (0,), (1,), ()), (1, 1), "pair up"),
        (GDN((1,), (0,), (0,), (0,), (0,)), (1, 3), "overlap"),
        (GDN((1,), (0,), (0,), (1,), (1,)), (1, 1), "index vector"),
    ],
)
def test_inconsistent_gather_numbers_are_refused_naming_them(dn, sizes, match):
    with pytest.raises(ShapeError, match=match) as info:
        lax.gather(X, IDX, dn, sizes)
    assert "gather" in str(info.value)


def test_gather_argument_errors():
    with pytest.raises(DTypeError, match=r"gather: start_indices .*float64\(2, 1\)"):
        lax.gather(X, IDX.astype(float), TAKE, (1, 3))
    with pytest.raises(ShapeError, match="index vector"):
        lax.gather(X, np.array(1), TAKE, (1, 3))
    with pytest.raises(ParameterError, match="nearest"):
        lax.gather(X, IDX, TAKE, (1, 3), mode="nearest")
    with pytest.raises(ParameterError, match="ONE_HOT"):
        lax.gather(X, IDX, TAKE, (1, 3), mode="one_hot")
    with pytest.raises(ParameterError, match="fill_value"):
        lax.gather(X, IDX, TAKE, (1, 3), mode="fill", fill_value=np.zeros(3))
    with pytest.raises(ParameterError, match="GatherDimensionNumbers"):
        lax.gather(X, IDX, {"offset_dims": (1,)}, (1, 3))
    with pytest.raises(ParameterError, match="sequence of ints"):
        lax.gather(X, IDX, GDN((1.5,), (0,), (0,)), (1, 3))
    with pytest.raises(ParameterError, match="slice_sizes"):
        lax.gather(X, IDX, TAKE, 3)


U = np.zeros((2, 3))


@pytest.mark.parametrize("name", SCATTERS)
@pytest.mark.parametrize(
    "args, error, match",
    [
        ((X, IDX, U.astype(np.float32), PUT), DTypeError, r"float64\(5, 3\).*float32\(2, 3\)"),
        ((X, IDX.astype(float), U, PUT), DTypeError, "scatter_indices"),
        ((X, IDX, U[:1], PUT), ShapeError, "updates"),
        ((X, IDX, np.zeros((2, 4)), PUT), ShapeError, "window"),
        ((X, IDX, U, SDN((0,), (0,), (0,))), ShapeError, "updates axis"),
        ((X, IDX, U, SDN((0, 1), (0,), (0,))), ShapeError, "update_window_dims"),
        ((X, IDX, U, SDN((1,), (0,), (0, 1))), ShapeError, "scatter_dims_to_operand_dims"),
        ((X, IDX, U, SDN((1,), (0,), (0,), (0,), (0,))), ShapeError, "overlap"),
        ((X, IDX, U, SDN((1,), (0,), (0,), (1,), ())), ShapeError, "pair up"),
    ],
)
def test_inconsistent_scatters_are_refused_naming_the_function(name, args, error, match):
    with pytest.raises(error, match=match) as info:
        _scatter(name)(*args)
    assert str(info.value).startswith(f"{name}: ")


def test_scatter_mode_and_dtype_refusals():
    with pytest.raises(ParameterError, match="ONE_HOT"):
        lax.scatter(X, IDX, U, PUT, mode="one_hot")
    with pytest.raises(ParameterError, match="wrap"):
        lax.scatter_add(X, IDX, U, PUT, mode="wrap")
    flags = np.zeros((5, 3), bool)
    for name in ("scatter_add", "scatter_sub", "scatter_mul"):
        with pytest.raises(DTypeError, match=f"{name}: bool"):
            _scatter(name)(flags, IDX, U.astype(bool), PUT)


def test_modes_that_need_static_sizes_refuse_symbolic_ones():
    x = tf8.placeholder(("n", 3), np.float64)
    with pytest.raises(UnsupportedOperationError, match=r"gather: mode FILL_OR_DROP.*\(n, 3\)"):
        lax.gather(x, IDX, TAKE, (1, 3), mode="fill")
    with pytest.raises(UnsupportedOperationError, match=r"scatter_max: mode CLIP.*\(n, 3\)"):
        lax.scatter_max(x, IDX, U, PUT, mode="clip")
    assert lax.gather(x, IDX, TAKE, (1, 3)).shape == (2, 3)  # clamping needs no sizes
    assert lax.scatter_max(x, IDX, U, PUT).shape == x.shape  # nor does dropping


def test_scatter_mul_derivative_in_the_updates_needs_unique_indices():
    def f(u):
        return lax.scatter_mul(np.ones((5, 3)), IDX, u, PUT)

    with pytest.raises(UnsupportedOperationError, match="unique_indices=True"):
        tf8.grad(lambda u: f(u).sum())(np.ones((2, 3)))
