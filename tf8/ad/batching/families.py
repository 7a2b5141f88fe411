"""Batching rules of the extension families (einsum, fft, linalg, sort, threefry) and of
stop_gradient.

einsum gives the batch axis a letter of its own; fft shifts its axis; linalg ops already map
over leading axes, and sort's operands share one shape, so the batch axis moves to the front.
(custom_jvp / custom_vjp's ops carry their batching rules as methods: tf8.ad.custom.)
"""

from __future__ import annotations

import string

from tf8.lax.builders import reshape
from tf8.lax.core import apply
from tf8.lax.einsum import contract
from tf8.lax.stop import StopGradient
from tf8.ops.extension.einsum import Einsum
from tf8.ops.extension.fft import FFT
from tf8.ops.extension.linalg import LinalgOp
from tf8.ops.extension.sort import Sort
from tf8.ops.extension.threefry import Threefry2x32

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


RULES: dict[type, BatchRule] = {
    Einsum: _einsum,
    FFT: _fft,
    Sort: _sort,
    Threefry2x32: _threefry,
    **{cls: _linalg for cls in FAMILY_JVP_RULES if issubclass(cls, LinalgOp)},
    StopGradient: _stop_gradient,
}
