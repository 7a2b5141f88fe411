"""Loops without waste: what a scan's body computes for no later iteration runs outside it.

A scan's body often computes more than its recurrence needs. The gradient of a loop shows
it best: its forward loop stacks residuals (`1 - tanh²`) that only the reverse loop reads,
and its reverse loop adds, every iteration, a parameter's gradient term to an accumulating
carry that nothing in the loop reads again. Each of those ops costs a kernel call per
iteration; outside the loop, over all iterations at once, each costs one call.
`hoist_loops(keys)` rewrites every scan behind `keys` so that the loop keeps only its
*core*, the ops its carries need from one iteration to the next:

- the ys the core does not need (the *tail*) are computed after the loop from stacks of the
  core values they read (batched over the iterations, by the batching rules);
- an *accumulator*, a carry whose next value is itself plus terms (a tree of `add`s in which
  it appears once, and which nothing else reads), leaves the carry: its terms are computed
  like ys and summed over the iterations after the loop. A term that is a `dot_general`
  (a parameter's gradient: an outer product per iteration) becomes one `dot_general` that
  also contracts the iteration axis (Σ_t a_t b_tᵀ = Aᵀ B), with no per-iteration product
  stored;
- a view (reshape, transpose) of a core value that only the tail reads is stacked as its
  base and taken after the loop.

A scan is left as it is when nothing would move, when its body has effects (they must run
once per iteration, in order), when a tail op is itself control flow, or when the stacks and
batched intermediates would take more than `MAX_EXTRA_BYTES`. Sums over the iterations are
reassociated (as XLA's reductions are): results agree to rounding, not bit for bit.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from tf8.ad.batching.interpreter import batch_graph
from tf8.graph import OperationKey, ValueKey, materialize_merge
from tf8.lax.batch_axes import at_front
from tf8.lax.builders import add, reduce_sum, reshape
from tf8.lax.control import inline, program_tensors, trace_flat
from tf8.lax.control.closure import has_effects
from tf8.lax.control.merge import replace_values
from tf8.lax.core import TransformFrame, apply, apply1, merge_bindings
from tf8.lax.in_dim import slice_in_dim
from tf8.lax.ops import concatenate
from tf8.ops.avals import Aval, value_aval
from tf8.ops.definition import definition
from tf8.ops.extension.control import ClosedProgram, ControlOp, Scan
from tf8.ops.frames import ROOT, frame_var
from tf8.ops.leaves import Bindings
from tf8.ops.primitive import Primitive
from tf8.traced import TracedTensor

__all__ = ["MAX_EXTRA_BYTES", "hoist_loops"]

MAX_EXTRA_BYTES = 1 << 26  # stacks and batched intermediates a hoist may add (64 MiB)


def hoist_loops(
    keys: list[ValueKey], operations: Sequence[OperationKey]
) -> tuple[list[ValueKey], Bindings]:
    """(`keys` with every scan behind them (in topological `operations`) reduced to its core,
    the bindings of the constants the rewrite made); `keys` itself when no scan changed."""
    if not any([type(op_key.op) is Scan for op_key in operations]):
        return keys, {}
    # recorded as jit's trace records: nothing computed (a constant stays one small op)
    token = frame_var.set(ROOT.child(TransformFrame, symbolic=True))
    try:
        return _hoist_all(keys, operations)
    finally:
        frame_var.reset(token)


def _hoist_all(
    keys: list[ValueKey], operations: Sequence[OperationKey]
) -> tuple[list[ValueKey], Bindings]:
    done: set[OperationKey] = set()
    made: list[TracedTensor] = []
    while True:
        for op_key in operations:
            if type(op_key.op) is Scan and op_key not in done:
                done.add(op_key)
                new = _hoisted(op_key)
                if new is not None:
                    made += new
                    keys = replace_values(keys, {k: t.key for k, t in zip(op_key.outputs, new)})
                    operations = materialize_merge(None, keys).operations
                    break
        else:
            return keys, merge_bindings(made)


def _is(op: Any, name: str) -> bool:
    return type(op) is Primitive and op.name == name


def _is_view(op: Any) -> bool:
    return type(op) is Primitive and definition(op).fusion.view is not None


class _Body:
    """A scan body's ops: producers, use counts and the ancestors of some values."""

    def __init__(self, program: ClosedProgram) -> None:
        self.program = program
        self.operations = materialize_merge(None, list(program.outputs)).operations
        self.producer: dict[ValueKey, OperationKey] = {}
        self.uses: dict[ValueKey, int] = {}
        for op_key in self.operations:
            for k in op_key.outputs:
                self.producer[k] = op_key
            for k in op_key.inputs:
                self.uses[k] = self.uses.get(k, 0) + 1
        for k in program.outputs:
            self.uses[k] = self.uses.get(k, 0) + 1

    def ancestors(self, keys: Sequence[ValueKey], stop: set[ValueKey]) -> set[OperationKey]:
        """The ops computing `keys`, not walking past the values in `stop`."""
        found: set[OperationKey] = set()
        todo = [k for k in keys if k not in stop]
        while todo:
            op_key = self.producer.get(todo.pop())
            if op_key is None or op_key in found:
                continue
            found.add(op_key)
            todo.extend(k for k in op_key.inputs if k not in stop)
        return found

    def add_tree(self, root: ValueKey, carry: ValueKey) -> tuple[list[ValueKey], set] | None:
        """(terms, add ops) when `root` is `carry` plus terms through adds nothing else
        reads, and `carry` is read there only; else None."""
        if root is carry or self.uses.get(carry) != 1 or self.uses.get(root) != 1:
            return None
        terms: list[ValueKey] = []
        tree: set[OperationKey] = set()
        seen = 0
        todo = [root]
        while todo:
            key = todo.pop()
            op_key = self.producer.get(key)
            if key is carry:
                seen += 1
            elif (
                op_key is not None
                and _is(op_key.op, "add")
                and (key is root or self.uses.get(key) == 1)
            ):
                tree.add(op_key)
                todo.extend(op_key.inputs)
            else:
                terms.append(key)
        aval = value_aval(carry)
        if seen != 1 or any(value_aval(t).shape != aval.shape for t in terms):
            return None
        return terms, tree


