"""Structured control flow in the vocabulary: closed sub-programs and the ops that hold them.

A `ClosedProgram` is a traced function closed over everything it uses: its inputs are leaf
keys (traced values it captured were made inputs by tf8.lax.control), its outputs value keys
over them. It is interned on (inputs, outputs) — two traces of the same body are one object —
and its 128-bit fingerprint takes part in the control op's identity, so CSE, the compiler's
fingerprint and the prepare cache see through it.

`Cond`, `Scan`, `While` and `Checkpoint` (remat) are extension ops whose payload holds closed
programs; their size in the outer graph does not depend on the trip count. Their kernels run a
sub-program as one function generated from its ops' homes (tf8.ops.evaluate.program_function,
built once per program): nothing is installed, and this layer never needs the compiler or
runtime. A runtime preparing a program that holds one hands each body a `Handed` object
(`ClosedProgram.use`): a faster runner, and for `Scan` and `While` their whole loop as one
generated function (tf8/runtime/bodies.py), which their kernels then call instead of
running the body per iteration.
"""

from __future__ import annotations

import hashlib
import weakref
from collections.abc import Callable, Sequence
from typing import Any, Protocol

import numpy as np

from tf8.errors import ShapeError
from tf8.graph import ValueKey, materialize_merge
from tf8.ops.avals import Aval
from tf8.ops.evaluate import program_function
from tf8.ops.shapes import shape_str

from .base import ExtensionOp

Runner = Callable[[Sequence[np.ndarray]], list[np.ndarray]]


class Handed(Protocol):
    """What a runtime hands a body (`ClosedProgram.use`): `run` for one call, and
    `loop(op, steps)`, the whole loop of a `Scan` or `While` holding the body as one function
    (None: run the body per iteration)."""

    run: Runner

    def loop(self, op: ControlOp, steps: int | None) -> Callable[..., list[np.ndarray]] | None: ...


class ClosedProgram:
    """A closed sub-program: input leaf keys and avals, output keys and avals (interned)."""

    __slots__ = (
        "inputs",
        "outputs",
        "in_avals",
        "out_avals",
        "fingerprint",
        "_run",
        "_handed",
        "__weakref__",
    )
    _table: weakref.WeakValueDictionary = weakref.WeakValueDictionary()

    inputs: tuple[ValueKey, ...]
    outputs: tuple[ValueKey, ...]
    in_avals: tuple[Aval, ...]
    out_avals: tuple[Aval, ...]
    fingerprint: int

    @classmethod
    def get(
        cls, inputs: Sequence[ValueKey], outputs: Sequence[ValueKey], out_avals: Sequence[Aval]
    ) -> ClosedProgram:
        """The closed program with these input leaves and outputs (one object per structure)."""
        structure = (tuple(inputs), tuple(outputs))
        found = cls._table.get(structure)
        if found is not None:
            return found
        self = object.__new__(cls)
        self.inputs, self.outputs = structure
        self.in_avals = tuple(k.input_key.aval for k in self.inputs)
        self.out_avals = tuple(out_avals)
        h = hashlib.blake2b(digest_size=16)
        for key in (*self.inputs, None, *self.outputs):
            h.update(b"|" if key is None else key.fingerprint.to_bytes(16, "little"))
        self.fingerprint = int.from_bytes(h.digest(), "little")
        self._run = None
        self._handed = None
        cls._table[structure] = self
        return self

    def __hash__(self) -> int:
        return self.fingerprint >> 64

    def __eq__(self, other: object) -> bool:
        return self is other  # interned

    def __repr__(self) -> str:
        return f"{{program #{self.fingerprint:032x}}}"

    def run(self, arrays: Sequence[np.ndarray]) -> list[np.ndarray]:
        """Run the program on numpy arrays: with the runner a runtime handed it (`use`), else
        as one function generated from its ops (once, on first use)."""
        run = self._run
        if run is None:
            run = self._run = program_function(self.inputs, self.outputs)
        return run(arrays)

    def use(self, hand: Callable[[ClosedProgram], Handed]) -> None:
        """Run with `hand(self)` from now on: a runtime preparing a program that holds this
        one hands it its own compiled runner and loops (the first runtime to do so keeps it)."""
        if self._handed is None:
            handed = hand(self)
            self._run = handed.run
            self._handed = handed

    @property
    def handed(self) -> Handed | None:
        """What a runtime handed this program (`use`), if one did."""
        return self._handed

    def loop(
        self, op: ControlOp, steps: int | None = None
    ) -> Callable[..., list[np.ndarray]] | None:
        """The loop of `op` (a Scan or While whose body this is; `steps` long if known) as
        one function a runtime generated, or None: run the body per iteration."""
        handed = self._handed
        return None if handed is None else handed.loop(op, steps)

    def pretty(self, indent: str = "    ") -> str:
        """The program as nested text: inputs, one line per op (sub-programs nested), outputs."""
        flat = materialize_merge(None, list(self.outputs))
        names = {k: f"%{i}" for i, k in enumerate(self.inputs)}
        lines = [
            indent
            + "{ "
            + ", ".join(f"{names[k]}: {a}" for k, a in zip(self.inputs, self.in_avals))
        ]
        for op_key in flat.operations:
            outs = []
            for k in op_key.outputs:
                names[k] = f"%{len(names)}"
                outs.append(names[k])
            ins = ", ".join(names.get(k, "?") for k in op_key.inputs)
            avals = ", ".join(str(a) for a in (op_key.meta or ((),))[0])
            lines.append(f"{indent}  {', '.join(outs)} = {op_key.op!r}({ins})  : {avals}")
            subs = getattr(op_key.op, "subprograms", ())
            titles = [d[0] for d in op_key.op.describe_subprograms()] if subs else []
            for sub, title in zip(subs, titles):
                lines.append(f"{indent}    # {title}")
                lines.append(sub.pretty(indent + "    "))
        lines.append(
            indent + "  return " + ", ".join(names.get(k, "?") for k in self.outputs) + " }"
        )
        return "\n".join(lines)


