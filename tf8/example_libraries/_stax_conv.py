"""stax's convolution layers: `GeneralConv` and `GeneralConvTranspose` with their
dimension-number layouts, and the TensorFlow-layout forms `Conv` (`NHWC`, `HWIO`, `NHWC`),
`ConvTranspose` and `Conv1DTranspose` (`NHC`, `HIO`, `NHC`), on `tf8.lax`'s convolutions."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import tf8.random as random
from tf8 import lax
from tf8.errors import ParameterError
from tf8.nn.initializers import glorot_normal, normal

_LayerPair = tuple[Callable[..., Any], Callable[..., Any]]
Specs = tuple[str, str, str]
_NHWC = ("NHWC", "HWIO", "NHWC")


def _kernel_and_bias(
    specs: Specs, out_chan: int, filter_shape: Sequence[int], input_shape: Sequence[int]
) -> tuple[list[int], list[int]]:
    """The kernel's shape (out_chan at 'O', the input's features at 'I', the filter's sizes
    at the other letters in order) and the bias's (out_chan at the output's 'C', 1 else)."""
    lhs_spec, rhs_spec, out_spec = specs
    if len(filter_shape) != len(rhs_spec) - 2 or len(input_shape) != len(lhs_spec):
        raise ParameterError(
            f"stax convolution: filter_shape {tuple(filter_shape)} and input shape "
            f"{tuple(input_shape)} must fit the dimension numbers {specs}"
        )
    sizes = iter(filter_shape)
    kernel = [
        out_chan if c == "O" else input_shape[lhs_spec.index("C")] if c == "I" else next(sizes)
        for c in rhs_spec
    ]
    return kernel, [out_chan if c == "C" else 1 for c in out_spec]


def _layer(
    specs: Specs,
    out_chan: int,
    filter_shape: Sequence[int],
    strides: Sequence[int] | None,
    padding: Any,
    W_init: Any,
    b_init: Any,
    shape_tuple: Callable[..., tuple[int, ...]],
    apply: Callable[..., Any],
) -> _LayerPair:
    filter_shape = tuple(filter_shape)
    strides = tuple(strides) if strides else (1,) * len(filter_shape)
    rhs_spec = specs[1]
    W_init = W_init or glorot_normal(rhs_spec.index("I"), rhs_spec.index("O"))

    def init_fun(rng: Any, input_shape: Sequence[int]) -> tuple[Any, Any]:
        kernel, bias = _kernel_and_bias(specs, out_chan, filter_shape, input_shape)
        output_shape = shape_tuple(input_shape, kernel, strides, padding, specs)
        k1, k2 = random.split(rng)
        return output_shape, (W_init(k1, kernel), b_init(k2, bias))

    def apply_fun(params: Any, inputs: Any, **kwargs: Any) -> Any:
        W, b = params
        return apply(inputs, W, strides, padding) + b

    return init_fun, apply_fun


def GeneralConv(
    dimension_numbers: Specs,
    out_chan: int,
    filter_shape: Sequence[int],
    strides: Sequence[int] | None = None,
    padding: Any = "VALID",
    W_init: Any = None,
    b_init: Any = normal(1e-6),  # noqa: B008 - JAX's default, built once
) -> _LayerPair:
    """A convolution layer with dimension numbers `(lhs_spec, rhs_spec, out_spec)` (strings
    such as `('NCHW', 'OIHW', 'NCHW')`): `conv_general_dilated(inputs, W, strides, padding,
    dimension_numbers=...) + b`, `W` of `out_chan` output features, the input's features and
    `filter_shape` in the rhs spec's layout, `b` broadcasting along the output's 'C'.

    Parameters: `dimension_numbers`; `out_chan`; `filter_shape` (the spatial sizes, in the
    rhs spec's order); `strides` (ones by default); `padding` ('VALID' by default, 'SAME' or
    pairs); `W_init` (glorot_normal over the kernel's 'I' and 'O' axes by default);
    `b_init` (normal(1e-6)).

    >>> import tf8.numpy as tnp
    >>> from tf8 import random
    >>> from tf8.example_libraries import stax
    >>> init_fun, apply_fun = stax.GeneralConv(("NCHW", "OIHW", "NCHW"), 4, (3, 3))
    >>> out_shape, (W, b) = init_fun(random.PRNGKey(0), (-1, 2, 8, 8))
    >>> out_shape, W.shape, b.shape
    ((-1, 4, 6, 6), (4, 2, 3, 3), (1, 4, 1, 1))
    >>> apply_fun((W, b), tnp.ones((5, 2, 8, 8))).shape
    (5, 4, 6, 6)

    As JAX's.
    """

    def apply(inputs: Any, W: Any, strides: Any, padding: Any) -> Any:
        ones = (1,) * len(strides)
        return lax.conv_general_dilated(
            inputs, W, strides, padding, ones, ones, dimension_numbers=dimension_numbers
        )

    return _layer(
        dimension_numbers, out_chan, filter_shape, strides, padding, W_init, b_init,
        lax.conv_general_shape_tuple, apply,
    )  # fmt: skip


def GeneralConvTranspose(
    dimension_numbers: Specs,
    out_chan: int,
    filter_shape: Sequence[int],
    strides: Sequence[int] | None = None,
    padding: Any = "VALID",
    W_init: Any = None,
    b_init: Any = normal(1e-6),  # noqa: B008 - JAX's default, built once
) -> _LayerPair:
    """A transposed-convolution layer: `lax.conv_transpose(inputs, W, strides, padding,
    dimension_numbers=...) + b` (fractionally strided: the output grows by `strides`), with
    the parameters of `GeneralConv`.

    >>> import tf8.numpy as tnp
    >>> from tf8 import random
    >>> from tf8.example_libraries import stax
    >>> init_fun, apply_fun = stax.GeneralConvTranspose(
    ...     ("NHWC", "HWIO", "NHWC"), 3, (2, 2), strides=(2, 2), padding="SAME")
    >>> out_shape, (W, b) = init_fun(random.PRNGKey(0), (1, 4, 4, 5))
    >>> out_shape, W.shape
    ((1, 8, 8, 3), (2, 2, 5, 3))
    >>> apply_fun((W, b), tnp.ones((1, 4, 4, 5))).shape
    (1, 8, 8, 3)

    As JAX's.
    """

    def apply(inputs: Any, W: Any, strides: Any, padding: Any) -> Any:
        return lax.conv_transpose(inputs, W, strides, padding, dimension_numbers=dimension_numbers)

    return _layer(
        dimension_numbers, out_chan, filter_shape, strides, padding, W_init, b_init,
        lax.conv_transpose_shape_tuple, apply,
    )  # fmt: skip


def Conv(
    out_chan: int,
    filter_shape: Sequence[int],
    strides: Sequence[int] | None = None,
    padding: Any = "VALID",
    W_init: Any = None,
    b_init: Any = normal(1e-6),  # noqa: B008 - JAX's default, built once
) -> _LayerPair:
    """`GeneralConv` in TensorFlow's layout: `NHWC` inputs, an `HWIO` kernel, `NHWC`
    outputs; the other parameters as `GeneralConv`'s.

    >>> from tf8 import random
    >>> from tf8.example_libraries import stax
    >>> init_fun, apply_fun = stax.Conv(8, (3, 3), padding="SAME")
    >>> init_fun(random.PRNGKey(0), (-1, 28, 28, 1))[0]
    (-1, 28, 28, 8)

    As JAX's (where it is `functools.partial(GeneralConv, ('NHWC', 'HWIO', 'NHWC'))`).
    """
    return GeneralConv(_NHWC, out_chan, filter_shape, strides, padding, W_init, b_init)


def ConvTranspose(
    out_chan: int,
    filter_shape: Sequence[int],
    strides: Sequence[int] | None = None,
    padding: Any = "VALID",
    W_init: Any = None,
    b_init: Any = normal(1e-6),  # noqa: B008 - JAX's default, built once
) -> _LayerPair:
    """`GeneralConvTranspose` in TensorFlow's layout (`NHWC`, `HWIO`, `NHWC`); the other
    parameters as `GeneralConv`'s.

    >>> from tf8 import random
    >>> from tf8.example_libraries import stax
    >>> init_fun, apply_fun = stax.ConvTranspose(2, (3, 3), strides=(2, 2))
    >>> init_fun(random.PRNGKey(0), (-1, 4, 4, 3))[0]
    (-1, 9, 9, 2)

    As JAX's (a `functools.partial` there).
    """
    return GeneralConvTranspose(_NHWC, out_chan, filter_shape, strides, padding, W_init, b_init)


def Conv1DTranspose(
    out_chan: int,
    filter_shape: Sequence[int],
    strides: Sequence[int] | None = None,
    padding: Any = "VALID",
    W_init: Any = None,
    b_init: Any = normal(1e-6),  # noqa: B008 - JAX's default, built once
) -> _LayerPair:
    """`GeneralConvTranspose` in one dimension (`NHC`, `HIO`, `NHC`); the other parameters
    as `GeneralConv`'s.

    >>> from tf8 import random
    >>> from tf8.example_libraries import stax
    >>> init_fun, apply_fun = stax.Conv1DTranspose(4, (3,), strides=(2,), padding="SAME")
    >>> init_fun(random.PRNGKey(0), (2, 5, 3))[0]
    (2, 10, 4)

    As JAX's (a `functools.partial` there).
    """
    return GeneralConvTranspose(
        ("NHC", "HIO", "NHC"), out_chan, filter_shape, strides, padding, W_init, b_init
    )
