"""Helpers the family modules share: kernels made from numpy and scipy functions, and the
batching rule of a row without operands."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

import numpy as np

from tf8.errors import ShapeError

Kernel = Callable[..., np.ndarray]


def scipy_special() -> Any:
    """scipy.special, imported when a kernel first needs it (`import tf8` stays fast)."""
    return importlib.import_module("scipy.special")


def unary_kernel(fn: Callable[[np.ndarray], Any]) -> Kernel:
    """The kernel `fn(x)`; the eager fast path calls `fn` itself (`kernel.direct`)."""
    kernel = lambda op, x: fn(x)  # noqa: E731
    kernel.direct = fn  # type: ignore[attr-defined]
    return kernel


def binary_kernel(fn: Callable[[np.ndarray, np.ndarray], Any]) -> Kernel:
    """The kernel `fn(x, y)`; the eager fast path calls `fn` itself (`kernel.direct`)."""
    kernel = lambda op, x, y: fn(x, y)  # noqa: E731
    kernel.direct = fn  # type: ignore[attr-defined]
    return kernel


def special_kernel(name: str) -> Kernel:
    """The kernel of scipy.special.`name`, its result in the operands' dtype: scipy has no
    float16 loops and computes float16 in float32 or float64."""

    def kernel(op: Any, *xs: np.ndarray) -> np.ndarray:
        out = getattr(scipy_special(), name)(*xs)
        return out if out.dtype == xs[-1].dtype else out.astype(xs[-1].dtype)

    return kernel


def transpose_each(fn: Callable[[Any, Any, Any], Any]) -> Callable[..., list[Any]]:
    """A transpose rule giving each linear operand its cotangent independently:
    `fn(lax, ct, operand)`, None for the operands that are not linear."""

    def rule(lax: Any, op: Any, operands: Any, linear: Any, ct: Any) -> list[Any]:
        return [fn(lax, ct, x) if is_linear else None for x, is_linear in zip(operands, linear)]

    return rule


def no_operands(lax: Any, op: Any, args: list, dims: list) -> tuple[list, list]:
    """The batching rule of a row without operands (constant, iota): never called by vmap,
    which has nothing of it to batch."""
    raise ShapeError(f"vmap: {op!r} has no operands, so nothing of it is batched")
