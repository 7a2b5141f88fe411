"""Partial evaluation of control flow: a loop's (or cond's) known part and linear part, apart.

A scan that is linear in some operands (the jvp of a scan) computes primal values and
tangents in one loop. Reverse mode needs them apart, as JAX's partial evaluation makes them:
a *known* scan of the non-linear part, which also stacks, per iteration, the primal values
the linear part reads (the residuals), and a *linear* scan of the rest over those stacks. A
cond splits alike: a known cond whose branch taken computes its residuals (zeros in the
slots of the other branches'), and a linear cond over them.

- `scan_partition` and `cond_residuals` find the parts (tf8.ad.control.transpose splits
  what it transposes with them);
- `split_scan` and `split_cond` apply an op as its two parts;
- `split_inner_loops` rebuilds a body with every mixed scan and cond in it split: the body of
  an outer loop being transposed then stacks the inner op's residuals with its own, and the
  reverse body runs only the inner op's linear part (its transpose, with no residual loop)
  instead of running the inner forward pass again.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import NamedTuple

from tf8.graph import OperationKey, ValueKey
from tf8.lax.builders import zeros
from tf8.lax.control import inline, program_tensors, trace_flat, trace_many
from tf8.lax.core import apply
from tf8.lax.walk import GraphWalk, interpret
from tf8.ops.avals import value_aval
from tf8.ops.extension.control import ClosedProgram, Cond, Scan
from tf8.traced import TracedTensor

__all__ = [
    "Partition",
    "cond_residuals",
    "residual_branch",
    "scan_partition",
    "split_cond",
    "split_inner_loops",
    "split_scan",
]


class Partition(NamedTuple):
    """A scan body's two parts: each operand's linearity (a carry the body makes linear is
    linear), the values depending on a linear input (`lin`), the residuals (values of the
    non-linear part the linear part reads: stacked per iteration unless they are non-linear
    consts or xs, in `const_of` and `x_of` by input key)."""

    linear: list[bool]
    lin: set[ValueKey]
    residuals: list[ValueKey]
    const_of: dict[ValueKey, int]
    x_of: dict[ValueKey, int]

    @property
    def stacked(self) -> list[ValueKey]:
        """The residuals the known scan stacks (the others are operands already)."""
        return [k for k in self.residuals if k not in self.const_of and k not in self.x_of]


def scan_partition(
    walk: GraphWalk, ins: Sequence[TracedTensor], outs: Sequence[TracedTensor], op: Scan, linear
) -> Partition:
    """The parts of `op`'s body (`walk` over its outputs `outs`, inputs `ins`) when the
    operands `linear` marks are linear."""
    _, nc, nk, _, _ = op.payload
    n = len(ins)
    # A carry entering as a constant (a materialised zero tangent) that the body makes
    # linear is linear too: iterate to a fixpoint. Its cotangent is dropped (a constant).
    linear = list(linear)
    while True:
        lin = walk.depends_on(ins[i].key for i in range(n) if linear[i])
        grown = [j for j in range(nk) if outs[j].key in lin and not linear[nc + j]]
        if not grown:
            break
        for j in grown:
            linear[nc + j] = True
    primal = walk.depends_on(ins[i].key for i in range(n) if not linear[i]) - lin
    residuals: dict[ValueKey, None] = {}
    for op_key in walk.operations:
        if any([k in lin for k in op_key.outputs]):
            residuals.update((k, None) for k in op_key.inputs if k in primal)
    for j, o in enumerate(outs):  # a primal value returned as a linear carry output
        if j < nk and linear[nc + j] and o.key in primal:
            residuals[o.key] = None
    const_of = {ins[i].key: i for i in range(nc) if not linear[i]}
    x_of = {ins[i].key: i for i in range(nc + nk, n) if not linear[i]}
    return Partition(linear, lin, list(residuals), const_of, x_of)


def split_scan(
    op: Scan, operands: Sequence[TracedTensor], linear: Sequence[bool]
) -> list[TracedTensor]:
    """`op` applied to `operands` (those `linear` marks are linear) as a known scan and a
    linear scan over its residuals; as itself when one part is empty."""
    body, nc, nk, length, reverse = op.payload
    ins, outs = program_tensors(body)
    walk = GraphWalk(outs)
    part = scan_partition(walk, ins, outs, op, linear)
    linear, lin = part.linear, part.lin
    n = len(operands)
    if all(linear) or not any(linear) or not lin:
        return apply(op, operands)
    nonlinear = [i for i in range(n) if not linear[i]]
    nl_carry = [j for j in range(nk) if not linear[nc + j]]
    lin_carry = [j for j in range(nk) if linear[nc + j]]
    known_ys = [j for j in range(nk, len(outs)) if outs[j].key not in lin]
    linear_ys = [j for j in range(nk, len(outs)) if outs[j].key in lin]
    stacked = part.stacked
    known_outs = [outs[j] for j in (*nl_carry, *known_ys)] + [walk[k] for k in stacked]
    program = ClosedProgram.get(
        [ins[i].key for i in nonlinear], [t.key for t in known_outs], [t.aval for t in known_outs]
    )
    known = apply(
        Scan(program, sum(1 for i in nonlinear if i < nc), len(nl_carry), length, reverse),
        [operands[i] for i in nonlinear],
    )
    const_res = [k for k in part.residuals if k in part.const_of]
    x_res = [k for k in part.residuals if k in part.x_of]
    lin_consts = [i for i in range(nc) if linear[i]]
    lin_xs = [i for i in range(nc + nk, n) if linear[i]]
    reads = [*const_res, *[ins[i].key for i in lin_consts]]
    reads += [ins[nc + j].key for j in lin_carry]
    reads += [*x_res, *[ins[i].key for i in lin_xs], *stacked]
    targets = [outs[j].key for j in (*lin_carry, *linear_ys)]

    def linear_body(args: list) -> list:
        return inline(body, dict(zip(reads, args)), targets, recompute=False)  # type: ignore

    step_avals = {ins[i].key: ins[i].aval for i in range(n)}  # (xs: one step's slice)
    program, captures = trace_flat(
        linear_body, [step_avals[k] if k in step_avals else value_aval(k) for k in reads]
    )
    n_consts = len(captures) + len(const_res) + len(lin_consts)
    results = apply(
        Scan(program, n_consts, len(lin_carry), length, reverse),
        [
            *captures,
            *[operands[part.const_of[k]] for k in const_res],
            *[operands[i] for i in lin_consts],
            *[operands[nc + j] for j in lin_carry],
            *[operands[part.x_of[k]] for k in x_res],
            *[operands[i] for i in lin_xs],
            *known[len(nl_carry) + len(known_ys) :],
        ],
    )
    found: list = [None] * len(outs)
    for j, t in zip((*nl_carry, *known_ys), known):
        found[j] = t
    for j, t in zip((*lin_carry, *linear_ys), results):
        found[j] = t
    return found


def cond_residuals(branch: ClosedProgram, lin: Sequence[int]) -> list[ValueKey]:
    """The values of `branch` computed from its non-linear operands that its linear part
    reads (not the operands themselves, which the linear part gets anyway, nor values made of
    literals only, cheaper to make again than to keep)."""
    ins, outs = program_tensors(branch)
    walk = GraphWalk(outs)
    linear = walk.depends_on(ins[i].key for i in lin)
    primal = walk.depends_on(t.key for t in ins) - linear
    found: dict[ValueKey, None] = {}
    for op_key in walk.operations:
        if any([k in linear for k in op_key.outputs]):
            found.update((k, None) for k in op_key.inputs if k in primal and not k.is_input)
    return list(found)


def residual_branch(
    branch: ClosedProgram,
    nl: Sequence[int],
    keys: Sequence[ValueKey],
    slots: Sequence[ValueKey],
    outputs: Sequence[int] = (),
) -> Callable[[list], list]:
    """A branch of a known cond, over the non-linear operands (`nl`): its `outputs`, then its
    residuals (`keys`) in their `slots`, zeros in the other branches' slots."""
    inputs = branch.inputs

    def fun(args: list) -> list:
        targets = [*[branch.outputs[j] for j in outputs], *keys]
        found = inline(branch, {inputs[i]: a for i, a in zip(nl, args)}, targets)
        values = dict(zip(keys, found[len(outputs) :]))
        saved = [values[k] if k in values else zeros(value_aval(k)) for k in slots]
        return [*found[: len(outputs)], *saved]

    return fun


