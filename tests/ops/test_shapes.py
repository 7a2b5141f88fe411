"""Symbolic dimensions: normal form, evaluation, dims_equal, guards, text and errors."""

from __future__ import annotations

import operator
import os
import pickle
import subprocess
import sys
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tf8
from tf8.errors import ParameterError, ShapeError, ShapeGuardError
from tf8.ops.shapes import (
    DimExpr,
    ShapeGuard,
    as_dim,
    as_shape,
    dim_key,
    dim_max,
    dim_min,
    dim_symbols,
    dims_equal,
    evaluate_dim,
    evaluate_shape,
    is_symbolic,
    shape_str,
    sym,
)

PROPERTY = settings(max_examples=max(50, settings.default.max_examples), deadline=None)
NAMES = ("n", "m", "k")
n, m, k = sym("n"), sym("m"), sym("k")

# --- random expressions, built twice: as DimExprs and as plain Python ints --------------------
# An expression is a nested tuple; divisors are kept provably positive (a positive constant, a
# symbol, or a symbol plus a non-negative constant), as dimensions are.

constants = st.integers(-4, 6).map(lambda c: ("const", c))
symbols = st.sampled_from(NAMES).map(lambda s: ("sym", s))
divisors = st.one_of(
    st.integers(1, 5).map(lambda c: ("const", c)),
    symbols,
    st.tuples(symbols, st.integers(0, 3).map(lambda c: ("const", c))).map(lambda t: ("+", *t)),
)


