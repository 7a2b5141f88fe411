"""The Faddeeva function w(z) = exp(-z²) erfc(-iz) for complex z, as JAX computes it (for
erfcx of a complex argument): Weideman's (1994) N = 32 rational approximation in the upper
half plane, w(z) = 2 p(Z) / (L - iz)² + 1 / (√π (L - iz)), Z = (L + iz) / (L - iz), and the
reflection w(z) = 2 exp(-z²) - w(-z) below it."""

from __future__ import annotations

import math

import tf8.numpy as tnp
from tf8.traced import TracedTensor

_L = 4.7568284600108841
# p's coefficients, highest degree first (JAX's _WOFZ_C)
_C = (
    -1.3034426067909105e-12, 3.7411838373738471e-12, 8.030427700497756e-12,
    -2.1543593557490879e-11, -5.5442449963237932e-11, 1.165824698850374e-10,
    4.1537441121999766e-10, -5.2310202114920615e-10, -3.2080151339721323e-09,
    8.1248864216535907e-10, 2.3797556530014025e-08, 2.2930438438915445e-08,
    -1.4813078929137642e-07, -4.1840763750512053e-07, 4.2558331397138446e-07,
    4.4015317312832251e-06, 6.8210319443575151e-06, -2.1409619201999998e-05,
    -0.00013075449254579421, -0.00024532980270038237, 0.00039259136070109705,
    0.0045195411053493093, 0.019006155784845501, 0.057304403529837282,
    0.14060716226893755, 0.29544451071508743, 0.54601397206393376, 0.9019254893648001,
    1.3455441692345449, 1.8256696296324815, 2.2635372999002676, 2.5722534081245696,
)  # fmt: skip


def _times_i(z: TracedTensor) -> TracedTensor:
    """i z, as JAX builds it: complex(-imag z, real z)."""
    return -tnp.imag(z) + 1j * tnp.real(z)


def _upper(z: TracedTensor) -> TracedTensor:
    iz = _times_i(z)
    denom = _L - iz
    big_z = (_L + iz) / denom
    p = tnp.zeros_like(big_z)
    for c in _C:
        p = p * big_z + c
    return 2 * p / (denom * denom) + (1 / math.sqrt(math.pi)) / denom


def wofz(z: TracedTensor) -> TracedTensor:
    """w(z) for a complex tensor z."""
    upper = tnp.imag(z) >= 0
    w_upper = _upper(tnp.where(upper, z, -z))
    return tnp.where(upper, w_upper, 2 * tnp.exp(-(z * z)) - w_upper)


def erfcx_complex(x: TracedTensor) -> TracedTensor:
    """erfcx(x) = w(i x) for complex x."""
    return wofz(_times_i(x))
