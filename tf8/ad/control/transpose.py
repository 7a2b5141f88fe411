"""Transpose rules of the control ops (reverse mode), on the same interpreter (transpose_graph).

A scan that is linear in some operands (the jvp of a scan, say) is split, as JAX's partial
evaluation does: its non-linear part runs forward as a *residual scan* that stacks, per
iteration, the primal values the linear part reads; the transpose is then a scan in the other
direction of the transposed linear body over those stacked residuals, carrying the
cotangents of the carry and accumulating those of the constants. A cond transposes branch by
branch (each transposed branch recomputes the primal values it needs). A checkpoint
transposes into a checkpoint that recomputes the primal part of its body inside its kernel,
so no intermediate of it outlives the kernel. A while_loop has no
transpose: its trip count is unknown, so nothing could be stacked (JAX refuses too).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

from tf8.errors import DifferentiationError
from tf8.graph import ValueKey
from tf8.lax import effects
from tf8.lax.builders import Tangent, add_any, materialize, zeros
from tf8.lax.control import inline, program_tensors, trace_flat, trace_many
from tf8.lax.core import apply
from tf8.lax.walk import GraphWalk
from tf8.ops.avals import value_aval
from tf8.ops.extension.control import Checkpoint, ClosedProgram, Cond, Scan, While
from tf8.traced import TracedTensor

from ..arguments import fresh_leaf
from ..transpose_rules import TransposeRule
from .partial import cond_residuals, residual_branch, scan_partition, split_inner_loops

# The transform the rules apply to their bodies: tf8.ad.linearize's transpose_graph, passed in
# by the module that builds the transpose table from these rules (so they do not import it).
GraphTranspose = Callable[
    [Sequence[Tangent], Sequence[TracedTensor], Sequence[Tangent]], list[Tangent]
]


def _cts(ct: Tangent | Sequence[Tangent]) -> list[Tangent]:
    return list(ct) if isinstance(ct, (list, tuple)) else [ct]


def scan_transpose(
    transpose_graph: GraphTranspose, op: Scan, operands, linear, ct
) -> list[Tangent]:
    body, nc, nk, length, reverse = op.payload
    cts = _cts(ct)
    ins, outs = program_tensors(body)
    walk = GraphWalk(outs)
    part = scan_partition(walk, ins, outs, op, linear)
    # A loop inside the body that mixes primal values and tangents is split first, so that
    # the residual scan stacks its residuals and the reverse body does not run it forward.
    body, hoisted = split_inner_loops(body, part.linear)
    if body is not op.payload[0]:
        linear = [False] * len(hoisted) + part.linear  # (hoisted: leading constants)
        operands, nc = [*hoisted, *operands], nc + len(hoisted)
        op = Scan(body, nc, nk, length, reverse)
        ins, outs = program_tensors(body)
        walk = GraphWalk(outs)
        part = scan_partition(walk, ins, outs, op, linear)
    linear, residuals, const_of, x_of = part.linear, part.residuals, part.const_of, part.x_of
    n = len(operands)
    nonlinear = [i for i in range(n) if not linear[i]]
    const_res = [k for k in residuals if k in const_of]
    x_res = [k for k in residuals if k in x_of]
    stacked = part.stacked

    # The residual scan: the non-linear part of the body, stacking what the linear part reads.
    stacked_values: list[TracedTensor] = []
    if stacked:
        nl_carry = [j for j in range(nk) if not linear[nc + j]]
        res_program = ClosedProgram.get(
            [ins[i].key for i in nonlinear],
            [*[outs[j].key for j in nl_carry], *stacked],
            [*[outs[j].aval for j in nl_carry], *[walk[k].aval for k in stacked]],
        )
        n_nl_consts = sum(1 for i in nonlinear if i < nc)
        res_op = Scan(res_program, n_nl_consts, len(nl_carry), length, reverse)
        stacked_values = apply(res_op, [operands[i] for i in nonlinear])[len(nl_carry) :]

    read_xs = [*stacked, *x_res]  # what each reverse step reads of the forward step
    stacked_values += [operands[x_of[k]] for k in x_res]
    lin_consts = [i for i in range(nc) if linear[i]]
    lin_carry = [j for j in range(nk) if linear[nc + j]]
    lin_xs = [i for i in range(nc + nk, n) if linear[i]]
    lin_inputs = [*lin_consts, *[nc + j for j in lin_carry], *lin_xs]
    y_cts = [j for j in range(len(outs) - nk) if cts[nk + j] is not None]
    targets = [outs[j].key for j in lin_carry] + [outs[nk + j].key for j in y_cts]

    def transposed(args: list) -> list:
        args = list(args)
        mapping = dict(zip(const_res, args[: len(const_res)]))
        del args[: len(const_res)]
        acc, ct_carry = (
            args[: len(lin_consts)],
            args[len(lin_consts) : len(lin_consts) + len(lin_carry)],
        )
        del args[: len(lin_consts) + len(lin_carry)]
        mapping.update(zip(read_xs, args[: len(read_xs)]))
        ct_ys = args[len(read_xs) :]
        leaves = [fresh_leaf(ins[i], "tangent", bind=False) for i in lin_inputs]
        mapping.update((ins[i].key, leaf) for i, leaf in zip(lin_inputs, leaves))
        lin_outs = inline(body, mapping, targets, recompute=False)
        got = transpose_graph(lin_outs, leaves, [*ct_carry, *ct_ys])
        got_consts = got[: len(lin_consts)]
        got_carry = got[len(lin_consts) : len(lin_consts) + len(lin_carry)]
        got_xs = got[len(lin_consts) + len(lin_carry) :]
        return [
            *[add_any(a, g) for a, g in zip(acc, got_consts)],
            *[materialize(g, ins[nc + j].aval) for g, j in zip(got_carry, lin_carry)],
            *[materialize(g, ins[i].aval) for g, i in zip(got_xs, lin_xs)],
        ]

    avals = [walk[k].aval for k in const_res] + [ins[i].aval for i in lin_consts]
    avals += [ins[nc + j].aval for j in lin_carry] + [walk[k].aval for k in read_xs]
    avals += [outs[nk + j].aval for j in y_cts]
    program, captures = trace_flat(transposed, avals)
    carry_init = [zeros(ins[i].aval) for i in lin_consts]
    carry_init += [materialize(cts[j], outs[j].aval) for j in lin_carry]
    t_op = Scan(
        program,
        len(captures) + len(const_res),
        len(lin_consts) + len(lin_carry),
        length,
        not reverse,
    )
    results = apply(
        t_op,
        [
            *captures,
            *[operands[const_of[k]] for k in const_res],
            *carry_init,
            *stacked_values,
            *[cts[nk + j] for j in y_cts],
        ],
    )
    out: list[Tangent] = [None] * n
    for i, r in zip(lin_inputs, results):
        out[i] = r
    return out[len(hoisted) :]


def _transposed_body(
    transpose_graph: GraphTranspose,
    body: ClosedProgram,
    operands: Sequence,
    lin: list[int],
    nl: list[int],
    present: list[int],
    residuals: dict[ValueKey, None] | None = None,
    slots: Sequence[ValueKey] = (),
):
    """The transpose of a sub-program's linear part, as a function to trace: its arguments
    are the residual (non-linear) operands, the saved values (one per slot; this body reads
    those of its `residuals`), then the present output cotangents; it returns one cotangent
    per linear operand. The rest of the primal part is recomputed inside it."""

    def fun(args: list) -> list:
        full: list = [None] * len(operands)
        for i, a in zip(nl, args):
            full[i] = a
        saved = args[len(nl) : len(nl) + len(slots)]
        leaves = [fresh_leaf(operands[i], "tangent", bind=False) for i in lin]
        for i, leaf in zip(lin, leaves):
            full[i] = leaf
        mapping = dict(zip(body.inputs, full))
        mapping.update((k, v) for k, v in zip(slots, saved) if residuals and k in residuals)
        targets = [body.outputs[j] for j in present]
        outs = inline(body, mapping, targets, recompute=False)
        got = transpose_graph(outs, leaves, list(args[len(nl) + len(slots) :]))
        return [materialize(g, operands[i].aval) for g, i in zip(got, lin)]

    return fun


def _split(linear: Sequence[bool], cts: list[Tangent]) -> tuple[list[int], list[int], list[int]]:
    """(linear operand positions, residual positions, positions of present cotangents)."""
    lin = [i for i, is_linear in enumerate(linear) if is_linear]
    nl = [i for i, is_linear in enumerate(linear) if not is_linear]
    return lin, nl, [j for j, c in enumerate(cts) if c is not None]


def cond_transpose(
    transpose_graph: GraphTranspose, op: Cond, operands, linear, ct
) -> list[Tangent]:
    if linear[0]:
        raise DifferentiationError("cond: the branch index cannot be linear")
    ops = list(operands[1:])
    cts = _cts(ct)
    lin, nl, present = _split(linear[1:], cts)
    branches = op.branches
    # The residual cond: the branch taken computes the primal values its linear part reads
    # (the slots of the other branches' are zeros), as JAX's partial evaluation does.
    found = [cond_residuals(b, lin) for b in branches]
    slots = list(dict.fromkeys(k for keys in found for k in keys))
    saved: list[TracedTensor] = []
    if slots:
        funs = [residual_branch(b, nl, keys, slots) for b, keys in zip(branches, found)]
        programs, captures = trace_many(funs, [ops[i].aval for i in nl])
        saved = apply(Cond(programs), [operands[0], *captures, *[ops[i] for i in nl]])
    avals = [ops[i].aval for i in nl] + [value_aval(k) for k in slots]
    avals += [cts[j].aval for j in present]  # type: ignore[union-attr]
    bodies = [
        _transposed_body(transpose_graph, b, ops, lin, nl, present, dict.fromkeys(keys), slots)
        for b, keys in zip(branches, found)
    ]
    programs, captures = trace_many(bodies, avals)
    results = apply(
        Cond(programs),
        [operands[0], *captures, *[ops[i] for i in nl], *saved, *[cts[j] for j in present]],
    )
    out: list[Tangent] = [None] * len(operands)
    for i, r in zip(lin, results):
        out[1 + i] = r
    return out


def while_transpose(op: While, operands, linear, ct) -> list[Tangent]:
    raise DifferentiationError(
        "reverse-mode differentiation (grad, vjp) does not work through lax.while_loop or "
        "lax.fori_loop with traced bounds: the trip count is unknown when tracing. Use "
        "lax.scan, or fori_loop with Python int bounds (it lowers to scan), or forward mode "
        "(jvp, jacfwd)"
    )


def checkpoint_transpose(
    transpose_graph: GraphTranspose, op: Checkpoint, operands, linear, ct
) -> list[Tangent]:
    body, _, prevent_cse = op.payload
    cts = _cts(ct)
    lin, nl, present = _split(linear, cts)
    avals = [operands[i].aval for i in nl] + [cts[j].aval for j in present]  # type: ignore[union-attr]
    # The body runs again in the backward pass: its intermediates are never kept.
    program, captures = trace_flat(
        _transposed_body(transpose_graph, body, operands, lin, nl, present), avals
    )
    results = apply(
        Checkpoint(program, 0, prevent_cse),
        [*captures, *[operands[i] for i in nl], *[cts[j] for j in present]],
    )
    out: list[Tangent] = [None] * len(operands)
    for i, r in zip(lin, results):
        out[i] = r
    return out


def control_transpose_rules(transpose_graph: GraphTranspose) -> dict[type, TransposeRule]:
    """The control ops' transpose rules, keyed by op class, applying `transpose_graph` to their
    bodies (a while_loop has none to apply: its rule refuses)."""
    rules = {
        Scan: partial(scan_transpose, transpose_graph),
        Cond: partial(cond_transpose, transpose_graph),
        While: while_transpose,
        Checkpoint: partial(checkpoint_transpose, transpose_graph),
    }
    return {cls: partial(_replaying, rule) for cls, rule in rules.items()}


def _replaying(rule: Callable, *args: Any) -> Any:
    """A rule whose rebuilt bodies recompute primal values: their effects ran already."""
    with effects.replaying():
        return rule(*args)
