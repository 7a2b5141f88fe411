"""`jit`: trace a function once per signature, compile it, and run the prepared program.

The cache is keyed by the pytree structure of the dynamic arguments, each leaf's shape and
dtype, and the static arguments' values: LRU caches of `tf8.config.tf8_jit_cache_size`
signatures each (`cache_info()` counts hits, misses and evictions). A miss traces the
function on placeholders (inside `transform_scope`), compiles with the placeholders as
ordered inputs and prepares the result on the default runtime; a hit is a flatten, an LRU
lookup, `Prepared.run_unchecked` and an unflatten. Inside another transform (or on unbound
TracedTensors) a jitted function is simply called: the outer transform traces and compiles
everything anyway, so jit nests.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Hashable, Iterable, Sequence
from typing import Any

import numpy as np

from tf8 import api, jit_names
from tf8.compiler import CompiledGraph
from tf8.errors import DTypeError, TracingError, UnboundPlaceholder
from tf8.graph import collector
from tf8.jit_arguments import (
    INLINE,
    SCALARS,
    BoundJitted,
    array_key,
    check_jax_options,
    input_array,
    is_weak,
    leaf_kind,
    leaf_values,
    shape_dtype,
)
from tf8.jit_cache import Entry, Trace, caches_for, effects_only
from tf8.lax import effects
from tf8.lax.scopes import transform_scope
from tf8.ops import switches
from tf8.ops.primitive import aval_of
from tf8.ops.tracebacks import hide_internal_frames
from tf8.runtime.engines import lazy_engine
from tf8.static_args import StaticArgs
from tf8.traced import TracedTensor, in_transform, tensor, wrap
from tf8.tree import PyTreeDef, tree_flatten

__all__ = ["Jitted", "jit"]

_new = object.__new__


class Jitted:
    """A jit-compiled function: call it like the original; `lower(*args)` shows the program.

    `trace_count` counts traces; `cache_info()` reports hits, misses, evictions and size.
    """

    def __init__(
        self,
        fun: Callable[..., Any],
        static_argnums: int | Iterable[int] = (),
        static_argnames: str | Iterable[str] = (),
        engine: str | None = None,
        **jax_options: Any,
    ) -> None:
        if not callable(fun):
            raise TracingError(f"jit expects a callable, got {type(fun).__name__}: {fun!r}")
        check_jax_options(jax_options)
        if engine is not None:
            api.runtime_for(engine)  # an unknown or uninstalled engine fails here, not later
        functools.update_wrapper(self, fun)
        self._fun = fun
        self._engine = engine  # None: tf8.config.tf8_default_engine when a signature is traced
        self._static = StaticArgs(fun, static_argnums, static_argnames)
        self._has_static = bool(self._static)
        settings = (repr(static_argnums), repr(static_argnames), engine)
        self._caches = caches = caches_for(fun, settings, self._name())
        self._entries, self._array_entries = caches.entries, caches.array_entries
        self._traces = caches.traces

    @property
    def trace_count(self) -> int:
        """How many times the function was traced (by any `jit` of it with these settings)."""
        return self._caches.trace_count

    def __get__(self, instance: Any, owner: Any = None) -> Any:
        """A jitted function stored on a class binds like a method: `self` becomes argument 0
        (with `static_argnums=0` a hashable `self` keys the cache, as in JAX)."""
        return self if instance is None else BoundJitted(self, instance)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        try:
            return self._call(*args, **kwargs)
        except Exception as exc:  # tf8's frames leave the traceback (tf8.ops.tracebacks)
            hide_internal_frames(exc)
            raise

    def _call(self, *args: Any, **kwargs: Any) -> Any:
        if in_transform() or switches.disable_jit:  # an outer transform traces this call
            return self._fun(*args, **kwargs)
        arrays_only = not kwargs and not self._has_static
        if arrays_only:  # fast path: positional arrays need no flatten and a short key
            shapes = tuple(
                [(a.shape, a.dtype) if type(a) is np.ndarray else array_key(a) for a in args]
            )
            found = self._array_entries.get(shapes)  # a key holding None (not an array) misses
            if found is not None:
                entry, plain = found  # plain: every argument a numpy array, passed as is
                return self._execute(entry, args if plain else leaf_values(args))
            arrays_only = None not in shapes
        if self._has_static or kwargs:
            dynamic, statics = self._static.split(args, kwargs)
        else:
            dynamic, statics = args, ()
        leaves, treedef = tree_flatten(dynamic)
        signature, values = [], leaves
        for i, leaf in enumerate(leaves):
            if type(leaf) is np.ndarray:
                signature.append((leaf.shape, leaf.dtype))
            elif type(leaf) is TracedTensor and leaf._value is not None:
                signature.append((leaf.aval, leaf._weak))
                if values is leaves:
                    values = list(leaves)
                values[i] = leaf._value
            else:
                kind = leaf_kind(leaf)
                if kind is INLINE:
                    return self._fun(*args, **kwargs)
                if kind is None:
                    self._array(leaf, args, kwargs, len(signature))  # raises
                signature.append(kind)
        key = (treedef, statics, tuple(signature))
        try:
            entry = self._entries.get(key)
        except TypeError:
            raise self._static.unhashable_error(statics) from None
        if entry is None:
            # the first run too: a jitted function used once frees its graph by refcount
            # before any collection has to walk it
            with collector.paused():
                entry = self._miss(key, leaves, treedef, statics, (args, kwargs))
                if arrays_only:
                    plain = all(type(a) is np.ndarray for a in args)
                    self._array_entries.put(shapes, (entry, plain))
        return self._execute(entry, values)

    def _execute(self, entry: Entry, leaves: list[Any]) -> Any:
        """Run a cached trace on the argument leaves and hand back the output pytree."""
        trace = entry.trace
        if entry.convert:
            leaves = [input_array(leaf) for leaf in leaves]
        if trace.inputs is not None:
            leaves = [leaves[i] for i in trace.inputs]
        avals = trace.avals
        values = trace.run(leaves)
        if trace.direct:  # one output of a known aval, on an eager engine: the common case
            value, aval = values[0], avals[0]
            if value.dtype is not aval.dtype and value.dtype != aval.dtype:  # (numba's dtype
                aval = aval_of(value.shape, value.dtype)  # objects are equal, not the same)
            out = _new(TracedTensor)  # TracedTensor(None, aval, None, False, value), inlined
            out._key = out._bindings_ = None
            out.aval, out._value, out._unbound, out._weak = aval, value, False, trace.weak_one
            return out
        if trace.lazy:  # a lazy engine's outputs (dask arrays) stay lazy
            outputs = [wrap(v) if type(v) is np.ndarray else v for v in values]
        elif avals is None:
            outputs = [wrap(v) for v in values]
        else:
            outputs = [
                TracedTensor(None, a if v.dtype == a.dtype else None, None, False, v)
                for v, a in zip(values, avals)
            ]
        for i in trace.weak:
            outputs[i]._weak = True
        return outputs[0] if trace.single else trace.out_tree.unflatten(outputs)

    def lower(self, *args: Any, **kwargs: Any) -> CompiledGraph:
        """The CompiledGraph this function compiles to for these arguments (traced if new).

        TracedTensor arguments stand for their shape and dtype (symbolic dims allowed)."""
        dynamic, statics = (
            self._static.split(args, kwargs) if self._has_static or kwargs else (args, ())
        )
        leaves, treedef = tree_flatten(dynamic)
        avals = tuple(
            (leaf.aval.shape, leaf.aval.dtype, leaf._weak)
            if isinstance(leaf, TracedTensor)
            else (*shape_dtype(self._array(leaf, args, kwargs, i)), is_weak(leaf))
            for i, leaf in enumerate(leaves)
        )
        engine = self._placed(leaves)
        trace = self._trace((treedef, statics, avals, engine), treedef, statics, avals, engine)
        if trace.compiled is None:
            raise TracingError(f"{self._name()} returns no arrays, so there is no program")
        return trace.compiled

    @property
    def hits(self) -> int:
        """Calls that found their signature cached."""
        return self._array_entries.hits + self._entries.hits

    def cache_info(self) -> dict[str, int]:
        """Calls that found their signature cached (hits) or not (misses; each misses a trace
        too unless an equal shape/dtype signature was traced), evictions (LRU, at
        `tf8_jit_cache_size` signatures), signatures kept (size) and traces made (traces)."""
        caches = (self._entries, self._array_entries, self._traces)
        return {
            "hits": self.hits,
            "misses": self._entries.misses,
            "evictions": sum(c.evictions for c in caches),
            "size": len(self._traces),
            "traces": self.trace_count,
        }

    def clear_cache(self) -> None:
        self._caches.clear()

    def __repr__(self) -> str:
        return f"<jitted {self._name()}>"

    # --- misses ---------------------------------------------------------------------------
    def _miss(
        self,
        key: Hashable,
        leaves: list[Any],
        treedef: PyTreeDef,
        statics: Any,
        call: tuple[tuple[Any, ...], dict[str, Any]],
    ) -> Entry:
        """Trace (or reuse the trace of an equal shape/dtype signature) and cache an entry."""
        args, kwargs = call
        arrays = [self._array(leaf, args, kwargs, i) for i, leaf in enumerate(leaves)]
        # Python scalars are weakly typed, as in JAX: jit(f)(float32_array, 2.0) stays float32;
        # a Python bool is strong (JAX's jit(cos)(True) is a strong float32)
        avals = tuple((*shape_dtype(a), is_weak(leaf)) for a, leaf in zip(arrays, leaves))
        engine = self._placed(leaves)
        trace = self._trace((treedef, statics, avals, engine), treedef, statics, avals, engine)
        convert = any(a is not v for a, v in zip(arrays, leaf_values(leaves)))
        return self._entries.put(key, Entry(trace, convert))

    def _trace(
        self,
        key: Hashable,
        treedef: PyTreeDef,
        statics: Any,
        avals: Sequence[tuple[Any, Any, bool]],
        engine: str | None = None,
    ) -> Trace:
        trace = self._traces.get(key)
        if trace is not None:
            return trace
        with collector.paused():  # many objects, all alive until the program is built
            return self._traces.put(key, self._build(treedef, statics, avals, engine))

    def _build(
        self,
        treedef: PyTreeDef,
        statics: Any,
        avals: Sequence[tuple[Any, Any, bool]],
        engine: str | None,
    ) -> Trace:
        """Trace the function on placeholders of `avals`, compile and prepare the program."""
        if switches.no_tracing:
            raise TracingError(
                f"{self._name()} would be traced for a new signature ({len(avals)} arguments) "
                "inside tf8.no_tracing()"
            )
        with transform_scope(symbolic=True), effects.scope() as scoped:
            names = jit_names.ArgumentNames(self._fun)  # titles: parameter names, pytree paths
            inputs, in_order = jit_names.named_placeholders(names, treedef, statics, avals)
            dynamic = treedef.unflatten(inputs)
            args, kwargs = StaticArgs.rebuild(dynamic, statics) if statics else (dynamic, {})
            with self._traces.lock:
                self._caches.trace_count += 1
            # a transform traced directly (jit(grad(f))) takes the placeholders, which only
            # the arguments reach, as its own leaves (no stand-ins to substitute back)
            direct = getattr(self._fun, "trace_on_placeholders", None)
            if direct is not None:
                result = direct(frozenset([t.key for t in inputs]), *args, **kwargs)
            else:
                with jit_names.Explaining(self._fun, inputs):  # errors name f and its args
                    result = self._fun(*args, **kwargs)
            out_leaves, out_tree = tree_flatten(result)
            outputs = [self._output(leaf, i, out_tree) for i, leaf in enumerate(out_leaves)]
            outputs = effects.tie(scoped, outputs)  # the effects run before the outputs are read
        token = effects.pending(scoped)
        if not outputs and token is None:
            return Trace(None, None, out_tree, ())
        out_names = jit_names.output_titles(self._fun, names, out_tree) if outputs else None
        try:
            compiled = api.default_compiler.compile_with_input_specs(
                outputs or [token], [inputs[i] for i in in_order], True, out_names
            )
        except UnboundPlaceholder as exc:
            raise UnboundPlaceholder(
                f"{self._name()}: {exc}. The result depends on a traced value that does not "
                "come from this call's arguments: one leaked from another trace (kept in a "
                "global or closure by an earlier jit trace) or a tf8.placeholder made outside; "
                "pass it as an argument instead"
            ) from None
        read = set(compiled.inputs)
        used = [i for i in in_order if inputs[i].key in read]  # in argument order
        order = None if used == list(range(len(inputs))) else tuple(used)
        if not outputs:  # only effects (a function returning None that prints)
            return effects_only(Trace(compiled, order, out_tree, (), engine))
        weak = tuple(i for i, t in enumerate(outputs) if t._weak)
        static = all(type(d) is int for t in outputs for d in t.shape)
        avals = tuple(aval_of(t.shape, t.dtype) for t in outputs) if static else None
        return Trace(compiled, order, out_tree, weak, engine, avals)

    def _output(self, leaf: Any, index: int, out_tree: PyTreeDef) -> TracedTensor:
        if isinstance(leaf, TracedTensor):
            return leaf
        if isinstance(leaf, (np.ndarray, np.generic, *SCALARS)):
            constant = tensor(leaf)  # a constant output: a bound leaf of the program
            constant._weak = type(leaf) in SCALARS  # a Python number stays weak, as in JAX
            return constant
        raise TracingError(
            f"function {self._name()}{jit_names.defined_at(self._fun)} traced for jit returned a "
            f"value of type {type(leaf).__name__} ({leaf!r:.60}) as output leaf {index} of "
            f"{out_tree}; "
            "a jitted function must return arrays, scalars or TracedTensors (or pytrees of them)"
        )

    def _placed(self, leaves: Sequence[Any]) -> str | None:
        """The engine of a call: the engine of its lazy array arguments (placement by input
        type: dask.array inputs run on the Dask engine, whatever `engine=` says), else the
        jitted function's `engine` (None: the configured default)."""
        for leaf in leaves:
            lazy = lazy_engine(leaf)
            if lazy is not None:
                return lazy
        return self._engine

    def _array(self, leaf: Any, args: Any, kwargs: dict[str, Any], index: int) -> np.ndarray:
        """Argument leaf `index` as the array a placeholder stands for; TracingError if it
        is not array data."""
        problem = None
        if leaf_kind(leaf) is None:
            problem = "is not an array, a scalar or a pytree of them"
        else:
            try:
                return input_array(leaf)
            except DTypeError as exc:
                problem = f"has an unsupported dtype ({exc})"
        raise TracingError(
            f"argument {self._where(args, kwargs, index)} of {self._name()} {problem}: got "
            f"{type(leaf).__name__} {leaf!r:.60}; convert it, or mark the argument static "
            "(static_argnums / static_argnames)"
        )

    # --- messages -------------------------------------------------------------------------
    def _name(self) -> str:
        return getattr(self._fun, "__qualname__", None) or repr(self._fun)

    def _where(self, args: tuple[Any, ...], kwargs: dict[str, Any], leaf_index: int) -> str:
        """Which argument holds dynamic leaf `leaf_index` (flattening order: positional
        arguments, then keyword arguments by sorted name), for error messages."""
        for name, value in self._static.dynamic_names(args, kwargs):
            count = len(tree_flatten(value)[0])
            if leaf_index < count:
                return name
            leaf_index -= count
        return f"leaf {leaf_index}"


