"""stax's pooling layers, `MaxPool`, `SumPool` and `AvgPool`: `lax.reduce_window` over the
spatial axes of the inputs (`NHWC` by default, or as `spec` names them).

>>> import tf8.numpy as tnp
>>> from tf8 import random
>>> from tf8.example_libraries import stax
>>> init_fun, apply_fun = stax.MaxPool((2, 2), strides=(2, 2))
>>> out_shape, params = init_fun(random.PRNGKey(0), (1, 4, 4, 1))
>>> out_shape, params
((1, 2, 2, 1), ())
>>> print(apply_fun(params, tnp.arange(16.0).reshape(1, 4, 4, 1))[0, :, :, 0])
[[ 5.  7.]
 [13. 15.]]
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

import tf8.numpy as tnp
from tf8 import lax
from tf8.errors import ParameterError

_LayerPair = tuple[Callable[..., Any], Callable[..., Any]]


def _non_spatial(spec: str | None, ndim: int) -> tuple[int, int]:
    """The batch and feature axes: the first and last, or where `spec` puts N and C."""
    if spec is None:
        return 0, ndim - 1
    if "N" not in spec or "C" not in spec:
        raise ParameterError(f"stax pooling: spec {spec!r} must name axes 'N' and 'C'")
    return spec.index("N"), spec.index("C")


def _full_window(
    window_shape: Sequence[int], strides: Sequence[int] | None, spec: str | None
) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The window and strides over every axis: 1 on the batch and feature axes."""
    window = tuple(window_shape)
    steps = tuple(strides) if strides else (1,) * len(window)
    if len(steps) != len(window):
        raise ParameterError(
            f"stax pooling: strides {steps} must have one entry per window axis {window}"
        )
    for i in sorted(_non_spatial(spec, len(window) + 2)):
        window = window[:i] + (1,) + window[i:]
        steps = steps[:i] + (1,) + steps[i:]
    return window, steps


def _window_sizes(
    inputs: Any, window: tuple[int, ...], steps: tuple[int, ...], padding: Any, spec: str | None
) -> Any:
    """How many input elements each output window holds (fewer at a padded edge): AvgPool's
    divisor, shaped to broadcast against the outputs, as JAX's."""
    axes = _non_spatial(spec, inputs.ndim)
    spatial = tuple(n for i, n in enumerate(inputs.shape) if i not in axes)
    keep = [i for i in range(inputs.ndim) if i not in axes]
    sizes = lax.reduce_window(
        np.ones(spatial, inputs.dtype),
        0.0,
        lax.add,
        tuple(window[i] for i in keep),
        tuple(steps[i] for i in keep),
        padding if isinstance(padding, str) else tuple(padding[i] for i in keep),
    )
    for i in sorted(axes):
        sizes = tnp.expand_dims(sizes, i)
    return sizes


def _pooling(
    reducer: Callable,
    init_value: float,
    window_shape: Sequence[int],
    strides: Sequence[int] | None,
    padding: Any,
    spec: str | None,
    average: bool = False,
) -> _LayerPair:
    window, steps = _full_window(window_shape, strides, spec)

    def init_fun(rng: Any, input_shape: Sequence[int]) -> tuple[tuple[int, ...], tuple]:
        pads = padding
        if isinstance(padding, str):
            pads = lax.padtype_to_pads(input_shape, window, steps, padding)
        ones = (1,) * len(window)
        out = lax.reduce_window_shape_tuple(input_shape, window, steps, pads, ones, ones)
        return out, ()

    def apply_fun(params: Any, inputs: Any, **kwargs: Any) -> Any:
        out = lax.reduce_window(inputs, init_value, reducer, window, steps, padding)
        if average:
            return out / _window_sizes(inputs, window, steps, padding, spec)
        return out

    return init_fun, apply_fun


def MaxPool(
    window_shape: Sequence[int],
    strides: Sequence[int] | None = None,
    padding: str | Sequence[tuple[int, int]] = "VALID",
    spec: str | None = None,
) -> _LayerPair:
    """Max pooling: the maximum of each window of the spatial axes (`lax.reduce_window` with
    `lax.max` and -inf); no parameters.

    Parameters: `window_shape`, the window's size per spatial axis; `strides` (None: 1);
    `padding`, 'VALID', 'SAME' or explicit pairs over every axis; `spec`, the axes' names
    (None: batch first, features last, e.g. 'NHWC').

    >>> import tf8.numpy as tnp
    >>> from tf8.example_libraries import stax
    >>> init_fun, apply_fun = stax.MaxPool((2,))
    >>> print(apply_fun((), tnp.array([[[1.0], [3.0], [2.0]]]))[0, :, 0])
    [3. 3.]

    As JAX's: a 'SAME'-padded window's maximum ignores its padding (-inf).
    """
    return _pooling(lax.max, -np.inf, window_shape, strides, padding, spec)


def SumPool(
    window_shape: Sequence[int],
    strides: Sequence[int] | None = None,
    padding: str | Sequence[tuple[int, int]] = "VALID",
    spec: str | None = None,
) -> _LayerPair:
    """Sum pooling: the sum of each window of the spatial axes (`lax.add`, padding with 0);
    no parameters. Parameters as `MaxPool`'s.

    >>> import tf8.numpy as tnp
    >>> from tf8.example_libraries import stax
    >>> init_fun, apply_fun = stax.SumPool((2,), padding="SAME")
    >>> print(apply_fun((), tnp.array([[[1.0], [3.0], [2.0]]]))[0, :, 0])
    [4. 5. 2.]

    As JAX's.
    """
    return _pooling(lax.add, 0.0, window_shape, strides, padding, spec)


def AvgPool(
    window_shape: Sequence[int],
    strides: Sequence[int] | None = None,
    padding: str | Sequence[tuple[int, int]] = "VALID",
    spec: str | None = None,
) -> _LayerPair:
    """Average pooling: each window's sum over the number of input elements in it, so a
    window cut by 'SAME' padding averages only what it holds; no parameters. Parameters as
    `MaxPool`'s.

    >>> import tf8.numpy as tnp
    >>> from tf8.example_libraries import stax
    >>> init_fun, apply_fun = stax.AvgPool((2,), padding="SAME")
    >>> print(apply_fun((), tnp.array([[[1.0], [3.0], [2.0]]]))[0, :, 0])
    [2.  2.5 2. ]

    As JAX's (its divisor is a `reduce_window` of ones over the spatial shape).
    """
    return _pooling(lax.add, 0.0, window_shape, strides, padding, spec, average=True)
