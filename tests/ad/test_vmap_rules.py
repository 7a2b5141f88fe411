"""Every catalog row batches correctly, driven by the catalog table.

For each row, a random case from `tests/ops/catalog_cases.py` (random shapes and dtypes), a
random subset of its operands batched (at least one) along random axes, the others left
unbatched: vmap of the row, eagerly and under jit, equals the row applied example by example
in a Python loop. Coverage tests fail when a row or a built-in family class has no batching
rule.
"""

from __future__ import annotations

import numpy as np
import pytest
from ad_cases import ADMITTED, DIFFERENTIABLE, F64, GENERATORS, draw_call
from catalog_cases import Draw
from family_classes import family_classes
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import tf8
import tf8.numpy as tnp
from tf8.ad import custom
from tf8.ad.batching import BATCHING
from tf8.lax.core import apply1
from tf8.ops.primitives import PRIMITIVES

ROWS = [d.row for d in PRIMITIVES.values()]

FEW = settings(max_examples=max(2, settings.default.max_examples // 5))
SHAPES = hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=3)
SEEDS = st.integers(0, 2**32 - 1)
NO_OPERANDS = {"iota", "constant"}
BATCHED_ROWS = [row.name for row in ROWS if row.name not in NO_OPERANDS]
# Operands that must stay unbatched (batching them is an error, tested in test_vmap_api).
NEVER_BATCHED = {("dynamic_truncate", 1)}


# --- coverage ----------------------------------------------------------------------------------


def test_every_row_has_a_batching_rule():
    missing = [row.name for row in ROWS if row.name not in BATCHING]
    assert not missing, f"catalog rows without a batching rule: {missing}"


def test_every_family_class_has_a_batching_rule():
    classes = family_classes(("tf8.ops.extension", "tf8.ad", "tf8.lax", "tf8.random"))
    assert {custom.StopGradient, custom._JvpMarker, custom._VjpMarker} <= set(classes)
    missing = [cls.__name__ for cls in classes if cls not in BATCHING and not hasattr(cls, "batch")]
    assert not missing, f"extension families without a batching rule: {missing}"


# --- every row against a loop --------------------------------------------------------------------


def _variant(d: Draw, x: np.ndarray) -> np.ndarray:
    """Another example like `x`: fresh values, or (integers: indices, sizes) x's own values
    shuffled, so they stay in x's range."""
    if x.dtype.kind in "fc" or x.dtype == np.bool_:
        return d.array(x.dtype, x.shape)
    if x.ndim == 0:
        value = int(x) + d.int(-2, 2)
        return np.asarray(max(value, 0) if x.dtype.kind == "u" else value, x.dtype)
    return d.rng.permutation(x.ravel()).reshape(x.shape)


def _batched_case(name: str, base, seed: int):
    """(inputs, params, in_axes, batched inputs, batch size) for a random batching of a case."""
    d = Draw(base, seed)
    dtype = d.choice(ADMITTED[name])
    case = GENERATORS[name](d, np.dtype(dtype))
    inputs = case.inputs
    allowed = [i for i in range(len(inputs)) if (name, i) not in NEVER_BATCHED]
    chosen = [i for i in allowed if d.flag()] or [d.choice(allowed)]
    size = d.int(1, 3)
    axes, batched = [], []
    for i, x in enumerate(inputs):
        if i not in chosen:
            axes.append(None)
            batched.append(x)
            continue
        axis = d.int(0, x.ndim)
        examples = [x] + [_variant(d, x) for _ in range(size - 1)]
        axes.append(axis - (x.ndim + 1) if d.flag() else axis)  # negative in_axes too
        batched.append(np.moveaxis(np.stack(examples), 0, axis))
    return inputs, case.params, tuple(axes), batched, size


def _loop(name: str, params: dict, axes, batched, size: int) -> np.ndarray:
    outs = []
    for b in range(size):
        example = [x if a is None else np.take(x, b, axis=a) for x, a in zip(batched, axes)]
        outs.append(np.asarray(apply1(name, [tf8.tensor(x) for x in example], **params)))
    return np.stack(outs)


def _assert_same(actual, expected) -> None:
    actual = np.asarray(actual)
    assert actual.shape == expected.shape and actual.dtype == expected.dtype
    if expected.dtype.kind in "fc":
        tol = 1e-5 if expected.dtype in (np.float32, np.complex64) else 1e-12
        np.testing.assert_allclose(actual, expected, rtol=tol, atol=tol, equal_nan=True)
    else:
        np.testing.assert_array_equal(actual, expected)


@pytest.mark.parametrize("name", BATCHED_ROWS)
@FEW
@given(base=SHAPES, seed=SEEDS)
def test_row_batches_like_a_loop(name, base, seed):
    inputs, params, axes, batched, size = _batched_case(name, base, seed)
    expected = _loop(name, params, axes, batched, size)

    def row(*xs):
        return apply1(
            name, [tf8.tensor(x) if isinstance(x, np.ndarray) else x for x in xs], **params
        )

    vmapped = tf8.vmap(row, in_axes=axes)
    _assert_same(vmapped(*batched), expected)
    _assert_same(tf8.jit(vmapped)(*batched), expected)


# --- what AD rules emit batches too: vmap of grad of every smooth row ------------------------


# The gradient of dynamic_truncate needs the run-time size of a value it does not compute:
# jit(grad(f)) fails the same way without vmap (a runtime limitation, not a batching rule's).
GRAD_ROWS = sorted(set(DIFFERENTIABLE) - {"dynamic_truncate"})


@pytest.mark.parametrize("name", GRAD_ROWS)
@settings(max_examples=2)
@given(base=SHAPES, seed=SEEDS)
def test_vmap_of_grad_of_row_matches_a_loop(name, base, seed):
    call = draw_call(base, seed, name, F64)
    if not call.positions:
        return
    d = Draw(base, seed + 1)
    examples = [[_variant(d, x) for x in call.args] for _ in range(2)]
    batched = [np.stack(column) for column in zip(*examples)]

    def loss(*xs):
        return tnp.sum(tnp.real(call(*xs)))

    grad = tf8.grad(loss, argnums=tuple(range(len(call.positions))))
    expected = [np.stack(column) for column in zip(*[grad(*xs) for xs in examples])]
    for got, want in zip(tf8.vmap(grad)(*batched), expected):
        _assert_same(got, want)
