"""Engines execute instructions; NumpyEngine is the default (and only built-in) one.

An engine declares which ops it can run and hands back a kernel for each. The compiler never
sees engines; a CuPy or Dask engine would plug in here without touching it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from tf8.ops.extension.kernels import FAMILY_KERNELS
from tf8.ops.kernels import KERNELS
from tf8.runtime.elementwise import REDUCTIONS, Steps, ufunc_steps


class Engine:
    """Interface: `name`, `supports(op)`, `kernel(op)`, `to_host(array)`; optionally the
    ufunc form of elementwise ops and reductions (for direct calls, `out=` buffer reuse and
    blocked regions) and whether consumers may read metadata ops as views."""

    name = "engine"
    folds_metadata_views = False

    def supports(self, op: Any) -> bool:
        raise NotImplementedError

    def kernel(self, op: Any) -> Callable[..., Any]:
        raise NotImplementedError

    def to_host(self, array: Any) -> np.ndarray:
        return np.asarray(array)

    def elementwise_steps(self, op: Any, dtypes: Sequence[np.dtype]) -> Steps | None:
        return None

    def reduction(self, op: Any) -> tuple[np.ufunc, bool] | None:
        return None


class NumpyEngine(Engine):
    """Runs catalog primitives with tf8.ops.kernels and extension ops with their own kernels."""

    name = "numpy"
    folds_metadata_views = True

    def supports(self, op: Any) -> bool:
        return getattr(op, "is_extension", False) or op.name in KERNELS

    def kernel(self, op: Any) -> Callable[..., Any]:
        if getattr(op, "is_extension", False):
            return FAMILY_KERNELS.get(type(op)) or op.kernel
        return KERNELS[op.name]

    def elementwise_steps(self, op: Any, dtypes: Sequence[np.dtype]) -> Steps | None:
        return ufunc_steps(op, dtypes)

    def reduction(self, op: Any) -> tuple[np.ufunc, bool] | None:
        return None if getattr(op, "is_extension", False) else REDUCTIONS.get(op.name)
