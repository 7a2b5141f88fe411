"""Runtime.prepare(compiled) → Prepared; Prepared.run(*arrays) → list of numpy arrays.

The prepare cache is keyed by the semantic fingerprint (+ the pass configuration): a hit is
one LRU lookup, never a second lowering; it keeps `tf8.config.tf8_prepare_cache_size`
programs, least recently used first out (`Runtime.cache_stats`). Bindings are not part of
the fingerprint, so a cached PreparedProgram serves every CompiledGraph of the same structure.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from tf8.compiler import CompiledGraph
from tf8.compiler.dot import Drawable
from tf8.errors import (
    CompileError,
    EngineError,
    ParameterError,
    RunDTypeError,
    RunInputError,
    ShapeGuardError,
)
from tf8.graph import ValueKey
from tf8.graph.caches import LRUCache
from tf8.ops import dtypes as dt
from tf8.ops.evaluate import specialize
from tf8.ops.primitive import Aval
from tf8.ops.shapes import DimExpr, dim_symbols, evaluate_dim, shape_str

from .bodies import describe_loops, hand_bodies
from .dot import prepared_dot
from .dynamic import interpret
from .engines import Engine, get_engine
from .exec_program import ExecProgram
from .passes import DEFAULT_PASSES, Pass, PassStats, stats_table
from .tiers import PreparedProgram


class Runtime:
    """Prepares compiled graphs for execution on its engines, with a fingerprint cache."""

    def __init__(
        self,
        engines: Sequence[Engine] | None = None,
        passes: Sequence[Pass] | None = None,
        regions: bool = True,
        optimise: bool | None = None,
    ) -> None:
        # The engines in order of preference; the numpy engine (the host, which runs every op)
        # is always there, last, and takes what the others lack.
        # A standalone engine (Dask) runs everything itself: it is the host, alone.
        if isinstance(engines, str):
            raise EngineError(
                f"Runtime(engines=...) takes a list of engine names, got the string {engines!r} "
                f"(write engines=[{engines!r}])"
            )
        if optimise not in (None, True, False):
            raise ParameterError(f"Runtime: optimise must be None, True or False, got {optimise!r}")
        chosen = [get_engine(e) for e in engines or ()]
        host = next((e for e in chosen if e.name == "numpy" or e.standalone), None)
        host = host or get_engine("numpy")
        self.host = host
        guests = [] if host.standalone else [e for e in chosen if e is not host]
        self.engines = (*guests, host)
        try:
            self.passes = tuple(DEFAULT_PASSES if passes is None else passes)
        except TypeError:
            raise ParameterError(
                f"Runtime: passes must be a sequence of passes, got {type(passes).__name__}"
            ) from None
        self.regions = regions  # blocked elementwise regions (codegen) on or off
        # None: lean first runs, optimised from the second (or at once for large arrays);
        # True / False: always optimised / always lean.
        self.optimise = optimise
        self._cache = LRUCache("prepare", "runtime prepare cache")

    def prepare(self, compiled: CompiledGraph) -> Prepared:
        if not isinstance(compiled, CompiledGraph):
            raise CompileError(
                f"Runtime.prepare takes a CompiledGraph (from GraphCompiler.compile), "
                f"got {type(compiled).__name__}"
            )
        prepared = self._cache.get_or_make(compiled.fingerprint, lambda: self._make(compiled))
        return Prepared(compiled, prepared)

    def _make(self, compiled: CompiledGraph) -> PreparedProgram:
        # the program's control-flow bodies run on a numpy runtime's prepared programs
        numpy_only = self.engines == (self.host,) and self.host.name == "numpy"
        hand_bodies(compiled.program, self if numpy_only else _numpy_runtime())
        return PreparedProgram(
            compiled.program,
            self.host,
            self.passes,
            self.regions,
            self.optimise,
            guests=self.engines[:-1],
        )

    @property
    def cache_stats(self) -> LRUCache:
        """The prepare cache: `.hits`, `.misses`, `.evictions`, `.stats()`."""
        return self._cache

    def clear_cache(self) -> None:
        self._cache.clear()


_NUMPY: list[Runtime] = []  # the numpy runtime bodies run on where the outer one is not


def _numpy_runtime() -> Runtime:
    if not _NUMPY:
        _NUMPY.append(Runtime())
    return _NUMPY[0]


class Prepared(Drawable):
    """A compiled graph ready to run: `run(*placeholder_arrays, bindings=None) -> list`.
    `pretty()` prints the optimised program; `to_dot()` / `draw()` picture it."""

    __slots__ = ("compiled", "prepared", "_bound", "_placeholder_positions", "_unchecked_tail")

    def __init__(self, compiled: CompiledGraph, prepared: PreparedProgram) -> None:
        self.compiled = compiled
        self.prepared = prepared
        inputs = compiled.inputs
        self._bound = [compiled.bindings.get(k) for k in inputs]
        self._placeholder_positions = [
            i for i, k in enumerate(inputs) if k not in compiled.bindings
        ]
        # run_unchecked's fast layout: placeholders first, then the bound arrays; only for
        # programs without symbolic dimensions or shape guards (those need the checks).
        count = len(self._placeholder_positions)
        fast = (
            self._placeholder_positions == list(range(count))
            and not prepared.symbolic
            and not prepared.guards
            and not prepared.run_time_symbols
        )
        self._unchecked_tail = tuple(self._bound[count:]) if fast else None

    @property
    def program(self) -> ExecProgram:
        return self.prepared.program

    @property
    def pass_stats(self) -> list[PassStats]:
        return self.prepared.stats

    def pretty(self) -> str:
        prepared = self.prepared
        tier = f"tier: {prepared.tier} (lean runs: {prepared.lean_runs})"
        if prepared.tier == "lean":
            tier = tier[:-1] + (
                "; the optimised program below is built when the program runs again, or now to "
                "show it)"
            )
        regions = [
            f"  instructions {r.start}..{r.end - 1}: {r.ops} ops over {r.shape}" + r.note
            for r in self.prepared.regions
        ]
        guests = [f"  {code.description}" for code in prepared.guest_regions]
        engines = " > ".join(e.name for e in (*prepared.guests, prepared.engine))
        loops = describe_loops(self.program)
        return (
            "Prepared program:\n"
            + tier
            + f"\nengines (in order of preference; the last takes what the others lack): {engines}"
            + "\n"
            + self.program.pretty(self.compiled.input_labels(), self.compiled.output_names)
            + "\n\npasses:\n"
            + stats_table(self.prepared.stats)
            + ("\n\nelementwise regions (blocked):\n" + "\n".join(regions) if regions else "")
            + ("\n\ncompiled regions:\n" + "\n".join(guests) if guests else "")
            + ("\n\nloops:\n" + "\n".join(loops) if loops else "")
        )

    def to_dot(self) -> str:
        """Graphviz DOT text of the optimised program, fused regions as clusters."""
        return prepared_dot(self)

    def run(
        self, *arrays: Any, bindings: Mapping[ValueKey | str, Any] | None = None
    ) -> list[np.ndarray]:
        positions = self._placeholder_positions
        if len(arrays) != len(positions):
            labels = [self.compiled.inputs[i].input_key.label() for i in positions]
            raise RunInputError(
                f"run takes {len(positions)} array(s), one per placeholder {labels}, "
                f"got {len(arrays)}"
            )
        values = list(self._bound)
        for position, array in zip(positions, arrays):
            values[position] = array
        if bindings:
            self._override(values, bindings)
        env = self._check_inputs(values)
        prepared = self.prepared
        if prepared.run_time_symbols:
            program = prepared.lean_program
            engine = prepared.engine
            return interpret(program, engine.kernel, specialize, values, env, engine.quiet)
        if prepared.lean:
            prepared.note_run()
        tier = prepared.current
        return tier.run_fn(values, tier.ops_for(env, specialize))

    def run_unchecked(self, arrays: Sequence[Any]) -> list[np.ndarray]:
        """`run` without input checks, for callers that already guarantee every array's
        shape and dtype (jit's cache key does): one array per placeholder, in order."""
        tail = self._unchecked_tail
        if tail is None:
            return self.run(*arrays)
        prepared = self.prepared
        if prepared.lean:
            prepared.note_run()
        tier = prepared.current
        return tier.run_fn([*arrays, *tail], tier.ops)

    def _override(self, values: list[Any], bindings: Mapping[ValueKey | str, Any]) -> None:
        inputs = self.compiled.inputs
        for name, array in bindings.items():
            matches = [i for i, k in enumerate(inputs) if k is name or k.input_key.name == name]
            if not matches:
                known = [k.input_key.label() for k in inputs]
                raise RunInputError(f"bindings: no input named {name!r} (inputs: {known})")
            for i in matches:
                values[i] = array

    def _check_inputs(self, values: list[Any]) -> dict[str, int]:
        env: dict[str, int] = {}
        derived: list[tuple[str, int, DimExpr, int]] = []
        prepared = self.prepared
        for i, (value, aval) in enumerate(zip(values, prepared.input_avals)):
            label = self.compiled.inputs[i].input_key.label()
            values[i] = array = _as_input_array(value, aval, label, prepared.engine)
            if array.ndim != len(aval.shape):
                raise RunInputError(
                    f"input {label!r}: expected shape {shape_str(aval.shape)}, got {array.shape}"
                )
            for axis, (dim, size) in enumerate(zip(aval.shape, array.shape)):
                if isinstance(dim, int):
                    if dim != size:
                        raise RunInputError(
                            f"input {label!r}: expected shape {shape_str(aval.shape)}, "
                            f"got {array.shape}"
                        )
                    continue
                name = _symbol_name(dim)
                if name is None:  # an expression (n + 1, 2*n): checked once the names are known
                    derived.append((label, axis, dim, size))
                    continue
                if name in env and env[name] != size:
                    raise ShapeGuardError(
                        f"input {label!r}: dimension {name} is {size} on axis {axis}, but "
                        f"{env[name]} elsewhere"
                    )
                env[name] = size
        for label, axis, dim, size in derived:
            _bind_expression(env, label, axis, dim, size)
        for guard in prepared.guards:
            if dim_symbols((guard.lhs, guard.rhs)) <= env.keys():
                guard.check(env)  # the rest mention run-time sizes: checked while running
        return env


def _symbol_name(dim: DimExpr) -> str | None:
    """The name of a dimension that is a bare symbol (`n`); None for an expression."""
    if len(dim.symbols) != 1:
        return None
    (name,) = dim.symbols
    return name if dim == DimExpr.symbol(name) else None


def _bind_expression(env: dict[str, int], label: str, axis: int, dim: DimExpr, size: int) -> None:
    """Check an input axis whose size is an expression of names (n + 1, 2*n). A name no bare
    axis gave is read off the expression when it is linear in that one name."""
    where = f"input {label!r}: axis {axis} has size {size}"
    unknown = sorted(dim.symbols - env.keys())
    if len(unknown) > 1:
        raise ShapeGuardError(f"{where}; {dim} alone does not determine {', '.join(unknown)}")
    if unknown:
        name = unknown[0]
        f0, f1, f2 = (evaluate_dim(dim, {**env, name: k}) for k in (0, 1, 2))
        slope = f1 - f0
        if slope <= 0 or f2 - f1 != slope:
            raise ShapeGuardError(f"{where}; {dim} cannot be solved for {name}")
        if size < f0 or (size - f0) % slope:
            raise ShapeGuardError(f"{where}, which is not {dim} for any {name}")
        env[name] = (size - f0) // slope
    expected = evaluate_dim(dim, env)
    if expected != size:
        known = ", ".join(f"{k}={env[k]}" for k in sorted(dim.symbols))
        raise ShapeGuardError(f"{where}, but {dim} = {expected} ({known})")


def _as_input_array(value: Any, aval: Aval, label: str, engine: Engine) -> np.ndarray:
    array = engine.input_array(value)
    if array.dtype != aval.dtype:
        if isinstance(value, (bool, int, float, complex)):
            # A Python scalar is weak, but never silently truncated (1.5 into an int input).
            if np.can_cast(dt.weak_scalar_dtype(value), aval.dtype, "same_kind"):
                return array.astype(aval.dtype)
        elif array.dtype.kind == aval.dtype.kind and dt.canonical_dtype(array.dtype) == aval.dtype:
            return array.astype(aval.dtype)
        got = f"{array.dtype} ({value!r})" if array.ndim == 0 else str(array.dtype)
        raise RunDTypeError(f"input {label!r}: expected dtype {aval.dtype}, got {got}")
    return array
