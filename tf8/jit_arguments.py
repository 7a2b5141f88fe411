"""How jit reads its arguments: the cache-key part of each leaf, the array a placeholder
stands for, the placeholders themselves, the JAX jit options tf8 accepts, and the binding of
a jitted function read from an instance."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from tf8.errors import TracingError
from tf8.ops import dtypes as dt
from tf8.ops.leaves import concrete_array, foreign_array
from tf8.runtime.engines import lazy_engine
from tf8.traced import TracedTensor, placeholder

SCALARS = (bool, int, float, complex)
INLINE = object()  # leaf signature meaning "do not compile, call the function directly"


def make_placeholder(shape: Any, dtype: Any, weak: bool, title: str | None = None) -> TracedTensor:
    """A placeholder of this shape and dtype, weakly typed when it stands for a Python
    scalar (as in JAX: jit(f)(float32_array, 2.0) stays float32); `title` is what listings
    call it (the parameter name and pytree path, tf8.jit_names)."""
    leaf = placeholder(shape, dtype, title=title)
    leaf._weak = weak
    return leaf


def shape_dtype(array: np.ndarray) -> tuple[Any, Any]:
    """(shape, dtype) of an argument array."""
    return array.shape, array.dtype


def input_array(leaf: Any) -> Any:
    """An argument leaf as the program reads it: a numpy array of a tf8 dtype, or a lazy
    array (dask) kept lazy, cast lazily to its tf8 dtype."""
    if lazy_engine(leaf) is None:
        return concrete_array(leaf)
    dtype = dt.canonical_dtype(leaf.dtype)
    return leaf if dtype == leaf.dtype else leaf.astype(dtype)


def leaf_kind(leaf: Any) -> Any:
    """The cache-key part of a non-ndarray argument leaf (or INLINE)."""
    cls = type(leaf)
    if cls in SCALARS:
        return cls
    if isinstance(leaf, TracedTensor):
        return (cls, leaf.shape, leaf.dtype) if leaf.is_concrete else INLINE
    if isinstance(leaf, (np.ndarray, np.generic)):
        return (cls, leaf.shape, leaf.dtype)
    if lazy_engine(leaf) is not None:  # never read through __array__: that would compute it
        return (cls, tuple(leaf.shape), leaf.dtype)
    foreign = foreign_array(leaf)  # another library's array: keyed by what it reads as
    if foreign is not None:
        return (cls, foreign.shape, foreign.dtype)
    return None  # not an array: the caller reports where it was passed


def array_key(a: Any) -> Any:
    """The fast cache key of a computed Array argument (None for anything else)."""
    if type(a) is TracedTensor and a._value is not None:
        return (a.aval, a._weak)
    return None


def leaf_values(leaves: Sequence[Any]) -> list[Any]:
    """The argument leaves with computed Arrays read as their numpy values."""
    return [a._value if type(a) is TracedTensor and a._value is not None else a for a in leaves]


def is_weak(leaf: Any) -> bool:
    """Whether an argument leaf is weakly typed: a Python scalar, or a weak Array."""
    cls = type(leaf)  # a Python bool is strong, as JAX's (jit(cos)(True) is a strong float32)
    return (cls in SCALARS and cls is not bool) or (cls is TracedTensor and leaf._weak)


# JAX's jit options that tf8 accepts and what each does here (README: "differences from JAX").
JAX_OPTIONS = {
    # tf8's kernels never write into their inputs, so there is no buffer to hand over: the
    # arguments stay valid after the call (JAX invalidates donated ones).
    "donate_argnums": "accepted; no effect (inputs are never overwritten)",
    "donate_argnames": "accepted; no effect (inputs are never overwritten)",
    # tf8 drops the inputs the outputs do not use from the program; the call still takes them.
    "keep_unused": "accepted; unused inputs are still pruned from the compiled program",
    # a jitted function called inside another transform is always traced inline.
    "inline": "accepted; nested jit calls are always inlined",
}


def check_jax_options(options: dict[str, Any]) -> None:
    """TracingError for an option jit does not take, or a donate_* value of the wrong kind."""
    if not options:  # the common case: every jit(f) checks
        return
    unknown = sorted(set(options) - set(JAX_OPTIONS))
    if unknown:
        raise TracingError(
            f"jit got unexpected keyword argument(s) {unknown} (tf8 accepts "
            f"static_argnums, static_argnames, engine, {', '.join(sorted(JAX_OPTIONS))})"
        )
    for name in ("donate_argnums", "donate_argnames"):
        value = options.get(name, ())
        items = value if isinstance(value, (tuple, list)) else (value,)
        kind = int if name == "donate_argnums" else str
        if not all(isinstance(v, kind) and not isinstance(v, bool) for v in items):
            raise TracingError(f"jit: {name} must be {kind.__name__}s, got {value!r}")


class BoundJitted:
    """A jitted function read from an instance: calling it, `lower` and the cache methods
    take the instance as argument 0, as a method does (`m.f.lower(x)` lowers `f(m, x)`)."""

    __slots__ = ("__func__", "__self__")

    def __init__(self, jitted: Any, instance: Any) -> None:
        self.__func__ = jitted
        self.__self__ = instance

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.__func__(self.__self__, *args, **kwargs)

    def lower(self, *args: Any, **kwargs: Any) -> Any:
        return self.__func__.lower(self.__self__, *args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.__func__, name)

    def __repr__(self) -> str:
        return f"<bound {self.__func__!r} of {self.__self__!r}>"
