"""stop_gradient, custom_jvp and custom_vjp (JAX's APIs), as extension ops in the graph.

A custom-rule function is traced as usual on stop-gradient'ed inputs (so its own ops carry no
tangents), and its outputs pass through a marker op whose JVP rule is the user's rule. For
custom_vjp the marker's tangent is an opaque linear op whose transpose calls `bwd`
(tf8.ad.custom_linear). Under vmap a marker batches with the user's rule functions themselves
vmapped (they are per-example).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from tf8 import tree
from tf8.errors import DifferentiationError, TreeStructureError
from tf8.lax.builders import materialize, reduce_sum
from tf8.lax.core import apply
from tf8.lax.stop import StopGradient, stop_gradient  # noqa: F401 - tf8.ad's names too
from tf8.ops.extension import ExtensionOp
from tf8.ops.primitive import Aval

from .arguments import as_traced, check_callable
from .batching.core import at_front, batch_size, moveaxis
from .batching.vmap import vmap
from .custom_linear import tangent_map
from .transforms import jvp


class _Marker(ExtensionOp):
    """Identity on its first `n_out` inputs; the remaining inputs are the function's arguments."""

    family = "tf8.ad.v1"
    # Each call is its own op, holding the call's arguments: the caches keyed by op (eager
    # plans, the tape's derived rules) never hit it, so they do not keep it (and its arrays).
    per_call = True

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

    def batch(self, op: ExtensionOp, args, dims):
        """The marker over the batched outputs and arguments (batch axis in front), its rules
        vmapped over the examples."""
        site, treedef = op.payload
        n = op.output_count
        size = batch_size(args, dims)
        outs = [at_front(x, d, size) for x, d in zip(args[:n], dims[:n])]
        xs = [x if d is None else moveaxis(x, d, 0) for x, d in zip(args[n:], dims[n:])]
        x_dims = tuple(None if d is None else 0 for d in dims[n:])
        marker = type(op)((_BatchedRules(site, x_dims, size), treedef), op.input_count, n)
        return apply(marker, [*outs, *xs]), [0] * n


class _CallSite:
    """One call of a custom-rule function: its arguments with keywords resolved to positions,
    the `nondiff_argnums` ones held aside as plain Python values, and the others flattened to
    array leaves (pytrees are accepted). Hashed by identity: each call is its own op."""

    def __init__(self, holder: Any, args: Sequence[Any], kwargs: dict) -> None:
        self.holder = holder
        args = _resolve_keywords(holder, args, kwargs)
        for i in holder.nondiff_argnums:
            if not -len(args) <= i < len(args):
                raise DifferentiationError(
                    f"{holder.__name__}: nondiff_argnums {holder.nondiff_argnums} out of range "
                    f"for {len(args)} argument(s)"
                )
        self.static = {i % len(args): args[i] for i in holder.nondiff_argnums}
        self.count = len(args)
        diff = [a for i, a in enumerate(args) if i not in self.static]
        self.leaves, self.in_tree = tree.tree_flatten(diff)
        self.arg_sizes = [len(tree.tree_leaves(a)) for a in diff]

    @property
    def __name__(self) -> str:
        return self.holder.__name__

    def __repr__(self) -> str:
        return f"<call of {self.holder.__name__}>"

    def nondiff(self) -> list[Any]:
        """The nondiff_argnums arguments, in order (rules receive them first, as in JAX)."""
        return [self.static[i] for i in sorted(self.static)]

    def differentiable(self, flat: Sequence[Any]) -> list[Any]:
        """The differentiable arguments rebuilt from flat leaves (pytrees restored)."""
        return list(tree.tree_unflatten(self.in_tree, list(flat)))

    def arguments(self, flat: Sequence[Any]) -> list[Any]:
        """Every argument, in the call's order, from the differentiable ones' flat leaves."""
        diff = iter(self.differentiable(flat))
        return [self.static[i] if i in self.static else next(diff) for i in range(self.count)]

    # The rules on flat leaves (what the markers, and their batched forms, call).

    def jvp(self, xs: Sequence[Any], ts: Sequence[Any]) -> Any:
        """The custom_jvp rule's (primal_out, tangent_out) at these leaves."""
        primals, tangents = tuple(self.differentiable(xs)), tuple(self.differentiable(ts))
        return self.holder.jvp_rule(*self.nondiff(), primals, tangents)

    def fwd(self, *xs: Any) -> Any:
        """The custom_vjp fwd's (output, residuals) at these leaves."""
        return self.holder.fwd(*self.arguments(xs))

    def bwd(self, residuals: Any, ct: Any) -> list[Any]:
        """bwd's cotangents as one entry per leaf (None: zero), its structure checked."""
        result = self.holder.bwd(*self.nondiff(), residuals, ct)
        if not isinstance(result, (tuple, list)):
            raise TreeStructureError(
                "custom_vjp bwd must return a tuple with one cotangent per argument, "
                f"got {type(result).__name__}"
            )
        if len(result) != len(self.arg_sizes):
            raise TreeStructureError(
                f"custom_vjp bwd of {self.__name__} returned {len(result)} cotangent(s) for "
                f"{len(self.arg_sizes)} argument(s) (those not in nondiff_argnums)"
            )
        leaves: list[Any] = []
        for position, (entry, size) in enumerate(zip(result, self.arg_sizes)):
            # None stands for a zero cotangent (a whole argument or a leaf), as in JAX
            parts = [None] * size if entry is None else tree.tree_leaves(entry, is_leaf=_none)
            if len(parts) != size:
                raise TreeStructureError(
                    f"custom_vjp bwd of {self.__name__}: cotangent {position} has {len(parts)} "
                    f"leaves, its argument {size}"
                )
            leaves.extend(parts)
        return leaves


