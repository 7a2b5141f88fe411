"""JVP rules of the control ops: the same interpreter (jvp_graph) applied to their bodies.

The jvp of a loop is one loop of the jvp'd body over (primals, tangents): constants, carry and
xs gain tangent companions where they have a nonzero tangent. A carry whose tangent starts at
zero but becomes nonzero in the body is found by iterating to a fixpoint, as JAX does. A cond
becomes a cond of the jvp'd branches (an output's tangent is nonzero if any branch's is). A
checkpoint's tangents come from a checkpoint of the jvp'd body over (inputs, saved outputs,
tangents), so reverse mode keeps no intermediate of the body: its transpose recomputes them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

from tf8.lax import effects
from tf8.lax.builders import Tangent, materialize
from tf8.lax.control import call, inline, trace_flat, trace_many
from tf8.lax.core import apply
from tf8.lax.scopes import linear_scope
from tf8.lax.walk import GraphWalk
from tf8.ops import dtypes as dt
from tf8.ops.extension.control import Checkpoint, Cond, Scan, While
from tf8.ops.primitive import Aval
from tf8.traced import TracedTensor

from ..jvp_rules import JvpRule

# The transform the rules apply to their bodies: tf8.ad.linearize's jvp_graph, passed in by
# the module that builds the JVP table from these rules (so they do not import it).
GraphJvp = Callable[[Sequence[TracedTensor], Sequence[TracedTensor], Sequence[Tangent]], list]


def _mask(primals: Sequence[TracedTensor], tangents: Sequence[Tangent]) -> list[bool]:
    return [t is not None and dt.is_inexact(p.dtype) for p, t in zip(primals, tangents)]


def _take(args: list, count: int) -> list:
    taken = args[:count]
    del args[:count]
    return taken


def _with_tangents(primals: list, mask: Sequence[bool], dots: list) -> list[Tangent]:
    it = iter(dots)
    return [next(it) if m else None for m in mask]


def scan_jvp(jvp_graph: GraphJvp, op: Scan, primals, outputs, tangents) -> list[Tangent]:
    body, nc, nk, length, reverse = op.payload
    consts, carry, xs = primals[:nc], primals[nc : nc + nk], primals[nc + nk :]
    mc = _mask(consts, tangents[:nc])
    mk = _mask(carry, tangents[nc : nc + nk])
    mx = _mask(xs, tangents[nc + nk :])
    while True:
        found: dict[str, list[bool]] = {}

        def fun(args: list, mk: list = mk, found: dict = found) -> list:
            args = list(args)
            c, cd = _take(args, nc), _take(args, sum(mc))
            k, kd = _take(args, nk), _take(args, sum(mk))
            x, xd = _take(args, len(xs)), args
            ins = [*c, *k, *x]
            dots = [*_with_tangents(c, mc, cd), *_with_tangents(k, mk, kd)]
            dots += _with_tangents(x, mx, xd)
            outs = call(body, ins)
            touts = jvp_graph(outs, ins, dots)
            found["carry"] = [t is not None for t in touts[:nk]]
            found["ys"] = [t is not None for t in touts[nk:]]
            carry_dots = [materialize(t, o.aval) for t, o, m in zip(touts, outs, mk) if m]
            return [*outs[:nk], *carry_dots, *outs[nk:], *[t for t in touts[nk:] if t is not None]]

        avals = [p.aval for p in consts] + [p.aval for p, m in zip(consts, mc) if m]
        avals += [p.aval for p in carry] + [p.aval for p, m in zip(carry, mk) if m]
        avals += [Aval(x.shape[1:], x.dtype) for x in xs]
        avals += [Aval(x.shape[1:], x.dtype) for x, m in zip(xs, mx) if m]
        program, captures = trace_flat(fun, avals)
        grown = [a or b for a, b in zip(mk, found["carry"])]
        if grown == mk:
            break
        mk = grown
    carry_dots = [materialize(t, p.aval) for p, t, m in zip(carry, tangents[nc : nc + nk], mk) if m]
    operands = [*captures, *consts, *[t for t, m in zip(tangents[:nc], mc) if m]]
    operands += [*carry, *carry_dots, *xs, *[t for t, m in zip(tangents[nc + nk :], mx) if m]]
    new = Scan(program, len(captures) + nc + sum(mc), nk + sum(mk), length, reverse)
    results = apply(new, operands)
    n_ys = len(outputs) - nk
    out_carry_dots = results[nk : nk + sum(mk)]
    out_y_dots = results[nk + sum(mk) + n_ys :]
    return [*_with_tangents([], mk, out_carry_dots), *_with_tangents([], found["ys"], out_y_dots)]


def cond_jvp(jvp_graph: GraphJvp, op: Cond, primals, outputs, tangents) -> list[Tangent]:
    index, ops = primals[0], list(primals[1:])
    m = _mask(ops, tangents[1:])
    dots = [t for t, keep in zip(tangents[1:], m) if keep]
    avals = [p.aval for p in ops] + [t.aval for t in dots]

    def branch_jvp(branch: Any, out_mask: list[bool] | None, found: list) -> Any:
        def fun(args: list) -> list:
            ins, ds = args[: len(ops)], args[len(ops) :]
            outs = call(branch, ins)
            touts = jvp_graph(outs, ins, _with_tangents(ins, m, ds))
            found.append([t is not None for t in touts])
            if out_mask is None:
                return outs
            return [*outs, *[materialize(t, o.aval) for t, o, k in zip(touts, outs, out_mask) if k]]

        return fun

    masks: list[list[bool]] = []
    trace_many([branch_jvp(b, None, masks) for b in op.branches], avals)
    out_mask = [any(col) for col in zip(*masks)]
    programs, captures = trace_many([branch_jvp(b, out_mask, []) for b in op.branches], avals)
    results = apply(Cond(programs), [index, *captures, *ops, *dots])
    return _with_tangents([], out_mask, results[len(outputs) :])


def while_jvp(jvp_graph: GraphJvp, op: While, primals, outputs, tangents) -> list[Tangent]:
    cond, body, n_cond, n_body = op.payload
    cond_consts = list(primals[:n_cond])
    consts, carry = primals[n_cond : n_cond + n_body], primals[n_cond + n_body :]
    mb = _mask(consts, tangents[n_cond : n_cond + n_body])
    mk = _mask(carry, tangents[n_cond + n_body :])
    nk, nb = len(carry), len(consts)
    while True:
        found: list[bool] = []

        def fun(args: list, mk: list = mk, found: list = found) -> list:
            args = list(args)
            c, cd = _take(args, nb), _take(args, sum(mb))
            k, kd = _take(args, nk), args
            ins = [*c, *k]
            outs = call(body, ins)
            touts = jvp_graph(outs, ins, [*_with_tangents(c, mb, cd), *_with_tangents(k, mk, kd)])
            found[:] = [t is not None for t in touts]
            return [*outs, *[materialize(t, o.aval) for t, o, m in zip(touts, outs, mk) if m]]

        avals = [p.aval for p in consts] + [p.aval for p, m in zip(consts, mb) if m]
        avals += [p.aval for p in carry] + [p.aval for p, m in zip(carry, mk) if m]
        body_program, body_captures = trace_flat(fun, avals)
        grown = [a or b for a, b in zip(mk, found)]
        if grown == mk:
            break
        mk = grown
    cond_avals = [p.aval for p in cond_consts] + [p.aval for p in carry]
    cond_avals += [p.aval for p, m in zip(carry, mk) if m]
    cond_program, cond_captures = trace_flat(
        lambda args: call(cond, args[: n_cond + nk]), cond_avals
    )
    carry_dots = [
        materialize(t, p.aval) for p, t, m in zip(carry, tangents[n_cond + nb :], mk) if m
    ]
    body_consts = [*body_captures, *consts, *[t for t, m in zip(tangents[n_cond:], mb) if m]]
    new = While(cond_program, body_program, len(cond_captures) + n_cond, len(body_consts))
    results = apply(new, [*cond_captures, *cond_consts, *body_consts, *carry, *carry_dots])
    return _with_tangents([], mk, results[nk:])


def checkpoint_jvp(
    jvp_graph: GraphJvp, op: Checkpoint, primals, outputs, tangents
) -> list[Tangent]:
    body, hidden, prevent_cse = op.payload
    n, saved = len(primals), list(outputs[len(outputs) - hidden :])
    m = _mask(primals, tangents)
    found: list[bool] = []

    def fun(args: list) -> list:
        ins, kept, dots = args[:n], args[n : n + hidden], args[n + hidden :]
        outs = call(body, ins)
        touts = jvp_graph(outs, ins, _with_tangents(ins, m, dots))
        found[:] = [t is not None for t in touts]
        present = [t for t in touts if t is not None]
        if not hidden or not present:
            return present
        # Read the saved intermediates instead of recomputing them (the tangent ops still
        # came from the whole body, so derivatives through them stay right).
        walk = GraphWalk(present)
        env = {k: walk[k] for k in walk.inputs}
        env.update((o.key, s) for o, s in zip(outs[len(outs) - hidden :], kept))
        with linear_scope(t.key for t in dots):
            return inline(body, env, [t.key for t in present])

    avals = [p.aval for p in primals] + [s.aval for s in saved]
    avals += [p.aval for p, keep in zip(primals, m) if keep]
    program, captures = trace_flat(fun, avals)
    if not any(found):
        return [None] * len(outputs)
    dots = [t for t, keep in zip(tangents, m) if keep]
    results = apply(Checkpoint(program, 0, prevent_cse), [*captures, *primals, *saved, *dots])
    return _with_tangents([], found, results)


def control_jvp_rules(jvp_graph: GraphJvp) -> dict[type, JvpRule]:
    """The control ops' JVP rules, keyed by op class, applying `jvp_graph` to their bodies."""
    rules = {Scan: scan_jvp, Cond: cond_jvp, While: while_jvp, Checkpoint: checkpoint_jvp}
    return {cls: partial(_replaying, rule, jvp_graph) for cls, rule in rules.items()}


def _replaying(rule: Callable, *args: Any) -> Any:
    """A rule whose rebuilt bodies recompute primal values: their effects ran already."""
    with effects.replaying():
        return rule(*args)
