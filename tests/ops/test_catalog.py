"""Every catalog row executes and matches numpy (or its documented reference).

Driven by the catalog table: `catalog_cases.GENERATORS` holds one random-case generator per
row, and a test fails when a row has none. Each row runs as the primitive itself
(`tf8.lax.core.apply1`) for every dtype its policy admits, and is refused with DTypeError for
every other dtype. The tf8.numpy wrappers run with numpy's broadcasting, mixed dtypes and
Python scalars, and must give numpy ≥ 2's result dtype. numpy warnings must not escape.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pytest
import scipy.special
from catalog_cases import ADMITTED, ALL, BOOL, GENERATORS, Draw, kept_in_float16
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import tf8
import tf8.numpy as tnp
from tf8.errors import DTypeError
from tf8.lax.core import apply1
from tf8.ops.catalog import Category
from tf8.ops.dtypes import canonical_dtype
from tf8.ops.primitives import CATALOG_HEADERS, PRIMITIVES, catalog_table

pytestmark = pytest.mark.filterwarnings("error::RuntimeWarning")

ROWS = [d.row for d in PRIMITIVES.values()]
NAMES = [row.name for row in ROWS]
SHAPES = hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=4)
SEEDS = st.integers(0, 2**32 - 1)


def assert_matches(got: np.ndarray, expected: np.ndarray, what: str) -> None:
    """Same dtype and shape, values equal up to the dtype's rounding (NaNs equal)."""
    assert got.dtype == expected.dtype, f"{what}: dtype {got.dtype} != numpy's {expected.dtype}"
    assert got.shape == expected.shape, f"{what}: shape {got.shape} != numpy's {expected.shape}"
    if got.dtype.kind in "fc":
        single = got.dtype in (np.float32, np.complex64)
        rtol, atol = (2e-6, 1e-6) if single else (1e-13, 1e-13)
        rtol, atol = (2e-3, 1e-3) if got.dtype == np.float16 else (rtol, atol)
        np.testing.assert_allclose(
            got, expected, rtol=rtol, atol=atol, equal_nan=True, err_msg=what
        )
    else:
        np.testing.assert_array_equal(got, expected, err_msg=what)


# --- the table itself -------------------------------------------------------------------------


def test_every_row_has_a_generator_and_dtype_spec():
    missing = sorted(set(NAMES) - set(GENERATORS))
    assert not missing, f"catalog rows without a test-case generator: {missing}"
    assert not sorted(set(GENERATORS) - set(NAMES)), "generators for rows not in the catalog"
    assert set(ADMITTED) == set(NAMES)


def test_catalog_is_one_table():
    assert len(NAMES) == len(set(NAMES)) == len(PRIMITIVES) == 115
    assert all(PRIMITIVES[name].kernel is not None for name in NAMES), "every row has a kernel"
    for row in ROWS:
        assert row.max_arity is None or row.max_arity >= row.min_arity >= 0
        assert isinstance(row.category, Category)
    table = catalog_table()
    assert len(table) == len(ROWS)
    assert all(len(line) == len(CATALOG_HEADERS) for line in table)


# --- the primitive itself, for every admitted dtype -----------------------------------------


@pytest.mark.parametrize("name", NAMES)
@given(base=SHAPES, seed=SEEDS)
def test_row_matches_reference_for_every_admitted_dtype(name, base, seed):
    """One random case per admitted dtype, all evaluated as one compiled program."""
    draw = Draw(base, seed)
    cases = [(dtype, GENERATORS[name](draw, dtype)) for dtype in ADMITTED[name]]
    outputs = []
    for dtype, case in cases:
        out = apply1(name, [tf8.tensor(a) for a in case.inputs], **case.params)
        with np.errstate(all="ignore"):
            expected = case.expected()
        what = f"{name}[{dtype}]{case.params}"
        assert out.dtype == expected.dtype, f"{what}: inferred dtype {out.dtype}"
        if name != "dynamic_truncate":  # its output axis is only known at run time
            assert out.shape == expected.shape, f"{what}: inferred shape {out.shape}"
        outputs.append((out, expected, what))
    values = tf8.evaluate([out for out, _, _ in outputs])
    for value, (_, expected, what) in zip(values, outputs):
        assert_matches(value, expected, what)


