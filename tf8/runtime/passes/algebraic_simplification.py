"""Algebraic simplification: the rule table below, applied by the generic matcher to a fixpoint.

Every rule is exact: the simplified program computes the same bits as the original (IEEE
signed zeros, NaN and infinities included), and the matcher refuses any replacement whose
shape or dtype differs. So `x + 0.0` is *not* rewritten for floats (-0.0 + 0.0 is +0.0) while
`x - 0.0` and `x + -0.0` are; `x * 1` is rewritten for real dtypes only (complex
(inf + 0j) * 1 has a NaN imaginary part); `x * 0` never is (NaN * 0 is NaN).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tf8.ops.catalog import Category
from tf8.ops.primitive import Primitive
from tf8.ops.primitives import PRIMITIVES
from tf8.runtime.exec_program import ExecProgram
from tf8.runtime.rewrite import Emit, Fill, Match, Op, Rule, V, keep, rewrite_to_fixpoint, when

NAME = "algebraic_simplification"


# --- constant tests (on the 0-d value of a uniform constant) ---------------------------------
def _one(v: np.ndarray) -> bool:
    return v.dtype.kind in "iuf" and v == 1


def _plus_zero(v: np.ndarray) -> bool:
    """+0 (all bits clear): x - (+0) == x for every x, -0.0 included."""
    return v.dtype.kind in "iufc" and not any(v.tobytes())


def _additive_identity(v: np.ndarray) -> bool:
    """0 for integers, -0.0 (every component) for floats: x + identity == x bit for bit."""
    if v.dtype.kind in "iu":
        return v == 0
    parts = (v.real, v.imag) if v.dtype.kind == "c" else (v,)
    return v.dtype.kind in "fc" and all(p == 0 and np.signbit(p) for p in parts)


def _true(v: np.ndarray) -> bool:
    return v.dtype == np.bool_ and bool(v)


def _false(v: np.ndarray) -> bool:
    return v.dtype == np.bool_ and not bool(v)


X, A, B = V("x"), V("a"), V("b")
ONE, PLUS_ZERO, IDENTITY = Fill(_one), Fill(_plus_zero), Fill(_additive_identity)


# --- replacements that build a new op ---------------------------------------------------------
def _compose_transposes(m: Match) -> Emit:
    inner, outer = m.insts["inner"].op["permutation"], m.root.op["permutation"]
    permutation = tuple(inner[axis] for axis in outer)
    return Emit(Primitive("transpose", 1, permutation=permutation), (m["x"],))


def _outer_reshape(m: Match) -> Emit:
    return Emit(m.root.op, (m["x"],))


def _identity_permutation(m: Match) -> bool:
    return tuple(m.root.op["permutation"]) == tuple(range(len(m.root.op["permutation"])))


def _identity_broadcast(m: Match) -> bool:
    dims = tuple(m.root.op["broadcast_dimensions"])
    return dims == tuple(range(len(dims)))


def _real(m: Match) -> bool:
    return m.dtype().kind in "iuf"


# a reduction over no axes is the identity: the rows reducing over `axes` (sums, products,
# maxima, minima), each keeping its operand's dtype
REDUCTIONS = tuple(
    name
    for name, found in PRIMITIVES.items()
    if found.row.category is Category.REDUCTION and found.row.params == ("axes",)
)

RULES: tuple[Rule, ...] = (
    Rule("x * 1 → x", Op("mul", X, ONE), when(_real, keep("x"))),
    Rule("1 * x → x", Op("mul", ONE, X), when(_real, keep("x"))),
    Rule("x / 1 → x", Op("div", X, ONE), when(_real, keep("x"))),
    Rule("x ** 1 → x", Op("pow", X, ONE), when(_real, keep("x"))),
    Rule("x + 0 → x", Op("add", X, IDENTITY), keep("x")),
    Rule("0 + x → x", Op("add", IDENTITY, X), keep("x")),
    Rule("x - 0 → x", Op("sub", X, PLUS_ZERO), keep("x")),
    Rule("-(-x) → x", Op("neg", Op("neg", X)), keep("x")),
    Rule("conj(conj(x)) → x", Op("conj", Op("conj", X)), keep("x")),
    Rule("abs(abs(x)) → abs(x)", Op("abs", Op("abs", X, bind="inner")), keep("inner")),
    Rule("max(x, x) → x", Op("maximum", X, X), keep("x")),
    Rule("min(x, x) → x", Op("minimum", X, X), keep("x")),
    Rule("x & x → x", Op("and", X, X), keep("x")),
    Rule("x | x → x", Op("or", X, X), keep("x")),
    Rule("select(true, a, b) → a", Op("select", Fill(_true), A, B), keep("a")),
    Rule("select(false, a, b) → b", Op("select", Fill(_false), A, B), keep("b")),
    Rule("select(p, a, a) → a", Op("select", V("p"), A, A), keep("a")),
    Rule(
        "transpose(transpose(x)) → transpose(x)",
        Op("transpose", Op("transpose", X, bind="inner")),
        _compose_transposes,
    ),
    Rule("transpose(x, identity) → x", Op("transpose", X), when(_identity_permutation, keep("x"))),
    Rule("reshape(reshape(x)) → reshape(x)", Op("reshape", Op("reshape", X)), _outer_reshape),
    Rule("reshape(x) to its own shape → x", Op("reshape", X), keep("x")),
    Rule("convert(x) to its own dtype → x", Op("convert", X), keep("x")),
    Rule("real(x) of a real x → x", Op("real", X), keep("x")),
    Rule(
        "broadcast_in_dim(x) to its own shape → x",
        Op("broadcast_in_dim", X),
        when(_identity_broadcast, keep("x")),
    ),
    *(
        Rule(f"{r}(x, axes=()) → x", Op(r, X), when(lambda m: not m.root.op["axes"], keep("x")))
        for r in REDUCTIONS
    ),
)


def run(program: ExecProgram, ctx: dict[str, Any]) -> int:
    return rewrite_to_fixpoint(program, RULES)
