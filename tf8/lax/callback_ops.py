"""The callback ops: host Python called with numpy arrays when the program runs.

`PureCallback` (tf8.pure_callback) is an ordinary op: equal calls on equal values are one
value (CSE) and an unused one is dropped. `IOCallback` (tf8.experimental.io_callback) and
`DebugCallback` (tf8.debug.print/callback/breakpoint) are *effects* (`effectful`): they
output a token besides their results and take the previous effect's token as their first
input (`deps`), which tf8.lax.effects keeps alive and in order; the runtime never folds them.
Their kernels run on the numpy engine (numba places them there; the Dask engine refuses
them, see tf8.runtime.engines.dask). Under vmap a callback is called once per example
(`Sequential`) or once with the batch axis in front (pure_callback's 'expand_dims',
'broadcast_all', 'legacy_vectorized').
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from tf8 import tree
from tf8.errors import DifferentiationError, DTypeError, NoBatchingRule, ShapeError
from tf8.ops.avals import Aval
from tf8.ops.extension import ExtensionOp

from .builders import broadcast, transpose
from .core import apply
from .effects import TOKEN

VMAP_METHODS = ("sequential", "sequential_unrolled", "expand_dims", "broadcast_all")
VMAP_METHODS += ("legacy_vectorized",)


class Spec:
    """One callback: the function, how its flat array inputs rebuild `(args, kwargs)`
    (`in_tree`, with the `statics` non-array leaves by position), the results it must
    return (`out_tree`, `out_avals`) and its options. Equal specs make equal ops."""

    __slots__ = ("fn", "kind", "in_tree", "statics", "out_tree", "out_avals", "options", "_key")

    def __init__(
        self,
        fn: Callable,
        kind: str,
        in_tree: Any,
        statics: tuple,
        out_tree: Any,
        out_avals: tuple[Aval, ...],
        options: tuple = (),
    ) -> None:
        self.fn, self.kind, self.in_tree, self.statics = fn, kind, in_tree, statics
        self.out_tree, self.out_avals, self.options = out_tree, out_avals, options
        key = (fn, kind, in_tree, statics, out_tree, out_avals, options)
        try:
            hash(key)
        except TypeError:  # an unhashable static argument: this call is its own op
            key = (id(self),)
        self._key = key

    def __hash__(self) -> int:
        return hash(self._key)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Spec) and self._key == other._key

    def __repr__(self) -> str:
        return self.name

    @property
    def name(self) -> str:
        return getattr(self.fn, "__qualname__", None) or repr(self.fn)

    def option(self, name: str) -> Any:
        return dict(self.options).get(name)

    def batched(self, size: Any) -> Spec:
        """The spec of a call on a batch of `size` (results with the batch axis in front)."""
        avals = tuple(Aval((size, *a.shape), a.dtype) for a in self.out_avals)
        return Spec(
            self.fn, self.kind, self.in_tree, self.statics, self.out_tree, avals, self.options
        )

    def call(self, arrays: Sequence[np.ndarray]) -> Any:
        """Call the function on read-only numpy views of `arrays` (statics put back)."""
        leaves: list[Any] = []
        for a in arrays:
            view = np.asarray(a).view()
            view.flags.writeable = False
            leaves.append(view)
        for position, value in self.statics:
            leaves.insert(position, value)
        args, kwargs = tree.tree_unflatten(self.in_tree, leaves)
        return self.fn(*args, **kwargs)

    def results(self, result: Any) -> list[np.ndarray]:
        """The function's result as arrays, checked against the declared shapes and dtypes."""
        leaves, treedef = tree.tree_flatten(result)
        what = f"{self.kind}_callback {self.name}"
        if treedef != self.out_tree:
            raise ShapeError(
                f"{what} returned a result of structure {treedef}, but result_shape_dtypes "
                f"declares {self.out_tree}"
            )
        out = []
        for i, (leaf, aval) in enumerate(zip(leaves, self.out_avals)):
            array = np.asarray(leaf)
            if array.shape != tuple(aval.shape):
                raise ShapeError(
                    f"{what} returned shape {array.shape} for result {i}, but "
                    f"result_shape_dtypes declares {tuple(aval.shape)}"
                )
            if array.dtype != aval.dtype:
                raise DTypeError(
                    f"{what} returned dtype {array.dtype} for result {i}, but "
                    f"result_shape_dtypes declares {aval.dtype}"
                )
            out.append(array)
        return out


def _refuse_jvp(spec: Spec) -> DifferentiationError:
    if spec.kind == "pure":
        return DifferentiationError(
            f"pure_callback {spec.name}: Pure callbacks do not support JVP. Please use "
            "`tf8.custom_jvp` (jax.custom_jvp) to use callbacks while taking gradients."
        )
    return DifferentiationError(f"io_callback {spec.name}: IO callbacks do not support JVP.")


def _front(x: Any, d: int | None) -> Any:
    """`x` with its batch axis `d` moved to the front."""
    if d is None or d == 0:
        return x
    perm = [d, *[i for i in range(x.ndim) if i != d]]
    return transpose(x, perm)


