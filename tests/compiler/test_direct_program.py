"""direct_program numbers a graph without multi-output ops in one pass: the same
SemanticProgram the general path (SSA numbering, pruning, renumbering) makes."""

from __future__ import annotations

import numpy as np
import pytest

import tf8
import tf8.numpy as tnp
from tf8.compiler.compiler import _leaf, _semantic_program
from tf8.compiler.direct import direct_program
from tf8.compiler.prune import prune_outputs
from tf8.graph import compile_program, materialize_merge


def _placeholders(*names):
    return [tf8.placeholder((3,), name=name) for name in names]


def _graphs():
    a, b, c = _placeholders("a", "b", "c")
    bound = tf8.tensor(np.array([1.0, 2.0, 3.0]), name="w")
    yield "chain", [tnp.sum(tnp.sin(a) * b + a)], [a, b]
    yield "inputs reordered", [a * b - c], [c, a, b]
    yield "shared subexpression", [tnp.exp(a) + tnp.exp(a) * b, tnp.exp(a)], [a, b]
    yield "bound leaf", [a * bound + 1.0], [a, bound]
    yield "an input as output", [a, a + b], [a, b]
    yield "symbolic size", [tnp.sum(tf8.placeholder(("n", 2), name="s") * 2.0)], None


@pytest.mark.parametrize("name, outputs, order", list(_graphs()), ids=lambda v: v)
def test_direct_program_is_the_general_paths_program(name, outputs, order):
    flat = materialize_merge(None, [t.key for t in outputs])
    listed = [] if order is None else [t.key for t in order]
    keys = listed + [k for k in flat.inputs if k not in listed]
    bindings = {k: v for t in outputs for k, v in t._bindings.items()}
    bound = {k: bindings[k] for k in keys if k in bindings}
    general = _semantic_program(prune_outputs(compile_program(flat)), keys, bound, flat.operations)
    avals = [_leaf(k).aval for k in keys]
    assert direct_program(flat, keys, avals, bound) == general


def test_compiled_programs_with_multi_output_ops_take_the_general_path():
    x = tf8.placeholder((3, 3), name="x")
    s = tnp.linalg.svd(x, compute_uv=False)  # svd pruned to its singular values
    compiled = tf8.GraphCompiler().compile(tnp.sum(s))
    m = np.diag([3.0, 2.0, 1.0])
    result = tf8.Runtime().prepare(compiled).run(m)[0]
    np.testing.assert_allclose(result, 6.0)