def _check_inputs(what: str, avals: Sequence[Aval], expected: Sequence[Aval]) -> None:
    if len(avals) != len(expected):
        raise ShapeError(f"{what} takes {len(expected)} operands, got {len(avals)}")
    for i, (a, e) in enumerate(zip(avals, expected)):
        if a.dtype != e.dtype or a.shape != e.shape:
            raise ShapeError(f"{what}: operand {i} is {a}, its sub-program expects {e}")


def _result(outs: Sequence[np.ndarray]) -> Any:
    return outs[0] if len(outs) == 1 else tuple(outs)


Description = tuple[str, tuple[str, ...], tuple[str, ...]]  # title, input roles, output roles


def _numbered(word: str, count: int) -> tuple[str, ...]:
    return tuple(f"{word}[{i}]" for i in range(count))


class ControlOp(ExtensionOp):
    """Base of the control ops: the payload's first items are its closed programs."""

    __slots__ = ()
    family = "tf8.control.v1"

    @property
    def subprograms(self) -> tuple[ClosedProgram, ...]:
        return tuple(p for p in self.payload if isinstance(p, ClosedProgram))

    def describe_subprograms(self) -> tuple[Description, ...]:
        """What listings and pictures call each sub-program and its inputs and outputs:
        (title, input roles, output roles), e.g. ("scan body", ("carry[0]", "x[0]"), ...)."""
        return tuple(
            (
                f"{self.name} sub-program {i}",
                _numbered("in", len(p.inputs)),
                _numbered("out", len(p.outputs)),
            )
            for i, p in enumerate(self.subprograms)
        )

    def __repr__(self) -> str:
        names = getattr(self, "fields", ())
        shown = [f"{n}={v}" for n, v in zip(names, self.payload) if n]
        return f"{self.name}[{', '.join(shown)}]" if shown else self.name


