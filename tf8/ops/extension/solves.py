"""The ops of `custom_linear_solve` and `custom_root` (JAX's `lax` names), and the two stand-ins
their callbacks are traced with.

`LinearSolve` and `RootSolve` are control ops: their payload holds closed programs (matvec and
the solvers, or f and the solvers), and their kernel runs the solve program only. Their
derivatives come from the other programs, by implicit differentiation (tf8.ad.control.solves).

A solver's callbacks receive a function JAX derives by AD while tracing — `vecmat`, the
transpose of `matvec`, for `transpose_solve`; `g`, `f` linearised at the root, for
`tangent_solve`. This layer has no AD, so they are traced with stand-ins: `TransposedMap`
(the transpose of a program's linear map, at its constants) and `LinearizedMap` (a program's
derivative in its non-constant inputs, at a point). A stand-in names a derived map exactly; it
is never computed (its kernel refuses: its operands always include a value of the body being
traced), and the AD layer replaces it by the map it names before a program holding one runs.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from tf8.errors import ShapeError, UnsupportedOperationError
from tf8.ops.avals import Aval

from .base import ExtensionOp
from .control import ClosedProgram, ControlOp

__all__ = ["LinearSolve", "LinearizedMap", "RootSolve", "TransposedMap"]


def _check(what: str, avals: Sequence[Aval], expected: Sequence[Aval]) -> None:
    if len(avals) != len(expected):
        raise ShapeError(f"{what} takes {len(expected)} operands, got {len(avals)}")
    for i, (a, e) in enumerate(zip(avals, expected)):
        if a.dtype != e.dtype or a.shape != e.shape:
            raise ShapeError(f"{what}: operand {i} is {a}, its program expects {e}")


def _result(outs: Sequence[np.ndarray]) -> Any:
    return outs[0] if len(outs) == 1 else tuple(outs)


def _split(items: Sequence[Any], counts: Sequence[int]) -> list[list[Any]]:
    """`items` cut into runs of `counts`, then the rest."""
    parts, start = [], 0
    for n in counts:
        parts.append(list(items[start : start + n]))
        start += n
    parts.append(list(items[start:]))
    return parts


class LinearSolve(ControlOp):
    """`custom_linear_solve`: inputs (*matvec_consts, *vecmat_consts, *solve_consts,
    *transpose_consts, *b); outputs those of `solve` (x, then aux). Payload: (matvec, vecmat,
    solve, transpose_solve, and the four constant counts); vecmat and transpose_solve are
    None when no transpose_solve was given. Each program takes its constants, then b's (or
    x's) leaves."""

    __slots__ = ()
    name = "custom_linear_solve"
    fields = ("", "", "", "", "matvec_consts", "vecmat_consts", "solve_consts", "transpose_consts")

    def __init__(
        self,
        matvec: ClosedProgram,
        vecmat: ClosedProgram | None,
        solve: ClosedProgram,
        transpose_solve: ClosedProgram | None,
        n_matvec: int,
        n_vecmat: int,
        n_solve: int,
        n_transpose: int,
    ) -> None:
        payload = (matvec, vecmat, solve, transpose_solve, n_matvec, n_vecmat, n_solve, n_transpose)
        n_b = len(solve.inputs) - n_solve
        n_consts = n_matvec + n_vecmat + n_solve + n_transpose
        super().__init__(payload, n_consts + n_b, len(solve.out_avals))

    @property
    def programs(self) -> tuple[ClosedProgram | None, ...]:
        return self.payload[:4]

    @property
    def counts(self) -> tuple[int, ...]:
        return self.payload[4:]

    @property
    def subprograms(self) -> tuple[ClosedProgram, ...]:
        return (self.payload[2],)  # the solve: the only program that runs

    def split(self, operands: Sequence[Any]) -> list[list[Any]]:
        """[matvec consts, vecmat consts, solve consts, transpose consts, b]."""
        return _split(operands, self.counts)

    def transposed(self) -> LinearSolve:
        """The solve of the transposed system: matvec and vecmat, solve and transpose_solve
        swapped (operands: their constants swapped too)."""
        mv, vm, s, ts, n_mv, n_vm, n_s, n_ts = self.payload
        return LinearSolve(vm, mv, ts, s, n_vm, n_mv, n_ts, n_s)  # type: ignore[arg-type]

    def infer(self, avals: Sequence[Aval], guards: list) -> tuple[Aval, ...]:
        parts = self.split(avals)
        b = parts[-1]
        for program, consts, what in zip(
            self.programs, parts, ("matvec", "vecmat", "solve", "transpose_solve")
        ):
            if program is not None:
                _check(f"custom_linear_solve {what}", [*consts, *b], program.in_avals)
        return self.payload[2].out_avals

    @staticmethod
    def kernel(op: LinearSolve, *arrays: np.ndarray) -> Any:
        _, _, consts, _, b = op.split(arrays)
        return _result(op.payload[2].run([*consts, *b]))


