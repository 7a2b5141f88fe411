"""JVP and transpose rules of `custom_linear_solve` and `custom_root`: implicit differentiation,
as JAX's (jax/_src/lax/control_flow/solves.py), never through the solvers.

- linear solve, A x = b:  dx = A^{-1} (db - dA x), one more solve of the same op (linear in
  its right-hand side); the transpose of that solve is the solve of the transposed system
  (transpose_solve with vecmat, or solve itself when symmetric).
- root, f(m, x*(m)) = 0:  dx* = -(d_x f)^{-1} (d_m f dm), computed by tangent_solve at the
  root; the solver's iterations are never differentiated.
The stand-ins for vecmat and g are replaced by their maps (tf8.ad.control.expand); where a
transform meets one itself, it treats it as the Checkpoint of its map.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

from tf8.errors import DifferentiationError
from tf8.lax.builders import Tangent, add_any, convert, materialize, neg
from tf8.lax.control import call, trace_flat
from tf8.lax.core import apply
from tf8.ops import dtypes as dt
from tf8.ops.extension.control import ClosedProgram
from tf8.ops.extension.solves import LinearizedMap, LinearSolve, RootSolve, TransposedMap
from tf8.traced import TracedTensor

from .expand import Transforms, as_checkpoint, expand_call, expanded
from .jvp import checkpoint_jvp
from .transpose import checkpoint_transpose

__all__ = ["solve_jvp_rules", "solve_transpose_rules"]


def _as(t: TracedTensor, like: Any) -> TracedTensor:
    return t if t.dtype == like.dtype else convert(t, like.dtype)


def _constants_tangent(
    tr: Transforms,
    program: ClosedProgram,
    consts: Sequence[TracedTensor],
    dots: Sequence[Tangent],
    x: Sequence[TracedTensor],
) -> list[TracedTensor] | None:
    """The tangent of `program(consts, x)` when its constants move along `dots` and x stays
    (matvec's dA x, f's d_m f), or None where no constant moves."""
    mask = [t is not None and dt.is_inexact(c.dtype) for c, t in zip(consts, dots)]
    if not any(mask):
        return None
    present = [t for t, m in zip(dots, mask) if m]
    n = len(consts)

    def fun(args: list) -> list:
        c, at, moving = args[:n], args[n : n + len(x)], iter(args[n + len(x) :])
        outs = expand_call(program, [*c, *at], tr)
        tangents = tr.jvp_graph(outs, c, [next(moving) if m else None for m in mask])
        return [materialize(t, o.aval) for t, o in zip(tangents, outs)]

    avals = [t.aval for t in (*consts, *x, *present)]
    body, captures = trace_flat(fun, avals)
    return call(body, [*captures, *consts, *x, *present])


def linear_solve_jvp(tr: Transforms, op: LinearSolve, primals, outputs, tangents) -> list:
    groups = op.split(primals)
    b = groups[-1]
    n_b = len(b)
    x = list(outputs[:n_b])
    rhs: list[Tangent] = list(tangents[len(primals) - n_b :])
    moved = _constants_tangent(tr, op.payload[0], groups[0], tangents[: len(groups[0])], x)
    if moved is not None:  # dA x moves the right-hand side: db - dA x
        rhs = [add_any(r, neg(_as(m, bi))) for r, m, bi in zip(rhs, moved, b)]
    if all(r is None for r in rhs):
        return [None] * len(outputs)
    rhs_full = [_as(materialize(r, bi.aval), bi) for r, bi in zip(rhs, b)]
    x_dot = apply(op, [*primals[: len(primals) - n_b], *rhs_full])
    return [*x_dot[:n_b], *[None] * (len(outputs) - n_b)]  # aux: no derivative


def linear_solve_transpose(tr: Transforms, op: LinearSolve, operands, linear, ct) -> list:
    groups = op.split(operands)
    n_b = len(groups[-1])
    n_consts = len(operands) - n_b
    if any(linear[:n_consts]):
        raise DifferentiationError(
            "custom_linear_solve is linear in b only: its transpose with respect to the "
            "constants matvec or the solvers close over is not defined (JAX refuses too)"
        )
    matvec, vecmat, solve, transpose_solve = op.programs
    if transpose_solve is None:
        raise DifferentiationError(
            "transpose_solve required for backwards mode automatic differentiation of "
            "custom_linear_solve (pass transpose_solve=..., or symmetric=True)"
        )
    cts = list(ct) if isinstance(ct, (list, tuple)) else [ct]
    if all(c is None for c in cts[:n_b]):
        return [None] * len(operands)
    new_solve, captures = expanded(transpose_solve, tr)
    n_mv, n_vm, n_s, n_ts = op.counts
    mv_c, vm_c, s_c, ts_c, _ = groups
    transposed = LinearSolve(
        vecmat,  # type: ignore[arg-type]
        matvec,
        new_solve,  # type: ignore[arg-type]
        solve,
        n_vm,
        n_mv,
        len(captures) + n_ts,
        n_s,
    )
    b_avals = transpose_solve.in_avals[n_ts:]
    x_cts = [_as(materialize(c, a), a) for c, a in zip(cts[:n_b], b_avals)]
    results = apply(transposed, [*vm_c, *mv_c, *captures, *ts_c, *s_c, *x_cts])
    b_cts = [_as(r, bi) for r, bi in zip(results[:n_b], groups[-1])]
    return [*[None] * n_consts, *b_cts]


def root_jvp(tr: Transforms, op: RootSolve, primals, outputs, tangents) -> list:
    f, _, tangent, n_f, _, _ = op.payload
    f_c, _, t_c, x0 = op.split(primals)
    n = len(x0)
    root = list(outputs[:n])
    rhs = _constants_tangent(tr, f, f_c, tangents[:n_f], root)
    if rhs is None:  # only f's constants carry derivatives (the guess and solvers do not)
        return [None] * len(outputs)
    rhs = [_as(r, x) for r, x in zip(rhs, x0)]
    solved = expand_call(tangent, [*t_c, *root, *rhs], tr)
    return [*[neg(s) for s in solved], *[None] * (len(outputs) - n)]


def stand_in_jvp(tr: Transforms, op: Any, primals, outputs, tangents) -> list:
    """Linear in its last operands: their tangents go through the stand-in itself (so a
    jacobian of g inside tangent_solve does not depend on where it is taken); tangents of
    the point or constants differentiate its map, as a Checkpoint."""
    lin = range(len(primals))[op.linear]
    out: list[Tangent] = [None] * len(outputs)
    if any(tangents[i] is not None for i in lin):
        moving = list(primals)
        for i in lin:
            moving[i] = materialize(tangents[i], primals[i].aval)
        out = list(apply(op, moving))
    if any(t is not None for i, t in enumerate(tangents) if i not in lin):
        checkpoint, captures = as_checkpoint(op, [p.aval for p in primals], tr)
        rest = checkpoint_jvp(
            tr.jvp_graph,
            checkpoint,
            [*captures, *primals],
            outputs,
            [*[None] * len(captures), *[None if i in lin else t for i, t in enumerate(tangents)]],
        )
        out = [add_any(a, b) for a, b in zip(out, rest)]
    return out


def stand_in_transpose(tr: Transforms, op: Any, operands, linear, ct) -> list:
    checkpoint, captures = as_checkpoint(op, [x.aval for x in operands], tr)
    cts = checkpoint_transpose(
        tr.transpose_graph,
        checkpoint,
        [*captures, *operands],
        [*[False] * len(captures), *linear],
        ct,
    )
    return cts[len(captures) :]


def solve_jvp_rules(jvp_graph: Callable, transpose_graph: Callable) -> dict[type, Callable]:
    """JVP rules of the solver ops and stand-ins, keyed by op class."""
    tr = Transforms(jvp_graph, transpose_graph)
    return {
        LinearSolve: partial(linear_solve_jvp, tr),
        RootSolve: partial(root_jvp, tr),
        TransposedMap: partial(stand_in_jvp, tr),
        LinearizedMap: partial(stand_in_jvp, tr),
    }


def solve_transpose_rules(jvp_graph: Callable, transpose_graph: Callable) -> dict[type, Callable]:
    """Transpose rules of the linear solver ops and stand-ins (a root solve is not linear)."""
    tr = Transforms(jvp_graph, transpose_graph)
    return {
        LinearSolve: partial(linear_solve_transpose, tr),
        TransposedMap: partial(stand_in_transpose, tr),
        LinearizedMap: partial(stand_in_transpose, tr),
    }
