"""Replacing the solvers' stand-ins (tf8.ops.extension.solves) by the maps they name.

`transpose_solve` and `tangent_solve` were traced on stand-ins for `vecmat` (matvec
transposed) and `g` (f linearised), as JAX would trace them on maps it derives by AD. Before a
program holding stand-ins runs, `expand_call` inlines it with each stand-in replaced by its
map — `transpose_graph` of matvec, `jvp_graph` of f — and each control op whose programs hold
stand-ins rebuilt on expanded programs (their new captures become leading constants).
A stand-in met by a transform (`jacobian(g)` inside tangent_solve) is differentiated or
batched as the `Checkpoint` of its map (tf8.ad.control.solves).
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

from tf8.errors import DifferentiationError
from tf8.graph import OperationKey
from tf8.lax.builders import materialize
from tf8.lax.control import apply_control, call, program_tensors, trace_flat, trace_many
from tf8.lax.core import apply
from tf8.lax.walk import GraphWalk, interpret
from tf8.ops.extension.control import Checkpoint, ClosedProgram, Cond, Scan, While
from tf8.ops.extension.solves import LinearizedMap, LinearSolve, RootSolve, TransposedMap
from tf8.ops.primitive import Aval
from tf8.traced import TracedTensor

from ..arguments import fresh_leaf

__all__ = ["Transforms", "expand_call", "expanded", "has_stand_ins", "stand_in_program"]

STAND_INS = (TransposedMap, LinearizedMap)


class Transforms(NamedTuple):
    """The two graph transforms a stand-in's map is made with (tf8.ad.linearize's)."""

    jvp_graph: Callable[..., list]
    transpose_graph: Callable[..., list]


def _programs(op: Any) -> list[ClosedProgram]:
    """The closed programs an op's payload holds (a cond's branches included)."""
    payload = getattr(op, "payload", None)
    found: list[ClosedProgram] = []
    for p in payload if isinstance(payload, tuple) else ():
        if isinstance(p, ClosedProgram):
            found.append(p)
        elif isinstance(p, tuple):
            found.extend(q for q in p if isinstance(q, ClosedProgram))
    return found


_HAS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def has_stand_ins(program: ClosedProgram) -> bool:
    """Whether `program`, or a program nested in one of its ops, holds a stand-in."""
    found = _HAS.get(program)
    if found is None:
        found = False
        for op_key in GraphWalk([], keys=list(program.outputs)).operations:
            op = op_key.op
            if type(op) in STAND_INS or any(has_stand_ins(p) for p in _programs(op)):
                found = True
                break
        _HAS[program] = found
    return found


def expanded(
    program: ClosedProgram | None, tr: Transforms
) -> tuple[ClosedProgram | None, list[TracedTensor]]:
    """(`program` without stand-ins, the captures it reads first): itself when it has none."""
    if program is None or not has_stand_ins(program):
        return program, []
    return trace_flat(lambda args: expand_call(program, args, tr), program.in_avals)


def expand_call(
    program: ClosedProgram, args: Sequence[TracedTensor], tr: Transforms
) -> list[TracedTensor]:
    """`program` applied to `args` inline, its stand-ins replaced by their maps."""
    env: dict = dict(zip(program.inputs, args))

    def step(op_key: OperationKey, values: list) -> Sequence[TracedTensor | None]:
        if any([v is None for v in values]):
            return [None] * len(op_key.outputs)
        op = op_key.op
        if type(op) in STAND_INS:
            body, captures = stand_in_program(op, [v.aval for v in values], tr)
            return call(body, [*captures, *values])
        if any(has_stand_ins(p) for p in _programs(op)):
            rebuild = _REBUILD.get(type(op))
            if rebuild is None:
                raise DifferentiationError(
                    f"{op!r} holds a solver callback's vecmat or g (custom_linear_solve, "
                    "custom_root) in a program tf8 cannot rebuild"
                )
            return rebuild(op, values, tr)
        return apply(op, values, op_key.meta)

    interpret(GraphWalk([], keys=list(program.outputs)).operations, env, step, constants=True)
    return [env[k] for k in program.outputs]


def stand_in_program(
    op: Any, avals: Sequence[Aval], tr: Transforms
) -> tuple[ClosedProgram, list[TracedTensor]]:
    """(the map a stand-in names as a closed program over operands of `avals`, its
    captures)."""
    program, n = op.payload
    ins, _ = program_tensors(program)
    if type(op) is TransposedMap:

        def transposed(args: list) -> list:  # (*consts, *y, anchor): the anchor is not read
            xs = [fresh_leaf(t, "tangent", bind=False) for t in ins[n:]]
            outs = expand_call(program, [*args[:n], *xs], tr)
            cts = tr.transpose_graph(outs, xs, list(args[n:-1]))
            return [materialize(c, x.aval) for c, x in zip(cts, xs)]

        return trace_flat(transposed, avals)

    m = len(program.inputs)

    def linearized(args: list) -> list:
        outs = expand_call(program, args[:m], tr)
        tangents = tr.jvp_graph(outs, list(args[n:m]), list(args[m:]))
        return [materialize(t, o.aval) for t, o in zip(tangents, outs)]

    return trace_flat(linearized, avals)


def as_checkpoint(
    op: Any, avals: Sequence[Aval], tr: Transforms
) -> tuple[Checkpoint, list[TracedTensor]]:
    """A stand-in as the Checkpoint of its map on operands of `avals` (applied to
    (*captures, *operands))."""
    body, captures = stand_in_program(op, avals, tr)
    return Checkpoint(body), captures


# --- control ops rebuilt on expanded programs ---------------------------------------------------


def _scan(op: Scan, values: list, tr: Transforms) -> list:
    body, n_consts, n_carry, length, reverse = op.payload
    new, caps = expanded(body, tr)
    return apply_control(
        Scan(new, len(caps) + n_consts, n_carry, length, reverse), [*caps, *values]
    )


def _while(op: While, values: list, tr: Transforms) -> list:
    cond, body, n_cond, n_body = op.payload
    new_cond, cond_caps = expanded(cond, tr)
    new_body, body_caps = expanded(body, tr)
    rebuilt = While(new_cond, new_body, len(cond_caps) + n_cond, len(body_caps) + n_body)
    return apply_control(rebuilt, [*cond_caps, *values[:n_cond], *body_caps, *values[n_cond:]])


def _cond(op: Cond, values: list, tr: Transforms) -> list:
    branches = op.branches
    funs = [lambda args, b=b: expand_call(b, args, tr) for b in branches]
    programs, caps = trace_many(funs, branches[0].in_avals)
    return apply_control(Cond(programs), [values[0], *caps, *values[1:]])


def _checkpoint(op: Checkpoint, values: list, tr: Transforms) -> list:
    body, hidden, prevent_cse = op.payload
    new, caps = expanded(body, tr)
    return apply_control(Checkpoint(new, hidden, prevent_cse), [*caps, *values])


def _grouped(op: Any, values: list, tr: Transforms, n_programs: int) -> list:
    """A solver op (its programs first in the payload, then their constant counts; operands
    the constants group by group, then the rest) rebuilt on expanded programs."""
    groups = op.split(values)
    programs, counts, operands = [], [], []
    for program, consts in zip(op.payload[:n_programs], groups):
        new, caps = expanded(program, tr)
        programs.append(new)
        counts.append(len(caps) + len(consts))
        operands += [*caps, *consts]
    return apply_control(type(op)(*programs, *counts), [*operands, *groups[-1]])


_REBUILD: dict[type, Callable[[Any, list, Transforms], list]] = {
    Scan: _scan,
    While: _while,
    Cond: _cond,
    Checkpoint: _checkpoint,
    LinearSolve: lambda op, values, tr: _grouped(op, values, tr, 4),
    RootSolve: lambda op, values, tr: _grouped(op, values, tr, 3),
}
