"""TracedTensor: a structural graph node with shape, dtype and an eager feel.

A `TracedTensor` wraps a `ValueKey` (its structural identity), its `Aval`, the default arrays
bound to the leaves it depends on, and — once computed — its memoised value. Operations are
recorded lazily; converting to numpy/Python evaluates through an evaluator hook that the API
layer installs (so this layer never imports the compiler or runtime).
"""

from __future__ import annotations

import contextlib
import contextvars
import itertools
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

import numpy as np

from tf8.errors import (
    ConcretizationError,
    ConversionError,
    GraphError,
    InPlaceAssignmentError,
    ShapeError,
    TracerArrayConversionError,
    TracingError,
)
from tf8.graph import PRIMARY, Linearized, OperationKey, ValueKey
from tf8.ops import dtypes as dt
from tf8.ops.definition import infer
from tf8.ops.leaves import _EMPTY, Bindings, LeafKey, merge_binding_dicts
from tf8.ops.primitive import Aval, Primitive
from tf8.ops.shapes import Dim, as_dim

_uids = itertools.count(1)


OpMeta = tuple  # (output avals, shape guards): what `apply` records on an OperationKey

# A concrete value this many ops from its nearest evaluated ancestor is evaluated (and cut).
EAGER_DEPTH = 512

Evaluator = Callable[[Sequence["TracedTensor"]], list[np.ndarray]]
_evaluator: Evaluator | None = None

# Transform state lives in context variables, never in module globals or tensor slots, so two
# threads (or two asyncio tasks) tracing at once never see each other's transforms.
# _transform_depth: how many transforms (jit, grad, ...) enclose the current code.
# _linear: the keys of tangent/cotangent values while a linear transform emits ops (ops on
#   them are tagged Linearized), or None outside one.
# _differentiated: the keys of values that depend on an argument being differentiated.
_transform_depth: contextvars.ContextVar[int] = contextvars.ContextVar("tf8_depth", default=0)
_linear: contextvars.ContextVar[set | None] = contextvars.ContextVar("tf8_linear", default=None)
_differentiated: contextvars.ContextVar[set | None] = contextvars.ContextVar(
    "tf8_differentiated", default=None
)


def set_evaluator(fn: Evaluator) -> None:
    """Install the function that turns bound TracedTensors into numpy arrays (API layer)."""
    global _evaluator
    _evaluator = fn


@contextlib.contextmanager
def transform_scope(differentiated: Iterable[ValueKey] = ()) -> Iterator[None]:
    """Marks code running inside a transform (jit, grad, ...): memoised values are not cut.
    Values depending on the `differentiated` keys (or on an enclosing transform's) refuse
    conversion to numpy arrays."""
    depth = _transform_depth.set(_transform_depth.get() + 1)
    outer = _differentiated.get()
    new = set(differentiated)
    diff = _differentiated.set((outer | new if outer else new) if new else outer)
    try:
        yield
    finally:
        _differentiated.reset(diff)
        _transform_depth.reset(depth)


def in_transform() -> bool:
    return _transform_depth.get() > 0


def is_differentiated(t: TracedTensor) -> bool:
    """True when `t` depends on an argument that an enclosing transform differentiates."""
    diff = _differentiated.get()
    return bool(diff) and t.key in diff  # type: ignore[operator]


@contextlib.contextmanager
def linear_scope(linear_keys: Iterable[ValueKey]) -> Iterator[set]:
    """While open, ops on the `linear_keys` values (and on their results) are tagged
    Linearized; yields the growing key set, so the transform can add keys as it goes."""
    keys = set(linear_keys)
    token = _linear.set(keys)
    try:
        yield keys
    finally:
        _linear.reset(token)


def evaluate_all(tensors: Sequence[TracedTensor]) -> list[np.ndarray]:
    """Values of bound traced values, computed together in one program and memoised."""
    pending = [t for t in tensors if t._value is None]
    unbound = [t for t in pending if t._unbound]
    if unbound:
        unbound[0]._concrete("Evaluating")  # raises the ConcretizationError
    if pending:
        if _evaluator is None:
            raise TracingError("no evaluator installed (import tf8 to install the default one)")
        for t, value in zip(pending, _evaluator(pending)):
            t._memoise(value)
    return [t._value for t in tensors]  # type: ignore[misc]


def merge_bindings(inputs: Sequence[TracedTensor]) -> Bindings:
    """The default bindings of all `inputs`' leaves (one dict; conflicts marked)."""
    return merge_binding_dicts([t._bindings for t in inputs])


