"""Random tf8 programs for differential fuzzing: random DAGs over the catalog, the extension
ops (einsum, linalg, fft, sort) and the control-flow ops (cond, scan, while_loop).

`random_program(rng, base_shape)` draws a `Program`: its input arrays (broadcast-compatible
shapes around `base_shape`, 0-d and size-0 included, NaN/inf/±0 sprinkled in) and a Python
function of tf8 values built from a list of steps. Every step reads earlier values (a DAG:
values are reused), so the same function can be traced, jitted or run eagerly.

Discontinuous ops (floor, sign, comparisons, atan2, a cond's predicate, ...) flip on a one-ulp
difference, and a reduction's summation order is the runtime's choice. So each value carries
`exact`: True while every path (lean, optimised, passes on or off, reference) computes it
bit for bit alike — elementwise ufuncs, max/min, structural ops; discontinuous ops read only
exact values. `smooth` (no discontinuous op at all) marks the programs also compared on engines
whose transcendental functions may differ by an ulp (numba).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from fuzz_windows import window_step

import tf8
import tf8.numpy as tnp
from tf8.lax.core import apply1

FLOAT_DTYPES = (np.float64, np.float64, np.float32, np.float16)
INT_DTYPES = (np.int32, np.int64, np.uint8, np.uint32)
COMPLEX_DTYPES = (np.complex128, np.complex64)
UNARY_COMPLEX = ("neg", "conj", "exp", "log", "sin", "cos", "tanh", "sqrt", "expm1", "log1p")
BINARY_COMPLEX = ("add", "sub", "mul", "div")
# Catalog rows applied as they are (after broadcasting their operands to one shape).
UNARY_SMOOTH = (
    "neg", "abs", "exp", "expm1", "log", "log1p", "sin", "cos", "tan", "sinh", "cosh", "tanh",
    "asin", "acos", "atan", "sqrt", "rsqrt", "erf", "erf_inv", "ndtri", "lgamma", "digamma",
    "bessel_i0e", "bessel_i1e", "logistic", "asinh", "acosh", "atanh", "cbrt", "erfc",
)  # fmt: skip
UNARY_STEP = ("sign", "floor", "ceil", "round")
# Running reductions along an axis (cumsum's kind); the differentiable programs take the smooth
SCANS = ("cumsum", "cumprod", "cummax", "cummin", "cumlogsumexp")
SCANS_DIFFERENTIABLE = ("cumsum", "cumprod", "cumlogsumexp")
BINARY_SMOOTH = ("add", "sub", "mul", "div", "pow", "maximum", "minimum", "atan2")
BINARY_STEP = ("rem",)
INT_UNARY = ("neg", "abs", "sign", "not", "population_count", "clz")
INT_BINARY = ("add", "sub", "mul", "maximum", "minimum", "and", "or", "xor")
# Differentiable programs: smooth everywhere on finite inputs (no kinks, no domain edges).
UNARY_DIFFERENTIABLE = ("neg", "sin", "cos", "tanh", "atan", "erf", "logistic", "asinh", "erfc")
BINARY_DIFFERENTIABLE = ("add", "sub", "mul")
SPECIALS = (np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0)


@dataclass
class Value:
    """A value of the program being built: its index, shape, and whether every evaluation
    path computes it bit for bit alike."""

    index: int
    shape: tuple[int, ...]
    exact: bool = True


@dataclass
class Program:
    """A random program: `fun(*inputs)` returns a tuple of tf8 values."""

    inputs: list[np.ndarray]
    steps: list[tuple[str, Callable[[list[Any]], Any]]] = field(default_factory=list)
    outputs: list[int] = field(default_factory=list)
    smooth: bool = True  # no discontinuous op: comparable on every engine
    float_program: bool = True
    forward_only: bool = False  # holds a while_loop: no reverse mode

    def fun(self, *args: Any) -> tuple[Any, ...]:
        values = list(args)
        for _, step in self.steps:
            values.append(step(values))
        return tuple(values[i] for i in self.outputs)

    def describe(self) -> str:
        shapes = ", ".join(f"{a.dtype}{list(a.shape)}" for a in self.inputs)
        return f"inputs ({shapes}); steps {[name for name, _ in self.steps]}"


def _input_shape(rng: np.random.Generator, base: tuple[int, ...]) -> tuple[int, ...]:
    """`base` with leading axes dropped and some axes set to 1: it broadcasts against it."""
    shape = list(base[rng.integers(0, len(base) + 1) if rng.random() < 0.3 else 0 :])
    return tuple(1 if rng.random() < 0.2 else d for d in shape)


def _input_array(rng: np.random.Generator, shape: tuple[int, ...], dtype: Any) -> np.ndarray:
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return rng.random(shape) < 0.5
    if dtype.kind in "iu":
        return rng.integers(-5 if dtype.kind == "i" else 0, 6, shape).astype(dtype)
    a = rng.normal(0, 2, shape)
    if dtype.kind == "c":
        a = a + 1j * rng.normal(0, 2, shape)
    if a.size and rng.random() < 0.5:
        flat = a.reshape(-1)
        picks = rng.integers(0, flat.size, rng.integers(1, 3))
        flat[picks] = rng.choice(SPECIALS, len(picks))
    return a.astype(dtype)


def _row(name: str, *args: Any, **params: Any) -> Any:
    """Catalog row `name` applied to `args` (tf8 values or, under check_grads, arrays)."""
    return apply1(name, [tnp.asarray(a) for a in args], **params)


def _broadcasts(a: tuple[int, ...], b: tuple[int, ...]) -> bool:
    try:
        np.broadcast_shapes(a, b)
    except ValueError:
        return False
    return True


def _broadcast(a: Any, b: Any) -> tuple[Any, Any]:
    shape = np.broadcast_shapes(tnp.shape(a), tnp.shape(b))
    return tnp.broadcast_to(a, shape), tnp.broadcast_to(b, shape)


class Builder:
    """Appends steps to a Program, tracking each value's shape and exactness."""

    def __init__(
        self, rng: np.random.Generator, program: Program, differentiable: bool = False
    ) -> None:
        self.rng = rng
        self.differentiable = differentiable
        self.program = program
        self.values = [Value(i, a.shape) for i, a in enumerate(program.inputs)]

    def pick(self, exact: bool = False) -> Value | None:
        pool = [v for v in self.values if v.exact or not exact]
        return pool[self.rng.integers(len(pool))] if pool else None

    def partner(self, x: Value, exact: bool = False) -> Value:
        """A value whose shape broadcasts against x's (x itself at worst)."""
        pool = [v for v in self.values if (v.exact or not exact) and _broadcasts(v.shape, x.shape)]
        return pool[self.rng.integers(len(pool))] if pool else x

    def add(self, name: str, step: Callable, shape: tuple[int, ...], exact: bool) -> Value:
        self.program.steps.append((name, step))
        value = Value(len(self.values), tuple(shape), exact)
        self.values.append(value)
        return value

    def axis(self, v: Value) -> int | None:
        return None if not v.shape else int(self.rng.integers(-len(v.shape), len(v.shape)))


