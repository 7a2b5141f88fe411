"""Symbolic dimensions: a dimension (`Dim`) is a plain `int` or an immutable `DimExpr`.

A `DimExpr` is kept in a normal form (`tf8.ops.dim_polynomial`): a polynomial with integer
coefficients whose factors (*atoms*) are named symbols or opaque `floordiv`/`mod`/`min`/`max`
nodes over normalised operands. Equal polynomials compare and hash equal, so
`(n + 1)*(n - 1) == n*n - 1`, and an expression that normalises to a constant is returned as a
plain `int`. This module holds the `DimExpr` type, its arithmetic (division, `dim_min`,
`dim_max` included) and its evaluation; what normalisation cannot decide (`n == m`?) becomes
a `tf8.ops.shapes.ShapeGuard`, checked at run time.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterable, Mapping
from typing import Any, TypeAlias

from tf8.errors import ParameterError, ShapeError
from tf8.ops.dim_polynomial import (
    _INFIX,
    Poly,
    _add,
    _Atom,
    _exact_quotient,
    _mul,
    _poly_str,
    _single_atom,
)

__all__ = [
    "Dim",
    "DimExpr",
    "dim_key",
    "dim_max",
    "dim_min",
    "dim_symbols",
    "evaluate_dim",
]


def _binary(fn: Callable[[Dim, Dim], Dim]) -> Callable[[DimExpr, Any], Dim]:
    """An arithmetic method: `fn(self, other)` when `other` is a dimension."""

    def method(self: DimExpr, other: Any) -> Dim:
        o = _coerce(other)
        return NotImplemented if o is None else fn(self, o)

    return method


def _comparison(compare: Callable[[int, int], bool], symbol: str) -> Callable[..., bool]:
    """An ordering method: decided only when the two sides differ by a constant."""

    def method(self: DimExpr, other: Any) -> bool:
        o = _coerce(other)
        if o is None:
            return NotImplemented
        difference = self - o
        if type(difference) is int:
            return compare(difference, 0)
        raise ShapeError(
            f"cannot decide {self} {symbol} {o} at trace time: the symbolic dimensions "
            "differ by a non-constant amount"
        )

    return method


class DimExpr:
    """An immutable symbolic dimension in normal form; build with `sym`, `as_dim`, operators."""

    __slots__ = ("_poly", "_hash", "_str", "_symbols")
    __array_ufunc__ = None  # numpy scalars defer to our reflected operators
    _poly: Poly
    _hash: int
    _str: str | None
    _symbols: frozenset[str] | None

    def __init__(self, poly: Poly):
        """Internal: wrap a normalised non-constant polynomial (use `_make`, not this)."""
        setattr_ = object.__setattr__
        setattr_(self, "_poly", poly)
        setattr_(self, "_hash", hash(frozenset(poly.items())))
        setattr_(self, "_str", None)
        setattr_(self, "_symbols", None)

    @staticmethod
    def symbol(name: str) -> DimExpr:
        """The dimension named `name` (a Python identifier)."""
        if not isinstance(name, str) or not name.isidentifier():
            raise ParameterError(f"a dimension name must be a Python identifier, got {name!r}")
        return DimExpr({((_Atom("sym", (name,)), 1),): 1})

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("DimExpr is immutable")

    def __reduce__(self) -> tuple[Any, ...]:
        return (DimExpr, (dict(self._poly),))

    # --- identity and text ---------------------------------------------------------------

    def __hash__(self) -> int:
        return self._hash

    def __eq__(self, other: object) -> bool:
        if isinstance(other, DimExpr):
            return self is other or (self._hash == other._hash and self._poly == other._poly)
        return False if _coerce(other) is not None else NotImplemented

    def __str__(self) -> str:
        if self._str is None:
            object.__setattr__(self, "_str", _poly_str(self._poly))
        return self._str  # type: ignore[return-value]

    def __repr__(self) -> str:
        return f"DimExpr({str(self)!r})"

    @property
    def symbols(self) -> frozenset[str]:
        """The names this dimension depends on."""
        if self._symbols is None:
            names: set[str] = set()
            for mono in self._poly:
                for atom, _ in mono:
                    names |= _atom_symbols(atom)
            object.__setattr__(self, "_symbols", frozenset(names))
        return self._symbols  # type: ignore[return-value]

    def evaluate(self, env: Mapping[str, int]) -> int:
        """The value of this dimension when each symbol takes its value in `env`."""
        try:
            return _eval_poly(self._poly, env)
        except KeyError as missing:
            given = ", ".join(sorted(env)) or "none"
            raise ShapeError(
                f"cannot evaluate dimension {self}: no value for dimension {missing.args[0]!r} "
                f"(given: {given})"
            ) from None

    # --- arithmetic and comparison (operands: ints, numpy integers, DimExprs) ----------------

    __add__ = __radd__ = _binary(lambda a, b: _make(_add(_poly_of(a), _poly_of(b), 1)))
    __sub__ = _binary(lambda a, b: _make(_add(_poly_of(a), _poly_of(b), -1)))
    __rsub__ = _binary(lambda a, b: _make(_add(_poly_of(b), _poly_of(a), -1)))
    __mul__ = __rmul__ = _binary(lambda a, b: _make(_mul(_poly_of(a), _poly_of(b))))
    __floordiv__ = _binary(lambda a, b: _floordiv(a, b))
    __rfloordiv__ = _binary(lambda a, b: _floordiv(b, a))
    __mod__ = _binary(lambda a, b: _mod(a, b))
    __rmod__ = _binary(lambda a, b: _mod(b, a))
    __lt__ = _comparison(operator.lt, "<")
    __le__ = _comparison(operator.le, "<=")
    __gt__ = _comparison(operator.gt, ">")
    __ge__ = _comparison(operator.ge, ">=")

    def __neg__(self) -> Dim:
        return _make({m: -c for m, c in self._poly.items()})

    def __pos__(self) -> DimExpr:
        return self

    def __pow__(self, exponent: int) -> Dim:
        if type(exponent) is not int or exponent < 0:
            return NotImplemented
        result: Dim = 1
        for _ in range(exponent):
            result = result * self
        return result

    def _no_value(self, *_: Any) -> Any:
        raise ShapeError(f"symbolic dimension {self} has no concrete value at trace time")

    __bool__ = __int__ = __index__ = _no_value


Dim: TypeAlias = int | DimExpr


# --- normal form: coercion, division, min and max -----------------------------------------------


def _coerce(x: Any) -> Dim | None:
    """`x` as a Dim if it is an integer (numpy's included) or a DimExpr, else None."""
    if type(x) is int or isinstance(x, DimExpr):
        return x
    try:
        return operator.index(x)
    except TypeError:
        return None


def _poly_of(d: Dim) -> Poly:
    if type(d) is DimExpr:
        return d._poly
    return {(): d} if d else {}


def _make(poly: Poly) -> Dim:
    """The Dim of a normalised polynomial: a plain int when it is constant."""
    if not poly:
        return 0
    if len(poly) == 1 and () in poly:
        return poly[()]
    return DimExpr(poly)


def _atom_dim(op: str, lhs: Dim, rhs: Dim) -> DimExpr:
    return DimExpr({((_Atom(op, (lhs, rhs)), 1),): 1})


def _check_divisor(a: Dim, b: Dim, symbol: str) -> None:
    if type(b) is int and b <= 0:
        raise ShapeError(f"cannot compute {a} {symbol} {b}: a divisor must be positive")


def _floordiv(a: Dim, b: Dim) -> Dim:
    _check_divisor(a, b, "//")
    if type(b) is int:
        if type(a) is int:
            return a // b
        if b == 1:
            return a
        quotient: Poly = {}  # a = b*quotient + remainder, remainder's coefficients in [0, b)
        remainder: Poly = {}
        for mono, coeff in a._poly.items():  # type: ignore[union-attr]
            q, r = divmod(coeff, b)
            if q:
                quotient[mono] = q
            if r:
                remainder[mono] = r
        if not remainder or (len(remainder) == 1 and () in remainder):
            return _make(quotient)
        atom = _single_atom(remainder)
        if atom is not None and atom.op == "floordiv" and type(atom.args[1]) is int:
            rest = _floordiv(atom.args[0], atom.args[1] * b)  # (x // k) // b == x // (k*b)
        else:
            rest = _atom_dim("floordiv", _make(remainder), b)
        return _make(_add(quotient, _poly_of(rest), 1))
    if a == 0:
        return 0
    exact = _exact_quotient(_poly_of(a), b._poly)
    return _atom_dim("floordiv", a, b) if exact is None else _make(exact)


def _mod(a: Dim, b: Dim) -> Dim:
    _check_divisor(a, b, "%")
    if type(b) is int:
        if type(a) is int:
            return a % b
        remainder = {m: c % b for m, c in a._poly.items() if c % b}  # type: ignore[union-attr]
        rest = _make(remainder)
        return rest if type(rest) is int else _atom_dim("mod", rest, b)
    if a == 0 or _exact_quotient(_poly_of(a), b._poly) is not None:
        return 0
    return _atom_dim("mod", a, b)


def _min_max(op: str, a: Any, b: Any) -> Dim:
    x, y = _coerce(a), _coerce(b)
    if x is None or y is None:
        raise ParameterError(f"{op}: dimensions must be ints or DimExprs, got {a!r} and {b!r}")
    difference = x - y
    if type(difference) is int:
        return x if (difference <= 0) == (op == "min") else y
    lhs, rhs = sorted((x, y), key=dim_key)  # min and max commute
    return _atom_dim(op, lhs, rhs)


def dim_min(a: Dim, b: Dim) -> Dim:
    """`min(a, b)`; symbolic unless the two differ by a constant."""
    if type(a) is int and type(b) is int:
        return a if a <= b else b
    return _min_max("min", a, b)


def dim_max(a: Dim, b: Dim) -> Dim:
    """`max(a, b)`; symbolic unless the two differ by a constant."""
    if type(a) is int and type(b) is int:
        return a if a >= b else b
    return _min_max("max", a, b)


# --- evaluation and keys -------------------------------------------------------------------------

_APPLY: dict[str, Callable[[int, int], int]] = {
    "floordiv": operator.floordiv,
    "mod": operator.mod,
    "min": min,
    "max": max,
}


def _eval_atom(atom: _Atom, env: Mapping[str, int]) -> int:
    if atom.op == "sym":
        return int(env[atom.args[0]])
    lhs, rhs = (evaluate_dim(d, env) for d in atom.args)
    if rhs == 0 and atom.op in _INFIX:
        raise ShapeError(f"cannot evaluate {atom.key}: its divisor is 0")
    return _APPLY[atom.op](lhs, rhs)


def _eval_poly(poly: Poly, env: Mapping[str, int]) -> int:
    total = 0
    for mono, coeff in poly.items():
        for atom, exponent in mono:
            coeff *= _eval_atom(atom, env) ** exponent
        total += coeff
    return total


def _atom_symbols(atom: _Atom) -> frozenset[str]:
    if atom.op == "sym":
        return frozenset(atom.args)
    return dim_symbols(atom.args)


def dim_key(d: Dim) -> str:
    """A deterministic text for `d`, the same in every process (used in fingerprints)."""
    return str(d)


def evaluate_dim(d: Dim, env: Mapping[str, int]) -> int:
    """The value of `d` under `env` (ints are their own value)."""
    if type(d) is int:
        return d
    return d.evaluate(env) if isinstance(d, DimExpr) else operator.index(d)


def dim_symbols(shape: Dim | Iterable[Dim]) -> frozenset[str]:
    """The names a dimension or a shape depends on."""
    if isinstance(shape, DimExpr):
        return shape.symbols
    if type(shape) is int:
        return frozenset()
    names: frozenset[str] = frozenset()
    for d in shape:  # type: ignore[union-attr]
        if isinstance(d, DimExpr):
            names |= d.symbols
    return names
