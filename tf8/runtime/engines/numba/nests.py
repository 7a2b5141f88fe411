"""Indexed code generation: a run of instructions as loop nests over multi-indices.

For runs the flat code generator (codegen.py) cannot take — broadcasts of arrays, slices,
pads, concatenations, transposes, reshapes, reductions along some axes, small dot_generals,
reads through folded views — the run becomes one `@njit` function of loop nests (XLA's
loop fusion, in source):
- a value is either *inlined* — its element is an expression substituted where it is read,
  at the reader's index (structural ops are index arithmetic, indexing.py) — or a *root*,
  computed once per element in a nest over its shape. Roots: results the run returns, 0-d
  values, reductions and dot_generals (their element is a loop), and elementwise values
  whose elements would otherwise be computed more than once (read at several places, or
  through a broadcast or a contraction);
- consecutive roots of one shape share a nest; a root read in its own nest at the nest's
  index is a register there, anywhere else it is read from its array (allocated only then);
  a root that reads another root of its nest at another index starts a new nest.

Tolerance as codegen.py's (a reduction or contraction sums left to right in float64).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tf8.ops.definition import infer
from tf8.ops.primitive import Aval

from .codegen import DECORATOR, _dtype, header
from .indexing import Index, indexed, is_loop, loop_code, reads_per_element, view_index
from .scalar import repeats, scalar_code


class _Split(Exception):
    """A root reads a root of the current nest at another index: it needs a nest of its own."""


def view_shapes(program: Any, slot: int, views: Sequence[Any]) -> list[tuple[int, ...]]:
    """The shapes along a chain of views applied to `slot`: the slot's, then each view's."""
    aval = program.slot_avals[slot]
    shapes = [tuple(aval.shape)]
    for view in views:
        aval = infer(view, [Aval(shapes[-1], aval.dtype)])[0]
        shapes.append(tuple(aval.shape))
    return shapes


class NestSource:
    """Builds the module source of one `@njit` function `run` (see the module docstring);
    `inputs` are the slots `run` takes, in order; `nests` the shapes of its loop nests."""

    def __init__(self, program: Any, indices: Sequence[int], escapes: Sequence[int]) -> None:
        self.program = program
        self.instructions = [program.instructions[i] for i in indices]
        self.producer = {inst.outputs[0]: inst for inst in self.instructions}
        self.inputs: list[int] = []
        for inst in self.instructions:
            for s in inst.inputs:
                if s not in self.producer and s not in self.inputs:
                    self.inputs.append(s)
        self.escapes = list(escapes)
        self.roots = self._roots()
        self.stored = {s for s in self.escapes if self.shape(s)}
        self.nests: list[tuple[int, ...]] = []

    def shape(self, s: int) -> tuple[int, ...]:
        return tuple(self.program.slot_avals[s].shape)

    def _operand_shapes(self, inst: Any) -> list[tuple[int, ...]]:
        return [
            view_shapes(self.program, s, inst.views_of(p))[-1] for p, s in enumerate(inst.inputs)
        ]

    def _roots(self) -> set[int]:
        """Decide, from the last instruction back, which values are roots: `reads[s]` counts
        how often each element of s would be computed if s were inlined."""
        roots: set[int] = set()
        reads: dict[int, float] = {s: 1.0 for s in self.escapes}
        for inst in reversed(self.instructions):
            s = inst.outputs[0]
            structural = indexed(inst.op) is not None
            if (
                s in self.escapes
                or not self.shape(s)
                or is_loop(inst.op)
                or (not structural and reads.get(s, 0.0) > 1.0)
            ):
                roots.add(s)
            times = 1.0 if s in roots else reads.get(s, 0.0)
            shapes = self._operand_shapes(inst)
            for p, operand in enumerate(inst.inputs):
                per = reads_per_element(inst.op, shapes, self.shape(s), p)
                if repeats(inst.op):
                    per *= 2.0
                chain = inst.views_of(p)
                along = view_shapes(self.program, operand, chain)
                for k, view in enumerate(chain):
                    per *= reads_per_element(view, [along[k]], along[k + 1], 0)
                reads[operand] = reads.get(operand, 0.0) + times * per
        return roots

    # --- expressions ---------------------------------------------------------------------------
    def value(self, s: int, idx: Index) -> str:
        """The element of slot s at index idx."""
        if s in self.inputs:
            j = self.inputs.index(s)
            return f"a{j}" if not self.shape(s) else f"a{j}[{', '.join(idx)}]"
        if s in self.roots:
            self.reading.add(s)
            if not self.shape(s):
                return f"v{s}"
            if s in self.current:
                if idx == self.identity:
                    return f"v{s}"
                raise _Split
            self.arrays.add(s)
            return f"t{s}[{', '.join(idx)}]"
        return self.element(self.producer[s], idx)

    def operand(self, inst: Any, position: int, idx: Index) -> str:
        """Operand `position` of `inst` at idx, through its folded views."""
        s = inst.inputs[position]
        chain = inst.views_of(position)
        if chain:
            shapes = view_shapes(self.program, s, chain)
            for k in range(len(chain) - 1, -1, -1):
                remap = view_index(chain[k])
                assert remap is not None  # the engine places views with an index map only
                idx = remap(chain[k], shapes[k], shapes[k + 1], idx)
        return self.value(s, idx)

    def element(self, inst: Any, idx: Index) -> str:
        """The element of an elementwise or structural instruction at idx."""

        def read(p: int, index: Index) -> str:
            return self.operand(inst, p, index)

        out = self.shape(inst.outputs[0])
        code = indexed(inst.op)  # (a broadcast of a 0-d value reads it as its scalar code does)
        if code is not None:
            return code(inst.op, self._operand_shapes(inst), out, idx, read)
        return scalar_code(inst.op)(
            inst.op,
            [
                read(p, () if not shape else idx)
                for p, shape in enumerate(self._operand_shapes(inst))
            ],
        )

    # --- emission ------------------------------------------------------------------------------
    def _root_lines(self, inst: Any) -> list[str]:
        s = inst.outputs[0]
        if is_loop(inst.op):
            lines, acc = loop_code(
                inst.op,
                self._operand_shapes(inst),
                self.shape(s),
                self.identity,
                lambda p, index: self.operand(inst, p, index),
                f"r{s}_",
            )
            return [*lines, f"v{s} = {_dtype(self.program, s)}({acc})"]
        return [f"v{s} = {self.element(inst, self.identity)}"]

    def _attempt(self, inst: Any, shape: tuple[int, ...], roots: set[int]) -> list[str]:
        """The lines of root `inst` in a nest of `shape` already holding `roots` (raises
        _Split when it reads one of them at another index); records the roots it reads."""
        self.current, self.reading, self.arrays = roots, set(), set()
        self.identity = tuple("0" if n == 1 else f"i{k}" for k, n in enumerate(shape))
        return self._root_lines(inst)

    def build(self) -> str:
        """Each root joins the first nest of its shape that comes after every root it reads
        (and reads its own nest's roots at the nest's index), else opens a new nest."""
        body: list[tuple[tuple[int, ...], set[int], list[tuple[int, list[str]]]]] = []
        nest_of: dict[int, int] = {}
        for inst in self.instructions:
            s = inst.outputs[0]
            if s not in self.roots:
                continue
            shape = self.shape(s)
            self._attempt(inst, shape, set())
            lowest = max((nest_of[d] for d in self.reading), default=0)
            for j in range(lowest, len(body)):
                if body[j][0] == shape:
                    try:
                        lines = self._attempt(inst, shape, body[j][1])
                    except _Split:
                        continue
                    break
            else:
                j = len(body)
                body.append((shape, set(), []))
                lines = self._attempt(inst, shape, set())
            self.stored |= self.arrays
            body[j][1].add(s)
            body[j][2].append((s, lines))
            nest_of[s] = j
        self.nests = [shape for shape, _, _ in body]
        code = []
        for s in sorted(self.stored):
            code.append(f"t{s} = np.empty({self.shape(s)!r}, {_dtype(self.program, s)})")
        for shape, _, roots in body:
            depth = 0
            for k, n in enumerate(shape):
                if n != 1:
                    code.append("    " * depth + f"for i{k} in range({n}):")
                    depth += 1
            for s, lines in roots:
                code += ["    " * depth + line for line in lines]
                if s in self.stored:
                    index = ", ".join("0" if n == 1 else f"i{k}" for k, n in enumerate(shape))
                    code.append("    " * depth + f"t{s}[{index}] = v{s}")
        returned = []
        for s in self.escapes:
            if self.shape(s):
                returned.append(f"t{s}")
            else:
                code += [f"o{s} = np.empty((), {_dtype(self.program, s)})", f"o{s}[()] = v{s}"]
                returned.append(f"o{s}")
        code.append(f"return ({''.join(r + ', ' for r in returned)})")
        params = ", ".join(f"a{j}" for j in range(len(self.inputs)))
        lines = [DECORATOR, f"def run({params}):", *("    " + line for line in code)]
        return header(set()) + "\n".join(lines) + "\n"

    def description(self) -> str:
        sizes = sorted({shape for shape in self.nests if shape})
        loops = sum(is_loop(inst.op) for inst in self.instructions)
        return (
            f"{len(self.nests)} loop nest(s) over {', '.join(map(str, sizes)) or 'scalars'}, "
            f"{len(self.roots)} computed value(s), {loops} reduction(s)/contraction(s), "
            f"{len(self.stored)} array(s)"
        )
