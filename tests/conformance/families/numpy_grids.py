"""`jax.numpy`'s coordinate grids (meshgrid; #35's mgrid, ogrid and indices join here)."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from ..spec import Case


def cases() -> Iterator[Case]:
    x, y, z = np.linspace(-1.0, 1.0, 3), np.array([0.5, 2.0]), np.arange(4.0)
    for indexing in ("xy", "ij"):
        yield Case("numpy.meshgrid", (x, y), {"indexing": indexing})
        yield Case("numpy.meshgrid", (x, y, z), {"indexing": indexing})
        yield Case("numpy.meshgrid", (x.astype(np.float32), y), {"indexing": indexing})
        yield Case("numpy.meshgrid", (x, y), {"indexing": indexing, "sparse": True})
    yield Case("numpy.meshgrid", (x,), {})
    yield Case("numpy.meshgrid", (np.array([1, 2], np.int32), y), {})
    yield Case("numpy.meshgrid", (np.zeros((0,)), y), {})
    yield Case("numpy.meshgrid", (x, y), {"indexing": "xz"})  # refused
