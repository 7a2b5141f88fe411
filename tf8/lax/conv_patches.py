"""JAX's `lax.conv_general_dilated_patches` (the windows a convolution sees, as features) and
`lax.conv_general_dilated_local` (a convolution with a kernel per output position), on
`conv_general_dilated` and `dot_general`.

>>> import numpy as np
>>> from tf8 import lax
>>> lax.conv_general_dilated_patches(np.ones((1, 2, 5, 5)), (3, 3), (1, 1), "VALID").shape
(1, 18, 3, 3)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from tf8.errors import ShapeError
from tf8.lax.conv_shapes import ConvGeneralDilatedDimensionNumbers, conv_dimension_numbers
from tf8.lax.convolution import Padding, conv_general_dilated
from tf8.lax.ops import _array, transpose
from tf8.lax.structure import dot_general
from tf8.traced import TracedTensor

__all__ = ["conv_general_dilated_local", "conv_general_dilated_patches"]


def conv_general_dilated_patches(
    lhs: Any,
    filter_shape: Sequence[int],
    window_strides: Sequence[int],
    padding: Padding,
    lhs_dilation: Sequence[int] | None = None,
    rhs_dilation: Sequence[int] | None = None,
    dimension_numbers: ConvGeneralDilatedDimensionNumbers = None,
    precision: Any = None,
    preferred_element_type: Any = None,
) -> TracedTensor:
    """The patches a convolution's windows see, flattened into the output's feature axis
    (in the order input feature, then the window's axes as the rhs spec orders them).

    Parameters: `lhs`; `filter_shape`, the window's n spatial sizes (in the rhs spec's
    order); the rest as `conv_general_dilated`'s.

    >>> import numpy as np
    >>> from tf8 import lax
    >>> p = lax.conv_general_dilated_patches(np.arange(6.0).reshape(1, 1, 6), (2,), (2,), "VALID")
    >>> print(p[0])
    [[0. 2. 4.]
     [1. 3. 5.]]

    As JAX's.
    """
    x = _array(lhs)
    filter_shape = tuple(int(k) for k in filter_shape)
    numbers = conv_dimension_numbers(x.shape, (1, 1, *filter_shape), dimension_numbers)
    if x.ndim != len(filter_shape) + 2:
        raise ShapeError(
            f"conv_general_dilated_patches: filter_shape {filter_shape} needs an lhs of rank "
            f"{len(filter_shape) + 2}, got {x.aval}"
        )
    size, channels = math.prod(filter_shape), x.shape[numbers.lhs_spec[1]]
    eye = np.broadcast_to(np.eye(size, dtype=x.dtype), (channels, size, size))
    kernel = np.moveaxis(
        eye.reshape(channels * size, 1, *filter_shape), (0, 1), numbers.rhs_spec[:2]
    )
    return conv_general_dilated(
        x,
        np.ascontiguousarray(kernel),
        window_strides,
        padding,
        lhs_dilation,
        rhs_dilation,
        numbers,
        feature_group_count=channels,
        preferred_element_type=preferred_element_type,
    )


def conv_general_dilated_local(
    lhs: Any,
    rhs: Any,
    window_strides: Sequence[int],
    padding: Padding,
    filter_shape: Sequence[int],
    lhs_dilation: Sequence[int] | None = None,
    rhs_dilation: Sequence[int] | None = None,
    dimension_numbers: ConvGeneralDilatedDimensionNumbers = None,
    precision: Any = None,
) -> TracedTensor:
    """An unshared convolution (locally connected layer): a separate kernel at each output
    position. `rhs`'s spatial axes are the output's positions and its input feature axis
    holds (input feature, window...) flattened, as in the patches of
    `conv_general_dilated_patches`.

    >>> import numpy as np
    >>> from tf8 import lax
    >>> x, w = np.ones((2, 3, 5)), np.ones((4, 3 * 2, 4))
    >>> lax.conv_general_dilated_local(x, w, (1,), "VALID", (2,)).shape
    (2, 4, 4)

    As JAX's.
    """
    patches = conv_general_dilated_patches(
        lhs, filter_shape, window_strides, padding, lhs_dilation, rhs_dilation, dimension_numbers
    )
    numbers = conv_dimension_numbers(patches.shape, (1, 1, *tuple(filter_shape)), dimension_numbers)
    _, rhs_spec, out_spec = numbers
    lhs_batch = list(out_spec[2:])
    rhs_batch = [rhs_spec[2:][i] for i in sorted(range(len(lhs_batch)), key=lambda k: lhs_batch[k])]
    out = dot_general(
        patches,
        rhs,
        (((out_spec[1],), (rhs_spec[1],)), (tuple(sorted(lhs_batch)), tuple(rhs_batch))),
    )
    n = out.ndim
    perm = [a for a in range(n) if a not in (n - 2, n - 1)]
    for axis, source in sorted(zip((out_spec[0], out_spec[1]), (n - 2, n - 1))):
        perm.insert(axis, source)
    return transpose(out, perm)
