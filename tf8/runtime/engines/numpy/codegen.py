"""Turn an optimised ExecProgram into one straight-line Python function (no interpreter loop).

What the generated `run(inputs, ops)` does, and why it is fast:
- constants are globals of the function, never instructions;
- elementwise ops are direct ufunc calls (`multiply(s1, s0)`), not kernel wrappers, and
  write into a dead operand's buffer (`add(s2, s0, s2)`: the output passed positionally,
  cheaper than `out=`, see elementwise.out_argument) when that buffer is the program's own: made
  by a ufunc in this run (never a user input, a binding, a constant, or a buffer some
  kernel may have returned a view of), of the result's exact shape and dtype, read for the
  last time here (program.last_use);
- a scalar broadcast, or a uniform constant, feeding a ufunc is read as a 0-d value (numpy
  broadcasts it) when another operand has the full shape;
- folded metadata views are inline expressions (`s3.transpose((1, 0))`: `Fusion.view`),
  reductions are `ufunc.reduce` calls (`Fusion.reduce`), 2-D matmuls are `matmul`
  (`Fusion.matmul`), constants are globals (`OpDefinition.literal`);
- runs of large same-shape elementwise ops execute as blocked regions (regions.py);
- intermediates are dropped right after their last use; numpy's floating-point warnings are
  silenced (IEEE results are values, as in JAX) by one context-variable set and reset.
Every other op calls its engine kernel.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from tf8.ops.definition import definition
from tf8.ops.fpstate import ignore_fp_errors as _silence
from tf8.ops.fpstate import restore_fp_errors as _restore
from tf8.ops.fusion import View
from tf8.ops.primitive import Primitive
from tf8.ops.shapes import has_symbolic
from tf8.runtime.engines.base import Transfer
from tf8.runtime.engines.numpy import regions
from tf8.runtime.engines.numpy.elementwise import (
    Steps,
    out_argument,
    reads_after_first_step,
    step_argument,
)
from tf8.runtime.exec_program import ExecInstruction, ExecProgram
from tf8.runtime.passes import last_use
from tf8.runtime.rewrite import uniform_scalar


def own_outputs(outputs: list[Any], inputs: Sequence[Any]) -> list[np.ndarray]:
    """Each output its own writeable array: never an input, a read-only or borrowed view, or
    the same array twice (`compile(y, y)`)."""
    result: list[np.ndarray] = []
    seen: set[int] = set()
    for out in outputs:
        array = np.asarray(out)
        if (
            not array.flags.writeable
            or not array.flags.owndata
            or id(array) in seen
            or any(array is i for i in inputs)
        ):
            array = np.array(array)
        seen.add(id(array))
        result.append(array)
    return result


def _view(op: Any) -> View:
    """The `View` fact of a folded view op (view folding folds only ops that have one)."""
    return definition(op).fusion.view  # type: ignore[return-value]


class CodeGen:
    """Builds the source and namespace of one program's run function."""

    def __init__(
        self,
        program: ExecProgram,
        engine: Any,
        use_regions: bool = True,
        guests: Sequence[Any] = (),
    ) -> None:
        self.program = program
        self.engine = engine
        self.guests = {g.name: g for g in guests if g.name != engine.name}
        self.guest_regions: list[Any] = []  # what guest engines compiled, in program order
        self.lines: list[str] = []
        self.namespace: dict[str, Any] = {
            "_silence": _silence,
            "_restore": _restore,
            "_own": own_outputs,
            "empty": np.empty,
            "asarray": np.asarray,
            "matmul": np.matmul,
        }
        self._globals: dict[tuple[int, str], str] = {}
        self._alive: list[Any] = []
        # slots whose value this run allocated and nothing views (n-d ones may lend buffers)
        self.owned: set[int] = set()
        self.constants: dict[int, str] = {}  # slot → global holding its constant value
        self.scalars: dict[int, str] = {}  # slot → global holding its uniform 0-d value
        self.last_use = program.last_use
        if self.last_use is None:
            self.last_use = last_use.analyse(program)
        self.steps = [self._steps(inst) for inst in program.instructions]
        self.use_regions = use_regions
        self.regions: list[Any] = []
        self.region_sources: list[str] = []

    # --- names and operands ------------------------------------------------------------------
    def global_(self, prefix: str, value: Any, readable: str | None = None) -> str:
        """A global name holding `value` (one name per object; `readable` if it is free)."""
        key = (id(value), prefix)
        name = self._globals.get(key)
        if name is None:
            name = readable if readable and readable not in self.namespace else None
            name = name or f"{prefix}{len(self.namespace)}"
            self.namespace[name] = value
            self._globals[key] = name
            self._alive.append(value)  # ids stay unique while the generator runs
        return name

    def ufunc(self, ufunc: Any) -> str:
        return self.global_("u", ufunc, getattr(ufunc, "__name__", None))

    def dtype(self, dtype: np.dtype) -> str:
        return self.global_("d", dtype, str(dtype))

    def slot(self, s: int) -> str:
        return self.constants.get(s, f"s{s}")

    def view_expr(self, expr: str, view: Primitive) -> str:
        code = _view(view).code
        if code is not None:
            return code(view, expr, self.global_)
        # the kernel itself (a broadcast needs the operand's runtime shape)
        kernel = self.global_("k", self.engine.kernel(view))
        return f"{kernel}({self.global_('o', view)}, {expr})"

    def operand(self, inst: ExecInstruction, position: int) -> str:
        expr = self.slot(inst.inputs[position])
        for view in inst.views_of(position):
            expr = self.view_expr(expr, view)
        return expr

    def operand_ndim(self, inst: ExecInstruction, position: int) -> int:
        """Rank of an operand as its reader sees it (after its views)."""
        ndim = self.aval(inst.inputs[position]).ndim
        for view in inst.views_of(position):
            rank = _view(view).rank
            if rank is not None:
                ndim = rank(view, ndim)
        return ndim

    def scalar_operand(self, inst: ExecInstruction, position: int) -> str | None:
        """A 0-d expression numpy broadcasts to the operand's value, if there is one."""
        s, views = inst.inputs[position], inst.views_of(position)
        if not views:
            return self.scalars.get(s)
        if len(views) == 1 and _view(views[0]).broadcast:
            if not self.program.slot_avals[s].shape:
                return self.scalars.get(s, self.slot(s))
        return None

    def ufunc_operands(self, index: int) -> list[str | None]:
        """Per operand of ufunc instruction `index`: its 0-d expression, or None (full read).
        At least one operand is read in full, so numpy's result has the full shape."""
        inst = self.program.instructions[index]
        scalars = [self.scalar_operand(inst, p) for p in range(len(inst.inputs))]
        if all(s is not None for s in scalars):
            scalars[0] = None
        return scalars

    # --- per-instruction information ---------------------------------------------------------
    def _steps(self, inst: ExecInstruction) -> Steps | None:
        if len(inst.outputs) != 1 or inst.engine in self.guests or isinstance(inst.op, Transfer):
            return None
        dtypes = [self.program.slot_avals[s].dtype for s in inst.inputs]
        return self.engine.elementwise_steps(inst.op, dtypes)

    def aval(self, s: int) -> Any:
        return self.program.slot_avals[s]

    def dies_at(self, index: int) -> tuple[int, ...]:
        return self.last_use.get(index, ())  # type: ignore[union-attr]

    def emit(self, line: str, indent: int = 2) -> None:
        self.lines.append("    " * indent + line)

    # --- emission ------------------------------------------------------------------------------
    def generate(self) -> Callable[..., list]:
        program = self.program
        self.emit_instructions()
        head = ["def run(inputs, ops):"]
        if program.n_inputs:
            head.append("    " + "".join(f"s{i}, " for i in range(program.n_inputs)) + "= inputs")
        head += ["    _token = _silence()", "    try:"]
        self.emit(f"return {self._return()}")
        self.lines += ["    finally:", "        _restore(_token)"]
        source = "\n".join(head + self.lines)
        exec(compile(source, "<tf8 generated run>", "exec"), self.namespace)
        run = self.namespace["run"]
        run.source = "\n\n".join([source, *self.region_sources])
        run.regions = self.regions
        run.guest_regions = self.guest_regions
        return run

    def emit_instructions(self) -> None:
        """Emit the lines of every instruction (loops.py places them inside a loop)."""
        program = self.program
        for inst in program.instructions:
            if not isinstance(inst.op, Transfer) and not inst.input_views:
                literal = definition(inst.op).literal
                if literal is not None:
                    self._constant(inst, literal(inst.op))
        plan = regions.plan(self) if self.use_regions else []
        self.regions = plan
        starts = {r.start: r for r in plan}
        index = 0
        while index < len(program.instructions):
            if program.instructions[index].engine in self.guests:
                index = self._guest_run(index)
                continue
            region = starts.get(index)
            if region is not None:
                internal = regions.emit(self, region)
                spans = range(region.start, region.end)
                dead = [s for i in spans for s in self.dies_at(i) if s not in internal]
                self._free(dead, set())
                index = region.end
                continue
            kept = self._instruction(index)
            self._free(self.dies_at(index), kept)
            index += 1

    def _guest_run(self, start: int) -> int:
        """Emit the call of a guest engine's compiled code for its run of instructions from
        `start`; returns the index after the run."""
        program = self.program
        engine = program.instructions[start].engine
        stop = start
        while stop < len(program.instructions) and program.instructions[stop].engine == engine:
            stop += 1
        produced = {s for inst in program.instructions[start:stop] for s in inst.outputs}
        read_later = set(program.output_slots)
        for inst in program.instructions[stop:]:
            read_later.update(inst.inputs)
        escapes = sorted(produced & read_later)
        code = self.guests[engine].region_code(program, range(start, stop), escapes)
        self.guest_regions.append(code)
        call = self.global_("g", code.function, f"_{engine}{len(self.guest_regions)}")
        args = ", ".join(
            f"{self.slot(s)}[()]" if s in code.scalar_inputs else self.slot(s) for s in code.inputs
        )
        targets = "".join(f"s{s}, " for s in code.outputs)
        self.emit(f"{targets}= {call}({args})" if code.outputs else f"{call}({args})")
        self.owned.update(code.outputs)  # fresh arrays the guest allocated for this run
        dead = [s for i in range(start, stop) for s in self.dies_at(i) if s not in produced]
        self._free(dead, set())
        if code.source:
            self.region_sources.append(code.source)
        return stop

    def _transfer(self, index: int, inst: ExecInstruction) -> None:
        """A value moves between engines: a rename between engines sharing a memory (the
        buffer stays the program's own when the old name dies here)."""
        s, out = inst.inputs[0], inst.outputs[0]
        if inst.op.copies:
            self.emit(f"s{out} = {self.global_('t', inst.op)}({self.slot(s)})")
            self.owned.add(out)
        else:
            self.emit(f"s{out} = {self.slot(s)}")
            if s in self.owned and s in self.dies_at(index):
                self.owned.add(out)
        self.owned.discard(s)  # two names for one buffer: neither lends it

    def _constant(self, inst: ExecInstruction, value: np.ndarray) -> None:
        s = inst.outputs[0]
        self.constants[s] = self.global_("c", value)
        scalar = uniform_scalar(value) if value.ndim else None
        if scalar is not None:
            self.scalars[s] = self.global_("c", scalar)

    def _free(self, dead: Sequence[int], kept: set[int]) -> None:
        names = [f"s{s}" for s in dead if s not in self.constants and s not in kept]
        if names:
            self.emit(f"del {', '.join(names)}")

    def _return(self) -> str:
        outputs = self.program.output_slots
        if all(s in self.owned for s in outputs) and len(set(outputs)) == len(outputs):
            # fresh results: 0-d ones are numpy scalars, handed back as 0-d arrays
            names = [f"asarray(s{s})" if not self.aval(s).ndim else f"s{s}" for s in outputs]
            return f"[{', '.join(names)}]"
        return f"_own([{', '.join(self.slot(s) for s in outputs)}], inputs)"

    def _instruction(self, index: int) -> set[int]:
        """Emit instruction `index`; the dead slots it kept alive under a new name."""
        inst = self.program.instructions[index]
        if inst.outputs[0] in self.constants:  # a literal: a global of the function
            return set()
        if isinstance(inst.op, Transfer):
            self._transfer(index, inst)
            return set()
        steps = self.steps[index]
        if steps is not None:
            return self._ufunc(index, inst, steps)
        target = ", ".join(f"s{s}" for s in inst.outputs) + ("," if len(inst.outputs) > 1 else "")
        expr, fresh = self._call(index, inst)
        self.emit(f"{target} = {expr}")
        for s in inst.inputs:
            self.owned.discard(s)  # a kernel may have returned a view of it
        if fresh:
            self.owned.add(inst.outputs[0])
        return set()

    def _call(self, index: int, inst: ExecInstruction) -> tuple[str, bool]:
        """The expression computing a non-ufunc instruction, and whether its result is a
        fresh array nothing else views."""
        args = [self.operand(inst, p) for p in range(len(inst.inputs))]
        op = inst.op
        symbolic = has_symbolic(op.params)
        if not symbolic:
            reduction = self.engine.reduction(op)
            if reduction is not None:
                ufunc, with_dtype = reduction
                call = self.global_("r", ufunc.reduce, f"{ufunc.__name__}_reduce")
                dtype = f", {self.dtype(self.aval(inst.inputs[0]).dtype)}"
                return (
                    f"{call}({args[0]}, {tuple(op['axes'])!r}{dtype if with_dtype else ''})",
                    True,
                )
            fusion = definition(op).fusion
            if fusion.matmul is not None:
                ndims = [self.operand_ndim(inst, p) for p in range(len(inst.inputs))]
                matmul = fusion.matmul(op, ndims, args)
                if matmul is not None:
                    return matmul, True
            if fusion.view is not None and fusion.view.method:
                return self.view_expr(args[0], op), False
        kernel = self.global_("k", self.engine.kernel(op))
        op_expr = f"ops[{index}]" if symbolic else self.global_("o", op)
        return f"{kernel}({op_expr}{''.join(', ' + a for a in args)})", False

    def _ufunc(self, index: int, inst: ExecInstruction, steps: Steps) -> set[int]:
        out = inst.outputs[0]
        aval = self.aval(out)
        scalars = self.ufunc_operands(index)
        args = [sc if sc is not None else self.operand(inst, p) for p, sc in enumerate(scalars)]
        donor = self._donor(index, inst, steps, scalars) if aval.ndim else None
        names = [self.ufunc(step.ufunc) for step in steps]
        if not aval.ndim:  # 0-d: ufuncs return scalars, so nest the calls (no out=)
            expr = ""
            for name, step in zip(names, steps):
                expr = f"{name}({', '.join(step_argument(a, args, expr) for a in step.args)})"
            self.emit(f"s{out} = {expr}")
            self.owned.add(out)  # a fresh scalar (never lent: only n-d buffers are)
            return set()
        target = f"s{out}"
        for i, (name, step) in enumerate(zip(names, steps)):
            call_args = ", ".join(step_argument(a, args, target) for a in step.args)
            dest = target if i else (f"s{donor}" if donor is not None else None)
            where = "" if dest is None else ", " + out_argument(step.ufunc, dest)
            self.emit(f"{target} = {name}({call_args}{where})")
        self.owned.add(out)
        if donor is None:
            return set()
        self.owned.discard(donor)
        return {donor}

    def _donor(
        self, index: int, inst: ExecInstruction, steps: Steps, scalars: list[str | None]
    ) -> int | None:
        """An operand whose buffer may receive the result (see the module docstring)."""
        aval = self.aval(inst.outputs[0])
        later = reads_after_first_step(steps)
        dying = self.dies_at(index)
        for position, s in enumerate(inst.inputs):
            if (
                s in self.owned
                and s in dying
                and scalars[position] is None
                and not inst.views_of(position)
                and position not in later
                and self.aval(s) == aval
                and not any(q == s for p, q in enumerate(inst.inputs) if p in later)
            ):
                return s
        return None


def generate(
    program: ExecProgram, engine: Any, use_regions: bool = True, guests: Sequence[Any] = ()
) -> Callable[..., list]:
    """`run(inputs, ops) -> list`: `inputs` in slot order, `ops[i]` the op of instruction i
    (read only for ops with symbolic parameters); `guests` compile the runs placed on them."""
    return CodeGen(program, engine, use_regions, guests).generate()
