"""Merging control ops that compute the same values: CSE of loops and branches.

Structural CSE merges equal ops, but two loops that return different things stay two loops
even when one computes everything the other does. Reverse mode makes exactly that pair: the
user's scan, and the residual scan its transpose rule runs on the same operands, computing
the same carry plus what the backward pass reads (tf8.ad.control.transpose), so a gradient
ran the forward loop twice. `merge_control(keys)` rewrites the graph behind `keys` so that
such ops become one (the known half of JAX's partial evaluation, found after the fact):

- two scans merge when they have the same length and direction, neither depends on the
  other, and their bodies, applied to shared leaves, compute at least one op in common. One
  leaf stands for each distinct operand; two carries share theirs when they start from the
  same value and both bodies compute the same next value from the shared leaves (assumed,
  then checked, until no pair is refuted). Structural CSE then merges the bodies' equal ops;
- two conds merge when they branch on the same index and share an op in some branch;
- programs nested in control ops are merged the same way, inside out.

Of two ops whose bodies have effects neither merges into the other (their effects would
interleave); one with effects merges with one without (the residual loop of a loop that
prints: a transform's rebuilt bodies drop the effects that ran already). Only keys are built:
nothing is computed, and an op keeps its role, avals and scope.
"""

from __future__ import annotations

import weakref
from collections.abc import Sequence
from typing import Any

from tf8.graph import PRIMARY, Linearized, OperationKey, OperationRole, ValueKey
from tf8.graph import materialize_merge as _materialize
from tf8.ops.avals import Aval, value_aval
from tf8.ops.definition import infer
from tf8.ops.extension.control import ClosedProgram, Cond, ControlOp, Scan
from tf8.ops.leaves import LeafKey
from tf8.ops.names import SCOPES

from ..effects import Tie
from .closure import has_effects

__all__ = ["merge_control", "replace_values"]

_get = OperationKey.get_with_outputs


def merge_control(
    keys: list[ValueKey], operations: Sequence[OperationKey] | None = None
) -> list[ValueKey]:
    """`keys` (the outputs of a graph whose operations, in topological order, are
    `operations` when the caller has them) with mergeable control ops merged: `keys` itself
    when nothing merged, else a new list of output keys."""
    if operations is None:
        operations = _materialize(None, keys).operations
    if not any([isinstance(op_key.op, ControlOp) for op_key in operations]):
        return keys
    found = keys
    swap = {}
    for op_key in operations:
        if isinstance(op_key.op, ControlOp):
            inner = _merged_inside(op_key.op)
            if inner is not op_key.op:
                swap[op_key] = inner
    if swap:
        found = _rebuild(operations, found, {}, swap)
        operations = _materialize(None, found).operations
    refused: set[tuple[OperationKey, OperationKey]] = set()
    while True:
        env = _merge_one(operations, refused)
        if env is None:
            return found
        found = _rebuild(operations, found, env, {})
        operations = _materialize(None, found).operations


def replace_values(keys: list[ValueKey], env: dict[ValueKey, ValueKey]) -> list[ValueKey]:
    """`keys` rebuilt with each value `env` maps (a leaf or an op's output) replaced by its
    target, at the level of keys (an op with a replaced output is left as it is)."""
    return _rebuild(_materialize(None, keys).operations, keys, dict(env), {})


def _rebuild(
    operations: Sequence[OperationKey],
    keys: list[ValueKey],
    env: dict[ValueKey, ValueKey],
    swap: dict[OperationKey, Any],
) -> list[ValueKey]:
    """`keys` rebuilt with the values in `env` replaced and the ops in `swap` exchanged."""
    for op_key in operations:
        op = swap.get(op_key)
        if op is None:
            if not any([k in env for k in op_key.inputs]) or any(
                [k in env for k in op_key.outputs]
            ):
                continue  # untouched, or replaced (merged away: its outputs are mapped)
            op = op_key.op
        inputs = tuple([env.get(k, k) for k in op_key.inputs])
        env.update(zip(op_key.outputs, _record(op, inputs, op_key.role, op_key)))
    return [env.get(k, k) for k in keys]