@pytest.mark.parametrize("name", [n for n in NAMES if len(ADMITTED[n]) < len(ALL)])
def test_row_refuses_every_other_dtype(name):
    draw = Draw((2, 3), seed=0)
    for dtype in ALL:
        if dtype in ADMITTED[name]:
            continue
        case = GENERATORS[name](draw, dtype)
        with pytest.raises(DTypeError, match=rf"{name}.*{dtype}"):
            apply1(name, [tf8.tensor(a) for a in case.inputs], **case.params)


def test_single_output_path_matches_batched_path():
    """np.asarray of one traced value goes through the same kernels (spot check)."""
    draw = Draw((3, 2), seed=7)
    for name in ("add", "dot_general", "reduce_sum", "pad", "gather", "cumsum"):
        case = GENERATORS[name](draw, np.dtype(np.float64))
        out = apply1(name, [tf8.tensor(a) for a in case.inputs], **case.params)
        assert_matches(np.asarray(out), case.expected(), name)


# --- the tf8.numpy wrappers: broadcasting, mixed dtypes, Python scalars --------------------

# Unsigned dtypes are left out of the wrapper tests: numpy computes uint8 in float16 (tf8, which
# has no float16, in float32) and compares with out-of-range Python ints (tf8, as JAX, refuses).
MIXED = tuple(d for d in ALL if d.kind != "u")


def _python_scalar(draw: Draw) -> Any:
    kind = draw.choice("bifc")
    value = draw.array(np.dtype(np.float64), ())
    return {"b": bool(value > 0), "i": int(value), "f": float(value), "c": complex(value, 1.5)}[
        kind
    ]


def _operand(draw: Draw, shape: Sequence[int], dtypes: Sequence[np.dtype]) -> Any:
    """An array of one of `dtypes`, or (a third of the time, for 0-d) a Python scalar."""
    if not shape and draw.int(0, 2) == 0:
        return _python_scalar(draw)
    return draw.array(draw.choice(dtypes), shape)


def _lift(value: Any) -> Any:
    return tf8.tensor(value) if isinstance(value, np.ndarray) else value


def check_against_numpy(
    tf8_fn: Callable, np_fn: Callable, operand_lists: Sequence[Sequence[Any]], what: str
) -> None:
    """For every operand list numpy computes, tf8 gives the same values and dtype kind (its
    dtype is JAX's, checked by tests/conformance); all tf8 results are evaluated as one
    program."""
    checks = []
    for operands in operand_lists:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")  # "Mean of empty slice" and friends
            try:
                expected = np.asarray(np_fn(*operands))
            except (TypeError, ValueError, OverflowError):
                continue  # numpy refuses these operands (bool - bool, int ** -1, uint8 + -3)
        expected = expected.astype(canonical_dtype(expected.dtype))
        label = f"{what}{tuple(operands)!r}"
        out = tnp.asarray(tf8_fn(*[_lift(v) for v in operands]))
        # tf8 promotes on JAX's lattice, not numpy's (int32 with float32 is float32): the exact
        # dtype is checked against JAX's by tests/conformance; here, numpy's kind and values.
        assert out.dtype.kind == expected.dtype.kind, f"{label}: {out.dtype} != {expected.dtype}"
        expected = expected.astype(out.dtype)
        checks.append((out, expected, label))
    if checks:
        values = tf8.evaluate([out for out, _, _ in checks])
        for value, (_, expected, label) in zip(values, checks):
            assert_matches(value, expected, label)


