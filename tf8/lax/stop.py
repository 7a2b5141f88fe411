"""`stop_gradient`: the identity whose derivative is zero (JAX's `lax.stop_gradient`).

It lives at the tracing level so that tf8's own libraries below the transforms (tf8.random,
tf8.numpy) can cut a derivative; `tf8.stop_gradient` is the same function.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tf8 import tree
from tf8.ops.extension import ExtensionOp
from tf8.ops.primitive import Aval
from tf8.traced import TracedTensor

from .core import apply
from .ops import _array

__all__ = ["StopGradient", "stop_gradient"]


class StopGradient(ExtensionOp):
    """Identity whose derivative is zero."""

    family = "tf8.ad.v1"
    name = "stop_gradient"
    stops_derivative = True  # float() of its result is fine under grad, as in JAX

    def infer(self, avals: Sequence[Aval], guards: list) -> tuple[Aval, ...]:
        return (avals[0],)

    def kernel(self, op: ExtensionOp, x: Any) -> Any:
        return x

    def jvp(self, op, primals, outputs, tangents):
        return [None]


def stop_gradient(x: Any) -> Any:
    """`x` with derivatives blocked (a pytree of arrays is accepted, as in JAX)."""

    def stop(leaf: Any) -> TracedTensor:
        return apply(StopGradient((), 1), [_array(leaf)])[0]

    return tree.tree_map(stop, x)