def _float_step(b: Builder) -> None:
    """One random step of a float program."""
    rng = b.rng
    kind = rng.choice(
        ["unary", "binary", "step", "reduce", "cumsum", "struct", "einsum", "fft", "sort",
         "linalg", "cond", "scan", "while", "window"],
        p=[0.2, 0.21, 0.08, 0.1, 0.04, 0.1, 0.05, 0.04, 0.03, 0.04, 0.03, 0.03, 0.02, 0.03],
    )  # fmt: skip
    if b.differentiable and kind == "step":
        kind = "unary"
    unary = UNARY_DIFFERENTIABLE if b.differentiable else UNARY_SMOOTH
    binary = BINARY_DIFFERENTIABLE if b.differentiable else BINARY_SMOOTH
    x = b.pick()
    i = x.index
    if kind == "unary":
        name = str(rng.choice(unary))
        b.add(name, lambda v: _row(name, v[i]), x.shape, x.exact)
    elif kind == "binary":
        name = str(rng.choice(binary))
        if name == "atan2":  # it jumps by 2π across y = 0 where x < 0: it reads exact values
            x = b.pick(exact=True) or x
        y = b.partner(x, exact=name == "atan2")
        i, j = x.index, y.index
        shape = np.broadcast_shapes(x.shape, y.shape)
        b.add(name, lambda v: _row(name, *_broadcast(v[i], v[j])), shape, x.exact and y.exact)
    elif kind == "step":
        x = b.pick(exact=True) or x
        y = b.partner(x, exact=True)
        i, j = x.index, y.index
        b.program.smooth = False
        shape = np.broadcast_shapes(x.shape, y.shape)
        choice = rng.integers(3)
        if choice == 0:
            name = str(rng.choice(UNARY_STEP))
            b.add(name, lambda v: _row(name, v[i]), x.shape, True)
        elif choice == 1:
            b.add("rem", lambda v: _row("rem", *_broadcast(v[i], v[j])), shape, True)
        else:
            b.add("where", lambda v: tnp.where(v[i] > v[j], v[i], v[j] * 0.5), shape, True)
    elif kind == "reduce":
        name = str(
            rng.choice(
                ["sum", "mean"] if b.differentiable else ["sum", "prod", "max", "min", "mean"]
            )
        )
        axes = tuple(a for a in range(len(x.shape)) if rng.random() < 0.5)
        if name in ("max", "min") and any(x.shape[a] == 0 for a in axes):
            name = "sum"  # numpy refuses max over an empty axis (tested in the catalog)
        keep = bool(rng.random() < 0.3)
        shape = np.sum(np.zeros(x.shape), axis=axes, keepdims=keep).shape
        fn = getattr(tnp, name)
        b.add(name, lambda v: fn(v[i], axis=axes, keepdims=keep), shape,
              x.exact and name in ("max", "min"))  # fmt: skip
    elif kind == "cumsum" and x.shape:
        axis = b.axis(x)
        name = str(rng.choice(SCANS_DIFFERENTIABLE if b.differentiable else SCANS))
        b.add(name, lambda v: _row(name, v[i], axis=axis, reverse=False), x.shape, False)
    elif kind == "struct":
        _struct_step(b, x)
    elif kind == "einsum" and x.shape:
        y = b.pick()
        j = y.index
        # A contraction over x's last axis with a vector read from y (broadcast to fit).
        n = x.shape[-1]
        letters = "abcd"[: len(x.shape)]
        spec = f"{letters},{letters[-1]}->{letters[:-1]}"
        vec = lambda v: tnp.ones(n, v[i].dtype) * tnp.tanh(tnp.sum(v[j]))  # noqa: E731
        b.add("einsum", lambda v: tnp.einsum(spec, v[i], vec(v)), x.shape[:-1], False)
    elif kind == "fft" and x.shape and x.shape[-1] > 0:
        part = str(rng.choice(["real", "imag"] if b.differentiable else ["real", "imag", "abs"]))
        fn = getattr(tnp, part)
        # float16 transforms in complex64, as numpy: back to the program's dtype
        b.add("fft", lambda v: fn(tnp.fft.fft(v[i])).astype(v[i].dtype), x.shape, False)
    elif kind == "sort" and x.shape:
        axis = b.axis(x)
        b.add("sort", lambda v: tnp.sort(v[i], axis=axis), x.shape, x.exact)
    elif kind == "linalg" and not (b.differentiable and x.shape):
        _linalg_step(b, x)
    elif kind == "cond":
        k = (b.pick(exact=True) or x).index
        b.program.smooth = False
        b.add(
            "cond",
            lambda v: tf8.lax.cond(
                tnp.any(v[k] > 0.5), lambda a: tnp.sin(a) * 2.0, lambda a: a - 1.0, v[i]
            ),
            x.shape,
            x.exact,
        )
    elif kind == "scan" and x.shape:
        b.add("scan", lambda v: _scan(v[i]), x.shape, False)
    elif kind == "window":
        window_step(b, x)
    elif kind == "while":
        b.program.forward_only = True  # while_loop differentiates in forward mode only (JAX)
        b.add("while_loop", lambda v: _while(v[i]), x.shape, x.exact)


