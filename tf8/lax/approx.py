"""JAX's `lax.approx_max_k` and `lax.approx_min_k`. JAX's CPU backend computes them exactly
(a sort and a slice), and so does tf8: the `k` largest (smallest) entries along
`reduction_dimension`, in order, ties in index order, with their int32 indices.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tf8.errors import DTypeError, ParameterError
from tf8.lax.core import apply1
from tf8.lax.ops import _array
from tf8.lax.sorting import iota_like, sort_all
from tf8.ops import dtypes as dt
from tf8.traced import TracedTensor


def _approx_top_k(
    name: str,
    operand: Any,
    k: int,
    reduction_dimension: int,
    aggregate_to_topk: bool,
    largest: bool,
) -> tuple[TracedTensor, TracedTensor]:
    x = _array(operand)
    if x.ndim == 0:
        raise ParameterError(f"{name}: operand must have at least one dimension, got {x.aval}")
    if not dt.is_float(x.dtype):
        raise DTypeError(f"{name}: operand must be a real float array, got {x.aval}")
    if not isinstance(reduction_dimension, (int, np.integer)) or not (
        -x.ndim <= reduction_dimension < x.ndim
    ):
        raise ParameterError(
            f"{name}: reduction_dimension {reduction_dimension!r} is out of range for {x.aval}"
        )
    axis = int(reduction_dimension) % x.ndim
    n = x.shape[axis]
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or not 0 < k <= n:
        raise ParameterError(f"{name}: k must be in [1, {n}] for operand {x.aval}, got {k!r}")
    if not aggregate_to_topk:
        raise ParameterError(
            f"{name}: aggregate_to_topk=False (a backend-sized partial result) is not supported; "
            "tf8 returns the exact top k"
        )
    key = apply1("neg", [x]) if largest else x
    _, values, indices = sort_all([key, x, iota_like(x, axis)], axis, 1)
    limit = tuple(int(k) if i == axis else d for i, d in enumerate(x.shape))
    cut = {"start": (0,) * x.ndim, "limit": limit, "strides": None}
    indices = apply1("convert", [apply1("slice", [indices], **cut)], dtype=dt.int32)
    return apply1("slice", [values], **cut), indices


def approx_max_k(
    operand: Any,
    k: int,
    reduction_dimension: int = -1,
    recall_target: float = 0.95,
    reduction_input_size_override: int = -1,
    aggregate_to_topk: bool = True,
) -> tuple[TracedTensor, TracedTensor]:
    """The `k` largest entries of a float `operand` along `reduction_dimension`, largest
    first (ties in index order), and their int32 indices: exact, as on JAX's CPU backend
    (`recall_target` and `reduction_input_size_override` tune accelerators and are ignored).

    >>> import numpy as np
    >>> from tf8 import lax
    >>> lax.approx_max_k(np.array([3.0, 1.0, 4.0, 1.5]), 2)
    (Array([4., 3.], dtype=float64), Array([2, 0], dtype=int32))

    Differences from JAX: `aggregate_to_topk=False` (a partial result sized for a TPU) is
    refused; with NaN among the entries JAX's order is unspecified (its comparison is not a
    total order), tf8 sorts NaN as numpy does (last by value).
    """
    return _approx_top_k(
        "approx_max_k", operand, k, reduction_dimension, aggregate_to_topk, largest=True
    )


def approx_min_k(
    operand: Any,
    k: int,
    reduction_dimension: int = -1,
    recall_target: float = 0.95,
    reduction_input_size_override: int = -1,
    aggregate_to_topk: bool = True,
) -> tuple[TracedTensor, TracedTensor]:
    """The `k` smallest entries of a float `operand` along `reduction_dimension`, smallest
    first (ties in index order), and their int32 indices: exact, as on JAX's CPU backend.

    >>> import numpy as np
    >>> from tf8 import lax
    >>> lax.approx_min_k(np.array([3.0, 1.0, 4.0, 1.5]), 2)
    (Array([1. , 1.5], dtype=float64), Array([1, 3], dtype=int32))

    Differences from JAX: as `approx_max_k`.
    """
    return _approx_top_k(
        "approx_min_k", operand, k, reduction_dimension, aggregate_to_topk, largest=False
    )


__all__ = ["approx_max_k", "approx_min_k"]
