"""The numba engine: fused elementwise regions and reductions as compiled loops.

Its kernel table (scalar.py) holds elementwise primitives as scalar code and reductions as
accumulators; it takes an instruction when every operand and result is a real float (bool
for a comparison's result and a select's predicate), shapes are concrete and non-empty, a
reduction reduces every axis, and an operand is read either as it is or as a broadcast 0-d
value. Everything else falls back to the numpy engine. Each run of consecutive instructions
placed here compiles to one `@njit` function (codegen.py), cached on disk (cache.py);
kernel ops (random.py: the Threefry-2x32 hash) run as compiled kernels between them.

numba is imported only when this engine first compiles — in the optimised tier, never on
a program's first run — so selecting it costs nothing until a program runs again.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from tf8.ops.primitive import Primitive
from tf8.ops.shapes import has_symbolic, is_symbolic
from tf8.runtime.engines.base import Engine, GuestRegion

from . import random as kernel_ops
from .codegen import TOLERANCE, Source
from .scalar import BOOL_OPERANDS, BOOL_RESULT, REDUCTIONS, SCALAR

__all__ = ["TOLERANCE", "NumbaEngine"]

_FLOATS = ("float32", "float64")
MIN_OPS = 3  # a shorter run is left to numpy: a compile (~0.1-1 s) and a call would not pay


def _scalar_broadcast(view_chain: tuple[Any, ...], aval: Any) -> bool:
    return len(view_chain) == 1 and view_chain[0].name == "broadcast_in_dim" and not aval.ndim


class NumbaEngine(Engine):
    """Compiles fused elementwise regions (trailing reductions included) with numba."""

    name = "numba"
    install = "pip install numba"
    # its kernels are source: scalar code per element, and a block fold per reduction
    kernels = {**SCALAR, **REDUCTIONS}  # type: ignore[dict-item]

    def supports(self, op: Any, avals: Sequence[Any] = ()) -> bool:
        if kernel_ops.handles(op):  # compiled kernels (random.py), not scalar code
            return kernel_ops.supports(op, avals)
        if type(op) is not Primitive or has_symbolic(op.params) or kernel_ops.declines(op, avals):
            return False
        name = op.name
        if (
            name not in SCALAR
            and name not in REDUCTIONS
            and name not in ("broadcast_in_dim", "convert")
        ):
            return False
        if not avals:
            return True
        *ins, out = avals
        for position, aval in enumerate(avals):
            if is_symbolic(aval.shape) or 0 in aval.shape:
                return False
            kind = aval.dtype.name
            boolean = (aval is out and name in BOOL_RESULT) or (
                aval is not out and position in BOOL_OPERANDS.get(name, ())
            )
            if kind not in (("bool",) if boolean else _FLOATS):
                return False
        if name in REDUCTIONS:
            return ins[0].ndim > 0 and tuple(op["axes"]) == tuple(range(ins[0].ndim))
        if name == "broadcast_in_dim":
            return not ins[0].ndim
        return all(a.shape == out.shape for a in ins)

    def worth(self, program: Any, instructions: Sequence[Any]) -> bool:
        """At least MIN_OPS instructions on arrays (0-d scalar code alone is not worth it)."""
        if kernel_ops.holds_kernel(instructions):
            return True
        arrays = 0
        for inst in instructions:
            arrays += bool(program.slot_avals[inst.outputs[0]].ndim) or inst.name in REDUCTIONS
        return arrays >= MIN_OPS

    def places(self, inst: Any, program: Any) -> bool:
        if kernel_ops.handles(inst.op):
            return kernel_ops.places(inst, program)
        if len(inst.outputs) != 1:
            return False
        for position, chain in enumerate(inst.input_views or ()):
            if chain and not _scalar_broadcast(chain, program.slot_avals[inst.inputs[position]]):
                return False
        if inst.input_views and inst.name in REDUCTIONS:
            return False
        ins = [program.slot_avals[s] for s in inst.inputs]
        out = program.slot_avals[inst.outputs[0]]
        for position, chain in enumerate(inst.input_views or ()):
            if chain:  # a broadcast 0-d operand reads as the output's shape
                ins[position] = type(out)(out.shape, ins[position].dtype)
        return self.supports(inst.op, [*ins, out])

    def region_code(
        self, program: Any, indices: Sequence[int], escapes: Sequence[int]
    ) -> GuestRegion:
        if kernel_ops.holds_kernel(program.instructions[i] for i in indices):
            return kernel_ops.region_code(program, indices, escapes, self.region_code)
        from . import cache

        source = Source(program, indices, escapes)
        text = source.build()
        function, path, loaded = cache.load(text, self._warm(program, source.inputs))
        shapes = sorted({loop.shape for loop in source.loops if loop.shape is not None})
        reductions = sum(inst.name in REDUCTIONS for inst in source.instructions)
        description = (
            f"numba: instructions {indices[0]}..{indices[-1]} → one function, "
            f"{sum(loop.shape is not None for loop in source.loops)} loop(s) over "
            f"{', '.join(map(str, shapes)) or 'scalars'}, {reductions} reduction(s); "
            f"{'loaded from' if loaded else 'compiled into'} the disk cache ({path.name})"
        )
        scalars = frozenset(s for s in source.inputs if not program.slot_avals[s].ndim)
        return GuestRegion(
            function, source.inputs, list(escapes), text, description, path, loaded, scalars
        )

    def _warm(self, program: Any, inputs: Sequence[int]) -> Any:
        """A call compiling (or loading) `run` for the argument types the host passes: the
        constants themselves (read-only arrays), C arrays of zeros for the other inputs,
        numpy scalars for 0-d ones; run once, when the optimised tier is built."""
        constants = {
            inst.outputs[0]: inst.op["value"].array
            for inst in program.instructions
            if inst.name == "constant"
        }
        args = []
        for s in inputs:
            aval = program.slot_avals[s]
            value = constants.get(s)
            if value is None:
                value = np.zeros(aval.shape, aval.dtype)
            args.append(value if aval.ndim else aval.dtype.type(value[()]))
        return lambda run: run(*args)
