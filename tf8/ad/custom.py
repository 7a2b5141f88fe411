"""stop_gradient, custom_jvp and custom_vjp (JAX's APIs), as extension ops in the graph.

A custom-rule function is traced as usual on stop-gradient'ed inputs (so its own ops carry no
tangents), and its outputs pass through a marker op whose JVP rule is the user's rule. For
custom_vjp the marker's tangent is an opaque linear op whose transpose calls `bwd`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from tf8 import tree
from tf8.errors import DifferentiationError, TreeStructureError
from tf8.lax.builders import materialize
from tf8.lax.core import apply
from tf8.ops.extension import ExtensionOp
from tf8.ops.primitive import Aval

from .arguments import as_traced
from .transforms import shapes_match


class StopGradient(ExtensionOp):
    """Identity whose derivative is zero."""

    family = "tf8.ad.v1"
    name = "stop_gradient"
    stops_derivative = True  # float() of its result is fine under grad, as in JAX

    def infer(self, avals: Sequence[Aval], guards: list) -> tuple[Aval, ...]:
        return (avals[0],)

    def kernel(self, op: ExtensionOp, x: Any) -> Any:
        return x

    def jvp(self, op, primals, outputs, tangents):
        return [None]


def stop_gradient(x: Any) -> Any:
    """x, with derivatives blocked (a pytree of arrays is accepted)."""
    return tree.tree_map(lambda leaf: apply(StopGradient((), 1), [as_traced(leaf)])[0], x)


class _Marker(ExtensionOp):
    """Identity on its first `n_out` inputs; the remaining inputs are the function's arguments."""

    family = "tf8.ad.v1"

    def infer(self, avals: Sequence[Aval], guards: list) -> tuple[Aval, ...]:
        return tuple(avals[: self.output_count])

    def kernel(self, op: ExtensionOp, *arrays: Any) -> Any:
        outs = arrays[: self.output_count]
        return outs[0] if self.output_count == 1 else tuple(outs)

    def _arguments(self, kind: str, primals, tangents) -> tuple[Any, list, list]:
        """(rule holder, the call's arguments, their tangents with zeros materialised);
        refuses tangents that reached the outputs through a closure."""
        holder, _ = self.payload
        n = self.output_count
        _refuse_closures(kind, holder, tangents, n)
        xs = list(primals[n:])
        return holder, xs, [materialize(t, x.aval) for t, x in zip(tangents[n:], xs)]


def _call_with_marker(
    rule_holder: Any, marker_cls: type, fun: Callable, args: Sequence[Any]
) -> Any:
    xs = [as_traced(a) for a in args]
    out = fun(*[stop_gradient(x) for x in xs])
    leaves, treedef = tree.tree_flatten(out)
    leaves = [as_traced(v) for v in leaves]
    marker = marker_cls((rule_holder, treedef), len(leaves) + len(xs), len(leaves))
    marked = apply(marker, [*leaves, *xs])
    return tree.tree_unflatten(treedef, marked)


def _refuse_closures(kind: str, holder: Any, tangents: Sequence[Any], n: int) -> None:
    """A tangent reaching the outputs other than through the arguments came from a closure."""
    if any(t is not None for t in tangents[:n]):
        raise DifferentiationError(
            f"{kind} function {holder.__name__} closes over a value that is being "
            "differentiated; its rule cannot see that dependence. Pass the value as an "
            "argument instead (JAX raises here too)"
        )


class _JvpMarker(_Marker):
    name = "custom_jvp_call"

    def jvp(self, op, primals, outputs, tangents):
        holder, xs, ts = self._arguments("custom_jvp", primals, tangents)
        treedef = self.payload[1]
        result = holder.jvp_rule(tuple(xs), tuple(ts))
        if not (isinstance(result, tuple) and len(result) == 2):
            raise DifferentiationError("a custom_jvp rule must return (primal_out, tangent_out)")
        t_leaves, t_def = tree.tree_flatten(result[1])
        if t_def != treedef:
            raise TreeStructureError(
                f"custom_jvp rule returned tangents {t_def}, expected {treedef}"
            )
        return [as_traced(t) for t in t_leaves]


