"""TracedTensor: a structural graph node with shape, dtype and an eager feel.

A `TracedTensor` wraps a `ValueKey` (its structural identity), its `Aval`, the default arrays
bound to the leaves it depends on, and — once computed — its value. Outside transforms an op
on concrete values is computed at once (tf8.lax.core.apply), and its result is a concrete
leaf whose key is made only if some graph needs it. What cannot be computed yet (it depends on
a placeholder) is evaluated by the kernels of its ops (tf8.ops.evaluate): this layer never
needs the compiler or the runtime, and nothing is installed into it. The transform state
tensors read (what is being differentiated, whether jit records) is the frame stack of
tf8.ops.frames.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from tf8.errors import (
    ConcretizationError,
    ConversionError,
    InPlaceAssignmentError,
    ParameterError,
    ShapeError,
    TracerArrayConversionError,
)
from tf8.graph import ValueKey
from tf8.ops import dtypes as dt
from tf8.ops import leaves
from tf8.ops.devices import OnCpu
from tf8.ops.evaluate import evaluate
from tf8.ops.frames import frame_var
from tf8.ops.leaves import _EMPTY, Bindings, LeafKey, concrete_array, merge_binding_dicts
from tf8.ops.primitive import Aval, aval_of
from tf8.ops.shapes import Dim, as_dim

_setflags = np.ndarray.setflags  # cheaper than `value.flags.writeable = False`

_frame = frame_var.get  # the transform state (tf8.ops.frames): None outside transforms
_uids = itertools.count(1)
_key_lock = threading.Lock()
OpMeta = tuple  # (output avals, shape guards): what `apply` records on an OperationKey


class NeedGraph(BaseException):  # noqa: N818 - a signal, not an error users see
    """Raised inside a tape when the function does what only the graph path can differentiate
    (a nested transform, a control-flow body, an op that cannot run op by op): the transform
    runs the function again on its graph path. A BaseException, so `except Exception` in user
    code does not swallow it (the tape is marked as well, in case something does)."""


def _refuse_tape(what: str, op: Any = None) -> None:
    """Under tapes, give up (`what`, with `op` named when given): see NeedGraph."""
    frame = _frame()
    if frame is not None and frame.tapes:
        why = what if op is None else f"{what} {op}"
        for tape in frame.tapes:
            tape.failed = why
        raise NeedGraph(why)


def only_tapes() -> bool:
    """True when every enclosing transform is a tape (none at top level) and none records."""
    frame = _frame()
    return frame is None or frame.only_tapes


def _evaluate(tensors: Sequence[TracedTensor]) -> list[np.ndarray]:
    """The values of bound traced values, by their ops' kernels (reading the values the
    current transform already computed)."""
    frame = _frame()
    bindings = merge_binding_dicts([t._bindings for t in tensors])
    return evaluate([t.key for t in tensors], bindings, None if frame is None else frame.values)


def in_transform() -> bool:
    frame = _frame()
    return frame is not None and frame.depth > 0


def differentiated_argument(t: TracedTensor) -> str | None:
    """What `t` depends on that an enclosing transform differentiates (None if nothing)."""
    frame = _frame()
    if frame is None:
        return None
    for handle in frame.tapes:
        node = handle.nodes.get(id(t))
        if node is not None:
            return node[1]
    return None if t._key is None else frame.differentiated(t._key)


def evaluate_all(tensors: Sequence[TracedTensor]) -> list[np.ndarray]:
    """Values of bound traced values, computed together in one program and memoised; made
    read-only, as `__array__` makes them, since callers hand them to users."""
    pending = [t for t in tensors if t._value is None]
    unbound = [t for t in pending if t._unbound]
    if unbound:
        unbound[0]._concrete("Evaluating")  # raises the ConcretizationError
    if pending:
        for t, value in zip(pending, _evaluate(pending)):
            t._memoise(value)
    values = [t._value for t in tensors]
    for value in values:  # they leave tf8 (vmap's and the graph path's results): read-only
        _setflags(value, write=False)
    return values  # type: ignore[return-value]


class TracedTensor(OnCpu):
    """tf8's array type, `tf8.Array` (JAX's `jax.Array`): an immutable array, computed or
    recorded as a structural graph node. Every value the API hands back is one: eager ops,
    `jit`, `grad` and the other transforms, `vmap`, `random`. Values being traced (under
    `jit`, differentiated under `grad`) are Arrays too, as JAX's tracers are `jax.Array`s.

    >>> import tf8, tf8.numpy as tnp
    >>> x = tf8.jit(lambda a: a * 2.0)(tnp.arange(3.0))
    >>> isinstance(x, tf8.Array), x
    (True, Array([0., 2., 4.], dtype=float64))
    >>> x.at[1].set(7.0), x.devices()
    (Array([0., 7., 4.], dtype=float64), {CpuDevice(id=0)})

    It has JAX's methods (`.at`, `.block_until_ready()`, `.devices()`, `.sharding`,
    `.item()`, `.tolist()`, ...) and numpy's; `np.asarray(x)` is a free read-only view.
    Differs from JAX: the class is named `TracedTensor` (`tf8.Array` is the same class), and
    a value under `jit` prints as `TracedTensor<float64(3,), traced>`.

    A concrete value computed outside transforms has no key until a graph needs one: `key`
    then makes it a bound leaf (`_key` and `_bindings_` stay None until then)."""

    __slots__ = (
        "_key",
        "aval",
        "_bindings_",
        "_unbound",
        "_weak",
        "_value",
        "__weakref__",
    )
    __array_priority__ = 1000

    def __init__(
        self,
        key: ValueKey | None,
        aval: Aval,
        bindings: Bindings | None = _EMPTY,
        unbound: bool = False,
        value: np.ndarray | None = None,
    ) -> None:
        self._key = key
        self.aval = aval or aval_of(value.shape, value.dtype)  # type: ignore[union-attr]
        self._bindings_ = bindings
        self._unbound = unbound
        self._weak = False  # weakly typed (a Python scalar's stand-in): promotion defers
        self._value = value  # the computed value, when it is known

    @property
    def key(self) -> ValueKey:
        """The value's structural identity (a concrete value without one becomes a leaf)."""
        key = self._key
        if key is None:
            with _key_lock:  # two threads reading one value's key get one leaf
                key = self._key
                if key is None:
                    key = leaves.cut_key(self._value, self.aval, _uids)
                    self._bindings_ = {key: self._value}
                    self._key = key
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
            error = ConcretizationError(
                f"{why} of a traced value ({self.aval}) that depends on an unbound placeholder: "
                "its value is only known when the compiled program runs (under jit, arguments "
                "are placeholders). Use tf8.numpy.where / select, or mark the argument static."
            )
            error.value_key = self._key  # what jit names the arguments it depends on by
            raise error
        self._memoise(_evaluate([self])[0])
        return self._value  # type: ignore[return-value]

    def _memoise(self, value: np.ndarray) -> None:
        """Remember the value (made read-only when it leaves tf8, see `__array__`); outside
        transforms, later work reads it as a bound leaf."""
        self._value = value
        frame = _frame()
        if frame is not None and (frame.depth or frame.symbolic):
            return  # a recorded graph keeps its structure
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
        if value is not None and value.ndim == 0:
            frame = _frame()
            if frame is None or not (frame.tapes or (frame.levels and self._key is not None)):
                return float(value)  # an eager value: at once
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
        body = np.array2string(np.asarray(self), separator=", ", prefix="Array(")
        weak = ", weak_type=True" if self._weak else ""
        return f"Array({body}, dtype={self.dtype}{weak})"

    def __format__(self, spec: str) -> str:
        """As a numpy array formats: a 0-d value takes number formats (`f"{loss:.3f}"`)."""
        if not spec:
            return str(self)
        value = self._concrete("Formatting")
        if value.ndim:
            raise ConversionError(
                f"unsupported format string {spec!r} for a {self.aval} array (only 0-d "
                "arrays take number formats)"
            )
        self._refuse_if_differentiated("Formatting")
        return format(value[()], spec)

    def __str__(self) -> str:
        if self._unbound or self._differentiated_by() is not None:
            return repr(self)
        return str(np.asarray(self))

    def __setitem__(self, index: Any, value: Any) -> None:
        raise InPlaceAssignmentError(
            "TracedTensor is immutable: `t[i] = v` is not supported; "
            "use `t = t.at[i].set(v)` (or `.add(v)`) instead"
        )


