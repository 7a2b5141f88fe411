"""The catalog: every primitive's definition, by name, gathered from its family's module.

Each module here is the home of a family of primitives (in the style of JAX's `lax.py`): a
row sits beside its shape rule, numpy kernel, JVP, transpose and batching rules and the facts
the engines fuse it by. This table is filled where it is defined, from those modules; a user's
primitive joins it through `tf8.ops.primitive.register_primitive`, the same path.
"""

from __future__ import annotations

from tf8.errors import ParameterError
from tf8.ops.definition import OpDefinition

from . import (
    analytic,
    arithmetic,
    bits,
    complex_parts,
    contraction,
    convolution,
    cumulative,
    diagonals,
    host,
    indexing,
    logic,
    padding,
    reductions,
    scatter,
    slicing,
    special,
    structural,
    windows,
)

FAMILIES = (
    analytic,
    arithmetic,
    complex_parts,
    logic,
    reductions,
    cumulative,
    bits,
    contraction,
    convolution,
    structural,
    diagonals,
    indexing,
    scatter,
    slicing,
    padding,
    host,
    special,
    windows,
)


PRIMITIVES: dict[str, OpDefinition] = {d.name: d for f in FAMILIES for d in f.DEFINITIONS}


def primitive_definition(name: str) -> OpDefinition:
    """The definition of primitive `name` (ParameterError naming it when there is none)."""
    found = PRIMITIVES.get(name)
    if found is None:
        raise ParameterError(f"no primitive named {name!r} in the catalog")
    return found


CATALOG_HEADERS = ["name", "category", "dtype", "arity", "host", "linear", "params", "semantics"]


def catalog_table() -> list[list[str]]:
    """The catalog as table rows for printing (`python -m tf8 catalog`)."""
    rows = [d.row for d in PRIMITIVES.values() if d.row is not None]
    return [
        [
            r.name,
            r.category.value,
            r.dtype_policy.value,
            r.arity_str(),
            "yes" if r.host_only else "",
            "yes" if r.linear else "",
            ", ".join(r.params),
            r.doc,
        ]
        for r in rows
    ]