class custom_jvp:  # noqa: N801 - JAX's name
    """A function with a user-defined JVP rule: `@f.defjvp def f_jvp(primals, tangents)`."""

    def __init__(self, fun: Callable) -> None:
        self.fun = fun
        self.jvp_rule: Callable | None = None
        self.__name__ = getattr(fun, "__name__", "custom_jvp")
        self.__doc__ = getattr(fun, "__doc__", None)

    def defjvp(self, jvp_rule: Callable) -> Callable:
        self.jvp_rule = jvp_rule
        return jvp_rule

    def __call__(self, *args: Any) -> Any:
        if self.jvp_rule is None:
            raise DifferentiationError(
                f"custom_jvp function {self.__name__} has no rule (use @f.defjvp)"
            )
        return _call_with_marker(self, _JvpMarker, self.fun, args)


class _VjpCall:
    """One custom_vjp call's residuals (hashed by identity: each call is its own op)."""

    def __init__(self, holder: Any, residuals: Any, out_avals: tuple[Aval, ...]) -> None:
        self.holder, self.residuals, self.out_avals = holder, residuals, out_avals

    def __repr__(self) -> str:
        return f"<custom_vjp call of {self.holder.__name__}>"


class _VjpLinear(ExtensionOp):
    """The tangent map of a custom_vjp call: opaque, linear; its transpose is `bwd`."""

    family = "tf8.ad.v1"
    name = "custom_vjp_linear"

    def infer(self, avals: Sequence[Aval], guards: list) -> tuple[Aval, ...]:
        return self.payload[0].out_avals

    def kernel(self, op: ExtensionOp, *arrays: Any) -> Any:
        raise DifferentiationError(
            "forward mode (jvp) of a custom_vjp function is not supported; use custom_jvp"
        )

    def transpose(self, op, operands, linear, ct):
        call = self.payload[0]
        cts = ct if isinstance(ct, (list, tuple)) else [ct]
        cts = [materialize(c, aval) for c, aval in zip(cts, call.out_avals)]
        out_ct = cts[0] if len(cts) == 1 else tuple(cts)
        result = call.holder.bwd(call.residuals, out_ct)
        if not isinstance(result, tuple):
            raise TreeStructureError(
                "custom_vjp bwd must return a tuple with one cotangent per argument, "
                f"got {type(result).__name__}"
            )
        leaves, result_def = tree.tree_flatten(list(result))
        if len(result) != len(operands) or len(leaves) != len(operands):
            raise TreeStructureError(
                f"custom_vjp bwd returned {len(result)} cotangent(s) "
                f"for {len(operands)} argument(s)"
            )
        out = []
        for leaf, x in zip(leaves, operands):
            leaf = as_traced(leaf)
            if not shapes_match(leaf.shape, x.shape):
                raise TreeStructureError(
                    f"custom_vjp bwd cotangent shape {leaf.shape} != argument shape {x.shape}"
                )
            out.append(leaf)
        return out


class _VjpMarker(_Marker):
    name = "custom_vjp_call"

    def jvp(self, op, primals, outputs, tangents):
        holder, xs, ts = self._arguments("custom_vjp", primals, tangents)
        fwd_out = holder.fwd(*xs)
        if not (isinstance(fwd_out, tuple) and len(fwd_out) == 2):
            raise DifferentiationError("custom_vjp fwd must return (output, residuals)")
        _, residuals = fwd_out
        out_avals = tuple(o.aval for o in outputs)
        call = _VjpCall(holder, residuals, out_avals)
        linear = _VjpLinear((call,), len(ts), self.output_count)
        return apply(linear, ts)


class custom_vjp:  # noqa: N801 - JAX's name
    """A function with a user-defined VJP: `f.defvjp(fwd, bwd)` (JAX's signatures)."""

    def __init__(self, fun: Callable) -> None:
        self.fun = fun
        self.fwd: Callable | None = None
        self.bwd: Callable | None = None
        self.__name__ = getattr(fun, "__name__", "custom_vjp")

    def defvjp(self, fwd: Callable, bwd: Callable) -> None:
        self.fwd, self.bwd = fwd, bwd

    def __call__(self, *args: Any) -> Any:
        if self.fwd is None or self.bwd is None:
            raise DifferentiationError(
                f"custom_vjp function {self.__name__} has no rules (use f.defvjp)"
            )
        return _call_with_marker(self, _VjpMarker, self.fun, args)