def _scan(x: Any) -> Any:
    """A scan over x's leading axis whose carry mixes into every output row."""

    def body(carry: Any, row: Any) -> tuple[Any, Any]:
        new = tnp.tanh(carry) * 0.5 + row
        return new, new * carry

    _, ys = tf8.lax.scan(body, tnp.zeros(x.shape[1:], x.dtype), x)
    return ys


def _while(x: Any) -> Any:
    """A while_loop with a fixed trip count of 3 (a counter carried beside x)."""
    _, out = tf8.lax.while_loop(
        lambda s: s[0] < 3, lambda s: (s[0] + 1, tnp.cos(s[1]) + s[1] * 0.5), (0, x)
    )
    return out


def _struct_step(b: Builder, x: Value) -> None:
    rng, i, shape = b.rng, x.index, x.shape
    choice = rng.integers(6)
    if choice == 0 and shape:
        perm = tuple(int(p) for p in rng.permutation(len(shape)))
        b.add("transpose", lambda v: tnp.transpose(v[i], perm), tuple(shape[p] for p in perm),
              x.exact)  # fmt: skip
    elif choice == 1:
        b.add("reshape", lambda v: tnp.reshape(tnp.reshape(v[i], (-1,)), shape), shape, x.exact)
    elif choice == 2 and shape:
        axis = b.axis(x)
        b.add("flip", lambda v: tnp.flip(v[i], axis=axis), shape, x.exact)
    elif choice == 3 and shape:
        n = len(shape)
        new = (shape[0] + 1) // 2, *shape[1:]
        b.add("slice", lambda v: v[i][::2], new, x.exact and n > 0)
    elif choice == 4 and shape:
        new = (2 * shape[0], *shape[1:])
        b.add("concatenate", lambda v: tnp.concatenate([v[i], v[i] * 2.0]), new, x.exact)
    elif shape:
        width = ((1, 0),) * len(shape)  # numpy refuses pad_width () for a 0-d array
        new = tuple(d + 1 for d in shape)
        b.add("pad", lambda v: tnp.pad(v[i], width, constant_values=1.5), new, x.exact)


