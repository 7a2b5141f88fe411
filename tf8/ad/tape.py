"""Reverse mode op by op: the tape behind `grad`, `value_and_grad` and `vjp`.

Outside every transform (or inside tapes only), on concrete arguments, reverse mode needs no
graph: the function runs op by op (tf8.lax.core.apply computes each op at once, as eager
dispatch does) and every op whose input depends on an argument is written on a tape with its
input and output values.
The backward pass walks the tape in reverse, applying each op's pullback to numpy
cotangents — autograd's design, with tf8's own rules: the pullback is derived from the op's
JVP and transpose rules for its avals, once (tf8.ad.derive), and runs as one generated numpy
function. No program is compiled for the function, no pass runs.

Tapes nest as JAX's trace levels do: a transform called inside tapes runs on a tape of its
own; every active tape writes down the ops on the values it follows (a value carries one node
per tape), and a tape's backward pass — like a forward tape's rules — runs as tf8 ops the
enclosing tapes see, so `grad(grad(f))` differentiates the backward pass itself.

A control-flow body, vmap or a jacobian is traced with the tapes hidden and applied as one op
they follow (tf8.lax.control.closure, one_op), so the function runs once. A loop or a cond runs
together with its pullback's forward part, and the tape keeps the residuals (tf8.ad.saving):
the backward pass does not run the loop forward again. What a tape still
cannot follow — linearize or tf8.recording() inside it, an op that cannot run op by op —
raises `NeedGraph` where it happens; the transform then runs the function again on the graph
path, which handles everything (Python side effects before that point happen twice).
"""

from __future__ import annotations

import contextlib
import weakref
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np

from tf8 import tree
from tf8.lax.builders import convert, zeros
from tf8.lax.core import TapeFrame, TransformFrame, apply, concrete
from tf8.lax.core import leaf as computed
from tf8.ops.definition import DERIVED, definition
from tf8.ops.fpstate import ignore_fp_errors, restore_fp_errors
from tf8.ops.frames import current, frame_var
from tf8.ops.primitive import make_primitive
from tf8.traced import NeedGraph, TracedTensor, wrap

from .arguments import as_traced
from .derive import VJP
from .saving import saving_pullback
from .tape_rules import Saved
from .tape_rules import vjp as op_vjp

__all__ = ["NeedGraph", "Tape", "TapeHandle", "graph_path_only", "run_on_tape", "tape_leaves"]


class Tape:
    """The ops of one run that depend on the differentiated arguments, in order.

    Frames name the tape by its `handle`, which follows the tape's values.
    The handle reaches the tape through a weak reference: the tape holds its values, they do
    not hold it, so a finished tape is freed by reference counting. (A cycle — tape, entry,
    value, node, tape — would leave every tape to the garbage collector, whose collections
    then cost every later op.)"""

    __slots__ = ("entries", "handle", "__weakref__")

    def __init__(self) -> None:
        # (op, inputs, outputs, which inputs the tape follows)
        self.entries: list[tuple[Any, tuple, Sequence[TracedTensor], tuple]] = []
        self.handle = TapeHandle(weakref.ref(self))

    @property
    def failed(self) -> str | None:
        """What made the tape give up, if anything did."""
        return self.handle.failed

    def backward(
        self,
        outputs: Sequence[TracedTensor],
        cotangents: Sequence[np.ndarray],
        leaves: Sequence[TracedTensor],
        traced: bool = False,
    ) -> list[np.ndarray | None]:
        """The cotangent of each leaf (None where nothing reaches it) for `cotangents` of
        `outputs`: numpy arrays, or — `traced` (inside another transform, or on traced
        cotangents), or under enclosing tapes, which must see the backward pass too —
        TracedTensors computed by tf8 ops."""
        nested = traced or bool(current().tapes)
        table: dict[int, Any] = {}
        for out, ct in zip(outputs, cotangents):
            if self._owns(out):
                _accumulate(table, out, ct, nested)
        token = ignore_fp_errors()  # rules follow IEEE, as kernels do
        try:
            self._walk_back(table, nested)
        finally:
            restore_fp_errors(token)
        return [table.get(id(leaf)) for leaf in leaves]

    def _walk_back(self, table: dict[int, Any], nested: bool) -> None:
        derived_get = DERIVED.get
        for op, inputs, outs, needs_t in reversed(self.entries):
            if len(outs) == 1:
                ct = table.pop(id(outs[0]), None)
                if ct is None:
                    continue
                cts = [ct]
            else:
                cts = [table.pop(id(o), None) for o in outs]
                if all(c is None for c in cts):
                    continue
            found = None
            if not nested and len(outs) == 1 and len(inputs) <= 2:
                # the derived pullback on numpy values (`tape_rules.vjp`, inlined: the hot path)
                if len(inputs) == 1:
                    x = inputs[0]
                    cached = derived_get((VJP, id(op), needs_t, id(x.aval)))
                    if cached is not None and cached[0]:
                        found = cached[0].run(x._value, outs[0]._value, ct)
                else:
                    x, y = inputs
                    cached = derived_get((VJP, id(op), needs_t, id(x.aval), id(y.aval)))
                    if cached is not None and cached[0]:
                        found = cached[0].run(x._value, y._value, outs[0]._value, ct)
            if found is None:
                found = op_vjp(op, inputs, outs, cts, needs_t, nested)
            for t, need, c in zip(inputs, needs_t, found):
                if need and c is not None:
                    if nested:
                        _accumulate(table, t, c, nested)
                        continue
                    dtype = t.aval.dtype  # `_accumulate` on numpy, inlined
                    if getattr(c, "dtype", None) != dtype:
                        c = np.asarray(c, dtype)
                    previous = table.get(id(t))
                    table[id(t)] = c if previous is None else previous + c

    def _owns(self, t: TracedTensor) -> bool:
        return id(t) in self.handle.nodes