BINARY = {
    "add": (tnp.add, np.add),
    "subtract": (tnp.subtract, np.subtract),
    "multiply": (tnp.multiply, np.multiply),
    "true_divide": (tnp.true_divide, np.true_divide),
    "floor_divide": (tnp.floor_divide, np.floor_divide),
    "remainder": (tnp.remainder, np.remainder),
    "power": (tnp.power, np.power),
    "maximum": (tnp.maximum, np.maximum),
    "minimum": (tnp.minimum, np.minimum),
    "arctan2": (tnp.arctan2, np.arctan2),
    "equal": (tnp.equal, np.equal),
    "not_equal": (tnp.not_equal, np.not_equal),
    "less": (tnp.less, np.less),
    "less_equal": (tnp.less_equal, np.less_equal),
    "greater": (tnp.greater, np.greater),
    "greater_equal": (tnp.greater_equal, np.greater_equal),
    "logical_and": (tnp.logical_and, np.logical_and),
    "logical_or": (tnp.logical_or, np.logical_or),
    "logical_xor": (tnp.logical_xor, np.logical_xor),
    "bitwise_and": (tnp.bitwise_and, np.bitwise_and),
    "bitwise_or": (tnp.bitwise_or, np.bitwise_or),
    "bitwise_xor": (tnp.bitwise_xor, np.bitwise_xor),
    "left_shift": (tnp.left_shift, np.left_shift),
    "right_shift": (tnp.right_shift, np.right_shift),
    "operator <<": (lambda x, y: _lift(x) << y, np.left_shift),
    "operator >>": (lambda x, y: x >> _lift(y), np.right_shift),
    "operator +": (lambda x, y: _lift(x) + y, np.add),
    "operator *": (lambda x, y: x * _lift(y), np.multiply),
    "operator /": (lambda x, y: _lift(x) / y, np.true_divide),
    "operator **": (lambda x, y: _lift(x) ** y, np.power),
    "operator <": (lambda x, y: x < _lift(y), np.less),
}
BROADCAST_PAIRS = hnp.mutually_broadcastable_shapes(num_shapes=2, max_dims=3, max_side=3)
# Where numpy answers for two bool operands and tf8 deliberately does not agree: numpy casts to
# int8 (floor_divide, remainder, power: tf8 refuses bool, as its catalog rows do) or computes
# in float16 (arctan2: tf8 has no float16 and uses float64).
_NOT_FOR_TWO_BOOLS = {"floor_divide", "remainder", "power", "operator **", "arctan2"}
_NOT_FOR_TWO_BOOLS |= {"left_shift", "right_shift", "operator <<", "operator >>"}  # int8 shifts


def _is_bool(value: Any) -> bool:
    return isinstance(value, bool) or (isinstance(value, np.ndarray) and value.dtype == BOOL)


@pytest.mark.parametrize("name", sorted(BINARY))
@given(shapes=BROADCAST_PAIRS, seed=SEEDS)
def test_binary_wrappers_broadcast_and_compute_like_numpy(name, shapes, seed):
    """Six dtype mixes per example, Python scalars among them (weak, as numpy ≥ 2 has it)."""
    tf8_fn, np_fn = BINARY[name]
    draw = Draw((), seed)
    shape_x, shape_y = shapes.input_shapes
    pairs = []
    for _ in range(6):
        x, y = _operand(draw, shape_x, MIXED), _operand(draw, shape_y, MIXED)
        if not isinstance(x, np.ndarray) and not isinstance(y, np.ndarray):
            y = np.asarray(y)  # two Python scalars: numpy gives a 0-d array, tf8 too
        if name in _NOT_FOR_TWO_BOOLS and _is_bool(x) and _is_bool(y):
            continue
        pairs.append([x, y])
    check_against_numpy(tf8_fn, np_fn, pairs, name)


