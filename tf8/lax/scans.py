"""JAX's parallel prefix scan, `lax.associative_scan`, and the running reductions
`cumprod`, `cummax`, `cummin` and `cumlogsumexp` (beside `cumsum` in tf8.lax.structure).

`associative_scan` is JAX's odd/even recursion written in lax ops (strided slices, the
combining function on whole slices, interior padding to interleave): ⌈log₂ n⌉ levels of a few
ops, differentiable through its parts. The running reductions are catalog primitives
(`tf8/ops/primitives/cumulative.py`: numpy's `accumulate`), whose derivative rule is the JVP of
this scan, as JAX's.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from tf8 import tree
from tf8.errors import AxisError, DTypeError, ParameterError, ShapeError, TreeStructureError
from tf8.lax.core import apply1
from tf8.lax.in_dim import slice_in_dim
from tf8.lax.ops import _array, add, bitwise_or, concatenate, pad, rev
from tf8.ops import dtypes as dt
from tf8.traced import TracedTensor


def _interleave(a: TracedTensor, b: TracedTensor, axis: int) -> TracedTensor:
    """a[0], b[0], a[1], b[1], ... along `axis` (a as long as b, or one longer): each padded
    with zeros between its entries, then added (or-ed for bools), as JAX's."""
    even = a.shape[axis] == b.shape[axis]
    a_config = [(0, 0, 0)] * a.ndim
    b_config = [(0, 0, 0)] * b.ndim
    a_config[axis] = (0, 1 if even else 0, 1)
    b_config[axis] = (1, 0 if even else 1, 1)
    join = bitwise_or if a.dtype == dt.bool_ else add
    return join(pad(a, 0, a_config), pad(b, 0, b_config))


def associative_scan(
    fn: Callable[[Any, Any], Any], elems: Any, reverse: bool = False, axis: int = 0
) -> Any:
    """The inclusive scan of `elems` (a pytree of arrays of one size along `axis`) by the
    associative `fn`: entry k of the result is `fn` folded over entries 0..k (over k..n-1,
    from the end, with `reverse`). `fn(a, b)` takes and returns pytrees like `elems` whose
    arrays hold a slice of entries along `axis`, so it must work elementwise along that axis.

    Args:
      fn: an associative function of two pytrees like `elems`.
      elems: a pytree of arrays of one size along `axis`.
      reverse: scan from the end.
      axis: the axis to scan along (negative counts from the end).

    >>> import numpy as np
    >>> from tf8 import lax
    >>> lax.associative_scan(lax.add, np.arange(5))
    Array([ 0,  1,  3,  6, 10], dtype=int64)
    >>> lax.associative_scan(lax.add, np.arange(4), reverse=True)
    Array([6, 6, 5, 3], dtype=int64)

    As JAX's: fn is called on slices (not vmapped); zeros' signs follow its interleaving by
    addition (a -0.0 entry may come back +0.0). Differentiable in both modes through its ops.
    """
    if not callable(fn):
        raise ParameterError(f"associative_scan: fn must be callable, got {fn!r}")
    leaves, treedef = tree.tree_flatten(elems)
    if not leaves:
        raise ParameterError("associative_scan: elems holds no arrays")
    xs = [_array(x) for x in leaves]
    ndim = xs[0].ndim
    if not isinstance(axis, (int, np.integer)) or not -ndim <= axis < ndim:
        raise AxisError(f"associative_scan: axis {axis} is out of range for {xs[0].aval}")
    axis = int(axis) % ndim
    n = xs[0].shape[axis]
    if not isinstance(n, int):
        raise ShapeError(
            f"associative_scan: the scanned axis of {xs[0].aval} must have a known size"
        )
    if any(x.ndim <= axis or x.shape[axis] != n for x in xs):
        raise ShapeError(
            "associative_scan: the arrays must share the size of axis "
            f"{axis}, got " + ", ".join(str(x.aval) for x in xs)
        )
    if reverse:
        xs = [rev(x, (axis,)) for x in xs]

    def combine(a: list[TracedTensor], b: list[TracedTensor]) -> list[TracedTensor]:
        out = fn(tree.tree_unflatten(treedef, a), tree.tree_unflatten(treedef, b))
        flat, out_def = tree.tree_flatten(out)
        if out_def != treedef:
            raise TreeStructureError(
                f"associative_scan: fn returned the structure {out_def}, elems have {treedef}"
            )
        flat = [_array(y) for y in flat]
        for y, x in zip(flat, a):
            if y.shape != x.shape:
                raise ShapeError(
                    f"associative_scan: fn must keep its operands' shapes (work elementwise), "
                    f"got {y.aval} from {x.aval}"
                )
            if y.dtype != x.dtype:
                raise DTypeError(f"associative_scan: fn turned {x.aval} into {y.aval}")
        return flat

    def scan(elems: list[TracedTensor]) -> list[TracedTensor]:
        size = elems[0].shape[axis]
        if size < 2:
            return elems
        pairs = combine(
            [slice_in_dim(e, 0, -1, 2, axis) for e in elems],
            [slice_in_dim(e, 1, None, 2, axis) for e in elems],
        )
        odd = scan(pairs)
        if size % 2 == 0:
            even = combine(
                [slice_in_dim(e, 0, -1, 1, axis) for e in odd],
                [slice_in_dim(e, 2, None, 2, axis) for e in elems],
            )
        else:
            even = combine(odd, [slice_in_dim(e, 2, None, 2, axis) for e in elems])
        even = [concatenate([slice_in_dim(e, 0, 1, 1, axis), r], axis) for e, r in zip(elems, even)]
        return [_interleave(e, o, axis) for e, o in zip(even, odd)]

    out = scan(xs)
    if reverse:
        out = [rev(x, (axis,)) for x in out]
    return tree.tree_unflatten(treedef, out)