class TapeHandle:
    """A reverse tape as frames know it: it follows values (`nodes`: id -> (value, what it
    depends on, None), see tf8.lax.values), writes ops down on the tape (held weakly: see
    `Tape`) and carries `failed`, what made the tape give up."""

    __slots__ = ("_tape", "failed", "nodes")

    def __init__(self, tape: weakref.ref) -> None:
        self._tape = tape
        self.failed: str | None = None
        self.nodes: dict[int, tuple] = {}

    def follow(self, t: TracedTensor, where: str, tangent: Any = None) -> None:
        """Follow `t` (held while the tape lives, so no other value takes its id)."""
        self.nodes[id(t)] = (t, where, tangent)

    def record(
        self,
        op: Any,
        inputs: Sequence[TracedTensor],
        outputs: Sequence[TracedTensor],
        node: tuple,
        followed: tuple[bool, ...],
    ) -> None:
        """`op` ran on `inputs` (those `followed` marks are taped; the first with `node`)
        giving `outputs`."""
        d = definition(op)
        if d.stops_derivative:
            return
        nodes = self.nodes
        for out in outputs:
            if out.aval.dtype.kind in "fc":
                nodes[id(out)] = (out, node[1], None)
        tape = self._tape()
        if tape is not None:  # (it is: a tape records only while its run holds it)
            tape.entries.append((op, tuple(inputs), outputs, followed))

    def run_saving(
        self, op: Any, inputs: Sequence[TracedTensor], values: list, out_avals: tuple
    ) -> list[TracedTensor] | None:
        """Run the control op `op` with its residuals and write it down (tf8.ad.saving), so
        the backward pass does not run its loop again; None where its pullback has no loop
        to save, or the tape follows none of `inputs` (the op then runs as any op)."""
        nodes = self.nodes
        followed = tuple([id(t) in nodes for t in inputs])
        if True not in followed:
            return None
        split = saving_pullback(op, inputs, out_avals, followed)
        if split is None:
            return None
        token = ignore_fp_errors()  # kernels follow IEEE
        try:
            arrays = split.forward.run(*values)
        finally:
            restore_fp_errors(token)
        outputs = [computed(a, v) for a, v in zip(out_avals, arrays)]
        where = nodes[id(inputs[followed.index(True)])][1]
        for out in outputs:
            if out.aval.dtype.kind in "fc":
                nodes[id(out)] = (out, where, None)
        tape = self._tape()
        if tape is not None:
            saved = Saved(op, split, arrays[len(outputs) :])
            tape.entries.append((saved, tuple(inputs), outputs, followed))
        return outputs


def _accumulate(table: dict[int, Any], t: TracedTensor, ct: Any, nested: bool) -> None:
    if nested:  # tf8 ops, so that enclosing tapes see the sums
        ct = as_traced(ct)
        if ct.dtype != t.aval.dtype:
            ct = convert(ct, t.aval.dtype)
    elif getattr(ct, "dtype", None) != t.aval.dtype:
        ct = np.asarray(ct, t.aval.dtype)
    k = id(t)
    previous = table.get(k)
    table[k] = ct if previous is None else previous + ct


@contextlib.contextmanager
def graph_path_only() -> Iterator[None]:
    """Inside the block, grad, vjp and jvp take the graph path instead of the tape (to check
    one against the other)."""
    frame = current()
    kind = TapeFrame if frame.tapes else TransformFrame
    token = frame_var.set(frame.child(kind, taping=False))
    try:
        yield
    finally:
        frame_var.reset(token)