def _record(
    op: Any, inputs: Sequence[ValueKey], role: OperationRole, like: OperationKey | None = None
) -> tuple[ValueKey, ...]:
    """The outputs of `op` on `inputs` with `role`; a new key takes `like`'s avals and scope
    (the same values) or, without `like`, infers its own."""
    new, outputs = _get(op, inputs, role)
    if new.meta is None:
        if like is not None:
            new.meta = like.meta
            scope = SCOPES.get(like)
            if scope:
                SCOPES[new] = scope
        else:
            guards: list = []
            new.meta = (infer(op, [value_aval(k) for k in inputs], guards), tuple(guards))
    return outputs


# --- inside programs ---------------------------------------------------------------------

_INSIDE: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # program -> merged or None


def _merged_program(program: ClosedProgram) -> ClosedProgram:
    found = _INSIDE.get(program, False)
    if found is False:
        outputs = merge_control(list(program.outputs))
        same = all(a is b for a, b in zip(outputs, program.outputs))
        found = None if same else ClosedProgram.get(program.inputs, outputs, program.out_avals)
        _INSIDE[program] = found
    return program if found is None else found


def _merged_inside(op: ControlOp) -> ControlOp:
    """`op` with its programs merged inside (itself when none changed)."""
    changed = False
    payload = []
    for p in op.payload:
        if isinstance(p, ClosedProgram):
            q: Any = _merged_program(p)
            changed = changed or q is not p
        elif isinstance(p, tuple) and p and isinstance(p[0], ClosedProgram):
            q = tuple(_merged_program(b) for b in p)
            changed = changed or any(a is not b for a, b in zip(q, p))
        else:
            q = p
        payload.append(q)
    return type(op)(*payload) if changed else op


# --- finding a pair ------------------------------------------------------------------------


def _signature(op_key: OperationKey) -> tuple | None:
    """What two mergeable ops share (None: this op never merges), and whether its programs
    have effects."""
    op = op_key.op
    if type(op) is Scan:
        programs: Sequence[ClosedProgram] = (op.payload[0],)
        signature: tuple = (Scan, op.payload[3], op.payload[4])
    elif type(op) is Cond:
        programs = op.branches
        signature = (Cond, op_key.inputs[0], len(programs))
    else:
        return None
    return signature, any(has_effects(p) for p in programs)


def _merge_one(
    operations: Sequence[OperationKey], refused: set[tuple[OperationKey, OperationKey]]
) -> dict[ValueKey, ValueKey] | None:
    """Merge the first mergeable pair: the map from its old outputs to the merged op's
    (None: no pair merges). Pairs tried and refused are noted in `refused`. Of two ops with
    effects neither merges into the other (their effects would interleave); one keeps its
    place in the chain of effects, which runs through its operands and outputs."""
    groups: dict[tuple, list[OperationKey]] = {}
    effectful: set[OperationKey] = set()
    for op_key in operations:
        found = _signature(op_key)
        if found is not None:
            groups.setdefault(found[0], []).append(op_key)
            if found[1]:
                effectful.add(op_key)
    groups = {s: g for s, g in groups.items() if len(g) > 1}
    if not groups:
        return None
    depends = _dependencies(operations, {k for g in groups.values() for k in g})
    for group in groups.values():
        for j, b in enumerate(group):
            for a in group[:j]:  # `a` comes first: it cannot depend on `b`
                if (a, b) in refused or a in depends[b]:
                    continue
                if a in effectful and b in effectful:
                    continue
                env = _merge_pair(a, b)
                if env is not None:
                    return env
                refused.add((a, b))
    return None


def _dependencies(
    operations: Sequence[OperationKey], candidates: set[OperationKey]
) -> dict[OperationKey, set[OperationKey]]:
    """For each candidate, the candidates it depends on (through any path)."""
    reach: dict[ValueKey, frozenset] = {}
    found: dict[OperationKey, set[OperationKey]] = {}
    for op_key in operations:
        upstream: set = set()
        for k in op_key.inputs:
            r = reach.get(k)
            if r:
                upstream |= r
        if op_key in candidates:
            found[op_key] = set(upstream)
            upstream.add(op_key)
        if upstream:
            frozen = frozenset(upstream)
            for out in op_key.outputs:
                reach[out] = frozen
    return found


