"""JAX's `lax.platform_dependent` and `lax.stage` for tf8, which runs on one platform: the
CPU.

>>> import numpy as np
>>> from tf8 import lax
>>> lax.platform_dependent(np.array(0.0), cpu=lax.cos, default=lax.sin)
Array(1., dtype=float64)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tf8.errors import ParameterError
from tf8.lax.ops import _array
from tf8.traced import TracedTensor

PLATFORM = "cpu"  # where tf8 computes: numpy (and numba, dask) on the host


def platform_dependent(
    *args: Any, default: Callable[..., Any] | None = None, **per_platform: Callable[..., Any]
) -> Any:
    """`per_platform["cpu"](*args)`, else `default(*args)`: the branch for the platform the
    program runs on, which for tf8 is always the CPU.

    Args:
      *args: the branches' arguments (pytrees).
      default: the branch for a platform not named.
      **per_platform: a branch per platform name ('cpu', 'cuda', 'rocm', 'tpu').

    Unlike JAX, which traces every branch and picks one when it compiles, tf8 traces only
    the CPU's (the others never run here).
    """
    for name, branch in per_platform.items():
        if not callable(branch):
            raise ParameterError(f"platform_dependent: the {name!r} branch must be a callable")
        if name == "gpu":
            raise ParameterError("platform_dependent: name 'cuda' or 'rocm', not 'gpu'")
    if default is not None and not callable(default):
        raise ParameterError("platform_dependent: the 'default' branch must be a callable")
    branch = per_platform.get(PLATFORM, default)
    if branch is None:
        raise ParameterError(
            f"platform_dependent: no branch for the platform {PLATFORM!r} (tf8's) and no "
            f"default; got branches for {sorted(per_platform)}"
        )
    return branch(*args)


def stage(x: Any, /) -> TracedTensor:
    """`x` (a Python scalar or array) as a tf8 value of the current trace: the identity, as
    JAX's. A Python scalar stays weakly typed.

    >>> from tf8 import lax
    >>> lax.stage(2.0)
    Array(2., dtype=float64, weak_type=True)
    """
    return _array(x)


__all__ = ["platform_dependent", "stage"]
