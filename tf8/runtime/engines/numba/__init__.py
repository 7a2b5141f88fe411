"""The numba engine: fused regions as compiled loops.

It compiles what the primitives' definitions say it can (their `Fusion` facts, written in
their homes): elementwise primitives as scalar code (scalar.py), structural ops
(broadcast_in_dim, slice, pad, concatenate, reverse, transpose, reshape, iota) as index
arithmetic, and reductions and small dot_generals as loops (indexing.py); it takes an
instruction when every operand and result is a real float (bool for a comparison's result
and a select's predicate) and shapes are concrete and non-empty; an operand may be read
through folded views (those with an index map). Everything else falls back to the numpy
engine. Each run of consecutive instructions placed here compiles to one `@njit` function,
cached on disk (cache.py): flat loops over elementwise ops with full reductions
(codegen.py), loop nests over multi-indices for the rest (nests.py); kernel ops (random.py:
the Threefry-2x32 hash) run as compiled kernels between them.

numba is imported only when this engine first compiles — in the optimised tier, never on
a program's first run — so selecting it costs nothing until a program runs again.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from tf8.ops.avals import ConstantValue
from tf8.ops.definition import OpDefinition, definition
from tf8.ops.primitive import Primitive
from tf8.ops.shapes import has_symbolic, is_symbolic
from tf8.runtime.engines.adaptive import Faster
from tf8.runtime.engines.base import Engine, GuestRegion

from . import cache
from . import random as kernel_ops
from .codegen import TOLERANCE, Source
from .indexing import indexed, view_index
from .nests import NestSource, view_shapes
from .scalar import accumulation, bool_operands, bool_result, scalar_code

__all__ = ["TOLERANCE", "NumbaEngine"]

_FLOATS = ("float32", "float64")
MIN_OPS = 3  # a shorter run is left to numpy: a compile (~0.1-1 s) and a call would not pay


MAX_CONTRACTION = 1 << 18  # multiply-adds of a dot_general compiled as loops; more: BLAS


def compiles(found: OpDefinition) -> bool:
    """Whether the engine has code for ops of this definition: scalar code, an accumulator,
    index arithmetic or a loop (on the dtypes and shapes `NumbaEngine.supports` checks)."""
    fusion = found.fusion
    return any(
        fact is not None
        for fact in (fusion.scalar, fusion.accumulate, fusion.index, fusion.element, fusion.loop)
    )


def _scalar_view(op: Any) -> bool:
    """A view with scalar code: of a 0-d value, the value itself (broadcast_in_dim)."""
    return view_index(op) is not None and scalar_code(op) is not None


def _scalar_broadcast(view_chain: tuple[Any, ...], aval: Any) -> bool:
    return len(view_chain) == 1 and _scalar_view(view_chain[0]) and not aval.ndim


def _flat(inst: Any, program: Any) -> bool:
    """Whether the flat code generator (codegen.py) takes `inst` (placed here): elementwise
    ops reading arrays of their own shape or broadcast 0-d values, 0-d broadcasts, and
    reductions of every axis of an array read as it is."""
    avals = program.slot_avals
    views = inst.input_views or ()
    if not all(
        not chain or _scalar_broadcast(chain, avals[inst.inputs[p]])
        for p, chain in enumerate(views)
    ):
        return False
    x = avals[inst.inputs[0]] if inst.inputs else None
    if accumulation(inst.op) is not None:
        return not views and tuple(inst.op["axes"]) == tuple(range(x.ndim)) and x.ndim > 0
    if view_index(inst.op) is not None:  # a view: here only as the broadcast of a 0-d value
        return not x.ndim and _scalar_view(inst.op)
    return scalar_code(inst.op) is not None


class NumbaEngine(Engine):
    """Compiles fused regions (elementwise ops, structural ops, reductions, small
    contractions) with numba."""

    name = "numba"
    install = "pip install numba"
    # its kernels are source, from the definitions' facts (`compiles`): scalar code per
    # element, index arithmetic per structural op, a block fold per full reduction, a loop
    # per reduction along axes or contraction

    def compiles(self, found: OpDefinition) -> bool:
        """Whether this engine has code for ops of definition `found` (see `compiles`)."""
        return compiles(found)

    def supports(self, op: Any, avals: Sequence[Any] = ()) -> bool:
        if kernel_ops.handles(op):  # compiled kernels (random.py), not scalar code
            return kernel_ops.supports(op, avals)
        if type(op) is not Primitive or has_symbolic(op.params) or kernel_ops.declines(op, avals):
            return False
        found = definition(op)
        if not compiles(found):
            return False
        if not avals:
            return True
        *ins, out = avals
        for position, aval in enumerate(avals):
            if is_symbolic(aval.shape) or 0 in aval.shape:
                return False
            kind = aval.dtype.name
            boolean = (aval is out and bool_result(op)) or (
                aval is not out and position in bool_operands(op)
            )
            if kind not in (("bool",) if boolean else _FLOATS):
                return False
        multiply_adds = found.fusion.multiply_adds
        if multiply_adds is not None:  # a contraction: loops while small, else BLAS
            return multiply_adds(op, [a.shape for a in ins], out.shape) <= MAX_CONTRACTION
        if accumulation(op) is not None or indexed(op) is not None:
            return True
        return all(a.shape == out.shape for a in ins)

    def worth(self, program: Any, instructions: Sequence[Any]) -> bool:
        """At least MIN_OPS instructions on arrays (0-d scalar code alone is not worth it)."""
        if kernel_ops.holds_kernel(instructions):
            return True
        arrays = 0
        for inst in instructions:
            arrays += bool(program.slot_avals[inst.outputs[0]].ndim) or (
                accumulation(inst.op) is not None
            )
        return arrays >= MIN_OPS

    def places(self, inst: Any, program: Any) -> bool:
        """Supported, reading its operands as they are or through views (index arithmetic)."""
        if kernel_ops.handles(inst.op):
            return kernel_ops.places(inst, program)
        if len(inst.outputs) != 1:
            return False
        ins = [program.slot_avals[s] for s in inst.inputs]
        out = program.slot_avals[inst.outputs[0]]
        for position, chain in enumerate(inst.input_views or ()):
            if chain:  # the operand as the instruction reads it
                if not all(
                    view_index(view) is not None and not has_symbolic(view.params) for view in chain
                ):
                    return False
                shape = view_shapes(program, inst.inputs[position], chain)[-1]
                ins[position] = type(out)(shape, ins[position].dtype)
        return self.supports(inst.op, [*ins, out])

    def region_code(
        self, program: Any, indices: Sequence[int], escapes: Sequence[int]
    ) -> GuestRegion:
        if kernel_ops.holds_kernel(program.instructions[i] for i in indices):
            return kernel_ops.region_code(program, indices, escapes, self.region_code)
        if all(_flat(program.instructions[i], program) for i in indices):
            source: Source | NestSource = Source(program, indices, escapes)
        else:
            source = NestSource(program, indices, escapes)
        text = source.build()
        module, path, loaded = cache.load(text, self._warm(program, source.inputs))
        function = module.run
        if hasattr(module, "run_parallel"):  # a large loop: on one thread or on all
            function = Faster(module.run, module.run_parallel)
        description = (
            f"numba: instructions {indices[0]}..{indices[-1]} → one function, "
            f"{source.description()}; "
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
        constants = {  # literals (constant): their values
            inst.outputs[0]: definition(inst.op).literal(inst.op)
            for inst in program.instructions
            if not inst.inputs and definition(inst.op).literal is not None  # (not a transfer)
        }
        args = []
        for s in inputs:
            aval = program.slot_avals[s]
            value = constants.get(s)
            if value is None:
                value = np.zeros(aval.shape, aval.dtype)
            args.append(value if aval.ndim else aval.dtype.type(value[()]))
        return lambda run: run(*args)
