"""A catalog row: the facts that name a primitive (category, dtype policy, arity,
parameters and their defaults, linearity).

A row is one field of a primitive's definition (`tf8.ops.definition.define`), written in its
family's module in `tf8/ops/primitives/`; the catalog is the table of those definitions
(`tf8.ops.primitives.PRIMITIVES`).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any


class Category(enum.Enum):
    ELEMENTWISE = "Elementwise"
    ANALYTIC = "Analytic"
    STRUCTURAL = "Structural"
    REDUCTION = "Reduction"
    CONTRACTION = "Contraction"
    INDEXING = "Indexing"
    DYNAMIC = "Dynamic"
    HOST = "Host"


class DTypePolicy(enum.Enum):
    """How a row's output dtype follows from its inputs (see `tf8.ops.infer`)."""

    SAME_ANY = "same-any"  # all operands one dtype, result the same
    SAME_NUMERIC = "same-numeric"  # as SAME_ANY, bool refused
    SAME_FLOAT = "same-float"  # float32/float64 only
    SAME_FLOAT_OR_COMPLEX = "same-float-or-complex"
    SAME_INT_OR_BOOL = "same-int-or-bool"  # logical/bitwise rows
    SAME_INT = "same-int"  # shifts: signed or unsigned integers
    COMPARE_TO_BOOL = "compare-to-bool"
    BOOL_SELECT = "bool-select"  # a bool predicate, then same-any operands
    COMPLEX_TO_REAL = "complex-to-real"  # real, imag, abs: complex → its real dtype
    REAL_TO_COMPLEX = "real-to-complex"  # complex(re, im)
    INDEX = "index"  # argmax/argmin: int64 result
    CONVERT = "convert"  # result dtype is the `dtype` parameter
    BITCAST = "bitcast"  # the `dtype` parameter, of the operand's width (ints and floats)
    SHAPE = "shape"  # int64 result describing a shape
    CONSTANT = "constant"  # result dtype from the parameters


@dataclass(frozen=True, slots=True)
class Row:
    """One primitive: name, category, dtype policy, arity range, host flag, parameter schema.

    `linear` marks rows that are linear in every operand (AD transposes them directly);
    `linear_in` names the operands a row is linear in when its other operands (indices,
    starts, sizes, references) are held fixed, for a row not linear in all of them: its JVP
    is the op on those operands' tangents and its transpose rule gives their cotangents.
    `dtype_operands` are the operands its dtype policy reads (None: all; the others are
    indices, starts or sizes). `max_arity=None` means variadic. `defaults` are the parameters
    an op may leave out, with their values (a callable default is called once per op built
    without it).
    """

    name: str
    category: Category
    dtype_policy: DTypePolicy
    min_arity: int
    max_arity: int | None
    params: tuple[str, ...] = ()
    host_only: bool = False
    linear: bool = False
    doc: str = ""
    defaults: tuple[tuple[str, Any], ...] = ()
    linear_in: tuple[int, ...] = ()
    dtype_operands: tuple[int, ...] | None = None

    def accepts_arity(self, count: int) -> bool:
        return count >= self.min_arity and (self.max_arity is None or count <= self.max_arity)

    def arity_str(self) -> str:
        if self.max_arity == self.min_arity:
            return str(self.min_arity)
        return f"{self.min_arity}..{'' if self.max_arity is None else self.max_arity}"
