"""The sort family ("tf8.sort.v1"): `lax.sort` of several operands along one dimension.

One op sorts operands of one shape together along `dimension`, ordered by the first
`num_keys` of them (lexicographically, the first key most significant), as XLA's sort with
`num_keys`. Ties keep their order (the kernel is always stable, so `is_stable=False` is
accepted and gives the same result). NaNs sort last, as numpy sorts them
(complex keys: by real part, then imaginary part). Its JVP (a gather of
each tangent by the sorting permutation) and batching rule are in `tf8.ad`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from tf8.errors import DTypeError, ParameterError, ShapeError
from tf8.ops.avals import Aval
from tf8.ops.shapes import dims_equal, shape_str

from .base import ExtensionOp


class Sort(ExtensionOp):
    """Payload `(dimension, is_stable, num_keys)`; one output per operand, in order."""

    family = "tf8.sort.v1"
    name = "sort"

    def __init__(self, dimension: int, is_stable: bool, num_keys: int, operand_count: int) -> None:
        super().__init__((dimension, bool(is_stable), num_keys), operand_count, operand_count)

    @property
    def dimension(self) -> int:
        return self.payload[0]

    @property
    def axis(self) -> int:
        """The axis it works along (the Dask engine keeps it one chunk): `dimension`."""
        return self.payload[0]

    @property
    def num_keys(self) -> int:
        return self.payload[2]

    def infer(self, avals: Sequence[Aval], guards: list) -> tuple[Aval, ...]:
        dimension, _, num_keys = self.payload
        shapes = ", ".join(str(a) for a in avals)
        if not avals:
            raise ParameterError("sort: needs at least one operand")
        if not 1 <= num_keys <= len(avals):
            raise ParameterError(
                f"sort: num_keys must be in [1, {len(avals)}] for {len(avals)} operands, "
                f"got {num_keys}"
            )
        first = avals[0]
        if not 0 <= dimension < first.ndim:
            raise ParameterError(
                f"sort: dimension {dimension} out of range for operand {shape_str(first.shape)}"
            )
        for a in avals[1:]:
            if a.ndim != first.ndim or any(
                dims_equal(x, y) is False for x, y in zip(a.shape, first.shape)
            ):
                raise ShapeError(f"sort: operands must have one shape, got {shapes}")
        for a in avals[:num_keys]:
            if a.dtype.kind not in "biufc":
                raise DTypeError(f"sort: keys must be numbers or bools, got {shapes}")
        return tuple(avals)


def sort_kernel(op: Sort, *operands: np.ndarray) -> Any:
    """The sorted operands: a stable permutation by the keys, then each operand permuted."""
    dimension, num_keys = op.dimension, op.num_keys
    keys = operands[:num_keys]
    if num_keys == 1:
        order = np.argsort(keys[0], axis=dimension, kind="stable")
    else:  # np.lexsort takes the most significant key last, and sorts along the last axis
        moved = [np.moveaxis(k, dimension, -1) for k in reversed(keys)]
        order = np.moveaxis(np.lexsort(moved, axis=-1), -1, dimension)
    outs = tuple(np.take_along_axis(x, order, axis=dimension) for x in operands)
    return outs[0] if len(outs) == 1 else outs


KERNELS: dict[type, Callable[..., Any]] = {Sort: sort_kernel}

__all__ = ["KERNELS", "Sort"]
