"""The two graph-to-graph transforms everything else is built from, on the one interpreter.

`jvp_graph` walks the primal program forward and emits, op by op, the tangent ops its JVP
rule gives (tagged `Linearized`: their inputs are in the linear scope's key set).
`transpose_graph` walks a linear graph backwards applying transpose rules; cotangents
accumulate with `add` and a zero cotangent is symbolic (None), never a zeros array.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from tf8.graph import OperationKey, ValueKey
from tf8.lax.builders import Tangent, add_any, convert
from tf8.lax.scopes import linear_scope
from tf8.lax.values import known_value
from tf8.ops import dtypes as dt
from tf8.ops.leaves import merge_binding_dicts
from tf8.ops.primitive import Primitive, plain_primitive
from tf8.ops.primitives import primitive_definition
from tf8.traced import TracedTensor

from .control import control_jvp_rules, control_transpose_rules
from .families import FAMILY_JVP_RULES, FAMILY_TRANSPOSE_RULES
from .jvp_rules import JVP_RULES, home_jvp, linear_jvp, zero_rule
from .transpose_rules import TRANSPOSE_RULES, home_transpose
from .walk import GraphWalk, RuleCache, RuleTable, aval_of, interpret

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
    {**JVP_RULES, **FAMILY_JVP_RULES, **control_jvp_rules(jvp_graph)},
    derive=home_jvp,
)
TRANSPOSE = RuleTable(
    "transpose (it is not linear)",
    "transpose",
    {**TRANSPOSE_RULES, **FAMILY_TRANSPOSE_RULES, **control_transpose_rules(transpose_graph)},
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


def unregister_rules(key: Any) -> None:
    """Forget the rules `register_rules` gave `key` (tests use it to clean up)."""
    JVP.rules.pop(key, None)
    TRANSPOSE.rules.pop(key, None)


# --- reverse mode in one walk ------------------------------------------------------------------
#
# `transpose_graph(jvp_graph(...))` records the tangent program only to transpose it. For a
# primal graph of common ops (add, sub, mul, dot_general, div by a non-differentiated value,
# unary elementwise functions, unary linear ops such as reduce_sum), `vjp_graph` builds that tangent
# program as *structures* instead — (op, operands) tuples interned as numbers, exactly as
# the JVP rules would make and the key tables would intern them, without recording — and
# transposes those: in the order `transpose_graph` would (the reverse of the tangent graph's
# materialised order), with the same transpose rules, accumulating in the same order. The ops
# it records are the ones the two walks record after the tangent program, so the cotangents
# are the same keys. An op without such a structure rule, a rule registered since import, or
# a value that is not a real float: None, and the caller takes the two walks.

_ORIGINAL_JVP = dict(JVP.rules)
_ORIGINAL_TRANSPOSE = dict(TRANSPOSE.rules)
_TANGENT_OPS = ("add", "mul", "div")  # the ops JVP rules make tangents with (add_any, scale)
_ADD, _MUL, _DIV = (plain_primitive(name, 2) for name in _TANGENT_OPS)


def _direct_kind(op: Any, mask: list[bool]) -> str | None:
    """Which structure rule of `vjp_graph` makes `op`'s tangent with these inputs active."""
    if type(op) is not Primitive:
        return None
    name = op.name
    jvp = JVP.rules.get(name)
    if jvp is None or jvp is not _ORIGINAL_JVP.get(name):
        return None  # a rule registered since: only the general walks know it
    if jvp is zero_rule:
        return "zero"
    if name == "div":
        return None if mask[1] else "div"
    if name in ("mul", "dot_general"):  # rules of one shape: op(tx, y) + op(x, ty)
        return "bilinear" if TRANSPOSE.rules.get(name) is _ORIGINAL_TRANSPOSE.get(name) else None
    if TRANSPOSE.rules.get(name) is not _ORIGINAL_TRANSPOSE.get(name):
        return None
    partials = getattr(jvp, "partials", None)
    if partials is not None:
        return "elementwise" if len(partials) == 1 else None
    if jvp is linear_jvp and (len(mask) == 1 or name in ("add", "sub")):
        return "linear" if name in TRANSPOSE.rules else None
    return None


class _TangentStructures:
    """The tangent program `jvp_graph` would record, as interned structures: node i is
    `ops[i]` on `inputs[i]` (node numbers: linear values; keys: primal operands; ("zeros",
    aval): a materialised zero), or a tangent leaf when `ops[i]` is None. `like[i]` is a
    primal value of the node's aval (the transpose rules read linear operands' avals only)."""

    def __init__(self) -> None:
        self.numbers: dict[tuple, int] = {}
        self.ops: list[Any] = []
        self.inputs: list[tuple] = []
        self.like: list[ValueKey] = []
        self.factors: dict[ValueKey, TracedTensor] = {}  # primal operands made for the tangents

    def node(self, op: Any, inputs: tuple, like: ValueKey) -> int:
        structure = (op, *inputs)
        number = self.numbers.get(structure)
        if number is None:  # interned, as the key table would
            number = self.numbers[structure] = len(self.ops)
            self.ops.append(op)
            self.inputs.append(inputs)
            self.like.append(like)
        return number

    def leaf(self, key: ValueKey) -> int:
        self.ops.append(None)
        self.inputs.append(())
        self.like.append(key)
        return len(self.ops) - 1

    def order(self, outputs: Sequence[int]) -> list[int]:
        """The op nodes behind `outputs` in `materialize_merge`'s order (depth first, inputs
        in order, each node after its inputs); primal operands hold no linear op."""
        order: list[int] = []
        visited: set[int] = set()
        for output in outputs:
            stack: list[Any] = [output]
            while stack:
                item = stack.pop()
                if type(item) is not int:
                    continue  # a primal operand or a zero
                if item < 0:  # ~node: its inputs are done
                    order.append(~item)
                elif item not in visited and self.ops[item] is not None:
                    visited.add(item)
                    stack.append(~item)
                    stack.extend(self.inputs[item][::-1])
        return order


