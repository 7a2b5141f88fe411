"""A new online transform is a frame class plus a rule table (docs/architecture.md, "How a
transform is written"): this toy one counts the floating-point operations a function runs,
with no edit to tf8.lax.core.apply. The block between the markers is the whole transform."""

from __future__ import annotations

import collections
import math

import numpy as np

import tf8
import tf8.numpy as tnp

# --- the toy transform --------------------------------------------------------------------
from tf8.lax.core import apply
from tf8.ops.definition import definition
from tf8.ops.frames import Frame, current, frame_var


def _elementwise(op, avals_in, avals_out):
    return math.prod(avals_out[0].shape)


def _dot(op, avals_in, avals_out):  # a multiply and an add per term of each output element
    terms = math.prod(avals_in[0].shape[d] for d in dict(op.params)["contracting"][0])
    return 2 * math.prod(avals_out[0].shape) * terms


FLOPS = {  # the rule table: flops of an op from its parameters and avals
    "add": _elementwise,
    "sub": _elementwise,
    "mul": _elementwise,
    "div": _elementwise,
    "sin": _elementwise,
    "reduce_sum": lambda op, avals_in, avals_out: math.prod(avals_in[0].shape),
    "dot_general": _dot,
}


class Counting(Frame):
    """Counts each op's flops, then applies it in the frame below (JAX's 'lift')."""

    __slots__ = ("below", "flops")

    def process(self, op, inputs, meta):
        token = frame_var.set(self.below)  # the op runs as the frame below would run it
        try:
            outputs = apply(op, inputs, meta)
        finally:
            frame_var.reset(token)
        rule = FLOPS.get(definition(op).name)
        if rule is not None:
            self.flops += rule(op, [t.aval for t in inputs], [t.aval for t in outputs])
        return outputs


def count_flops(fun):
    """`fun` → a function returning (fun's output, the flops its ops ran)."""

    def counted(*args):
        below = frame_var.get()
        frame = current().child(Counting, below=below, flops=0)
        token = frame_var.set(frame)
        try:
            out = fun(*args)
        finally:
            frame_var.reset(token)
        return out, frame.flops

    return counted


# --- end of the toy transform -------------------------------------------------------------


X = np.linspace(0.1, 0.9, 6)
M = np.arange(12.0).reshape(3, 4)


def f(x):
    return tnp.sum(tnp.sin(x) * x + x)


def test_counts_the_flops_of_each_op_and_keeps_the_value():
    out, flops = count_flops(f)(X)
    np.testing.assert_allclose(out, np.sum(np.sin(X) * X + X), rtol=1e-12)
    assert flops == 4 * X.size  # sin, mul, add, then the sum reads each element once


def test_a_matrix_vector_product_is_two_flops_per_term():
    _, flops = count_flops(tnp.matmul)(M, np.ones(4))
    assert flops == 2 * M.size


def test_nested_counts_each_see_the_ops():
    def outer(x):
        inner_out, inner_flops = count_flops(f)(x)
        return inner_out * 2.0, inner_flops

    (out, inner), total = count_flops(outer)(X)
    assert inner == 4 * X.size and total == inner + 1  # the outer one sees the inner's ops too
    np.testing.assert_allclose(out, 2 * np.sum(np.sin(X) * X + X), rtol=1e-12)


def test_under_grad_the_tape_below_still_differentiates_what_it_counts():
    counted = collections.Counter()

    def g(x):
        out, flops = count_flops(f)(x)
        counted["flops"] = flops
        return out

    np.testing.assert_allclose(tf8.grad(g)(X), np.cos(X) * X + np.sin(X) + 1.0, rtol=1e-12)
    assert counted["flops"] == 4 * X.size


def test_the_toy_transform_is_short():
    import inspect
    import sys

    source = inspect.getsource(sys.modules[__name__])
    start = source.index("# --- the toy transform")
    end = source.index("# --- end of the toy transform")
    assert source[start:end].count("\n") < 60
