"""gather / scatter_add: kernels against a slow loop reference of jax.lax's semantics."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tf8.errors import AxisError, DTypeError, ParameterError, ShapeError
from tf8.ops.definition import infer
from tf8.ops.gather import (
    gather_kernel,
    gather_shape,
    gather_transpose_params,
    scatter_add_kernel,
    scatter_add_shape,
    scatter_add_transpose_params,
    take_params,
    take_transpose_params,
)
from tf8.ops.primitive import Aval, Primitive
from tf8.ops.primitives import primitive_definition
from tf8.ops.shape_checks import describe

DTYPES = [np.bool_, np.int32, np.int64, np.float32, np.float64, np.complex64, np.complex128]
PROPERTY = settings(max_examples=max(20, settings.default.max_examples), deadline=None)


# --- slow references, written straight from the lax documentation ---------------------------


def reference_gather(
    operand, indices, offset_dims, collapsed_slice_dims, start_index_map, slice_sizes
):
    rank = operand.ndim
    framed = [d for d in range(rank) if d not in collapsed_slice_dims]
    out_rank = indices.ndim - 1 + len(offset_dims)
    batch_axes = [a for a in range(out_rank) if a not in offset_dims]
    out_shape = [0] * out_rank
    for axis, size in zip(batch_axes, indices.shape[:-1]):
        out_shape[axis] = size
    for axis, d in zip(offset_dims, framed):
        out_shape[axis] = slice_sizes[d]
    out = np.zeros(out_shape, operand.dtype)
    for out_index in itertools.product(*map(range, out_shape)):
        batch = tuple(out_index[a] for a in batch_axes)
        start = [0] * rank
        for k, d in enumerate(start_index_map):
            start[d] = int(indices[batch + (k,)])
        start = [min(max(s, 0), operand.shape[d] - slice_sizes[d]) for d, s in enumerate(start)]
        for axis, d in zip(offset_dims, framed):
            start[d] += out_index[axis]
        out[out_index] = operand[tuple(start)]
    return out


def reference_scatter_add(
    operand,
    indices,
    updates,
    update_window_dims,
    inserted_window_dims,
    scatter_dims_to_operand_dims,
):
    rank = operand.ndim
    out = operand.copy()
    scatter_axes = [a for a in range(updates.ndim) if a not in update_window_dims]
    framed = [d for d in range(rank) if d not in inserted_window_dims]
    window = [1] * rank
    for d, axis in zip(framed, update_window_dims):
        window[d] = updates.shape[axis]
    for update_index in itertools.product(*map(range, updates.shape)):
        batch = tuple(update_index[a] for a in scatter_axes)
        start = [0] * rank
        for k, d in enumerate(scatter_dims_to_operand_dims):
            start[d] = int(indices[batch + (k,)])
        if not all(0 <= s <= operand.shape[d] - window[d] for d, s in enumerate(start)):
            continue  # FILL_OR_DROP: the whole window is dropped
        for d, axis in zip(framed, update_window_dims):
            start[d] += update_index[axis]
        out[tuple(start)] += updates[update_index]
    return out


# --- strategies -------------------------------------------------------------------------------


def values(rng: np.random.Generator, shape, dtype) -> np.ndarray:
    """Small integers (exact in every dtype, so sums agree in any order)."""
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return rng.integers(0, 2, shape).astype(bool)
    out = rng.integers(-5, 6, shape).astype(dtype)
    if dtype.kind == "c":
        out += 1j * rng.integers(-5, 6, shape)
    return out


def subset(draw, n: int, size: int | None = None) -> tuple[int, ...]:
    chosen = draw(st.permutations(range(n)))
    return tuple(chosen[: draw(st.integers(0, n)) if size is None else size])


@st.composite
def gather_cases(draw, in_bounds: bool = False):
    shape = tuple(draw(st.lists(st.integers(1, 4), max_size=3)))
    rank = len(shape)
    collapsed = tuple(sorted(subset(draw, rank)))
    start_index_map = subset(draw, rank)
    sizes = tuple(1 if d in collapsed else draw(st.integers(0, shape[d])) for d in range(rank))
    batch = tuple(draw(st.lists(st.integers(0, 3), max_size=2)))
    window_rank = rank - len(collapsed)
    offset_dims = tuple(sorted(subset(draw, len(batch) + window_rank, window_rank)))
    dtype = np.float64 if in_bounds else draw(st.sampled_from(DTYPES))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    if in_bounds:
        high = [shape[d] - sizes[d] + 1 for d in start_index_map]
        indices = rng.integers(0, high, batch + (len(high),))
    else:
        indices = rng.integers(-2, max(shape, default=0) + 3, batch + (len(start_index_map),))
    params = {
        "offset_dims": offset_dims,
        "collapsed_slice_dims": collapsed,
        "start_index_map": start_index_map,
        "slice_sizes": sizes,
    }
    index_dtype = draw(st.sampled_from([np.int32, np.int64]))
    return values(rng, shape, dtype), indices.astype(index_dtype), params


@st.composite
def scatter_cases(draw):
    shape = tuple(draw(st.lists(st.integers(1, 4), max_size=3)))
    rank = len(shape)
    inserted = tuple(sorted(subset(draw, rank)))
    scatter_map = subset(draw, rank)
    window = [draw(st.integers(0, shape[d])) for d in range(rank) if d not in inserted]
    batch = list(draw(st.lists(st.integers(0, 3), max_size=2)))
    window_dims = tuple(sorted(subset(draw, len(batch) + len(window), len(window))))
    updates_shape = [
        window.pop(0) if a in window_dims else batch.pop(0) for a in range(len(batch) + len(window))
    ]
    dtype = draw(st.sampled_from(DTYPES))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    scatter_axes = [a for a in range(len(updates_shape)) if a not in window_dims]
    index_shape = tuple(updates_shape[a] for a in scatter_axes) + (len(scatter_map),)
    indices = rng.integers(-2, max(shape, default=0) + 3, index_shape)
    params = {
        "update_window_dims": window_dims,
        "inserted_window_dims": inserted,
        "scatter_dims_to_operand_dims": scatter_map,
    }
    operand, updates = values(rng, shape, dtype), values(rng, updates_shape, dtype)
    return operand, indices.astype(np.int64), updates, params


def gather(operand, indices, **params) -> np.ndarray:
    """Run the kernel, checking the shape rule and dtype rule agree with it."""
    op = Primitive("gather", 2, **params)
    out = gather_kernel(op, operand, indices)
    (aval,) = infer(op, [Aval(a.shape, a.dtype) for a in (operand, indices)])
    assert (aval.shape, aval.dtype) == (out.shape, out.dtype)
    return out


def scatter_add(operand, indices, updates, **params) -> np.ndarray:
    op = Primitive("scatter_add", 3, **params)
    before = operand.copy()
    out = scatter_add_kernel(op, operand, indices, updates)
    (aval,) = infer(op, [Aval(a.shape, a.dtype) for a in (operand, indices, updates)])
    assert (aval.shape, aval.dtype) == (out.shape, out.dtype)
    np.testing.assert_array_equal(operand, before)  # the kernel works on a copy
    return out


# --- properties -------------------------------------------------------------------------------


@PROPERTY
@given(gather_cases())
def test_gather_matches_reference(case):
    operand, indices, params = case
    expected = reference_gather(operand, indices, **params)
    np.testing.assert_array_equal(gather(operand, indices, **params), expected)


@PROPERTY
@given(scatter_cases())
def test_scatter_add_matches_reference(case):
    operand, indices, updates, params = case
    expected = reference_scatter_add(operand, indices, updates, **params)
    np.testing.assert_array_equal(scatter_add(operand, indices, updates, **params), expected)


@PROPERTY
@given(gather_cases(in_bounds=True), st.integers(0, 2**32 - 1))
def test_scatter_add_is_the_adjoint_of_gather(case, seed):
    x, indices, params = case
    gathered = gather(x, indices, **params)
    u = np.random.default_rng(seed).standard_normal(gathered.shape)
    transpose = gather_transpose_params(params)
    scattered = scatter_add(np.zeros_like(x), indices, u, **transpose)
    np.testing.assert_allclose(np.sum(gathered * u), np.sum(x * scattered), atol=1e-9)
    assert scatter_add_transpose_params(transpose, u.shape) == params


# --- examples ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "shape, axis, index_shape",
    [
        ((5,), 0, (3,)),
        ((4, 5), 1, (2, 3)),
        ((4, 5, 2), -2, ()),
        ((3, 4), 0, (0,)),
        ((3, 4), 1, (6,)),
    ],
)
def test_take_pattern_and_its_transpose(shape, axis, index_shape):
    rng = np.random.default_rng(0)
    x = rng.standard_normal(shape)
    idx = rng.integers(0, shape[axis], index_shape)
    out = gather(x, idx[..., None], **take_params(shape, axis, idx.ndim))
    np.testing.assert_array_equal(out, np.take(x, idx, axis))
    cotangent = rng.standard_normal(out.shape)
    expected = np.zeros(shape)
    lead = (slice(None),) * (axis % len(shape))
    for position in np.ndindex(idx.shape):
        expected[lead + (idx[position],)] += cotangent[lead + position]
    params = take_transpose_params(shape, axis, idx.ndim)
    np.testing.assert_allclose(
        scatter_add(np.zeros(shape), idx[..., None], cotangent, **params), expected
    )


def test_take_params_rejects_a_bad_axis():
    with pytest.raises(AxisError, match="axis 2"):
        take_params((3, 4), 2, 1)


def test_point_gather_pairs():
    x = np.arange(20.0).reshape(4, 5)
    pairs = np.array([[0, 0], [3, 4], [1, 2], [9, -3]])  # the last is clamped to (3, 0)
    params = {"offset_dims": (), "collapsed_slice_dims": (0, 1), "slice_sizes": (1, 1)}
    out = gather(x, pairs, start_index_map=(0, 1), **params)
    np.testing.assert_array_equal(out, x[[0, 3, 1, 3], [0, 4, 2, 0]])
    swapped = gather(x, pairs[:3], start_index_map=(1, 0), **params)
    np.testing.assert_array_equal(swapped, x[[0, 3, 2], [0, 3, 1]])  # 4 clamps to 3


def test_gather_slices_larger_than_one_are_clamped_whole():
    x = np.arange(30).reshape(5, 6)
    starts = np.array([[0], [4], [-1], [2]])
    params = {"offset_dims": (1, 2), "collapsed_slice_dims": (), "slice_sizes": (2, 6)}
    out = gather(x, starts, start_index_map=(0,), **params)
    assert out.shape == (4, 2, 6)
    for row, start in zip(out, [0, 3, 0, 2]):
        np.testing.assert_array_equal(row, x[start : start + 2])


def test_scatter_add_drops_windows_that_do_not_fit_and_accumulates_repeats():
    starts = np.array([[-1], [5], [4], [2], [2], [0]])
    updates = np.arange(12.0).reshape(6, 2)
    params = {"update_window_dims": (1,), "inserted_window_dims": ()}
    out = scatter_add(np.zeros(5), starts, updates, scatter_dims_to_operand_dims=(0,), **params)
    np.testing.assert_array_equal(out, [10.0, 11.0, 6.0 + 8.0, 7.0 + 9.0, 0.0])


def test_empty_batches_and_scalar_operands():
    x = np.arange(6.0).reshape(2, 3)
    out = gather(x, np.zeros((2, 0, 1), np.int32), **take_params(x.shape, 1, 2))
    assert out.shape == (2, 2, 0)
    empty = scatter_add(
        x, np.zeros((0, 1), np.int64), np.zeros((2, 0)), **take_transpose_params(x.shape, 1, 1)
    )
    np.testing.assert_array_equal(empty, x)
    scalar, no_index = np.array(2.5), np.zeros((3, 0), np.int64)
    params = {"offset_dims": (), "collapsed_slice_dims": (), "start_index_map": ()}
    np.testing.assert_array_equal(gather(scalar, no_index, slice_sizes=(), **params), [2.5] * 3)
    scatter_params = {"update_window_dims": (), "inserted_window_dims": ()}
    total = scatter_add(
        scalar,
        no_index,
        np.array([1.0, 2.0, 3.0]),
        scatter_dims_to_operand_dims=(),
        **scatter_params,
    )
    assert total.shape == () and total == 8.5


def test_rules_are_registered():
    assert primitive_definition("gather").shape is gather_shape
    assert primitive_definition("scatter_add").shape is scatter_add_shape


# --- errors -----------------------------------------------------------------------------------

TAKE = {"offset_dims": (1,), "collapsed_slice_dims": (0,), "start_index_map": (0,)}
ADD = {
    "update_window_dims": (1,),
    "inserted_window_dims": (0,),
    "scatter_dims_to_operand_dims": (0,),
}


def avals_of(shapes, index_dtype=np.int64) -> list[Aval]:
    avals = [Aval(s, np.dtype(np.float32)) for s in shapes]
    avals[1] = Aval(shapes[1], np.dtype(index_dtype))
    return avals


def shape_of(op, *shapes, index_dtype=np.int64):
    return infer(op, avals_of(shapes, index_dtype))


def assert_mentions(error: Exception, shapes, fragments) -> None:
    """The message names the operands (as `describe` prints them) and the offending numbers."""
    message = str(error)
    assert describe(avals_of(shapes)) in message
    for fragment in fragments:
        assert fragment in message


@pytest.mark.parametrize(
    "params, shapes, fragments",
    [
        (
            {**TAKE, "slice_sizes": (1, 2, 3)},
            [(4, 5), (3, 1)],
            ["slice_sizes (1, 2, 3)", "operand axis (2)"],
        ),
        ({**TAKE, "slice_sizes": (1, 6)}, [(4, 5), (3, 1)], ["slice_sizes[1] = 6 outside [0, 5]"]),
        (
            {**TAKE, "slice_sizes": (2, 5)},
            [(4, 5), (3, 1)],
            ["collapsed_slice_dims (0,) need slice size 1, got (2, 5)"],
        ),
        ({**TAKE, "slice_sizes": (1, 5)}, [(4, 5), (3, 2)], ["index vector length", "2 != 1"]),
        ({**TAKE, "slice_sizes": (1, 5)}, [(4, 5), ()], ["scalar"]),
        (
            {**TAKE, "offset_dims": (2,), "slice_sizes": (1, 5)},
            [(4, 5), (3, 1)],
            ["(2,)", "[0, 2)"],
        ),
        ({**TAKE, "offset_dims": (0, 1), "slice_sizes": (1, 5)}, [(4, 5), (3, 1)], ["offset_dims"]),
        ({**TAKE, "start_index_map": (0, 0), "slice_sizes": (1, 5)}, [(4, 5), (3, 2)], ["repeats"]),
        (
            {**TAKE, "collapsed_slice_dims": (1, 0), "offset_dims": (), "slice_sizes": (1, 1)},
            [(4, 5), (3, 1)],
            ["must be sorted"],
        ),
    ],
)
def test_gather_shape_errors(params, shapes, fragments):
    with pytest.raises(ShapeError, match="^gather: ") as info:
        shape_of(Primitive("gather", 2, **params), *shapes)
    assert_mentions(info.value, shapes, fragments)


@pytest.mark.parametrize(
    "params, shapes, fragments",
    [
        (ADD, [(4, 5), (3, 1), (2, 5)], ["updates axis 0", "2 != 3"]),
        (ADD, [(4, 5), (3, 1), (3, 6)], ["update window 6", "size 5"]),
        (ADD, [(4, 5), (3, 1), (3, 1, 5)], ["updates rank 3"]),
        ({**ADD, "inserted_window_dims": ()}, [(4, 5), (3, 1), (3, 5)], ["cover"]),
        ({**ADD, "update_window_dims": (2,)}, [(4, 5), (3, 1), (3, 5)], ["(2,)", "[0, 2)"]),
        ({**ADD, "scatter_dims_to_operand_dims": (0, 1)}, [(4, 5), (3, 1), (3, 5)], ["1 != 2"]),
    ],
)
def test_scatter_add_shape_errors(params, shapes, fragments):
    with pytest.raises(ShapeError, match="^scatter_add: ") as info:
        shape_of(Primitive("scatter_add", 3, **params), *shapes)
    assert_mentions(info.value, shapes, fragments)


def test_indices_must_be_integers():
    op = Primitive("gather", 2, slice_sizes=(1, 5), **TAKE)
    with pytest.raises(DTypeError, match="gather: indices must be int32 or int64, got float32"):
        shape_of(op, (4, 5), (3, 1), index_dtype=np.float32)
    with pytest.raises(DTypeError, match="scatter_add: indices .* got bool"):
        shape_of(Primitive("scatter_add", 3, **ADD), (4, 5), (3, 1), (3, 5), index_dtype=np.bool_)


def test_dimension_numbers_must_be_ints():
    with pytest.raises(ParameterError, match="offset_dims must be a tuple of ints"):
        shape_of(
            Primitive("gather", 2, **{**TAKE, "offset_dims": (1.0,)}, slice_sizes=(1, 5)),
            (4, 5),
            (3, 1),
        )
