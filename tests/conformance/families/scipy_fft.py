"""`jax.scipy.fft`'s discrete cosine transforms (type 2: dct, idct, dctn, idctn) and
`jax.numpy.fft`'s Hermitian transforms (hfft, ihfft): each dtype, lengths cut and padded,
each axis and norm, complex input, and the arguments JAX refuses."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from ..spec import Case

ALL = (np.float64, np.float32, np.complex128, np.complex64)


def _draw(rng: np.random.Generator, shape: tuple, dtype) -> np.ndarray:
    x = rng.normal(size=shape)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * rng.normal(size=shape)
    return x.astype(dtype)


def _dct(rng: np.random.Generator) -> Iterator[Case]:
    for name in ("dct", "idct"):
        full = f"scipy.fft.{name}"
        for dtype in ALL:
            yield Case(full, (_draw(rng, (8,), dtype),))
        yield Case(full, (_draw(rng, (7,), np.float64),))
        yield Case(full, (np.array([1, 0, -2, 3], np.int64),))
        yield Case(full, (np.array([1, 0, -2, 3], np.int32),))
        yield Case(full, (np.array([1.5]),))
        x = _draw(rng, (3, 6), np.float64)
        yield Case(full, (x,))
        yield Case(full, (x,), {"axis": 0})
        yield Case(full, (x,), {"n": 4})
        yield Case(full, (x,), {"n": 9, "axis": 0})
        yield Case(full, (x,), {"n": 1})
        for norm in ("backward", "ortho"):
            yield Case(full, (x,), {"norm": norm})
            yield Case(full, (_draw(rng, (5,), np.complex128),), {"norm": norm})
        yield Case(full, (_draw(rng, (2, 3, 5), np.float32),), {"axis": 1, "norm": "ortho"})
        yield Case(full, (x,), {"type": 3})  # refused
        yield Case(full, (x,), {"norm": "forward"})  # refused
        yield Case(full, (x,), {"axis": 2})  # refused
    for name in ("dctn", "idctn"):
        full = f"scipy.fft.{name}"
        x = _draw(rng, (4, 6), np.float64)
        cube = _draw(rng, (2, 4, 5), np.float64)
        yield Case(full, (x,))
        yield Case(full, (x.astype(np.float32),))
        yield Case(full, (_draw(rng, (3, 4), np.complex128),))
        yield Case(full, (np.arange(6, dtype=np.int32).reshape(2, 3),))
        yield Case(full, (cube,))
        yield Case(full, (cube,), {"axes": (0, 2)})
        yield Case(full, (cube,), {"axes": (1,)})
        yield Case(full, (cube,), {"axes": (-1, 0)})
        yield Case(full, (x,), {"s": (3, 8)})
        yield Case(full, (x,), {"s": (5,)})
        yield Case(full, (cube,), {"s": (3, 2), "axes": (0, 1)})
        yield Case(full, (cube,), {"s": (2, 3, 4)})
        for norm in ("backward", "ortho"):
            yield Case(full, (cube,), {"norm": norm})
        yield Case(full, (_draw(rng, (6,), np.float64),))
        yield Case(full, (x,), {"type": 1})  # refused
        yield Case(full, (x,), {"s": (2, 2, 2)})  # refused: more lengths than axes


def _hermitian(rng: np.random.Generator) -> Iterator[Case]:
    for name, dtypes in (("hfft", ALL), ("ihfft", (np.float64, np.float32))):
        full = f"numpy.fft.{name}"
        for dtype in dtypes:
            yield Case(full, (_draw(rng, (6,), dtype),))
        yield Case(full, (_draw(rng, (5,), dtypes[0]),))
        yield Case(full, (np.array([1, 3, 5, 7], np.int64),))
        x = _draw(rng, (3, 5), dtypes[-1] if name == "hfft" else np.float64)
        yield Case(full, (x,))
        yield Case(full, (x,), {"axis": 0})
        for n in (4, 7, 12):
            yield Case(full, (x,), {"n": n})
        yield Case(full, (x,), {"n": 3, "axis": 0})
        for norm in ("backward", "ortho", "forward"):
            yield Case(full, (x,), {"norm": norm})
            yield Case(full, (x,), {"norm": norm, "n": 5})
        yield Case(full, (_draw(rng, (2, 3, 4), dtypes[0]),), {"axis": 1})
        yield Case(full, (x,), {"n": 0})  # refused
        yield Case(full, (x,), {"axis": 2})  # refused
        yield Case(full, (x,), {"norm": "bogus"})  # refused
    yield Case("numpy.fft.ihfft", (_draw(rng, (4,), np.complex128),))  # refused: complex


def cases() -> Iterator[Case]:
    rng = np.random.default_rng(34)
    yield from _dct(rng)
    yield from _hermitian(rng)