class Cond(ControlOp):
    """`switch`: inputs (index, *operands); runs branch clamp(index, 0, n-1) on the operands.
    Payload: (branches,)."""

    __slots__ = ()
    name = "cond"

    def __init__(self, branches: Sequence[ClosedProgram]) -> None:
        branches = tuple(branches)
        first = branches[0]
        super().__init__((branches,), 1 + len(first.inputs), len(first.out_avals))

    @property
    def branches(self) -> tuple[ClosedProgram, ...]:
        return self.payload[0]

    @property
    def subprograms(self) -> tuple[ClosedProgram, ...]:
        return self.branches

    def describe_subprograms(self) -> tuple[Description, ...]:
        """lax.cond's two branches (index 0 is false_fun), or lax.switch's `branches[i]`."""
        branches = self.branches
        titles = (
            ("cond: false_fun", "cond: true_fun")
            if len(branches) == 2
            else tuple(f"switch: branches[{i}]" for i in range(len(branches)))
        )
        return tuple(
            (title, _numbered("operand", len(b.inputs)), _numbered("out", len(b.outputs)))
            for title, b in zip(titles, branches)
        )

    def infer(self, avals: Sequence[Aval], guards: list) -> tuple[Aval, ...]:
        _check_inputs("cond", avals[1:], self.branches[0].in_avals)
        return self.branches[0].out_avals

    @staticmethod
    def kernel(op: Cond, index: np.ndarray, *operands: np.ndarray) -> Any:
        branches = op.branches
        chosen = branches[min(max(int(index), 0), len(branches) - 1)]
        return _result(chosen.run(operands))


class Scan(ControlOp):
    """`scan`: inputs (*consts, *carry, *xs); outputs (*carry, *ys stacked on axis 0).
    Payload: (body, n_consts, n_carry, length, reverse); body(consts, carry, x) -> (carry, y)."""

    __slots__ = ()
    name = "scan"
    fields = ("", "consts", "carry", "length", "reverse")

    def __init__(
        self, body: ClosedProgram, n_consts: int, n_carry: int, length: int, reverse: bool
    ) -> None:
        payload = (body, n_consts, n_carry, int(length), bool(reverse))
        super().__init__(payload, len(body.inputs), len(body.out_avals))

    def describe_subprograms(self) -> tuple[Description, ...]:
        """The body: (consts, carry, x) -> (carry, y), one x and y per step."""
        body, n_consts, n_carry, _, _ = self.payload
        n_xs, n_ys = len(body.inputs) - n_consts - n_carry, len(body.outputs) - n_carry
        ins = _numbered("const", n_consts) + _numbered("carry", n_carry) + _numbered("x", n_xs)
        return (("scan body", ins, _numbered("carry", n_carry) + _numbered("y", n_ys)),)

    def infer(self, avals: Sequence[Aval], guards: list) -> tuple[Aval, ...]:
        body, n_consts, n_carry, length, _ = self.payload
        fixed = n_consts + n_carry
        per_step = list(avals[:fixed])
        for i, a in enumerate(avals[fixed:]):
            if not a.shape or a.shape[0] != length:
                raise ShapeError(
                    f"scan: xs operand {i} has shape {shape_str(a.shape)}, expected a leading "
                    f"axis of length {length}"
                )
            per_step.append(Aval(a.shape[1:], a.dtype))
        _check_inputs("scan", per_step, body.in_avals)
        carry = body.out_avals[:n_carry]
        ys = tuple(Aval((length, *a.shape), a.dtype) for a in body.out_avals[n_carry:])
        return (*carry, *ys)

    @staticmethod
    def kernel(op: Scan, *arrays: np.ndarray) -> Any:
        body, n_consts, n_carry, length, reverse = op.payload
        loop = body.loop(op, length)
        if loop is not None:
            return _result(loop(arrays, length))
        consts = list(arrays[:n_consts])
        carry = list(arrays[n_consts : n_consts + n_carry])
        xs = arrays[n_consts + n_carry :]
        ys = [np.empty((length, *a.shape), a.dtype) for a in body.out_avals[n_carry:]]
        for i in range(length - 1, -1, -1) if reverse else range(length):
            outs = body.run([*consts, *carry, *[x[i] for x in xs]])
            carry = outs[:n_carry]
            for y, value in zip(ys, outs[n_carry:]):
                y[i] = value
        return _result([*carry, *ys])


