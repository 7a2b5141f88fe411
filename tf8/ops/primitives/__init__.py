"""The catalog: every primitive's definition, by name, gathered from its family's module.

Each module here is the home of a family of primitives (in the style of JAX's `lax.py`): a
row sits beside its shape rule, numpy kernel, JVP, transpose and batching rules and the facts
the engines fuse it by. This table is filled where it is defined, from those modules; a user's
primitive joins it through `tf8.ops.primitive.register_primitive`, the same path.

Rows not yet moved to a family module (`tf8.ops.catalog.ROWS`) are defined here from the
older tables (`tf8.ops.kernels`, `tf8.ops.infer.SHAPE_RULES`; their AD rules in `tf8.ad`).
"""

from __future__ import annotations

from tf8.errors import ParameterError
from tf8.ops.catalog import ROWS, Row
from tf8.ops.definition import OpDefinition, define
from tf8.ops.infer import SHAPE_RULES
from tf8.ops.kernels import KERNELS

from . import analytic, special

FAMILIES = (analytic, special)


def _older(row: Row) -> OpDefinition:
    return define(row, kernel=KERNELS[row.name], shape=SHAPE_RULES.get(row.name))


PRIMITIVES: dict[str, OpDefinition] = {
    d.name: d for d in (*(d for family in FAMILIES for d in family.DEFINITIONS), *map(_older, ROWS))
}


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