def tape_leaves(
    args: Sequence[Any], argnums: Sequence[int], holomorphic: bool = False
) -> list[tuple[Any, list]] | None:
    """Each argnums argument's (treedef, leaves) when a tape can run the transform — at top
    level or inside tapes only (not recording), every differentiated argument concrete, and
    not holomorphic — else None. `run_on_tape` takes them as `flat`: arguments are flattened
    once."""
    frame = current()
    if holomorphic or not frame.only_tapes or not frame.taping:
        return None
    flat = []
    for i in argnums:
        if not -len(args) <= i < len(args):
            return None  # the graph path raises the ArgnumsError
        leaves, treedef = tree.tree_flatten(args[i])
        for leaf in leaves:
            if isinstance(leaf, TracedTensor) and leaf._value is None:
                return None
        flat.append((treedef, leaves))
    return flat


def run_on_tape(
    fun: Callable,
    args: Sequence[Any],
    kwargs: dict,
    argnums: Sequence[int],
    what: str,
    tape: Any = None,
    tangents: Sequence[TracedTensor] | None = None,
    flat: Sequence[tuple[Any, list[TracedTensor]]] | None = None,
) -> tuple[Any, list[TracedTensor], Any, list]:
    """Run `fun` with the argnums arguments' leaves replaced by taped concrete leaves:
    (tape, those leaves, the output, each argument's (treedef, leaf count)). `tape` is a new
    `Tape` by default; forward mode passes its own and each leaf's tangent. `flat` holds
    each argnums argument's (treedef, leaves) when the caller has them (`tape_leaves`)."""
    argnums = [i % len(args) for i in argnums]
    tape = Tape() if tape is None else tape
    handle = tape.handle if type(tape) is Tape else tape  # what the frame holds
    frame = current()
    outer = frame.tapes
    name = getattr(fun, "__name__", "f")
    leaves: list[TracedTensor] = []
    defs = []
    call_args = list(args)
    for position, i in enumerate(argnums):
        if flat is None:
            values, treedef = tree.tree_flatten(args[i])
        else:
            treedef, values = flat[position]
        part = treedef.num_leaves > 1
        taped = []
        for j, value in enumerate(values):
            original = as_traced(value)
            if outer and frame.follows(original):
                # a value enclosing tapes follow: the leaf is a copy they see it make
                leaf = apply(_same(original), [original])[0]
            else:
                leaf = concrete(original._value, original.aval)
            # a Python scalar argument stays weakly typed, as in JAX (and so do its cotangents)
            leaf._weak = original._weak or type(value) in _PY_SCALARS
            where = f"argument {i} of {what}({name})"
            if part:
                where += f" (leaf {j} of its pytree)"
            tangent = None if tangents is None else tangents[len(leaves) + j]
            handle.follow(leaf, where, tangent)
            taped.append(leaf)
        leaves.extend(taped)
        defs.append((treedef, len(taped)))
        call_args[i] = tree.tree_unflatten(treedef, taped)
    token = frame_var.set(frame.child(TapeFrame, depth=frame.depth + 1, tapes=(*outer, handle)))
    try:
        out = fun(*call_args, **kwargs)
    finally:
        frame_var.reset(token)
    if handle.failed is not None:  # user code caught the signal: the run is not trustworthy
        raise NeedGraph(handle.failed)
    return tape, leaves, out, defs


def _same(t: TracedTensor) -> Any:
    """An op copying `t` (a reshape to its own shape: every tape has its rules)."""
    return make_primitive("reshape", 1, {"shape": t.aval.shape})


_PY_SCALARS = (int, float, complex)


def results(values: Sequence[Any], like: Sequence[TracedTensor]) -> list[Any]:
    """What a tape transform returns for `values` (TracedTensors, numpy arrays, or None for
    zeros shaped like `like`): at top level, computed Arrays; inside enclosing tapes, the
    TracedTensors themselves, which those tapes follow."""
    if current().tapes:
        return [zeros(t.aval) if v is None else as_traced(v) for v, t in zip(values, like)]
    arrays = []
    for v, t in zip(values, like):
        if v is None:
            v = np.zeros(t.shape, t.dtype)
        elif isinstance(v, TracedTensor):
            if v._value is None:
                raise NeedGraph("a result without a value")
            if v._key is None and v._weak == t._weak:  # a computed value, no graph behind it
                arrays.append(v)
                continue
            v = v._value
        out = wrap(np.asarray(v))
        out._weak = t._weak  # JAX: a cotangent (tangent) has its input's (output's) weak type
        arrays.append(out)
    return arrays
