"""`tf8.example_libraries.stax`: JAX's small neural-network library (`jax.example_libraries.stax`).

A layer is a pair `(init_fun, apply_fun)`: `init_fun(rng, input_shape)` returns
`(output_shape, params)` (a leading `-1` in `input_shape` stands for any batch size), and
`apply_fun(params, inputs, **kwargs)` computes the outputs (`rng=` a PRNG key for random
layers such as `Dropout`). Layer constructors are CamelCase (`Dense(out_dim)`); layers
without settings are named directly (`Relu`, `Flatten`). `serial` and `parallel` compose
layers into layers.

>>> import tf8.numpy as tnp
>>> from tf8 import random
>>> from tf8.example_libraries import stax
>>> init_fun, apply_fun = stax.serial(stax.Dense(8), stax.Relu, stax.Dense(3), stax.LogSoftmax)
>>> out_shape, params = init_fun(random.PRNGKey(0), (-1, 5))
>>> out_shape
(-1, 3)
>>> log_probs = apply_fun(params, tnp.ones((4, 5)))
>>> print(tnp.round(tnp.sum(tnp.exp(log_probs), axis=1), 6))
[1. 1. 1. 1.]

As JAX's. The convolution layers (`Conv`, `ConvTranspose`, `Conv1DTranspose`,
`GeneralConv`, `GeneralConvTranspose`) are `lax.conv_general_dilated`'s and
`lax.conv_transpose`'s. The pooling layers (`MaxPool`, `SumPool`, `AvgPool`) are
`lax.reduce_window`'s. The
activations (`relu`, ...) are tf8.nn's and the initializers (`glorot_normal`, ...)
tf8.nn.initializers', re-exported as JAX's stax re-exports jax.nn's.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import tf8.numpy as jnp  # noqa: F401 - JAX's stax exposes its numpy as `stax.jnp`
import tf8.random as random
from tf8.example_libraries._stax_conv import (
    Conv,
    Conv1DTranspose,
    ConvTranspose,
    GeneralConv,
    GeneralConvTranspose,
)
from tf8.example_libraries._stax_layers import (
    BatchNorm,
    Dense,
    Dropout,
    Elu,
    Exp,
    FanInConcat,
    FanInSum,
    FanOut,
    Flatten,
    Gelu,
    Identity,
    LeakyRelu,
    LogSoftmax,
    Relu,
    Selu,
    Sigmoid,
    Softmax,
    Softplus,
    Tanh,
    elementwise,
)
from tf8.example_libraries._stax_pool import AvgPool, MaxPool, SumPool
from tf8.nn import (
    elu,
    gelu,
    leaky_relu,
    log_softmax,
    relu,
    selu,
    sigmoid,
    softmax,
    softplus,
    standardize,
)
from tf8.nn.initializers import glorot_normal, normal, ones, zeros

__all__ = [
    "AvgPool", "MaxPool", "SumPool",
    "Conv", "Conv1DTranspose", "ConvTranspose", "GeneralConv", "GeneralConvTranspose",
    "BatchNorm", "Dense", "Dropout", "Elu", "Exp", "FanInConcat", "FanInSum", "FanOut",
    "Flatten", "Gelu", "Identity", "LeakyRelu", "LogSoftmax", "Relu", "Selu", "Sigmoid",
    "Softmax", "Softplus", "Tanh", "elementwise", "elu", "gelu", "glorot", "glorot_normal",
    "leaky_relu", "log_softmax", "logsoftmax", "normal", "ones", "parallel", "randn", "relu",
    "selu", "serial", "shape_dependent", "sigmoid", "softmax", "softplus", "standardize",
    "zeros",
]  # fmt: skip

# JAX's older names, kept as JAX keeps them.
glorot = glorot_normal
randn = normal
logsoftmax = log_softmax

_LayerPair = tuple[Callable[..., Any], Callable[..., Any]]


def _keys(rng: Any, count: int) -> Any:
    """`count` keys split from `rng`, or `count` Nones without one."""
    return random.split(rng, count) if rng is not None else (None,) * count


def serial(*layers: _LayerPair) -> _LayerPair:
    """The layers applied one after the other. `init_fun` splits its key once per layer
    (`rng, layer_rng = random.split(rng)`) and returns the list of the layers' params;
    `apply_fun` splits its `rng=` key (if any) into one per layer and passes other keyword
    arguments to every layer.

    Parameters: `*layers`, `(init_fun, apply_fun)` pairs.

    >>> import tf8.numpy as tnp
    >>> from tf8 import random
    >>> from tf8.example_libraries import stax
    >>> init_fun, apply_fun = stax.serial(stax.Dense(3), stax.Relu, stax.Flatten)
    >>> out_shape, params = init_fun(random.PRNGKey(0), (2, 4))
    >>> out_shape, len(params), params[1]
    ((2, 3), 3, ())
    >>> apply_fun(params, tnp.ones((2, 4))).shape
    (2, 3)

    As JAX's, except that `serial()` of no layers is the identity (JAX's fails to unpack).
    """
    nlayers = len(layers)
    init_funs, apply_funs = zip(*layers) if layers else ((), ())

    def init_fun(rng: Any, input_shape: Any) -> tuple[Any, list[Any]]:
        params = []
        for layer_init in init_funs:
            rng, layer_rng = random.split(rng)
            input_shape, param = layer_init(layer_rng, input_shape)
            params.append(param)
        return input_shape, params

    def apply_fun(params: Any, inputs: Any, **kwargs: Any) -> Any:
        rngs = _keys(kwargs.pop("rng", None), nlayers)
        for fun, param, rng in zip(apply_funs, params, rngs):
            inputs = fun(param, inputs, rng=rng, **kwargs)
        return inputs

    return init_fun, apply_fun


def parallel(*layers: _LayerPair) -> _LayerPair:
    """The layers applied side by side: the i-th layer to the i-th of a sequence of inputs
    (input shapes), giving a list of outputs (a sequence of output shapes and one of params).
    Often between `FanOut` and `FanInSum`/`FanInConcat`.

    Parameters: `*layers`, `(init_fun, apply_fun)` pairs.

    >>> import tf8.numpy as tnp
    >>> from tf8 import random
    >>> from tf8.example_libraries import stax
    >>> init_fun, apply_fun = stax.parallel(stax.Dense(2), stax.Identity)
    >>> out_shapes, params = init_fun(random.PRNGKey(0), [(5, 3), (5, 7)])
    >>> out_shapes
    ((5, 2), (5, 7))
    >>> [y.shape for y in apply_fun(params, [tnp.ones((5, 3)), tnp.ones((5, 7))])]
    [(5, 2), (5, 7)]

    Differs from JAX: `init_fun` returns a tuple `(output_shapes, params)` (JAX returns a
    `zip` iterator of those two, which unpacks the same way, once).
    """
    nlayers = len(layers)
    init_funs, apply_funs = zip(*layers) if layers else ((), ())

    def init_fun(rng: Any, input_shape: Any) -> tuple[Any, ...]:
        rngs = random.split(rng, nlayers)
        pairs = [init(key, shape) for init, key, shape in zip(init_funs, rngs, input_shape)]
        return tuple(zip(*pairs))

    def apply_fun(params: Any, inputs: Any, **kwargs: Any) -> list[Any]:
        rngs = _keys(kwargs.pop("rng", None), nlayers)
        return [f(p, x, rng=r, **kwargs) for f, p, x, r in zip(apply_funs, params, inputs, rngs)]

    return init_fun, apply_fun


def shape_dependent(make_layer: Callable[[Any], _LayerPair]) -> _LayerPair:
    """A layer built by `make_layer(input_shape)` once the input shape is known: in
    `init_fun` from `input_shape`, in `apply_fun` from `inputs.shape`.

    Parameters: `make_layer`, a function of a shape (tuple of ints) returning a layer.

    >>> import tf8.numpy as tnp
    >>> from tf8 import random
    >>> from tf8.example_libraries import stax
    >>> init_fun, apply_fun = stax.shape_dependent(lambda shape: stax.Dense(shape[-1]))
    >>> out_shape, params = init_fun(random.PRNGKey(0), (2, 6))
    >>> out_shape, apply_fun(params, tnp.ones((2, 6))).shape
    ((2, 6), (2, 6))

    As JAX's.
    """

    def init_fun(rng: Any, input_shape: Any) -> tuple[Any, Any]:
        return make_layer(input_shape)[0](rng, input_shape)

    def apply_fun(params: Any, inputs: Any, **kwargs: Any) -> Any:
        return make_layer(inputs.shape)[1](params, inputs, **kwargs)

    return init_fun, apply_fun
