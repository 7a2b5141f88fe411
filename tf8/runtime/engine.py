"""Engines execute instructions; NumpyEngine is the default (and only built-in) one.

An engine declares which ops it can run and hands back a kernel for each. The compiler never
sees engines; a CuPy or Dask engine would plug in here without touching it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from tf8.ops.kernels import KERNELS


class Engine:
    """Interface: `name`, `supports(op)`, `kernel(op)`, `to_host(array)`."""

    name = "engine"

    def supports(self, op: Any) -> bool:
        raise NotImplementedError

    def kernel(self, op: Any) -> Callable[..., Any]:
        raise NotImplementedError

    def to_host(self, array: Any) -> np.ndarray:
        return np.asarray(array)


class NumpyEngine(Engine):
    """Runs catalog primitives with tf8.ops.kernels and extension ops with their own kernels."""

    name = "numpy"

    def supports(self, op: Any) -> bool:
        return getattr(op, "is_extension", False) or op.name in KERNELS

    def kernel(self, op: Any) -> Callable[..., Any]:
        if getattr(op, "is_extension", False):
            return op.kernel
        return KERNELS[op.name]
