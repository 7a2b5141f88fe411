"""What a primitive's rules are written with: the transforms hand this module to every rule
in a primitive's home (`tf8/ops/primitives/`) as its first argument, `lax`.

A home sits in the vocabulary layer, below tracing, so it cannot import these builders; it
receives them instead (`partials=(lambda lax, x, out: lax.unary("cos", x),)`). That keeps
every fact of a primitive in one module without an upward import or a hook installed at
import time. Batching rules find the batch axis helpers here too (`tf8.lax.batch_axes`).
"""

from __future__ import annotations

from tf8.lax.batch_axes import (
    at_front,
    batch_size,
    batched_axis,
    example_axis,
    moveaxis,
    with_batch_at,
    with_params,
)
from tf8.lax.builders import (
    Tangent,
    add,
    add_any,
    broadcast,
    compare,
    conj,
    convert,
    div,
    full,
    like,
    materialize,
    mul,
    neg,
    normalize_axes,
    pow_,
    real,
    reduce_sum,
    reshape,
    scale,
    select,
    sub,
    transpose,
    unary,
    zeros,
)
from tf8.lax.core import apply, apply1
from tf8.lax.scans import associative_scan
from tf8.ops.primitive import make_primitive

__all__ = [
    "Tangent",
    "add",
    "add_any",
    "apply",
    "apply1",
    "associative_scan",
    "at_front",
    "batch_size",
    "batched_axis",
    "broadcast",
    "compare",
    "conj",
    "convert",
    "div",
    "example_axis",
    "full",
    "like",
    "make_primitive",
    "materialize",
    "moveaxis",
    "mul",
    "neg",
    "normalize_axes",
    "pow_",
    "real",
    "reduce_sum",
    "reshape",
    "scale",
    "select",
    "sub",
    "transpose",
    "unary",
    "with_batch_at",
    "with_params",
    "zeros",
]