def split_cond(
    op: Cond, operands: Sequence[TracedTensor], linear: Sequence[bool]
) -> list[TracedTensor]:
    """`op` applied to `operands` (those `linear` marks are linear) as a known cond, which
    computes the outputs that do not depend on a linear operand and the residuals, and a
    linear cond over them; as itself when one part is empty."""
    if linear[0] or all(linear[1:]) or not any(linear[1:]):
        return apply(op, operands)
    ops, branches = list(operands[1:]), op.branches
    lin = [i for i, m in enumerate(linear[1:]) if m]
    nl = [i for i, m in enumerate(linear[1:]) if not m]
    out_linear = [False] * len(branches[0].outputs)
    for b in branches:
        ins, outs = program_tensors(b)
        depends = GraphWalk(outs).depends_on(ins[i].key for i in lin)
        out_linear = [m or o.key in depends for m, o in zip(out_linear, outs)]
    known_outs = [j for j, m in enumerate(out_linear) if not m]
    linear_outs = [j for j, m in enumerate(out_linear) if m]
    found = [cond_residuals(b, lin) for b in branches]
    slots = list(dict.fromkeys(k for keys in found for k in keys))
    funs = [residual_branch(b, nl, keys, slots, known_outs) for b, keys in zip(branches, found)]
    programs, captures = trace_many(funs, [ops[i].aval for i in nl])
    known = apply(Cond(programs), [operands[0], *captures, *[ops[i] for i in nl]])

    def linear_branch(branch: ClosedProgram, keys: Sequence[ValueKey]) -> Callable:
        def fun(args: list) -> list:
            mapping = {branch.inputs[i]: a for i, a in zip(nl, args)}
            saved = dict(zip(slots, args[len(nl) : len(nl) + len(slots)]))
            mapping.update((k, saved[k]) for k in keys)
            mapping.update(zip([branch.inputs[i] for i in lin], args[len(nl) + len(slots) :]))
            targets = [branch.outputs[j] for j in linear_outs]
            return inline(branch, mapping, targets, recompute=False)  # type: ignore

        return fun

    avals = [*[ops[i].aval for i in nl], *[value_aval(k) for k in slots]]
    avals += [ops[i].aval for i in lin]
    programs, captures = trace_many([linear_branch(b, k) for b, k in zip(branches, found)], avals)
    results = apply(
        Cond(programs),
        [operands[0], *captures, *[ops[i] for i in nl], *known[len(known_outs) :]]
        + [ops[i] for i in lin],
    )
    out: list = [None] * len(out_linear)
    for j, t in zip((*known_outs, *linear_outs), (*known[: len(known_outs)], *results)):
        out[j] = t
    return out


