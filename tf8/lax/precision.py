"""JAX's `lax` parameter types: `Precision` (and `PrecisionLike`), `DotDimensionNumbers` and
`FftType`.

tf8 computes on the CPU in numpy, at the operands' full precision: `precision=` of `dot`,
`dot_general` and `batch_matmul` takes any of these values and changes nothing (JAX's CPU
backend ignores it too; it trades float32 accuracy for speed on TPUs and GPUs).
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from typing import Any, Union

from tf8.errors import ParameterError


class Precision(enum.Enum):
    """The precision of a matrix product: DEFAULT, HIGH or HIGHEST, also named by JAX's
    strings ('default', 'bfloat16'; 'high', 'bfloat16_3x', 'tensorfloat32'; 'highest',
    'float32'). Accepted and ignored by tf8, which computes at the operands' precision.

    >>> from tf8 import lax
    >>> lax.Precision("highest"), str(lax.Precision.HIGH)
    (Precision.HIGHEST, 'HIGH')
    """

    DEFAULT = 0
    HIGH = 1
    HIGHEST = 2

    @classmethod
    def _missing_(cls, value: object) -> Precision | None:
        return _STRINGS.get(value) if isinstance(value, str) else None

    def __repr__(self) -> str:
        return f"{type(self).__name__}.{self.name}"

    def __str__(self) -> str:
        return self.name


_STRINGS = {
    "highest": Precision.HIGHEST,
    "float32": Precision.HIGHEST,
    "high": Precision.HIGH,
    "bfloat16_3x": Precision.HIGH,
    "tensorfloat32": Precision.HIGH,
    "default": Precision.DEFAULT,
    "bfloat16": Precision.DEFAULT,
}

PrecisionLike = Union[None, str, Precision, tuple[str, str], tuple[Precision, Precision]]  # noqa: UP007
"""What `precision=` takes: None, a Precision or its string, or one for each operand."""

DotDimensionNumbers = tuple[
    tuple[Sequence[int], Sequence[int]], tuple[Sequence[int], Sequence[int]]
]
"""`dot_general`'s ((lhs_contracting, rhs_contracting), (lhs_batch, rhs_batch))."""


def canonicalize_precision(precision: Any) -> tuple[Precision, Precision] | None:
    """`precision` as a pair of Precision values (None stays None), or ParameterError naming
    what JAX accepts.

    >>> from tf8.lax.precision import canonicalize_precision
    >>> canonicalize_precision("high")
    (Precision.HIGH, Precision.HIGH)
    """
    if precision is None:
        return None
    if isinstance(precision, (str, Precision)):
        try:
            one = Precision(precision)
        except ValueError:
            one = None
        if one is not None:
            return one, one
    elif isinstance(precision, (list, tuple)) and len(precision) == 2:
        pair = [canonicalize_precision(p) for p in precision]
        if all(p is not None for p in pair):
            return pair[0][0], pair[1][0]  # type: ignore[index]
    raise ParameterError(
        f"precision must be None, a lax.Precision, one of the strings {sorted(_STRINGS)} or a "
        f"pair of them, got {precision!r}"
    )


class FftType(enum.IntEnum):
    """The kind of `lax.fft`: FFT, IFFT (complex to complex), RFFT (real to complex), IRFFT
    (complex to real). `lax.fft` takes a member or its name.

    >>> import numpy as np
    >>> from tf8 import lax
    >>> lax.fft(np.ones(4), lax.FftType.RFFT, (4,))
    Array([4.+0.j, 0.+0.j, 0.+0.j], dtype=complex128)
    """

    FFT = 0
    IFFT = 1
    RFFT = 2
    IRFFT = 3


__all__ = [
    "DotDimensionNumbers",
    "FftType",
    "Precision",
    "PrecisionLike",
    "canonicalize_precision",
]
