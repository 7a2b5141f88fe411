"""A catalog row: the facts that name a primitive (category, dtype policy, arity,
parameters and their defaults, linearity).

A row is one field of a primitive's definition (`tf8.ops.definition.define`), written in its
family's module in `tf8/ops/primitives/`; the catalog is the table of those definitions
(`tf8.ops.primitives.PRIMITIVES`). `ROWS` below holds the rows whose home is not yet a family
module: their kernels, shape rules and AD rules still sit in the older tables.
"""

from __future__ import annotations

import enum
import itertools
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
    `max_arity=None` means variadic. `defaults` are the parameters an op may leave out, with
    their values (a callable default is called once per op built without it).
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

    def accepts_arity(self, count: int) -> bool:
        return count >= self.min_arity and (self.max_arity is None or count <= self.max_arity)

    def arity_str(self) -> str:
        if self.max_arity == self.min_arity:
            return str(self.min_arity)
        return f"{self.min_arity}..{'' if self.max_arity is None else self.max_arity}"


E, A, S, R = Category.ELEMENTWISE, Category.ANALYTIC, Category.STRUCTURAL, Category.REDUCTION
C, I, D, H = Category.CONTRACTION, Category.INDEXING, Category.DYNAMIC, Category.HOST
P = DTypePolicy


_size_names = itertools.count()


def _fresh_size_name() -> str:
    """Each dynamic_truncate names its own run-time size, so two never pass as equal."""
    return f"truncated{next(_size_names)}"


def _unary_analytic(name: str, doc: str) -> Row:
    return Row(name, A, P.SAME_FLOAT_OR_COMPLEX, 1, 1, doc=doc)