def record(op: Any, keys: tuple[ValueKey, ...], meta: Callable[[], OpMeta]) -> OperationKey:
    """The operation key of `op` on the values `keys`, in the current transform context: its
    role is Linearized when a linear scope holds one of `keys` (its outputs then join the
    scope), and its outputs join the differentiated set when an input is in it. `meta()`
    gives the avals and guards when the key is new."""
    role = PRIMARY
    linear = _linear.get()
    if linear:
        mask = tuple([k in linear for k in keys])
        if any(mask):
            role = Linearized(mask)
    op_key = OperationKey.get(op, keys, role)
    if op_key.meta is None:
        op_key.meta = meta()
    if role is not PRIMARY:
        linear.update(op_key.outputs)  # type: ignore[union-attr]
    diff = _differentiated.get()
    if diff and any([k in diff for k in keys]):
        diff.update(op_key.outputs)
    return op_key


def apply(
    op: Primitive, inputs: Sequence[TracedTensor], meta: OpMeta | None = None
) -> list[TracedTensor]:
    """Validate and record `op` on `inputs`; return its outputs.

    Shapes and dtypes are inferred (and validated) once, when the operation is first made,
    and recorded on its key; `meta` passes on what an equal-aval twin already recorded."""

    def inferred() -> OpMeta:
        if meta is not None:
            return meta
        guards: list = []
        return (infer(op, [t.aval for t in inputs], guards), tuple(guards))

    try:
        op_key = record(op, tuple([t.key for t in inputs]), inferred)
    except GraphError:
        infer(op, [t.aval for t in inputs])  # the op's own error names what was wrong
        raise
    known = op_key.meta
    bindings = merge_bindings(inputs)
    unbound = any([t._unbound for t in inputs])
    depth = 1 + max([t._depth for t in inputs], default=0)
    outputs = [
        TracedTensor(key, aval, bindings, unbound, depth)
        for key, aval in zip(op_key.outputs, known[0])
    ]
    if inputs and all([t._weak for t in inputs]):
        kind = inputs[0].dtype.kind
        for out in outputs:
            out._weak = out.dtype.kind == kind
    if depth >= EAGER_DEPTH and not unbound and not in_transform():
        # Outside transforms tf8 feels eager: a concrete chain never grows without bound,
        # so a loop that only ever reads a reduction of its state stays linear in time.
        evaluate_all(outputs)
    return outputs


def apply1(name: str, inputs: Sequence[TracedTensor], **params: Any) -> TracedTensor:
    """Record the single-output primitive `name` with `params` on `inputs`."""
    return apply(Primitive(name, len(inputs), **params), inputs)[0]