def _tangent(
    nodes: _TangentStructures,
    kind: str,
    op: Any,
    inputs: tuple,
    tangent: dict[ValueKey, int],
    out: ValueKey,
    walk: GraphWalk,
) -> int | None:
    """The node of the tangent `op`'s JVP rule (of `kind`) gives its output `out`."""
    if kind == "linear":  # linear_jvp: the op on the tangents, zeros where inactive
        operands = tuple([tangent[k] if k in tangent else ("zeros", aval_of(k)) for k in inputs])
        return nodes.node(op, operands, out)
    if kind == "elementwise":  # mul(t, partial(x, out))
        (partial,) = JVP.rules[op.name].partials
        if partial is None:
            return None
        (x,) = inputs
        factor = partial(walk[x], walk[out])  # a primal op, recorded as jvp_graph does
        nodes.factors[factor.key] = factor
        return nodes.node(_MUL, (tangent[x], factor.key), out)
    x, y = inputs
    if kind == "div":  # div(tx, y)
        return nodes.node(_DIV, (tangent[x], y), out)
    # mul: scale(tx, y) and mul(x, ty), the shared `mul` op; dot_general: the op itself
    left = nodes.node(op, (tangent[x], y), out) if x in tangent else None
    right = nodes.node(op, (x, tangent[y]), out) if y in tangent else None
    if left is None or right is None:
        return right if left is None else left
    return nodes.node(_ADD, (left, right), out)  # add_any


def _operand(k: Any, nodes: _TangentStructures, walk: GraphWalk) -> TracedTensor | None:
    """The operand a transpose rule reads for structure input `k`, as `transpose_graph`'s walk
    would make it (a linear value: a primal value of its aval; a zero of add or sub: None,
    their rules do not read it)."""
    if type(k) is int:
        return walk[nodes.like[k]]
    if type(k) is not ValueKey:
        return None
    factor = nodes.factors.get(k)
    if factor is None:
        return walk[k]
    bindings = merge_binding_dicts([walk.bindings, factor._bindings])
    t = TracedTensor(k, factor.aval, bindings, factor._unbound)
    if k._operation is None:  # a constant computed op by op, now a bound leaf
        bound = bindings.get(k)
        if type(bound) is np.ndarray:
            t._value = bound
    elif not factor._unbound:
        t._value = known_value(walk.values, k)
    return t


def vjp_graph(
    outputs: Sequence[TracedTensor],
    primals: Sequence[TracedTensor],
    cotangents: Sequence[Tangent],
    values: Mapping[ValueKey, Any] | None = None,
) -> list[Tangent] | None:
    """Cotangents of the leaves `primals` given cotangents of `outputs`: the values (the
    very keys) `transpose_graph(jvp_graph(outputs, primals, tangents), tangents, cotangents)`
    gives, in one backward walk; None where it has no structure rule (see above)."""
    if any(TRANSPOSE.rules.get(n) is not _ORIGINAL_TRANSPOSE.get(n) for n in _TANGENT_OPS):
        return None  # the tangent ops' transposition changed since import
    walk = GraphWalk(outputs, [c for c in cotangents if c is not None], values)
    nodes = _TangentStructures()
    tangent = {p.key: nodes.leaf(p.key) for p in primals if dt.is_inexact(p.dtype)}
    for op_key in walk.operations:
        structure = op_key._structure
        inputs = structure[2:]
        mask = [k in tangent for k in inputs]
        if True not in mask:
            continue
        op = structure[0]
        kind = _direct_kind(op, mask)
        if kind == "zero":
            continue  # no tangent
        if kind is None or op_key._output_count != 1:
            return None
        (out,) = op_key.outputs
        dtype = aval_of(out).dtype
        if dtype.kind != "f" or any([aval_of(k).dtype != dtype for k in inputs]):
            return None
        node = _tangent(nodes, kind, op, inputs, tangent, out, walk)
        if node is not None:
            tangent[out] = node
    present = [(tangent[o.key], c) for o, c in zip(outputs, cotangents) if o.key in tangent]
    if not present:
        return [None] * len(primals)
    env: dict[int, Tangent] = {}
    for node, ct in present:
        if ct is not None:
            env[node] = add_any(env.get(node), ct)
    rules = RuleCache(TRANSPOSE)
    with linear_scope(c.key for c in env.values() if c is not None):
        for node in reversed(nodes.order([node for node, _ in present])):
            ct = env.pop(node, None)
            if ct is None:
                continue
            op, inputs = nodes.ops[node], nodes.inputs[node]
            mask = [type(k) is int for k in inputs]
            operands = [_operand(k, nodes, walk) for k in inputs]
            for k, is_linear, c in zip(inputs, mask, rules(op)(op, operands, mask, ct)):
                if is_linear and c is not None:
                    old = env.get(k)
                    env[k] = c if old is None else add_any(old, c)
    result = []
    for leaf in primals:
        c = env.get(tangent[leaf.key]) if leaf.key in tangent else None
        if c is not None and c.dtype != leaf.dtype:
            c = convert(c, leaf.dtype)
        result.append(c)
    return result
