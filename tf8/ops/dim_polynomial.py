"""The normal form behind `DimExpr`: integer polynomials over atoms, and their text.

An *atom* is a named symbol or an opaque `floordiv`/`mod`/`min`/`max` node over two
dimensions; a *monomial* is a tuple of (atom, exponent) sorted by atom key; a polynomial
maps monomials to nonzero integer coefficients. This module holds their sum, product, exact
quotient and text; `tf8.ops.dim_expr` wraps a polynomial as a dimension.
"""

from __future__ import annotations

from typing import Any, Protocol, TypeAlias


class _Atom:
    """An indivisible factor: a symbol (`op == "sym"`) or floordiv/mod/min/max of two dims."""

    __slots__ = ("op", "args", "_key", "_hash")
    op: str
    args: tuple[Any, ...]
    _key: str | None
    _hash: int

    def __init__(self, op: str, args: tuple[Any, ...]):
        self.op, self.args, self._hash = op, args, hash((op, args))
        self._key = args[0] if op == "sym" else None

    @property
    def key(self) -> str:
        """Deterministic text of the atom, also the order of factors within a monomial."""
        if self._key is None:
            lhs, rhs = self.args
            if self.op in _INFIX:
                self._key = f"{_operand_str(lhs)} {_INFIX[self.op]} {_operand_str(rhs)}"
            else:
                self._key = f"{self.op}({lhs}, {rhs})"
        return self._key

    def __eq__(self, other: object) -> bool:
        return self is other or (
            isinstance(other, _Atom)
            and self._hash == other._hash
            and self.op == other.op
            and self.args == other.args
        )

    def __hash__(self) -> int:
        return self._hash

    def __reduce__(self) -> tuple[Any, ...]:
        return (_Atom, (self.op, self.args))


# A monomial is a tuple of (atom, exponent) sorted by atom key; the constant monomial is ().
# A polynomial maps monomials to nonzero coefficients; inside a DimExpr it is never mutated.
Monomial: TypeAlias = tuple[tuple[_Atom, int], ...]
Poly: TypeAlias = dict[Monomial, int]
_INFIX = {"floordiv": "//", "mod": "%"}


class _Symbolic(Protocol):
    """A symbolic dimension as this module reads it: `tf8.ops.dim_expr.DimExpr`, which is
    built on this module (so it is not imported here)."""

    _poly: Poly


def _single_atom(poly: Poly) -> _Atom | None:
    """The atom `poly` consists of, if it is exactly one atom (coefficient 1, exponent 1)."""
    if len(poly) != 1:
        return None
    ((mono, coeff),) = poly.items()
    return mono[0][0] if coeff == 1 and len(mono) == 1 and mono[0][1] == 1 else None


def _operand_str(d: int | _Symbolic) -> str:
    """An operand of `//` or `%`, parenthesised unless it is a count or a single plain atom."""
    if type(d) is int:
        return str(d) if d >= 0 else f"({d})"
    atom = _single_atom(d._poly)
    return str(d) if atom is not None and atom.op not in _INFIX else f"({d})"


# --- arithmetic ----------------------------------------------------------------------------------


def _add(p: Poly, q: Poly, sign: int) -> Poly:
    out = dict(p)
    for mono, coeff in q.items():
        total = out.get(mono, 0) + sign * coeff
        if total:
            out[mono] = total
        else:
            del out[mono]
    return out


def _mono_mul(a: Monomial, b: Monomial) -> Monomial:
    if not a or not b:
        return a or b
    powers = dict(a)
    for atom, exponent in b:
        powers[atom] = powers.get(atom, 0) + exponent
    return tuple(sorted(powers.items(), key=lambda item: item[0].key))


def _mul(p: Poly, q: Poly) -> Poly:
    out: Poly = {}
    for m1, c1 in p.items():
        for m2, c2 in q.items():
            mono = _mono_mul(m1, m2)
            total = out.get(mono, 0) + c1 * c2
            if total:
                out[mono] = total
            else:
                del out[mono]
    return out


def _exact_quotient(p: Poly, d: Poly) -> Poly | None:
    """`p / d` when it is provably a polynomial with integer coefficients, else None."""
    if len(d) == 1:  # a single term divides each term of p
        ((dmono, dcoeff),) = d.items()
        dpowers = dict(dmono)
        out: Poly = {}
        for mono, coeff in p.items():
            powers = dict(mono)
            if coeff % dcoeff or any(powers.get(a, 0) < e for a, e in dpowers.items()):
                return None
            rest = ((a, e - dpowers.get(a, 0)) for a, e in mono)
            out[tuple((a, e) for a, e in rest if e)] = coeff // dcoeff
        return out
    mono, dcoeff = next(iter(d.items()))  # otherwise p must be an integer multiple of d
    multiple, remainder = divmod(p.get(mono, 0), dcoeff)
    if remainder or not multiple or any(p.get(m) != c * multiple for m, c in d.items()):
        return None
    return {(): multiple} if len(p) == len(d) else None


# --- text ----------------------------------------------------------------------------------------


def _term_str(mono: Monomial, coeff: int, first: bool) -> str:
    magnitude = abs(coeff)
    if not mono:
        body = str(magnitude)
    else:
        bare = len(mono) == 1 and mono[0][1] == 1 and magnitude == 1 and not (first and coeff < 0)
        factors = []
        for atom, exponent in mono:
            text = atom.key if bare or atom.op not in _INFIX else f"({atom.key})"
            factors.append(text if exponent == 1 else f"{text}^{exponent}")
        body = "*".join(factors) + ("" if magnitude == 1 else f"*{magnitude}")
    if first:
        return f"-{body}" if coeff < 0 else body
    return f" - {body}" if coeff < 0 else f" + {body}"


def _poly_str(poly: Poly) -> str:
    """Terms by decreasing degree, then by factor names; the constant last."""
    order = sorted(poly, key=lambda m: (-sum(e for _, e in m), [(a.key, -e) for a, e in m]))
    return "".join(_term_str(m, poly[m], i == 0) for i, m in enumerate(order))
