"""`tf8.flatten_util.ravel_pytree`: a pytree of arrays as one flat vector, and back (JAX's)."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

import tf8.numpy as tnp
from tf8 import lax
from tf8.errors import DTypeError, ShapeError
from tf8.tree_util import PyTreeDef, tree_flatten

__all__ = ["ravel_pytree"]


class _Unravel:
    """`unravel(flat) -> pytree`: splits a flat vector into the leaves of `treedef`
    (equal, and equally hashed, for equal structures, shapes and dtypes)."""

    __slots__ = ("treedef", "sizes", "shapes", "from_dtypes", "to_dtype")

    def __init__(
        self,
        treedef: PyTreeDef,
        sizes: tuple[int, ...],
        shapes: tuple[tuple[int, ...], ...],
        from_dtypes: tuple[np.dtype, ...] | None,
        to_dtype: np.dtype | None,
    ) -> None:
        self.treedef, self.sizes, self.shapes = treedef, sizes, shapes
        self.from_dtypes, self.to_dtype = from_dtypes, to_dtype

    def _key(self) -> tuple[Any, ...]:
        return (self.treedef, self.sizes, self.shapes, self.from_dtypes, self.to_dtype)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Unravel) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return f"<unravel to {self.treedef!r}>"

    def __call__(self, flat: Any) -> Any:
        if not self.sizes:
            return self.treedef.unflatten([])
        arr = tnp.asarray(flat)
        total = sum(self.sizes)
        if tnp.ndim(arr) != 1 or tnp.shape(arr)[0] != total:
            raise ShapeError(
                f"unravel: expected a vector of shape ({total},), got shape {tnp.shape(arr)}"
            )
        if self.to_dtype is not None and arr.dtype != self.to_dtype:
            raise DTypeError(
                f"unravel: given an array of dtype {arr.dtype}, expected dtype {self.to_dtype}"
            )
        chunks = tnp.split(arr, list(np.cumsum(self.sizes)[:-1]))
        leaves = [tnp.reshape(c, s) for c, s in zip(chunks, self.shapes)]
        if self.from_dtypes is not None:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # complex -> real casts drop the imaginary part
                leaves = [lax.convert_element_type(x, d) for x, d in zip(leaves, self.from_dtypes)]
        return self.treedef.unflatten(leaves)


def ravel_pytree(pytree: Any) -> tuple[Any, _Unravel]:
    """`(flat, unravel)`: the leaves of `pytree` raveled and concatenated into one vector,
    and a function that turns such a vector back into a pytree of the same structure.

    The vector's dtype promotes the leaves' dtypes (`tf8.numpy.result_type`; a Python scalar
    counts as its default dtype, int64/float64/complex128/bool); `unravel` restores each
    leaf's shape and dtype, and then accepts only vectors of that dtype. When all leaves
    share one dtype nothing is converted and `unravel` takes any dtype. A pytree without
    leaves gives an empty float32 vector. Works on concrete and traced values, under
    `tf8.jit`, `tf8.grad` and `tf8.vmap`.

    >>> import numpy as np
    >>> from tf8.flatten_util import ravel_pytree
    >>> flat, unravel = ravel_pytree({"w": np.ones((2, 2), np.float32), "b": np.arange(2)})
    >>> flat
    Array([0., 1., 1., 1., 1., 1.], dtype=float32)
    >>> tree = unravel(flat * 2)
    >>> tree["b"], tree["w"].shape
    (Array([0, 2], dtype=int64), (2, 2))

    Differs from JAX: a vector of the wrong length or dtype raises ShapeError or DTypeError.
    """
    leaves, treedef = tree_flatten(pytree)
    if not leaves:
        return tnp.zeros((0,), np.float32), _Unravel(treedef, (), (), None, None)
    arrays = [tnp.asarray(x) for x in leaves]
    from_dtypes = tuple(np.dtype(a.dtype) for a in arrays)
    to_dtype = np.dtype(tnp.result_type(*from_dtypes))
    shapes = tuple(tuple(tnp.shape(a)) for a in arrays)
    sizes = tuple(int(np.prod(s, dtype=np.int64)) for s in shapes)
    if all(d == to_dtype for d in from_dtypes):
        flat = tnp.concatenate([tnp.ravel(a) for a in arrays])
        return flat, _Unravel(treedef, sizes, shapes, None, None)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        parts = [tnp.ravel(lax.convert_element_type(a, to_dtype)) for a in arrays]
    return tnp.concatenate(parts), _Unravel(treedef, sizes, shapes, from_dtypes, to_dtype)