def _linalg_step(b: Builder, x: Value) -> None:
    """A well-posed linalg op on a 3x3 matrix built from x, its result summed into x."""
    i = x.index
    names = ["inv", "det", "solve"] if b.differentiable else []
    choice = str(b.rng.choice(names or ["inv", "det", "solve", "eigh", "svd", "qr", "cholesky"]))

    def matrix(v: list[Any]) -> Any:
        s = tnp.tanh(tnp.sum(v[i]))
        # numpy's SVD and eigh refuse a NaN matrix (LinAlgError) where JAX returns NaN
        s = tnp.where(tnp.isnan(s), 0.25, s)
        return tnp.eye(3) * 3.0 + tnp.reshape(tnp.arange(9.0), (3, 3)) * 0.1 * s

    def run(v: list[Any]) -> Any:
        m = matrix(v)
        if choice == "inv":
            r = tnp.sum(tnp.linalg.inv(m))
        elif choice == "det":
            r = tnp.linalg.det(m)
        elif choice == "solve":
            r = tnp.sum(tnp.linalg.solve(m, tnp.ones(3)))
        elif choice == "eigh":
            r = tnp.sum(tnp.linalg.eigh(m + m.T)[0])
        elif choice == "svd":
            r = tnp.sum(tnp.linalg.svd(m, compute_uv=False))
        elif choice == "qr":
            r = tnp.sum(tnp.abs(tnp.linalg.qr(m)[1]))
        else:
            r = tnp.sum(tnp.linalg.cholesky(m @ m.T))
        return v[i] + tnp.asarray(r, dtype=v[i].dtype)

    b.add(choice, run, x.shape, False)