def split_inner_loops(
    body: ClosedProgram, linear: Sequence[bool]
) -> tuple[ClosedProgram, list[TracedTensor]]:
    """(`body` with each scan or cond in it that mixes linear and non-linear operands split
    (`split_scan`, `split_cond`), the captures it reads first); `body` itself when it has
    none."""
    ins, outs = program_tensors(body)
    walk = GraphWalk(outs)
    lin = walk.depends_on(ins[i].key for i, m in enumerate(linear) if m)

    def mixed(op_key: OperationKey) -> bool:
        split = _SPLITS.get(type(op_key.op))
        flags = [k in lin for k in op_key.inputs[1 if type(op_key.op) is Cond else 0 :]]
        return split is not None and any(flags) and not all(flags)

    if not any(mixed(op_key) for op_key in walk.operations):
        return body, []

    def rebuilt(args: list) -> list:
        env = dict(zip(body.inputs, args))
        linear_keys = {a.key for a, m in zip(args, linear) if m}

        def step(op_key: OperationKey, values: list) -> list:
            flags = [v._key in linear_keys for v in values]
            if mixed(op_key):
                results = _SPLITS[type(op_key.op)](op_key.op, values, flags)
            else:
                results = apply(op_key.op, values, op_key.meta)
            for t in results:
                if t is not None and t._key is not None and t.key.operation is not None:
                    if any(k in linear_keys for k in t.key.operation.inputs):
                        linear_keys.add(t.key)
            return results

        interpret(walk.operations, env, step, constants=True)
        return [env[k] for k in body.outputs]

    return trace_flat(rebuilt, body.in_avals)


_SPLITS: dict[type, Callable[..., list]] = {Scan: split_scan, Cond: split_cond}
