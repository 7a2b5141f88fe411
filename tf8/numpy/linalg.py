"""tf8.numpy.linalg: numpy.linalg's names, served by tf8.linalg (one implementation of each).

`tnp.linalg.norm`, `tnp.linalg.svd`, ... are tf8.linalg's functions; the import is deferred
because tf8.linalg builds on the AD layer, which itself imports tf8.numpy.
"""

from __future__ import annotations

from typing import Any


def __getattr__(name: str) -> Any:
    import tf8.linalg

    if name in tf8.linalg.__all__:
        return getattr(tf8.linalg, name)
    raise AttributeError(
        f"tf8.numpy.linalg has no function {name!r} (tf8.linalg provides: "
        + ", ".join(tf8.linalg.__all__)
        + ")"
    )


def __dir__() -> list[str]:
    import tf8.linalg

    return list(tf8.linalg.__all__)
