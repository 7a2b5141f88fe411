"""`x[index]` (basic, integer-array, mixed, constant masks) and `x.at[index]` against numpy."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import tf8
import tf8.numpy as tnp
from tf8 import errors

A = np.arange(60.0).reshape(3, 4, 5)

INDICES: list[Any] = [
    1,
    -1,
    (slice(None), 2),
    (Ellipsis, 1),
    (None, 1, None),
    (slice(1, None), slice(None, None, -2), slice(3, 0, -1)),
    (slice(-2, None), Ellipsis, slice(None, 2)),
    [0, 0, 2],
    [-1, 1],
    [[0, 1], [2, 2]],
    (slice(None), [1, 3]),
    ([0, 2], [1, 3]),
    ([0, 2], slice(None), [1, 3]),
    (slice(None), [0, 1], [2, 3]),
    (0, Ellipsis, [0, 4]),
    (slice(None), 0, [0, 4]),
    ([0, 1], 2),
    (None, [0, 2], None, [1, 1]),
    ([[0], [2]], slice(1, 3), [[1, 2]]),
    (Ellipsis, [4, -5]),
    np.array([2, 0]),
    (np.array(1), 2),
    A[:, 0, 0] > 10,
    (slice(None), A[0, :, 0] > 6),
    [],
]


@pytest.mark.parametrize("index", INDICES, ids=repr)
def test_getitem_matches_numpy(index: Any) -> None:
    got = tf8.tensor(A)[index]
    expected = A[index]
    assert got.shape == expected.shape
    np.testing.assert_array_equal(np.asarray(got), expected)


@pytest.mark.parametrize("index", INDICES, ids=repr)
def test_traced_integer_indices_match_numpy(index: Any) -> None:
    """The same index with every integer array a TracedTensor goes through gather."""

    def trace(item: Any) -> Any:
        if isinstance(item, list) or (isinstance(item, np.ndarray) and item.dtype != bool):
            return tf8.tensor(np.asarray(item, dtype=np.int64))
        return item

    traced = tuple(trace(i) for i in index) if isinstance(index, tuple) else trace(index)
    np.testing.assert_array_equal(np.asarray(tf8.tensor(A)[traced]), A[index])


@given(
    shape=st.lists(st.integers(1, 4), min_size=1, max_size=3).map(tuple),
    data=st.data(),
)
def test_random_basic_and_advanced_indices(shape: tuple[int, ...], data: st.DataObject) -> None:
    a = np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape)
    items = []
    for d in shape:
        kind = data.draw(st.sampled_from(["int", "slice", "array", "all"]))
        if kind == "int":
            items.append(data.draw(st.integers(-d, d - 1)))
        elif kind == "slice":
            bound = st.none() | st.integers(-d - 2, d + 2)
            step = st.none() | st.sampled_from([1, 2, -1, -3])
            items.append(slice(data.draw(bound), data.draw(bound), data.draw(step)))
        elif kind == "array":
            items.append(data.draw(st.lists(st.integers(-d, d - 1), min_size=1, max_size=3)))
        else:
            items.append(slice(None))
    index = tuple(items)
    np.testing.assert_array_equal(np.asarray(tf8.tensor(a)[index]), a[index])


def test_traced_indices_wrap_negatives_and_clamp_out_of_range() -> None:
    x = tf8.tensor(np.arange(5.0))
    idx = tf8.tensor(np.array([-1, -5, 4, 7, -9]))
    np.testing.assert_array_equal(np.asarray(x[idx]), [4.0, 0.0, 4.0, 4.0, 0.0])


def test_static_out_of_bounds_indices_clamp_as_jax_does() -> None:
    x = tf8.tensor(A)  # jax: x[3] is x[2], x[-9] is x[0], x[:, [0, 7]] reads column 3
    np.testing.assert_array_equal(np.asarray(x[3]), A[2])
    np.testing.assert_array_equal(np.asarray(x[-9]), A[0])
    np.testing.assert_array_equal(np.asarray(x[:, [0, 7]]), A[:, [0, 3]])
    np.testing.assert_array_equal(tf8.jit(lambda v: v[5, 1])(A), A[2, 1])


def test_index_errors_name_the_axis_and_size(strict_indexing) -> None:
    x = tf8.tensor(A)
    with pytest.raises(
        errors.IndexingError, match="index 3 is out of bounds for axis 0 with size 3"
    ):
        x[3]
    with pytest.raises(
        errors.IndexingError, match="index 7 is out of bounds for axis 1 with size 4"
    ):
        x[:, [0, 7]]
    with pytest.raises(IndexError, match="too many indices"):
        x[0, 0, 0, 0]
    with pytest.raises(errors.IndexingError, match="single ellipsis"):
        x[..., 0, ...]
    with pytest.raises(errors.IndexingError, match="only integers"):
        x[[0.5]]
    with pytest.raises(errors.DTypeError, match="integers"):
        x[tf8.tensor(np.array([0.5]))]


def test_boolean_masks_need_concrete_values() -> None:
    x = tf8.tensor(A)
    np.testing.assert_array_equal(x[x > 3], A[A > 3])  # a concrete mask (issue 15)
    with pytest.raises(errors.ConcretizationError, match="shape depends on them"):
        tf8.jit(lambda v: v[v > 3])(A)
    with pytest.raises(errors.UnsupportedOperationError, match="bool scalar"):
        x[True]


def test_setitem_points_to_at() -> None:
    x = tf8.tensor(A)
    with pytest.raises(errors.InPlaceAssignmentError, match=r"\.at\[i\]\.set"):
        x[0] = 1.0


# --- x.at[index] ---------------------------------------------------------------------------

AT_INDICES: list[Any] = [
    0,
    (slice(None), 1),
    (Ellipsis, slice(1, 4, 2)),
    [0, 0, 2],
    ([0, 0, 2, 0], [1, 1, 3, 1]),
    (slice(None), [3, 3], 0),
    A > 30,
    (),
]


def _numpy_at(a: np.ndarray, index: Any, values: Any, op: str) -> np.ndarray:
    out = a.copy()
    if op == "set":
        out[index] = values
    else:
        getattr(np, op).at(out, index, values)
    return out


@pytest.mark.parametrize("index", AT_INDICES, ids=repr)
@pytest.mark.parametrize(
    ("method", "ufunc"),
    [
        ("set", "set"),
        ("add", "add"),
        ("multiply", "multiply"),
        ("min", "minimum"),
        ("max", "maximum"),
    ],
)
def test_at_matches_numpy_including_repeated_indices(index: Any, method: str, ufunc: str) -> None:
    values = np.asarray(A[index]) * 0.5 - 7.0
    got = getattr(tf8.tensor(A).at[index], method)(values)
    np.testing.assert_allclose(np.asarray(got), _numpy_at(A, index, values, ufunc))


def test_at_broadcasts_and_casts_values() -> None:
    x = tf8.tensor(np.zeros((3, 4), dtype=np.float32))
    out = x.at[:, 1].set(2)  # a Python scalar broadcast over the column, kept float32
    assert out.dtype == np.float32
    np.testing.assert_array_equal(np.asarray(out)[:, 1], [2, 2, 2])
    row = x.at[1].add(np.arange(4.0))
    np.testing.assert_array_equal(np.asarray(row)[1], np.arange(4.0))
    np.testing.assert_array_equal(np.asarray(x.at[1:, 2].get()), [0, 0])
    np.testing.assert_array_equal(np.asarray(x.at[0].divide(2.0)), np.zeros((3, 4)))


def test_at_with_traced_indices() -> None:
    a = np.arange(6.0)
    idx = tf8.tensor(np.array([4, 1]))
    x = tf8.tensor(a)
    np.testing.assert_array_equal(np.asarray(x.at[idx].set(-1.0)), [0, -1, 2, 3, -1, 5])
    np.testing.assert_array_equal(np.asarray(x.at[idx].add(10.0)), [0, 11, 2, 3, 14, 5])
    np.testing.assert_array_equal(np.asarray(x.at[idx].multiply(2.0)), [0, 2, 2, 3, 8, 5])


def test_at_errors() -> None:
    x = tf8.tensor(A)
    with pytest.raises(errors.ParameterError, match="unknown mode 'raise'"):
        x.at[0].get(mode="raise")  # jax: ValueError Unknown gather mode "raise"
    with pytest.raises(errors.ShapeError, match="broadcast"):
        x.at[0].set(np.zeros(7))
    with pytest.raises(errors.UnsupportedOperationError, match="unknown arguments"):
        x.at[0].set(0.0, wrong=True)


def test_take_and_len() -> None:
    x = tf8.tensor(A)
    assert len(x) == 3
    np.testing.assert_array_equal(np.asarray(tnp.take(x, [1, -1], axis=2)), np.take(A, [1, -1], 2))
    np.testing.assert_array_equal(np.asarray(x.take([0, 7])), A.take([0, 7]))
    with pytest.raises(errors.IndexingError, match="out of bounds"):
        tnp.take(x, [9], axis=1, mode="raise")


def test_take_fills_out_of_bounds_as_jax() -> None:
    """jnp.take's default mode 'fill': -n <= i < n read a[i], others NaN / the extreme int,
    on every path; the derivative of a filled position is 0."""
    a = np.arange(5.0)
    idx = np.array([1, 7, -1, -6])
    expected = np.array([1.0, np.nan, 4.0, np.nan])
    np.testing.assert_array_equal(np.asarray(tnp.take(a, idx)), expected)
    np.testing.assert_array_equal(np.asarray(tf8.jit(tnp.take)(a, idx)), expected)
    np.testing.assert_array_equal(np.asarray(tnp.take(a, idx, fill_value=-1.0)), [1, -1, 4, -1])
    ints = tnp.take(np.arange(5, dtype=np.int32), idx)
    np.testing.assert_array_equal(np.asarray(ints), [1, -(2**31), 4, -(2**31)])
    unsigned = tnp.take(np.arange(5, dtype=np.uint8), np.array([7]))
    np.testing.assert_array_equal(np.asarray(unsigned), [255])
    grad = tf8.grad(lambda v: tnp.sum(tnp.take(v, idx, fill_value=0.0) * 2.0))(a)
    np.testing.assert_array_equal(np.asarray(grad), [0.0, 2.0, 0.0, 0.0, 2.0])
    with pytest.raises(errors.DTypeError):
        tnp.take(a, np.array([0.0, 1.0]))