def _extend(children: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.one_of(
        st.tuples(st.sampled_from(["+", "-", "*", "min", "max"]), children, children),
        st.tuples(st.sampled_from(["//", "%"]), children, divisors),
        st.tuples(st.just("neg"), children),
    )


expressions = st.recursive(st.one_of(constants, symbols), _extend, max_leaves=7)
envs = st.fixed_dictionaries({name: st.integers(1, 12) for name in NAMES})

_BINARY = {
    "+": operator.add,
    "-": operator.sub,
    "*": operator.mul,
    "//": operator.floordiv,
    "%": operator.mod,
}


def build(expr: Any, leaf: Any, minimum: Any, maximum: Any) -> Any:
    """Interpret `expr` with `leaf` for symbols and the given min and max."""
    tag, *args = expr
    if tag == "const":
        return args[0]
    if tag == "sym":
        return leaf(args[0])
    values = [build(a, leaf, minimum, maximum) for a in args]
    if tag == "neg":
        return -values[0]
    if tag in ("min", "max"):
        return (minimum if tag == "min" else maximum)(*values)
    return _BINARY[tag](*values)


def symbolic(expr: Any) -> Any:
    return build(expr, sym, dim_min, dim_max)


def concrete(expr: Any, env: dict[str, int]) -> int:
    return build(expr, env.__getitem__, min, max)


# --- properties ----------------------------------------------------------------------------


@PROPERTY
@given(expressions, envs)
def test_normal_form_evaluates_like_python_ints(expr: Any, env: dict[str, int]) -> None:
    dim = symbolic(expr)
    assert type(dim) in (int, DimExpr)
    assert evaluate_dim(dim, env) == concrete(expr, env)


@PROPERTY
@given(expressions)
def test_constants_are_plain_ints(expr: Any) -> None:
    dim = symbolic(expr)
    if isinstance(dim, DimExpr):
        assert dim.symbols and dim != 0
        assert isinstance(dim - dim, int) and dim - dim == 0


@PROPERTY
@given(expressions, expressions, expressions)
def test_ring_laws_hold_in_normal_form(a: Any, b: Any, c: Any) -> None:
    x, y, z = symbolic(a), symbolic(b), symbolic(c)
    pairs = [
        (x + y, y + x),
        (x * y, y * x),
        ((x + y) + z, x + (y + z)),
        ((x * y) * z, x * (y * z)),
        ((x + y) * z, x * z + y * z),
        ((x - y) + y, x),
        (x * 6 // 3, x * 2),
        (dim_min(x, y), dim_min(y, x)),
        (dim_max(x, x), x),
    ]
    for left, right in pairs:
        assert left == right, (left, right)
        assert hash(left) == hash(right)
        assert dim_key(left) == dim_key(right)
        assert dims_equal(left, right) is True


@PROPERTY
@given(expressions, st.integers(1, 7), envs)
def test_floordiv_mod_by_constant_match_python(
    expr: Any, divisor: int, env: dict[str, int]
) -> None:
    dim, value = symbolic(expr), concrete(expr, env)
    assert evaluate_dim(dim // divisor, env) == value // divisor
    assert evaluate_dim(dim % divisor, env) == value % divisor
    assert evaluate_dim((dim // divisor) * divisor + dim % divisor, env) == value


@PROPERTY
@given(expressions, expressions, envs)
def test_dims_equal_is_sound(a: Any, b: Any, env: dict[str, int]) -> None:
    verdict = dims_equal(symbolic(a), symbolic(b))
    same = concrete(a, env) == concrete(b, env)
    if verdict is True:
        assert same
    elif verdict is False:
        assert not same


@PROPERTY
@given(expressions)
def test_pickle_and_str_round_trip(expr: Any) -> None:
    dim = symbolic(expr)
    again = pickle.loads(pickle.dumps(dim))
    assert again == dim and hash(again) == hash(dim) and str(again) == str(dim)


# --- normal form examples --------------------------------------------------------------------


def test_examples_from_the_design() -> None:
    assert n * 3 + 1 - n * 3 == 1 and type(n * 3 + 1 - n * 3) is int
    assert (n + 1) * (n - 1) == n * n - 1
    assert n * 2 // 2 == n
    assert dim_min(n, n) == n and dim_max(n, n) == n
    assert (n + 2) // 2 == n // 2 + 1
    assert (n // 2) // 3 == n // 6
    assert (n * 2 + 3) % 2 == 1
    assert (n * m * 4) // (m * 2) == n * 2
    assert (n * 2 + 2) // (n + 1) == 2 and (n * 2 + 2) % (n + 1) == 0
    assert dim_min(n + 1, n) == n and dim_max(n + 1, n) == n + 1
    assert n**2 == n * n and (n + m) ** 2 == n * n + n * m * 2 + m * m


def test_equality_and_hashing() -> None:
    assert (n + m) == (m + n) and hash(n + m) == hash(m + n)
    assert (n + 1 == 1) is False and (n == 0) is False and (n != n) is False
    assert (n == "n") is False
    assert n * np.int64(2) == n * 2 and np.int64(3) + n == n + 3
    assert {n * 2: "x"}[2 * n] == "x"
    with pytest.raises(AttributeError):
        n._poly = {}  # type: ignore[misc]


@pytest.mark.parametrize(
    ("dim", "text"),
    [
        (n * 3 + 1, "n*3 + 1"),
        (1 - n, "-n + 1"),
        (dim_max(n, m), "max(m, n)"),
        (dim_min(m, n) * 2 + 1, "min(m, n)*2 + 1"),
        (n // 2, "n // 2"),
        ((n + 1) // 2, "(n + 1) // 2"),
        ((n // 2) * 3, "(n // 2)*3"),
        (-(n // 2), "-(n // 2)"),
        (n % m, "n % m"),
        (n * n * m * 2 - m + 7, "m*n^2*2 - m + 7"),
        ((n + m) ** 2, "m^2 + m*n*2 + n^2"),
        (5 // n, "5 // n"),
        (n // (m * 2), "n // (m*2)"),
    ],
)
def test_str(dim: DimExpr, text: str) -> None:
    assert str(dim) == text == dim_key(dim)
    assert repr(dim) == f"DimExpr({text!r})"


ROOT = os.path.dirname(os.path.dirname(os.path.abspath(tf8.__file__)))  # tf8 importable there


def test_dim_key_is_the_same_in_every_process() -> None:
    code = (
        "from tf8.ops.shapes import sym, dim_min\n"
        "a, b, c = sym('zeta'), sym('alpha'), sym('mu')\n"
        "print(repr(dim_min(a*b + c, b*b) * (c + 1) // 3 + a % (b + 2) - 7))"
    )
    outputs = {
        subprocess.run(
            [sys.executable, "-c", code],
            capture_output=True,
            text=True,
            check=True,
            env={**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": ROOT},
        ).stdout
        for seed in ("1", "2", "3")
    }
    assert len(outputs) == 1


def test_evaluate_and_symbols() -> None:
    env = {"n": 7, "m": np.int64(3)}
    dim = dim_max(n, m * 3) // 2 + n % m
    assert dim.evaluate(env) == 9 // 2 + 7 % 3
    assert type(dim.evaluate(env)) is int
    assert dim.symbols == frozenset({"n", "m"}) == dim_symbols((dim, 4))
    assert dim_symbols((1, 2)) == frozenset() and dim_symbols(k) == {"k"}
    assert evaluate_shape((n, 3, n * m), env) == (7, 3, 21)
    assert evaluate_dim(5, {}) == 5


def test_as_dim_as_shape_and_predicates() -> None:
    assert as_dim(3) == 3 and type(as_dim(np.int32(4))) is int
    assert as_dim("n") == n and as_dim(n + 1) == n + 1
    assert as_shape(["n", 3, np.int64(2)]) == (n, 3, 2)
    assert DimExpr.symbol("n") == sym("n") == n
    assert is_symbolic((1, n)) and is_symbolic(n) and not is_symbolic((1, 2)) and not is_symbolic(3)
    assert shape_str((n, 3)) == "(n, 3)" and shape_str((n,)) == "(n,)" and shape_str(()) == "()"


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        (3, 3, True),
        (3, 4, False),
        (n, n, True),
        (n * 2, n + n, True),
        (n + 1, n, False),
        (n, n + 2, False),
        (n, m, None),
        (n, 3, None),
        (3, n, None),
        (n * 2, n, None),
        (n // 2, n, None),
        (dim_min(n, m), dim_min(m, n), True),
    ],
)
def test_dims_equal_truth_table(a: Any, b: Any, expected: bool | None) -> None:
    assert dims_equal(a, b) is expected


def test_provable_comparisons() -> None:
    assert n + 1 > n and n < n + 1 and n >= n and n <= n and not n > n
    assert 3 + n > n + 2 and n * 2 - 1 < n * 2
    for compare in (operator.lt, operator.le, operator.gt, operator.ge):
        with pytest.raises(ShapeError, match="cannot decide n .* m at trace time"):
            compare(n, m)
    with pytest.raises(ShapeError, match="cannot decide"):
        _ = n > 0


# --- guards and errors -----------------------------------------------------------------------


def test_shape_guard() -> None:
    guard = ShapeGuard(n, m * 2, "matmul inner dimensions")
    guard.check({"n": 6, "m": 3})
    with pytest.raises(ShapeGuardError) as info:
        guard.check({"n": 5, "m": 3})
    assert str(info.value) == "shape guard failed: matmul inner dimensions: n = 5 but m*2 = 6"
    assert isinstance(info.value, ValueError)
    assert ShapeGuard("n", 4, "r") == ShapeGuard(n, 4, "r")
    assert hash(ShapeGuard(n, 4, "r")) == hash(ShapeGuard(sym("n"), 4, "r"))
    with pytest.raises(ShapeError, match="no value for dimension 'm'"):
        guard.check({"n": 5})


@pytest.mark.parametrize("convert", [bool, int, operator.index, range, lambda d: np.zeros((d,))])
def test_no_concrete_value_at_trace_time(convert: Any) -> None:
    with pytest.raises(ShapeError, match=r"symbolic dimension n\*3 has no concrete value"):
        convert(n * 3)


def test_error_messages() -> None:
    with pytest.raises(ShapeError, match=r"cannot evaluate dimension n\*3: no value for .*'n'"):
        (n * 3).evaluate({"m": 1})
    with pytest.raises(ShapeError, match="divisor must be positive"):
        _ = n // 0
    with pytest.raises(ShapeError, match="divisor must be positive"):
        _ = n % -2
    with pytest.raises(ShapeError, match=r"cannot evaluate n // m: its divisor is 0"):
        (n // m).evaluate({"n": 1, "m": 0})
    with pytest.raises(ParameterError, match="must be an int, a name or a DimExpr"):
        as_dim(1.5)
    with pytest.raises(ParameterError, match="must be an int, a name or a DimExpr"):
        as_dim(True)
    with pytest.raises(ParameterError, match="non-negative"):
        as_dim(-1)
    with pytest.raises(ParameterError, match="Python identifier"):
        sym("a b")
    with pytest.raises(TypeError):
        _ = n + 1.5
    with pytest.raises(TypeError):
        _ = n / 2