def _complex_step(b: Builder) -> None:
    """One random step of a complex program (elementwise rows, |x|·x, sums, fft, structure)."""
    x = b.pick()
    i, kind = x.index, b.rng.integers(6)
    if kind == 0:
        name = str(b.rng.choice(UNARY_COMPLEX))
        b.add(name, lambda v: _row(name, v[i]), x.shape, x.exact)
    elif kind == 1:
        y = b.partner(x)
        j, name = y.index, str(b.rng.choice(BINARY_COMPLEX))
        shape = np.broadcast_shapes(x.shape, y.shape)
        b.add(name, lambda v: _row(name, *_broadcast(v[i], v[j])), shape, x.exact and y.exact)
    elif kind == 2:
        b.add("abs", lambda v: tnp.abs(v[i]) * v[i], x.shape, x.exact)
    elif kind == 3:
        keep = bool(b.rng.random() < 0.5)
        axes = tuple(a for a in range(len(x.shape)) if b.rng.random() < 0.5)
        shape = np.sum(np.zeros(x.shape), axis=axes, keepdims=keep).shape
        b.add("sum", lambda v: tnp.sum(v[i], axis=axes, keepdims=keep), shape, False)
    elif kind == 4 and x.shape and x.shape[-1] > 0:
        b.add("fft", lambda v: tnp.fft.ifft(v[i]), x.shape, False)
    else:
        _struct_step(b, x)


def _int_step(b: Builder) -> None:
    x = b.pick()
    y = b.partner(x)
    i, j = x.index, y.index
    if b.rng.random() < 0.4:
        name = str(b.rng.choice(INT_UNARY))
        b.add(name, lambda v: _row(name, v[i]), x.shape, True)
    else:
        name = str(b.rng.choice(INT_BINARY))
        shape = np.broadcast_shapes(x.shape, y.shape)
        b.add(name, lambda v: _row(name, *_broadcast(v[i], v[j])), shape, True)


def random_program(
    rng: np.random.Generator, base: tuple[int, ...], differentiable: bool = False
) -> Program:
    """A random program over inputs of shapes broadcasting to `base`; `differentiable`: a
    float64 program, smooth on its finite inputs, for derivative checks."""
    family = (
        "float" if differentiable else rng.choice(["float", "complex", "int"], p=[0.75, 0.1, 0.15])
    )
    dtype = rng.choice(
        {"float": FLOAT_DTYPES, "complex": COMPLEX_DTYPES, "int": INT_DTYPES}[family]
    )
    if differentiable:
        dtype = np.float64
    float_program = family == "float"
    n_inputs = int(rng.integers(1, 4))
    shapes = [_input_shape(rng, base) for _ in range(n_inputs)]
    if differentiable:
        inputs = [rng.uniform(-1, 1, shape) for shape in shapes]
    else:
        inputs = [_input_array(rng, shape, dtype) for shape in shapes]
    program = Program(inputs, float_program=float_program)
    builder = Builder(rng, program, differentiable)
    n_steps = int(rng.integers(2, 8))
    while len(program.steps) < n_steps:  # a step whose op does not fit its operand adds nothing
        {"float": _float_step, "complex": _complex_step, "int": _int_step}[family](builder)
    last = len(builder.values) - 1
    extra = int(rng.integers(n_inputs, last + 1))
    program.outputs = sorted({last, extra})
    return program
