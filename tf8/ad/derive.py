"""The eager tape's pullbacks and tangents, derived from the JVP and transpose rules.

The JVP and transpose rules in each primitive's home are tf8's only derivative formulas. The
tape (tf8.ad.tape) and the forward tape (tf8.ad.forward) do not carry formulas of their own:
for each (op, input avals, which inputs are differentiated) they meet, they trace the op's
JVP rule on fresh leaves — the inputs, the outputs and the tangents — and, for reverse mode,
transpose it, exactly as the graph path does for a whole program. The result is a small graph
over (inputs, outputs, cotangents) or (inputs, outputs, tangents), kept in `DERIVED`:

- outside enclosing tapes it runs as one plain Python function of numpy calls
  (tf8.ops.lowering). `sin`'s pullback becomes `multiply(a2, cos(a0))`;
- inside enclosing tapes (`grad(grad(f))`), which must see every op of the backward pass,
  its ops are applied one by one with `apply`, so those tapes write them down.

A derivation needs nothing but avals, so it is made once per key and shared by every
function that uses the op on those avals.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np

from tf8.graph import PRIMARY, OperationKey, ValueKey, materialize_merge
from tf8.graph.interpret import interpret
from tf8.lax.builders import convert
from tf8.lax.control.merge import merge_control
from tf8.lax.core import TransformFrame, apply, concrete
from tf8.lax.scopes import linear_scope
from tf8.ops.avals import value_aval
from tf8.ops.definition import DERIVED
from tf8.ops.extension.control import ControlOp
from tf8.ops.frames import current, frame_var
from tf8.ops.leaves import LeafKey
from tf8.ops.lowering import fold_constants, python_function
from tf8.ops.primitive import Aval
from tf8.traced import TracedTensor

from .linearize import JVP, transpose_graph

__all__ = [
    "JVP_KEY",
    "VJP",
    "Derived",
    "cached_rule",
    "constants_of",
    "pullback",
    "pullback_graph",
    "tangent_rule",
]


class Derived:
    """One derived rule: a graph from `inputs` (leaf keys) to `outputs` (a key, or None for a
    symbolic zero, per result) over bound `constants`; `run(*arrays)` computes it on numpy
    arrays, `inline(tensors)` with tf8 ops.

    Its ops on constants alone (a rule's `1.0` and its broadcast) are computed here, once:
    `run` and `inline(fold=True)` read their values; `inline()` applies them, for a graph
    transform that records constants as ops (jit's trace)."""

    __slots__ = ("inputs", "outputs", "leaves", "operations", "folded", "rest", "run")

    def __init__(self, inputs: list[ValueKey], outputs: list[Any], constants: dict) -> None:
        self.inputs = inputs
        self.outputs = outputs
        flat = materialize_merge(None, [k for k in outputs if k is not None])
        self.leaves = {k: np.asarray(constants[k]) for k in flat.inputs if k not in inputs}
        self.operations = flat.operations
        self.folded, self.rest = fold_constants(self.leaves, flat.operations, outputs)
        self.run = python_function(inputs, outputs, self.folded, self.rest)

    def inline(
        self, tensors: Sequence[TracedTensor | None], fold: bool = False
    ) -> list[TracedTensor | None]:
        """The results computed from `tensors` (one per input; None where unused) by `apply`,
        op by op, so that every enclosing tape and transform sees the ops; with `fold` (op by
        op on values, where nothing records constants), from the folded constants."""
        env: dict[ValueKey, Any] = dict(zip(self.inputs, tensors))
        constants, operations = (self.folded, self.rest) if fold else (self.leaves, self.operations)
        for key, value in constants.items():
            env[key] = concrete(value, value_aval(key))
        interpret(operations, env, _apply_step, constants=True)
        return [None if k is None else env[k] for k in self.outputs]


def _apply_step(op_key: OperationKey, values: list) -> list[TracedTensor]:
    return apply(op_key.op, values, op_key.meta)


# The first item of a DERIVED key. A key names the op and the input avals by their ids: it
# is hashed in C (an Aval's or an op's own hash is a Python method), and the entry holds the
# op and the avals, so no id is reused while the entry lives. Equal avals that are not the
# same object just derive once more.
VJP, JVP_KEY, JOINT = "vjp", "jvp", "joint"


def pullback(
    op: Any,
    inputs: Sequence[TracedTensor],
    outputs: Sequence[TracedTensor],
    needs: tuple,
    present: tuple | None = None,
) -> Derived | None:
    """The pullback of `op` on inputs of these avals: `run(*inputs, *outputs, *cotangents)`
    gives the cotangent of each input where `needs` says so (None elsewhere); `present` says
    which outputs have a cotangent (default: all; the others' are symbolic zeros, and their
    entries are not read). None when the rules cannot be traced on avals alone (why: in
    `UNDERIVED`)."""
    mask = needs if present is None else (needs, present)
    return _cached(VJP, _derive_pullback, op, inputs, outputs, mask)


def tangent_rule(
    op: Any, inputs: Sequence[TracedTensor], outputs: Sequence[TracedTensor], active: tuple
) -> Derived | None:
    """The JVP of `op` on inputs of these avals: `run(*inputs, *outputs, *tangents)` (a
    tangent per `active` input, in order) gives each output's tangent (None: zero). None as
    for `pullback`."""
    return _cached(JVP_KEY, _derive_tangent, op, inputs, outputs, active)


def joint_tangent_rule(
    op: Any, inputs: Sequence[TracedTensor], out_avals: Sequence[Aval], active: tuple
) -> Derived | None:
    """For a control op: `run(*inputs, *tangents)` gives its outputs, then each output's
    tangent (None: zero), in one loop: the op and its JVP rule's loop, which computes the
    same carries, merged (tf8.lax.control.merge). None where they do not merge into one."""
    avals = [t.aval for t in inputs]
    return cached_rule(JOINT, _derive_joint, op, avals, list(out_avals), active, by_value=True)


def _derive_joint(op: Any, in_avals: list[Aval], out_avals: list[Aval], active: tuple):
    with _fresh_context():
        xs, _ = _operands(in_avals, out_avals)
        op_key, primal = OperationKey.get_with_outputs(op, tuple([x.key for x in xs]), PRIMARY)
        if op_key.meta is None:
            op_key.meta = (tuple(out_avals), ())
        outs = [TracedTensor(k, a, {}, unbound=True) for k, a in zip(primal, out_avals)]
        ts, tangents = _tangents(op, xs, outs, active)
    found = [t.key for t in tangents if t is not None]
    merged = iter(merge_control([*primal, *found]))
    outputs = [next(merged) for _ in primal] + [
        None if t is None else next(merged) for t in tangents
    ]
    flat = materialize_merge(None, [k for k in outputs if k is not None])
    if sum(isinstance(o.op, ControlOp) for o in flat.operations) > 1:
        return False
    inputs = [t.key for t in (*xs, *[t for t in ts if t is not None])]
    return Derived(inputs, outputs, constants_of(tangents))


def _cached(kind: str, how: Callable, op: Any, inputs: Sequence, outputs: Sequence, mask: Any):
    return cached_rule(kind, how, op, [t.aval for t in inputs], [o.aval for o in outputs], mask)


def cached_rule(
    kind: str,
    how: Callable,
    op: Any,
    avals: list[Aval],
    out_avals: list[Aval],
    mask: Any,
    by_value: bool = False,
) -> Any:
    """What `how(op, avals, out_avals, mask)` derives, made once per (`kind`, op, `mask`,
    avals) and kept in DERIVED; None where it raised (why: in `UNDERIVED`) or gave False.
    The op and avals are looked up by identity, or `by_value` (a control op, made anew
    each time its function is traced, but equal to the last one)."""
    if by_value:
        key = (kind, op, mask, *avals)
    else:
        key = (kind, id(op), mask, *[id(a) for a in avals])
    found = DERIVED.get(key)
    if found is None:
        found = _derive(key, how, op, avals, out_avals, mask)
    return found[0] or None


# Why a key has no derived rule (a rule that reads values, an op without rules): its text.
UNDERIVED: dict[tuple, str] = {}


def _derive(
    key: tuple, how: Callable, op: Any, avals: list[Aval], out_avals: list[Aval], mask: tuple
) -> tuple:
    """The DERIVED entry for `key`: (`how`'s Derived, or False when the rules raise, the op,
    the avals)."""
    try:
        found: Derived | bool = how(op, avals, out_avals, mask)
    except Exception as exc:  # noqa: BLE001 - the caller takes the graph path at the values
        if len(UNDERIVED) >= 256:
            UNDERIVED.clear()
        UNDERIVED[key] = f"{type(exc).__name__}: {exc}"
        found = False
    entry = (found, op, avals)
    if not getattr(op, "per_call", False):  # one call's own op: never looked up again
        DERIVED.put(key, entry)
    return entry


def _leaf(name: str, aval: Aval) -> TracedTensor:
    key = ValueKey.input(LeafKey(None, f"derived.{name}", aval, "body"))
    return TracedTensor(key, aval, {}, unbound=True)


@contextlib.contextmanager
def _fresh_context() -> Iterator[None]:
    """A context of its own for tracing a rule: no tapes, no enclosing transform's
    differentiated or linear values, no value table; every op is recorded, a rule's
    constants too (`1.0` and its broadcast, as jit records them): `jit(grad)`'s one walk then
    emits the ops the two walks would, and the lowering folds them into globals."""
    outer = current()
    frame = TransformFrame()
    frame.depth = outer.depth + 1
    frame.body_depth = outer.body_depth  # (bodies traced in a rule are named below it)
    frame.symbolic = True
    token = frame_var.set(frame)
    try:
        yield
    finally:
        frame_var.reset(token)


def _operands(in_avals: Sequence[Aval], out_avals: Sequence[Aval]) -> tuple[list, list]:
    xs = [_leaf(f"x{i}", a) for i, a in enumerate(in_avals)]
    outs = [_leaf(f"y{i}", a) for i, a in enumerate(out_avals)]
    return xs, outs


def _tangents(op: Any, xs: list, outs: list, active: Sequence[bool]) -> tuple[list, list]:
    """(tangent leaves per input, None where inactive; output tangents, as jvp_graph gives
    them: in the output's dtype, None where zero or not inexact)."""
    ts = [_leaf(f"t{i}", x.aval) if a else None for i, (x, a) in enumerate(zip(xs, active))]
    with linear_scope(t.key for t in ts if t is not None):
        found = JVP(op)(op, xs, outs, ts)
        tangents_out = []
        for out, t in zip(outs, found):
            if t is None or out.aval.dtype.kind not in "fc":
                t = None
            elif t.dtype != out.dtype:
                t = convert(t, out.dtype)
            tangents_out.append(t)
    return ts, tangents_out


def constants_of(results: Sequence[TracedTensor | None]) -> dict:
    """The bound leaves' arrays the graph behind `results` reads (a rule's constants)."""
    constants: dict = {}
    for t in results:
        if t is not None:
            constants.update(t._bindings)
    return constants


def pullback_graph(
    op: Any, in_avals: Sequence[Aval], out_avals: Sequence[Aval], needs: tuple, present: tuple
) -> tuple[list[TracedTensor], list[TracedTensor], list[TracedTensor], list]:
    """(input leaves, output leaves, cotangent leaves, each input's cotangent or None): the
    pullback of `op` traced on leaves, as `pullback` derives it (`present` says which outputs
    have a cotangent)."""
    with _fresh_context():
        xs, outs = _operands(in_avals, out_avals)
        ts, tangents_out = _tangents(op, xs, outs, needs)
        cts = [_leaf(f"c{i}", a) for i, a in enumerate(out_avals)]
        wanted = [t for t in ts if t is not None]
        given = [c if p else None for c, p in zip(cts, present)]
        found = iter(transpose_graph(tangents_out, wanted, given))
        results = [next(found) if t is not None else None for t in ts]
    return xs, outs, cts, results


def _derive_pullback(op: Any, in_avals: list[Aval], out_avals: list[Aval], mask: tuple) -> Derived:
    needs, present = mask if type(mask[0]) is tuple else (mask, (True,) * len(out_avals))
    xs, outs, cts, results = pullback_graph(op, in_avals, out_avals, needs, present)
    inputs = [t.key for t in (*xs, *outs, *cts)]
    return Derived(inputs, [None if r is None else r.key for r in results], constants_of(results))


def _derive_tangent(op: Any, in_avals: list[Aval], out_avals: list[Aval], active: tuple) -> Derived:
    with _fresh_context():
        xs, outs = _operands(in_avals, out_avals)
        ts, tangents_out = _tangents(op, xs, outs, active)
    inputs = [t.key for t in (*xs, *outs, *[t for t in ts if t is not None])]
    outputs = [None if t is None else t.key for t in tangents_out]
    return Derived(inputs, outputs, constants_of(tangents_out))
