"""The derivative of gamma draws in their shape parameter, as JAX defines it.

A Gamma(a) draw x is differentiated implicitly, the quantile P(a, x) held fixed (P the
regularized lower incomplete gamma function): dx/da = -(∂P/∂a)/(∂P/∂x), which
`tf8.lax.random_gamma_grad` computes; for a draw in log space, d log x/da = that / x. This is
not the derivative of the rejection sampler's arithmetic for a fixed key (JAX's is not either).

Two small op families carry it: `ShapeConstant` passes the shape parameter to the sampler with
its derivative cut (the sampler's loops are not differentiated), and `ImplicitGammaDraw` passes
the finished draw through, its JVP in the shape parameter being the implicit derivative. They
bring their kernels, JVP and batching rules as methods (the extension-op protocol), since
tf8.random sits below the transforms layer.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from tf8.errors import DifferentiationError
from tf8.lax.builders import add, compare, div, like, mul, select, sub, transpose, unary
from tf8.lax.core import apply, apply1
from tf8.ops.extension import ExtensionOp
from tf8.ops.igamma_grad_kernels import random_gamma_grad_kernel
from tf8.ops.primitive import Aval
from tf8.random.gamma_second import gamma_grad_da
from tf8.traced import TracedTensor


def _at_front(x: TracedTensor, dim: int | None, size: Any) -> TracedTensor:
    """x with its batch axis first (an unbatched operand broadcast along a new first axis)."""
    if dim is None:
        dims = tuple(range(1, x.ndim + 1))
        return apply1("broadcast_in_dim", [x], shape=(size, *x.shape), broadcast_dimensions=dims)
    if dim == 0:
        return x
    return transpose(x, (dim, *(i for i in range(x.ndim) if i != dim)))


class _Identity(ExtensionOp):
    """Identity on operand 0 (the others only feed the derivative); elementwise in vmap."""

    family = "tf8.random.v1"

    def infer(self, avals: Sequence[Aval], guards: list) -> tuple[Aval, ...]:
        return (avals[0],)

    def kernel(self, op: ExtensionOp, x: Any, *rest: Any) -> Any:
        return x

    def batch(self, op, args, dims):
        size = next(x.shape[d] for x, d in zip(args, dims) if d is not None)
        return apply(op, [_at_front(x, d, size) for x, d in zip(args, dims)]), [0]


class ShapeConstant(_Identity):
    """The shape parameter as the sampler sees it: no derivative flows through the loops."""

    name = "gamma_shape_constant"
    stops_derivative = True

    def jvp(self, op, primals, outputs, tangents):
        return [None]


class ImplicitGammaDraw(_Identity):
    """draw(x, a) = x; d/da = random_gamma_grad(a, x) (divided by x in log space)."""

    name = "implicit_gamma_draw"

    def jvp(self, op, primals, outputs, tangents):
        t_a = tangents[1]  # the draw's own tangent is zero: it was drawn from ShapeConstant(a)
        if t_a is None:
            return [None]
        a, out = primals[1], outputs[0]
        if not self.payload:  # not in log space
            return [mul(t_a, gamma_grad(a, out))]
        # d log x = dx / x; exp(log x) may round to 0: the smallest normal number then (JAX's).
        sample = unary("exp", out)
        tiny = like(sample, float(np.finfo(sample.dtype).tiny))
        sample = select(compare(sample, 0.0, "eq"), tiny, sample)
        grad = apply1("div", [gamma_grad(a, sample), sample])
        return [mul(t_a, grad)]


class _Elementwise(_Identity):
    """An elementwise function of (a, x), computed by `kernel`."""

    def infer(self, avals: Sequence[Aval], guards: list) -> tuple[Aval, ...]:
        return (avals[1],)


class GammaGrad(_Elementwise):
    """g(a, x) = dx/da of a Gamma(a) draw x (`lax.random_gamma_grad`'s value), differentiable:
    ∂g/∂x = ψ(a) − log x − g ((a−1)/x − 1) (closed form) and ∂g/∂a from `GammaGradDa`."""

    name = "gamma_grad"

    def kernel(self, op: ExtensionOp, a: Any, x: Any) -> Any:
        return random_gamma_grad_kernel(op, a, x)

    def jvp(self, op, primals, outputs, tangents):
        (a, x), g, (t_a, t_x) = primals, outputs[0], tangents
        out = None
        if t_a is not None:
            out = mul(t_a, apply(GammaGradDa((), 2), [a, x])[0])
        if t_x is not None:
            shape_term = sub(div(sub(a, 1.0), x), 1.0)
            d_x = sub(sub(unary("digamma", a), unary("log", x)), mul(g, shape_term))
            out = mul(t_x, d_x) if out is None else add(out, mul(t_x, d_x))
        return [out]


class GammaGradDa(_Elementwise):
    """∂g/∂a (tf8.random.gamma_second's kernel); not differentiated further."""

    name = "gamma_grad_da"

    def kernel(self, op: ExtensionOp, a: Any, x: Any) -> Any:
        return gamma_grad_da(a, x)

    def jvp(self, op, primals, outputs, tangents):
        raise DifferentiationError(
            "random gamma draws differentiate twice in their shape parameter, not three times"
        )


def gamma_grad(a: TracedTensor, x: TracedTensor) -> TracedTensor:
    """g(a, x) = dx/da, differentiable once more (`GammaGrad`)."""
    return apply(GammaGrad((), 2), [a, x])[0]


def shape_constant(a: TracedTensor) -> TracedTensor:
    """`a` with its derivative cut, for the sampler's loops."""
    return apply(ShapeConstant((), 1), [a])[0]


def implicit_gamma_draw(draw: TracedTensor, a: TracedTensor, log_space: bool) -> TracedTensor:
    """`draw` (of the same shape as `a`), differentiable in `a` as JAX's gamma draws are."""
    return apply(ImplicitGammaDraw(bool(log_space), 2), [draw, a])[0]