class RootSolve(ControlOp):
    """`custom_root`: inputs (*f_consts, *solve_consts, *tangent_consts, *initial_guess);
    outputs those of `solve` (the root, then aux). Payload: (f, solve, tangent, n_f, n_solve,
    n_tangent): f(consts, x), solve(consts, x0) and tangent(consts, x, b), the last solving
    `f` linearised at x for b (tangent_solve)."""

    __slots__ = ()
    name = "custom_root"
    fields = ("", "", "", "f_consts", "solve_consts", "tangent_consts")

    def __init__(
        self,
        f: ClosedProgram,
        solve: ClosedProgram,
        tangent: ClosedProgram,
        n_f: int,
        n_solve: int,
        n_tangent: int,
    ) -> None:
        payload = (f, solve, tangent, n_f, n_solve, n_tangent)
        n_x = len(f.inputs) - n_f
        super().__init__(payload, n_f + n_solve + n_tangent + n_x, len(solve.out_avals))

    @property
    def subprograms(self) -> tuple[ClosedProgram, ...]:
        return (self.payload[1],)

    def split(self, operands: Sequence[Any]) -> list[list[Any]]:
        """[f consts, solve consts, tangent consts, initial guess]."""
        return _split(operands, self.payload[3:])

    def infer(self, avals: Sequence[Aval], guards: list) -> tuple[Aval, ...]:
        f, solve, tangent = self.payload[:3]
        f_c, s_c, t_c, x = self.split(avals)
        _check("custom_root f", [*f_c, *x], f.in_avals)
        _check("custom_root solve", [*s_c, *x], solve.in_avals)
        _check("custom_root tangent_solve", [*t_c, *x, *x], tangent.in_avals)
        return solve.out_avals

    @staticmethod
    def kernel(op: RootSolve, *arrays: np.ndarray) -> Any:
        _, consts, _, x = op.split(arrays)
        return _result(op.payload[1].run([*consts, *x]))


def _no_kernel(self: ExtensionOp, op: ExtensionOp, *arrays: Any) -> Any:
    """A stand-in's kernel: never reached (its operands always include a value of the body
    being traced, so it is never computed while tracing, and tf8.ad replaces it before the
    program holding it runs); reaching it means a vecmat or g escaped its callback."""
    raise UnsupportedOperationError(
        f"{op.name}: the vecmat or g handed to a custom_linear_solve / custom_root callback "
        "was called outside that callback; call it only inside transpose_solve / tangent_solve"
    )


class TransposedMap(ExtensionOp):
    """Stand-in for `vecmat`: inputs (*consts, *y, anchor), output `program`'s linear map in
    its last inputs (at `consts`) transposed and applied to y. `anchor`, a value of the body
    being traced (transpose_solve's b), is not read: it keeps `vecmat(1.0)` from being
    hoisted out of that body as a constant. Payload: (program, n_consts)."""

    __slots__ = ()
    family = "tf8.control.v1"
    name = "transposed_map"
    kernel = _no_kernel

    def __init__(self, program: ClosedProgram, n_consts: int) -> None:
        n_y = len(program.out_avals)
        super().__init__((program, n_consts), n_consts + n_y + 1, len(program.inputs) - n_consts)

    @property
    def linear(self) -> slice:
        """Where the operands it is linear in (y) are."""
        program, n = self.payload
        return slice(n, n + len(program.out_avals))

    def infer(self, avals: Sequence[Aval], guards: list) -> tuple[Aval, ...]:
        program, n = self.payload
        _check("vecmat", [*avals[:n], *program.out_avals], [*program.in_avals[:n], *avals[n:-1]])
        return program.in_avals[n:]


class LinearizedMap(ExtensionOp):
    """Stand-in for `f` linearised: inputs (*consts, *x, *v), output the derivative of
    `program` in its last inputs at (consts, x), applied to v. Payload: (program, n_consts)."""

    __slots__ = ()
    family = "tf8.control.v1"
    name = "linearized_map"
    kernel = _no_kernel

    def __init__(self, program: ClosedProgram, n_consts: int) -> None:
        n_x = len(program.inputs) - n_consts
        super().__init__((program, n_consts), n_consts + 2 * n_x, len(program.out_avals))

    @property
    def linear(self) -> slice:
        """Where the operands it is linear in (v) are."""
        program, n = self.payload
        return slice(n + len(program.inputs) - n, None)

    def infer(self, avals: Sequence[Aval], guards: list) -> tuple[Aval, ...]:
        program, n = self.payload
        n_x = len(program.inputs) - n
        _check("linearized f", avals[: n + n_x], program.in_avals)
        _check("linearized f", avals[n + n_x :], program.in_avals[n:])
        return program.out_avals