UNARY = {
    "negative": (tnp.negative, np.negative),
    "conjugate": (tnp.conjugate, np.conjugate),
    "real": (tnp.real, np.real),
    "imag": (tnp.imag, np.imag),
    "absolute": (tnp.absolute, np.absolute),
    "sign": (tnp.sign, np.sign),
    "logical_not": (tnp.logical_not, np.logical_not),
    "invert": (tnp.invert, np.invert),
    "exp": (tnp.exp, np.exp),
    "expm1": (tnp.expm1, np.expm1),
    "log": (tnp.log, np.log),
    "log1p": (tnp.log1p, np.log1p),
    "sin": (tnp.sin, np.sin),
    "cos": (tnp.cos, np.cos),
    "tan": (tnp.tan, np.tan),
    "sinh": (tnp.sinh, np.sinh),
    "cosh": (tnp.cosh, np.cosh),
    "tanh": (tnp.tanh, np.tanh),
    "arcsin": (tnp.arcsin, np.arcsin),
    "arccos": (tnp.arccos, np.arccos),
    "arctan": (tnp.arctan, np.arctan),
    "sqrt": (tnp.sqrt, np.sqrt),
    "rsqrt": (tnp.rsqrt, lambda x: 1 / np.sqrt(x)),
    "erf": (tnp.erf, kept_in_float16(scipy.special.erf)),
    "logistic": (tnp.logistic, kept_in_float16(scipy.special.expit)),
    "floor": (tnp.floor, np.floor),
    "ceil": (tnp.ceil, np.ceil),
    "rint": (tnp.rint, np.rint),
    "square": (tnp.square, np.square),
    "operator -": (lambda x: -x, np.negative),
    "operator abs": (lambda x: abs(x), np.absolute),
    "operator ~": (lambda x: ~x, np.invert),
}
# Inputs where numpy answers and tf8 deliberately differs: for bool, numpy computes these in
# float16 (tf8 has no float16: float64) or int8 (conjugate, square: tf8 keeps bool); for
# complex, tf8's floor/ceil/round/erf rows are real-only (numpy has complex rint; scipy erf).
_NOT_FOR_BOOL = {
    "exp", "expm1", "log", "log1p", "sin", "cos", "tan", "sinh", "cosh", "tanh", "arcsin",
    "arccos", "arctan", "sqrt", "rsqrt", "erf", "logistic", "floor", "ceil", "rint",
    "conjugate", "square",
}  # fmt: skip
_NOT_FOR_COMPLEX = {"erf", "rint"}


@pytest.mark.parametrize("name", sorted(UNARY))
@given(shape=SHAPES, seed=SEEDS)
def test_unary_wrappers_match_numpy(name, shape, seed):
    tf8_fn, np_fn = UNARY[name]
    dtypes = [
        d
        for d in MIXED
        if not (d == BOOL and name in _NOT_FOR_BOOL)
        and not (d.kind == "c" and name in _NOT_FOR_COMPLEX)
    ]
    draw = Draw(shape, seed)
    check_against_numpy(tf8_fn, np_fn, [[draw.array(d, shape)] for d in dtypes], name)


def _axis_arg(draw: Draw, ndim: int) -> Any:
    """numpy's axis argument: None, an int or a tuple, negative axes included."""
    kind = draw.int(0, 2) if ndim else 0
    if kind == 0:
        return None
    return draw.axis(ndim) if kind == 1 else draw.axes(ndim)


REDUCTIONS = {
    "sum": (tnp.sum, np.sum),
    "prod": (tnp.prod, np.prod),
    "max": (tnp.max, np.max),
    "min": (tnp.min, np.min),
    "mean": (tnp.mean, np.mean),
    "all": (tnp.all, np.all),
    "any": (tnp.any, np.any),
}


@pytest.mark.parametrize("name", sorted(REDUCTIONS))
@given(shape=SHAPES, seed=SEEDS)
def test_reduction_wrappers_match_numpy(name, shape, seed):
    tf8_fn, np_fn = REDUCTIONS[name]
    draw = Draw(shape, seed)
    axis, keepdims = _axis_arg(draw, len(shape)), draw.flag()
    dtypes = MIXED
    if name in ("max", "min"):  # no identity: numpy refuses empty reductions
        shape = tuple(max(n, 1) for n in shape)
        dtypes = [d for d in MIXED if d.kind != "c"]  # tf8 refuses numpy's lexicographic order
    check_against_numpy(
        lambda v: tf8_fn(v, axis=axis, keepdims=keepdims),
        lambda v: np_fn(v, axis=axis, keepdims=keepdims),
        [[draw.array(d, shape, -2, 2)] for d in dtypes],
        f"{name}(axis={axis}, keepdims={keepdims})",
    )