class TracedTensor:
    """An immutable array recorded as a structural graph node (the user's array type)."""

    __slots__ = (
        "key",
        "aval",
        "_bindings",
        "_unbound",
        "_depth",
        "_weak",
        "_value",
        "__weakref__",
    )
    __array_priority__ = 1000

    def __init__(
        self,
        key: ValueKey,
        aval: Aval,
        bindings: Bindings = _EMPTY,
        unbound: bool = False,
        depth: int = 0,
    ) -> None:
        self.key = key
        self.aval = aval
        self._bindings = bindings
        self._unbound = unbound
        self._depth = depth
        self._weak = False  # weakly typed (a Python scalar's stand-in): promotion defers
        self._value: np.ndarray | None = None

    # --- metadata -------------------------------------------------------------------------
    @property
    def shape(self) -> tuple[Dim, ...]:
        return self.aval.shape

    @property
    def dtype(self) -> np.dtype:
        return self.aval.dtype

    @property
    def ndim(self) -> int:
        return len(self.aval.shape)

    @property
    def size(self) -> Dim:
        total: Dim = 1
        for d in self.aval.shape:
            total = total * d
        return total

    @property
    def is_concrete(self) -> bool:
        """True when every leaf is bound, so the value can be computed."""
        return not self._unbound

    # --- evaluation -----------------------------------------------------------------------
    def _concrete(self, why: str) -> np.ndarray:
        if self._value is not None:
            return self._value
        if self._unbound:
            raise ConcretizationError(
                f"{why} of a traced value ({self.aval}) that depends on an unbound placeholder: "
                "its value is only known when the compiled program runs (under jit, arguments "
                "are placeholders). Use tf8.numpy.where / select for value-dependent choices, "
                "or mark the argument static."
            )
        if _evaluator is None:
            raise TracingError("no evaluator installed (import tf8 to install the default one)")
        self._memoise(_evaluator([self])[0])
        return self._value  # type: ignore[return-value]

    def _memoise(self, value: np.ndarray) -> None:
        """Remember the value (read-only, as JAX arrays are); outside transforms, later work
        reads it as a bound leaf."""
        if value.flags.writeable:
            value = value.view()
            value.flags.writeable = False
        self._value = value
        if not in_transform() and not self.key.is_input:
            cut = ValueKey.input(LeafKey(next(_uids), None, self.aval, "cut"))
            self.key = cut
            self._bindings = {cut: value}
            self._depth = 0

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        if is_differentiated(self):
            raise TracerArrayConversionError(
                f"converting a traced value ({self.aval}) that is being differentiated to a "
                "numpy array would silently drop its derivative; use tf8.numpy functions on it "
                "(or tf8.stop_gradient to drop the derivative on purpose)"
            )
        value = self._concrete("Converting to a numpy array")
        return value if dtype is None else value.astype(dtype)

    def _scalar(self, kind: str) -> np.ndarray:
        if self.aval.shape != () and self.size != 1:
            raise ConversionError(
                f"only size-1 arrays can be converted to Python {kind}s, got {self.aval}"
            )
        return self._concrete(f"Converting to a Python {kind}").reshape(())

    def __bool__(self) -> bool:
        if self.aval.shape != () and self.size != 1:
            raise ShapeError(
                f"the truth value of an array with more than one element is ambiguous "
                f"({self.aval}); use .any() or .all()"
            )
        return bool(self._concrete("Branching on (bool())").reshape(()))

    def __float__(self) -> float:
        return float(self._scalar("float"))

    def __int__(self) -> int:
        return int(self._scalar("int"))

    def __complex__(self) -> complex:
        return complex(self._scalar("complex"))

    def __index__(self) -> int:
        if self.dtype not in dt.INTEGERS:
            raise ConversionError(f"only integer arrays can be used as an index, got {self.aval}")
        return int(self._scalar("int"))

    def __len__(self) -> int:
        if not self.aval.shape:
            raise ConversionError("len() of unsized object (a 0-d traced value)")
        first = self.aval.shape[0]
        if not isinstance(first, int):
            raise ConcretizationError(f"len() of a traced value with symbolic first axis {first}")
        return first

    def __iter__(self) -> Iterator[TracedTensor]:
        for i in range(len(self)):
            yield self[i]

    def __hash__(self) -> int:
        raise TypeError("TracedTensor is unhashable (it is an array); use .key for identity")

    def __repr__(self) -> str:
        if self._unbound:
            return f"TracedTensor<{self.aval}, traced>"
        body = np.array2string(np.asarray(self), separator=", ", prefix="TracedTensor(")
        return f"TracedTensor({body}, dtype={self.dtype})"

    def __str__(self) -> str:
        if self._unbound:
            return repr(self)
        return str(np.asarray(self))

    def __setitem__(self, index: Any, value: Any) -> None:
        raise InPlaceAssignmentError(
            "TracedTensor is immutable: `t[i] = v` is not supported; "
            "use `t = t.at[i].set(v)` (or `.add(v)`) instead"
        )


def _leaf(value: np.ndarray | None, aval: Aval, name: str | None, kind: str) -> TracedTensor:
    uid = None if name is not None else next(_uids)
    key = ValueKey.input(LeafKey(uid, name, aval, kind))
    if value is None:
        return TracedTensor(key, aval, _EMPTY, unbound=True)
    t = TracedTensor(key, aval, {key: value})
    t._value = value
    return t


def concrete_array(array: Any) -> np.ndarray:
    """`array` as a numpy array of a tf8 dtype (the data a leaf binds)."""
    try:
        value = np.asarray(array)
    except ValueError as exc:  # ragged nested lists
        raise ShapeError(f"cannot make an array from {type(array).__name__}: {exc}") from None
    dtype = dt.canonical_dtype(value.dtype)
    if dtype != value.dtype:
        value = value.astype(dtype)
    return value


def tensor(array: Any, name: str | None = None) -> TracedTensor:
    """A leaf bound to concrete data (a *default binding*, not part of the structure)."""
    if isinstance(array, TracedTensor):
        return array
    value = concrete_array(array)
    if value is array and value.flags.writeable:
        value = value.copy()  # JAX copies too: later writes to `array` must not leak in
    if value.flags.writeable:
        value.flags.writeable = False
    return _leaf(value, Aval(value.shape, value.dtype), name, "tensor")


def placeholder(
    shape: Sequence[int | str | Any], dtype: Any = "float64", name: str | None = None
) -> TracedTensor:
    """An unbound leaf: dims may be ints or names (`("n", 3)`) for symbolic shapes."""
    dims = tuple(as_dim(d) for d in shape)
    return _leaf(None, Aval(dims, dt.as_dtype(dtype)), name, "placeholder")
