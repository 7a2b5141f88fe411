"""AD rules of the fft family.

Each op is linear, so its JVP is the op on the tangent. Transposes follow JAX's bilinear
convention (no conjugation): the DFT matrix is symmetric, so fft/ifft transpose to themselves
(with the pad/truncate to `n` transposed to truncate/pad); rfft transposes to the real part of
a full fft of the zero-extended cotangent, and irfft to a Hermitian-weighted rfft (JAX's
`_rfft_transpose` / `_irfft_transpose`).
"""

from __future__ import annotations

import math

import numpy as np

from tf8.lax.builders import mul, real
from tf8.lax.core import apply, apply1
from tf8.lax.fft import resize
from tf8.ops.extension.fft import FFT
from tf8.ops.primitive import ConstantValue
from tf8.traced import TracedTensor

from ..jvp_rules import JvpRule
from ..transpose_rules import TransposeRule


def fft_jvp(op: FFT, primals, outputs, tangents):
    return [apply(op, [tangents[0]])[0]]


def fft_transpose(op: FFT, operands, linear, ct):
    kind, n, axis, norm = op.payload
    (x,) = operands
    m = x.shape[axis]
    if kind in ("fft", "ifft"):
        return [resize(apply(op, [ct])[0], axis, m)]
    if kind == "rfft":
        full = apply(FFT("fft", n, axis, norm), [resize(ct, axis, n)])[0]
        return [resize(real(full), axis, m)]
    # irfft
    spectrum = apply(FFT("rfft", n, axis, "backward"), [ct])[0]
    scale = {"backward": 1 / n, "ortho": 1 / math.sqrt(n), "forward": 1.0}[norm]
    weights = np.full(n // 2 + 1, 2.0 * scale)
    weights[0] = scale
    if n % 2 == 0:
        weights[-1] = scale
    weighted = mul(spectrum, _along(weights.astype(spectrum.dtype), axis, spectrum))
    return [resize(apply1("conj", [weighted]), axis, m)]


def _along(values: np.ndarray, axis: int, like_tensor: TracedTensor) -> TracedTensor:
    """A constant vector broadcast along `axis` of `like_tensor`'s shape."""
    const = apply1("constant", [], value=ConstantValue(values))
    return apply1(
        "broadcast_in_dim", [const], shape=like_tensor.shape, broadcast_dimensions=(axis,)
    )


JVP_RULES: dict[type, JvpRule] = {FFT: fft_jvp}
TRANSPOSE_RULES: dict[type, TransposeRule] = {FFT: fft_transpose}
