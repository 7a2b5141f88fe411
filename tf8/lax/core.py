"""Applying an op: computed at once where its inputs are concrete, recorded where a graph
needs it — the one entry point every tf8.lax, tf8.numpy and AD rule goes through.

- Outside every transform, an op on concrete values is computed by its kernel straight away
  and its result is a concrete leaf with no graph behind it (op-by-op dispatch, as JAX's eager
  mode and autograd do): no key, no program.
- Inside a transform the op is *recorded* (its interned `OperationKey`, with avals and guards
  inferred once and kept on the key), and — unless jit is tracing — also computed when its
  inputs are concrete, so Python control flow and later transforms read values instead of
  compiling programs for them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from tf8.errors import GraphError
from tf8.graph import PRIMARY, Linearized, OperationKey, ValueKey
from tf8.ops.definition import PLANS, definition, infer, remember_plan
from tf8.ops.extension.control import Cond, Scan
from tf8.ops.fpstate import quietly
from tf8.ops.frames import Frame, frame_var
from tf8.ops.leaves import Bindings, merge_binding_dicts
from tf8.ops.names import note_scope
from tf8.ops.primitive import Aval, aval_of, make_primitive
from tf8.ops.shapes import has_symbolic, is_symbolic
from tf8.traced import OpMeta, TracedTensor, _refuse_tape

from .values import remember_value

__all__ = [
    "TapeFrame",
    "TransformFrame",
    "apply",
    "apply1",
    "concrete",
    "eager_now",
    "eager_untaped",
    "leaf",
    "merge_bindings",
    "record",
    "record_outputs",
    "write_down",
]

# PLANS.get bound once (the table is emptied and refilled in place, never replaced): a bound
# builtin is the cheapest lookup eager dispatch can make per op.
_plan_of = PLANS.get
_get_with_outputs = OperationKey.get_with_outputs
_frame = frame_var.get  # the transform state (tf8.ops.frames): None outside transforms


# The Linearized role of each active mask, made once (roles are immutable values).
_ROLES: dict[tuple[bool, ...], Linearized] = {}


def merge_bindings(inputs: Sequence[TracedTensor]) -> Bindings:
    """The default bindings of all `inputs`' leaves (one dict; conflicts marked)."""
    return merge_binding_dicts([t._bindings for t in inputs])


def record(
    op: Any, keys: tuple[ValueKey, ...], meta: OpMeta | Callable[[], OpMeta]
) -> OperationKey:
    """The operation key of `op` on the values `keys`, in the current transform context: its
    role is Linearized when a linear scope holds one of `keys` (its outputs then join the
    scope), and its outputs join the differentiated set when an input is in it. `meta` (or
    `meta()`) gives the avals and guards when the key is new."""
    return record_outputs(op, keys, meta)[0]


def record_outputs(
    op: Any, keys: tuple[ValueKey, ...], meta: OpMeta | Callable[[], OpMeta]
) -> tuple[OperationKey, tuple[ValueKey, ...]]:
    """`record`, and the key's output keys (a new key's are made with it: hold them)."""
    frame = _frame()
    if frame is None:
        op_key, outputs = _get_with_outputs(op, keys, PRIMARY)
        if op_key.meta is None:
            op_key.meta = meta if type(meta) is tuple else meta()
            note_scope(op_key)
        return op_key, outputs
    if frame.tapes:
        _refuse_tape("recording", op)
    role = PRIMARY
    linear = frame.linear
    if linear:
        mask = tuple([k in linear for k in keys])
        if True in mask:
            role = _ROLES.get(mask)
            if role is None:
                role = _ROLES[mask] = Linearized(mask)
    op_key, outputs = _get_with_outputs(op, keys, role)
    if op_key.meta is None:
        op_key.meta = meta if type(meta) is tuple else meta()
        note_scope(op_key)
    if role is not PRIMARY:
        linear.update(outputs)  # type: ignore[union-attr]
    tracked = frame.tracked
    if tracked is not None:  # a body traced under hidden tapes (see tf8.ops.frames)
        for k in keys:
            if k in tracked:  # depends on what they follow: recorded, never hoisted
                for out in outputs:
                    tracked[out] = None
                break
    for level in frame.levels:  # the outputs join each level an input is in
        for k in keys:
            argument = level.get(k)
            if argument is not None:
                if not definition(op).stops_derivative:
                    for out in outputs:
                        level[out] = argument
                break
    return op_key, outputs


def apply(
    op: Any, inputs: Sequence[TracedTensor], meta: OpMeta | None = None
) -> list[TracedTensor]:
    """Apply `op` to `inputs` (validated first); return its outputs. Outside transforms an
    op on concrete values runs at once; inside, the current frame decides (`Frame.process`).

    `meta` passes on the avals and guards an equal-aval twin already recorded."""
    frame = _frame()
    if frame is not None:
        return frame.process(op, inputs, meta)
    values = [t._value for t in inputs]
    for v in values:
        if v is None:
            return _record(op, inputs, meta, False)
    plan = _planned(op, inputs)
    if plan:
        return _compute(op, inputs, values, plan)
    return _record(op, inputs, meta, True)


