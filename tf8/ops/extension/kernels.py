"""The numpy kernels of tf8's extension families, one table keyed by op class.

Engines look an extension op up here first; a user-defined family (not listed) brings its
kernel as the `kernel` method of its op class, as the control-flow family does (its kernels run
sub-programs through tf8.ops.evaluate, which reads this table).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from . import einsum_kernels, fft_kernels, sort, threefry
from .linalg import kernels as linalg_kernels
from .linalg import kernels_lu as linalg_lu_kernels
from .linalg import kernels_scipy as linalg_scipy_kernels

FAMILY_KERNELS: dict[type, Callable[..., Any]] = {
    **einsum_kernels.KERNELS,
    **fft_kernels.KERNELS,
    **linalg_kernels.KERNELS,
    **linalg_lu_kernels.KERNELS,
    **linalg_scipy_kernels.KERNELS,
    **sort.KERNELS,
    **threefry.KERNELS,
}
