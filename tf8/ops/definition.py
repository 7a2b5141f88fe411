"""One definition per op: what every layer asks of an op, for primitives and families alike.

`definition(op)` answers an op's name, its shape/dtype rule, its kernel, whether it is linear
or host-only, how to prune its unused outputs, and `rule_key`: the key the transforms' rule
tables (jvp, transpose, batching) use — the row name for a catalog primitive, the op class
for an extension family. It is the one place that tells the two kinds apart.

A new primitive is one `register_primitive(row, shape_rule=..., kernel=...)` call (plus its
rules, registered in the transforms layer); no other table needs an entry.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Any

from tf8.errors import ArityError, ParameterError
from tf8.graph.caches import Table
from tf8.ops import infer as _infer
from tf8.ops.catalog import CATALOG, Category, Row
from tf8.ops.extension.kernels import FAMILY_KERNELS
from tf8.ops.kernels import KERNELS, Kernel
from tf8.ops.primitive import Aval, ConstantValue, Primitive, forget_primitive

ShapeRule = Callable[[Any, Sequence[Aval], list], tuple[Aval, ...]]


@dataclass(frozen=True, slots=True)
class OpDefinition:
    """Everything an op's kind answers (per catalog row, or per extension class)."""

    name: str
    rule_key: Hashable
    category: Category | None  # the catalog row's category (None for extension families)
    linear: bool
    host_only: bool
    stops_derivative: bool  # its result carries no derivative (stop_gradient)
    infer: ShapeRule  # (op, avals, guards) -> output avals; validates arity, dtypes, shapes
    kernel: Kernel | None  # kernel(op, *arrays) on the numpy engine
    prune: Callable[[Any, tuple[bool, ...]], Any] | None  # (op, live) -> cheaper op or None


_PRIMITIVES: dict[str, OpDefinition] = {}
_FAMILIES: dict[type, OpDefinition] = {}

# (op, *input avals) -> (kernel, output avals) for ops that can run op by op (inference proved
# everything: no guard, no symbolic size), or False for ops that cannot. Eager dispatch and
# recording read it (tf8.lax.core); registering or removing a primitive clears it. Bounded
# by tf8.config.tf8_plan_cache_size (a full table drops its older half).
PLANS = Table("plan", "plans")


def remember_plan(key: tuple, plan: tuple | bool, op: Any) -> None:
    """Cache `plan` under `key`, unless the op carries a literal array (a constant: caching
    it would keep the array alive)."""
    if any(isinstance(v, ConstantValue) for _, v in getattr(op, "params", ())):
        return
    PLANS.put(key, plan)


def definition(op: Any) -> OpDefinition:
    """The definition of `op`: a catalog `Primitive` or an `ExtensionOp` instance."""
    if type(op) is Primitive:
        found = _PRIMITIVES.get(op.name)
        return found if found is not None else _primitive_definition(op.row)
    found = _FAMILIES.get(type(op))
    return found if found is not None else _family_definition(type(op))


def infer(op: Any, avals: Sequence[Aval], guards: list | None = None) -> tuple[Aval, ...]:
    """Output avals of `op` on `avals` (arity, dtypes and shapes validated); constraints that
    cannot be proven on symbolic sizes are appended to `guards`."""
    return definition(op).infer(op, avals, [] if guards is None else guards)


def _primitive_definition(row: Row) -> OpDefinition:
    found = OpDefinition(
        name=row.name,
        rule_key=row.name,
        category=row.category,
        linear=row.linear,
        host_only=row.host_only,
        stops_derivative=False,
        infer=_infer.infer_primitive,
        kernel=KERNELS.get(row.name),
        prune=None,
    )
    _PRIMITIVES[row.name] = found
    return found


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
    )
    _FAMILIES[cls] = found
    return found


def register_primitive(row: Row, *, shape_rule: Callable[..., Any], kernel: Kernel) -> None:
    """Add primitive `row` to the catalog with its shape rule (`(op, avals, guards) -> shape`)
    and numpy kernel (`kernel(op, *arrays)`); its dtype follows the row's dtype policy."""
    if row.name in CATALOG:
        raise ParameterError(f"a primitive named {row.name!r} already exists")
    CATALOG[row.name] = row
    _infer.SHAPE_RULES[row.name] = shape_rule
    KERNELS[row.name] = kernel
    _PRIMITIVES.pop(row.name, None)
    PLANS.clear()


def unregister_primitive(name: str) -> None:
    """Remove a primitive added by `register_primitive` (tests use it to clean up)."""
    CATALOG.pop(name, None)
    _infer.SHAPE_RULES.pop(name, None)
    KERNELS.pop(name, None)
    _PRIMITIVES.pop(name, None)
    forget_primitive(name)
    PLANS.clear()
