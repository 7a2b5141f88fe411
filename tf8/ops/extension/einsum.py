"""einsum: numpy's subscripts as one extension op with a contraction path chosen at trace time.

`tf8.lax.einsum` normalises the subscripts first (with the shape-level helpers here: ellipses
become letters, the implicit output is made explicit, size-1 axes that broadcast get letters of
their own; then repeated letters in one operand become `extract_diag`, letters only one operand
has become `reduce_sum`), so the `Einsum` op it records satisfies one invariant: every letter
of an operand appears in another operand or in the output. That keeps its AD rules
(`tf8.ad.families.einsum`) one line each; its kernel is in `einsum_kernels`.
"""

from __future__ import annotations

import string
from collections.abc import Sequence

import numpy as np

from tf8.errors import DTypeError, ParameterError, ShapeError
from tf8.ops import dtypes as dt
from tf8.ops.avals import Aval
from tf8.ops.extension.base import ExtensionOp
from tf8.ops.shapes import Dim, ShapeGuard, dims_equal, is_symbolic, shape_str

ELLIPSIS = "..."


class Einsum(ExtensionOp):
    """A normalised einsum: payload `(input subscripts, output subscripts, contraction path)`."""

    family = "tf8.einsum.v1"
    name = "einsum"

    def __init__(self, inputs: tuple[str, ...], output: str, path: tuple | None) -> None:
        super().__init__((inputs, output, path), len(inputs), 1)

    @property
    def subscripts(self) -> str:
        inputs, output, _ = self.payload
        return f"{','.join(inputs)}->{output}"

    def __repr__(self) -> str:
        return f"einsum[{self.subscripts}]"

    def batched_dot(self) -> bool:
        """A matrix product (`OpDefinition.batched_dot`): whether it has batch dimensions
        (letters in every operand and in the output)."""
        inputs, output, _ = self.payload
        return bool(set(output).intersection(*map(set, inputs))) if len(inputs) > 1 else False

    def infer(self, avals: Sequence[Aval], guards: list) -> tuple[Aval, ...]:
        inputs, output, _ = self.payload
        dtype = avals[0].dtype
        if any(a.dtype != dtype for a in avals) or dtype not in dt.NUMERIC:
            found = ", ".join(str(a) for a in avals)
            raise DTypeError(f"einsum: operands must share one numeric dtype, got {found}")
        sizes: dict[str, tuple[Dim, int]] = {}
        for i, (subs, aval) in enumerate(zip(inputs, avals)):
            if len(subs) != aval.ndim:
                raise ShapeError(
                    f"einsum {self.subscripts}: operand {i} has shape {shape_str(aval.shape)}"
                    f" but subscripts {subs!r}"
                )
            for letter, size in zip(subs, aval.shape):
                if letter not in sizes:
                    sizes[letter] = (size, i)
                    continue
                first, j = sizes[letter]
                same = dims_equal(first, size)
                if same is False:
                    raise ShapeError(_mismatch(self.subscripts, letter, first, j, size, i))
                if same is None:
                    guards.append(ShapeGuard(first, size, f"einsum subscript {letter!r}"))
        return (Aval(tuple(sizes[letter][0] for letter in output), dtype),)


def _mismatch(subscripts: str, letter: str, a: Dim, i: int, b: Dim, j: int) -> str:
    return (
        f"einsum {subscripts}: subscript {letter!r} has size {a} in operand {i}"
        f" but size {b} in operand {j}"
    )


def plan_path(subscripts: str, avals: Sequence[Aval]) -> tuple | None:
    """The contraction order, chosen once; None when shapes are symbolic (chosen at run time)."""
    if len(avals) < 2 or any(is_symbolic(a.shape) for a in avals):
        return None
    dummies = [np.broadcast_to(np.zeros((), a.dtype), a.shape) for a in avals]
    strategy = "optimal" if len(avals) <= 4 else "greedy"
    path, _ = np.einsum_path(subscripts, *dummies, optimize=strategy)
    return tuple(tuple(step) for step in path[1:])


# --- normalising numpy's subscripts (on shapes; `tf8.lax.einsum` records the op) ------------


def parse_subscripts(subscripts: str, count: int) -> tuple[list[str], str | None]:
    """(input subscripts, output subscripts or None when implicit), checked against `count`."""
    text = subscripts.replace(" ", "")
    if text.count("->") > 1:
        raise ParameterError(f"einsum: {subscripts!r} has more than one '->'")
    lhs, arrow, rhs = text.partition("->")
    inputs = lhs.split(",")
    if len(inputs) != count:
        raise ParameterError(
            f"einsum: {subscripts!r} names {len(inputs)} operand(s) but {count} were given"
        )
    for part in [*inputs, rhs]:
        bare = part.replace(ELLIPSIS, "", 1)
        if any(c not in string.ascii_letters for c in bare):
            raise ParameterError(f"einsum: bad subscripts {subscripts!r} (letters and '...' only)")
    return inputs, (rhs if arrow else None)


def expand_ellipses(
    inputs: list[str], output: str | None, operands: Sequence[Aval]
) -> tuple[list[list[str]], list[str]]:
    """Subscripts as letter lists, `...` replaced by fresh letters (right-aligned, as numpy)."""
    fresh = [c for c in string.ascii_letters if c not in "".join(inputs) + (output or "")]
    counts = []
    for i, (subs, x) in enumerate(zip(inputs, operands)):
        named = len(subs.replace(ELLIPSIS, ""))
        extra = x.ndim - named
        if extra < 0 or (extra > 0 and ELLIPSIS not in subs):
            raise ShapeError(
                f"einsum: operand {i} has shape {shape_str(x.shape)} but subscripts {subs!r}"
            )
        counts.append(extra)
    ellipsis = fresh[: max(counts, default=0)]
    del fresh[: len(ellipsis)]
    expanded = []
    for subs, extra in zip(inputs, counts):
        head, _, tail = subs.partition(ELLIPSIS)
        mid = ellipsis[len(ellipsis) - extra :] if extra else []
        expanded.append([*head, *mid, *tail])
    if output is None:
        letters = [c for sub in expanded for c in sub if c not in ellipsis]
        out = ellipsis + sorted(c for c in set(letters) if letters.count(c) == 1)
    else:
        head, _, tail = output.partition(ELLIPSIS)
        out = [*head, *(ellipsis if ELLIPSIS in output else []), *tail]
        known = {c for sub in expanded for c in sub}
        for c in out:
            if out.count(c) > 1 or c not in known:
                raise ParameterError(f"einsum: output subscript {c!r} repeated or not an input")
    return expanded, out


def broadcast_letters(subs: list[list[str]], operands: Sequence[Aval], subscripts: str) -> None:
    """Size-1 axes facing a larger size get a private letter (summed away, as numpy broadcasts)."""
    size: dict[str, tuple[Dim, int]] = {}
    for i, (letters, x) in enumerate(zip(subs, operands)):
        for letter, d in zip(letters, x.shape):
            if not is_symbolic(d) and d == 1:
                continue
            if letter in size and dims_equal(size[letter][0], d) is False:
                raise ShapeError(
                    _mismatch(subscripts, letter, size[letter][0], size[letter][1], d, i)
                )
            size.setdefault(letter, (d, i))
    used = {c for letters in subs for c in letters}
    fresh = (c for c in string.ascii_letters if c not in used)
    for letters, x in zip(subs, operands):
        for axis, (letter, d) in enumerate(zip(letters, x.shape)):
            if letter in size and not is_symbolic(d) and d == 1 and size[letter][0] != 1:
                letters[axis] = next(fresh)
