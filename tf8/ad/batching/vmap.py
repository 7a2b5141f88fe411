"""vmap: JAX's vectorising map, as one more rule table on the one interpreter.

`fun` is traced once on per-example leaves (unbound, with the mapped axis removed), so Python
control flow on a mapped value raises ConcretizationError as in JAX; `batch_graph` then runs
that graph on the batched arguments. Unmapped arguments enter the trace as they are. Results
are numpy arrays at top level on concrete inputs, TracedTensors inside another transform
(jit, grad, vmap itself), so vmap nests with them in either order.
"""

from __future__ import annotations

import inspect
import itertools
from collections.abc import Callable, Sequence
from typing import Any

from tf8 import tree
from tf8.errors import (
    AxesSpecError,
    BatchAxisError,
    BatchSizeError,
    ConcretizationError,
    TreeStructureError,
    UnbatchedOutputError,
    UnsupportedOperationError,
)
from tf8.graph import ValueKey
from tf8.lax import effects
from tf8.lax.control.one_op import as_one_op, under_tapes
from tf8.lax.scopes import transform_scope, value_scope
from tf8.ops.leaves import LeafKey
from tf8.ops.primitive import Aval
from tf8.ops.shapes import Dim, dims_equal, shape_str
from tf8.ops.tracebacks import api_boundary
from tf8.traced import TracedTensor, evaluate_all, in_transform, wrap

from ..arguments import as_traced, check_callable
from .core import moveaxis, with_batch_at
from .interpreter import batch_graph

_uids = itertools.count(1)
AxisSpec = Any  # int | None | a pytree of them


def _is_axis(x: Any) -> bool:
    return x is None or (isinstance(x, int) and not isinstance(x, bool))


def _check_spec(spec: AxisSpec, what: str) -> None:
    leaves = tree.tree_leaves(spec, is_leaf=lambda x: x is None)
    bad = [x for x in leaves if not _is_axis(x)]
    if bad:
        raise AxesSpecError(
            f"vmap {what} must be an int, None, or a pytree of them; got {spec!r} "
            f"(holding {bad[0]!r})"
        )


def _per_leaf(spec: AxisSpec, value: Any, what: str) -> list[int | None]:
    """The axis of each leaf of `value`, from `spec`: an int/None for all, or a pytree prefix."""
    if _is_axis(spec):
        return [spec] * len(tree.tree_leaves(value))
    specs, spec_def = tree.tree_flatten(spec, is_leaf=lambda x: x is None)
    try:
        subtrees = spec_def.flatten_up_to(value)
    except TreeStructureError as exc:
        raise AxesSpecError(f"vmap {what} is not a pytree prefix of the value: {exc}") from None
    out: list[int | None] = []
    for axis, sub in zip(specs, subtrees):
        out.extend([axis] * len(tree.tree_leaves(sub)))
    return out


class _Mapped:
    """One argument leaf: where it came from (for messages), its value and its mapped axis."""

    def __init__(self, where: str, value: Any, axis: int | None) -> None:
        self.where, self.value, self.axis = where, value, axis

    def describe(self) -> str:
        return f"{self.where} of shape {shape_str(self.value.shape)} mapped along axis {self.axis}"


def _parameters(fun: Callable) -> list[str]:
    """`fun`'s positional parameter names (what messages call its arguments), or []."""
    try:
        parameters = inspect.signature(fun).parameters.values()
    except (TypeError, ValueError):
        return []
    kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    return [p.name for p in parameters if p.kind in kinds]


def _arguments(
    args: tuple, kwargs: dict, in_axes: AxisSpec, name: str, names: Sequence[str] = ()
) -> list[_Mapped]:
    if isinstance(in_axes, tuple) and len(in_axes) != len(args):
        raise AxesSpecError(
            f"vmap({name}): in_axes has {len(in_axes)} entries but the function was called "
            f"with {len(args)} positional argument(s); give one entry per argument (or one "
            "int/None for all)"
        )
    mapped = []
    for i, arg in enumerate(args):
        spec = in_axes[i] if isinstance(in_axes, tuple) else in_axes
        leaves = tree.tree_leaves(arg)
        axes = _per_leaf(spec, arg, f"in_axes[{i}]")
        for j, (leaf, axis) in enumerate(zip(leaves, axes)):
            where = f"argument {names[i] if i < len(names) else i}"
            where += f" (leaf {j} of its pytree)" if len(leaves) > 1 else ""
            mapped.append(_Mapped(where, leaf, axis))
    for key in sorted(kwargs):  # keyword arguments map along axis 0, as in JAX
        for j, leaf in enumerate(tree.tree_leaves(kwargs[key])):
            mapped.append(_Mapped(f"keyword argument {key!r} (leaf {j})", leaf, 0))
    for m in mapped:
        if m.axis is None:
            continue
        m.value = as_traced(m.value)
        rank = m.value.ndim
        if not -rank <= m.axis < rank:
            raise BatchAxisError(
                f"vmap({name}): in_axes {m.axis} is out of range for {m.where} of shape "
                f"{shape_str(m.value.shape)} (rank {rank})"
            )
        m.axis %= rank
    return mapped


def _size(mapped: Sequence[_Mapped], axis_size: Dim | None, name: str) -> Dim:
    batched = [m for m in mapped if m.axis is not None]
    if not batched:
        if axis_size is None:
            raise BatchSizeError(
                f"vmap({name}): no argument is mapped (every in_axes entry is None, or there "
                "are no arguments); pass axis_size= to say how many examples there are"
            )
        return axis_size
    sizes = [m.value.shape[m.axis] for m in batched]
    size = sizes[0] if axis_size is None else axis_size
    if any(dims_equal(s, size) is False for s in sizes):
        lines = "\n".join(f"  * {m.describe()} (size {s})" for m, s in zip(batched, sizes))
        given = "" if axis_size is None else f" (axis_size={axis_size})"
        raise BatchSizeError(f"vmap({name}) got mapped axes of different sizes{given}:\n{lines}")
    return size