class TransformFrame(Frame):
    """Inside a transform that records (jit, grad's graph path, vmap, a body): an op that
    depends on nothing the transforms act on is computed at once (a constant to them); the
    rest is recorded, and computed too where its inputs are concrete and nothing is symbolic,
    so Python control flow and later transforms read values."""

    __slots__ = ()

    def process(
        self, op: Any, inputs: Sequence[TracedTensor], meta: OpMeta | None
    ) -> list[TracedTensor]:
        values = [t._value for t in inputs]
        concrete = True
        for v in values:
            if v is None:
                concrete = False
                break
        if self.hidden:
            _track(self, inputs)
        if concrete and not self.symbolic:
            if not self.depth or _constant(self, inputs):
                plan = _planned(op, inputs)
                if plan:
                    return _compute(op, inputs, values, plan)
            return _record(op, inputs, meta, True)
        return _record(op, inputs, meta, False)


# The ops a reverse tape runs together with their pullback's forward part (the residual
# loop of a scan's transpose), so that a gradient runs their loop once.
SAVES_RESIDUALS = frozenset({Scan, Cond})


class TapeFrame(TransformFrame):
    """Inside op-by-op tapes (tf8.ad.tape, tf8.ad.forward): ops on concrete values run at
    once, and each tape following an input writes the op down; what cannot run op by op
    makes the tapes give up (NeedGraph)."""

    __slots__ = ()
    op_by_op = True

    def process(
        self, op: Any, inputs: Sequence[TracedTensor], meta: OpMeta | None
    ) -> list[TracedTensor]:
        tapes = self.tapes
        if not tapes or self.symbolic:
            return TransformFrame.process(self, op, inputs, meta)
        values = [t._value for t in inputs]
        for v in values:
            if v is None:
                return _record(op, inputs, meta, False)  # (refuses: tapes never record)
        plan = _planned(op, inputs)
        if not plan:
            _refuse_tape("no plan to run op by op for", op)
        if type(op) in SAVES_RESIDUALS and len(tapes) == 1:
            # a loop the tape runs with its pullback's forward part, once (tf8.ad.saving)
            run_saving = getattr(tapes[0], "run_saving", None)
            saved = None if run_saving is None else run_saving(op, inputs, values, plan[1])
            if saved is not None:
                if inputs[0]._weak:
                    _propagate_weak(inputs, saved)
                return saved
        outputs = _compute(op, inputs, values, plan)
        write_down(tapes, op, inputs, outputs)  # (by each tape following an input)
        return outputs


def _track(frame: Frame, inputs: Sequence[TracedTensor]) -> None:
    """In a body traced under hidden tapes: note the inputs they follow, by key (see
    tf8.ops.frames): the body captures them, so the tapes see it depend on them."""
    tracked = frame.tracked
    for t in inputs:
        if frame.hidden_follows(t):
            tracked[t.key] = t  # type: ignore[index]


def write_down(tapes: tuple, op: Any, inputs: Sequence[TracedTensor], outputs: list) -> None:
    """Each tape following one of `inputs` writes the op down (with the first such input's
    node, and which inputs it follows); the others ignore it."""
    for tape in tapes:
        nodes = tape.nodes
        node = None
        mask = []  # which inputs the tape follows (the pullback it derives needs it)
        for t in inputs:
            found = nodes.get(id(t))
            if found is None:
                mask.append(False)
            else:
                mask.append(True)
                if node is None:
                    node = found
        if node is not None:
            tape.record(op, inputs, outputs, node, tuple(mask))


def _planned(op: Any, inputs: Sequence[TracedTensor]) -> tuple | bool:
    """The cached plan of `op` on these inputs' avals (see `_infer`), made when new."""
    try:
        plan = _plan_of((op, *[t.aval for t in inputs]))
    except TypeError:  # an unhashable parameter somewhere
        plan = False
    if plan is None:
        plan = _plan(op, inputs)
    return plan


def _constant(frame: Frame, inputs: Sequence[TracedTensor]) -> bool:
    """Inside a transform: True when no input depends on what the transforms act on (an
    argument being differentiated, a tangent or cotangent, a value hidden tapes follow): the
    op is a constant to them, so it is computed and not recorded."""
    levels = frame.levels
    linear = frame.linear
    tracked = frame.tracked
    for t in inputs:
        key = t._key
        if key is None:
            continue  # a value computed op by op: a constant leaf (or one `_track` keyed)
        if tracked and key in tracked:
            return False  # a value hidden tapes follow, or depends on one
        for level in levels:
            if key in level:
                return False
        if linear and key in linear:
            return False
    return True


def eager_now() -> bool:
    """True when ops on concrete values run at once (outside every transform, or on tapes
    only, not recording)."""
    frame = _frame()
    return frame is None or frame.eager


