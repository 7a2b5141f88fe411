"""Batching rules of `custom_linear_solve` and `custom_root`: each program batched by the
batching interpreter, with b (or the guess) and every output batched along axis 0 (JAX finds
by a fixpoint which of them must be; batching them all gives the same values, with a
broadcast where an operand was shared). A stand-in (vecmat, g) batches as the Checkpoint of
its map."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

from tf8.lax.control import apply_control, program_tensors, trace_flat
from tf8.ops.extension.control import ClosedProgram
from tf8.ops.extension.solves import LinearizedMap, LinearSolve, RootSolve, TransposedMap
from tf8.ops.primitive import Aval
from tf8.traced import TracedTensor

from ..batching.core import BatchRule, at_front, batch_size, moveaxis
from ..linearize import jvp_graph, transpose_graph
from .batching import GraphBatch, checkpoint_batch
from .expand import Transforms, as_checkpoint

__all__ = ["solve_batching_rules"]

_TRANSFORMS = Transforms(jvp_graph, transpose_graph)


def _batched_program(
    batch_graph: GraphBatch, program: ClosedProgram, batched: Sequence[bool], size: Any
) -> tuple[ClosedProgram, list[TracedTensor]]:
    """`program` on inputs batched along axis 0 where `batched`, every output batched."""

    def fun(args: list) -> list:
        ins, outs = program_tensors(program)
        entries = batch_graph(outs, ins, args, [0 if b else None for b in batched])
        return [at_front(value, d, size) for value, d in entries]

    avals = [Aval((size, *a.shape), a.dtype) if b else a for a, b in zip(program.in_avals, batched)]
    return trace_flat(fun, avals)


def _solver_batch(batch_graph: GraphBatch, n_programs: int, op: Any, args, dims):
    """A solver op (programs first in its payload, then their constant counts; operands their
    constants group by group, then b or the guess) batched program by program."""
    size = batch_size(args, dims)
    groups, group_dims = op.split(args), op.split(dims)
    rest = [at_front(x, d, size) for x, d in zip(groups[-1], group_dims[-1])]
    programs, counts, operands = [], [], []
    for program, consts, const_dims in zip(op.payload[:n_programs], groups, group_dims):
        consts = [x if d is None else moveaxis(x, d, 0) for x, d in zip(consts, const_dims)]
        if program is None:
            programs.append(None)
            counts.append(0)
            continue
        batched = [d is not None for d in const_dims]
        batched += [True] * (len(program.inputs) - len(consts))  # b, x: all batched
        new, captures = _batched_program(batch_graph, program, batched, size)
        programs.append(new)
        counts.append(len(captures) + len(consts))
        operands += [*captures, *consts]
    results = apply_control(type(op)(*programs, *counts), [*operands, *rest])
    return results, [0] * len(results)


def _stand_in_batch(batch_graph: GraphBatch, op: Any, args, dims):
    avals = [  # per example
        x.aval if d is None else Aval(x.shape[:d] + x.shape[d + 1 :], x.dtype)
        for x, d in zip(args, dims)
    ]
    checkpoint, captures = as_checkpoint(op, avals, _TRANSFORMS)
    return checkpoint_batch(
        batch_graph, checkpoint, [*captures, *args], [*[None] * len(captures), *dims]
    )


def solve_batching_rules(batch_graph: GraphBatch) -> dict[type, BatchRule]:
    """The solver ops' and stand-ins' batching rules, keyed by op class."""
    rules: dict[type, Callable] = {
        LinearSolve: partial(_solver_batch, batch_graph, 4),
        RootSolve: partial(_solver_batch, batch_graph, 3),
        TransposedMap: partial(_stand_in_batch, batch_graph),
        LinearizedMap: partial(_stand_in_batch, batch_graph),
    }
    return rules