def _example_leaf(x: TracedTensor, axis: int) -> TracedTensor:
    """An unbound leaf standing for one example of `x` (its mapped axis removed)."""
    shape = x.shape[:axis] + x.shape[axis + 1 :]
    aval = Aval(shape, x.dtype)
    key = ValueKey.input(LeafKey(next(_uids), None, aval, "vmap"))
    return TracedTensor(key, aval, {}, unbound=True)


def vmap(
    fun: Callable,
    in_axes: AxisSpec = 0,
    out_axes: AxisSpec = 0,
    axis_name: Any = None,
    axis_size: int | None = None,
) -> Callable:
    """Map `fun` over an axis of its arguments (JAX's `vmap`): `in_axes` is an int, None or a
    pytree prefix of the positional arguments (keyword arguments map along axis 0),
    `out_axes` the same for the outputs; `axis_size` is needed when nothing is mapped."""
    check_callable(fun, "vmap")
    if axis_name is not None:
        raise UnsupportedOperationError(
            "vmap: axis_name (collectives such as psum over a named axis) is not supported by "
            "tf8; reduce over the mapped axis of vmap's result instead"
        )
    if isinstance(in_axes, list):  # a list cannot be a prefix of the argument tuple (JAX)
        in_axes = tuple(in_axes)
    _check_spec(in_axes, "in_axes")
    _check_spec(out_axes, "out_axes")
    name = getattr(fun, "__name__", "f")
    names = _parameters(fun)

    @api_boundary
    def vmapped(*args: Any, **kwargs: Any) -> Any:
        if under_tapes():  # op-by-op grad/jvp: one op they follow (the function runs once)
            return as_one_op(lambda: traced(args, kwargs))
        return traced(args, kwargs)

    def traced(args: tuple, kwargs: dict) -> Any:
        mapped = _arguments(args, kwargs, in_axes, name, names)
        size = _size(mapped, axis_size, name)
        batched = [m for m in mapped if m.axis is not None]
        examples = [_example_leaf(m.value, m.axis) for m in batched]
        stand_ins = iter(examples)
        leaves = [m.value if m.axis is None else next(stand_ins) for m in mapped]
        call_args, call_kwargs = _rebuild(args, kwargs, leaves)
        with value_scope() as values, transform_scope(), effects.scope() as scoped:
            try:
                out = fun(*call_args, **call_kwargs)
            except ConcretizationError as exc:
                raise _explained(exc, name) from None
        out_leaves, out_def = tree.tree_flatten(out)
        outs = [as_traced(o) for o in out_leaves]
        token = effects.pending(scoped)  # effects traced: batched with the outputs
        found = batch_graph(
            [*outs, *([] if token is None else [token])],
            examples,
            [m.value for m in batched],
            [m.axis for m in batched],
            values,
        )
        if token is not None:
            effects.note(found.pop()[0])
        axes = _per_leaf(out_axes, out, "out_axes")
        results = [
            _place(t, d, axis, size, i, name) for i, ((t, d), axis) in enumerate(zip(found, axes))
        ]
        concrete = all(m.value.is_concrete for m in batched) and all(r.is_concrete for r in results)
        if not in_transform() and concrete:
            values_out = evaluate_all(results)
            return tree.tree_unflatten(out_def, [wrap(v) for v in values_out])
        return tree.tree_unflatten(out_def, results)

    vmapped.__name__ = f"vmap({name})"
    vmapped.__doc__ = getattr(fun, "__doc__", None)
    vmapped.__wrapped__ = fun  # type: ignore[attr-defined]  # fun's parameter names, for jit
    if hasattr(fun, "output_roles"):  # the outputs are fun's, batched: what jit calls them
        vmapped.output_roles = fun.output_roles  # type: ignore[attr-defined]
    return vmapped


def _rebuild(args: tuple, kwargs: dict, leaves: list[Any]) -> tuple[list, dict]:
    """The arguments with their leaves replaced (in tree order: positional, then keywords
    by sorted name, as `_arguments` lists them)."""
    treedef = tree.tree_structure((list(args), kwargs))
    call_args, call_kwargs = tree.tree_unflatten(treedef, leaves)
    return call_args, call_kwargs


def _explained(exc: ConcretizationError, name: str) -> ConcretizationError:
    text = str(exc)
    if "vmap" not in text:
        text += (
            f" (under vmap({name}) the mapped arguments are traced as one example each, with "
            "no value: Python control flow on them cannot work; use tf8.numpy.where or "
            "tf8.lax.select instead)"
        )
    return type(exc)(text)


def _place(t: TracedTensor, d: int | None, axis: int | None, size: Dim, i: int, name: str):
    """Output `i` with its batch axis at `axis` (broadcast in when it does not depend on it)."""
    if axis is None:
        if d is not None:
            raise UnbatchedOutputError(
                f"vmap({name}): out_axes is None for output {i} (per-example shape "
                f"{shape_str(t.shape[:d] + t.shape[d + 1 :])}), but it depends on the mapped "
                "axis; give it an int out_axes"
            )
        return t
    rank = t.ndim + (d is None)
    if not -rank <= axis < rank:
        raise BatchAxisError(
            f"vmap({name}): out_axes {axis} is out of range for output {i} of batched rank {rank}"
        )
    axis %= rank
    return with_batch_at(t, None, size, axis) if d is None else moveaxis(t, d, axis)
