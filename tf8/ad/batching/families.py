"""Batching rules of the extension families (einsum, fft, linalg, sort, threefry) and of
tf8.ad.custom's ops.

einsum gives the batch axis a letter of its own; fft shifts its axis; linalg ops already map
over leading axes, and sort's operands share one shape, so the batch axis moves to the front.
custom_jvp / custom_vjp calls batch their marker with the user's rule functions themselves
vmapped (they are per-example).
"""

from __future__ import annotations

import string
from dataclasses import dataclass
from typing import Any

from tf8.errors import NoBatchingRule
from tf8.lax.builders import reduce_sum, reshape
from tf8.lax.core import apply
from tf8.lax.einsum import contract
from tf8.ops.extension.einsum import Einsum
from tf8.ops.extension.fft import FFT
from tf8.ops.extension.linalg import LinalgOp
from tf8.ops.extension.sort import Sort
from tf8.ops.extension.threefry import Threefry2x32

from ..arguments import as_traced
from ..custom import StopGradient, _JvpMarker, _VjpLinear, _VjpMarker
from ..families import FAMILY_JVP_RULES
from .core import BatchRule, at_front, batch_size, batched_axis, moveaxis


def _einsum(op: Einsum, args, dims):
    inputs, output, _ = op.payload
    used = set("".join(inputs) + output)
    letter = next(c for c in string.ascii_letters if c not in used)
    subs = [s if d is None else s[:d] + letter + s[d:] for s, d in zip(inputs, dims)]
    return [contract(subs, letter + output, args)], [0]


def _fft(op: FFT, args, dims):
    kind, n, axis, norm = op.payload
    (x,), (d,) = args, dims
    return [apply(FFT(kind, n, batched_axis(axis, d), norm), [x])[0]], [d]


def _sort(op: Sort, args, dims):
    """Every operand gets the batch axis in front (sorted operands share one shape)."""
    dimension, is_stable, num_keys = op.payload
    size = batch_size(args, dims)
    operands = [at_front(x, d, size) for x, d in zip(args, dims)]
    outs = apply(Sort(dimension + 1, is_stable, num_keys, len(operands)), operands)
    return outs, [0] * len(outs)


def _threefry(op: Threefry2x32, args, dims):
    """Broadcasting, as JAX's: batched operands get the batch axis in front, unbatched ones
    a leading axis of size 1 (the op broadcasts it, nothing is copied)."""
    operands = [
        reshape(x, (1, *x.shape)) if d is None else moveaxis(x, d, 0) for x, d in zip(args, dims)
    ]
    return apply(op, operands), [0, 0]


def _linalg(op: LinalgOp, args, dims):
    size = batch_size(args, dims)
    outs = apply(op, [at_front(x, d, size) for x, d in zip(args, dims)])
    return outs, [0] * len(outs)


def _stop_gradient(op, args, dims):
    return [apply(op, args)[0]], list(dims)


# --- custom_jvp / custom_vjp -----------------------------------------------------------------


@dataclass(frozen=True)
class _BatchedRules:
    """A custom_jvp/custom_vjp call whose rules (on flat argument leaves) run vmapped over
    `size` examples; `dims` says which leaves are batched (along axis 0)."""

    site: Any
    dims: tuple[int | None, ...]
    size: Any

    @property
    def __name__(self) -> str:  # messages name the user's function
        return self.site.__name__

    def _vmap(self, fun, in_axes, out_axes: Any = 0):
        from .vmap import vmap  # the transform is built on these rules

        return vmap(fun, in_axes=in_axes, out_axes=out_axes, axis_size=self.size)

    def jvp(self, xs: Any, ts: Any) -> Any:
        return self._vmap(self.site.jvp, (self.dims, self.dims))(tuple(xs), tuple(ts))

    def fwd(self, *xs: Any) -> Any:
        return self._vmap(self.site.fwd, self.dims)(*xs)

    def bwd(self, residuals: Any, ct: Any) -> list[Any]:
        cts = self._vmap(self.site.bwd, (0, 0))(residuals, ct)
        # An unbatched leaf's cotangent sums over the examples; None stays a zero.
        return [
            c if c is None or d is not None else reduce_sum(as_traced(c), (0,))
            for c, d in zip(cts, self.dims)
        ]


def _custom_marker(op, args, dims):
    site, treedef = op.payload
    n = op.output_count
    size = batch_size(args, dims)
    outs = [at_front(x, d, size) for x, d in zip(args[:n], dims[:n])]
    xs = [x if d is None else moveaxis(x, d, 0) for x, d in zip(args[n:], dims[n:])]
    x_dims = tuple(None if d is None else 0 for d in dims[n:])
    marker = type(op)((_BatchedRules(site, x_dims, size), treedef), op.input_count, n)
    return apply(marker, [*outs, *xs]), [0] * n


def _vjp_linear(op, args, dims):
    raise NoBatchingRule(
        "vmap of the forward-mode (linearised) map of a custom_vjp function is not supported; "
        "vmap the function, or its vjp, instead"
    )


RULES: dict[type, BatchRule] = {
    Einsum: _einsum,
    FFT: _fft,
    Sort: _sort,
    Threefry2x32: _threefry,
    **{cls: _linalg for cls in FAMILY_JVP_RULES if issubclass(cls, LinalgOp)},
    StopGradient: _stop_gradient,
    _JvpMarker: _custom_marker,
    _VjpMarker: _custom_marker,
    _VjpLinear: _vjp_linear,
}
