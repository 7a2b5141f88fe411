"""The tangent map of a custom_vjp call: an opaque op, linear in the call's tangents, whose
transpose is the user's `bwd`.

fwd's residual arrays are the op's operands after the tangents, not values its payload
holds: every transform then sees them as inputs, as it sees any op's. A loop body's partial
evaluation stacks them for its transposed body, a cond's transposed branch recomputes them,
and a reverse pass over the backward pass (`grad(grad(f))`) differentiates bwd's use of
them. (Held in the payload, a scan's transposed body read the forward body's values as
unbound leaves — or, worse, as its own leaves of the same position.)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tf8 import tree
from tf8.errors import DifferentiationError, NoBatchingRule, TreeStructureError
from tf8.lax.builders import Tangent, materialize
from tf8.lax.core import apply
from tf8.ops.extension import ExtensionOp
from tf8.ops.primitive import Aval
from tf8.traced import TracedTensor

from .arguments import as_traced
from .tracing import shapes_match

__all__ = ["tangent_map"]


class _VjpCall:
    """One custom_vjp call as its tangent map needs it: the rules (`site.bwd`), the output
    avals and structure, and fwd's residual pytree with its leaves that are not traced
    arrays, held as they are (Python numbers, numpy constants, the converted rule that
    `custom_gradient` passes). Hashed by identity: each call is its own op."""

    def __init__(
        self,
        site: Any,
        residual_leaves: list[Any],
        residual_tree: Any,
        tangent_count: int,
        out_avals: tuple[Aval, ...],
        out_tree: Any,
    ) -> None:
        self.site, self.tangent_count = site, tangent_count
        self.out_avals, self.out_tree = out_avals, out_tree
        self.residual_tree = residual_tree
        # (True, None) for a leaf that is an operand (an array fwd computed), else (False, leaf)
        self.held: list[tuple[bool, Any]] = [
            (True, None) if isinstance(leaf, TracedTensor) else (False, leaf)
            for leaf in residual_leaves
        ]

    def __repr__(self) -> str:
        return f"<custom_vjp call of {self.site.__name__}>"

    def residuals(self, operands: Sequence[Any]) -> Any:
        """fwd's residuals, their arrays read from `operands`."""
        it = iter(operands)
        leaves = [next(it) if is_operand else leaf for is_operand, leaf in self.held]
        return tree.tree_unflatten(self.residual_tree, leaves)


def tangent_map(
    site: Any,
    residuals: Any,
    tangents: Sequence[TracedTensor],
    out_avals: tuple[Aval, ...],
    out_tree: Any,
) -> list[TracedTensor]:
    """The output tangents of the custom_vjp call `site` for its arguments' `tangents`, given
    fwd's `residuals`: the call's tangent map applied to (*tangents, *residual arrays)."""
    leaves, residual_tree = tree.tree_flatten(residuals)
    arrays = [leaf for leaf in leaves if isinstance(leaf, TracedTensor)]
    call = _VjpCall(site, leaves, residual_tree, len(tangents), out_avals, out_tree)
    op = _VjpLinear((call,), len(tangents) + len(arrays), len(out_avals))
    return apply(op, [*tangents, *arrays])


class _VjpLinear(ExtensionOp):
    """The tangent map of a custom_vjp call, on (*tangents, *residual arrays): opaque, linear
    in the tangents with the residuals held fixed; its transpose is `bwd`."""

    family = "tf8.ad.v1"
    name = "custom_vjp_linear"
    # Each call is its own op, holding the call's arguments: the caches keyed by op (eager
    # plans, the tape's derived rules) never hit it, so they do not keep it.
    per_call = True

    def infer(self, avals: Sequence[Aval], guards: list) -> tuple[Aval, ...]:
        return self.payload[0].out_avals

    def kernel(self, op: ExtensionOp, *arrays: Any) -> Any:
        raise DifferentiationError(
            "forward mode (jvp) of a custom_vjp function is not supported; use custom_jvp"
        )

    def transpose(self, op, operands, linear, ct) -> list[Tangent]:
        call = self.payload[0]
        n = call.tangent_count
        if any(linear[n:]):
            raise DifferentiationError(
                f"custom_vjp {call.site.__name__}: its residuals depend on the values its "
                "linearised map is transposed in; it is linear in its tangents only"
            )
        cts = ct if isinstance(ct, (list, tuple)) else [ct]
        cts = [materialize(c, aval) for c, aval in zip(cts, call.out_avals)]
        out_ct = tree.tree_unflatten(call.out_tree, cts)
        found = call.site.bwd(call.residuals(operands[n:]), out_ct)
        out: list[Tangent] = []
        for leaf, x in zip(found, operands[:n]):
            if leaf is not None:
                leaf = as_traced(leaf)
                if not shapes_match(leaf.shape, x.shape):
                    raise TreeStructureError(
                        f"custom_vjp bwd cotangent shape {leaf.shape} != argument shape {x.shape}"
                    )
            out.append(leaf)
        return out + [None] * (len(operands) - n)  # the residuals: held fixed

    def batch(self, op: ExtensionOp, args, dims):
        raise NoBatchingRule(
            "vmap of the forward-mode (linearised) map of a custom_vjp function is not "
            "supported; vmap the function, or its vjp, instead"
        )
