"""tf8.numpy.linalg: numpy.linalg's names, served by tf8.linalg (one implementation of each).

`tnp.linalg.norm`, `tnp.linalg.svd`, ... are tf8.linalg's functions.
"""

from __future__ import annotations

from typing import Any

from tf8 import linalg as _linalg


def __getattr__(name: str) -> Any:
    if name in _linalg.__all__:
        return getattr(_linalg, name)
    raise AttributeError(
        f"tf8.numpy.linalg has no function {name!r} (tf8.linalg provides: "
        + ", ".join(_linalg.__all__)
        + ")"
    )


def __dir__() -> list[str]:
    return list(_linalg.__all__)
