"""tf8.numpy validates before tracing: tf8.errors naming the shapes, dtypes or axis involved."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import tf8
import tf8.numpy as tnp
from tf8 import errors

M = tf8.tensor(np.ones((2, 3)))
V = tf8.tensor(np.ones(4))
I = tf8.tensor(np.arange(3))

CASES: list[tuple[str, Callable[[], Any], type, str]] = [
    (
        "reshape size",
        lambda: tnp.reshape(M, (4, 2)),
        errors.ShapeError,
        r"\(2, 3\).*size 6.*\(4, 2\)",
    ),
    ("reshape two -1", lambda: M.reshape(-1, -1), errors.ShapeError, "one unknown dimension"),
    (
        "sum axis",
        lambda: tnp.sum(M, axis=2),
        errors.AxisError,
        "axis 2 is out of bounds.*dimension 2",
    ),
    ("repeated axis", lambda: tnp.mean(M, axis=(0, 0)), errors.AxisError, "repeated axis"),
    ("float axis", lambda: tnp.max(M, axis=1.5), errors.AxisError, "1.5"),
    ("broadcast", lambda: M + V, errors.ShapeError, r"\(2, 3\) \(4,\)"),
    ("matmul", lambda: M @ M, errors.ShapeError, r"matmul.*\(2, 3\).*\(2, 3\)"),
    ("dot", lambda: tnp.dot(V, M), errors.ShapeError, r"dot.*\(4,\).*\(2, 3\)"),
    ("tensordot", lambda: tnp.tensordot(M, V, 1), errors.ShapeError, "tensordot"),
    (
        "concatenate ranks",
        lambda: tnp.concatenate([M, V]),
        errors.ShapeError,
        "number of dimensions",
    ),
    ("concatenate axis", lambda: tnp.concatenate([M, M.T]), errors.ShapeError, "concatenate"),
    ("stack shapes", lambda: tnp.stack([M, M.T]), errors.ShapeError, r"same shape.*\(2, 3\)"),
    ("split uneven", lambda: tnp.split(V, 3), errors.ShapeError, "equal division"),
    ("transpose axes", lambda: tnp.transpose(M, (0, 0)), errors.ShapeError, "axes"),
    ("squeeze", lambda: tnp.squeeze(M, 0), errors.ShapeError, "size not equal to one"),
    ("bitwise float", lambda: M & M, errors.DTypeError, "float64"),
    ("negative bool", lambda: -(M > 0), errors.DTypeError, "bool"),
    ("floor complex", lambda: tnp.floor(M * 1j), errors.DTypeError, "complex"),
    ("cummax complex", lambda: tnp.cummax(M * 1j), errors.DTypeError, "complex"),
    ("pad negative", lambda: tnp.pad(M, -1), errors.ShapeError, "negative"),
    ("pad mode", lambda: tnp.pad(M, 1, mode="bogus"), errors.ParameterError, "bogus"),
    ("diagonal 1-d", lambda: tnp.diagonal(V), errors.ShapeError, "two dimensions"),
    ("diag 3-d", lambda: tnp.diag(tnp.zeros((2, 2, 2))), errors.ShapeError, "1-d or 2-d"),
    ("norm order", lambda: tnp.linalg.norm(V, "fro"), errors.Tf8Error, "fro"),
    ("arange traced", lambda: tnp.arange(I[0]), errors.UnsupportedOperationError, "data"),
    (
        "repeat traced",
        lambda: tf8.jit(lambda r: tnp.repeat(V, r))(np.array([1, 2, 0, 1])),
        errors.ConcretizationError,
        "total_repeat_length",
    ),
    ("where x only", lambda: tnp.where(M > 0, M), errors.UnsupportedOperationError, "both x and y"),
    (
        "clip out",
        lambda: tnp.clip(M, 0, 1, out=np.zeros((2, 3))),
        errors.UnsupportedOperationError,
        "out=",
    ),
    ("unknown dtype", lambda: M.astype("int8"), errors.DTypeError, "int8"),
    ("object array", lambda: tnp.asarray([object()]), errors.DTypeError, "object"),
    ("len of scalar", lambda: len(tnp.asarray(1.0)), TypeError, "unsized"),
    ("sort order", lambda: tnp.sort(V, order="f"), errors.UnsupportedOperationError, "order"),
    (
        "trim_zeros under jit",
        lambda: tf8.jit(tnp.trim_zeros)(np.ones(4)),
        errors.ConcretizationError,
        "trim_zeros",
    ),
    ("in-place fill", lambda: V.fill(0.0), errors.InPlaceAssignmentError, "in place"),
    (
        "reshape order",
        lambda: M.reshape(3, 2, order="A"),
        errors.UnsupportedOperationError,
        "order",
    ),
]


@pytest.mark.parametrize(("name", "call", "error", "message"), CASES, ids=[c[0] for c in CASES])
def test_misuse_raises_a_named_tf8_error(
    name: str, call: Callable, error: type, message: str
) -> None:
    with pytest.raises(error, match=message):
        call()


def test_errors_subclass_numpy_compatible_builtins(strict_indexing) -> None:
    with pytest.raises(ValueError):
        tnp.reshape(M, (4, 2))
    with pytest.raises(IndexError):
        tnp.sum(M, axis=5)
    with pytest.raises(TypeError):
        tnp.put(V, [0], 1.0)
    with pytest.raises(IndexError):
        M[5]


def test_concretising_a_placeholder_dependent_choice_is_clear() -> None:
    p = tf8.placeholder((3,))
    with pytest.raises(errors.ConcretizationError, match="real_if_close"):
        tnp.real_if_close(p * 1j)