class _Callback(ExtensionOp):
    """A callback op; payload (spec, deps): `deps` leading inputs are effect tokens."""

    family = "tf8.callback.v1"

    @property
    def effectful(self) -> bool:
        return self.payload[0].kind != "pure"

    def infer(self, avals: Sequence[Aval], guards: list) -> tuple[Aval, ...]:
        spec = self.payload[0]
        return (*spec.out_avals, *([TOKEN] if self.effectful else []))

    def kernel(self, op: ExtensionOp, *arrays: Any) -> Any:
        spec, deps = self.payload
        result = spec.call(arrays[deps:])
        if spec.kind == "debug":
            return np.True_
        outs = spec.results(result)
        if self.effectful:
            outs.append(np.True_)
        return outs[0] if len(outs) == 1 else tuple(outs)

    def jvp(self, op, primals, outputs, tangents):
        if self.payload[0].kind == "debug":  # the primal values were printed: no tangent
            return [None] * self.output_count
        raise _refuse_jvp(self.payload[0])

    def batch(self, op: ExtensionOp, args, dims):
        spec, deps = self.payload
        method = _vmap_method(spec)
        if all(d is None for d in dims[deps:]):  # batched through a token only
            return apply(op, args), [None] * op.output_count
        size = next(a.shape[d] for a, d in zip(args[deps:], dims[deps:]) if d is not None)
        if method in ("sequential", "sequential_unrolled"):
            return _sequential(op, args, dims)
        ins = list(args[:deps])
        for x, d in zip(args[deps:], dims[deps:]):
            if d is not None:
                ins.append(_front(x, d))
            elif method == "expand_dims":
                ins.append(broadcast(x, (1, *x.shape), tuple(range(1, x.ndim + 1))))
            elif method == "broadcast_all":
                ins.append(broadcast(x, (size, *x.shape), tuple(range(1, x.ndim + 1))))
            else:  # legacy_vectorized: unbatched arguments as they are
                ins.append(x)
        new = make(type(op), spec.batched(size), deps, op.input_count - deps)
        return apply(new, ins), [0] * op.output_count


def _vmap_method(spec: Spec) -> str:
    if spec.kind == "io" and spec.option("ordered"):
        raise NoBatchingRule(f"io_callback {spec.name}: Cannot `vmap` ordered IO callback.")
    if spec.kind != "pure":
        return "sequential"  # an effect runs once per example, in order (as JAX)
    method = spec.option("vmap_method")
    if method not in VMAP_METHODS:
        raise NoBatchingRule(
            f"pure_callback {spec.name}: vmap is only supported for the pure_callback primitive "
            "when vmap_method is one of 'sequential', 'sequential_unrolled', 'expand_dims', "
            f"'broadcast_all', or 'legacy_vectorized'. Got vmap_method={method!r}."
        )
    return method


def make(cls: type, spec: Spec, deps: int, arity: int) -> ExtensionOp:
    """The callback op of class `cls` for `spec` on `deps` tokens and `arity` arrays."""
    effect = 1 if spec.kind != "pure" else 0
    return cls((spec, deps), deps + arity, len(spec.out_avals) + effect)


class PureCallback(_Callback):
    name = "pure_callback"


class IOCallback(_Callback):
    name = "io_callback"


class DebugCallback(_Callback):
    name = "debug_callback"
    stops_derivative = True  # prints the primal values; carries no derivative


class Sequential(ExtensionOp):
    """`inner` called once per example, in order: payload (inner op, which inputs are
    batched along axis 0); results stacked along a new axis 0, an effect's token unbatched."""

    family = "tf8.callback.v1"
    name = "callback_sequential"

    @property
    def effectful(self) -> bool:
        return bool(getattr(self.payload[0], "effectful", False))

    def infer(self, avals: Sequence[Aval], guards: list) -> tuple[Aval, ...]:
        inner, mask = self.payload
        size = next(a.shape[0] for a, m in zip(avals, mask) if m)
        example = [Aval(a.shape[1:], a.dtype) if m else a for a, m in zip(avals, mask)]
        outs = inner.infer(example, guards)
        n = len(outs) - (1 if self.effectful else 0)
        return (*[Aval((size, *a.shape), a.dtype) for a in outs[:n]], *outs[n:])

    def kernel(self, op: ExtensionOp, *arrays: Any) -> Any:
        inner, mask = self.payload
        size = next(a.shape[0] for a, m in zip(arrays, mask) if m)
        n = self.output_count - (1 if self.effectful else 0)
        rows: list[list[np.ndarray]] = [[] for _ in range(n)]
        for i in range(size):
            got = inner.kernel(inner, *[a[i] if m else a for a, m in zip(arrays, mask)])
            got = (got,) if inner.output_count == 1 else got
            for row, value in zip(rows, got[:n]):
                row.append(np.asarray(value))
        avals = self.infer([Aval(np.shape(a), np.asarray(a).dtype) for a in arrays], [])
        outs = [
            np.stack(row) if row else np.zeros(tuple(a.shape), a.dtype)
            for row, a in zip(rows, avals)
        ]
        if self.effectful:
            outs.append(np.True_)
        return outs[0] if len(outs) == 1 else tuple(outs)

    def jvp(self, op, primals, outputs, tangents):
        return self.payload[0].jvp(op, primals, outputs, tangents)

    def batch(self, op: ExtensionOp, args, dims):
        return _sequential(op, args, dims)


class SequentialDebug(Sequential):
    name = "debug_callback_sequential"
    stops_derivative = True


def _sequential(op: ExtensionOp, args: Sequence[Any], dims: Sequence[int | None]):
    """`op` called once per example of the batch (batched inputs' axes moved to the front)."""
    mask = tuple(d is not None for d in dims)
    ins = [_front(x, d) for x, d in zip(args, dims)]
    cls = SequentialDebug if getattr(op, "stops_derivative", False) else Sequential
    new = cls((op, mask), op.input_count, op.output_count)
    n = op.output_count - (1 if new.effectful else 0)
    return apply(new, ins), [0] * n + [None] * (op.output_count - n)
