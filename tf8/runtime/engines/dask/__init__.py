"""The Dask engine: tf8 programs, and their gradients, as lazy `dask.array` graphs.

A *standalone* engine: it runs every instruction of its programs itself (there is no
fallback to numpy, which would compute the data on the client), so it is the host of its
runtime. Running a program builds a dask graph and computes nothing: the results are lazy
dask arrays, computed by `.compute()` or `np.asarray`, on whatever scheduler is active
(threads, or a `dask.distributed` cluster). Numpy inputs enter the graph as one-chunk dask
arrays (small results of numpy operands alone, index arithmetic say, are computed at once).

What runs, and on which chunkings, is the kernel table's business (kernels.py); an op the
engine cannot run raises `tf8.errors.ChunkingError` when the program runs (when the graph
is built, before anything is computed), naming the op and saying what to do.

`jit` places a call on this engine when an argument is a `dask.array.Array` (see
`tf8.runtime.engines.lazy_engine`), or when asked (`engine="dask"`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

import dask.array as da
import numpy as np

from tf8.errors import ChunkingError
from tf8.ops.definition import definition
from tf8.runtime.engines.base import Engine, Kernel

from .kernels import KERNELS, Block, as_dask, by_category, empty

__all__ = ["Block", "DaskEngine"]

SMALL_CONSTANT = 1 << 16  # elements: results of constant operands computed at once, up to this


def _unsupported(op: Any) -> Kernel:
    def kernel(op: Any, *arrays: Any) -> Any:
        raise ChunkingError(
            f"{op.name}: the Dask engine has no kernel for this op (control flow, "
            "run-time sizes and host ops stay on one machine); compute its operands first "
            "(np.asarray(x)) and run the function on numpy arrays (engine='numpy')"
        )

    return kernel


class DaskEngine(Engine):
    """Builds lazy dask.array graphs; runs every instruction of its programs itself."""

    name = "dask"
    memory = "dask"
    install = "pip install 'dask[array,distributed]'  (or the extra: pip install 'tf8[dask]')"
    standalone = True
    kernels = KERNELS

    def supports(self, op: Any, avals: Sequence[Any] = ()) -> bool:
        return self._kernel(op) is not None

    def kernel(self, op: Any) -> Kernel:
        found = self._kernel(op)
        return found if found is not None else _unsupported(op)

    def _kernel(self, op: Any) -> Kernel | None:
        found = definition(op)
        kernel = self.kernels.get(found.rule_key)
        return kernel if kernel is not None else by_category(found)  # registered since

    def to_host(self, array: Any) -> np.ndarray:
        return np.asarray(array)

    def from_host(self, array: np.ndarray) -> Any:
        return as_dask(array)

    def input_array(self, value: Any) -> Any:
        """A run's input as this engine reads it: a dask array stays lazy."""
        return value if isinstance(value, da.Array) else np.asarray(value)

    def interpret(self, program: Any) -> Callable[..., list]:
        """`run(values, ops) -> lazy outputs`: the instructions' kernels in order, building
        one dask graph (numpy operands enter it as one-chunk arrays; the outputs are dask
        arrays). An instruction whose operands are all numpy arrays (constants, numpy
        inputs, what was made of them) and whose results are small runs at once on tf8's
        numpy kernel: index arithmetic stays known, so slices at constant starts stay slices.
        An instruction whose results are all empty needs no data: they are empty arrays of
        their avals (dask's own reductions mis-shape or refuse empty operands)."""
        steps = []
        for inst in program.instructions:
            avals = [program.slot_avals[s] for s in inst.outputs]
            sizes = [int(np.prod(a.shape)) for a in avals]
            small = bool(inst.inputs) and max(sizes, default=0) <= SMALL_CONSTANT
            kernel = self.kernel(inst.op)
            if sizes and not any(sizes):
                kernel = functools.partial(empty, avals)
            steps.append((kernel, Block(inst.op) if small else None, inst))
        outputs = list(program.output_slots)
        size = len(program.slot_avals)

        def run(values: Sequence[Any], ops: Sequence[Any]) -> list:
            slots: list[Any] = [*values, *[None] * (size - len(values))]
            for (kernel, now, inst), op in zip(steps, ops):
                ins = [slots[s] for s in inst.inputs]
                if now is not None and not any(isinstance(x, da.Array) for x in ins):
                    result = now(*ins)
                else:
                    result = kernel(op, *ins)
                if len(inst.outputs) == 1:
                    slots[inst.outputs[0]] = result
                else:
                    for s, r in zip(inst.outputs, result):
                        slots[s] = r
            return [as_dask(slots[s]) for s in outputs]

        return run

    def generate(
        self, program: Any, engines: Sequence[Engine], use_regions: bool = True
    ) -> Callable[..., list]:
        """The optimised program's run function: interpreted, like the lean one (dask fuses
        blockwise layers itself when it computes)."""
        run = self.interpret(program)
        run.regions = []  # type: ignore[attr-defined]
        run.guest_regions = []  # type: ignore[attr-defined]
        return run