Array = TracedTensor  # JAX's jax.Array: the one type of every value tf8 hands back


def wrap(value: np.ndarray, aval: Aval | None = None) -> TracedTensor:
    """A computed numpy array (of `aval`, when the caller knows it) as the Array the API hands
    back. Nothing else holds `value`; `__array__` makes it read-only when it leaves."""
    return TracedTensor(None, aval, None, False, value)


def _leaf(value: Any, aval: Aval, name: str | None, kind: str, title: Any = None) -> TracedTensor:
    uid = None if name is not None else next(_uids)
    key = ValueKey.input(LeafKey(uid, name, aval, kind, title))
    if value is None:
        return TracedTensor(key, aval, _EMPTY, unbound=True)
    t = TracedTensor(key, aval, {key: value})
    t._value = value
    return t


def tensor(array: Any, name: str | None = None) -> TracedTensor:
    """A leaf bound to concrete data (a *default binding*, not part of the structure)."""
    if isinstance(array, TracedTensor):
        return array
    if type(array) is np.ndarray and array.dtype in dt.NATIVE:
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
    shape: Sequence[Any], dtype: Any = "float64", name: str | None = None, title: str | None = None
) -> TracedTensor:
    """An unbound leaf, dims ints or names (`("n", 3)`); `title` names it in listings only."""
    if isinstance(shape, str):  # each letter would become a dimension
        raise ParameterError(
            f"placeholder: shape must be a tuple of ints or names, got the string {shape!r} "
            f"(write ({shape!r},) for one named dimension)"
        )
    dims = tuple(as_dim(d) for d in shape)
    return _leaf(None, aval_of(dims, dt.as_dtype(dtype)), name, "placeholder", title)
