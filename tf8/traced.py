"""TracedTensor: a structural graph node with shape, dtype and an eager feel.

A `TracedTensor` wraps a `ValueKey` (its structural identity), its `Aval`, the default arrays
bound to the leaves it depends on, and — once computed — its value. Outside transforms an op
on concrete values is computed at once (tf8.lax.core.apply), and its result is a concrete
leaf whose key is made only if some graph needs it. What cannot be computed yet (it depends on
a placeholder) is evaluated through an evaluator hook that the API layer installs (so this
layer never imports the compiler or runtime). This module also holds the transform state, in
context variables, that tensors and tf8.lax.core read; the scopes that set it are in
tf8.lax.scopes.
"""

from __future__ import annotations

import contextvars
import itertools
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np

from tf8.errors import (
    ConcretizationError,
    ConversionError,
    InPlaceAssignmentError,
    ParameterError,
    ShapeError,
    TracerArrayConversionError,
    TracingError,
)
from tf8.graph import ValueKey
from tf8.ops import dtypes as dt
from tf8.ops.leaves import _EMPTY, Bindings, LeafKey, concrete_array
from tf8.ops.primitive import Aval, aval_of
from tf8.ops.shapes import Dim, as_dim

_setflags = np.ndarray.setflags  # cheaper than `value.flags.writeable = False`

_uids = itertools.count(1)
_key_lock = threading.Lock()


OpMeta = tuple  # (output avals, shape guards): what `apply` records on an OperationKey

Evaluator = Callable[[Sequence["TracedTensor"]], list[np.ndarray]]
_evaluator: Evaluator | None = None

# Transform state lives in context variables, never in module globals or tensor slots, so two
# threads (or two asyncio tasks) tracing at once never see each other's transforms; the
# scopes of tf8.lax.scopes set them.
# _transform_depth: how many transforms (jit, grad, ...) enclose the current code.
# _linear: the keys of tangent/cotangent values while a linear transform emits ops (ops on
#   them are tagged Linearized), or None outside one.
# _differentiated: value key -> the argument it depends on, for values depending on an
#   argument being differentiated (they refuse float(), np.asarray, ...).
# _symbolic: True while jit traces: ops are only recorded, never computed.
# _values: the values of recorded ops computed while a transform ran, by key (transforms
#   read them back instead of evaluating again).
_transform_depth: contextvars.ContextVar[int] = contextvars.ContextVar("tf8_depth", default=0)
_linear: contextvars.ContextVar[set | None] = contextvars.ContextVar("tf8_linear", default=None)
_differentiated: contextvars.ContextVar[dict | None] = contextvars.ContextVar(
    "tf8_differentiated", default=None
)
_symbolic: contextvars.ContextVar[bool] = contextvars.ContextVar("tf8_symbolic", default=False)
_values: contextvars.ContextVar[dict | None] = contextvars.ContextVar("tf8_values", default=None)
# _tapes: the tapes of the transforms running op by op (tf8.ad.tape), outermost first; they
#   nest as JAX's trace levels do. A value a tape differentiates carries, in `_node`, one
#   node (tape, argument description, tangent or None) per tape that follows it.
_tapes: contextvars.ContextVar[tuple] = contextvars.ContextVar("tf8_tapes", default=())
# _tracked: while a control-flow body (or a transform's trace) is traced under tapes, which
#   it hides, the values those tapes follow that it reads, by key (registered when their key is
#   read), and the keys of values recorded from them (None): the body captures the former as
#   operands, so the tapes see the op depend on them, and never hoists the latter
#   (tf8.lax.control.closure).
_tracked: contextvars.ContextVar[dict | None] = contextvars.ContextVar("tf8_tracked", default=None)


class NeedGraph(BaseException):  # noqa: N818 - a signal, not an error users see
    """Raised inside a tape when the function does what only the graph path can differentiate
    (a nested transform, a control-flow body, an op that cannot run op by op): the transform
    runs the function again on its graph path. A BaseException, so `except Exception` in user
    code does not swallow it (the tape is marked as well, in case something does)."""