ROWS: tuple[Row, ...] = (
    # --- elementwise arithmetic -----------------------------------------------------------
    Row("add", E, P.SAME_NUMERIC, 2, 2, linear=True, doc="x + y"),
    Row("sub", E, P.SAME_NUMERIC, 2, 2, linear=True, doc="x - y"),
    Row("mul", E, P.SAME_NUMERIC, 2, 2, doc="x * y"),
    Row("div", E, P.SAME_NUMERIC, 2, 2, doc="x / y (integer operands: C-style truncation)"),
    Row("rem", E, P.SAME_NUMERIC, 2, 2, doc="numpy remainder (sign of the divisor)"),
    Row("pow", E, P.SAME_NUMERIC, 2, 2, doc="np.power on the promoted dtype"),
    Row("neg", E, P.SAME_NUMERIC, 1, 1, linear=True, doc="-x"),
    Row("conj", E, P.SAME_NUMERIC, 1, 1, linear=True, doc="complex conjugate"),
    Row("real", E, P.COMPLEX_TO_REAL, 1, 1, linear=True, doc="real part"),
    Row("imag", E, P.COMPLEX_TO_REAL, 1, 1, linear=True, doc="imaginary part"),
    Row("complex", E, P.REAL_TO_COMPLEX, 2, 2, linear=True, doc="re + 1j*im"),
    Row("abs", E, P.COMPLEX_TO_REAL, 1, 1, doc="|x|"),
    Row("sign", E, P.SAME_NUMERIC, 1, 1, doc="numpy sign (x/|x| for complex)"),
    Row("maximum", E, P.SAME_NUMERIC, 2, 2, doc="elementwise max (NaN propagates)"),
    Row("minimum", E, P.SAME_NUMERIC, 2, 2, doc="elementwise min (NaN propagates)"),
    Row("clamp", E, P.SAME_NUMERIC, 3, 3, doc="clamp(lo, x, hi) = min(max(x, lo), hi)"),
    Row("compare", E, P.COMPARE_TO_BOOL, 2, 2, ("direction",), doc="eq ne lt le gt ge"),
    Row("select", E, P.BOOL_SELECT, 3, 3, doc="select(pred, on_true, on_false)"),
    Row("and", E, P.SAME_INT_OR_BOOL, 2, 2, doc="logical/bitwise and"),
    Row("or", E, P.SAME_INT_OR_BOOL, 2, 2, doc="logical/bitwise or"),
    Row("not", E, P.SAME_INT_OR_BOOL, 1, 1, doc="logical/bitwise not"),
    Row("xor", E, P.SAME_INT_OR_BOOL, 2, 2, doc="logical/bitwise exclusive or"),
    Row("shift_left", E, P.SAME_INT, 2, 2, doc="x << y (0 when y is outside [0, bits))"),
    Row(
        "shift_right_logical",
        E,
        P.SAME_INT,
        2,
        2,
        doc="x >> y filling with zeros (0 when y is outside [0, bits))",
    ),
    Row(
        "shift_right_arithmetic",
        E,
        P.SAME_INT,
        2,
        2,
        doc="x >> y filling with the sign bit (y outside [0, bits) shifts by bits - 1)",
    ),
    Row(
        "bitcast_convert_type",
        E,
        P.BITCAST,
        1,
        1,
        ("dtype",),
        doc="reinterpret the bits as `dtype` (same width)",
    ),
    # --- analytic functions ---------------------------------------------------------------
    Row("floor", E, P.SAME_FLOAT, 1, 1, doc="round toward -inf"),
    Row("ceil", E, P.SAME_FLOAT, 1, 1, doc="round toward +inf"),
    Row("round", E, P.SAME_FLOAT, 1, 1, doc="round half to even (numpy)"),
    # --- contraction and reductions -------------------------------------------------------
    Row("dot_general", C, P.SAME_NUMERIC, 2, 2, ("contracting", "batch"), doc="lax.dot_general"),
    Row("reduce_sum", R, P.SAME_NUMERIC, 1, 1, ("axes",), linear=True, doc="sum over axes"),
    Row("reduce_prod", R, P.SAME_NUMERIC, 1, 1, ("axes",), doc="product over axes"),
    Row("reduce_max", R, P.SAME_NUMERIC, 1, 1, ("axes",), doc="max over axes"),
    Row("reduce_min", R, P.SAME_NUMERIC, 1, 1, ("axes",), doc="min over axes"),
    Row("argmax", R, P.INDEX, 1, 1, ("axis",), doc="index of the first max (int64)"),
    Row("argmin", R, P.INDEX, 1, 1, ("axis",), doc="index of the first min (int64)"),
    Row(
        "cumsum",
        R,
        P.SAME_NUMERIC,
        1,
        1,
        ("axis", "reverse"),
        linear=True,
        doc="running sum",
        defaults=(("reverse", False),),
    ),
    # --- structural -----------------------------------------------------------------------
    Row("transpose", S, P.SAME_ANY, 1, 1, ("permutation",), linear=True, doc="permute axes"),
    Row("reshape", S, P.SAME_ANY, 1, 1, ("shape",), linear=True, doc="row-major reshape"),
    Row(
        "broadcast_in_dim",
        S,
        P.SAME_ANY,
        1,
        1,
        ("shape", "broadcast_dimensions"),
        linear=True,
        doc="operand axis i becomes result axis broadcast_dimensions[i]",
    ),
    Row("convert", E, P.CONVERT, 1, 1, ("dtype",), doc="cast (complex → real keeps real part)"),
    Row("extract_diag", S, P.SAME_ANY, 1, 1, linear=True, doc="diagonal of the last two axes"),
    Row("embed_diag", S, P.SAME_ANY, 1, 1, linear=True, doc="last axis onto a diagonal"),
    Row(
        "tril",
        S,
        P.SAME_ANY,
        1,
        1,
        ("k",),
        linear=True,
        doc="lower triangle (last two axes)",
        defaults=(("k", 0),),
    ),
    Row(
        "triu",
        S,
        P.SAME_ANY,
        1,
        1,
        ("k",),
        linear=True,
        doc="upper triangle (last two axes)",
        defaults=(("k", 0),),
    ),
    # --- indexing -------------------------------------------------------------------------
    Row(
        "gather",
        I,
        P.SAME_ANY,
        2,
        2,
        ("offset_dims", "collapsed_slice_dims", "start_index_map", "slice_sizes"),
        doc="lax.gather (index vector on the last axis, indices clamped)",
    ),
    Row(
        "scatter_add",
        I,
        P.SAME_ANY,
        3,
        3,
        ("update_window_dims", "inserted_window_dims", "scatter_dims_to_operand_dims"),
        doc="lax.scatter_add (index vector on the last axis)",
    ),
    Row(
        "slice",
        I,
        P.SAME_ANY,
        1,
        1,
        ("start", "limit", "strides"),
        linear=True,
        doc="x[a:b:s]",
        defaults=(("strides", None),),
    ),
    Row(
        "dynamic_slice",
        I,
        P.SAME_ANY,
        1,
        None,
        ("slice_sizes",),
        doc="operand, then one int scalar start per axis (clamped in range)",
    ),
    Row(
        "dynamic_update_slice",
        I,
        P.SAME_ANY,
        2,
        None,
        doc="operand, update, then one int scalar start per axis (clamped)",
    ),
    Row(
        "pad",
        S,
        P.SAME_ANY,
        2,
        2,
        ("config",),
        linear=True,
        doc="pad(x, value) with (lo, hi, interior); linear in (x, value) jointly",
    ),
    Row("concatenate", S, P.SAME_ANY, 1, None, ("axis",), linear=True, doc="join along axis"),
    Row("reverse", S, P.SAME_ANY, 1, 1, ("axes",), linear=True, doc="flip axes"),
    Row(
        "iota", S, P.CONSTANT, 0, 0, ("shape", "dtype", "dimension"), doc="0, 1, 2 ... on one axis"
    ),
    # --- host and dynamic -----------------------------------------------------------------
    Row("shape_of", H, P.SHAPE, 1, 1, ("axis",), host_only=True, doc="size of one axis (int64)"),
    Row(
        "dynamic_truncate",
        D,
        P.SAME_ANY,
        2,
        2,
        ("axis", "size_name"),
        host_only=True,
        doc="cut an axis to a size known only at run time",
        defaults=(("size_name", _fresh_size_name),),
    ),
    Row(
        "pad_to_match",
        D,
        P.SAME_ANY,
        2,
        2,
        ("axis",),
        host_only=True,
        doc="zero-pad an axis of x to the size of the same axis of a reference",
    ),
    Row("constant", H, P.CONSTANT, 0, 0, ("value",), host_only=True, doc="a literal array"),
)
