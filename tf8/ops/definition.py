"""One definition per op: what every layer asks of an op, for primitives and families alike.

`definition(op)` answers an op's name, its shape/dtype rule, its kernel, whether it is linear
or host-only, how to prune its unused outputs, its derivative and batching rules, the facts
an engine needs to fuse it, and `rule_key`: the key the transforms' rule tables use (the row
name for a catalog primitive, the op class for an extension family). It is the one place
that tells the two kinds apart.

A catalog primitive's definition is made by `define(row, ...)` in its family's module (its
*home*, `tf8/ops/primitives/`), and a `Primitive` op carries it: no layer looks a
primitive's facts up in a table of its own. Its rules are written with the builders of
`tf8.lax.rulekit`, which the transforms hand in as the rule's first argument (`lax`), so
a home in this layer needs nothing from the layers above it.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Any

from tf8.errors import ArityError, ParameterError
from tf8.graph.caches import Table
from tf8.ops import infer as _infer
from tf8.ops.avals import Aval, ConstantValue
from tf8.ops.catalog import Category, Row
from tf8.ops.extension.kernels import FAMILY_KERNELS
from tf8.ops.fusion import Fusion

ShapeRule = Callable[[Any, Sequence[Aval], list], tuple[Aval, ...]]
NO_FUSION = Fusion()  # the engines run the op by its kernel
Kernel = Callable[..., Any]


@dataclass(frozen=True, slots=True)
class OpDefinition:
    """Everything an op's kind answers (per catalog row, or per extension class).

    The fields after `prune` are a catalog primitive's home; an extension family leaves
    them None (its rules live in the transforms layer, keyed by its class):
    - `shape(op, avals, guards) -> shape`;
    - `dtype(op, avals) -> dtype`, for a row whose result dtype no policy gives (a constant's
      is its value's); None: the row's dtype policy;
    - `jvp(lax, op, primals, outputs, tangents) -> tangents` (None: a symbolic zero);
    - `transpose(lax, op, operands, linear_mask, cotangent) -> cotangents`, for linear rows;
    - `batch(lax, op, args, batch_dims) -> (outputs, out_dims)` (elementwise rows get theirs
      from their category);
    - `partials`: an elementwise row's `partial_i(lax, *primals, out)`, from which `jvp`
      is made (reverse mode on the tape multiplies cotangents by them);
    - `fusion`: what the engines need to fuse it (`tf8.ops.fusion`).

    The last fields are read by the runtime's passes, placement and checkpoint policies:
    - `literal(op) -> array`: the value of a literal (constant), which placement hoists,
      constant folding and rewrites read, and the numpy engine makes a global;
    - `static_value(op, avals) -> array | None`: the value the op has whatever its operands'
      data, from their avals alone (shape_of of a concrete dimension), else None;
    - `batched_dot(op) -> bool`: for a matrix product (dot_general, einsum: JAX's `dots_*`
      checkpoint policies save its result), whether it has batch dimensions; None for any
      other op (an extension family gives it as a method of its class).
    """

    name: str
    rule_key: Hashable
    category: Category | None  # the catalog row's category (None for extension families)
    linear: bool
    host_only: bool
    stops_derivative: bool  # its result carries no derivative (stop_gradient)
    infer: ShapeRule  # (op, avals, guards) -> output avals; validates arity, dtypes, shapes
    kernel: Kernel | None  # kernel(op, *arrays) on the numpy engine
    prune: Callable[[Any, tuple[bool, ...]], Any] | None  # (op, live) -> cheaper op or None
    row: Row | None = None
    linear_in: tuple[int, ...] = ()  # the row's `linear_in` (tf8.ops.catalog.Row)
    shape: Callable[..., Any] | None = None
    dtype: Callable[..., Any] | None = None
    jvp: Callable[..., Any] | None = None
    transpose: Callable[..., Any] | None = None
    batch: Callable[..., Any] | None = None
    partials: tuple[Callable[..., Any] | None, ...] | None = None
    fusion: Fusion = NO_FUSION
    # --- runtime passes, placement, checkpoint: literals, static values, matrix products ---
    literal: Callable[[Any], Any] | None = None
    static_value: Callable[[Any, Sequence[Aval]], Any] | None = None
    batched_dot: Callable[[Any], bool] | None = None


def define(
    row: Row,
    *,
    kernel: Kernel,
    shape: Callable[..., Any] | None = None,
    dtype: Callable[..., Any] | None = None,
    jvp: Callable[..., Any] | None = None,
    transpose: Callable[..., Any] | None = None,
    batch: Callable[..., Any] | None = None,
    partials: tuple[Callable[..., Any] | None, ...] | None = None,
    fusion: Fusion = NO_FUSION,
    literal: Callable[[Any], Any] | None = None,
    static_value: Callable[[Any, Sequence[Aval]], Any] | None = None,
    batched_dot: Callable[[Any], bool] | None = None,
) -> OpDefinition:
    """The definition of catalog primitive `row`: the one place its facts are written.

    `shape` defaults to the elementwise rule (operands of one shape). An elementwise row
    gives `partials` (one per operand, None where it is not differentiable) instead of a
    `jvp`; a linear row without a `jvp` gets the linear one (the op on the tangents), and so
    does a row linear in some operands (`Row.linear_in`: the op on those operands' tangents);
    a row whose outputs are not differentiable (piecewise constant, indices, sizes, bits)
    gives `jvp=zero_jvp`, and its tangent is zero."""
    return OpDefinition(
        name=row.name,
        rule_key=row.name,
        category=row.category,
        linear=row.linear,
        host_only=row.host_only,
        stops_derivative=False,
        infer=_infer.infer_primitive,
        kernel=kernel,
        prune=None,
        row=row,
        linear_in=row.linear_in,
        shape=_infer.elementwise_shape if shape is None else shape,
        dtype=dtype,
        jvp=jvp,
        transpose=transpose,
        batch=batch,
        partials=partials,
        fusion=fusion,
        literal=literal,
        static_value=static_value,
        batched_dot=batched_dot,
    )


def zero_jvp(lax: Any, op: Any, primals: Any, outputs: Any, tangents: Any) -> list[None]:
    """The `jvp` of a row whose outputs carry no derivative (sizes, literals, piecewise
    constant values): a symbolic zero tangent for every output."""
    return [None] * op.output_count


_FAMILIES: dict[type, OpDefinition] = {}

# (op, *input avals) -> (kernel, output avals) for ops that can run op by op (inference proved
# everything: no guard, no symbolic size), or False for ops that cannot. Eager dispatch and
# recording read it (tf8.lax.core); registering or removing a primitive clears it. Bounded
# by tf8.config.tf8_plan_cache_size (a full table drops its older half).
PLANS = Table("plan", "plans")
# The eager tape's pullbacks and tangents derived from the JVP and transpose rules, by
# ("vjp" or "jvp", op, differentiated inputs, *input avals) (tf8.ad.derive); cleared with
# PLANS, and when rules are registered.
DERIVED = Table("plan", "derived rules")


def remember_plan(key: tuple, plan: tuple | bool, op: Any) -> None:
    """Cache `plan` under `key`, unless the op carries a literal array (a constant: caching
    it would keep the array alive) or is one call's own op (`per_call`: a custom_vjp call,
    holding its arguments; no later lookup could find it)."""
    if getattr(op, "per_call", False):
        return
    if any(isinstance(v, ConstantValue) for _, v in getattr(op, "params", ())):
        return
    PLANS.put(key, plan)


def definition(op: Any) -> OpDefinition:
    """The definition of `op`: a catalog `Primitive` (which carries it) or an `ExtensionOp`."""
    found = _FAMILIES.get(type(op))  # an extension family seen before (no exception raised)
    if found is not None:
        return found
    try:
        return op.definition
    except AttributeError:
        return _family_definition(type(op))


def infer(op: Any, avals: Sequence[Aval], guards: list | None = None) -> tuple[Aval, ...]:
    """Output avals of `op` on `avals` (arity, dtypes and shapes validated); constraints that
    cannot be proven on symbolic sizes are appended to `guards`."""
    return definition(op).infer(op, avals, [] if guards is None else guards)


def _family_definition(cls: type) -> OpDefinition:
    if not hasattr(cls, "input_count") or not hasattr(cls, "infer"):
        raise ParameterError(f"{cls.__name__} is not an operation tf8 knows (no definition)")

    def infer_family(op: Any, avals: Sequence[Aval], guards: list) -> tuple[Aval, ...]:
        if len(avals) != op.input_count:
            raise ArityError(f"{op!r} takes {op.input_count} operands, got {len(avals)}")
        return tuple(op.infer(list(avals), guards))

    kernel = FAMILY_KERNELS.get(cls)
    if kernel is None and getattr(cls, "kernel", None) is not None:
        # A user-defined family may carry its kernel as a method.
        def kernel(op: Any, *arrays: Any) -> Any:
            return op.kernel(op, *arrays)

    prune = getattr(cls, "prune_outputs", None)
    found = OpDefinition(
        name=getattr(cls, "name", cls.__name__),
        rule_key=cls,
        category=None,
        linear=bool(getattr(cls, "linear", False)),
        host_only=bool(getattr(cls, "host_only", False)),
        stops_derivative=bool(getattr(cls, "stops_derivative", False)),
        infer=infer_family,
        kernel=kernel,
        prune=None if prune is None else (lambda op, live: op.prune_outputs(live)),
        batched_dot=getattr(cls, "batched_dot", None),
    )
    _FAMILIES[cls] = found
    return found