def _cumulative(name: str, doc: str) -> Callable[..., TracedTensor]:
    def fn(operand: Any, axis: int = 0, reverse: bool = False) -> TracedTensor:
        x = _array(operand)
        if isinstance(axis, bool) or not isinstance(axis, (int, np.integer)):
            raise AxisError(f"{name}: axis must be an int, got {axis!r}")
        if not 0 <= axis < x.ndim:  # JAX: "XLA operations do not allow negative axes"
            raise AxisError(f"{name}: axis {axis} is out of range for {x.aval} (0 to ndim - 1)")
        return apply1(name, [x], axis=int(axis), reverse=bool(reverse))

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc
    return fn


cumprod = _cumulative(
    "cumprod",
    """The running product of `operand` along `axis` (from the end with `reverse`).

    Args:
      operand: an array of numbers (not bools, as JAX).
      axis: a non-negative axis (JAX refuses negative ones).
      reverse: run from the end of the axis.

    >>> import numpy as np
    >>> from tf8 import lax
    >>> lax.cumprod(np.array([1.0, 2.0, 3.0, 4.0]))
    Array([ 1.,  2.,  6., 24.], dtype=float64)

    Its derivative is JAX's (the JVP of an associative scan of products), exact at zeros.""",
)
cummax = _cumulative(
    "cummax",
    """The running maximum of `operand` along `axis` (from the end with `reverse`); NaN
    propagates. Its derivative flows to the maxima, ties split as by `lax.max` (JAX's).

    >>> import numpy as np
    >>> from tf8 import lax
    >>> lax.cummax(np.array([1, 3, 2, 5]), reverse=True)
    Array([5, 5, 5, 5], dtype=int64)""",
)
cummin = _cumulative(
    "cummin",
    """The running minimum of `operand` along `axis` (from the end with `reverse`); NaN
    propagates. Its derivative flows to the minima, ties split as by `lax.min` (JAX's).

    >>> import numpy as np
    >>> from tf8 import lax
    >>> lax.cummin(np.array([4.0, 3.0, 5.0]))
    Array([4., 3., 3.], dtype=float64)""",
)
cumlogsumexp = _cumulative(
    "cumlogsumexp",
    """The running log(sum(exp(operand))) along `axis` (from the end with `reverse`), without
    overflow; of floats or complex numbers (integers are refused, as by JAX).

    >>> import numpy as np
    >>> from tf8 import lax
    >>> lax.cumlogsumexp(np.log(np.array([1.0, 2.0, 3.0])))
    Array([0.        , 1.09861229, 1.79175947], dtype=float64)""",
)


__all__ = ["associative_scan", "cumlogsumexp", "cummax", "cummin", "cumprod"]