def jit(
    fun: Callable[..., Any] | None = None,
    *,
    static_argnums: int | Iterable[int] = (),
    static_argnames: str | Iterable[str] = (),
    engine: str | None = None,
    **jax_options: Any,
) -> Any:
    """Compile `fun` once per argument signature; later calls run the prepared program.

    Arguments and results are pytrees of arrays; static arguments (hashable, by position or
    name) are Python values baked into the trace. Usable as `@jit` or `@jit(static_argnums=1)`.
    JAX's `donate_argnums`, `donate_argnames`, `keep_unused` and `inline` are accepted and
    change nothing (see tf8.jit_arguments.JAX_OPTIONS). `jit(f).lower(*args)` is the
    CompiledGraph it runs.
    `engine` (tf8's own keyword, where JAX has `backend=`/`device=`) names the engine the
    program runs on ("numpy", "numba", "dask"); None: `tf8.config.tf8_default_engine`. Ops the
    engine lacks run on the numpy engine (the Dask engine runs every op itself, or raises
    `tf8.errors.ChunkingError` saying what to do). A call with `dask.array` arguments runs on
    the Dask engine whatever `engine` says, and returns lazy dask arrays (placement by input
    type).
    """
    if fun is None:
        check_jax_options(jax_options)
        return functools.partial(
            jit,
            static_argnums=static_argnums,
            static_argnames=static_argnames,
            engine=engine,
            **jax_options,
        )
    return Jitted(fun, static_argnums, static_argnames, engine, **jax_options)