def _refuse_tape(what: str, op: Any = None) -> None:
    """Under tapes, give up (`what`, with `op` named when given): see NeedGraph."""
    tapes = _tapes.get()
    if tapes:
        why = what if op is None else f"{what} {op}"
        for tape in tapes:
            tape.failed = why
        raise NeedGraph(why)


def only_tapes() -> bool:
    """True when every enclosing transform is a tape (none at top level) and none records."""
    return _transform_depth.get() == len(_tapes.get()) and not _symbolic.get()


def set_evaluator(fn: Evaluator) -> None:
    """Install the function that turns bound TracedTensors into numpy arrays (API layer)."""
    global _evaluator
    _evaluator = fn


def in_transform() -> bool:
    return _transform_depth.get() > 0


def differentiated_argument(t: TracedTensor) -> str | None:
    """What `t` depends on that an enclosing transform differentiates (None if nothing)."""
    nodes = t._node
    if nodes is not None:
        active = _tapes.get()
        for node in nodes:
            if node[0] in active:
                return node[1]
    diff = _differentiated.get()
    if not diff or t._key is None:
        return None
    return diff.get(t._key)


def evaluate_all(tensors: Sequence[TracedTensor]) -> list[np.ndarray]:
    """Values of bound traced values, computed together in one program and memoised; made
    read-only, as `__array__` makes them, since callers hand them to users."""
    pending = [t for t in tensors if t._value is None]
    unbound = [t for t in pending if t._unbound]
    if unbound:
        unbound[0]._concrete("Evaluating")  # raises the ConcretizationError
    if pending:
        if _evaluator is None:
            raise TracingError("no evaluator installed (import tf8 to install the default one)")
        for t, value in zip(pending, _evaluator(pending)):
            t._memoise(value)
    values = [t._value for t in tensors]
    for value in values:  # they leave tf8 (vmap's and the graph path's results): read-only
        _setflags(value, write=False)
    return values  # type: ignore[return-value]