def eager_untaped(t: TracedTensor) -> bool:
    """`eager_now()`, and no tape follows `t` (an op on it needs no writing down)."""
    frame = _frame()
    return frame is None or (frame.op_by_op and frame.eager and not frame.follows(t))


def concrete(value: np.ndarray, aval: Aval) -> TracedTensor:
    """A concrete value as a TracedTensor (a leaf made only if a graph needs it)."""
    t = TracedTensor(None, aval, None)
    t._value = value
    return t


def apply1(name: str, inputs: Sequence[TracedTensor], **params: Any) -> TracedTensor:
    """Apply the single-output primitive `name` with `params` to `inputs`."""
    return apply(make_primitive(name, len(inputs), params), inputs)[0]


def _plan(op: Any, inputs: Sequence[TracedTensor]) -> tuple | bool:
    """(kernel, output avals) for running `op` on inputs of these avals op by op, or False
    when it cannot (see `_infer`)."""
    return _infer(op, inputs)[1]


def _infer(op: Any, inputs: Sequence[TracedTensor]) -> tuple[OpMeta, tuple | bool]:
    """Infer `op` on the inputs' avals once: the meta a recorded key keeps, and the plan
    eager dispatch reuses — (kernel, output avals), or False when the op cannot run op by op
    (a size is symbolic or known only at run time, or a shape guard is left to check)."""
    guards: list = []
    avals = infer(op, [t.aval for t in inputs], guards)  # raises the op's own errors
    avals = tuple([aval_of(a.shape, a.dtype) for a in avals])  # shared: looked up by identity
    kernel = definition(op).kernel
    symbolic = any(is_symbolic(a.shape) for a in avals) or has_symbolic(op.params)
    plan = False if guards or kernel is None or symbolic else (kernel, avals)
    remember_plan((op, *[t.aval for t in inputs]), plan, op)
    return (avals, tuple(guards)), plan


def _array(value: Any) -> np.ndarray:
    """A kernel result as an array (a 0-d ufunc result is a numpy scalar: a 0-d array). It is
    not made read-only here: no one outside tf8 holds it, and tf8 never writes into a value;
    it is frozen when it leaves (`TracedTensor.__array__`), as JAX arrays are read-only."""
    return value if type(value) is np.ndarray else np.array(value)


def leaf(aval: Aval, value: Any) -> TracedTensor:
    """A kernel's result as a concrete leaf of `aval` (no key, no graph)."""
    out = TracedTensor(None, aval, None)
    out._value = _array(value)
    return out


def _compute(
    op: Any, inputs: Sequence[TracedTensor], values: list, plan: tuple
) -> list[TracedTensor]:
    """Outside transforms: the kernel's results as concrete leaves (no key, no graph)."""
    kernel, avals = plan
    result = quietly(kernel, op, *values)  # floating-point warnings off: kernels follow IEEE
    if len(avals) == 1:
        outputs = [leaf(avals[0], result)]
    else:
        outputs = [leaf(aval, value) for aval, value in zip(avals, result)]
    if inputs and inputs[0]._weak:
        _propagate_weak(inputs, outputs)
    return outputs


def _record(
    op: Any, inputs: Sequence[TracedTensor], meta: OpMeta | None, compute: bool
) -> list[TracedTensor]:
    try:  # an op that ran op by op on these avals proved its avals without guards
        plan = _plan_of((op, *[t.aval for t in inputs]))
    except TypeError:  # an unhashable parameter somewhere
        plan = False
    if meta is None and plan:
        meta = (plan[1], ())
    try:
        op_key, out_keys = record_outputs(
            op, tuple([t.key for t in inputs]), meta or (lambda: _infer(op, inputs)[0])
        )
    except GraphError:
        infer(op, [t.aval for t in inputs])  # the op's own error names what was wrong
        raise
    avals = op_key.meta[0]
    bindings = merge_binding_dicts([t._bindings for t in inputs])
    unbound = False
    for t in inputs:
        if t._unbound:
            unbound = True
            break
    outputs = [TracedTensor(key, aval, bindings, unbound) for key, aval in zip(out_keys, avals)]
    if compute:
        if plan is None:
            plan = _plan(op, inputs)
        if plan:  # runnable op by op: no symbolic size, no guard, a kernel
            frame = _frame()
            table = None if frame is None else frame.values
            result = quietly(plan[0], op, *[t._value for t in inputs])
            for out, value in zip(outputs, result if len(avals) > 1 else (result,)):
                out._value = value = _array(value)
                if table is not None:
                    remember_value(table, out._key, value)
    if inputs and inputs[0]._weak:
        _propagate_weak(inputs, outputs)
    return outputs


def _propagate_weak(inputs: Sequence[TracedTensor], outputs: list[TracedTensor]) -> None:
    if inputs and all([t._weak for t in inputs]):  # JAX: an op of weak values is weak
        for out in outputs:
            out._weak = True
