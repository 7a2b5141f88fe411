"""einsum on traced values: normalise numpy's subscripts, then record one `Einsum` op.

Normalisation (`tf8.ops.extension.einsum`) makes ellipses letters, the implicit output
explicit and size-1 broadcast axes letters of their own; here repeated letters in one operand
become `extract_diag` and letters only one operand has become `reduce_sum`, so the recorded op
keeps its invariant: every letter of an operand appears in another operand or in the output.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tf8.errors import ParameterError, ShapeError
from tf8.lax.core import apply, apply1
from tf8.ops import dtypes as dt
from tf8.ops.extension.einsum import (
    Einsum,
    broadcast_letters,
    expand_ellipses,
    parse_subscripts,
    plan_path,
)
from tf8.ops.shapes import dims_equal
from tf8.traced import TracedTensor, tensor


def contract(inputs: Sequence[str], output: str, operands: Sequence[TracedTensor]) -> TracedTensor:
    """Record an already-normalised einsum (see the module docstring for the invariant)."""
    if len(operands) == 1:
        perm = tuple(inputs[0].index(letter) for letter in output)
        if perm == tuple(range(len(perm))):
            return operands[0]
        return apply1("transpose", [operands[0]], permutation=perm)
    subscripts = f"{','.join(inputs)}->{output}"
    path = plan_path(subscripts, [t.aval for t in operands])
    return apply(Einsum(tuple(inputs), output, path), list(operands))[0]


def _take_diagonals(letters: list[str], x: TracedTensor, subscripts: str) -> TracedTensor:
    """x with every repeated letter reduced to its diagonal (letters updated in place)."""
    while len(set(letters)) < len(letters):
        letter = next(c for c in letters if letters.count(c) > 1)
        p = letters.index(letter)
        q = letters.index(letter, p + 1)
        if dims_equal(x.shape[p], x.shape[q]) is False:
            raise ShapeError(
                f"einsum {subscripts}: repeated subscript {letter!r} has sizes"
                f" {x.shape[p]} and {x.shape[q]}"
            )
        rest = [k for k in range(x.ndim) if k not in (p, q)]
        x = apply1("extract_diag", [_permute(x, (*rest, p, q))])
        letters[:] = [letters[k] for k in rest] + [letter]
    return x


def _permute(x: TracedTensor, perm: tuple[int, ...]) -> TracedTensor:
    if perm == tuple(range(x.ndim)):
        return x
    return apply1("transpose", [x], permutation=perm)


def einsum(subscripts: str, *operands: Any) -> TracedTensor:
    """numpy.einsum on traced values (explicit or implicit output, `...`, size-1 broadcasting)."""
    if not operands:
        raise ParameterError("einsum: needs at least one operand")
    xs = [tensor(x) for x in operands]
    dtype = dt.result_type(*[x.dtype for x in xs])
    xs = [x if x.dtype == dtype else apply1("convert", [x], dtype=dtype) for x in xs]
    inputs, output = parse_subscripts(subscripts, len(xs))
    avals = [x.aval for x in xs]
    subs, out = expand_ellipses(inputs, output, avals)
    broadcast_letters(subs, avals, subscripts)
    xs = [_take_diagonals(letters, x, subscripts) for letters, x in zip(subs, xs)]
    for i, (letters, x) in enumerate(zip(subs, xs)):
        others = set(out).union(*(set(s) for j, s in enumerate(subs) if j != i))
        lonely = tuple(k for k, c in enumerate(letters) if c not in others)
        if lonely:
            xs[i] = apply1("reduce_sum", [x], axes=lonely)
            subs[i] = [c for k, c in enumerate(letters) if k not in lonely]
    return contract(["".join(s) for s in subs], "".join(out), xs)