class TracedTensor:
    """An immutable array recorded as a structural graph node (the user's array type).

    A concrete value computed outside transforms has no key until a graph needs one: `key`
    then makes it a bound leaf (`_key` and `_bindings_` stay None until then)."""

    __slots__ = (
        "_key",
        "aval",
        "_bindings_",
        "_unbound",
        "_weak",
        "_value",
        "_node",
        "__weakref__",
    )
    __array_priority__ = 1000

    def __init__(
        self,
        key: ValueKey | None,
        aval: Aval,
        bindings: Bindings | None = _EMPTY,
        unbound: bool = False,
    ) -> None:
        self._key = key
        self.aval = aval
        self._bindings_ = bindings
        self._unbound = unbound
        self._weak = False  # weakly typed (a Python scalar's stand-in): promotion defers
        self._value: np.ndarray | None = None
        self._node: tuple | None = None  # the nodes of the tapes following it (see _tapes)

    @property
    def key(self) -> ValueKey:
        """The value's structural identity (a concrete value without one becomes a leaf)."""
        key = self._key
        if key is None:
            with _key_lock:  # two threads reading one value's key get one leaf
                key = self._key
                if key is None:
                    key = ValueKey.input(LeafKey(next(_uids), None, self.aval, "cut"))
                    self._bindings_ = {key: self._value}
                    self._key = key
        if self._node is not None:  # a value tapes follow, read where they are hidden
            tracked = _tracked.get()
            if tracked is not None:
                tracked[key] = self
        return key

    @property
    def _bindings(self) -> Bindings:
        bindings = self._bindings_
        if bindings is None:
            self.key  # noqa: B018 - makes the leaf and its binding
            bindings = self._bindings_
        return bindings  # type: ignore[return-value]

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
        """Remember the value (made read-only when it leaves tf8, see `__array__`); outside
        transforms, later work reads it as a bound leaf."""
        self._value = value
        if in_transform() or _symbolic.get():  # a recorded graph keeps its structure
            return
        if not (self._key is not None and self._key.is_input):
            self._key = None  # a leaf from now on, made when a graph needs its key
            self._bindings_ = None

    def _differentiated_by(self) -> str | None:
        """The argument this value depends on, if a transform differentiates it (ints: None)."""
        argument = differentiated_argument(self)
        return argument if argument is not None and dt.is_inexact(self.dtype) else None

    def _refuse_if_differentiated(self, what: str, error: type = ConcretizationError) -> None:
        """JAX's rule: converting a value being differentiated to a Python number or numpy
        array would silently drop its derivative."""
        argument = self._differentiated_by()
        if argument is not None:
            raise error(
                f"{what} of a traced value ({self.aval}) that is being differentiated (it "
                f"depends on {argument}) would silently drop its derivative; use tf8.numpy "
                "functions on it, or tf8.stop_gradient to drop the derivative on purpose"
            )

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        """The value, read-only as JAX arrays are: tf8 freezes a value when it leaves (values
        inside are never written, so ops need not pay for the flag); a writeable copy when
        numpy asks for one (`np.array(t)`) or for another dtype."""
        self._refuse_if_differentiated("converting to a numpy array", TracerArrayConversionError)
        value = self._concrete("Converting to a numpy array")
        if dtype is not None and np.dtype(dtype) != value.dtype:
            if copy is False:  # numpy's own words for an array that cannot avoid a copy
                raise ValueError(
                    f"Unable to avoid copy while creating an array as requested: the value "
                    f"is {value.dtype}, {np.dtype(dtype)} was asked for"
                )
            return value.astype(dtype)
        if copy:
            return value.copy()
        _setflags(value, write=False)
        return value

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
        value = self._value
        if value is not None and self._node is None and value.ndim == 0:
            if self._key is None or not _differentiated.get():  # an eager value: at once
                return float(value)
        self._refuse_if_differentiated("float()")
        return float(self._scalar("float"))

    def __int__(self) -> int:
        return int(self._scalar("int"))

    def __complex__(self) -> complex:
        self._refuse_if_differentiated("complex()")
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
        argument = self._differentiated_by()
        if argument is not None:
            return f"TracedTensor<{self.aval}, differentiated: depends on {argument}>"
        body = np.array2string(np.asarray(self), separator=", ", prefix="TracedTensor(")
        return f"TracedTensor({body}, dtype={self.dtype})"

    def __str__(self) -> str:
        if self._unbound or self._differentiated_by() is not None:
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


def tensor(array: Any, name: str | None = None) -> TracedTensor:
    """A leaf bound to concrete data (a *default binding*, not part of the structure)."""
    if isinstance(array, TracedTensor):
        return array
    if type(array) is np.ndarray and array.dtype in dt.DTYPES:
        value = array.copy()  # JAX copies too: later writes to `array` must not leak in
    else:
        value = concrete_array(array)
        if value is array or not value.flags.owndata:  # nor writes to a buffer it views
            value = value.copy()
    aval = aval_of(value.shape, value.dtype)
    if name is None:  # a concrete value, as an eager op's result: its leaf is made if needed
        t = TracedTensor(None, aval, None)
        t._value = value
        return t
    return _leaf(value, aval, name, "tensor")


def placeholder(
    shape: Sequence[int | str | Any], dtype: Any = "float64", name: str | None = None
) -> TracedTensor:
    """An unbound leaf: dims may be ints or names (`("n", 3)`) for symbolic shapes."""
    if isinstance(shape, str):  # each letter would become a dimension
        raise ParameterError(
            f"placeholder: shape must be a tuple of ints or names, got the string {shape!r} "
            f"(write ({shape!r},) for one named dimension)"
        )
    dims = tuple(as_dim(d) for d in shape)
    return _leaf(None, aval_of(dims, dt.as_dtype(dtype)), name, "placeholder")