@pytest.mark.parametrize("name", ["argmax", "argmin", "cumsum"])
@given(shape=SHAPES, seed=SEEDS)
def test_axis_wrappers_match_numpy(name, shape, seed):
    tf8_fn, np_fn = getattr(tnp, name), getattr(np, name)
    draw = Draw(shape, seed)
    shape = tuple(max(n, 1) for n in shape)
    axis = draw.choice([None, draw.axis(len(shape))]) if shape else None
    check_against_numpy(
        lambda v: tf8_fn(v, axis=axis),
        lambda v: np_fn(v, axis=axis),
        [[draw.array(d, shape, -3, 3)] for d in MIXED if d.kind != "c"],
        f"{name}(axis={axis})",
    )


@given(shapes=hnp.mutually_broadcastable_shapes(num_shapes=3, max_dims=3, max_side=3), seed=SEEDS)
def test_where_and_clip_broadcast_like_numpy(shapes, seed):
    draw = Draw((), seed)
    s_cond, s_x, s_y = shapes.input_shapes
    where_cases = [
        [draw.array(BOOL, s_cond), _operand(draw, s_x, MIXED), _operand(draw, s_y, MIXED)]
        for _ in range(4)
    ]
    check_against_numpy(tnp.where, np.where, where_cases, "where")
    numbers = [d for d in MIXED if d.kind != "c"]
    clip_cases = [
        [draw.array(draw.choice(numbers), s_cond), draw.array(draw.choice(numbers), s_x), hi]
        for hi in (draw.array(draw.choice(numbers), s_y), 2, 1.5)
    ]
    check_against_numpy(tnp.clip, np.clip, clip_cases, "clip")


@given(batch=hnp.mutually_broadcastable_shapes(num_shapes=2, max_dims=2, max_side=3), seed=SEEDS)
def test_matmul_and_dot_match_numpy(batch, seed):
    draw = Draw((), seed)
    numeric = [d for d in MIXED if d != BOOL]
    n, k, m = draw.int(0, 3), draw.int(0, 3), draw.int(0, 3)
    cases = []
    for a_shape in [(k,), (n, k), batch.input_shapes[0] + (n, k)]:
        for b_shape in [(k,), (k, m), batch.input_shapes[1] + (k, m)]:
            a = draw.array(draw.choice(numeric), a_shape, -3, 3)
            cases.append([a, draw.array(draw.choice(numeric), b_shape, -3, 3)])
    check_against_numpy(tnp.matmul, np.matmul, cases, "matmul")
    check_against_numpy(lambda p, q: _lift(p) @ q, np.matmul, cases, "operator @")
    check_against_numpy(tnp.dot, np.dot, [c for c in cases if c[1].ndim <= 2], "dot")


def _random_index(draw: Draw, shape: Sequence[int]) -> tuple:
    """A basic index: ints, slices with any (also negative) step, None and Ellipsis."""
    items: list[Any] = []
    for size in shape:
        if size and draw.int(0, 3) == 0:
            items.append(draw.int(-size, size - 1))
        else:
            bound = lambda: draw.choice([None, draw.int(-5, 5)])  # noqa: E731
            items.append(slice(bound(), bound(), draw.choice([None, 1, 2, -1, -2])))
    if draw.flag():
        items.insert(draw.int(0, len(items)), None)
    if draw.flag():  # an Ellipsis stands for the axes after `at`
        items = items[: draw.int(0, len(items))] + [Ellipsis]
    return tuple(items)