@dataclass(frozen=True)
class _BatchedRules:
    """A custom_jvp/custom_vjp call whose rules (on flat argument leaves) run vmapped over
    `size` examples; `dims` says which leaves are batched (along axis 0)."""

    site: Any
    dims: tuple[int | None, ...]
    size: Any

    @property
    def __name__(self) -> str:  # messages name the user's function
        return self.site.__name__

    def _vmap(self, fun, in_axes, out_axes: Any = 0):
        return vmap(fun, in_axes=in_axes, out_axes=out_axes, axis_size=self.size)

    def jvp(self, xs: Any, ts: Any) -> Any:
        return self._vmap(self.site.jvp, (self.dims, self.dims))(tuple(xs), tuple(ts))

    def fwd(self, *xs: Any) -> Any:
        return self._vmap(self.site.fwd, self.dims)(*xs)

    def bwd(self, residuals: Any, ct: Any) -> list[Any]:
        cts = self._vmap(self.site.bwd, (0, 0))(residuals, ct)
        # An unbatched leaf's cotangent sums over the examples; None stays a zero.
        return [
            c if c is None or d is not None else reduce_sum(as_traced(c), (0,))
            for c, d in zip(cts, self.dims)
        ]


def _none(leaf: Any) -> bool:
    return leaf is None


def _resolve_keywords(holder: Any, args: Sequence[Any], kwargs: dict) -> list[Any]:
    """Keyword arguments moved to their positions (JAX's custom rules take positions)."""
    if not kwargs:
        return list(args)
    try:
        bound = inspect.signature(holder.fun).bind(*args, **kwargs)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{holder.__name__}: {exc}") from None
    bound.apply_defaults()
    if bound.kwargs:
        raise TypeError(
            f"{holder.__name__}: keyword-only arguments {sorted(bound.kwargs)} cannot be "
            "resolved to positions; pass them positionally"
        )
    return list(bound.args)


def _call_with_marker(holder: Any, marker_cls: type, args: Sequence[Any], kwargs: dict) -> Any:
    site = _CallSite(holder, args, kwargs)
    xs = [as_traced(a) for a in site.leaves]
    out = holder.fun(*site.arguments([stop_gradient(x) for x in xs]))
    leaves, treedef = tree.tree_flatten(out)
    leaves = [as_traced(v) for v in leaves]
    marker = marker_cls((site, treedef), len(leaves) + len(xs), len(leaves))
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
        site, xs, ts = self._arguments("custom_jvp", primals, tangents)
        treedef = self.payload[1]
        result = site.jvp(xs, ts)
        if not (isinstance(result, tuple) and len(result) == 2):
            raise DifferentiationError("a custom_jvp rule must return (primal_out, tangent_out)")
        t_leaves, t_def = tree.tree_flatten(result[1])
        if t_def != treedef:
            raise TreeStructureError(
                f"custom_jvp rule returned tangents {t_def}, expected {treedef}"
            )
        return [as_traced(t) for t in t_leaves]


