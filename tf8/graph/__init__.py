"""tf8's structural graph engine: interned value keys, graphs, merge (CSE) and SSA compile.

It knows nothing of tensors: an operation is any hashable, ==-comparable object with
`input_count` and `output_count` (and optionally `eval(ctx, inputs)`).
"""

from tf8.graph.graph import Graph, GraphBuilder
from tf8.graph.keys import OperationKey, ValueKey
from tf8.graph.materialize import MaterializedGraph, materialize_merge
from tf8.graph.program import CompiledProgram, Instruction, compile_program, eval_program
from tf8.graph.resolve import ResolvedView, ValueDefinition, resolve
from tf8.graph.role import PRIMARY, Linearized, OperationRole

compile = compile_program  # the name computegraph uses; shadows the builtin only here

__all__ = [
    "PRIMARY",
    "CompiledProgram",
    "Graph",
    "GraphBuilder",
    "Instruction",
    "Linearized",
    "MaterializedGraph",
    "OperationKey",
    "OperationRole",
    "ResolvedView",
    "ValueDefinition",
    "ValueKey",
    "compile",
    "compile_program",
    "eval_program",
    "materialize_merge",
    "resolve",
]