@given(shape=hnp.array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=4), seed=SEEDS)
def test_structural_wrappers_match_numpy(shape, seed):
    draw = Draw(shape, seed)
    xs = [[draw.array(d, shape)] for d in MIXED]
    perm = draw.permutation(range(len(shape)))
    check_against_numpy(lambda v: tnp.transpose(v, perm), lambda v: np.transpose(v, perm), xs, "T")
    check_against_numpy(lambda v: _lift(v).T, lambda v: v.T, xs, ".T")
    check_against_numpy(tnp.ravel, np.ravel, xs, "ravel")
    target = draw.random_shape() + tuple(draw.int(0, 3) if n == 1 else n for n in shape)
    check_against_numpy(
        lambda v: tnp.broadcast_to(v, target), lambda v: np.broadcast_to(v, target), xs, "bcast"
    )
    new = draw.choice(MIXED)
    check_against_numpy(
        lambda v: tnp.astype(v, new),
        lambda v: (v.real if v.dtype.kind == "c" and new.kind != "c" else v).astype(new),
        xs,
        f"astype {new}",
    )
    check_against_numpy(
        lambda v: tnp.stack([v, v], axis=-1), lambda v: np.stack([v, v], axis=-1), xs, "stack"
    )
    index = _random_index(draw, shape)
    check_against_numpy(lambda v: _lift(v)[index], lambda v: v[index], xs, f"x[{index}]")
    if shape:
        axis = draw.axis(len(shape))
        check_against_numpy(
            lambda *vs: tnp.concatenate(vs, axis=axis),
            lambda *vs: np.concatenate(vs, axis=axis),
            [[x[0], x[0]] for x in xs],
            "concatenate",
        )


def _add_at(x: np.ndarray, index: np.ndarray, updates: np.ndarray) -> np.ndarray:
    out = x.copy()
    np.add.at(out, index, updates)
    return out


@given(shape=hnp.array_shapes(min_dims=2, max_dims=3, min_side=1, max_side=4), seed=SEEDS)
def test_wrappers_of_the_structural_and_indexing_rows_match_numpy(shape, seed):
    """diagonal/diag, tril/triu, take, .at[].add, flip, pad and arange: the numpy names of the
    extract_diag, embed_diag, tril, triu, gather, scatter_add, reverse, pad and iota rows."""
    draw = Draw(shape, seed)
    xs = [[draw.array(d, shape)] for d in MIXED]
    k, axis = draw.int(-2, 2), draw.axis(len(shape))
    idx = draw.array(np.dtype(np.int64), draw.random_shape(), 0, shape[axis] - 1)
    rows = draw.array(np.dtype(np.int64), (draw.int(0, 4),), 0, shape[0] - 1)
    widths = tuple((draw.int(0, 2), draw.int(0, 2)) for _ in shape)
    flip_axes = draw.axes(len(shape))
    cases = {
        "diagonal": (lambda v: tnp.diagonal(v, k), lambda v: np.diagonal(v, k)),
        "diag": (
            lambda v: tnp.diag(_lift(v)[(0,) * (v.ndim - 1)]),
            lambda v: np.diag(v[(0,) * (v.ndim - 1)]),
        ),
        "tril": (lambda v: tnp.tril(v, k), lambda v: np.tril(v, k)),
        "triu": (lambda v: tnp.triu(v, k), lambda v: np.triu(v, k)),
        "take": (lambda v: tnp.take(v, idx, axis=axis), lambda v: np.take(v, idx, axis=axis)),
        "at-add": (
            lambda v: _lift(v).at[rows].add(v[0]),
            lambda v: _add_at(v, rows, np.broadcast_to(v[0], (len(rows),) + v.shape[1:])),
        ),
        "flip": (lambda v: tnp.flip(v, flip_axes), lambda v: np.flip(v, flip_axes)),
        "pad": (lambda v: tnp.pad(v, widths), lambda v: np.pad(v, widths)),
    }
    for name, (tf8_fn, np_fn) in cases.items():
        check_against_numpy(tf8_fn, np_fn, xs, name)
    start, stop, step = draw.int(-3, 3), draw.int(-3, 6), draw.choice([1, 2, -1])
    check_against_numpy(
        lambda dtype: tnp.arange(start, stop, step, dtype=dtype),
        lambda dtype: np.arange(start, stop, step, dtype=dtype),
        [[dtype] for dtype in ("int32", "int64", "float32", "float64")],
        f"arange({start}, {stop}, {step})",
    )


