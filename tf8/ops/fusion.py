"""The facts an engine needs to fuse a primitive, held on the primitive's definition.

Engines read these instead of keeping tables keyed by primitive name:
- the numpy engine calls ufuncs with `out=` inside blocked regions: `Fusion.ufunc(op,
  dtypes)` gives the `Step`s that compute the op exactly as its kernel does (same ufuncs,
  same order, same dtypes), or None where a ufunc cannot (integer division, ...);
  `Fusion.reduce` is `(ufunc, keep_dtype)` for a reduction computed by `ufunc.reduce`;
- the numba engine compiles one loop per region: `Fusion.scalar(op, args)` is the source of
  one element of the result from its operands' element expressions; `repeats` says that
  source names an operand twice (a nested operand is then computed into a name first);
  `bool_operands` are the operand positions that may be bool, and `bool_result` says the
  result is bool (compare); `accumulate` is a reduction's `(initial value, lanes function
  folding a block)`;
- the numba engine's loop nests (indexed code, for structural ops and reductions along axes)
  read a structural row as index arithmetic: a view's `index(op, shape, out, idx)` maps the
  index expressions `idx` of a result element to its operand's (broadcast_in_dim, slice,
  transpose, reverse, reshape), and another structural row's `element(op, shapes, out, idx,
  read)` is the source of its element from its operands' (`read(position, index)`: pad,
  concatenate, iota); `loop(op, shapes, idx, read, name)` is a reduction's or contraction's
  `Loop`; `reads(op, shapes, out, position)` is how many result elements read each element
  of an operand when that is not one (a broadcast, a contraction); `multiply_adds(op, shapes,
  out)` sizes a contraction (a large one is left to BLAS); `numba_declines` are the dtypes
  the engine leaves to numpy (a scalar libm call slower than numpy's SIMD loop);
- the Dask engine builds lazy `dask.array` graphs: `Fusion.dask(kit, op, *arrays)` is a
  row's own lazy kernel, for a row that maps to dask.array operations (slices, padding);
  `kit` is what the engine hands in (`kit.array` is `dask.array`, `kit.as_dask(x)`,
  `kit.single_chunk(op, *arrays)` runs the numpy kernel as one task), so the home imports
  no dask. Without one, an elementwise row's kernel runs on each block, unless `whole_array`
  says the kernel is written with array methods dask arrays share (`.real`, `.astype`):
  then it is called once on the lazy arrays themselves (convert: one `astype`).
The numpy engine and its passes also read, for the structural rows, `Fusion.view` (the op's
result is a view of its operand: `View`), and for contractions `Fusion.matmul` (the source of
one BLAS `matmul` call computing the op).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

PREVIOUS = -1  # a step argument: the result of the previous step


@dataclass(frozen=True, slots=True)
class Literal:
    """A Python scalar step argument (weak under NEP 50, as in the kernel's `1 / sqrt(x)`)."""

    value: int | float


@dataclass(frozen=True, slots=True)
class Step:
    """One ufunc call; `args` are operand positions, PREVIOUS or Literals."""

    ufunc: np.ufunc
    args: tuple[int | Literal, ...]


Steps = tuple[Step, ...]
StepRule = Callable[[Any, Sequence[np.dtype]], Steps | None]
ScalarCode = Callable[[Any, Sequence[str]], str]
# (prefix, value) -> the name of a global of the generated code that holds `value`
Bind = Callable[[str, Any], str]


@dataclass(frozen=True, slots=True)
class View:
    """The op's result is a view of its one operand (numpy makes no copy): view folding
    (tf8.runtime.passes.view_folding) lets a reader read the operand through it, and the
    numpy engine writes it as an expression on the operand's.

    - `code(op, operand, bind)`: that expression (`bind` names a global it may read); None:
      the call of the op's kernel;
    - `method`: `code` calls an ndarray method (`x.transpose(p)`), cheaper than the kernel
      call, so an instruction of the op's own is written as `code` too;
    - `rank(op, ndim)`: the result's rank from the operand's (None: the same rank);
    - `broadcast`: the result broadcasts the operand, so ufuncs read a 0-d operand as it
      is (numpy broadcasts it for free) and a uniform operand gives a uniform result.
    """

    code: Callable[[Any, str, Bind], str] | None = None
    method: bool = False
    rank: Callable[[Any, int], int] | None = None
    broadcast: bool = False


# numba engine, loop nests: index expressions (one per axis), an operand's element at an index
# (`read(position, index)`), shapes
Index = tuple[str, ...]
Read = Callable[[int, Index], str]
Shape = tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Loop:
    """One element of a reduction or contraction as loops (numba): loop k runs over
    `range(sizes[k])` with the variable `<name>k`; `element` is the source of one term at the
    loops' indices, folded by `fold` (a statement on `{acc}` and `{e}`) into an accumulator
    that starts at `init`."""

    init: str
    fold: str
    sizes: tuple[int, ...]
    element: str


IndexRule = Callable[[Any, Shape, Shape, Index], Index]
ElementCode = Callable[[Any, Sequence[Shape], Shape, Index, Read], str]
LoopCode = Callable[[Any, Sequence[Shape], Index, Read, str], Loop]
ReadCount = Callable[[Any, Sequence[Shape], Shape, int], float]


@dataclass(frozen=True, slots=True)
class Fusion:
    """How the engines fuse one primitive (every field optional: absent means "not fused")."""

    ufunc: StepRule | None = None
    scalar: ScalarCode | None = None
    repeats: bool = False
    bool_operands: tuple[int, ...] = ()
    bool_result: bool = False
    whole_array: bool = False
    reduce: tuple[np.ufunc, bool] | None = None
    accumulate: tuple[str, str] | None = None
    dask: Callable[..., Any] | None = None
    # --- numpy engine and its passes (view folding, rewrites): views and matmul ---
    view: View | None = None  # the op's result is a view of its operand (`View`)
    # (op, operand ranks, operand expressions) -> one `matmul(a, b)` call computing the op
    # (np.matmul in the generated code's scope), or None where the operands do not allow it
    matmul: Callable[[Any, list[int], list[str]], str | None] | None = None
    # numba engine, loop nests (tf8/runtime/engines/numba/nests.py): see "numba engine: index
    # arithmetic and loops" below
    index: IndexRule | None = None
    element: ElementCode | None = None
    loop: LoopCode | None = None
    reads: ReadCount | None = None
    multiply_adds: Callable[[Any, Sequence[Shape], Shape], int] | None = None
    numba_declines: tuple[str, ...] = ()


# --- numpy engine: ufunc steps ------------------------------------------------------------


def direct(ufunc: np.ufunc, kinds: str = "biufc") -> StepRule:
    """The op is `ufunc` applied to its operands in order, for operand dtype kinds `kinds`."""

    def rule(op: Any, dtypes: Sequence[np.dtype]) -> Steps | None:
        if all(d.kind in kinds for d in dtypes):
            return (Step(ufunc, tuple(range(len(dtypes)))),)
        return None

    return rule


def scipy_direct(name: str, kinds: str) -> StepRule:
    """`direct` on the scipy.special ufunc `name`, imported when a program first uses it
    (scipy is heavy: `import tf8` does not load it)."""

    def rule(op: Any, dtypes: Sequence[np.dtype]) -> Steps | None:
        if any(d == np.float16 for d in dtypes):
            return None  # scipy has no float16 loops (it returns float32/64): the kernel casts
        return direct(getattr(importlib.import_module("scipy.special"), name), kinds)(op, dtypes)

    return rule


def by_dtype(for_bool: np.ufunc, for_int: np.ufunc) -> StepRule:
    """Logical ufunc on bool operands, bitwise on integers."""

    def rule(op: Any, dtypes: Sequence[np.dtype]) -> Steps | None:
        ufunc = for_bool if dtypes[0] == np.bool_ else for_int
        return (Step(ufunc, tuple(range(len(dtypes)))),)

    return rule


# --- numba engine: scalar code --------------------------------------------------------------


def infix(symbol: str) -> ScalarCode:
    """`a <symbol> b` on the two operands."""
    return lambda op, a: f"({a[0]} {symbol} {a[1]})"


def call(function: str) -> ScalarCode:
    """`function(a, b, ...)`: a function in scope of the compiled loop (`np`, `math`)."""
    return lambda op, a: f"{function}({', '.join(a)})"


# --- numba engine: index arithmetic and loops ----------------------------------------------


def offset_index(index: str, scale: int, offset: int) -> str:
    """The index expression `index * scale + offset`, simplified."""
    if index == "0":
        return str(offset)
    term = index if scale == 1 else f"{index} * {scale}"
    return term if not offset else f"({term} + {offset})"
