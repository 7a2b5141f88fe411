"""Window geometry shared by convolutions and windowed reductions: JAX's `padtype_to_pads`
and the output size of a strided, dilated window over a padded axis.

>>> from tf8 import lax
>>> lax.padtype_to_pads((5, 6), (3, 3), (2, 2), "SAME")
[(1, 1), (0, 1)]
"""

from __future__ import annotations

import enum
from collections.abc import Sequence

from tf8.errors import ParameterError, ShapeError

__all__ = ["PaddingType", "padtype_to_pads", "window_output_size", "resolve_padding"]


class PaddingType(enum.Enum):
    """JAX's padding kinds: `VALID` (no padding), `SAME` (output size ceil(n / stride), the
    extra element of an odd padding after), `SAME_LOWER` (the extra element before)."""

    VALID = 1
    SAME = 2
    SAME_LOWER = 3


def padtype_to_pads(
    in_shape: Sequence[int],
    window_shape: Sequence[int],
    window_strides: Sequence[int],
    padding: str | PaddingType,
) -> list[tuple[int, int]]:
    """The explicit `(low, high)` padding of each axis that `padding` names, as in JAX.

    Args:
      in_shape: the spatial sizes of the operand.
      window_shape: the window's sizes (dilated, for a dilated window).
      window_strides: the strides.
      padding: `'VALID'`, `'SAME'` or `'SAME_LOWER'` (any case), or a `PaddingType`.

    >>> padtype_to_pads((4,), (2,), (1,), "SAME_LOWER")
    [(1, 0)]
    """
    if isinstance(padding, str):
        try:
            padding = PaddingType[padding.upper()]
        except KeyError:
            raise ParameterError(
                f"padtype_to_pads: unknown padding {padding!r}; expected 'VALID', 'SAME' or "
                f"'SAME_LOWER', or explicit (low, high) pairs"
            ) from None
    if not isinstance(padding, PaddingType):
        raise ParameterError(f"padtype_to_pads: padding must be a string, got {padding!r}")
    if not len(in_shape) == len(window_shape) == len(window_strides):
        raise ShapeError(
            f"padtype_to_pads: in_shape {tuple(in_shape)}, window_shape {tuple(window_shape)} "
            f"and window_strides {tuple(window_strides)} must have one entry per axis"
        )
    if padding is PaddingType.VALID:
        return [(0, 0)] * len(in_shape)
    pads = []
    for n, w, s in zip(in_shape, window_shape, window_strides):
        out = -(-n // s)
        total = max((out - 1) * s + w - n, 0)
        low, high = total // 2, total - total // 2
        pads.append((low, high) if padding is PaddingType.SAME else (high, low))
    return pads


def resolve_padding(
    where: str,
    padding: str | Sequence[tuple[int, int]],
    in_shape: Sequence[int],
    window_shape: Sequence[int],
    window_strides: Sequence[int],
) -> tuple[tuple[int, int], ...]:
    """`padding` as explicit `(low, high)` pairs: a string through `padtype_to_pads`, pairs
    checked (one per axis, integers); `where` names the caller in errors."""
    if isinstance(padding, (str, PaddingType)):
        return tuple(padtype_to_pads(in_shape, window_shape, window_strides, padding))
    try:
        pairs = tuple((int(lo), int(hi)) for lo, hi in padding)
    except (TypeError, ValueError):
        raise ParameterError(
            f"{where}: padding must be 'VALID', 'SAME', 'SAME_LOWER' or a sequence of "
            f"(low, high) integer pairs, got {padding!r}"
        ) from None
    if len(pairs) != len(in_shape):
        raise ShapeError(
            f"{where}: padding {pairs} has {len(pairs)} pairs for {len(in_shape)} spatial axes"
        )
    return pairs


def window_output_size(n: int, window: int, stride: int, low: int, high: int) -> int:
    """How many windows of (dilated) size `window` at `stride` fit in an axis of `n` elements
    padded by `low` and `high`: `(n + low + high - window) // stride + 1`, at least 0."""
    span = n + low + high - window
    return 0 if span < 0 else span // stride + 1