class custom_jvp:  # noqa: N801 - JAX's name
    """A function with a user-defined JVP rule: `@f.defjvp def f_jvp(primals, tangents)`, or
    one tangent function per argument with `f.defjvps`. Arguments may be pytrees and may be
    passed by keyword; `nondiff_argnums` arguments are plain Python values passed to the rule
    first (`f_jvp(*nondiff, primals, tangents)`), as in JAX."""

    def __init__(self, fun: Callable, nondiff_argnums: Sequence[int] = ()) -> None:
        check_callable(fun, "custom_jvp")
        self.fun = fun
        self.nondiff_argnums = tuple(nondiff_argnums)
        self.jvp_rule: Callable | None = None
        self.__name__ = getattr(fun, "__name__", "custom_jvp")
        self.__doc__ = getattr(fun, "__doc__", None)

    def defjvp(self, jvp_rule: Callable) -> Callable:
        self.jvp_rule = jvp_rule
        return jvp_rule

    def defjvps(self, *tangent_fns: Callable | None) -> None:
        """One function per differentiable argument, `fn(tangent, primal_out, *primals)`, giving
        that argument's contribution to the output tangent (None: no contribution); they add."""
        if self.nondiff_argnums:
            raise DifferentiationError("defjvps does not combine with nondiff_argnums (as JAX)")

        def rule(primals: tuple, tangents: tuple) -> tuple[Any, Any]:
            out = self.fun(*primals)
            total = None
            for fn, t in zip(tangent_fns, tangents):
                if fn is None:
                    continue
                part = fn(t, out, *primals)
                total = part if total is None else tree.tree_map(lambda a, b: a + b, total, part)
            if total is None:
                total = tree.tree_map(lambda o: o * 0, out)
            return out, total

        self.jvp_rule = rule

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self.jvp_rule is None:
            raise DifferentiationError(
                f"custom_jvp function {self.__name__} has no rule (use @f.defjvp)"
            )
        return _call_with_marker(self, _JvpMarker, args, kwargs)


class _VjpMarker(_Marker):
    name = "custom_vjp_call"

    def jvp(self, op, primals, outputs, tangents):
        site, xs, ts = self._arguments("custom_vjp", primals, tangents)
        fwd_out = site.fwd(*xs)
        if not (isinstance(fwd_out, tuple) and len(fwd_out) == 2):
            raise DifferentiationError("custom_vjp fwd must return (output, residuals)")
        out_avals = tuple(o.aval for o in outputs)
        return tangent_map(site, fwd_out[1], ts, out_avals, self.payload[1])

    def forward_under_reverse(self, op, primals, outputs, tangents):
        """The outputs' tangents when a reverse transform inside this forward one also
        differentiates the call: the tangent of `fwd`'s primal output (JAX: the higher trace
        runs `fwd`, whose ops the lower one differentiates), so `jvp(grad(f))` works."""
        site, xs, ts = self._arguments("custom_vjp", primals, tangents)

        def primal(*args: Any) -> tuple:
            out = site.fwd(*args)
            if not (isinstance(out, tuple) and len(out) == 2):
                raise DifferentiationError("custom_vjp fwd must return (output, residuals)")
            return tuple(tree.tree_leaves(out[0]))

        return list(jvp(primal, tuple(xs), tuple(ts))[1])


class custom_vjp:  # noqa: N801 - JAX's name
    """A function with a user-defined VJP: `f.defvjp(fwd, bwd)` (JAX's signatures: fwd takes
    f's arguments, bwd(*nondiff, residuals, g) returns one cotangent per differentiable
    argument, None for a zero one). Arguments may be pytrees and be passed by keyword."""

    def __init__(self, fun: Callable, nondiff_argnums: Sequence[int] = ()) -> None:
        check_callable(fun, "custom_vjp")
        self.fun = fun
        self.nondiff_argnums = tuple(nondiff_argnums)
        self.fwd: Callable | None = None
        self.bwd: Callable | None = None
        self.__name__ = getattr(fun, "__name__", "custom_vjp")
        self.__doc__ = getattr(fun, "__doc__", None)

    def defvjp(self, fwd: Callable, bwd: Callable) -> None:
        self.fwd, self.bwd = fwd, bwd

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self.fwd is None or self.bwd is None:
            raise DifferentiationError(
                f"custom_vjp function {self.__name__} has no rules (use f.defvjp)"
            )
        return _call_with_marker(self, _VjpMarker, args, kwargs)