def _merge_pair(a: OperationKey, b: OperationKey) -> dict[ValueKey, ValueKey] | None:
    shared = set(a.inputs) & set(b.inputs)
    if type(a.op) is Cond:
        shared.discard(a.inputs[0])
        return _merge_conds(a, b) if shared else None
    return _merge_scans(a, b) if shared else None


# --- building the merged op ------------------------------------------------------------------


def _leaves(program: ClosedProgram, avals: Sequence[Any]) -> list[ValueKey]:
    """Fresh input leaves for a merged program, named at the nesting depth of `program`'s."""
    name = getattr(program.inputs[0].input_key, "name", None) if program.inputs else None
    prefix = name.rsplit(".", 1)[0] if isinstance(name, str) else "body"
    return [ValueKey.input(LeafKey(None, f"{prefix}.m{i}", a, "body")) for i, a in enumerate(avals)]


def _inline(program: ClosedProgram, leaves: Sequence[ValueKey]) -> list[ValueKey]:
    """`program`'s outputs rebuilt on `leaves` (one per input)."""
    env = dict(zip(program.inputs, leaves))
    for op_key in _materialize(None, list(program.outputs)).operations:
        if not any([k in env for k in op_key.inputs]):
            continue  # reads no leaf (a literal): the same key in the merged program
        inputs = tuple([env.get(k, k) for k in op_key.inputs])
        env.update(zip(op_key.outputs, _record(op_key.op, inputs, op_key.role, op_key)))
    return [env.get(k, k) for k in program.outputs]


def _reading(keys: Sequence[ValueKey], leaves: Sequence[ValueKey]) -> set[OperationKey]:
    """The ops behind `keys` that depend on one of `leaves` (literals do not count: every
    body has its 1.0)."""
    dependent = set(leaves)
    found = set()
    for op_key in _materialize(None, list(keys)).operations:
        if any([k in dependent for k in op_key.inputs]):
            found.add(op_key)
            dependent.update(op_key.outputs)
    return found


def _unique(keys: Sequence[ValueKey]) -> list[ValueKey]:
    return list(dict.fromkeys(keys))


def _role(a: OperationKey, b: OperationKey, operands: Sequence[ValueKey]) -> OperationRole:
    """The merged op's role: linear in each operand either op was linear in."""
    linear = set()
    for op_key in (a, b):
        mask = getattr(op_key.role, "active_mask", None)
        if mask is not None:
            linear.update(k for k, m in zip(op_key.inputs, mask) if m)
    if not linear:
        return PRIMARY
    return Linearized(tuple([k in linear for k in operands]))


