"""What the families of special functions, distributions and activations share."""

from __future__ import annotations

import numpy as np


def finite(args: tuple) -> bool:
    """Whether every float argument is finite: a case's derivatives are recorded only then
    (at ±inf and NaN no derivative is defined)."""
    floats = [a for a in args if isinstance(a, np.ndarray) and a.dtype.kind in "fc"]
    return all(np.isfinite(a).all() for a in floats)