# --- edge cases that once went wrong --------------------------------------------------------


def _run(name: str, *arrays: Any, **params: Any) -> np.ndarray:
    return np.asarray(apply1(name, [tf8.tensor(np.asarray(a)) for a in arrays], **params))


def test_integer_div_is_exact_beyond_float64_precision():
    big = np.array([2**62 + 1, -(2**62) - 1, 7, -7, 7, 5], np.int64)
    den = np.array([1, 1, -2, 2, 0, 5], np.int64)
    np.testing.assert_array_equal(_run("div", big, den), [2**62 + 1, -(2**62) - 1, -3, -3, 0, 1])


def test_complex_of_infinite_parts_keeps_the_other_part():
    re, im = np.array([1.0, np.inf], np.float32), np.array([np.inf, 2.0], np.float32)
    out = _run("complex", re, im)
    assert out.dtype == np.complex64
    np.testing.assert_array_equal(out.real, re)
    np.testing.assert_array_equal(out.imag, im)


@pytest.mark.parametrize("axis", [0, -1])
@pytest.mark.parametrize("reverse", [False, True])
def test_zero_d_cumsum_and_argmax_read_the_scalar_as_one_element(axis, reverse):
    assert _run("cumsum", 3.5, axis=axis, reverse=reverse).shape == ()
    assert _run("argmax", 3.5, axis=axis) == 0


@pytest.mark.parametrize("name", ["shape_of", "dynamic_truncate", "pad_to_match"])
def test_zero_d_operand_has_no_axis_for_axis_rows(name):
    extra = {"shape_of": [], "dynamic_truncate": [np.int64(0)], "pad_to_match": [np.zeros(2)]}
    with pytest.raises(tf8.errors.AxisError, match=rf"{name}: axis 0 is out of range for rank 0"):
        apply1(name, [tf8.tensor(np.float64(1.0))] + [tf8.tensor(a) for a in extra[name]], axis=0)


def test_dot_general_takes_negative_axes():
    x, y = np.arange(6.0).reshape(2, 3), np.arange(12.0).reshape(3, 4)
    out = apply1(
        "dot_general", [tf8.tensor(x), tf8.tensor(y)], contracting=((-1,), (-2,)), batch=((), ())
    )
    assert out.shape == (2, 4)
    np.testing.assert_array_equal(np.asarray(out), x @ y)


def test_pad_of_an_empty_axis_has_no_interior_padding():
    out = apply1("pad", [tf8.tensor(np.zeros(0)), tf8.tensor(1.0)], config=((1, 1, 3),))
    assert out.shape == (2,)
    np.testing.assert_array_equal(np.asarray(out), [1.0, 1.0])
    with pytest.raises(tf8.errors.ShapeError, match=r"pad: .*below size 0"):
        apply1("pad", [tf8.tensor(np.zeros(2)), tf8.tensor(1.0)], config=((-2, -1, 0),))


def test_iota_refuses_bool():
    with pytest.raises(DTypeError, match="iota: dtype bool"):
        apply1("iota", [], shape=(3,), dtype=np.dtype(bool), dimension=0)


def test_ieee_results_are_values_not_warnings():
    x = tf8.tensor(np.array([0.0, -1.0, 1.0]))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = np.asarray(tnp.log(x) + tnp.sqrt(x) + x / 0.0 + tnp.arccos(x * 2))
        ints = np.asarray(tf8.tensor(np.array([3, -3])) % 0)
        cast = np.asarray(tnp.astype(tf8.tensor(np.array([np.nan, np.inf])), "int32"))
    assert np.isnan(out).all()
    np.testing.assert_array_equal(ints, [0, 0])
    assert cast.dtype == np.int32
