"""Convolution dimension numbers and output shapes, as JAX's `lax` computes them.

`conv_dimension_numbers` turns `('NCHW', 'OIHW', 'NCHW')`-style strings (or None, or a
`ConvDimensionNumbers`) into permutations: each spec lists the axes of (batch, feature,
spatial...) of the lhs and the output, and (out feature, in feature, spatial...) of the rhs,
the spatial axes in the order the rhs string names them.

>>> from tf8 import lax
>>> lax.conv_dimension_numbers((8, 32, 32, 3), (3, 3, 3, 16), ("NHWC", "HWIO", "NHWC"))
ConvDimensionNumbers(lhs_spec=(0, 3, 1, 2), rhs_spec=(3, 2, 0, 1), out_spec=(0, 3, 1, 2))
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

from tf8.errors import ParameterError, ShapeError
from tf8.lax.windows import padtype_to_pads

__all__ = [
    "ConvDimensionNumbers",
    "ConvGeneralDilatedDimensionNumbers",
    "conv_dimension_numbers",
    "conv_general_permutations",
    "conv_general_shape_tuple",
    "conv_shape_tuple",
    "conv_transpose_shape_tuple",
]


class ConvDimensionNumbers(NamedTuple):
    """Where a convolution's batch, feature and spatial axes are (JAX's).

    Fields:
      lhs_spec: the lhs axes of (batch, feature, spatial...).
      rhs_spec: the rhs axes of (out feature, in feature, spatial...).
      out_spec: the output axes of (batch, feature, spatial...).

    >>> ConvDimensionNumbers((0, 1, 2), (0, 1, 2), (0, 1, 2)).lhs_spec
    (0, 1, 2)
    """

    lhs_spec: Sequence[int]
    rhs_spec: Sequence[int]
    out_spec: Sequence[int]


ConvGeneralDilatedDimensionNumbers = tuple[str, str, str] | ConvDimensionNumbers | None


def conv_general_permutations(
    dimension_numbers: Sequence[str],
) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
    """The permutations of three spec strings `(lhs_spec, rhs_spec, out_spec)`: 'N' and 'C'
    name the batch and feature axes of the lhs and output, 'O' and 'I' the rhs's output and
    input features, other letters the spatial axes (ordered as in the rhs string).

    >>> conv_general_permutations(("NHWC", "HWIO", "NHWC"))
    ((0, 3, 1, 2), (3, 2, 0, 1), (0, 3, 1, 2))

    As JAX's; raises tf8.errors.ParameterError where JAX raises TypeError.
    """
    specs = tuple(dimension_numbers)
    pairs = (("N", "C"), ("O", "I"), ("N", "C"))
    for i, (spec, (a, b)) in enumerate(zip(specs, pairs)):
        if not spec.count(a) == spec.count(b) == 1:
            raise ParameterError(
                f"conv_general_permutations: dimension_numbers[{i}] must contain the "
                f"characters {a!r} and {b!r} exactly once, got {spec!r}"
            )
        if len(spec) != len(set(spec)):
            raise ParameterError(
                f"conv_general_permutations: dimension_numbers[{i}] cannot repeat a "
                f"character, got {spec!r}"
            )
    spatial = [set(spec) - set(pair) for spec, pair in zip(specs, pairs)]
    if not spatial[0] == spatial[1] == spatial[2]:
        raise ParameterError(
            "conv_general_permutations: the three specs must name the same spatial axes, "
            f"got {specs}"
        )
    rhs = specs[1]

    def permutation(spec: str, pair: tuple[str, str]) -> tuple[int, ...]:
        axes = sorted(
            (i for i, c in enumerate(spec) if c not in pair), key=lambda i: rhs.index(spec[i])
        )
        return (spec.index(pair[0]), spec.index(pair[1]), *axes)

    lhs, rhs_perm, out = (permutation(s, p) for s, p in zip(specs, pairs))
    return lhs, rhs_perm, out


def conv_dimension_numbers(
    lhs_shape: Sequence[int], rhs_shape: Sequence[int], dimension_numbers: Any
) -> ConvDimensionNumbers:
    """`dimension_numbers` (None, a `ConvDimensionNumbers`, or three spec strings) as a
    `ConvDimensionNumbers` of permutations for operands of shapes `lhs_shape`, `rhs_shape`.
    None means `NC...`, `OI...`, `NC...` (the spatial axes last, in order).

    >>> conv_dimension_numbers((1, 2, 5), (3, 2, 2), None)
    ConvDimensionNumbers(lhs_spec=(0, 1, 2), rhs_spec=(0, 1, 2), out_spec=(0, 1, 2))

    As JAX's; bad numbers raise tf8.errors.ParameterError (JAX: TypeError).
    """
    if isinstance(dimension_numbers, ConvDimensionNumbers):
        return dimension_numbers
    if len(lhs_shape) != len(rhs_shape):
        raise ShapeError(
            f"conv_dimension_numbers: lhs and rhs must have one rank, got shapes "
            f"{tuple(lhs_shape)} and {tuple(rhs_shape)}"
        )
    if dimension_numbers is None:
        iota = tuple(range(len(lhs_shape)))
        return ConvDimensionNumbers(iota, iota, iota)
    if not isinstance(dimension_numbers, (list, tuple)) or len(dimension_numbers) != 3:
        raise ParameterError(
            "conv_dimension_numbers: dimension_numbers must be None, a ConvDimensionNumbers "
            f"or three spec strings, got {dimension_numbers!r}"
        )
    if not all(isinstance(s, str) for s in dimension_numbers):
        raise ParameterError(
            "conv_dimension_numbers: dimension_numbers must be three strings (or a "
            f"ConvDimensionNumbers), got {tuple(dimension_numbers)!r}"
        )
    for i, spec in enumerate(dimension_numbers):
        if len(spec) != len(lhs_shape):
            raise ParameterError(
                f"conv_dimension_numbers: dimension_numbers[{i}] = {spec!r} must have one "
                f"letter per axis of the operands, shapes {tuple(lhs_shape)} and "
                f"{tuple(rhs_shape)}"
            )
    return ConvDimensionNumbers(*conv_general_permutations(dimension_numbers))


def _take(shape: Sequence[Any], perm: Sequence[int]) -> list[Any]:
    return [shape[i] for i in perm]


def _unpermute(shape: Sequence[Any], perm: Sequence[int]) -> tuple[Any, ...]:
    """`shape` given in canonical order, rearranged to the layout `perm` describes."""
    out: list[Any] = [None] * len(perm)
    for size, axis in zip(shape, perm):
        out[axis] = size
    return tuple(out)


def conv_shape_tuple(
    lhs_shape: Sequence[int],
    rhs_shape: Sequence[int],
    strides: Sequence[int],
    pads: str | Sequence[tuple[int, int]],
    batch_group_count: int = 1,
) -> tuple[int, ...]:
    """The output shape of a convolution of operands in canonical layout (lhs `N, C, ...`,
    rhs `O, I, ...`): `(N // batch_group_count, O, spatial...)`.

    Parameters: the shapes, the window strides, the padding (a string or pairs) and the
    batch group count.

    >>> conv_shape_tuple((2, 3, 9, 9), (4, 3, 3, 3), (2, 2), "SAME")
    (2, 4, 5, 5)

    As JAX's (a batch size of -1 stays -1).
    """
    if isinstance(pads, str):
        pads = padtype_to_pads(lhs_shape[2:], rhs_shape[2:], strides, pads)
    if len(pads) != len(lhs_shape) - 2:
        raise ShapeError(
            f"conv_shape_tuple: expected {len(lhs_shape) - 2} (low, high) pads, got {pads}"
        )
    padded = [n + lo + hi for n, (lo, hi) in zip(lhs_shape[2:], pads)]
    if any(p < 0 for p in padded):
        raise ShapeError(
            f"conv_shape_tuple: negative padding {tuple(pads)} is larger than the lhs spatial "
            f"sizes {tuple(lhs_shape[2:])}"
        )
    space = tuple(max(0, (p - k) // s + 1) for p, k, s in zip(padded, rhs_shape[2:], strides))
    batch = lhs_shape[0] // batch_group_count if batch_group_count > 1 else lhs_shape[0]
    return (batch, rhs_shape[0], *space)


def conv_general_shape_tuple(
    lhs_shape: Sequence[int],
    rhs_shape: Sequence[int],
    window_strides: Sequence[int],
    padding: str | Sequence[tuple[int, int]],
    dimension_numbers: Sequence[str],
) -> tuple[int, ...]:
    """The output shape of a convolution with spec strings `dimension_numbers`.

    >>> conv_general_shape_tuple((1, 8, 8, 3), (3, 3, 3, 5), (1, 1), "VALID",
    ...                          ("NHWC", "HWIO", "NHWC"))
    (1, 6, 6, 5)

    As JAX's.
    """
    lhs_perm, rhs_perm, out_perm = conv_general_permutations(dimension_numbers)
    canonical = conv_shape_tuple(
        _take(lhs_shape, lhs_perm), _take(rhs_shape, rhs_perm), window_strides, padding
    )
    return _unpermute(canonical, out_perm)


def conv_transpose_padding(kernel: int, stride: int, padding: Any) -> tuple[int, int]:
    """The (before, after) padding of one axis of `conv_transpose` for a forward padding
    'SAME', 'VALID' or a (low, high) pair (JAX's `_conv_transpose_padding`)."""
    if padding == "SAME":
        total = kernel + stride - 2
        before = kernel - 1 if stride > kernel - 1 else -(-total // 2)
    elif padding == "VALID":
        total = kernel + stride - 2 + max(kernel - stride, 0)
        before = kernel - 1
    elif isinstance(padding, tuple) and len(padding) == 2:
        pads = tuple(kernel - p - 1 for p in padding)
        before, total = pads[0], sum(pads)
    else:
        raise ParameterError(
            f"conv_transpose: padding must be 'SAME', 'VALID' or (low, high) pairs, got {padding!r}"
        )
    return before, total - before


def conv_transpose_shape_tuple(
    lhs_shape: Sequence[int],
    rhs_shape: Sequence[int],
    window_strides: Sequence[int],
    padding: str | Sequence[tuple[int, int]],
    dimension_numbers: Sequence[str],
) -> tuple[int, ...]:
    """The output shape of `conv_transpose` with spec strings `dimension_numbers`.

    >>> conv_transpose_shape_tuple((1, 4, 4, 3), (3, 3, 3, 5), (2, 2), "SAME",
    ...                            ("NHWC", "HWIO", "NHWC"))
    (1, 8, 8, 5)

    As JAX's.
    """
    lhs_perm, rhs_perm, out_perm = conv_general_permutations(dimension_numbers)
    lhs, rhs = _take(lhs_shape, lhs_perm), _take(rhs_shape, rhs_perm)
    if isinstance(padding, str):
        padding = [conv_transpose_padding(k, s, padding) for k, s in zip(rhs[2:], window_strides)]
    totals = [sum(p) for p in padding]
    space = [
        (i - 1) * s - k + 2 + p for i, k, s, p in zip(lhs[2:], rhs[2:], window_strides, totals)
    ]
    return _unpermute((lhs[0], rhs[0], *space), out_perm)
