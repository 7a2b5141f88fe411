"""Batching rules of the control ops: the batching interpreter applied to their bodies.

Batched operands keep their batch axis at the front (for scanned xs, just after the scan
axis). A carry that becomes batched in the body is batched from the start (a fixpoint, as
JAX). A cond on a batched index runs every branch and selects per example; a while_loop on
a batched predicate runs until every example is done, each example's carry frozen (by a
select) once its own predicate is false.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

import numpy as np

from tf8.lax.builders import broadcast, compare, convert, select
from tf8.lax.control import apply_control, program_tensors, trace_flat, trace_many
from tf8.lax.core import apply1
from tf8.ops.extension.control import Checkpoint, ClosedProgram, Cond, Scan, While
from tf8.ops.primitive import Aval
from tf8.traced import TracedTensor

from ..batching.core import BatchRule, at_front, batch_size, moveaxis

Entry = tuple[TracedTensor, Any]
# The transform the rules apply to their bodies: tf8.ad.batching.interpreter's batch_graph,
# passed in by the module that builds the batching table from these rules (so they do not
# import it).
GraphBatch = Callable[
    [Sequence[TracedTensor], Sequence[TracedTensor], Sequence[TracedTensor], Sequence[Any]],
    list[Entry],
]


def _batched(
    batch_graph: GraphBatch,
    program: ClosedProgram,
    args: Sequence[TracedTensor],
    batched: Sequence[bool],
) -> list[Entry]:
    """The program's outputs on `args` (batched along axis 0 where `batched`): (value, dim)."""
    ins, outs = program_tensors(program)
    return batch_graph(outs, ins, list(args), [0 if b else None for b in batched])


def _front(entry: Entry, size: Any, batched: bool) -> TracedTensor:
    value, d = entry
    return at_front(value, d, size) if batched else value


def _to_front(x: TracedTensor, d: int | None) -> TracedTensor:
    return x if d is None else moveaxis(x, d, 0)


def scan_batch(batch_graph: GraphBatch, op: Scan, args, dims):
    body, nc, nk, length, reverse = op.payload
    size = batch_size(args, dims)
    consts = [_to_front(x, d) for x, d in zip(args[:nc], dims[:nc])]
    xs = [x if d is None else moveaxis(x, d, 1) for x, d in zip(args[nc + nk :], dims[nc + nk :])]
    bc = [d is not None for d in dims[:nc]]
    bx = [d is not None for d in dims[nc + nk :]]
    bk = [d is not None for d in dims[nc : nc + nk]]
    while True:
        carry = [_front((x, d), size, b) for x, d, b in zip(args[nc : nc + nk], dims[nc:], bk)]
        found: list[list[bool]] = []

        def fun(ins: list, bk: list = bk, found: list = found) -> list:
            res = _batched(batch_graph, body, ins, [*bc, *bk, *bx])
            found[:] = [[d is not None for _, d in res[:nk]], [d is not None for _, d in res[nk:]]]
            by = found[1]
            return [_front(e, size, b) for e, b in zip(res, [*bk, *by])]

        avals = [t.aval for t in [*consts, *carry]] + [Aval(x.shape[1:], x.dtype) for x in xs]
        program, captures = trace_flat(fun, avals)
        grown = [a or b for a, b in zip(bk, found[0])]
        if grown == bk:
            break
        bk = grown
    new = Scan(program, len(captures) + nc, nk, length, reverse)
    results = apply_control(new, [*captures, *consts, *carry, *xs])
    return results, [0 if b else None for b in bk] + [1 if b else None for b in found[1]]


def cond_batch(batch_graph: GraphBatch, op: Cond, args, dims):
    size = batch_size(args, dims)
    index, ops = args[0], [_to_front(x, d) for x, d in zip(args[1:], dims[1:])]
    bops = [d is not None for d in dims[1:]]
    if dims[0] is not None:  # every branch runs; each example picks its own
        index = _to_front(index, dims[0])
        per_branch = [
            [_front(e, size, True) for e in _batched(batch_graph, b, ops, bops)]
            for b in op.branches
        ]
        outs = per_branch[0]
        for i, branch_outs in enumerate(per_branch[1:], 1):
            pick = compare(index, i, "eq")
            outs = [select(broadcast(pick, o.shape, (0,)), b, o) for o, b in zip(outs, branch_outs)]
        return outs, [0] * len(outs)
    masks: list[list[bool]] = []

    def branch(program: ClosedProgram, out_mask: list[bool] | None):
        def fun(ins: list) -> list:
            res = _batched(batch_graph, program, ins, bops)
            masks.append([d is not None for _, d in res])
            return [_front(e, size, bool(out_mask and out_mask[j])) for j, e in enumerate(res)]

        return fun

    avals = [t.aval for t in ops]
    trace_many([branch(b, None) for b in op.branches], avals)
    out_mask = [any(col) for col in zip(*masks)]
    programs, captures = trace_many([branch(b, out_mask) for b in op.branches], avals)
    results = apply_control(Cond(programs), [index, *captures, *ops])
    return results, [0 if b else None for b in out_mask]


