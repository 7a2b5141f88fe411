"""The two graph-to-graph transforms everything else is built from.

`jvp_graph` walks the primal program forward and emits, op by op, the tangent ops its JVP
rule gives (tagged `Linearized` through `linear_scope`). `transpose_graph` walks a linear
graph backwards applying transpose rules; cotangents accumulate with `add` and a zero
cotangent is symbolic (None), never a zeros array.
"""

from __future__ import annotations

from collections.abc import Sequence

from tf8.errors import DifferentiationError
from tf8.graph import ValueKey
from tf8.lax.builders import Tangent, add_any, convert
from tf8.ops import dtypes as dt
from tf8.traced import TracedTensor, linear_scope

from .families import FAMILY_JVP_RULES, FAMILY_TRANSPOSE_RULES
from .jvp_rules import JVP_RULES
from .transpose_rules import TRANSPOSE_RULES
from .walk import GraphWalk


def mark_linear(t: TracedTensor) -> TracedTensor:
    """A wrapper of `t` flagged as a tangent/cotangent (ops on it are tagged Linearized)."""
    marked = TracedTensor(t.key, t.aval, t._bindings, t._unbound, lin=True)
    marked._value = t._value
    return marked


def unmark(t: Tangent) -> Tangent:
    if t is None or not t._lin:
        return t
    plain = TracedTensor(t.key, t.aval, t._bindings, t._unbound)
    plain._value = t._value
    return plain


def _rule_name(op) -> str:
    return op.name


def jvp_graph(
    outputs: Sequence[TracedTensor], primals: Sequence[TracedTensor], tangents: Sequence[Tangent]
) -> list[Tangent]:
    """Tangents of `outputs` when the leaves `primals` move along `tangents` (None = zero)."""
    walk = GraphWalk(outputs, [t for t in tangents if t is not None])
    tangent_of: dict[ValueKey, TracedTensor] = {}
    for p, t in zip(primals, tangents):
        if t is not None and dt.is_inexact(p.dtype):
            tangent_of[p.key] = mark_linear(t)
    with linear_scope():
        for op_key in walk.operations:
            ts = [tangent_of.get(k) for k in op_key.inputs]
            if all(t is None for t in ts):
                continue
            rule = (
                FAMILY_JVP_RULES.get(type(op_key.op))
                or JVP_RULES.get(_rule_name(op_key.op))
                or getattr(op_key.op, "jvp", None)
            )
            if rule is None:
                raise DifferentiationError(f"no JVP rule for {op_key.op!r}")
            primal_in = [walk[k] for k in op_key.inputs]
            primal_out = [walk[k] for k in op_key.outputs]
            outs = rule(op_key.op, primal_in, primal_out, ts)
            for key, out, t in zip(op_key.outputs, primal_out, outs):
                if t is not None and dt.is_inexact(out.dtype):
                    tangent_of[key] = t if t.dtype == out.dtype else convert(t, out.dtype)
    return [tangent_of.get(o.key) for o in outputs]


def transpose_graph(
    linear_outputs: Sequence[Tangent],
    linear_inputs: Sequence[TracedTensor],
    cotangents: Sequence[Tangent],
) -> list[Tangent]:
    """Cotangents of `linear_inputs` (leaves) given cotangents of the linear outputs."""
    present = [(o, c) for o, c in zip(linear_outputs, cotangents) if o is not None]
    if not present:
        return [None] * len(linear_inputs)
    walk = GraphWalk([o for o, _ in present], [c for _, c in present if c is not None])
    linear = walk.depends_on(t.key for t in linear_inputs)
    ct_of: dict[ValueKey, Tangent] = {}
    with linear_scope():
        for out, ct in present:
            if ct is not None and out.key in linear:
                ct_of[out.key] = add_any(ct_of.get(out.key), mark_linear(ct))
        for op_key in reversed(walk.operations):
            if not any(k in linear for k in op_key.outputs):
                continue
            cts = [ct_of.pop(k, None) for k in op_key.outputs]
            if all(c is None for c in cts):
                continue
            rule = (
                FAMILY_TRANSPOSE_RULES.get(type(op_key.op))
                or TRANSPOSE_RULES.get(_rule_name(op_key.op))
                or getattr(op_key.op, "transpose", None)
            )
            if rule is None:
                raise DifferentiationError(f"{op_key.op!r} is not linear: it has no transpose rule")
            operands = [walk[k] for k in op_key.inputs]
            mask = [k in linear for k in op_key.inputs]
            ct_in = rule(op_key.op, operands, mask, cts[0] if len(cts) == 1 else cts)
            for key, is_linear, c in zip(op_key.inputs, mask, ct_in):
                if is_linear and c is not None:
                    ct_of[key] = add_any(ct_of.get(key), c)
    result = []
    for leaf in linear_inputs:
        c = ct_of.get(leaf.key)
        if c is not None and c.dtype != leaf.dtype:
            c = convert(c, leaf.dtype)
        result.append(unmark(c))
    return result
