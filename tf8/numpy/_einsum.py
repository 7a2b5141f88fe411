"""`tf8.numpy.einsum`: JAX's signature over tf8.lax's einsum, with numpy's sublist form
(`einsum(a, [0, 1], b, [1, 2], [0, 2])`)."""

from __future__ import annotations

import string
from typing import Any

import numpy as np

from tf8.errors import ParameterError, UnsupportedOperationError
from tf8.lax.einsum import einsum as _einsum
from tf8.ops import dtypes as dt
from tf8.traced import TracedTensor

from ._core import asarray, astype

_LETTERS = string.ascii_letters


def _letters(sublist: Any, where: str) -> str:
    """A sublist (ints for axes, `...` for the broadcast axes) as subscript letters."""
    out = []
    for item in sublist:
        if item is Ellipsis:
            out.append("...")
        elif isinstance(item, (int, np.integer)) and not isinstance(item, bool):
            if not 0 <= item < len(_LETTERS):
                raise ParameterError(
                    f"einsum: {where} holds {item}; sublist labels are ints in [0, 52)"
                )
            out.append(_LETTERS[item])
        else:
            raise ParameterError(
                f"einsum: {where} holds {item!r}; sublists hold ints and Ellipsis only"
            )
    return "".join(out)


def _from_sublists(args: tuple) -> tuple[str, list[Any]]:
    """(subscripts, operands) of the form `einsum(op0, sub0, op1, sub1, ..., [sub_out])`."""
    operands, subs = list(args[0::2]), []
    pairs = len(args) // 2
    for k in range(pairs):
        subs.append(_letters(args[2 * k + 1], f"the sublist of operand {k}"))
    operands = operands[:pairs]
    subscripts = ",".join(subs)
    if len(args) % 2:
        subscripts += "->" + _letters(args[-1], "the output sublist")
    return subscripts, operands


def einsum(
    subscripts: Any,
    /,
    *operands: Any,
    out: Any = None,
    optimize: Any = "auto",
    precision: Any = None,
    preferred_element_type: Any = None,
) -> TracedTensor:
    """numpy's / JAX's `einsum`: a sum of products over the axes the subscripts name.

    Args:
      subscripts: `"ij,jk->ik"` style text; or numpy's sublist form, where the arguments
        alternate operands and lists of axis labels (ints, and `...`), with an optional
        output list last: `einsum(a, [0, 1], b, [1, 2], [0, 2])`.
      operands: the arrays.
      optimize: the contraction order strategy; tf8 always plans its own order (accepted).
      precision: accepted for JAX's signature; tf8's CPU kernels compute at full precision.
      preferred_element_type: the dtype to accumulate in and return.

    >>> import tf8.numpy as tnp
    >>> a, b = tnp.ones((2, 3)), tnp.ones((3, 4))
    >>> tnp.einsum("ij,jk->ik", a, b).shape, tnp.einsum(a, [0, 1], b, [1, 2], [0, 2]).shape
    ((2, 4), (2, 4))

    As JAX's; `out=` is refused (tf8 values are immutable).
    """
    if out is not None:
        raise UnsupportedOperationError("einsum: out= is not supported (tf8 values are immutable)")
    del optimize, precision
    if not isinstance(subscripts, str):
        subscripts, operands = _from_sublists((subscripts, *operands))
    if preferred_element_type is not None:
        dtype = dt.as_dtype(preferred_element_type)
        operands = tuple(astype(asarray(x), dtype) for x in operands)
        return astype(_einsum(subscripts, *operands), dtype)
    return _einsum(subscripts, *operands)
