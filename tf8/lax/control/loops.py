"""scan, fori_loop, while_loop and map with JAX's signatures and semantics.

Bodies are traced into closed sub-programs (tf8.lax.control.closure) — also outside jit, so
results equal jit's — and one control op stands for the whole loop in the outer graph.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable
from typing import Any

import numpy as np

from tf8 import tree
from tf8.errors import ControlFlowTypeError, ParameterError, ShapeError
from tf8.lax.builders import compare, convert
from tf8.ops.extension.control import Scan, While
from tf8.ops.primitive import Aval
from tf8.ops.tracebacks import api_boundary
from tf8.traced import TracedTensor

from .checks import (
    as_operand,
    check_callable,
    check_same_types,
    describe,
    flatten,
    leaf_paths,
    promote_weak,
    weak_like,
)
from .closure import Closure

_IO = ("the input carry", "the corresponding output carry")


def _carry_header(kind: str, body: Callable) -> str:
    return (
        f"{kind} body_fun's carry input and carry output must have identical types, but they "
        f"differ ({describe(body, 'body_fun')}):"
    )


def _scan_length(xs_leaves: list[TracedTensor], xs_def: Any, length: int | None) -> int:
    for path, x in zip(leaf_paths(xs_def), xs_leaves):
        if not x.shape:
            raise ShapeError(f"scan: xs{path} is a scalar ({x.aval}); xs leaves need an axis 0")
    sizes = [x.shape[0] for x in xs_leaves]
    if length is not None:
        length = int(length)
        bad = [(p, s) for p, s in zip(leaf_paths(xs_def), sizes) if s != length]
        if bad:
            raise ShapeError(
                f"scan got length={length} but xs{bad[0][0]} has leading axis size {bad[0][1]}"
            )
        return length
    if not sizes:
        raise ParameterError("scan got no xs and no length: pass xs, or length=n")
    if len(set(sizes)) > 1:
        listing = ", ".join(f"xs{p}: {s}" for p, s in zip(leaf_paths(xs_def), sizes))
        raise ShapeError(f"scan got xs leaves with different leading axis sizes ({listing})")
    return int(sizes[0])


@api_boundary
def scan(
    f: Callable[[Any, Any], tuple[Any, Any]],
    init: Any,
    xs: Any = None,
    length: int | None = None,
    reverse: bool = False,
    unroll: int | bool = 1,
) -> tuple[Any, Any]:
    """Loop `f(carry, x) -> (carry, y)` over the leading axis of `xs`; returns (carry, ys)."""
    check_callable("scan", ("f", f))
    inits, carry_def = flatten(init)
    xs_leaves, xs_def = flatten(xs)
    n = _scan_length(xs_leaves, xs_def, length)
    x_avals = [Aval(x.shape[1:], x.dtype) for x in xs_leaves]
    while True:
        closure = Closure()
        carry = closure.arguments([t.aval for t in inits], [t._weak for t in inits])
        x_args = closure.arguments(x_avals, start=len(inits))
        y_def: list[Any] = []

        def body(
            carry: list = carry,
            x_args: list = x_args,
            y_def: list = y_def,
            closure: Closure = closure,
        ) -> list:
            out = f(tree.tree_unflatten(carry_def, carry), tree.tree_unflatten(xs_def, x_args))
            if not (isinstance(out, tuple) and len(out) == 2):
                raise ControlFlowTypeError(
                    f"scan body must return a (carry, y) pair, got {type(out).__name__}"
                )
            new_carry, new_def = flatten(out[0])
            ys, ys_def = flatten(out[1])
            y_def[:] = [new_def, ys_def, len(new_carry)]
            if not new_carry and not ys:  # only effects (lax.map of a print): their token
                ys = closure.effect_token()
            return closure.close([*carry, *x_args], [*new_carry, *ys])

        outs = closure.trace(body)
        new_def, ys_def, n_carry = y_def
        carry_out = [t.aval for t in outs[:n_carry]]
        if new_def == carry_def and promote_weak(inits, carry_out):
            continue
        check_same_types(
            carry_def, [t.aval for t in inits], new_def, carry_out, _carry_header("scan", f), *_IO
        )
        break
    program = closure.program([*carry, *x_args], outs)
    if not outs:
        return tree.tree_unflatten(carry_def, inits), tree.tree_unflatten(ys_def, [])
    op = Scan(program, len(closure.outer), len(inits), n, reverse)
    results = weak_like(closure.apply(op, [*closure.outer, *inits, *xs_leaves]), [outs])
    return (
        tree.tree_unflatten(carry_def, results[: len(inits)]),
        tree.tree_unflatten(ys_def, results[len(inits) : len(inits) + ys_def.num_leaves]),
    )


@api_boundary
def while_loop(
    cond_fun: Callable[[Any], Any], body_fun: Callable[[Any], Any], init_val: Any
) -> Any:
    """`while cond_fun(carry): carry = body_fun(carry)`; forward-mode differentiable only."""
    check_callable("while_loop", ("cond_fun", cond_fun), ("body_fun", body_fun))
    inits, carry_def = flatten(init_val)
    while True:
        body_closure = Closure()
        carry = body_closure.arguments([t.aval for t in inits], [t._weak for t in inits])
        defs: list[Any] = []

        def body(carry: list = carry, defs: list = defs, closure: Closure = body_closure) -> list:
            out, out_def = flatten(body_fun(tree.tree_unflatten(carry_def, carry)))
            defs[:] = [out_def]
            return closure.close(carry, out)

        outs = body_closure.trace(body)
        out_avals = [t.aval for t in outs]
        if defs[0] == carry_def and promote_weak(inits, out_avals):
            continue
        check_same_types(
            carry_def,
            [t.aval for t in inits],
            defs[0],
            out_avals,
            _carry_header("while_loop", body_fun),
            *_IO,
        )
        break
    cond_closure = Closure()
    cond_carry = cond_closure.arguments([t.aval for t in inits], [t._weak for t in inits])

    def predicate() -> list:
        pred = as_operand(cond_fun(tree.tree_unflatten(carry_def, cond_carry)))
        if pred.shape != () or pred.dtype != np.bool_:
            raise ControlFlowTypeError(
                f"while_loop cond_fun must return a boolean scalar, got {pred.aval}"
            )
        return cond_closure.close(cond_carry, [pred])

    pred = cond_closure.trace(predicate)
    op = While(
        cond_closure.program(cond_carry, pred),
        body_closure.program(carry, outs),
        len(cond_closure.outer),
        len(body_closure.outer),
    )
    body_closure.scopes += cond_closure.scopes  # (either body's effects)
    results = body_closure.apply(op, [*cond_closure.outer, *body_closure.outer, *inits])
    return tree.tree_unflatten(carry_def, weak_like(results, [outs]))


def _static_int(value: Any) -> int | None:
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        return int(value)
    if isinstance(value, np.ndarray) and value.ndim == 0 and value.dtype.kind in "iu":
        return int(value)
    if isinstance(value, TracedTensor) and value._value is not None and value.shape == ():
        if value.dtype.kind in "iu":
            return int(value._value)
    return None


@api_boundary
def fori_loop(lower: Any, upper: Any, body_fun: Callable[[Any, Any], Any], init_val: Any) -> Any:
    """`for i in range(lower, upper): val = body_fun(i, val)`. Static bounds lower to scan
    (reverse-mode differentiable); traced bounds to while_loop (forward mode only)."""
    check_callable("fori_loop", ("body_fun", body_fun))
    bounds = as_operand(lower), as_operand(upper)
    if not any(t._weak for t in bounds) and bounds[0].dtype != bounds[1].dtype:
        raise ControlFlowTypeError(  # as JAX: no promotion between the bounds
            f"fori_loop: lower and upper must have one dtype, got {bounds[0].dtype} and "
            f"{bounds[1].dtype}"
        )
    lo, hi = _static_int(lower), _static_int(upper)
    if lo is not None and hi is not None:
        start = as_operand(np.asarray(lo, np.int64))
        start._weak = True

        def step(carry: tuple, _: Any) -> tuple:
            i, val = carry
            return (i + 1, body_fun(i, val)), None

        (_, result), _ = scan(step, (start, init_val), length=builtins.max(hi - lo, 0))
        return result
    lower_t, upper_t = as_operand(lower), as_operand(upper)
    dtype = np.result_type(lower_t.dtype, upper_t.dtype)
    lower_t, upper_t = convert(lower_t, dtype), convert(upper_t, dtype)

    def body(carry: tuple) -> tuple:
        i, val = carry
        return i + 1, body_fun(i, val)

    _, result = while_loop(lambda c: compare(c[0], upper_t, "lt"), body, (lower_t, init_val))
    return result


@api_boundary
def map(f: Callable[[Any], Any], xs: Any) -> Any:  # noqa: A001 - JAX's name
    """`f` applied to each slice of `xs` along axis 0, results stacked (a scan, no carry)."""
    check_callable("map", ("f", f))
    _, ys = scan(lambda carry, x: ((), f(x)), (), xs)
    return ys
