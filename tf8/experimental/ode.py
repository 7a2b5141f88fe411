"""odeint (JAX's `jax.experimental.ode.odeint`; also `tf8.scipy.integrate.odeint`): adaptive
Dormand–Prince integration whose gradient is the adjoint method, a custom_vjp integrating the
augmented system backwards in time.

The state pytree is raveled into one vector, `func` is closure-converted (values it closes
over become arguments, so gradients reach them), and the solver is `tf8.experimental.dopri5`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

import tf8.numpy as tnp
from tf8 import lax, tree
from tf8.ad import custom_vjp, vjp
from tf8.errors import DTypeError, ShapeError, TreeStructureError
from tf8.lax.control import call, trace_flat
from tf8.ops.frames import current
from tf8.traced import TracedTensor

from . import dopri5

__all__ = ["odeint"]

FlatFunc = Callable[..., TracedTensor]


def odeint(
    func: Callable[..., Any],
    y0: Any,
    t: Any,
    *args: Any,
    rtol: float = 1.4e-8,
    atol: float = 1.4e-8,
    mxstep: float = np.inf,
    hmax: float = np.inf,
) -> Any:
    """Solve dy/dt = func(y, t, *args) from y(t[0]) = y0; returns y at each time of `t`
    (strictly increasing), each leaf of `y0` with a new leading axis of length len(t).

    JAX's signature and defaults; `func(y, t, *args)` is also scipy's default order
    (`tfirst=False`), so scipy/autograd code ports as is, though scipy's `args=(...)` keyword
    becomes positional `*args` and tolerances are dopri5's, not LSODA's. `mxstep` caps the
    steps per output time and `hmax` the step size. Reverse-mode differentiable with respect
    to y0, t, args and values `func` closes over (adjoint method); forward mode is not.
    """
    ts = _times(t)
    y_leaves, y_def = _state_leaves(y0)
    arg_leaves, args_def = _argument_leaves(args)
    y_flat, unravel = _ravel(y_leaves, y_def)

    def flat_func(y: TracedTensor, t: TracedTensor, *leaves: TracedTensor) -> TracedTensor:
        out = func(unravel(y), t, *tree.tree_unflatten(args_def, leaves))
        out_leaves, out_def = tree.tree_flatten(out)
        if out_def != y_def:
            raise TreeStructureError(f"odeint: func returned {out_def}, expected y0's {y_def}")
        out_leaves = [tnp.asarray(leaf) for leaf in out_leaves]
        for got, want in zip(out_leaves, y_leaves):
            if got.shape != want.shape:
                raise ShapeError(f"odeint: func returned shape {got.shape}, y0 has {want.shape}")
        return _concatenate([leaf.astype(y_flat.dtype) for leaf in out_leaves])

    converted, consts = _closure_convert(flat_func, [y_flat, ts[0], *arg_leaves])
    solve = _solver(converted, rtol, atol, mxstep, hmax)
    ys = solve(y_flat, ts, *arg_leaves, *consts)
    return _unravel_rows(ys, y_leaves, y_def)


def _times(t: Any) -> TracedTensor:
    ts = t if isinstance(t, TracedTensor) else tnp.asarray(t)
    if ts.ndim != 1 or ts.shape[0] == 0:
        raise ShapeError(f"odeint: t must be a non-empty 1-d array of times, got shape {ts.shape}")
    if ts.dtype.kind != "f":
        raise DTypeError(f"odeint: t must be an array of floats, got dtype {ts.dtype}")
    return ts


def _state_leaves(y0: Any) -> tuple[list[TracedTensor], tree.PyTreeDef]:
    leaves, y_def = tree.tree_flatten(y0)
    leaves = [tnp.asarray(leaf) for leaf in leaves]
    if not leaves:
        raise TreeStructureError("odeint: y0 has no arrays")
    for leaf in leaves:
        if leaf.dtype.kind != "f":
            raise DTypeError(
                f"odeint: y0 must hold real floating arrays, got dtype {leaf.dtype} "
                "(integrate a float copy, e.g. y0.astype(float))"
            )
    return leaves, y_def


def _argument_leaves(args: tuple) -> tuple[list[TracedTensor], tree.PyTreeDef]:
    leaves, args_def = tree.tree_flatten(args)
    out = []
    for leaf in leaves:
        if not isinstance(leaf, (TracedTensor, np.ndarray, np.generic, bool, int, float)):
            raise DTypeError(
                f"odeint: the contents of *args must be arrays or scalars, got {type(leaf)}"
            )
        out.append(tnp.asarray(leaf))
    return out, args_def


def _concatenate(leaves: list[TracedTensor]) -> TracedTensor:
    flat = [leaf.reshape(-1) for leaf in leaves]
    return flat[0] if len(flat) == 1 else tnp.concatenate(flat)


def _ravel(
    leaves: list[TracedTensor], y_def: tree.PyTreeDef
) -> tuple[TracedTensor, Callable[[TracedTensor], Any]]:
    """(one vector of the leaves in their common dtype, its inverse)."""
    dtype = np.result_type(*[leaf.dtype for leaf in leaves])
    flat = _concatenate([leaf.astype(dtype) for leaf in leaves])
    sizes = [int(np.prod(leaf.shape)) for leaf in leaves]
    offsets = np.cumsum([0, *sizes])

    def unravel(vector: TracedTensor) -> Any:
        parts = [
            vector[start:stop].reshape(leaf.shape).astype(leaf.dtype)
            for start, stop, leaf in zip(offsets[:-1], offsets[1:], leaves)
        ]
        return tree.tree_unflatten(y_def, parts)

    return flat, unravel


def _unravel_rows(ys: TracedTensor, leaves: list[TracedTensor], y_def: tree.PyTreeDef) -> Any:
    offsets = np.cumsum([0, *[int(np.prod(leaf.shape)) for leaf in leaves]])
    parts = [
        ys[:, start:stop].reshape((ys.shape[0], *leaf.shape)).astype(leaf.dtype)
        for start, stop, leaf in zip(offsets[:-1], offsets[1:], leaves)
    ]
    return tree.tree_unflatten(y_def, parts)


def _closure_convert(
    func: FlatFunc, example: list[TracedTensor]
) -> tuple[FlatFunc, list[TracedTensor]]:
    """(func taking the traced values it closes over as trailing arguments, those values).

    As JAX's closure_convert, only traced values (followed by a transform, or known only when
    the program runs) become arguments; a plain constant (the 0.1 of `-0.1 * y`) stays inside,
    so the adjoint does not integrate a cotangent for it (which would change its step sizes)."""
    program, consts = trace_flat(lambda xs: [func(*xs)], [x.aval for x in example])
    frame = current()
    traced = [
        c._value is None or frame.follows(c) or frame.differentiated(c.key) is not None
        for c in consts
    ]
    count = sum(traced)

    def converted(y: TracedTensor, t: TracedTensor, *rest: TracedTensor) -> TracedTensor:
        arguments, hoisted = rest[: len(rest) - count], iter(rest[len(rest) - count :])
        captured = [next(hoisted) if is_traced else c for c, is_traced in zip(consts, traced)]
        return call(program, [*captured, y, t, *arguments])[0]

    return converted, [c for c, is_traced in zip(consts, traced) if is_traced]


def _solver(func: FlatFunc, rtol: float, atol: float, mxstep: float, hmax: float) -> custom_vjp:
    """solve(y0, ts, *args) -> ys, differentiated by the adjoint method."""

    def forward(y0: TracedTensor, ts: TracedTensor, *args: TracedTensor) -> TracedTensor:
        return dopri5.integrate(lambda y, t: func(y, t, *args), y0, ts, rtol, atol, mxstep, hmax)

    solve = custom_vjp(forward)

    def solve_fwd(y0: TracedTensor, ts: TracedTensor, *args: TracedTensor) -> tuple:
        # `solve`, not `forward` (as JAX's odeint): a reverse pass over the backward pass
        # (vjp of vjp) then differentiates the residual ys by the adjoint too, not through
        # the integrator's while_loop
        ys = solve(y0, ts, *args)
        return ys, (ys, ts, args)

    def solve_bwd(residuals: tuple, g: TracedTensor) -> tuple:
        ys, ts, args = residuals
        return adjoint(func, ys, ts, args, g, rtol, atol, mxstep, hmax)

    solve.defvjp(solve_fwd, solve_bwd)
    return solve


def adjoint(
    func: FlatFunc,
    ys: TracedTensor,
    ts: TracedTensor,
    args: tuple,
    g: TracedTensor,
    rtol: float,
    atol: float,
    mxstep: float,
    hmax: float,
) -> tuple:
    """(y0_bar, ts_bar, *args_bar): the augmented system (y, a = y_bar, t_bar, args_bar)
    integrated backwards between consecutive output times, in negated time (Chen et al.
    2018, appendix C); integer args get zero cotangents."""
    floating = [a.dtype.kind == "f" for a in args]

    def with_floats(floats: tuple) -> list:
        it = iter(floats)
        return [next(it) if is_float else a for a, is_float in zip(args, floating)]

    def augmented(state: tuple, minus_t: TracedTensor, *floats: TracedTensor) -> tuple:
        y, y_bar, _, _ = state
        y_dot, pullback = vjp(lambda y, t, *fs: func(y, t, *with_floats(fs)), y, -minus_t, *floats)
        y_cot, t_cot, *float_cots = pullback(y_bar)
        return -y_dot, y_cot, t_cot, tuple(float_cots)

    float_args = tuple(a for a, is_float in zip(args, floating) if is_float)

    def back(carry: tuple, x: tuple) -> tuple:
        y_bar, t0_bar, args_bar = carry
        y_i, t_i, t_before, g_i, g_before = x
        t_bar = tnp.dot(func(y_i, t_i, *args), g_i).astype(ts.dtype)
        t0_bar = t0_bar - t_bar
        _, y_bar, t0_bar, args_bar = odeint(
            augmented,
            (y_i, y_bar, t0_bar, args_bar),
            tnp.stack([-t_i, -t_before]),
            *float_args,
            rtol=rtol,
            atol=atol,
            mxstep=mxstep,
            hmax=hmax,
        )
        args_bar = tuple(a[1] for a in args_bar)
        return (y_bar[1] + g_before, t0_bar[1], args_bar), t_bar

    init = (g[-1], tnp.zeros((), ts.dtype), tuple(tnp.zeros_like(a) for a in float_args))
    xs = (ys[1:], ts[1:], ts[:-1], g[1:], g[:-1])
    (y_bar, t0_bar, float_bars), t_bars = lax.scan(back, init, xs, reverse=True)
    it = iter(float_bars)
    args_bar = [next(it) if is_float else tnp.zeros_like(a) for a, is_float in zip(args, floating)]
    return (y_bar, tnp.concatenate([t0_bar[None], t_bars]), *args_bar)