def _nbytes(aval: Aval, length: int) -> int:
    return length * math.prod(aval.shape) * aval.dtype.itemsize


def _hoisted(op_key: OperationKey) -> list[TracedTensor] | None:
    """The scan's outputs computed by its core loop and what moves out of it, or None."""
    body, nc, nk, length, reverse = op_key.op.payload
    if not isinstance(length, int) or length == 0 or has_effects(body):
        return None
    graph = _Body(body)
    ins, outs = list(body.inputs), list(body.outputs)
    carry_in = ins[nc : nc + nk]
    acc: dict[int, list[ValueKey]] = {}
    for j in range(nk):
        if value_aval(carry_in[j]).dtype.kind in "fciu":
            found = graph.add_tree(outs[j], carry_in[j])
            if found is not None:
                acc[j] = found[0]
    kept = [j for j in range(nk) if j not in acc]
    leaves = set(ins)
    core = graph.ancestors([outs[j] for j in kept], leaves)
    core_values = {k for o in core for k in o.outputs} | set(carry_in)
    # what the tail computes: the ys and the accumulators' terms (a dot_general term's operands)
    dots: dict[ValueKey, OperationKey] = {}
    targets: list[ValueKey] = list(outs[nk:])
    for terms in acc.values():
        for t in terms:
            producer = graph.producer.get(t)
            if producer is not None and producer not in core and _is(producer.op, "dot_general"):
                dots[t] = producer
                targets.extend(producer.inputs)
            else:
                targets.append(t)
    tail = graph.ancestors(targets, core_values | leaves)
    if not tail and not acc:
        return None
    if any(isinstance(o.op, ControlOp) for o in tail):
        return None
    # the core values the tail reads, each stacked by the loop; a view's base is stacked instead
    stacked = _stacked(graph, tail, targets, core_values)
    tail |= graph.ancestors(targets, set(stacked) | leaves)
    moved = sum(1 for o in tail if not _is_view(o.op)) + sum(len(t) for t in acc.values())
    if moved == 0:
        return None
    extra = sum(_nbytes(value_aval(k), length) for k in stacked if k not in outs[nk:])
    extra += sum(_nbytes(a, length) for o in tail for a in o.meta[0])
    if extra > MAX_EXTRA_BYTES:
        return None
    return _rebuild(op_key, graph, acc, dots, targets, stacked, kept)


def _stacked(
    graph: _Body, tail: set[OperationKey], targets: list[ValueKey], core: set[ValueKey]
) -> list[ValueKey]:
    read: dict[ValueKey, None] = {}
    for o in tail:
        read.update((k, None) for k in o.inputs if k in core)
    read.update((k, None) for k in targets if k in core)
    stacked: dict[ValueKey, None] = {}
    for k in read:
        while True:  # a view of a core value: stack its base, take the view after the loop
            producer = graph.producer.get(k)
            if producer is None or not _is_view(producer.op) or producer.inputs[0] not in core:
                break
            k = producer.inputs[0]
        stacked[k] = None
    return list(stacked)


