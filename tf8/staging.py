"""Looking at a function without running it: `ShapeDtypeStruct`, `eval_shape` and `make_jaxpr`.

Both trace the function on placeholders, as `jit` does, and compute nothing: `eval_shape`
hands back the outputs' shapes and dtypes, `make_jaxpr` the program `jit` would run.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from tf8 import tree
from tf8.compiler import CompiledGraph
from tf8.errors import ParameterError, TracingError
from tf8.jit import Jitted
from tf8.jit_arguments import make_placeholder
from tf8.lax.scopes import transform_scope
from tf8.ops import dtypes as dt
from tf8.ops.devices import CPU_SHARDING
from tf8.traced import TracedTensor

__all__ = ["ClosedProgram", "ShapeDtypeStruct", "eval_shape", "make_jaxpr", "make_program"]

_SCALARS = (bool, int, float, complex)


class ShapeDtypeStruct:
    """A shape and a dtype standing for an array: what `eval_shape` returns and what
    `eval_shape`, `make_jaxpr` and `jit(f).lower` take in place of arrays.

    Args:
      shape: a tuple of ints.
      dtype: a numpy dtype (or anything `numpy.dtype` takes).
      sharding: accepted for JAX's signature; tf8 has one device.
      weak_type: whether the value is weakly typed (a Python scalar's stand-in).

    >>> import tf8, numpy as np
    >>> tf8.ShapeDtypeStruct((2, 3), np.float32)
    ShapeDtypeStruct(shape=(2, 3), dtype=float32)

    As JAX's, without `vma` and with `sharding` always the one CPU device's.
    """

    __slots__ = ("shape", "dtype", "weak_type")

    def __init__(
        self, shape: Iterable[int], dtype: Any, *, sharding: Any = None, weak_type: bool = False
    ) -> None:
        self.shape = tuple(int(d) for d in shape)
        self.dtype = np.dtype(dtype)
        self.weak_type = bool(weak_type)

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64))

    @property
    def sharding(self) -> Any:
        return CPU_SHARDING

    def __len__(self) -> int:
        if not self.shape:
            raise TypeError("len() of unsized object")
        return self.shape[0]

    def __repr__(self) -> str:
        weak = ", weak_type=True" if self.weak_type else ""
        return f"ShapeDtypeStruct(shape={self.shape}, dtype={self.dtype.name}{weak})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ShapeDtypeStruct) and (self.shape, self.dtype, self.weak_type) == (
            other.shape,
            other.dtype,
            other.weak_type,
        )

    def __hash__(self) -> int:
        return hash((self.shape, self.dtype, self.weak_type))


def _stand_in(leaf: Any, where: str) -> TracedTensor:
    """A placeholder with the leaf's shape and dtype (weak for Python scalars)."""
    if isinstance(leaf, TracedTensor):
        shape, dtype, weak = leaf.shape, leaf.dtype, leaf._weak
    elif isinstance(leaf, _SCALARS):
        value = np.asarray(leaf)
        shape, dtype, weak = (), dt.canonical_dtype(value.dtype), True
    elif hasattr(leaf, "shape") and hasattr(leaf, "dtype"):
        shape, dtype = tuple(leaf.shape), dt.canonical_dtype(np.dtype(leaf.dtype))
        weak = bool(getattr(leaf, "weak_type", False))
    else:
        raise TracingError(
            f"{where}: an argument leaf of type {type(leaf).__name__} ({leaf!r:.60}) is not an "
            "array, a scalar or a ShapeDtypeStruct"
        )
    return make_placeholder(shape, dtype, weak)


def eval_shape(fun: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """The shapes and dtypes `fun(*args, **kwargs)` would return, as a pytree of
    `ShapeDtypeStruct`, computed by tracing alone (no FLOPs).

    Args:
      fun: the function; its arguments may be arrays, scalars or `ShapeDtypeStruct`s, in
        any pytree.
      args, kwargs: its arguments.

    >>> import tf8, tf8.numpy as tnp, numpy as np
    >>> x = tf8.ShapeDtypeStruct((4, 3), np.float32)
    >>> tf8.eval_shape(lambda a: tnp.sum(a, axis=0) * 2.0, x)
    ShapeDtypeStruct(shape=(3,), dtype=float32)

    As JAX's. Non-array leaves in the result (Python values a function returns) are kept.
    """
    if not callable(fun):
        raise ParameterError(f"eval_shape expects a callable, got {type(fun).__name__}")
    leaves, treedef = tree.tree_flatten((args, kwargs))
    with transform_scope(symbolic=True):
        stand_ins = [_stand_in(leaf, "eval_shape") for leaf in leaves]
        call_args, call_kwargs = treedef.unflatten(stand_ins)
        out = fun(*call_args, **call_kwargs)
        return tree.tree_map(_struct_of, out)


def _struct_of(leaf: Any) -> Any:
    if isinstance(leaf, TracedTensor):
        if not all(type(d) is int for d in leaf.shape):
            raise TracingError(f"eval_shape: an output's shape {leaf.shape} is only known later")
        return ShapeDtypeStruct(leaf.shape, leaf.dtype, weak_type=leaf._weak)
    if isinstance(leaf, (np.ndarray, np.generic)):
        return ShapeDtypeStruct(leaf.shape, leaf.dtype)
    if isinstance(leaf, _SCALARS):
        return ShapeDtypeStruct((), dt.canonical_dtype(np.asarray(leaf).dtype), weak_type=True)
    return leaf


class ClosedProgram:
    """What `make_jaxpr` returns: the program `jit` would compile, printable as JAX's jaxpr.

    `str()` is the program's text; `.program` the `CompiledGraph`; `.in_avals` and
    `.out_avals` the inputs' and outputs' `ShapeDtypeStruct`s; `.consts` the arrays it
    holds; `.eqns` its operations.

    >>> import tf8, tf8.numpy as tnp
    >>> print(tf8.make_jaxpr(lambda x: tnp.sin(x) * 2.0)(1.0))  # doctest: +ELLIPSIS
    CompiledGraph: 1 inputs ...
      %1 = sin(%0)  : float64()
    ...
    """

    def __init__(self, program: CompiledGraph) -> None:
        self.program = program

    @property
    def in_avals(self) -> list[ShapeDtypeStruct]:
        program = self.program
        avals = [k.input_key.aval for k in program.inputs if k not in program.bindings]
        return [ShapeDtypeStruct(a.shape, a.dtype) for a in avals]

    @property
    def out_avals(self) -> list[ShapeDtypeStruct]:
        return [ShapeDtypeStruct(a.shape, a.dtype) for a in self.program.outputs]

    @property
    def consts(self) -> list[Any]:
        return list(self.program.bindings.values())

    @property
    def eqns(self) -> list[Any]:
        return list(self.program.ops)

    @property
    def jaxpr(self) -> ClosedProgram:
        """The program itself (JAX separates the jaxpr from its constants; tf8's holds both)."""
        return self

    def pretty(self) -> str:
        return self.program.pretty()

    def __str__(self) -> str:
        return self.program.pretty()

    def __repr__(self) -> str:
        return self.program.pretty()

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        printer.text(self.program.pretty())


def make_jaxpr(
    fun: Callable[..., Any],
    static_argnums: int | Iterable[int] = (),
    axis_env: Any = None,
    return_shape: bool = False,
    abstracted_axes: Any = None,
) -> Callable[..., Any]:
    """`make_jaxpr(f)(*args)` is the program `jit(f)` compiles for `args`, as a
    `ClosedProgram` that prints tf8's program text (JAX prints a jaxpr).

    Args:
      fun: the function.
      static_argnums: arguments that are Python values, not arrays (as `jit`'s).
      axis_env, abstracted_axes: JAX's options for collectives and shape polymorphism;
        tf8 has neither, and refuses a value other than None.
      return_shape: also return the outputs' `ShapeDtypeStruct` pytree.

    >>> import tf8, tf8.numpy as tnp
    >>> program = tf8.make_jaxpr(lambda x, y: x * y + 1.0)(2.0, 3.0)
    >>> len(program.in_avals), program.out_avals
    (2, [ShapeDtypeStruct(shape=(), dtype=float64)])

    Differs from JAX: the text is tf8's program (after its graph optimisations), not a
    jaxpr, and arguments may also be `ShapeDtypeStruct`s.
    """
    if axis_env is not None or abstracted_axes is not None:
        raise ParameterError("make_jaxpr: tf8 has no axis_env or abstracted_axes (no collectives)")
    lower = make_program(fun, static_argnums)

    @functools.wraps(fun)
    def jaxpr_maker(*args: Any, **kwargs: Any) -> Any:
        args = tree.tree_map(_as_placeholder, args)
        kwargs = tree.tree_map(_as_placeholder, kwargs)
        closed = ClosedProgram(lower(*args, **kwargs))
        if return_shape:
            if static_argnums != ():
                raise ParameterError("make_jaxpr: return_shape with static_argnums")
            return closed, eval_shape(fun, *args, **kwargs)
        return closed

    return jaxpr_maker


def _as_placeholder(leaf: Any) -> Any:
    """A ShapeDtypeStruct argument as the placeholder `jit(f).lower` takes for it."""
    if isinstance(leaf, ShapeDtypeStruct):
        return _stand_in(leaf, "make_jaxpr")
    return leaf


def make_program(
    fun: Callable[..., Any],
    static_argnums: int | Iterable[int] = (),
    static_argnames: str | Iterable[str] = (),
) -> Callable[..., CompiledGraph]:
    """`make_program(f)(*args)` is the CompiledGraph `jit(f)` would compile for `args`
    (static arguments as `jit`'s). Its inputs are named by `f`'s parameters and their pytree
    paths, in argument order; its outputs by their role (tf8.jit_names).

    >>> import tf8, tf8.numpy as tnp, numpy as np
    >>> def loss(params, x):
    ...     return tnp.sum(tnp.tanh(x @ params["w"]))
    >>> program = tf8.make_program(tf8.grad(loss))({"w": np.ones(3)}, np.ones((2, 3)))
    >>> print(program.pretty())  # doctest: +ELLIPSIS
    CompiledGraph: 3 inputs (2 placeholders), ...
      %0: float64(3,)  # input params['w']
      %1: float64(2, 3)  # input x
      %2: float64()  # constant: gradient seed = 1.0
    ...
      return %... (grad[params['w']])
    """
    jitted = Jitted(fun, static_argnums, static_argnames)

    @functools.wraps(fun)
    def program(*args: Any, **kwargs: Any) -> CompiledGraph:
        return jitted.lower(*args, **kwargs)

    return program