def _any(pred: TracedTensor) -> TracedTensor:
    as_int = convert(pred, np.dtype(np.int32))
    return compare(apply1("reduce_max", [as_int], axes=(0,)), 0, "gt")


def while_batch(batch_graph: GraphBatch, op: While, args, dims):
    cond, body, n_cond, n_body = op.payload
    size = batch_size(args, dims)
    moved = [_to_front(x, d) for x, d in zip(args, dims)]
    cc, bc = moved[:n_cond], moved[n_cond : n_cond + n_body]
    bcc = [d is not None for d in dims[:n_cond]]
    bbc = [d is not None for d in dims[n_cond : n_cond + n_body]]
    bk = [d is not None for d in dims[n_cond + n_body :]]
    init = args[n_cond + n_body :]
    while True:
        carry = [_front((x, d), size, b) for x, d, b in zip(init, dims[n_cond + n_body :], bk)]
        found: list[bool] = []
        pred_batched: list[bool] = []

        def predicate(ins: list, bk: list = bk, found: list = pred_batched) -> list:
            (entry,) = _batched(batch_graph, cond, ins, [*bcc, *bk])
            found[:] = [entry[1] is not None]
            return [_front(entry, size, found[0])]

        cond_program, cond_captures = trace_flat(predicate, [t.aval for t in [*cc, *carry]])
        if pred_batched[0] and not all(bk):
            bk = [True] * len(bk)
            continue

        def step(ins: list, bk: list = bk, found: list = found, batched: bool = pred_batched[0]):
            if not batched:
                res = _batched(batch_graph, body, ins, [*bbc, *bk])
                found[:] = [d is not None for _, d in res]
                return [_front(e, size, b) for e, b in zip(res, bk)]
            ccs, rest = ins[:n_cond], ins[n_cond:]
            carry_in = rest[n_body:]
            (pred,) = _batched(batch_graph, cond, [*ccs, *carry_in], [*bcc, *bk])
            pred = _front(pred, size, True)
            res = _batched(batch_graph, body, rest, [*bbc, *bk])
            found[:] = [True] * len(res)
            return [
                select(broadcast(pred, c.shape, (0,)), _front(e, size, True), c)
                for e, c in zip(res, carry_in)
            ]

        consts = [*cc, *bc] if pred_batched[0] else bc
        body_program, body_captures = trace_flat(step, [t.aval for t in [*consts, *carry]])
        grown = [a or b for a, b in zip(bk, found)]
        if grown == bk:
            break
        bk = grown
    if pred_batched[0]:
        cond_program, cond_captures = trace_flat(
            lambda ins: [
                _any(_front(_batched(batch_graph, cond, ins, [*bcc, *bk])[0], size, True))
            ],
            [t.aval for t in [*cc, *carry]],
        )
    body_consts = [*body_captures, *consts]
    new = While(cond_program, body_program, len(cond_captures) + n_cond, len(body_consts))
    results = apply_control(new, [*cond_captures, *cc, *body_consts, *carry])
    return results, [0 if b else None for b in bk]


def checkpoint_batch(batch_graph: GraphBatch, op: Checkpoint, args, dims):
    body, hidden, prevent_cse = op.payload
    size = batch_size(args, dims)
    ins = [_to_front(x, d) for x, d in zip(args, dims)]
    batched = [d is not None for d in dims]
    found: list[bool] = []

    def fun(xs: list) -> list:
        res = _batched(batch_graph, body, xs, batched)
        found[:] = [d is not None for _, d in res]
        return [_front(e, size, b) for e, b in zip(res, found)]

    program, captures = trace_flat(fun, [t.aval for t in ins])
    results = apply_control(Checkpoint(program, hidden, prevent_cse), [*captures, *ins])
    return results, [0 if b else None for b in found]


def control_batching_rules(batch_graph: GraphBatch) -> dict[type, BatchRule]:
    """The control ops' batching rules, keyed by op class, applying `batch_graph` to their
    bodies."""
    rules = {Scan: scan_batch, Cond: cond_batch, While: while_batch, Checkpoint: checkpoint_batch}
    return {cls: partial(rule, batch_graph) for cls, rule in rules.items()}