def _rebuild(
    op_key: OperationKey,
    graph: _Body,
    acc: dict[int, list[ValueKey]],
    dots: dict[ValueKey, OperationKey],
    targets: list[ValueKey],
    stacked: list[ValueKey],
    kept: list[int],
) -> list[TracedTensor] | None:
    body, nc, nk, length, reverse = op_key.op.payload
    ins, outs = list(body.inputs), list(body.outputs)
    operands = [_tensor(k) for k in op_key.inputs]
    consts, carry0, xs = operands[:nc], operands[nc : nc + nk], operands[nc + nk :]
    # the core loop: kept carries, then one stack per stacked value; a carry's value on entry
    # is not stacked when its value on exit is (one is the other shifted by one iteration)
    entry = {ins[nc + j]: j for j in kept if outs[j] is not ins[nc + j]}
    core_stacked = list(dict.fromkeys(outs[entry[k]] if k in entry else k for k in stacked))
    core_outs = [outs[j] for j in kept] + core_stacked
    core_ins = ins[:nc] + [ins[nc + j] for j in kept] + ins[nc + nk :]
    program = ClosedProgram.get(core_ins, core_outs, [value_aval(k) for k in core_outs])
    loop = Scan(program, nc, len(kept), length, reverse)
    results = apply(loop, [*consts, *[carry0[j] for j in kept], *xs])
    finals = dict(zip(kept, results[: len(kept)]))
    by_key = dict(zip(core_stacked, results[len(kept) :]))
    stacks = [
        _entries(carry0[entry[k]], by_key[outs[entry[k]]], reverse) if k in entry else by_key[k]
        for k in stacked
    ]
    # the tail, batched over the iterations: stacked values and xs batched, consts not
    x_keys = ins[nc + nk :]
    tail_in = [*stacked, *x_keys, *ins[:nc]]
    outer = [*stacks, *xs, *consts]
    dims = [0] * (len(stacked) + len(xs)) + [None] * nc
    want = list(dict.fromkeys(targets))
    tail_program, captures = trace_flat(
        lambda args: inline(body, dict(zip(tail_in, args)), want),
        [value_aval(k) for k in tail_in],
    )
    t_ins, t_outs = program_tensors(tail_program)  # (constants it captured come first)
    outer, dims = [*captures, *outer], [None] * len(captures) + dims
    batched = dict(zip(want, batch_graph(t_outs, t_ins, outer, dims)))

    def stack(key: ValueKey) -> TracedTensor:
        value, d = batched[key]
        return at_front(value, d, length)

    ys = [stack(k) for k in outs[nk:]]
    for j, terms in acc.items():
        total = carry0[j]
        for t in terms:
            total = add(total, _summed(batched, dots.get(t), t, length))
        finals[j] = total
    new = [finals[j] for j in range(nk)] + ys
    for t, old in zip(new, op_key.outputs):
        if t.aval.shape != value_aval(old).shape or t.aval.dtype != value_aval(old).dtype:
            return None
    return new


def _summed(batched: dict, dot: OperationKey | None, term: ValueKey, length: int) -> TracedTensor:
    """Σ over the iterations of one accumulator term."""
    if dot is None:
        value, d = batched[term]
        return reduce_sum(at_front(value, d, length), [0])
    (a, da), (b, db) = batched[dot.inputs[0]], batched[dot.inputs[1]]
    (lc, rc), (lb, rb) = dot.op["contracting"], dot.op["batch"]
    if da is None or db is None:  # Σ_t a_t·B = (Σ_t a_t)·B
        if da is not None:
            a, da = reduce_sum(at_front(a, da, length), [0]), None
        elif db is not None:
            b, db = reduce_sum(at_front(b, db, length), [0]), None
        else:
            a = reduce_sum(at_front(a, None, length), [0])
        return apply1("dot_general", [a, b], contracting=(lc, rc), batch=(lb, rb))
    a, b = at_front(a, da, length), at_front(b, db, length)
    shift = lambda axes: tuple(i + 1 for i in axes)  # noqa: E731
    return apply1(
        "dot_general",
        [a, b],
        contracting=((0, *shift(lc)), (0, *shift(rc))),
        batch=(shift(lb), shift(rb)),
    )


def _entries(first: TracedTensor, exits: TracedTensor, reverse: bool) -> TracedTensor:
    """A carry's value on entry to each iteration, from its value on exit (`exits`, stacked)
    and its initial value `first`: the exits shifted by one iteration."""
    head = reshape(first, (1, *first.shape))
    if exits.shape[0] == 1:
        return head
    if reverse:
        return concatenate([slice_in_dim(exits, 1, exits.shape[0]), head], 0)
    return concatenate([head, slice_in_dim(exits, 0, exits.shape[0] - 1)], 0)


def _tensor(key: ValueKey) -> TracedTensor:
    return TracedTensor(key, value_aval(key), {}, unbound=True)