def _merge_scans(a: OperationKey, b: OperationKey) -> dict[ValueKey, ValueKey] | None:
    body_a, nca, nka, length, reverse = a.op.payload
    body_b, ncb, nkb, _, _ = b.op.payload
    ia, ib = a.inputs, b.inputs
    consts = _unique([*ia[:nca], *ib[:ncb]])
    xs = _unique([*ia[nca + nka :], *ib[ncb + nkb :]])
    pairs: dict[int, int] = {}  # carry j of b -> carry i of a, assumed to be one value
    for j in range(nkb):
        for i in range(nka):
            if ib[ncb + j] is ia[nca + i] and i not in pairs.values():
                pairs[j] = i
                break
    while True:
        alone = [j for j in range(nkb) if j not in pairs]
        carry = [*ia[nca : nca + nka], *[ib[ncb + j] for j in alone]]
        slot_b = {j: pairs[j] if j in pairs else nka + alone.index(j) for j in range(nkb)}
        operands = [*consts, *carry, *xs]
        avals = [value_aval(k) for k in (*consts, *carry)]
        avals += [_step_aval(value_aval(k)) for k in xs]
        leaves = _leaves(body_a, avals)
        of_const = dict(zip(consts, leaves))
        of_x = dict(zip(xs, leaves[len(consts) + len(carry) :]))
        carry_leaves = leaves[len(consts) : len(consts) + len(carry)]
        args_a = [of_const[k] for k in ia[:nca]] + carry_leaves[:nka]
        args_a += [of_x[k] for k in ia[nca + nka :]]
        args_b = [of_const[k] for k in ib[:ncb]] + [carry_leaves[slot_b[j]] for j in range(nkb)]
        args_b += [of_x[k] for k in ib[ncb + nkb :]]
        outs_a, outs_b = _inline(body_a, args_a), _inline(body_b, args_b)
        # loops inside the two bodies merge first (their carries may be the shared ones)
        both = [*outs_a, *outs_b]
        both = list(_merged_program(ClosedProgram.get(leaves, both, _avals(both))).outputs)
        outs_a, outs_b = both[: len(outs_a)], both[len(outs_a) :]
        refuted = [j for j, i in pairs.items() if _untied(outs_b[j]) is not _untied(outs_a[i])]
        if not refuted:
            break
        for j in refuted:
            del pairs[j]
    if not _reading(outs_a, leaves) & _reading(outs_b, leaves):
        return None  # nothing in common: two loops are no worse than one
    ys = list(outs_a[nka:])
    slot_y = [_index_or_append(ys, y) for y in outs_b[nkb:]]
    carry_outs = list(outs_a[:nka])
    for j, i in pairs.items():  # one carry value: the output that keeps b's effects, if any
        if outs_b[j] is not carry_outs[i]:
            carry_outs[i] = outs_b[j] if _untied(outs_b[j]) is not outs_b[j] else carry_outs[i]
    outs = [*carry_outs, *[outs_b[j] for j in alone], *ys]
    program = ClosedProgram.get(leaves, outs, _avals(outs))
    merged = Scan(program, len(consts), len(carry), length, reverse)
    results = _record(merged, operands, _role(a, b, operands))
    nk = len(carry)
    env = dict(zip(a.outputs, [*results[:nka], *results[nk : nk + len(outs_a) - nka]]))
    env.update((b.outputs[j], results[slot_b[j]]) for j in range(nkb))
    env.update((b.outputs[nkb + n], results[nk + s]) for n, s in enumerate(slot_y))
    return env


def _merge_conds(a: OperationKey, b: OperationKey) -> dict[ValueKey, ValueKey] | None:
    index, ia, ib = a.inputs[0], a.inputs[1:], b.inputs[1:]
    operands = _unique([*ia, *ib])
    branches_a, branches_b = a.op.branches, b.op.branches
    leaves = _leaves(branches_a[0], [value_aval(k) for k in operands])
    of = dict(zip(operands, leaves))
    outs_a = [_inline(p, [of[k] for k in ia]) for p in branches_a]
    outs_b = [_inline(p, [of[k] for k in ib]) for p in branches_b]
    if not any(_reading(oa, leaves) & _reading(ob, leaves) for oa, ob in zip(outs_a, outs_b)):
        return None
    n_a = len(a.outputs)
    # an output of b equal to one of a's in every branch is that output
    slots = []
    extra: list[int] = []
    for m in range(len(b.outputs)):
        same = [n for n in range(n_a) if all(oa[n] is ob[m] for oa, ob in zip(outs_a, outs_b))]
        if same:
            slots.append(same[0])
        else:
            slots.append(n_a + len(extra))
            extra.append(m)
    avals = [*branches_a[0].out_avals, *[branches_b[0].out_avals[m] for m in extra]]
    programs = [
        _merged_program(ClosedProgram.get(leaves, [*oa, *[ob[m] for m in extra]], avals))
        for oa, ob in zip(outs_a, outs_b)
    ]
    results = _record(Cond(programs), [index, *operands], _role(a, b, [index, *operands]))
    env = dict(zip(a.outputs, results[:n_a]))
    env.update((b.outputs[m], results[s]) for m, s in enumerate(slots))
    return env


def _untied(key: ValueKey) -> ValueKey:
    """The value `key` holds: a body's output tied to its effects is the value it ties."""
    operation = key.operation
    if operation is not None and type(operation.op) is Tie:
        return operation.inputs[key.output_slot]
    return key


def _avals(keys: Sequence[ValueKey]) -> list[Aval]:
    return [value_aval(k) for k in keys]


def _step_aval(aval: Aval) -> Aval:
    """What one step of a scan reads of an xs operand."""
    return Aval(aval.shape[1:], aval.dtype)


def _index_or_append(items: list, item: Any) -> int:
    for n, x in enumerate(items):
        if x is item:
            return n
    items.append(item)
    return len(items) - 1