class While(ControlOp):
    """`while_loop`: inputs (*cond_consts, *body_consts, *carry); outputs the final carry.
    Payload: (cond, body, n_cond_consts, n_body_consts)."""

    __slots__ = ()
    name = "while"
    fields = ("", "", "cond_consts", "body_consts")

    def __init__(
        self, cond: ClosedProgram, body: ClosedProgram, n_cond_consts: int, n_body_consts: int
    ) -> None:
        payload = (cond, body, n_cond_consts, n_body_consts)
        super().__init__(payload, len(body.inputs) + n_cond_consts, len(body.out_avals))

    def describe_subprograms(self) -> tuple[Description, ...]:
        """while_loop's cond_fun (consts, carry) -> predicate and body_fun -> carry."""
        cond, body, n_cond, n_body = self.payload
        carry = _numbered("carry", len(body.outputs))
        return (
            ("while_loop: cond_fun", _numbered("const", n_cond) + carry, ("predicate",)),
            ("while_loop: body_fun", _numbered("const", n_body) + carry, carry),
        )

    def infer(self, avals: Sequence[Aval], guards: list) -> tuple[Aval, ...]:
        cond, body, n_cond, n_body = self.payload
        carry = list(avals[n_cond + n_body :])
        _check_inputs("while_loop cond", [*avals[:n_cond], *carry], cond.in_avals)
        _check_inputs("while_loop body", avals[n_cond:], body.in_avals)
        return body.out_avals

    @staticmethod
    def kernel(op: While, *arrays: np.ndarray) -> Any:
        cond, body, n_cond, n_body = op.payload
        loop = body.loop(op)
        if loop is not None:
            return _result(loop(arrays))
        cond_consts = list(arrays[:n_cond])
        body_consts = list(arrays[n_cond : n_cond + n_body])
        carry = list(arrays[n_cond + n_body :])
        while bool(cond.run([*cond_consts, *carry])[0]):
            carry = body.run([*body_consts, *carry])
        return _result(carry)


class Checkpoint(ControlOp):
    """`checkpoint`/`remat`: runs its body on its inputs; reverse mode runs the body again in
    the backward pass instead of keeping its intermediates. The last `hidden` outputs are
    intermediates a policy lets it save (residuals); unread, they are pruned.
    Payload: (body, hidden, prevent_cse)."""

    __slots__ = ()
    name = "checkpoint"
    fields = ("", "hidden", "")

    def __init__(self, body: ClosedProgram, hidden: int = 0, prevent_cse: bool = True) -> None:
        super().__init__(
            (body, int(hidden), bool(prevent_cse)), len(body.inputs), len(body.outputs)
        )

    def describe_subprograms(self) -> tuple[Description, ...]:
        """The checkpointed function; its last `hidden` outputs are the residuals it saves."""
        body, hidden, _ = self.payload
        outs = _numbered("out", len(body.outputs) - hidden) + _numbered("saved", hidden)
        return (("checkpoint: fun", _numbered("arg", len(body.inputs)), outs),)

    def infer(self, avals: Sequence[Aval], guards: list) -> tuple[Aval, ...]:
        _check_inputs("checkpoint", avals, self.payload[0].in_avals)
        return self.payload[0].out_avals

    def prune_outputs(self, live: tuple[bool, ...]) -> Checkpoint | None:
        body, hidden, prevent_cse = self.payload
        if not any(live):
            return None
        keep = [i for i, alive in enumerate(live) if alive]
        pruned = ClosedProgram.get(
            body.inputs, [body.outputs[i] for i in keep], [body.out_avals[i] for i in keep]
        )
        first_hidden = len(live) - hidden
        return Checkpoint(pruned, sum(1 for i in keep if i >= first_hidden), prevent_cse)

    @staticmethod
    def kernel(op: Checkpoint, *arrays: np.ndarray) -> Any:
        return _result(op.payload[0].run(arrays))
