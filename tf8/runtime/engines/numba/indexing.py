"""Structural ops as index arithmetic: how an element of the result reads its operands.

The indexed code generator (nests.py) computes every value element by element inside loop
nests, so a structural op costs no array of its own: its element at the index `idx` (a
tuple of index expressions, one per result axis) is an expression of its operands' elements
at other indices. `INDEXED[name](op, shapes, out, idx, read)` returns that expression;
`read(position, index)` is the operand's element expression at `index`, and `shapes` are
the operands' shapes. Views (broadcast_in_dim, slice, transpose, reshape, reverse) only
remap the index; pad and concatenate choose between operands with a conditional; iota is
its index.

`LOOPS[name]` are the ops whose element needs a loop of its own — reductions along axes and
dot_general — as `(init, combine, index builders)`: see `loop_code`.

`reads_per_element(op, shapes, out, position)` says how often the result reads each
element of an operand (a broadcast or a contraction reads it more than once): the code
generator computes such an operand once into an array instead of recomputing it per read.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

Index = tuple[str, ...]
Read = Callable[[int, Index], str]
Shape = tuple[int, ...]


def _offset(index: str, scale: int, offset: int) -> str:
    """`index * scale + offset`, simplified."""
    if index == "0":
        return str(offset)
    term = index if scale == 1 else f"{index} * {scale}"
    return term if not offset else f"({term} + {offset})"


def _broadcast_index(op: Any, shape: Shape, out: Shape, idx: Index) -> Index:
    dims = op["broadcast_dimensions"]
    return tuple("0" if n == 1 else idx[d] for n, d in zip(shape, dims))


def _slice_index(op: Any, shape: Shape, out: Shape, idx: Index) -> Index:
    strides = op["strides"] or (1,) * len(shape)
    return tuple(_offset(i, st, s) for i, s, st in zip(idx, op["start"], strides))


def _transpose_index(op: Any, shape: Shape, out: Shape, idx: Index) -> Index:
    result = [""] * len(shape)
    for k, axis in enumerate(op["permutation"]):
        result[axis % len(shape)] = idx[k]
    return tuple(result)


def _reverse_index(op: Any, shape: Shape, out: Shape, idx: Index) -> Index:
    axes = {a % len(shape) for a in op["axes"]}
    return tuple(
        f"({n - 1} - {i})" if a in axes and n > 1 else i for a, (i, n) in enumerate(zip(idx, shape))
    )


def _reshape_index(op: Any, shape: Shape, out: Shape, idx: Index) -> Index:
    """Row-major: through the flat position, unless the reshape only adds or drops axes of
    size 1 (then the other axes map one to one)."""
    kept_out = [i for i, n in zip(idx, out) if n != 1]
    if [n for n in shape if n != 1] == [n for n in out if n != 1]:
        it = iter(kept_out)
        return tuple("0" if n == 1 else next(it) for n in shape)
    terms, stride = [], 1
    for i, n in reversed(list(zip(idx, out))):
        if n != 1:
            terms.append(i if stride == 1 else f"{i} * {stride}")
        stride *= n
    flat = "(" + " + ".join(reversed(terms)) + ")" if terms else "0"
    result, stride = [], 1
    for n in reversed(shape):
        result.append("0" if n == 1 else f"(({flat} // {stride}) % {n})")
        stride *= n
    return tuple(reversed(result))


VIEWS: dict[str, Callable[[Any, Shape, Shape, Index], Index]] = {
    "broadcast_in_dim": _broadcast_index,
    "slice": _slice_index,
    "transpose": _transpose_index,
    "reverse": _reverse_index,
    "reshape": _reshape_index,
}


def _view(name: str) -> Callable[[Any, Sequence[Shape], Shape, Index, Read], str]:
    remap = VIEWS[name]
    return lambda op, shapes, out, idx, read: read(0, remap(op, shapes[0], out, idx))


def _pad(op: Any, shapes: Sequence[Shape], out: Shape, idx: Index, read: Read) -> str:
    conditions, inner = [], []
    for i, n, (lo, hi, interior) in zip(idx, shapes[0], op["config"]):
        if (lo, hi, interior) == (0, 0, 0):
            inner.append(i)
            continue
        q = _offset(i, 1, -lo)
        if interior:
            step = interior + 1
            conditions.append(f"{q} >= 0 and {q} % {step} == 0 and {q} // {step} < {n}")
            inner.append(f"({q} // {step})")
        else:
            conditions.append(f"{q} >= 0 and {q} < {n}" if lo > 0 else f"{q} < {n}")
            inner.append(q)
    if not conditions:
        return read(0, tuple(inner))
    return f"({read(0, tuple(inner))} if ({' and '.join(conditions)}) else {read(1, ())})"


def _concatenate(op: Any, shapes: Sequence[Shape], out: Shape, idx: Index, read: Read) -> str:
    axis = op["axis"] % len(out)
    offsets = np.cumsum([0] + [s[axis] for s in shapes]).tolist()
    i = idx[axis]
    expression = ""
    for position in range(len(shapes) - 1, -1, -1):
        index = (*idx[:axis], _offset(i, 1, -offsets[position]), *idx[axis + 1 :])
        element = read(position, index)
        if not expression:
            expression = element
        else:
            expression = f"({element} if {i} < {offsets[position + 1]} else {expression})"
    return expression


def _iota(op: Any, shapes: Sequence[Shape], out: Shape, idx: Index, read: Read) -> str:
    return f"np.{np.dtype(op['dtype']).name}({idx[op['dimension'] % len(out)]})"


INDEXED: dict[str, Callable[[Any, Sequence[Shape], Shape, Index, Read], str]] = {
    **{name: _view(name) for name in VIEWS},
    "pad": _pad,
    "concatenate": _concatenate,
    "iota": _iota,
}


# --- ops with a loop per element ------------------------------------------------------------

# reduction → (initial accumulator, the statement folding element `e` into `acc`)
_FOLD = {
    "reduce_sum": ("0.0", "{acc} += {e}"),
    "reduce_prod": ("1.0", "{acc} *= {e}"),
    # NaN propagates, as numpy's max/min
    "reduce_max": ("-np.inf", "{acc} = {e} if not ({acc} >= {e}) and {acc} == {acc} else {acc}"),
    "reduce_min": ("np.inf", "{acc} = {e} if not ({acc} <= {e}) and {acc} == {acc} else {acc}"),
}


def loop_code(
    op: Any, shapes: Sequence[Shape], out: Shape, idx: Index, read: Read, name: str
) -> tuple[list[str], str]:
    """The statements computing one element of a reduction or dot_general at `idx` (loops
    over the reduced or contracted axes, variables prefixed `name`), and the expression of
    the element afterwards."""
    acc = f"{name}acc"
    if op.name == "dot_general":
        init, fold = "0.0", "{acc} += {e}"
        (lc, rc), (lb, rb) = op["contracting"], op["batch"]
        ln, rn = len(shapes[0]), len(shapes[1])
        lc, lb = [a % ln for a in lc], [a % ln for a in lb]
        rc, rb = [a % rn for a in rc], [a % rn for a in rb]
        sizes = [shapes[0][a] for a in lc]
        lf = [a for a in range(ln) if a not in lc and a not in lb]
        rf = [a for a in range(rn) if a not in rc and a not in rb]

        def operand(axes_c: list[int], axes_b: list[int], free: list[int], skip: int) -> Index:
            n = len(axes_c) + len(axes_b) + len(free)
            return tuple(
                f"{name}{axes_c.index(a)}"
                if a in axes_c
                else idx[axes_b.index(a)]
                if a in axes_b
                else idx[len(lb) + skip + free.index(a)]
                for a in range(n)
            )

        element = f"{read(0, operand(lc, lb, lf, 0))} * {read(1, operand(rc, rb, rf, len(lf)))}"
    else:
        init, fold = _FOLD[op.name]
        axes = sorted(a % len(shapes[0]) for a in op["axes"])
        sizes = [shapes[0][a] for a in axes]
        kept = iter(idx)
        element = read(
            0,
            tuple(
                f"{name}{axes.index(a)}" if a in axes else next(kept) for a in range(len(shapes[0]))
            ),
        )
    lines = [f"{acc} = {init}"]
    depth = 0
    for k, n in enumerate(sizes):
        lines.append("    " * depth + f"for {name}{k} in range({n}):")
        depth += 1
    lines.append("    " * depth + fold.format(acc=acc, e=f"{name}e"))
    lines.insert(len(lines) - 1, "    " * depth + f"{name}e = {element}")
    return lines, acc


LOOPS = frozenset({*_FOLD, "dot_general"})


def reads_per_element(op: Any, shapes: Sequence[Shape], out: Shape, position: int) -> float:
    """How many result elements read each element of operand `position` (on average)."""
    size = math.prod(shapes[position])
    if op.name == "dot_general":
        (lc, _), _ = op["contracting"], op["batch"]
        contracted = math.prod(shapes[0][a % len(shapes[0])] for a in lc)
        return math.prod(out) * contracted / size
    if op.name == "broadcast_in_dim":
        return math.prod(out) / size
    return 1.0
