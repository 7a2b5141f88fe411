"""JAX's `lax` convolutions on tf8's `conv_general_dilated` primitive
(`tf8/ops/primitives/convolution.py`): padding given as 'SAME', 'VALID', 'SAME_LOWER' or
pairs, dimension numbers as spec strings, and the convenience forms (`conv`,
`conv_transpose`, patches, unshared convolutions).

>>> import numpy as np
>>> from tf8 import lax
>>> x = np.arange(5.0).reshape(1, 1, 5)
>>> w = np.array([1.0, 0.0, -1.0]).reshape(1, 1, 3)
>>> print(lax.conv(x, w, (1,), "SAME"))
[[[-1. -2. -2. -2.  3.]]]

Differences from JAX: `precision` is accepted and ignored (numpy computes at full
precision); `preferred_element_type` converts the operands first (integer operands then
convolve in that dtype), as tf8's `dot_general` does; `out_sharding` must be None.
The patches and unshared convolutions are in `tf8.lax.conv_patches`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from tf8.errors import DTypeError, ParameterError, ShapeError
from tf8.lax.builders import compare
from tf8.lax.conv_shapes import (
    ConvGeneralDilatedDimensionNumbers,
    conv_dimension_numbers,
    conv_transpose_padding,
)
from tf8.lax.core import apply1
from tf8.lax.ops import _array, convert_element_type, rev, transpose
from tf8.lax.windows import resolve_padding
from tf8.ops import dtypes as dt
from tf8.ops.conv_kernels import dilate_dim
from tf8.traced import TracedTensor

__all__ = [
    "conv",
    "conv_general_dilated",
    "conv_transpose",
    "conv_with_general_padding",
]

Padding = str | Sequence[tuple[int, int]]


def _check_preferred(where: str, dtype: np.dtype, preferred: Any) -> np.dtype | None:
    """`preferred_element_type` as a dtype, checked as JAX checks it against `dtype`."""
    if preferred is None:
        return None
    target = dt.as_dtype(preferred)
    kinds = {"i": "integral", "u": "integral", "f": "floating", "c": "complex"}
    source, wanted = kinds.get(dtype.kind), kinds.get(target.kind)
    if not (source == "integral" and wanted == "floating"):
        if source is not None and source != wanted:
            raise DTypeError(
                f"{where}: preferred_element_type {target} is incompatible with operands of "
                f"dtype {dtype}: the combinations are (integral, integral), (integral, "
                "floating), (floating, floating), (complex, complex)"
            )
        if dtype.kind == "i" and target.kind != "i":
            raise DTypeError(
                f"{where}: preferred_element_type {target} must be signed like the operands' "
                f"dtype {dtype}"
            )
    if target.itemsize < dtype.itemsize:
        raise DTypeError(
            f"{where}: preferred_element_type {target} must not be narrower than the "
            f"operands' dtype {dtype}"
        )
    return target


def _ints(where: str, name: str, values: Any, count: int) -> tuple[int, ...]:
    try:
        out = tuple(int(v) for v in values)
    except (TypeError, ValueError):
        raise ParameterError(f"{where}: {name} must be {count} integers, got {values!r}") from None
    if len(out) != count:
        raise ParameterError(
            f"{where}: {name} must have {count} entries (one per spatial axis), got {out}"
        )
    return out


def conv_general_dilated(
    lhs: Any,
    rhs: Any,
    window_strides: Sequence[int],
    padding: Padding,
    lhs_dilation: Sequence[int] | None = None,
    rhs_dilation: Sequence[int] | None = None,
    dimension_numbers: ConvGeneralDilatedDimensionNumbers = None,
    feature_group_count: int = 1,
    batch_group_count: int = 1,
    precision: Any = None,
    preferred_element_type: Any = None,
    out_sharding: Any = None,
) -> TracedTensor:
    """General n-dimensional convolution with dilation (XLA's Conv, JAX's lax function).

    Args:
      lhs: the input, rank n + 2.
      rhs: the kernel, rank n + 2.
      window_strides: n strides.
      padding: 'SAME', 'SAME_LOWER', 'VALID' (sized on the dilated kernel), or n
        (low, high) pairs.
      lhs_dilation: n dilation factors of the input (transposed convolution), or None.
      rhs_dilation: n dilation factors of the kernel (atrous convolution), or None.
      dimension_numbers: None (`NCHW`, `OIHW`, `NCHW`), three spec strings, or a
        `ConvDimensionNumbers`.
      feature_group_count, batch_group_count: grouped convolutions (at most one above 1).
      precision: accepted and ignored.
      preferred_element_type: the result dtype (the operands are converted to it first).
      out_sharding: must be None (tf8 does not shard).

    >>> import numpy as np
    >>> from tf8 import lax
    >>> x, w = np.ones((2, 8, 8, 3)), np.ones((3, 3, 3, 4))
    >>> lax.conv_general_dilated(x, w, (2, 2), "SAME", rhs_dilation=(2, 2),
    ...                          dimension_numbers=("NHWC", "HWIO", "NHWC")).shape
    (2, 4, 4, 4)

    Bool operands give a bool result (any product true), as in JAX.
    """
    where = "conv_general_dilated"
    if out_sharding is not None:
        raise ParameterError(f"{where}: out_sharding must be None (tf8 does not shard)")
    x, w = _array(lhs), _array(rhs)
    if x.ndim != w.ndim or x.ndim < 2:
        raise ShapeError(
            f"{where}: lhs and rhs must have one rank of at least 2, got lhs {x.aval} and "
            f"rhs {w.aval}"
        )
    if x.dtype != w.dtype:
        raise DTypeError(
            f"{where}: lhs and rhs must have one dtype, got lhs {x.aval} and rhs {w.aval}"
        )
    spatial = x.ndim - 2
    specs = conv_dimension_numbers(x.shape, w.shape, dimension_numbers)
    numbers = tuple(tuple(int(a) for a in spec) for spec in specs)
    strides = _ints(where, "window_strides", window_strides, spatial)
    ones = (1,) * spatial
    lhs_dil = ones if lhs_dilation is None else _ints(where, "lhs_dilation", lhs_dilation, spatial)
    rhs_dil = ones if rhs_dilation is None else _ints(where, "rhs_dilation", rhs_dilation, spatial)
    if len(numbers) != 3 or any(sorted(spec) != list(range(x.ndim)) for spec in numbers):
        raise ParameterError(
            f"{where}: dimension_numbers must be three permutations of range({x.ndim}) for "
            f"lhs {x.aval} and rhs {w.aval}, got {specs}"
        )
    if isinstance(padding, str) and lhs_dil != ones:
        raise ParameterError(
            f"{where}: string padding {padding!r} is not implemented with lhs_dilation "
            f"{lhs_dil}; give explicit (low, high) pairs or use conv_transpose"
        )
    in_shape = [x.shape[a] for a in numbers[0][2:]]
    window = [dilate_dim(w.shape[a], d) for a, d in zip(numbers[1][2:], rhs_dil)]
    pads = resolve_padding(where, padding, in_shape, window, strides)
    preferred = _check_preferred(where, x.dtype, preferred_element_type)
    boolean = x.dtype == dt.bool_
    if preferred is not None:
        x, w = convert_element_type(x, preferred), convert_element_type(w, preferred)
    elif boolean:
        x, w = convert_element_type(x, dt.int64), convert_element_type(w, dt.int64)
    out = apply1(
        "conv_general_dilated",
        [x, w],
        window_strides=strides,
        padding=pads,
        lhs_dilation=lhs_dil,
        rhs_dilation=rhs_dil,
        dimension_numbers=numbers,
        feature_group_count=_count(where, "feature_group_count", feature_group_count),
        batch_group_count=_count(where, "batch_group_count", batch_group_count),
    )
    return compare(out, 0, "ne") if boolean and preferred is None else out


def _count(where: str, name: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ParameterError(f"{where}: {name} must be a positive integer, got {value!r}")
    return int(value)


def conv(
    lhs: Any,
    rhs: Any,
    window_strides: Sequence[int],
    padding: str,
    precision: Any = None,
    preferred_element_type: Any = None,
) -> TracedTensor:
    """`conv_general_dilated` with `NCHW`/`OIHW` layouts and no dilation.

    Parameters: `lhs`, `rhs`, `window_strides`, `padding` ('SAME', 'VALID' or pairs),
    `precision` (ignored), `preferred_element_type`.

    >>> import numpy as np
    >>> from tf8 import lax
    >>> lax.conv(np.ones((1, 2, 6, 6)), np.ones((3, 2, 3, 3)), (1, 1), "VALID").shape
    (1, 3, 4, 4)

    As JAX's.
    """
    return conv_general_dilated(
        lhs, rhs, window_strides, padding, preferred_element_type=preferred_element_type
    )


def conv_with_general_padding(
    lhs: Any,
    rhs: Any,
    window_strides: Sequence[int],
    padding: Padding,
    lhs_dilation: Sequence[int] | None,
    rhs_dilation: Sequence[int] | None,
    precision: Any = None,
    preferred_element_type: Any = None,
) -> TracedTensor:
    """`conv_general_dilated` with `NCHW`/`OIHW` layouts, any padding and dilations.

    >>> import numpy as np
    >>> from tf8 import lax
    >>> lax.conv_with_general_padding(np.ones((1, 1, 4)), np.ones((1, 1, 2)), (1,),
    ...                               [(1, 0)], (2,), None).shape
    (1, 1, 7)

    As JAX's.
    """
    return conv_general_dilated(
        lhs,
        rhs,
        window_strides,
        padding,
        lhs_dilation=lhs_dilation,
        rhs_dilation=rhs_dilation,
        preferred_element_type=preferred_element_type,
    )


_TRANSPOSE_LAYOUTS = {
    2: ("NC", "IO", "NC"),
    3: ("NHC", "HIO", "NHC"),
    4: ("NHWC", "HWIO", "NHWC"),
    5: ("NHWDC", "HWDIO", "NHWDC"),
}


def conv_transpose(
    lhs: Any,
    rhs: Any,
    strides: Sequence[int],
    padding: Padding,
    rhs_dilation: Sequence[int] | None = None,
    dimension_numbers: ConvGeneralDilatedDimensionNumbers = None,
    transpose_kernel: bool = False,
    precision: Any = None,
    preferred_element_type: Any = None,
    use_consistent_padding: bool = False,
) -> TracedTensor:
    """The "transpose" of a convolution: a fractionally strided convolution (the input
    dilated by `strides`), with Keras' output padding conventions.

    Args:
      lhs, rhs: input and kernel, rank n + 2.
      strides: n fractional strides.
      padding: 'SAME', 'VALID' (the forward convolution's), or n pairs: the transposed
        convolution's own padding, or the forward one's with `use_consistent_padding`.
      rhs_dilation: n kernel dilations, or None.
      dimension_numbers: as `conv_general_dilated`'s; None means `NHWC`, `HWIO`, `NHWC`
        (TensorFlow's layouts, for 1 to 3 spatial axes).
      transpose_kernel: flip the kernel's spatial axes and swap its feature axes, so that
        the result is the gradient of `conv_general_dilated` (Keras' Conv2DTranspose).

    >>> import numpy as np
    >>> from tf8 import lax
    >>> lax.conv_transpose(np.ones((1, 4, 4, 2)), np.ones((3, 3, 2, 5)), (2, 2), "SAME").shape
    (1, 8, 8, 5)

    As JAX's.
    """
    x, w = _array(lhs), _array(rhs)
    if x.ndim != w.ndim or x.ndim < 2:
        raise ShapeError(
            f"conv_transpose: lhs and rhs must have one rank of at least 2, got lhs "
            f"{x.aval} and rhs {w.aval}"
        )
    if dimension_numbers is None:
        if x.ndim not in _TRANSPOSE_LAYOUTS:
            raise ParameterError(
                f"conv_transpose: no default dimension_numbers for rank {x.ndim}; give them"
            )
        dimension_numbers = _TRANSPOSE_LAYOUTS[x.ndim]
    numbers = conv_dimension_numbers(x.shape, w.shape, dimension_numbers)
    spatial = x.ndim - 2
    strides = _ints("conv_transpose", "strides", strides, spatial)
    kernel = [w.shape[a] for a in numbers.rhs_spec[2:]]
    dilation = (1,) * spatial if rhs_dilation is None else tuple(rhs_dilation)
    if use_consistent_padding or padding in ("SAME", "VALID"):
        each = [padding] * spatial if isinstance(padding, str) else [tuple(p) for p in padding]
        pads: Padding = tuple(
            conv_transpose_padding(dilate_dim(k, d), s, p)
            for k, d, s, p in zip(kernel, dilation, strides, each)
        )
    else:
        pads = padding
    if transpose_kernel:  # flip the spatial axes, swap the feature axes
        w = rev(w, numbers.rhs_spec[2:])
        perm = list(range(w.ndim))
        o, i = numbers.rhs_spec[0], numbers.rhs_spec[1]
        perm[o], perm[i] = perm[i], perm[o]
        w = transpose(w, perm)
    return conv_general_dilated(
        x,
        w,
        (1,) * spatial,
        pads,
        strides,
        dilation,
        numbers,
        preferred_element_type=preferred_element_type,
    )
