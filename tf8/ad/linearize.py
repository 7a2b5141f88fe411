"""The two graph-to-graph transforms everything else is built from, on the one interpreter.

`jvp_graph` walks the primal program forward and emits, op by op, the tangent ops its JVP
rule gives (tagged `Linearized`: their inputs are in the linear scope's key set).
`transpose_graph` walks a linear graph backwards applying transpose rules; cotangents
accumulate with `add` and a zero cotangent is symbolic (None), never a zeros array.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from tf8.graph import OperationKey, ValueKey
from tf8.lax.builders import Tangent, add_any, convert
from tf8.lax.scopes import linear_scope
from tf8.lax.walk import GraphWalk, interpret
from tf8.ops import dtypes as dt
from tf8.ops.definition import DERIVED
from tf8.ops.primitives import primitive_definition
from tf8.traced import TracedTensor

from .control import control_jvp_rules, control_transpose_rules
from .control.solves import solve_jvp_rules, solve_transpose_rules
from .families import FAMILY_JVP_RULES, FAMILY_TRANSPOSE_RULES
from .jvp_rules import JVP_RULES, home_jvp, linear_jvp
from .transpose_rules import TRANSPOSE_RULES, home_transpose
from .walk import RuleCache, RuleTable

is_inexact = dt.is_inexact


def jvp_graph(
    outputs: Sequence[TracedTensor],
    primals: Sequence[TracedTensor],
    tangents: Sequence[Tangent],
    values: Mapping[ValueKey, Any] | None = None,
) -> list[Tangent]:
    """Tangents of `outputs` when the leaves `primals` move along `tangents` (None = zero);
    `values` holds primal values computed while tracing (rules read them, not recompute)."""
    walk = GraphWalk(outputs, [t for t in tangents if t is not None], values)
    env: dict[ValueKey, Any] = {
        p.key: t for p, t in zip(primals, tangents) if t is not None and dt.is_inexact(p.dtype)
    }

    rules = RuleCache(JVP)

    def step(op_key: OperationKey, ts: list[Tangent]) -> list[Tangent]:
        structure = op_key._structure  # (op, role, *inputs)
        op = structure[0]
        primal_out = [walk[k] for k in op_key.outputs]
        outs = rules(op)(op, [walk[k] for k in structure[2:]], primal_out, ts)
        return [
            None
            if t is None or not is_inexact(out.aval.dtype)
            else (t if t.aval is out.aval or t.dtype == out.dtype else convert(t, out.dtype))
            for out, t in zip(primal_out, outs)
        ]

    with linear_scope(t.key for t in env.values()):
        interpret(walk.operations, env, step)
    return [env.get(o.key) for o in outputs]


def transpose_graph(
    linear_outputs: Sequence[Tangent],
    linear_inputs: Sequence[TracedTensor],
    cotangents: Sequence[Tangent],
    values: Mapping[ValueKey, Any] | None = None,
) -> list[Tangent]:
    """Cotangents of `linear_inputs` (leaves) given cotangents of the linear outputs."""
    present = [(o, c) for o, c in zip(linear_outputs, cotangents) if o is not None]
    if not present:
        return [None] * len(linear_inputs)
    walk = GraphWalk([o for o, _ in present], [c for _, c in present if c is not None], values)
    linear, relevant = walk.downstream(t.key for t in linear_inputs)
    env: dict[ValueKey, Tangent] = {}
    for out, ct in present:
        if ct is not None and out.key in linear:
            env[out.key] = add_any(env.get(out.key), ct)

    rules = RuleCache(TRANSPOSE)

    def step(op_key: OperationKey, cts: list[Tangent]) -> None:
        structure = op_key._structure  # (op, role, *inputs)
        op = structure[0]
        inputs = structure[2:]
        operands = [walk[k] for k in inputs]
        mask = [k in linear for k in inputs]
        ct_in = rules(op)(op, operands, mask, cts[0] if len(cts) == 1 else cts)
        for key, is_linear, c in zip(inputs, mask, ct_in):
            if is_linear and c is not None:
                old = env.get(key)
                env[key] = c if old is None else add_any(old, c)

    with linear_scope(c.key for c in env.values() if c is not None):
        interpret(relevant, env, step, backward=True)
    result = []
    for leaf in linear_inputs:
        c = env.get(leaf.key)
        if c is not None and c.dtype != leaf.dtype:
            c = convert(c, leaf.dtype)
        result.append(c)
    return result


# Primitives' rules keyed by row name, extension families' by op class; the control ops' rules
# apply the two transforms above to their bodies.
JVP = RuleTable(
    "JVP",
    "jvp",
    {
        **JVP_RULES,
        **FAMILY_JVP_RULES,
        **control_jvp_rules(jvp_graph),
        **solve_jvp_rules(jvp_graph, transpose_graph),
    },
    derive=home_jvp,
)
TRANSPOSE = RuleTable(
    "transpose (it is not linear)",
    "transpose",
    {
        **TRANSPOSE_RULES,
        **FAMILY_TRANSPOSE_RULES,
        **control_transpose_rules(transpose_graph),
        **solve_transpose_rules(jvp_graph, transpose_graph),
    },
    derive=home_transpose,
)


def register_rules(key: Any, *, jvp: Any = None, transpose: Any = None) -> None:
    """Give the op kind `key` — a primitive's row name or an extension op class — its JVP rule
    (`jvp(op, primals, outputs, tangents) -> tangents`) and, when linear, its transpose rule
    (`transpose(op, operands, linear_mask, cotangent) -> cotangents`). A linear primitive
    registered without a JVP rule gets the linear one (the op applied to the tangents)."""
    if jvp is None and isinstance(key, str) and primitive_definition(key).linear:
        jvp = linear_jvp
    if jvp is not None:
        JVP.register(key, jvp)
    if transpose is not None:
        TRANSPOSE.register(key, transpose)
    DERIVED.clear()  # the tape's rules derived from the old ones


def unregister_rules(key: Any) -> None:
    """Forget the rules `register_rules` gave `key` (tests use it to clean up)."""
    JVP.rules.pop(key, None)
    TRANSPOSE.rules.pop(key, None)
    DERIVED.clear()
